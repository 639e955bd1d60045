//! `janus tools` and `janus call` against `janus serve` (stdio, a child of the client) and
//! against commands that are no MCP server: the specs and the revision in every mode, JSON
//! output, results, and an exit code for each kind of failure; and `--ca-file` with an
//! `https` server.

#[path = "../client/tests/pki/mod.rs"]
mod pki;

use serde_json::Value;
use std::process::{Command, Output};

const JANUS: &str = env!("CARGO_BIN_EXE_janus");

fn janus(args: &[&str]) -> Output {
    Command::new(JANUS)
        .args(args)
        .env_remove("JANUS_LOG")
        .output()
        .expect("janus runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn tools_lists_the_specs_with_their_classes_and_the_revision_in_every_mode() {
    for (mode, revision) in [
        ("legacy", "2025-11-25"),
        ("modern", "2026-07-28"),
        ("auto", "2026-07-28"),
    ] {
        let out = janus(&["tools", "--mode", mode, "--json", "--", JANUS, "serve"]);
        assert!(out.status.success(), "{mode}: {}", text(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["revision"], revision, "{v}");
        assert_eq!(v["mode"], mode);
        let names: Vec<&str> = v["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["echo", "add", "fail", "sleep"]);
        // Untrusted: destructive whatever the hints.
        assert_eq!(v["tools"][0]["safety"], "destructive");
        assert_eq!(v["tools"][0]["annotations"]["readOnlyHint"], true);
    }
    let out = janus(&["tools", "--trusted", "--", JANUS, "serve"]);
    assert!(out.status.success());
    let listing = text(&out.stdout);
    assert!(
        listing.starts_with("revision 2025-11-25 (mode legacy)"),
        "{listing}"
    );
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with("echo") && l.contains("read-only")),
        "{listing}"
    );
}

#[test]
fn call_prints_the_result_and_its_exit_code_tells_what_went_wrong() {
    let out = janus(&[
        "call",
        "echo",
        "--args",
        r#"{"text":"hello"}"#,
        "--",
        JANUS,
        "serve",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "hello\n");
    let out = janus(&[
        "call",
        "add",
        "--args",
        r#"{"a":2,"b":40}"#,
        "--json",
        "--mode",
        "modern",
        "--",
        JANUS,
        "serve",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["structuredContent"]["sum"], 42, "{v}");
    assert_eq!(v["revision"], "2026-07-28");
    // A tool that failed: 1; an unknown tool (a rejection): 3.
    assert_eq!(
        janus(&["call", "fail", "--", JANUS, "serve"]).status.code(),
        Some(1)
    );
    let out = janus(&["call", "nope", "--", JANUS, "serve"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("-32602"));
    // Arguments that are no JSON object: a configuration error, 7.
    assert_eq!(
        janus(&["call", "echo", "--args", "[1]", "--", JANUS, "serve"])
            .status
            .code(),
        Some(7)
    );
    // A program that does not exist, or one that exits at once: a transport or session
    // failure, 4, with the child's stderr in the message.
    assert_eq!(
        janus(&["tools", "--", "/nonexistent/server"]).status.code(),
        Some(4)
    );
    let out = janus(&["tools", "--", "sh", "-c", "echo broken >&2; exit 3"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("broken"),
        "{}",
        text(&out.stderr)
    );
    // A timeout: 5.
    let out = janus(&[
        "call",
        "sleep",
        "--args",
        r#"{"ms":5000}"#,
        "--timeout-secs",
        "1",
        "--",
        JANUS,
        "serve",
    ]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
}

#[test]
fn a_configuration_file_names_the_server_and_its_mistakes_are_loud() {
    let dir = std::env::temp_dir().join(format!("janus-client-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.json");
    let config = serde_json::json!({"mcpServers": {
        "j": {"command": JANUS, "args": ["serve"], "protocol": "auto", "trusted": true},
    }});
    std::fs::write(&good, config.to_string()).unwrap();
    let good = good.to_str().unwrap();
    let out = janus(&["tools", "--json", "--config", good, "--server", "j"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["revision"], "2026-07-28");
    assert_eq!(v["mode"], "auto");
    assert_eq!(v["tools"][0]["safety"], "read-only", "trusted by the file");
    assert_eq!(
        janus(&["tools", "--config", good, "--server", "other"])
            .status
            .code(),
        Some(7)
    );
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"mcpServers":{"j":{"command":"x","protocol":"quick"}}}"#,
    )
    .unwrap();
    let out = janus(&["tools", "--config", bad.to_str().unwrap(), "--server", "j"]);
    assert_eq!(out.status.code(), Some(7));
    assert!(text(&out.stderr).contains("quick"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_ca_file_reaches_the_https_client_from_the_flag_and_from_the_configuration() {
    // A CA file that cannot be read is a configuration error (7) naming it, at connect: no
    // server is needed to see that the flag and the configuration's `caFile` reach the client.
    for flag in ["--url", "--sse"] {
        let out = janus(&[
            "tools",
            flag,
            "https://127.0.0.1:9/mcp",
            "--ca-file",
            "/nonexistent/flag-ca.pem",
        ]);
        assert_eq!(out.status.code(), Some(7), "{flag}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("/nonexistent/flag-ca.pem"),
            "{flag}: {}",
            text(&out.stderr)
        );
    }
    let dir = std::env::temp_dir().join(format!("janus-client-cli-ca-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("servers.json");
    let config = serde_json::json!({"mcpServers": {
        "remote": {"url": "https://127.0.0.1:9/mcp", "caFile": "private-ca.pem"},
        "local": {"command": JANUS, "args": ["serve"]},
    }});
    std::fs::write(&file, config.to_string()).unwrap();
    let file = file.to_str().unwrap();
    // A relative caFile is the configuration file's neighbour.
    let out = janus(&["tools", "--config", file, "--server", "remote"]);
    assert_eq!(out.status.code(), Some(7), "{}", text(&out.stderr));
    let expected = dir.join("private-ca.pem");
    assert!(
        text(&out.stderr).contains(expected.to_str().unwrap()),
        "{}",
        text(&out.stderr)
    );
    // --ca-file is for a URL: a command's server or a TCP address refuses it.
    let out = janus(&[
        "tools",
        "--config",
        file,
        "--server",
        "local",
        "--ca-file",
        "x.pem",
    ]);
    assert_eq!(out.status.code(), Some(7), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("--ca-file"),
        "{}",
        text(&out.stderr)
    );
    let out = janus(&["tools", "--tcp", "127.0.0.1:9", "--ca-file", "x.pem"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a usage error: {}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Janus's demo server behind rustls on loopback, served on `rt`'s threads while the test
/// runs the command.
fn start_tls(rt: &tokio::runtime::Runtime, acceptor: tokio_rustls::TlsAcceptor) -> u16 {
    use hyper_util::rt::{TokioExecutor, TokioIo};
    use janus_server_core::http::{HttpConfig, McpService};
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let service = McpService::new(janus_server_core::demo::server(), HttpConfig::default());
    rt.spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, service) = (acceptor.clone(), service.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                    .serve_connection(
                        TokioIo::new(tls),
                        hyper_util::service::TowerToHyperService::new(service),
                    )
                    .await;
            });
        }
    });
    port
}

#[test]
fn call_reaches_an_https_server_whose_ca_is_given_and_names_the_host_when_it_is_not() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let ca = pki::Ca::new();
    let port = start_tls(&rt, ca.acceptor(&["localhost"], false));
    let url = format!("https://localhost:{port}/mcp");
    let ca_file = ca.file().to_str().unwrap();
    for mode in ["legacy", "modern"] {
        let out = janus(&[
            "call",
            "echo",
            "--args",
            r#"{"text":"sealed"}"#,
            "--mode",
            mode,
            "--url",
            &url,
            "--ca-file",
            ca_file,
        ]);
        assert!(out.status.success(), "{mode}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "sealed\n");
    }
    let out = janus(&["tools", "--url", &url]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("the certificate of localhost is not trusted"),
        "{}",
        text(&out.stderr)
    );
}
