//! The demo server that `janus serve` ships: the tools `echo`, `add`, `fail` and `sleep`, the
//! resource `demo://text-64k` (64 KiB of text that never changes) and the prompt `greet`.

use crate::api::ctx::Ctx;
use crate::api::halt::Halt;
use crate::api::tools::{Args, Output, TaskSupport, ToolSpec};
use crate::engine::server::{Server, ServerBuilder};
use janus_model::json::Json;
use std::sync::Arc;

/// The longest `sleep` accepted, in milliseconds.
pub const MAX_SLEEP_MS: u64 = 600_000;

/// `echo {text}`: one text block with that text, copied without being decoded.
///
/// # Errors
///
/// Never: a missing text is a result with `isError: true`.
pub fn echo(_: &Ctx<'_>, args: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
    match args.get("text") {
        Some(text) if text.is_string() => out.text_json(text),
        _ => out.fail("Invalid arguments for tool echo: text must be a string"),
    };
    Ok(())
}

/// `add {a, b}`: the sum as text and as `structuredContent {sum}`.
///
/// # Errors
///
/// Never: arguments that are not numbers give a result with `isError: true`.
pub fn add(_: &Ctx<'_>, args: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
    let sum = match (args.i64("a"), args.i64("b")) {
        (Some(a), Some(b)) => a.checked_add(b).map(|s| s.to_string()),
        _ => match (args.f64("a"), args.f64("b")) {
            (Some(a), Some(b)) if (a + b).is_finite() => Some((a + b).to_string()),
            _ => None,
        },
    };
    match sum.and_then(|s| {
        Json::parse(format!(r#"{{"sum":{s}}}"#))
            .ok()
            .map(|j| (s, j))
    }) {
        Some((s, structured)) => {
            out.text(&s);
            out.structured(structured);
        }
        None => {
            out.fail("Invalid arguments for tool add: a and b must be numbers with a finite sum");
        }
    }
    Ok(())
}

/// `fail {}`: always a result with `isError: true`.
///
/// # Errors
///
/// Never.
pub fn fail(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
    out.fail("fail: this tool always fails");
    Ok(())
}

/// The specs of the demo tools (`echo`, `add`, `fail`, `sleep`).
#[must_use]
pub fn specs() -> Vec<ToolSpec> {
    const VALID: &str = "the demo tool specs are valid";
    let read_only = r#"{"readOnlyHint":true,"openWorldHint":false}"#;
    let echo = ToolSpec::new(
        "echo",
        "Returns its text argument as one text block.",
        r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#,
    )
    .and_then(|s| s.title("Echo").annotations(read_only))
    .expect(VALID);
    let add = ToolSpec::new(
        "add",
        "Adds two numbers; returns the sum as text and as structured content.",
        r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}"#,
    )
    .and_then(|s| {
        s.title("Add")
            .output_schema(r#"{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}"#)
    })
    .and_then(|s| s.annotations(read_only))
    .expect(VALID);
    let fail = ToolSpec::new(
        "fail",
        "Always fails: a result with isError true.",
        r#"{"type":"object","additionalProperties":false}"#,
    )
    .expect(VALID)
    .title("Fail");
    let sleep = ToolSpec::new(
        "sleep",
        "Waits ms milliseconds, then returns one text block.",
        r#"{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":600000}},"required":["ms"]}"#,
    )
    .expect(VALID)
    .title("Sleep")
    .task_support(TaskSupport::Optional);
    vec![echo, add, fail, sleep]
}

/// The URI of the demo's 64 KiB text resource.
pub const TEXT_64K_URI: &str = "demo://text-64k";

/// The demo's 64 KiB text: printable ASCII lines, the same on every build.
#[must_use]
pub fn text_64k() -> String {
    let line = "The quick brown fox jumps over the lazy dog; 0123456789 ABCDEFGHIJ\n";
    line.repeat(64 * 1024 / line.len() + 1)[..64 * 1024].to_owned()
}

/// `greet {name}`: one user message asking for a greeting of `name`.
fn greet(
    _: &Ctx<'_>,
    args: crate::api::prompts::PromptArgs<'_>,
    out: &mut crate::api::prompts::PromptMessages,
) -> Result<(), Halt> {
    let name = args.str("name").unwrap_or_default();
    out.user(janus_model::content::Content::text(format!(
        "Write a short, friendly greeting for {name}."
    )));
    Ok(())
}

/// The demo server: `echo`, `add`, `fail`, and with the `tokio` feature `sleep`.
#[must_use]
pub fn server() -> Arc<Server> {
    builder().build().expect("the demo tool specs are valid")
}

/// A builder with the demo tools, to configure further.
#[must_use]
pub fn builder() -> ServerBuilder {
    let mut specs = specs().into_iter();
    let mut b = Server::builder("janus", env!("CARGO_PKG_VERSION"))
        .title("Janus demo server")
        .tool(specs.next().expect("echo spec"), echo)
        .tool(specs.next().expect("add spec"), add)
        .tool(specs.next().expect("fail spec"), fail)
        .static_resource(
            crate::api::resources::ResourceSpec::new(TEXT_64K_URI, "text-64k")
                .mime_type("text/plain")
                .description("64 KiB of text that never changes"),
            crate::api::resources::StaticResource::text(&text_64k(), None),
        )
        .prompt(
            crate::api::prompts::PromptSpec::new("greet", "Asks for a greeting").argument(
                "name",
                "whom to greet",
                true,
            ),
            greet,
        );
    #[cfg(feature = "tokio")]
    {
        b = b.async_tool(specs.next().expect("sleep spec"), sleep);
    }
    #[cfg(not(feature = "tokio"))]
    let _ = &mut b;
    b
}

/// `sleep {ms}`: waits, then answers "slept N ms" (asynchronous: it runs as a job). It
/// reports progress every 100 ms when the request asked for it.
///
/// # Errors
///
/// Never at once: bad arguments give a result with `isError: true`.
#[cfg(feature = "tokio")]
pub fn sleep(ctx: &Ctx<'_>, args: Args<'_>) -> Result<crate::api::tools::ToolFuture, Halt> {
    use crate::api::tools::ToolResult;
    let ms = args.i64("ms").and_then(|ms| u64::try_from(ms).ok());
    let report = ctx.progress_token().is_some();
    let ctx = ctx.to_owned();
    Ok(Box::pin(async move {
        let Some(ms) = ms else {
            return Ok(ToolResult::error(
                "Invalid arguments for tool sleep: ms must be a non-negative integer",
            ));
        };
        if ms > MAX_SLEEP_MS {
            return Ok(ToolResult::error(
                "Invalid arguments for tool sleep: ms is at most 600000",
            ));
        }
        let step = std::time::Duration::from_millis(100);
        let end = tokio::time::Instant::now() + std::time::Duration::from_millis(ms);
        let mut done = 0u64;
        while report && tokio::time::Instant::now() + step < end {
            tokio::time::sleep(step).await;
            done += 100;
            ctx.progress(done as f64, Some(ms as f64), None);
        }
        tokio::time::sleep_until(end).await;
        Ok(ToolResult::text(format!("slept {ms} ms")))
    }))
}
