//! `janus serve --http` with authorization flags: the metadata document, a refusal with its
//! challenge, a good HS256 token served, and flags that cannot work refused at start.

use serde_json::{Value, json};
mod support;

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use support::HttpServe;

const SECRET: &str = "a shared secret of at least thirty-two bytes";

fn start(secret_file: &std::path::Path) -> (HttpServe, String) {
    let secret = secret_file.to_str().expect("a UTF-8 path");
    let serve = HttpServe::start(&[
        "--auth-resource",
        "http://127.0.0.1/mcp",
        "--auth-server",
        "https://auth.example",
        "--auth-hmac-secret-file",
        secret,
        "--auth-scope",
        "mcp:tools",
    ]);
    let addr = serve.addr.clone();
    (serve, addr)
}

/// One request on its own connection: the status, the raw head and the body.
fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut text = format!(
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (n, v) in headers {
        text.push_str(&format!("{n}: {v}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    s.write_all(text.as_bytes()).unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_owned())
}

#[test]
fn janus_serve_http_requires_a_token_when_told_to() {
    let dir = std::env::temp_dir().join(format!("janus-auth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let secret_file = dir.join("secret");
    std::fs::write(&secret_file, format!("{SECRET}\n")).unwrap();
    let (_serve, addr) = start(&secret_file);

    let (status, _, body) = request(
        &addr,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        "",
    );
    assert_eq!(status, 200);
    let doc: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(doc["resource"], "http://127.0.0.1/mcp");
    assert_eq!(
        doc["authorization_servers"],
        json!(["https://auth.example"])
    );

    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let routing = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let (status, head, _) = request(&addr, "POST", "/mcp", &routing, list);
    assert_eq!(status, 401);
    assert!(
        head.contains(r#"www-authenticate: bearer scope="mcp:tools", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp""#),
        "{head}"
    );

    let exp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 600;
    let claims =
        json!({"sub": "alice", "aud": "http://127.0.0.1/mcp", "exp": exp, "scope": "mcp:tools"});
    // The secret file's last line break is not part of the secret.
    let key = jsonwebtoken::EncodingKey::from_secret(SECRET.as_bytes()).unwrap();
    let token = jsonwebtoken::encode(&jsonwebtoken::Header::default(), &claims, &key).unwrap();
    let bearer = format!("Bearer {token}");
    let mut with = routing.to_vec();
    with.push(("authorization", &bearer));
    let (status, _, body) = request(&addr, "POST", "/mcp", &with, list);
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert!(answer["result"]["tools"].is_array(), "{answer}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn authorization_flags_that_cannot_work_stop_janus_at_start() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_janus"))
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap()
    };
    // No key source; no authorization server; a key file that is not there; a bad resource.
    let missing = [
        "--auth-resource",
        "http://127.0.0.1/mcp",
        "--auth-server",
        "https://as",
    ];
    assert_eq!(run(&missing).code(), Some(2));
    assert_eq!(
        run(&[
            "--auth-resource",
            "http://127.0.0.1/mcp",
            "--auth-jwks",
            "x"
        ])
        .code(),
        Some(2)
    );
    let mut no_file = missing.to_vec();
    no_file.extend(["--auth-jwks", "/nonexistent/jwks.json"]);
    assert_eq!(run(&no_file).code(), Some(2));
    assert_eq!(
        run(&[
            "--auth-resource",
            "not a uri",
            "--auth-server",
            "https://as",
            "--auth-jwks",
            "/dev/null"
        ])
        .code(),
        Some(2)
    );
}
