//! Input from the client through `Connection`, in both eras (`decisions.md`, "Server
//! surface"): 2026-07-28 rounds (`input_required`, `requestState`, retries) and a handshake
//! session's server-to-client requests, with the bad inputs of each.

use bytes::BytesMut;
use janus_server_core::Halt;
use janus_server_core::content::Content;
use janus_server_core::ctx::Principal;
use janus_server_core::prompts::{PromptArgs, PromptMessages, PromptSpec};
use janus_server_core::resources::{Contents, ResourceSpec};
use janus_server_core::tools::{Args, Output, ToolFuture, ToolResult, ToolSpec};
use janus_server_core::{Ctx, InputRequest, InputRequired, Server};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

mod support;
use support::*;

const NAME: &str =
    r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;
const COLOR: &str = r#"{"type":"object","properties":{"color":{"type":"string"}}}"#;
const NO_ARGS: &str = r#"{"type":"object"}"#;

fn answered(ctx: &Ctx<'_>, key: &str, field: &str) -> Option<String> {
    ctx.input(key)?
        .get("content")?
        .get(field)?
        .as_string()
        .map(|s| s.into_owned())
}

fn ask_name(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
    let Some(name) = answered(ctx, "name", "name") else {
        return Err(InputRequired::new()
            .ask("name", InputRequest::elicit("Your name?", NAME)?)
            .into());
    };
    out.text(&format!("Hello, {name}"));
    Ok(())
}

/// Two rounds, with a state of its own in the first.
fn two_rounds(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
    let Some(name) = answered(ctx, "name", "name") else {
        return Err(InputRequired::new()
            .ask("name", InputRequest::elicit("Your name?", NAME)?)
            .state("round-1")
            .into());
    };
    let Some(color) = answered(ctx, "color", "color") else {
        let state = ctx.request_state().unwrap_or("none");
        return Err(InputRequired::new()
            .ask(
                "color",
                InputRequest::elicit(&format!("Color? (after {state})"), COLOR)?,
            )
            .into());
    };
    out.text(&format!("{name} likes {color}"));
    Ok(())
}

/// Asks a sampling and roots at once.
fn both(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
    if ctx.input("model").is_none() && ctx.input("roots").is_none() {
        return Err(InputRequired::new()
            .ask("model", InputRequest::sample_text("hi", 10))
            .ask("roots", InputRequest::list_roots())
            .into());
    }
    let got: Vec<&str> = ["model", "roots"]
        .into_iter()
        .filter(|k| ctx.input(k).is_some())
        .collect();
    out.text(&got.join("+"));
    Ok(())
}

fn async_ask(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
    let Some(name) = answered(ctx, "name", "name") else {
        return Err(InputRequired::new()
            .ask("name", InputRequest::elicit("Your name?", NAME)?)
            .into());
    };
    Ok(Box::pin(async move {
        tokio::time::sleep(Duration::from_millis(5)).await;
        Ok(ToolResult::text(format!("later, {name}")))
    }))
}

/// A task that asks two things within itself.
fn parked(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
    let (Some(a), Some(b)) = (answered(ctx, "a", "name"), answered(ctx, "b", "name")) else {
        return Err(InputRequired::new()
            .ask("a", InputRequest::elicit("A?", NAME)?)
            .ask("b", InputRequest::elicit("B?", NAME)?)
            .within_task()
            .into());
    };
    Ok(Box::pin(async move {
        Ok(ToolResult::text(format!("{a} and {b}")))
    }))
}

/// Asks from inside its work, after an await (`within` asks within its task).
fn ask_later(ctx: &Ctx<'_>, args: Args<'_>, within: bool) -> ToolFuture {
    let ctx = ctx.to_owned();
    let twice = args.get("twice").is_some();
    Box::pin(async move {
        tokio::time::sleep(Duration::from_millis(2)).await;
        let name = ctx.input("name").and_then(|a| {
            a.get("content")?
                .get("name")?
                .as_string()
                .map(|s| s.into_owned())
        });
        let Some(name) = name else {
            let asked = InputRequired::new()
                .ask("name", InputRequest::elicit("Your name?", NAME)?)
                .state("from the future");
            let asked = if within { asked.within_task() } else { asked };
            return Err(asked.into());
        };
        if twice && ctx.input("color").is_none() {
            return Err(InputRequired::new()
                .ask("color", InputRequest::elicit("Color?", COLOR)?)
                .into());
        }
        let state = ctx.request_state().unwrap_or("none");
        Ok(ToolResult::text(format!("later {name} ({state})")))
    })
}

