//! The demo tools that `janus serve` ships: `echo`, `add`, `fail` and `sleep`.

use crate::server::{Server, ServerBuilder};
use crate::tools::{Args, Call, Output, TaskSupport, ToolResult, ToolSpec};
use std::sync::Arc;

/// The longest `sleep` accepted, in milliseconds.
pub const MAX_SLEEP_MS: u64 = 600_000;

/// `echo {text}`: one text block with that text, copied without being decoded.
pub fn echo(args: Args<'_>, out: &mut Output<'_>) -> Call {
    match args.get("text") {
        Some(text) if text.is_string() => out.text_json(text),
        _ => out.fail("Invalid arguments for tool echo: text must be a string"),
    };
    Call::Done
}

/// `add {a, b}`: the sum as text and as `structuredContent {sum}`.
pub fn add(args: Args<'_>, out: &mut Output<'_>) -> Call {
    let sum = match (args.i64("a"), args.i64("b")) {
        (Some(a), Some(b)) => a.checked_add(b).map(|s| s.to_string()),
        _ => match (args.f64("a"), args.f64("b")) {
            (Some(a), Some(b)) if (a + b).is_finite() => Some((a + b).to_string()),
            _ => None,
        },
    };
    match sum {
        Some(s) => {
            out.text(&s);
            out.structured(format!(r#"{{"sum":{s}}}"#));
        }
        None => {
            out.fail("Invalid arguments for tool add: a and b must be numbers with a finite sum");
        }
    }
    Call::Done
}

/// `fail {}`: always a result with `isError: true`.
pub fn fail(_: Args<'_>, out: &mut Output<'_>) -> Call {
    out.fail("fail: this tool always fails");
    Call::Done
}

/// The input schemas and specs of the demo tools.
#[must_use]
pub fn specs() -> Vec<ToolSpec> {
    let mut echo = ToolSpec::new(
        "echo",
        "Returns its text argument as one text block.",
        r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#,
    );
    echo.title = Some("Echo".into());
    echo.annotations = Some(r#"{"readOnlyHint":true,"openWorldHint":false}"#.into());
    let mut add = ToolSpec::new(
        "add",
        "Adds two numbers; returns the sum as text and as structured content.",
        r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}"#,
    );
    add.title = Some("Add".into());
    add.output_schema = Some(
        r#"{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}"#.into(),
    );
    add.annotations = Some(r#"{"readOnlyHint":true,"openWorldHint":false}"#.into());
    let mut fail = ToolSpec::new(
        "fail",
        "Always fails: a result with isError true.",
        r#"{"type":"object","additionalProperties":false}"#,
    );
    fail.title = Some("Fail".into());
    let mut sleep = ToolSpec::new(
        "sleep",
        "Waits ms milliseconds, then returns one text block.",
        r#"{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":600000}},"required":["ms"]}"#,
    );
    sleep.title = Some("Sleep".into());
    sleep.task_support = TaskSupport::Optional;
    vec![echo, add, fail, sleep]
}

/// The demo server: `echo`, `add`, `fail`, and with the `tokio` feature `sleep`.
#[must_use]
pub fn server() -> Arc<Server> {
    builder().build()
}

/// A builder with the demo tools, to configure further.
#[must_use]
pub fn builder() -> ServerBuilder {
    let mut specs = specs().into_iter();
    let mut b = Server::builder("janus", env!("CARGO_PKG_VERSION"))
        .title("Janus demo server")
        .tool(specs.next().expect("echo spec"), echo)
        .tool(specs.next().expect("add spec"), add)
        .tool(specs.next().expect("fail spec"), fail);
    #[cfg(feature = "tokio")]
    {
        b = b.tool(specs.next().expect("sleep spec"), sleep);
    }
    #[cfg(not(feature = "tokio"))]
    let _ = &mut b;
    b
}

/// `sleep {ms}`: waits, then answers "slept N ms" (asynchronous: it runs as a job).
#[cfg(feature = "tokio")]
pub fn sleep(args: Args<'_>, out: &mut Output<'_>) -> Call {
    let Some(ms) = args.i64("ms").and_then(|ms| u64::try_from(ms).ok()) else {
        out.fail("Invalid arguments for tool sleep: ms must be a non-negative integer");
        return Call::Done;
    };
    if ms > MAX_SLEEP_MS {
        out.fail("Invalid arguments for tool sleep: ms is at most 600000");
        return Call::Done;
    }
    Call::Later(Box::pin(async move {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        ToolResult::text(format!("slept {ms} ms"))
    }))
}
