//! `janus serve --tools conformance` over stdio: the conformance fixtures answer in both eras
//! on a byte stream too (the official suite itself drives them over HTTP, in its CI lane).

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};

const ENV: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// `janus serve --tools conformance` on piped stdin and stdout.
fn serve_conformance() -> Child {
    Command::new(env!("CARGO_BIN_EXE_janus"))
        .args(["serve", "--tools", "conformance"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("janus serve starts")
}

#[test]
fn the_conformance_fixtures_answer_over_stdio_in_both_eras() {
    let mut child = serve_conformance();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut next = || {
        let mut l = String::new();
        output.read_line(&mut l).unwrap();
        serde_json::from_str::<Value>(&l).unwrap_or_else(|e| panic!("{e}: {l:?}"))
    };
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"hello","arg2":"world"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://template/123/data"}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":"p"}}}"#.to_owned(),
    ];
    for l in &lines {
        writeln!(input, "{l}").unwrap();
    }
    input.flush().unwrap();
    let init = next();
    let caps = &init["result"]["capabilities"];
    assert!(
        caps["prompts"].is_object() && caps["resources"]["subscribe"] == true,
        "{caps}"
    );
    let prompt = next();
    assert_eq!(
        prompt["result"]["messages"][0]["content"]["text"],
        "Prompt with arguments: arg1='hello', arg2='world'"
    );
    let read = next();
    let text = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        json!({"id": "123", "templateTest": true, "data": "Data for ID: 123"})
    );
    let progress: Vec<Value> = (0..3).map(|_| next()).collect();
    let values: Vec<&Value> = progress.iter().map(|p| &p["params"]["progress"]).collect();
    assert_eq!(values, [&json!(0), &json!(50), &json!(100)], "{progress:?}");
    assert_eq!(next()["id"], 4);
    drop(input);
    assert!(child.wait().unwrap().success());

    // The modern era on a new process: a URI nothing holds is -32602 with the URI.
    let mut child = serve_conformance();
    let mut input = child.stdin.take().unwrap();
    writeln!(
        input,
        r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"test://nothing",{ENV}}}}}"#
    )
    .unwrap();
    drop(input);
    let mut l = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut l)
        .unwrap();
    let r: Value = serde_json::from_str(&l).unwrap();
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(r["error"]["data"]["uri"], "test://nothing");
    assert!(child.wait().unwrap().success());
}