fn later_prompt(
    ctx: &Ctx<'_>,
    _: PromptArgs<'_>,
) -> Result<janus_server_core::prompts::MessagesFuture, Halt> {
    let ctx = ctx.to_owned();
    Ok(Box::pin(async move {
        tokio::task::yield_now().await;
        let Some(r) = ctx.input("name") else {
            return Err(InputRequired::new()
                .ask("name", InputRequest::elicit("Your name?", NAME)?)
                .into());
        };
        let mut m = PromptMessages::default();
        m.user(Content::text(format!("prompt for {}", r.as_str().len())));
        Ok(m)
    }))
}

fn ask_prompt(ctx: &Ctx<'_>, _: PromptArgs<'_>, out: &mut PromptMessages) -> Result<(), Halt> {
    let Some(name) = answered(ctx, "name", "name") else {
        return Err(InputRequired::new()
            .ask("name", InputRequest::elicit("Your name?", NAME)?)
            .into());
    };
    out.user(Content::text(format!("Write to {name}")));
    Ok(())
}

fn roots_resource(ctx: &Ctx<'_>, uri: &str, out: &mut Contents) -> Result<(), Halt> {
    let Some(r) = ctx.input("roots") else {
        return Err(InputRequired::new()
            .ask("roots", InputRequest::list_roots())
            .into());
    };
    out.text(
        uri,
        Some("application/json"),
        r.get("roots").unwrap().as_str(),
    );
    Ok(())
}

fn server() -> Arc<Server> {
    let spec = |n: &str| ToolSpec::new(n, n, NO_ARGS).unwrap();
    Server::builder("input", "1")
        .state_key(b"a key of the tests, 32 bytes ok")
        .input_timeout(Duration::from_millis(50))
        .tool(spec("ask_name"), ask_name)
        .tool(spec("two_rounds"), two_rounds)
        .tool(spec("both"), both)
        .async_tool(spec("async_ask"), async_ask)
        .async_tool(
            spec("parked").task_support(janus_server_core::tools::TaskSupport::Optional),
            parked,
        )
        .async_tool(spec("ask_later"), |c: &Ctx<'_>, a: Args<'_>| {
            Ok(ask_later(c, a, false))
        })
        .async_tool(
            spec("park_later").task_support(janus_server_core::tools::TaskSupport::Optional),
            |c: &Ctx<'_>, a: Args<'_>| Ok(ask_later(c, a, true)),
        )
        .prompt(PromptSpec::new("ask_prompt", "asks"), ask_prompt)
        .async_prompt(PromptSpec::new("later_prompt", "asks later"), later_prompt)
        .resource(ResourceSpec::new("test://roots", "roots"), roots_resource)
        .build()
        .unwrap()
}

// ---- 2026-07-28 -------------------------------------------------------------------------------

/// A modern request with `caps` as the client's capabilities; `members` end with a comma.
fn req(id: i64, method: &str, members: &str, caps: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{members}"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{caps}}}}}}}"#
    )
}

const ALL: &str = r#"{"elicitation":{},"sampling":{},"roots":{}}"#;

