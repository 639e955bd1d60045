//! `janus serve --tools conformance`: the fixture set of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), built on the library's public API as a user would.
//!
//! Served so far: the content tools, logging and progress tools, the error tool, the 2020-12
//! schema tool, a tool with an `x-mcp-header` argument, the prompts, the resources and the
//! template, the completion of `test_prompt_with_arguments`, and the tools and prompt that
//! need the client's input (sampling, elicitation and roots: real requests on a handshake
//! session, `input_required` rounds in 2026-07-28, through the one `Ctx::input` API), and
//! the tools that change the lists at run time (heard on `subscriptions/listen` and by
//! sessions).

use janus_server_core::codec::RawJson;
use janus_server_core::complete::CompletionRequest;
use janus_server_core::content::Content;
use janus_server_core::prompts::{PromptArgs, PromptMessages, PromptSpec};
use janus_server_core::resources::{Contents, ResourceSpec, TemplateSpec, Vars};
use janus_server_core::server::ServerBuilder;
use janus_server_core::tools::{Args, Output, TaskSupport, ToolFuture, ToolResult, ToolSpec};
use janus_server_core::{Ctx, InputRequest, InputRequired, Json, LogLevel, RpcError, Server};
use std::time::Duration;

/// A 1x1 red PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A WAV file of two silent 8 kHz mono 8-bit samples.
fn wav() -> Vec<u8> {
    let samples = [0x80u8, 0x80];
    let mut w = Vec::with_capacity(46);
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + samples.len() as u32).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes());
    w.extend_from_slice(&1u16.to_le_bytes()); // PCM
    w.extend_from_slice(&1u16.to_le_bytes()); // mono
    w.extend_from_slice(&8000u32.to_le_bytes());
    w.extend_from_slice(&8000u32.to_le_bytes());
    w.extend_from_slice(&1u16.to_le_bytes());
    w.extend_from_slice(&8u16.to_le_bytes());
    w.extend_from_slice(b"data");
    w.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    w.extend_from_slice(&samples);
    w
}

const NO_ARGS: &str = r#"{"type":"object","properties":{}}"#;

const SCHEMA_2020_12: &str = r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}"##;

fn spec(name: &str, description: &str, schema: &str) -> ToolSpec {
    ToolSpec::new(name, description, schema).expect("the fixture specs are valid")
}

fn simple_text(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    out.text("This is a simple text response for testing.");
    Ok(())
}

fn image(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    out.content(&Content::image(PNG, "image/png"));
    Ok(())
}

fn audio(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    out.content(&Content::audio(&wav(), "audio/wav"));
    Ok(())
}

fn embedded(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    out.content(&Content::resource_text(
        "test://embedded-resource",
        Some("text/plain"),
        "This is an embedded resource content.",
    ));
    Ok(())
}

fn mixed(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    out.text("Multiple content types test:");
    out.content(&Content::image(PNG, "image/png"));
    out.content(&Content::resource_text(
        "test://mixed-content-resource",
        Some("application/json"),
        r#"{"test":"data","value":123}"#,
    ));
    Ok(())
}

fn error(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    out.fail("This tool intentionally returns an error for testing");
    Ok(())
}

