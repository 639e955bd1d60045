//! `janus serve` on SIGTERM or SIGINT (`decisions.md`, "shutdown"): it stops reading, finishes
//! the requests in flight, writes their answers, and exits 0.

mod support;

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ENV: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn drains_on(signal: &str, listen: bool) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_janus"));
    cmd.arg("serve");
    if listen {
        cmd.args(["--listen", "127.0.0.1:0"]);
    }
    let mut child = cmd
        .env("JANUS_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("janus serve starts");
    let mut input = child.stdin.take().unwrap();
    let (mut reader, mut writer): (Box<dyn BufRead>, Box<dyn Write>) = if listen {
        // The address is in the log line `listening addr=...`.
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut addr = None;
        for _ in 0..20 {
            let mut l = String::new();
            if err.read_line(&mut l).unwrap_or(0) == 0 {
                break;
            }
            if let Some(a) = l.split("addr=").nth(1) {
                addr = Some(a.trim().to_owned());
                break;
            }
        }
        let addr = addr.expect("janus logs the address it listens on");
        let s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        (
            Box::new(BufReader::new(s.try_clone().unwrap())),
            Box::new(s),
        )
    } else {
        let out = child.stdout.take().unwrap();
        (Box::new(BufReader::new(out)), Box::new(std::io::sink()))
    };
    let target: &mut dyn Write = if listen { &mut writer } else { &mut input };
    for (id, ms) in [(1, 300), (2, 0)] {
        writeln!(
            target,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":{ms}}},{ENV}}}}}"#
        )
        .unwrap();
    }
    target.flush().unwrap();
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["id"], 2, "{first}");
    let started = Instant::now();
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut last = String::new();
    reader.read_line(&mut last).unwrap();
    let last: Value = serde_json::from_str(&last).unwrap_or_else(|e| panic!("{e}: {last:?}"));
    assert_eq!(last["id"], 1, "the request in flight is answered: {last}");
    assert_eq!(last["result"]["content"][0]["text"], "slept 300 ms");
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "janus did not exit after draining"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success(), "{status:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    drop(input);
}

#[test]
fn sigterm_drains_a_stdio_connection_and_exits_0() {
    drains_on("-TERM", false);
}

#[test]
fn sigint_drains_tcp_connections_and_exits_0() {
    drains_on("-INT", true);
}

#[test]
fn sigterm_drains_http_requests_in_flight_and_exits_0() {
    use std::io::Read;
    let mut serve = support::HttpServe::start(&[]);
    let addr = serve.addr.clone();
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":400}},{ENV}}}}}"#
    );
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: sleep\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(150));
    let started = Instant::now();
    assert!(
        Command::new("kill")
            .args(["-TERM", &serve.child.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    // The request in flight is answered.
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("slept 400 ms"), "{answer}");
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(st) = serve.child.try_wait().unwrap() {
            break st;
        }
        assert!(
            Instant::now() < deadline,
            "janus did not exit after draining"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success(), "{status:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    // And nothing listens any more.
    assert!(std::net::TcpStream::connect(&addr).is_err());
}