fn call(id: i64, tool: &str, more: &str) -> String {
    req(
        id,
        "tools/call",
        &format!(r#""name":"{tool}","arguments":{{}},{more}"#),
        ALL,
    )
}

fn accept(field: &str, value: &str) -> Value {
    json!({"action": "accept", "content": {field: value}})
}

fn retry(state: &Value, responses: &Value) -> String {
    format!(r#""requestState":{state},"inputResponses":{responses},"#)
}

fn modern_client() -> Client {
    Client::with(server())
}

#[test]
fn a_round_asks_with_a_sealed_state_and_the_retry_completes() {
    let mut c = modern_client();
    let r = c.answer(&call(1, "ask_name", ""));
    let res = &r["result"];
    assert_eq!(res["resultType"], "input_required", "{r}");
    assert_eq!(res["inputRequests"]["name"]["method"], "elicitation/create");
    assert_eq!(
        res["inputRequests"]["name"]["params"]["requestedSchema"]["required"][0],
        "name"
    );
    assert!(res["requestState"].is_string());
    assert_eq!(
        res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "input"
    );
    let again = retry(
        &res["requestState"],
        &json!({"name": accept("name", "Ann")}),
    );
    let r = c.answer(&call(2, "ask_name", &again));
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "Hello, Ann");
}

#[test]
fn a_retry_without_state_is_served_with_its_answers_and_extra_keys_are_ignored() {
    let mut c = modern_client();
    let responses = json!({"name": accept("name", "Bo"), "other": {"action": "decline"}});
    let r = c.answer(&call(
        1,
        "ask_name",
        &format!(r#""inputResponses":{responses},"#),
    ));
    assert_eq!(r["result"]["content"][0]["text"], "Hello, Bo", "{r}");
}

#[test]
fn missing_or_wrong_keys_are_asked_again_never_an_error() {
    let mut c = modern_client();
    let r1 = c.answer(&call(1, "ask_name", ""));
    let state = &r1["result"]["requestState"];
    for responses in [json!({}), json!({"wrong_key": accept("name", "x")})] {
        let r = c.answer(&call(2, "ask_name", &retry(state, &responses)));
        assert_eq!(r["result"]["resultType"], "input_required", "{r}");
        assert!(r["result"]["inputRequests"]["name"].is_object());
    }
}

#[test]
fn malformed_input_responses_are_refused_with_32602() {
    let mut c = modern_client();
    for bad in [
        r#""inputResponses":null,"#,
        r#""inputResponses":[1],"#,
        r#""inputResponses":{"name":12345},"#,
        r#""requestState":7,"#,
    ] {
        let r = c.answer(&call(1, "ask_name", bad));
        assert_eq!(code(&r), -32602, "{bad}: {r}");
    }
}

#[test]
fn a_tampered_state_is_refused() {
    let mut c = modern_client();
    let r1 = c.answer(&call(1, "ask_name", ""));
    let state = r1["result"]["requestState"].as_str().unwrap().to_owned();
    let responses = json!({"name": accept("name", "Ann")});
    let (payload, mac) = state.rsplit_once('.').unwrap();
    let flipped = {
        let mut b = payload.as_bytes().to_vec();
        b[3] = if b[3] == b'A' { b'B' } else { b'A' };
        format!("{}.{mac}", String::from_utf8(b).unwrap())
    };
    for bad in [
        format!("{state}-TAMPERED"),
        flipped,
        "not a state".to_owned(),
        String::new(),
    ] {
        let r = c.answer(&call(2, "ask_name", &retry(&json!(bad), &responses)));
        assert_eq!(code(&r), -32602, "{r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("integrity"),
            "{r}"
        );
    }
}

#[test]
fn a_state_is_bound_to_its_request_its_caller_and_its_time() {
    let mut c = modern_client();
    let r1 = c.answer(&call(1, "ask_name", ""));
    let state = r1["result"]["requestState"].clone();
    let responses = json!({"name": accept("name", "Ann")});
    // Another tool, other arguments.
    let r = c.answer(&call(2, "two_rounds", &retry(&state, &responses)));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another request"),
        "{r}"
    );
    let other_args = req(
        3,
        "tools/call",
        &format!(
            r#""name":"ask_name","arguments":{{"x":1}},{}"#,
            retry(&state, &responses)
        ),
        ALL,
    );
    assert_eq!(code(&c.answer(&other_args)), -32602);
    // Another caller.
    c.conn.set_principal(Some(Arc::new(Principal::new(
        Some("mallory".into()),
        None,
        vec![],
    ))));
    let r = c.answer(&call(4, "ask_name", &retry(&state, &responses)));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another request"),
        "{r}"
    );
    c.conn.set_principal(None);
    // The same request, whitespace aside, is served.
    let spaced = req(
        5,
        "tools/call",
        &format!(
            r#""name":"ask_name","arguments": {{ }},{}"#,
            retry(&state, &responses)
        ),
        ALL,
    );
    assert_eq!(c.answer(&spaced)["result"]["resultType"], "complete");
    // Eleven minutes later it has expired.
    let later = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        + Duration::from_secs(660);
    c.conn
        .handle_time(u64::try_from(later.as_millis()).unwrap());
    let r = c.answer(&call(6, "ask_name", &retry(&state, &responses)));
    assert!(
        r["error"]["message"].as_str().unwrap().contains("expired"),
        "{r}"
    );
}