fn with_logging(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, RpcError> {
    let ctx = ctx.to_owned();
    Ok(Box::pin(async move {
        for (i, text) in [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ]
        .into_iter()
        .enumerate()
        {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            ctx.log(LogLevel::Info, None, &Json::string(text));
        }
        Ok(ToolResult::text("Tool with logging executed successfully"))
    }))
}

fn with_progress(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, RpcError> {
    let ctx = ctx.to_owned();
    Ok(Box::pin(async move {
        for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            ctx.progress(p, Some(100.0), None);
        }
        Ok(ToolResult::text("Tool with progress executed successfully"))
    }))
}

fn schema_tool(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    out.text("JSON Schema 2020-12 tool executed successfully");
    Ok(())
}

fn custom_header(_: &Ctx<'_>, args: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    out.text(&format!("value: {}", args.str("value").unwrap_or_default()));
    Ok(())
}

fn simple_prompt(_: &Ctx<'_>, _: PromptArgs<'_>, out: &mut PromptMessages) -> Result<(), RpcError> {
    out.user(Content::text("This is a simple prompt for testing."));
    Ok(())
}

fn prompt_with_arguments(
    _: &Ctx<'_>,
    args: PromptArgs<'_>,
    out: &mut PromptMessages,
) -> Result<(), RpcError> {
    let (a, b) = (args.get("arg1"), args.get("arg2"));
    out.user(Content::text(format!(
        "Prompt with arguments: arg1='{}', arg2='{}'",
        a.unwrap_or_default(),
        b.unwrap_or_default()
    )));
    Ok(())
}

fn prompt_with_resource(
    _: &Ctx<'_>,
    args: PromptArgs<'_>,
    out: &mut PromptMessages,
) -> Result<(), RpcError> {
    let uri = args.get("resourceUri").unwrap_or_default();
    out.user(Content::resource_text(
        &uri,
        Some("text/plain"),
        "Embedded resource content for testing.",
    ));
    out.user(Content::text("Please process the embedded resource above."));
    Ok(())
}

fn prompt_with_image(
    _: &Ctx<'_>,
    _: PromptArgs<'_>,
    out: &mut PromptMessages,
) -> Result<(), RpcError> {
    out.user(Content::image(PNG, "image/png"));
    out.user(Content::text("Please analyze the image above."));
    Ok(())
}

fn static_text(_: &Ctx<'_>, uri: &str, out: &mut Contents) -> Result<(), RpcError> {
    out.text(
        uri,
        Some("text/plain"),
        "This is the content of the static text resource.",
    );
    Ok(())
}

fn static_binary(_: &Ctx<'_>, uri: &str, out: &mut Contents) -> Result<(), RpcError> {
    out.blob(uri, Some("image/png"), PNG);
    Ok(())
}

fn watched(_: &Ctx<'_>, uri: &str, out: &mut Contents) -> Result<(), RpcError> {
    out.text(uri, Some("text/plain"), "Watched resource content.");
    Ok(())
}

fn template(_: &Ctx<'_>, uri: &str, vars: &Vars, out: &mut Contents) -> Result<(), RpcError> {
    let id = vars.get("id").unwrap_or_default();
    let body = Json::string(id);
    let data = Json::string(&format!("Data for ID: {id}"));
    out.text(
        uri,
        Some("application/json"),
        &format!(
            r#"{{"id":{},"templateTest":true,"data":{}}}"#,
            body.as_str(),
            data.as_str()
        ),
    );
    Ok(())
}

fn complete_arg1(_: &Ctx<'_>, req: &CompletionRequest<'_>) -> Vec<String> {
    ["paris", "park", "party", "hello"]
        .iter()
        .filter(|v| v.starts_with(req.value()))
        .map(|v| (*v).to_owned())
        .collect()
}

// ---- Input from the client ----------------------------------------------------------------

/// An elicitation's `action` and `content`, as the suite's texts show them.
fn elicited(r: RawJson<'_>) -> (String, String) {
    let action = r
        .get("action")
        .and_then(RawJson::as_string)
        .map_or_else(|| "unknown".to_owned(), std::borrow::Cow::into_owned);
    let content = r.get("content").map_or("{}", RawJson::as_str).to_owned();
    (action, content)
}

/// A sampling answer's text.
fn sampled(r: RawJson<'_>) -> String {
    r.get("content")
        .and_then(|c| c.get("text"))
        .and_then(RawJson::as_string)
        .map_or_else(String::new, std::borrow::Cow::into_owned)
}

/// One field of an accepted elicitation's content.
fn field(r: RawJson<'_>, name: &str) -> Option<String> {
    r.get("content").and_then(|c| c.get(name)).map(|v| {
        v.as_string()
            .map_or_else(|| v.as_str().to_owned(), std::borrow::Cow::into_owned)
    })
}

fn ask(key: &str, request: InputRequest) -> RpcError {
    InputRequired::new().ask(key, request).into()
}

const NAME_SCHEMA: &str =
    r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;

fn sampling(ctx: &Ctx<'_>, args: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    let Some(r) = ctx.input("answer") else {
        let prompt = args.str("prompt").unwrap_or_default();
        return Err(ask("answer", InputRequest::sample_text(&prompt, 100)));
    };
    out.text(&format!("LLM response: {}", sampled(r)));
    Ok(())
}

