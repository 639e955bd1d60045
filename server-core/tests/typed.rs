//! Typed tools (feature `serde`): schemas from the types, arguments checked, results as
//! `structuredContent`.
#![cfg(feature = "serde")]

use janus_server_core::Halt;
use janus_server_core::content::Content;
use janus_server_core::tools::Output;
use janus_server_core::{Context, Ctx, RpcError, Server};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

mod support;
use support::*;

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first term.
    a: i64,
    /// The second term.
    b: i64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

#[derive(Deserialize, JsonSchema)]
struct Wait {
    ms: u64,
}

fn add(_: &Ctx<'_>, args: AddArgs, out: &mut Output<'_>) -> Result<Sum, Halt> {
    if args.a == 7 {
        out.content(&Content::image(b"seven", "image/png"));
    }
    args.a
        .checked_add(args.b)
        .map(|sum| Sum { sum })
        .ok_or_else(|| RpcError::invalid_params("the sum overflows").into())
}

async fn wait(ctx: Context, args: Wait) -> Result<Sum, Halt> {
    tokio::time::sleep(std::time::Duration::from_millis(args.ms)).await;
    Ok(Sum {
        sum: i64::try_from(args.ms).unwrap_or(0) + i64::from(ctx.is_cancelled()),
    })
}

fn client() -> Client {
    let server = Server::builder("typed", "1")
        .typed_tool("add", "Adds two integers.", add)
        .typed_async_tool("wait", "Waits, then answers.", wait)
        .build()
        .unwrap();
    let mut c = Client::with(server);
    c.answer(&modern(0, "server/discover", ""));
    c
}

#[test]
fn one_definition_gives_both_schemas() {
    let mut c = client();
    let r = c.answer(&modern(1, "tools/list", ""));
    let add = &r["result"]["tools"][0];
    assert_eq!(add["name"], "add");
    let input = &add["inputSchema"];
    assert_eq!(
        input["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "{input}"
    );
    assert_eq!(input["type"], "object");
    assert_eq!(input["properties"]["a"]["description"], "The first term.");
    assert_eq!(input["required"], json!(["a", "b"]));
    assert_eq!(add["outputSchema"]["properties"]["sum"]["type"], "integer");
}

#[tokio::test(start_paused = true)]
async fn arguments_are_checked_and_results_are_structured() {
    let mut c = client();
    let r = c.answer(&modern(
        2,
        "tools/call",
        r#""name":"add","arguments":{"a":2,"b":40},"#,
    ));
    assert_eq!(r["result"]["structuredContent"], json!({"sum": 42}), "{r}");
    assert_eq!(
        r["result"]["content"],
        json!([{"type": "text", "text": r#"{"sum":42}"#}])
    );
    let r = c.answer(&modern(
        7,
        "tools/call",
        r#""name":"add","arguments":{"a":7,"b":1},"#,
    ));
    assert_eq!(r["result"]["content"][0]["type"], "image", "{r}");
    assert_eq!(r["result"]["content"][1]["text"], r#"{"sum":8}"#, "{r}");
    for bad in [r#"{"a":2}"#, r#"{"a":"2","b":1}"#, "{}"] {
        let r = c.answer(&modern(
            3,
            "tools/call",
            &format!(r#""name":"add","arguments":{bad},"#),
        ));
        assert_eq!(code(&r), -32602, "{bad}: {r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("Invalid arguments"),
            "{r}"
        );
    }
    let r = c.answer(&modern(
        4,
        "tools/call",
        &format!(r#""name":"add","arguments":{{"a":{},"b":1}},"#, i64::MAX),
    ));
    assert_eq!(r["error"]["message"], "the sum overflows", "{r}");
    // Asynchronous: arguments checked at once, the result when the work ends.
    let r = c.answer(&modern(
        5,
        "tools/call",
        r#""name":"wait","arguments":{"ms":-1},"#,
    ));
    assert_eq!(code(&r), -32602, "{r}");
    c.job(&modern(
        6,
        "tools/call",
        r#""name":"wait","arguments":{"ms":30},"#,
    ));
    let r = c.finish().await;
    assert_eq!(r["result"]["structuredContent"], json!({"sum": 30}), "{r}");
}

#[test]
fn a_result_type_that_is_not_an_object_is_refused_at_registration() {
    fn number(_: &Ctx<'_>, _: AddArgs, _: &mut Output<'_>) -> Result<i64, Halt> {
        Ok(1)
    }
    let e = Server::builder("typed", "1")
        .typed_tool("n", "A number.", number)
        .build()
        .unwrap_err();
    assert_eq!(e.tool, "n");
    assert!(
        e.reason.contains("outputSchema must be an object schema"),
        "{e}"
    );
}
