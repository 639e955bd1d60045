//! The project's own conformance suite, against the built `janus serve`.
//!
//! `tests/conformance/decisions.json` holds one scenario per rule of `decisions.md` that is
//! observable over stdio, in the shared scenario format. The rules that a scenario file cannot
//! express are checked here on the raw bytes: the frame limit (a line longer than 8 MiB does not
//! belong in the repository, so a small limit is set on the command line), end of input with
//! requests in flight, and ids and output bytes exactly as written.

mod support;

use serde_json::Value;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::thread;

const ENVELOPE: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

#[test]
fn every_decisions_scenario_passes_against_janus_serve() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/decisions.json");
    let n = support::run_file(&path);
    eprintln!("{n} decisions scenarios passed");
}

/// Runs `janus serve` with `args` on the whole of `input`, then closes its input; returns the
/// exit status and the raw output lines (each with its `\n`).
fn serve_raw(args: &[&str], input: Vec<u8>) -> (std::process::ExitStatus, Vec<Vec<u8>>) {
    let mut child = Command::new(support::janus_bin())
        .arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("janus serve starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    // The input is written on a thread, so a large answer cannot block the server's writes
    // while this side is still writing.
    let writer = thread::spawn(move || {
        stdin.write_all(&input).expect("write to janus");
        // Dropping stdin here is the end of input.
    });
    let mut output = Vec::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_end(&mut output)
        .expect("read janus output");
    writer.join().expect("the writer thread");
    let status = child.wait().expect("janus exits");
    let lines = output
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    (status, lines)
}

/// Parses one raw output line after checking its form: `\n`-terminated, UTF-8, no other line
/// break, compact (no white space outside strings).
fn parse_line(line: &[u8]) -> Value {
    let body = line.strip_suffix(b"\n").expect("a line ends with \\n");
    let text = std::str::from_utf8(body).expect("output is UTF-8");
    assert!(!text.contains(['\n', '\r']), "a raw line break in {text}");
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else {
            assert!(!c.is_whitespace(), "output is not compact JSON: {text}");
        }
    }
    serde_json::from_str(text).expect("output is JSON")
}

/// Decisions, both eras: "a line longer than the frame limit (default 8 MiB) | error `-32600`,
/// id `null`; the line is skipped up to its newline and the connection goes on".
#[test]
fn oversize_line_is_refused_with_id_null_and_the_connection_goes_on() {
    let mut server = support::Server::start(&["--max-frame-len", "1024"]);
    let pad = "x".repeat(2000);
    // The long line is a well-formed request with an id: it must not be served nor answered
    // with its id, only refused as a whole.
    server.send(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{pad}"}}}}"#
    ));
    let refused = server
        .expect_id(&Value::Null)
        .expect("an answer with id null");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    server.send(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    let pong = server
        .expect_id(&Value::from(2))
        .expect("the next line is served");
    assert_eq!(pong["result"], serde_json::json!({}), "{pong}");

    // A line of exactly the limit is within it.
    let head = r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":""#;
    let tail = r#""}}"#;
    let fill = "y".repeat(1024 - head.len() - tail.len());
    let line = format!("{head}{fill}{tail}");
    assert_eq!(line.len(), 1024);
    server.send(&line);
    let pong = server
        .expect_id(&Value::from(3))
        .expect("a line at the limit is served");
    assert_eq!(pong["result"], serde_json::json!({}), "{pong}");

    // Oversize again, on the now-legacy connection, arriving without its newline first.
    server.send_bytes(pad.as_bytes());
    server.send_bytes(pad.as_bytes());
    server.send(r#"","id":4}"#);
    let refused = server
        .expect_id(&Value::Null)
        .expect("an answer with id null");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    server.send(r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#);
    let pong = server
        .expect_id(&Value::from(5))
        .expect("the next line is served");
    assert_eq!(pong["result"], serde_json::json!({}), "{pong}");
    server.finish().expect("exit 0 and nothing unexpected");
}

/// Decisions, both eras: "end of input | requests in flight are finished and flushed, then the
/// process exits 0".
#[test]
fn end_of_input_finishes_and_flushes_requests_in_flight() {
    let input = format!(
        "{}\n{}\n",
        format_args!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":200}},{ENVELOPE}}}}}"#
        ),
        format_args!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":50}},{ENVELOPE}}}}}"#
        ),
    );
    let (status, lines) = serve_raw(&[], input.into_bytes());
    assert!(status.success(), "janus exited with {status}");
    let answers: Vec<Value> = lines.iter().map(|l| parse_line(l)).collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    for (id, text) in [(1, "slept 200 ms"), (2, "slept 50 ms")] {
        let a = answers
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("no answer for id {id} in {answers:?}"));
        assert_eq!(a["result"]["content"][0]["text"], text, "{a}");
    }
}

/// The same on a legacy connection whose last line has no newline.
#[test]
fn end_of_input_finishes_a_legacy_request_and_a_last_line_without_newline() {
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":150}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
    );
    let (status, lines) = serve_raw(&[], input.as_bytes().to_vec());
    assert!(status.success(), "janus exited with {status}");
    let answers: Vec<Value> = lines.iter().map(|l| parse_line(l)).collect();
    let ids: Vec<&Value> = answers.iter().map(|a| &a["id"]).collect();
    assert_eq!(ids.len(), 3, "{answers:?}");
    for id in 0..3 {
        assert!(
            ids.contains(&&Value::from(id)),
            "no answer for {id}: {answers:?}"
        );
    }
}

/// Decisions, output: "each carries its request's id byte for byte (`1` and `\"1\"` are
/// different ids)", and "compact JSON, exactly one message per line, `\n` terminated, never an
/// embedded newline, valid UTF-8", checked on the bytes (a JSON comparison cannot tell
/// `"\u00e9"` from `"é"`).
#[test]
fn ids_are_echoed_byte_for_byte_in_compact_lines() {
    let ids = [
        "1",
        r#""1""#,
        r#""\u00e9""#,
        r#""é""#,
        r#""a\nb\/c""#,
        "9007199254740993",
        "18446744073709551615",
        "-9223372036854775808",
        "0",
        r#""""#,
    ];
    let mut input = String::new();
    for id in ids {
        input.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"a\nb \u00e9 \u2028"}},{ENVELOPE}}}}}"#
        ));
        input.push('\n');
        // An error carries the id too.
        input.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{{ENVELOPE}}}}}"#
        ));
        input.push('\n');
    }
    // So does the refusal of a message that is not JSON-RPC, where the id could be read.
    input.push_str("{\"id\":\"\\u00e9x\",\"method\":\"ping\"}\n");
    let (status, lines) = serve_raw(&[], input.into_bytes());
    assert!(status.success(), "janus exited with {status}");
    assert_eq!(lines.len(), 2 * ids.len() + 1);
    for line in &lines {
        parse_line(line);
    }
    let text: Vec<String> = lines
        .iter()
        .map(|l| String::from_utf8(l.clone()).expect("UTF-8"))
        .collect();
    let find = |prefix: &str| {
        text.iter()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line starts with {prefix}: {text:?}"))
    };
    for id in ids {
        let call = find(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":"));
        // The text travels as sent: escapes and all.
        assert!(call.contains(r#""text":"a\nb \u00e9 \u2028""#), "{call}");
        let refused = find(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":"));
        assert!(refused.contains(r#""code":-32601"#), "{refused}");
    }
    let refused = find(r#"{"jsonrpc":"2.0","id":"\u00e9x","error":"#);
    assert!(refused.contains(r#""code":-32600"#), "{refused}");
}