fn elicitation(ctx: &Ctx<'_>, args: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    let Some(r) = ctx.input("user") else {
        let message = args.str("message").unwrap_or_default();
        let schema = r#"{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}"#;
        return Err(ask("user", InputRequest::elicit(&message, schema)?));
    };
    let (action, content) = elicited(r);
    out.text(&format!(
        "User response: action={action}, content={content}"
    ));
    Ok(())
}

/// A tool that elicits with `schema` and reports what came back.
fn elicit_with(
    schema: &'static str,
) -> impl Fn(&Ctx<'_>, Args<'_>, &mut Output<'_>) -> Result<(), RpcError> {
    move |ctx, _, out| {
        let Some(r) = ctx.input("form") else {
            return Err(ask(
                "form",
                InputRequest::elicit("Please review the form", schema)?,
            ));
        };
        let (action, content) = elicited(r);
        out.text(&format!(
            "Elicitation completed: action={action}, content={content}"
        ));
        Ok(())
    }
}

const DEFAULTS_SCHEMA: &str = r#"{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},"score":{"type":"number","default":95.5},"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","default":true}}}"#;

const ENUMS_SCHEMA: &str = r#"{"type":"object","properties":{"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},"titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}"#;

fn mrtr_elicitation(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    let name = ctx.input("user_name").and_then(|r| field(r, "name"));
    let Some(name) = name else {
        return Err(ask(
            "user_name",
            InputRequest::elicit("What is your name?", NAME_SCHEMA)?,
        ));
    };
    out.text(&format!("Hello, {name}!"));
    Ok(())
}

fn mrtr_sampling(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    let Some(r) = ctx.input("capital_question") else {
        let q = InputRequest::sample_text("What is the capital of France?", 100);
        return Err(ask("capital_question", q));
    };
    out.text(&format!("The model said: {}", sampled(r)));
    Ok(())
}

fn mrtr_roots(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    let Some(r) = ctx.input("client_roots") else {
        return Err(ask("client_roots", InputRequest::list_roots()));
    };
    let roots = r.get("roots").map_or("[]", RawJson::as_str);
    out.text(&format!("Client roots: {roots}"));
    Ok(())
}

const CONFIRM_SCHEMA: &str =
    r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#;

/// Asks for a confirmation with its own state; completes once both come back.
fn mrtr_state(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    match (ctx.input("confirm"), ctx.request_state()) {
        (Some(_), Some("state-ok")) => {
            out.text("Confirmed, and the request state came back: state-ok");
            Ok(())
        }
        _ => Err(InputRequired::new()
            .ask(
                "confirm",
                InputRequest::elicit("Please confirm", CONFIRM_SCHEMA)?,
            )
            .state("state-ok")
            .into()),
    }
}

fn mrtr_multiple(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    let (Some(user), Some(greeting), Some(_)) = (
        ctx.input("user_name"),
        ctx.input("greeting"),
        ctx.input("client_roots"),
    ) else {
        return Err(InputRequired::new()
            .ask(
                "user_name",
                InputRequest::elicit("What is your name?", NAME_SCHEMA)?,
            )
            .ask(
                "greeting",
                InputRequest::sample_text("Generate a greeting", 50),
            )
            .ask("client_roots", InputRequest::list_roots())
            .into());
    };
    let name = field(user, "name").unwrap_or_default();
    out.text(&format!("{} {name}!", sampled(greeting)));
    Ok(())
}

