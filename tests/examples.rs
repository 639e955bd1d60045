//! The examples in `examples/`, built by `cargo test` beside this file, run against a scripted
//! client: what a user copies first must work.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The path of a built example: `target/<profile>/examples/NAME`, beside this test's `deps/`.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    let path = dir.join("examples").join(name);
    assert!(path.exists(), "{} is built by cargo test", path.display());
    path
}

/// Waits for `child` to exit, for at most 10 s; kills it past that.
fn wait(mut child: Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the example did not exit in time");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn line(r: &mut impl BufRead) -> Value {
    let mut text = String::new();
    assert!(r.read_line(&mut text).expect("read") > 0, "an answer");
    serde_json::from_str(&text).expect("one JSON line")
}

/// Starts the typed example with piped stdin and stdout.
fn start_typed_server() -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut child = Command::new(example("typed_server"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the example starts");
    let input = child.stdin.take().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    (child, input, out)
}

#[test]
fn the_typed_server_answers_both_eras_with_text_an_image_and_structured_content() {
    let (child, mut input, mut out) = start_typed_server();
    let env = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let send = |input: &mut ChildStdin, text: String| {
        input.write_all(text.as_bytes()).unwrap();
        input.write_all(b"\n").unwrap();
    };
    send(
        &mut input,
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{env}}}}}"#),
    );
    let r = line(&mut out);
    let tools = r["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["forecast", "chart", "greet"]);
    assert_eq!(
        tools[0]["inputSchema"]["properties"]["days"]["type"],
        "integer"
    );
    assert_eq!(
        tools[1]["outputSchema"]["properties"]["mean"]["type"],
        "number"
    );

    send(
        &mut input,
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"chart","arguments":{{"values":[1,2,4]}},{env}}}}}"#
        ),
    );
    let r = line(&mut out);
    assert_eq!(r["result"]["content"][0]["type"], "image", "{r}");
    assert_eq!(r["result"]["content"][0]["mimeType"], "image/svg+xml");
    assert_eq!(
        r["result"]["structuredContent"],
        json!({"count": 3, "min": 1.0, "max": 4.0, "mean": 7.0 / 3.0})
    );
    assert_eq!(r["result"]["resultType"], "complete");

    send(
        &mut input,
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"forecast","arguments":{{"city":"Oslo","days":9}},{env}}}}}"#
        ),
    );
    let r = line(&mut out);
    assert_eq!(r["error"]["code"], -32602, "{r}");
    drop(input);
    assert!(wait(child).success(), "the end of input ends it cleanly");

    // A legacy client of the same example.
    let (child, mut input, mut out) = start_typed_server();
    send(
        &mut input,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.into(),
    );
    assert_eq!(line(&mut out)["result"]["protocolVersion"], "2025-06-18");
    send(
        &mut input,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Oslo","days":2}}}"#.into(),
    );
    let r = line(&mut out);
    let days = &r["result"]["structuredContent"]["days"];
    assert_eq!(days.as_array().map(Vec::len), Some(2), "{r}");
    let text: Value =
        serde_json::from_str(r["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        text, r["result"]["structuredContent"],
        "the JSON as text too"
    );
    send(
        &mut input,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}"#.into(),
    );
    assert_eq!(
        line(&mut out)["result"]["content"][0]["text"],
        "Hello, Ada!"
    );
    drop(input);
    assert!(wait(child).success());
}

/// Starts an example that listens on a free loopback port; returns it, its stdout and the
/// address it printed (`listening on ADDR`).
fn start_listening(name: &str) -> (Child, BufReader<ChildStdout>, String) {
    let mut child = Command::new(example(name))
        .arg("127.0.0.1:0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the example starts");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("want `listening on ADDR`, got {first:?}"))
        .to_owned();
    (child, out, addr)
}

#[test]
fn the_embedded_server_serves_beside_its_application_and_drains_on_sigterm() {
    let (child, mut out, addr) = start_listening("embedded");
    std::thread::sleep(Duration::from_millis(50));
    let stream = std::net::TcpStream::connect(&addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut w = stream.try_clone().unwrap();
    let mut r = BufReader::new(stream);
    w.write_all(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ticks","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#)
        .unwrap();
    w.write_all(b"\n").unwrap();
    let answer = line(&mut r);
    let ticks: u64 = answer["result"]["content"][0]["text"]
        .as_str()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("a count: {answer}"));
    assert!(ticks > 0, "the application's ticker ran beside the server");
    let pid = child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    // The open connection is drained and closed; the process exits 0.
    let mut rest = String::new();
    assert_eq!(r.read_line(&mut rest).unwrap_or(0), 0, "{rest}");
    let status = wait(child);
    assert!(status.success(), "{status:?}");
    let mut last = String::new();
    out.read_line(&mut last).unwrap();
    assert!(last.starts_with("stopped after "), "{last:?}");
}

#[test]
fn the_http_endpoint_mounts_beside_other_routes() {
    let (mut child, _out, addr) = start_listening("http_mount");
    let exchange = |request: String| {
        let mut s = std::net::TcpStream::connect(&addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut reply = String::new();
        std::io::Read::read_to_string(&mut s, &mut reply).unwrap();
        reply
    };
    let health =
        exchange("GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n".into());
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    assert!(health.ends_with("ok"), "{health}");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let mcp = exchange(format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-length: {}\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/list\r\n\r\n{body}",
        body.len()
    ));
    assert!(mcp.starts_with("HTTP/1.1 200"), "{mcp}");
    let json = &mcp[mcp.find("\r\n\r\n").unwrap() + 4..];
    let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {mcp}"));
    assert!(
        v["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{v}"
    );
    let other =
        exchange("GET /nope HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n".into());
    assert!(other.starts_with("HTTP/1.1 404"), "{other}");
    let _ = child.kill();
    let _ = child.wait();
}