#[test]
fn rounds_carry_earlier_answers_and_the_handlers_state() {
    let mut c = modern_client();
    let r1 = c.answer(&call(1, "two_rounds", ""));
    let s1 = r1["result"]["requestState"].clone();
    let r2 = c.answer(&call(
        2,
        "two_rounds",
        &retry(&s1, &json!({"name": accept("name", "Cy")})),
    ));
    let res = &r2["result"];
    assert_eq!(res["resultType"], "input_required", "{r2}");
    assert_eq!(
        res["inputRequests"]["color"]["params"]["message"],
        "Color? (after round-1)"
    );
    assert_ne!(res["requestState"], s1);
    // The second round's answer alone: the first one comes from the state. An answer to a key
    // this round did not ask is not taken either.
    let r3 = c.answer(&call(
        3,
        "two_rounds",
        &retry(
            &res["requestState"],
            &json!({"color": accept("color", "teal"), "name": accept("name", "Eve")}),
        ),
    ));
    assert_eq!(r3["result"]["content"][0]["text"], "Cy likes teal", "{r3}");
}

#[test]
fn only_what_the_client_declared_is_asked_and_nothing_declared_is_32021() {
    let mut c = modern_client();
    let only_sampling = req(
        1,
        "tools/call",
        r#""name":"both","arguments":{},"#,
        r#"{"sampling":{}}"#,
    );
    let r = c.answer(&only_sampling);
    let asked = r["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(asked.keys().collect::<Vec<_>>(), ["model"], "{r}");
    let none = req(2, "tools/call", r#""name":"both","arguments":{},"#, "{}");
    let r = c.answer(&none);
    assert_eq!(code(&r), -32021, "{r}");
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}, "roots": {}})
    );
    // URL elicitation needs `elicitation.url`; a client that declares only that cannot fill
    // a form.
    let url_only = req(
        3,
        "tools/call",
        r#""name":"ask_name","arguments":{},"#,
        r#"{"elicitation":{"url":{}}}"#,
    );
    assert_eq!(code(&c.answer(&url_only)), -32021);
}