fn mrtr_multi_round(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    let Some(name) = ctx.input("step1").and_then(|r| field(r, "name")) else {
        return Err(ask(
            "step1",
            InputRequest::elicit("Step 1: What is your name?", NAME_SCHEMA)?,
        ));
    };
    let Some(color) = ctx.input("step2").and_then(|r| field(r, "color")) else {
        let schema =
            r#"{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}"#;
        return Err(ask(
            "step2",
            InputRequest::elicit("Step 2: What is your favorite color?", schema)?,
        ));
    };
    out.text(&format!("Hello {name}, your favorite color is {color}."));
    Ok(())
}

fn mrtr_tampered(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    if ctx.input("confirm").is_none() {
        return Err(InputRequired::new()
            .ask(
                "confirm",
                InputRequest::elicit("Please confirm", CONFIRM_SCHEMA)?,
            )
            .state("protected")
            .into());
    }
    out.text("The request state verified");
    Ok(())
}

/// Asks for both sampling and elicitation: the core sends only what the client declared.
fn mrtr_capabilities(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    if ctx.input("sample").is_none() && ctx.input("confirm").is_none() {
        return Err(InputRequired::new()
            .ask("sample", InputRequest::sample_text("Say hello", 20))
            .ask(
                "confirm",
                InputRequest::elicit("Please confirm", CONFIRM_SCHEMA)?,
            )
            .into());
    }
    out.text("Served with the input the client could give");
    Ok(())
}

/// Needs sampling: a client that did not declare it gets `-32021`.
fn missing_capability(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    let Some(r) = ctx.input("sample") else {
        return Err(ask("sample", InputRequest::sample_text("Say hello", 20)));
    };
    out.text(&format!("Sampled: {}", sampled(r)));
    Ok(())
}

fn mrtr_prompt(ctx: &Ctx<'_>, _: PromptArgs<'_>, out: &mut PromptMessages) -> Result<(), RpcError> {
    let Some(context) = ctx.input("user_context").and_then(|r| field(r, "context")) else {
        let schema = r#"{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}"#;
        return Err(ask(
            "user_context",
            InputRequest::elicit("What context should the prompt use?", schema)?,
        ));
    };
    out.user(Content::text(format!(
        "Answer with this context in mind: {context}"
    )));
    Ok(())
}

// ---- List changes ---------------------------------------------------------------------------

/// The server being served, for the tools that change its lists.
static SERVED: std::sync::OnceLock<std::sync::Weak<Server>> = std::sync::OnceLock::new();

/// Tells the fixtures which server they are part of (the list-changing tools need it).
pub(crate) fn serving(server: &std::sync::Arc<Server>) {
    let _ = SERVED.set(std::sync::Arc::downgrade(server));
}

fn served() -> Result<std::sync::Arc<Server>, RpcError> {
    SERVED
        .get()
        .and_then(std::sync::Weak::upgrade)
        .ok_or_else(RpcError::internal)
}

fn dynamic(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    out.text("A tool added at run time");
    Ok(())
}

fn dynamic_prompt(
    _: &Ctx<'_>,
    _: PromptArgs<'_>,
    out: &mut PromptMessages,
) -> Result<(), RpcError> {
    out.user(Content::text("A prompt added at run time"));
    Ok(())
}

/// Adds `test_dynamic_tool`, or removes it when it is there.
fn trigger_tool_change(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    let server = served()?;
    if server.remove_tool("test_dynamic_tool") {
        out.text("Removed test_dynamic_tool");
    } else {
        server
            .add_tool(
                spec("test_dynamic_tool", "Added at run time", NO_ARGS),
                dynamic,
            )
            .map_err(|_| RpcError::internal())?;
        out.text("Added test_dynamic_tool");
    }
    Ok(())
}

/// Adds `test_dynamic_prompt`, or removes it when it is there.
fn trigger_prompt_change(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    let server = served()?;
    if server.remove_prompt("test_dynamic_prompt") {
        out.text("Removed test_dynamic_prompt");
    } else {
        server
            .add_prompt(
                PromptSpec::new("test_dynamic_prompt", "Added at run time"),
                dynamic_prompt,
            )
            .map_err(|_| RpcError::internal())?;
        out.text("Added test_dynamic_prompt");
    }
    Ok(())
}

/// Announces that `test://watched-resource` changed.
fn trigger_resource_update(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    served()?.resource_updated("test://watched-resource");
    out.text("Updated test://watched-resource");
    Ok(())
}

// ---- The tasks extension ----------------------------------------------------------------------

fn greet(_: &Ctx<'_>, args: Args<'_>, out: &mut Output<'_>) -> Result<(), RpcError> {
    let name = args
        .str("name")
        .unwrap_or(std::borrow::Cow::Borrowed("World"));
    out.text(&format!("Hello, {name}!"));
    Ok(())
}

/// Sleeps `seconds` (at most 600), then answers; a cancelled task's work is dropped.
fn slow_compute(_: &Ctx<'_>, args: Args<'_>) -> Result<ToolFuture, RpcError> {
    let seconds = args.f64("seconds").unwrap_or(1.0).clamp(0.0, 600.0);
    let label = args.str("label").unwrap_or_default().into_owned();
    Ok(Box::pin(async move {
        tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
        Ok(ToolResult::text(format!("Computed {label} in {seconds} s")))
    }))
}

fn failing_job(_: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, RpcError> {
    Ok(Box::pin(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        Ok(ToolResult::error("The job failed, as it always does"))
    }))
}

/// Its work panics: the task fails with a protocol error (`-32603`).
fn protocol_error_job(_: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, RpcError> {
    Ok(Box::pin(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        Err(RpcError::internal())
    }))
}

/// Asks the user's name in a round first; the task it then becomes greets them.
fn tool_with_task(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, RpcError> {
    let Some(name) = ctx.input("user_name").and_then(|r| field(r, "name")) else {
        return Err(ask(
            "user_name",
            InputRequest::elicit("What is your name?", NAME_SCHEMA)?,
        ));
    };
    Ok(Box::pin(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        Ok(ToolResult::text(format!("Hello, {name}, from a task")))
    }))
}

const CONFIRM_NAME: &str =
    r#"{"type":"object","properties":{"name":{"type":"string"},"confirm":{"type":"boolean"}}}"#;

/// A task that waits for the user's confirmation (asked within the task).
fn confirm_delete(ctx: &Ctx<'_>, args: Args<'_>) -> Result<ToolFuture, RpcError> {
    let file = args.str("filename").unwrap_or_default().into_owned();
    let Some(answer) = ctx.input("confirm") else {
        let q = InputRequest::elicit(&format!("Delete {file}?"), CONFIRM_SCHEMA)?;
        return Err(InputRequired::new().ask("confirm", q).within_task().into());
    };
    let (action, content) = elicited(answer);
    Ok(Box::pin(async move {
        Ok(ToolResult::text(format!(
            "{file}: action={action}, content={content}"
        )))
    }))
}