#[test]
fn prompts_and_resources_ask_too_and_lists_never_do() {
    let mut c = modern_client();
    let r = c.answer(&req(1, "prompts/get", r#""name":"ask_prompt","#, ALL));
    let state = r["result"]["requestState"].clone();
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    let r = c.answer(&req(
        2,
        "prompts/get",
        &format!(
            r#""name":"ask_prompt",{}"#,
            retry(&state, &json!({"name": accept("name", "Di")}))
        ),
        ALL,
    ));
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"], "Write to Di",
        "{r}"
    );
    let r = c.answer(&req(3, "resources/read", r#""uri":"test://roots","#, ALL));
    assert_eq!(
        r["result"]["inputRequests"]["roots"]["method"], "roots/list",
        "{r}"
    );
    let roots = json!({"roots": {"roots": [{"uri": "file:///w"}]}});
    let r = c.answer(&req(
        4,
        "resources/read",
        &format!(
            r#""uri":"test://roots",{}"#,
            retry(&r["result"]["requestState"], &roots)
        ),
        ALL,
    ));
    assert_eq!(
        r["result"]["contents"][0]["text"], r#"[{"uri":"file:///w"}]"#,
        "{r}"
    );
    // A list with inputResponses is a list.
    let r = c.answer(&req(5, "tools/list", r#""inputResponses":{},"#, ALL));
    assert_eq!(r["result"]["resultType"], "complete");
}

#[tokio::test]
async fn an_asynchronous_tool_asks_before_its_work_and_runs_with_the_answer() {
    let mut c = modern_client();
    let r = c.answer(&call(1, "async_ask", ""));
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    c.job(&call(
        2,
        "async_ask",
        &retry(
            &r["result"]["requestState"],
            &json!({"name": accept("name", "Flo")}),
        ),
    ));
    let r = c.finish().await;
    assert_eq!(r["result"]["content"][0]["text"], "later, Flo", "{r}");
}

#[tokio::test]
async fn an_asynchronous_tool_asks_from_inside_its_work_round_after_round() {
    let mut c = modern_client();
    c.job(&call(1, "ask_later", ""));
    let r = c.finish().await;
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    assert_eq!(
        r["result"]["inputRequests"]["name"]["params"]["message"],
        "Your name?"
    );
    // The retry runs the work again with the answer and the state the future set.
    let again = retry(
        &r["result"]["requestState"],
        &json!({"name": accept("name", "Ida")}),
    );
    c.job(&call(2, "ask_later", &again));
    let r = c.finish().await;
    assert_eq!(
        r["result"]["content"][0]["text"], "later Ida (from the future)",
        "{r}"
    );
    // The state is bound to this request: the same state for another tool is refused.
    assert_eq!(code(&c.answer(&call(3, "ask_name", &again))), -32602);
    // A second round carries the first's answer.
    let first = req(
        4,
        "tools/call",
        r#""name":"ask_later","arguments":{"twice":true},"#,
        ALL,
    );
    c.job(&first);
    let r = c.finish().await;
    let retry1 = retry(
        &r["result"]["requestState"],
        &json!({"name": accept("name", "Jo")}),
    );
    c.job(&req(
        5,
        "tools/call",
        &format!(r#""name":"ask_later","arguments":{{"twice":true}},{retry1}"#),
        ALL,
    ));
    let r = c.finish().await;
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    let keys: Vec<&String> = r["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["color"]);
    let retry2 = retry(
        &r["result"]["requestState"],
        &json!({"color": accept("color", "teal")}),
    );
    c.job(&req(
        6,
        "tools/call",
        &format!(r#""name":"ask_later","arguments":{{"twice":true}},{retry2}"#),
        ALL,
    ));
    let r = c.finish().await;
    assert_eq!(r["result"]["content"][0]["text"], "later Jo (none)", "{r}");
}

#[tokio::test]
async fn an_asynchronous_tool_without_the_capability_declared_gets_32021() {
    let mut c = modern_client();
    c.job(&req(
        1,
        "tools/call",
        r#""name":"ask_later","arguments":{},"#,
        "{}",
    ));
    let r = c.finish().await;
    assert_eq!(code(&r), -32021, "{r}");
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"]["elicitation"],
        json!({})
    );
}

#[tokio::test]
async fn an_asynchronous_prompt_asks_from_inside_its_work() {
    let mut c = modern_client();
    c.job(&req(1, "prompts/get", r#""name":"later_prompt","#, ALL));
    let r = c.finish().await;
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    let again = retry(
        &r["result"]["requestState"],
        &json!({"name": accept("name", "Kim")}),
    );
    c.job(&req(
        2,
        "prompts/get",
        &format!(r#""name":"later_prompt",{again}"#),
        ALL,
    ));
    let r = c.finish().await;
    assert_eq!(r["result"]["messages"][0]["role"], "user", "{r}");
    assert_eq!(r["result"]["resultType"], "complete");
}

const TASKS: &str = r#"{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;

#[tokio::test]
async fn a_running_task_that_asks_within_itself_waits_in_input_required() {
    let mut c = modern_client();
    let r = c.send(&req(
        1,
        "tools/call",
        r#""name":"park_later","arguments":{},"#,
        TASKS,
    ));
    assert_eq!(r[0]["result"]["resultType"], "task", "{r:?}");
    let task = r[0]["result"]["taskId"].as_str().unwrap().to_owned();
    // Its work asks: nothing is written, the task waits.
    assert!(c.settle().await.is_empty());
    let get = |id: i64| req(id, "tasks/get", &format!(r#""taskId":"{task}","#), TASKS);
    let t = c.answer(&get(2));
    assert_eq!(t["result"]["status"], "input_required", "{t}");
    assert_eq!(
        t["result"]["inputRequests"]["name"]["params"]["message"],
        "Your name?"
    );
    let update = req(
        3,
        "tasks/update",
        &format!(
            r#""taskId":"{task}","inputResponses":{},"#,
            json!({"name": accept("name", "Lu")})
        ),
        TASKS,
    );
    let ack = c.send(&update);
    assert_eq!(ack[0]["result"]["resultType"], "complete", "{ack:?}");
    c.settle().await;
    let t = c.answer(&get(4));
    assert_eq!(t["result"]["status"], "completed", "{t}");
    assert_eq!(
        t["result"]["result"]["content"][0]["text"],
        "later Lu (from the future)"
    );
}

#[tokio::test]
async fn a_running_task_that_asks_outside_itself_fails_with_a_clear_error() {
    // The handshake era's tasks cannot wait for input once they run.
    let mut c = session("2025-11-25", ALL);
    let r = c.send(&legacy(
        1,
        "tools/call",
        r#"{"name":"park_later","arguments":{},"task":{}}"#,
    ));
    let task = r[0]["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    c.settle().await;
    let t = c.answer(&legacy(
        2,
        "tasks/get",
        &format!(r#"{{"taskId":"{task}"}}"#),
    ));
    assert_eq!(t["result"]["status"], "failed", "{t}");
    let res = c.answer(&legacy(
        3,
        "tasks/result",
        &format!(r#"{{"taskId":"{task}"}}"#),
    ));
    assert_eq!(code(&res), -32603, "{res}");
    assert!(
        res["error"]["message"]
            .as_str()
            .unwrap()
            .contains("within_task"),
        "{res}"
    );
}

#[tokio::test]
async fn a_task_waits_within_itself_for_answers_given_one_at_a_time() {
    let mut c = modern_client();
    let r = c.answer(&req(
        1,
        "tools/call",
        r#""name":"parked","arguments":{},"#,
        TASKS,
    ));
    assert_eq!(r["result"]["resultType"], "task", "{r}");
    assert_eq!(r["result"]["status"], "input_required");
    let task = r["result"]["taskId"].as_str().unwrap().to_owned();
    let get = |id: i64| req(id, "tasks/get", &format!(r#""taskId":"{task}","#), TASKS);
    let update = |id: i64, responses: &Value| {
        req(
            id,
            "tasks/update",
            &format!(r#""taskId":"{task}","inputResponses":{responses},"#),
            TASKS,
        )
    };
    let t = c.answer(&get(2));
    let keys: Vec<&String> = t["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["a", "b"], "{t}");
    assert_eq!(
        t["result"]["inputRequests"]["a"]["method"],
        "elicitation/create"
    );
    // One answer (and a key never asked): acknowledged, the other still pending.
    let ack = c.answer(&update(3, &json!({"a": accept("name", "Al"), "zz": {}})));
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let t = c.answer(&get(4));
    assert_eq!(t["result"]["status"], "input_required");
    let keys: Vec<&String> = t["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["b"]);
    // Malformed answers are refused and change nothing; an unknown task is -32602.
    assert_eq!(code(&c.answer(&update(5, &json!({"b": 3})))), -32602);
    let other = req(
        6,
        "tasks/update",
        r#""taskId":"nope","inputResponses":{},"#,
        TASKS,
    );
    assert_eq!(code(&c.answer(&other)), -32602);
    // The last answer: the task works, then completes with both.
    let r = c.send(&update(7, &json!({"b": accept("name", "Bea")})));
    assert_eq!(r[0]["result"]["resultType"], "complete", "{r:?}");
    c.settle().await;
    let t = c.answer(&get(8));
    assert_eq!(t["result"]["status"], "completed", "{t}");
    assert_eq!(t["result"]["result"]["content"][0]["text"], "Al and Bea");
    assert!(t["result"].get("inputRequests").is_none());
}

#[test]
fn without_the_extension_a_within_task_request_is_a_round() {
    let mut c = modern_client();
    let r = c.answer(&call(1, "parked", ""));
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
}

// ---- Handshake sessions -----------------------------------------------------------------------

fn session(version: &str, caps: &str) -> Client {
    let mut c = Client::with(server());
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{caps},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    );
    let r = c.answer(&init);
    assert_eq!(r["result"]["protocolVersion"], version);
    c
}

fn lcall(id: i64, tool: &str) -> String {
    legacy(
        id,
        "tools/call",
        &format!(r#"{{"name":"{tool}","arguments":{{}}}}"#),
    )
}

fn respond(request: &Value, result: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": request["id"], "result": result}).to_string()
}

/// One line in, exactly one line out (a round's end changes the jobs, so not `answer`).
fn one(c: &mut Client, line: &str) -> Value {
    let mut out = c.send(line);
    assert_eq!(out.len(), 1, "{out:?}");
    out.remove(0)
}

/// The one server request a line made.
fn server_request(c: &mut Client, line: &str) -> Value {
    let mut out = c.send(line);
    assert_eq!(out.len(), 1, "{out:?}");
    let r = out.remove(0);
    assert!(r["method"].is_string() && r["id"].is_i64(), "{r}");
    r
}

#[test]
fn a_session_gets_real_requests_and_the_call_is_answered_with_the_replies() {
    let mut c = session("2025-11-25", ALL);
    let asked = server_request(&mut c, &lcall(7, "ask_name"));
    assert_eq!(asked["method"], "elicitation/create");
    assert_eq!(asked["params"]["message"], "Your name?");
    assert!(c.conn.next_deadline().is_some());
    let r = one(&mut c, &respond(&asked, &accept("name", "Gus")));
    assert_eq!(r["id"], 7);
    assert_eq!(r["result"]["content"][0]["text"], "Hello, Gus", "{r}");
    assert!(r["result"].get("resultType").is_none(), "{r}");
    assert_eq!(c.conn.next_deadline(), None);
}

#[tokio::test]
async fn a_session_gets_the_requests_an_asynchronous_work_makes_and_its_replay_runs_again() {
    let mut c = session("2025-11-25", ALL);
    c.job(&lcall(7, "ask_later"));
    let asked = c.finish().await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    assert!(asked["id"].is_i64());
    // The reply replays the call: its work runs again, with the answer.
    let out = c.send(&respond(&asked, &accept("name", "Max")));
    assert!(out.is_empty(), "{out:?}");
    let r = c.finish().await;
    assert_eq!(r["id"], 7);
    assert_eq!(
        r["result"]["content"][0]["text"], "later Max (from the future)",
        "{r}"
    );
    // Without the capability, the work's request is a tool error.
    let mut c = session("2025-11-25", "{}");
    c.job(&lcall(8, "ask_later"));
    let r = c.finish().await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    // Work that asks once the client's input ended: nothing can answer, so its round ends
    // at once, not at its deadline.
    let mut c = session("2025-11-25", ALL);
    c.job(&lcall(9, "ask_later"));
    let mut out = BytesMut::new();
    c.conn.handle_eof(&mut out);
    let lines = c.settle().await;
    let r = lines.iter().find(|l| l["id"] == 9).expect("answered");
    assert_eq!(r["result"]["isError"], true, "{lines:?}");
    assert_eq!(c.conn.next_deadline(), None);
    assert_eq!(c.conn.foreground(), 0);
}

#[test]
fn a_session_asks_round_after_round_and_several_requests_at_once() {
    let mut c = session("2025-06-18", ALL);
    let first = server_request(&mut c, &lcall(1, "two_rounds"));
    let second = server_request(&mut c, &respond(&first, &accept("name", "Hal")));
    assert_eq!(second["params"]["message"], "Color? (after round-1)");
    let r = one(&mut c, &respond(&second, &accept("color", "red")));
    assert_eq!(r["result"]["content"][0]["text"], "Hal likes red", "{r}");
    let out = c.send(&lcall(2, "both"));
    let methods: Vec<&str> = out.iter().map(|m| m["method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["sampling/createMessage", "roots/list"]);
    c.silent(&respond(&out[1], &json!({"roots": []})));
    let r = one(
        &mut c,
        &respond(
            &out[0],
            &json!({"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"}),
        ),
    );
    assert_eq!(r["result"]["content"][0]["text"], "model+roots", "{r}");
}

#[test]
fn a_session_without_the_capability_gets_a_tool_error_or_32021() {
    let mut c = session("2025-11-25", r#"{"sampling":{}}"#);
    let r = c.answer(&lcall(1, "ask_name"));
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("elicitation")
    );
    let r = c.answer(&legacy(2, "prompts/get", r#"{"name":"ask_prompt"}"#));
    assert_eq!(code(&r), -32021, "{r}");
    // What it declared is asked; what it did not is left out.
    let asked = server_request(&mut c, &lcall(3, "both"));
    assert_eq!(asked["method"], "sampling/createMessage");
}

#[test]
fn an_error_reply_ends_the_round_and_a_reply_to_nothing_is_ignored() {
    let mut c = session("2025-11-25", ALL);
    let asked = server_request(&mut c, &lcall(1, "ask_name"));
    let refusal =
        json!({"jsonrpc": "2.0", "id": asked["id"], "error": {"code": -1, "message": "no"}});
    let r = one(&mut c, &refusal.to_string());
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("no")
    );
    // The same reply again, and replies to requests never sent: nothing.
    c.silent(&refusal.to_string());
    c.silent(r#"{"jsonrpc":"2.0","id":999,"result":{}}"#);
    c.silent(r#"{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}"#);
    // A prompt's round that fails is a JSON-RPC error.
    let asked = server_request(
        &mut c,
        &legacy(2, "prompts/get", r#"{"name":"ask_prompt"}"#),
    );
    let r = one(
        &mut c,
        &json!({"jsonrpc": "2.0", "id": asked["id"], "result": 5}).to_string(),
    );
    assert_eq!(code(&r), -32603, "{r}");
}

#[test]
fn a_client_that_never_answers_gets_its_answer_at_the_timeout_or_at_eof() {
    let mut c = session("2025-11-25", ALL);
    let first = server_request(&mut c, &lcall(1, "ask_name"));
    let second = server_request(
        &mut c,
        &legacy(2, "prompts/get", r#"{"name":"ask_prompt"}"#),
    );
    let due = c.conn.next_deadline().unwrap();
    let mut out = BytesMut::new();
    c.conn.handle_time(due - 1);
    c.conn.handle_deadlines(&mut out);
    assert!(out.is_empty());
    c.conn.handle_time(due);
    c.conn.handle_deadlines(&mut out);
    let lines = parse_lines(&out);
    // NB. Each answer comes after the cancel of its server request: the client need not
    // answer it any more.
    assert_eq!(lines.len(), 4, "{lines:?}");
    for (asked, request) in [(&first, 1), (&second, 2)] {
        let at = |want: &dyn Fn(&serde_json::Value) -> bool| {
            lines
                .iter()
                .position(want)
                .unwrap_or_else(|| panic!("{lines:?}"))
        };
        let cancel = at(&|l| {
            l["method"] == "notifications/cancelled" && l["params"]["requestId"] == asked["id"]
        });
        assert!(cancel < at(&|l| l["id"] == request), "{lines:?}");
    }
    let lines: Vec<_> = lines
        .into_iter()
        .filter(|l| l.get("id").is_some())
        .collect();
    let tool = lines.iter().find(|l| l["id"] == 1).unwrap();
    assert_eq!(tool["result"]["isError"], true);
    let prompt = lines.iter().find(|l| l["id"] == 2).unwrap();
    assert_eq!(code(prompt), -32001);
    assert_eq!(c.conn.next_deadline(), None);
    assert_eq!(c.conn.foreground(), 0);
    // At the end of input nothing can come: the round is answered then.
    server_request(&mut c, &lcall(3, "ask_name"));
    let mut out = BytesMut::new();
    c.conn.handle_eof(&mut out);
    let lines = parse_lines(&out);
    assert_eq!(lines[0]["id"], 3);
    assert_eq!(lines[0]["result"]["isError"], true);
}

#[test]
fn a_cancelled_request_writes_nothing_when_its_reply_comes() {
    let mut c = session("2025-11-25", ALL);
    let asked = server_request(&mut c, &lcall(1, "ask_name"));
    assert_eq!(c.conn.foreground(), 1);
    c.silent(&cancel("1"));
    assert_eq!(c.conn.foreground(), 0);
    c.silent(&respond(&asked, &accept("name", "Ivy")));
    assert_eq!(c.conn.next_deadline(), None);
}

#[test]
fn a_request_inside_a_batch_cannot_wait_for_input() {
    let mut c = session("2025-03-26", ALL);
    let batch = format!("[{},{}]", lcall(1, "both"), legacy(2, "ping", ""));
    let r = c.answer(&batch);
    let items = r.as_array().unwrap();
    assert_eq!(code(&items[0]), -32600, "{r}");
    assert_eq!(items[1]["result"], json!({}));
}