/// A task that waits for two answers at once.
fn multi_input(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, RpcError> {
    let (Some(first), Some(second)) = (ctx.input("first"), ctx.input("second")) else {
        return Err(InputRequired::new()
            .ask(
                "first",
                InputRequest::elicit("First answer?", CONFIRM_NAME)?,
            )
            .ask(
                "second",
                InputRequest::elicit("Second answer?", CONFIRM_NAME)?,
            )
            .within_task()
            .into());
    };
    let text = format!(
        "first: {}, second: {}",
        field(first, "name").unwrap_or_default(),
        field(second, "name").unwrap_or_default()
    );
    Ok(Box::pin(async move { Ok(ToolResult::text(text)) }))
}

fn task_spec(name: &str, description: &str, schema: &str, support: TaskSupport) -> ToolSpec {
    spec(name, description, schema).task_support(support)
}

/// The conformance suite's fixture server, to configure further.
pub(crate) fn builder() -> ServerBuilder {
    let header_schema = r#"{"type":"object","properties":{"value":{"type":"string","x-mcp-header":"Value"}},"required":["value"]}"#;
    Server::builder("janus-conformance", env!("CARGO_PKG_VERSION"))
        .title("Janus conformance fixtures")
        .tool(
            spec("test_simple_text", "Returns simple text content", NO_ARGS),
            simple_text,
        )
        .tool(
            spec("test_image_content", "Returns an image", NO_ARGS),
            image,
        )
        .tool(spec("test_audio_content", "Returns audio", NO_ARGS), audio)
        .tool(
            spec(
                "test_embedded_resource",
                "Returns an embedded resource",
                NO_ARGS,
            ),
            embedded,
        )
        .tool(
            spec(
                "test_multiple_content_types",
                "Returns text, an image and a resource",
                NO_ARGS,
            ),
            mixed,
        )
        .tool(
            spec(
                "test_error_handling",
                "Always returns a tool error",
                NO_ARGS,
            ),
            error,
        )
        .async_tool(
            spec(
                "test_tool_with_logging",
                "Logs three messages as it runs",
                NO_ARGS,
            ),
            with_logging,
        )
        .async_tool(
            spec(
                "test_tool_with_progress",
                "Reports progress 0, 50 and 100 of 100",
                NO_ARGS,
            ),
            with_progress,
        )
        .tool(
            spec(
                "json_schema_2020_12_tool",
                "A JSON Schema 2020-12 input schema",
                SCHEMA_2020_12,
            ),
            schema_tool,
        )
        .tool(
            spec(
                "test_custom_header",
                "An argument mirrored in Mcp-Param-Value",
                header_schema,
            ),
            custom_header,
        )
        .tool(
            spec(
                "test_sampling",
                "Asks the client's model",
                r#"{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}"#,
            ),
            sampling,
        )
        .tool(
            spec(
                "test_elicitation",
                "Asks the user for a username and an email",
                r#"{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}"#,
            ),
            elicitation,
        )
        .tool(
            spec(
                "test_elicitation_sep1034_defaults",
                "Elicits with defaults for every primitive type",
                NO_ARGS,
            ),
            elicit_with(DEFAULTS_SCHEMA),
        )
        .tool(
            spec(
                "test_elicitation_sep1330_enums",
                "Elicits with the five enum forms",
                NO_ARGS,
            ),
            elicit_with(ENUMS_SCHEMA),
        )
        .tool(
            spec(
                "test_input_required_result_elicitation",
                "Asks the user's name",
                NO_ARGS,
            ),
            mrtr_elicitation,
        )
        .tool(
            spec(
                "test_input_required_result_sampling",
                "Asks the client's model",
                NO_ARGS,
            ),
            mrtr_sampling,
        )
        .tool(
            spec(
                "test_input_required_result_list_roots",
                "Asks the client's roots",
                NO_ARGS,
            ),
            mrtr_roots,
        )
        .tool(
            spec(
                "test_input_required_result_request_state",
                "Keeps a state across the round",
                NO_ARGS,
            ),
            mrtr_state,
        )
        .tool(
            spec(
                "test_input_required_result_multiple_inputs",
                "Asks three things at once",
                NO_ARGS,
            ),
            mrtr_multiple,
        )
        .tool(
            spec(
                "test_input_required_result_multi_round",
                "Asks in two rounds",
                NO_ARGS,
            ),
            mrtr_multi_round,
        )
        .tool(
            spec(
                "test_input_required_result_tampered_state",
                "Refuses a changed requestState",
                NO_ARGS,
            ),
            mrtr_tampered,
        )
        .tool(
            spec(
                "test_input_required_result_capabilities",
                "Asks only what the client declared",
                NO_ARGS,
            ),
            mrtr_capabilities,
        )
        .tool(
            spec(
                "test_missing_capability",
                "Needs the client's sampling capability",
                NO_ARGS,
            ),
            missing_capability,
        )
        .tool(
            spec(
                "test_streaming_elicitation",
                "Asks the user's name (as a round, never as a request on the stream)",
                NO_ARGS,
            ),
            mrtr_elicitation,
        )
        .async_tool(
            spec(
                "test_logging_tool",
                "Logs as it runs (only at the level a request asks)",
                NO_ARGS,
            ),
            with_logging,
        )
        .tool(
            spec(
                "test_trigger_tool_change",
                "Adds or removes test_dynamic_tool",
                NO_ARGS,
            ),
            trigger_tool_change,
        )
        .tool(
            spec(
                "test_trigger_prompt_change",
                "Adds or removes test_dynamic_prompt",
                NO_ARGS,
            ),
            trigger_prompt_change,
        )
        .tool(
            spec(
                "test_trigger_resource_update",
                "Announces a change of test://watched-resource",
                NO_ARGS,
            ),
            trigger_resource_update,
        )
        .tool(
            spec(
                "greet",
                "Greets by name (never a task)",
                r#"{"type":"object","properties":{"name":{"type":"string"}}}"#,
            ),
            greet,
        )
        .async_tool(
            task_spec(
                "slow_compute",
                "Sleeps some seconds, then answers",
                r#"{"type":"object","properties":{"seconds":{"type":"number"},"label":{"type":"string"}}}"#,
                TaskSupport::Optional,
            ),
            slow_compute,
        )
        .async_tool(
            // NB. Only as a task: the suite's required-task check calls it without the
            // extension, and its lifecycle check with it.
            task_spec(
                "failing_job",
                "Returns a tool error after half a second",
                NO_ARGS,
                TaskSupport::Required,
            ),
            failing_job,
        )
        .async_tool(
            task_spec(
                "protocol_error_job",
                "Fails with a protocol error",
                NO_ARGS,
                TaskSupport::Optional,
            ),
            protocol_error_job,
        )
        .async_tool(
            task_spec(
                "confirm_delete",
                "Deletes a file once the user confirms (asked within the task)",
                r#"{"type":"object","properties":{"filename":{"type":"string"}}}"#,
                TaskSupport::Optional,
            ),
            confirm_delete,
        )
        .async_tool(
            task_spec(
                "multi_input",
                "Waits for two answers at once (within the task)",
                NO_ARGS,
                TaskSupport::Optional,
            ),
            multi_input,
        )
        .async_tool(
            task_spec(
                "test_tool_with_task",
                "Asks a name in a round, then runs as a task",
                NO_ARGS,
                TaskSupport::Required,
            ),
            tool_with_task,
        )
        .prompt(
            PromptSpec::new(
                "test_input_required_result_prompt",
                "A prompt that asks for context",
            ),
            mrtr_prompt,
        )
        .prompt(
            PromptSpec::new("test_simple_prompt", "A simple prompt"),
            simple_prompt,
        )
        .prompt(
            PromptSpec::new("test_prompt_with_arguments", "A prompt with arguments")
                .argument("arg1", "First argument", true)
                .argument("arg2", "Second argument", true),
            prompt_with_arguments,
        )
        .prompt(
            PromptSpec::new(
                "test_prompt_with_embedded_resource",
                "A prompt with a resource",
            )
            .argument("resourceUri", "URI of the resource to embed", true),
            prompt_with_resource,
        )
        .prompt(
            PromptSpec::new("test_prompt_with_image", "A prompt with an image"),
            prompt_with_image,
        )
        .complete_prompt_argument("test_prompt_with_arguments", "arg1", complete_arg1)
        .resource(
            ResourceSpec::new("test://static-text", "Static text resource")
                .mime_type("text/plain")
                .description("A static text resource"),
            static_text,
        )
        .resource(
            ResourceSpec::new("test://static-binary", "Static binary resource")
                .mime_type("image/png")
                .description("A static PNG"),
            static_binary,
        )
        .resource(
            ResourceSpec::new("test://watched-resource", "Watched resource")
                .mime_type("text/plain")
                .description("A resource to subscribe to"),
            watched,
        )
        .resource_template(
            TemplateSpec::new("test://template/{id}/data", "Template resource")
                .expect("a valid template")
                .mime_type("application/json")
                .description("Data for an id"),
            template,
        )
}
