//! Criterion bench of dispatch: request frames through `Connection` to encoded answers, in
//! memory, per era, against serde-based handling of the same messages (typed request with a
//! `serde_json` map of arguments, as the SDKs deserialise it; typed response serialised):
//! a 16 B echo, a `resources/read` of the demo's static 64 KiB text, and `prompts/get`.

use bytes::{Bytes, BytesMut};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use janus_bench::load::{Era, INITIALIZE, RequestTemplate};
use janus_server_core::{Connection, demo};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::hint::black_box;

/// How an SDK reads a request: typed envelope, typed params, arguments as a JSON map.
#[derive(Deserialize)]
struct Request {
    jsonrpc: String,
    id: Value,
    method: String,
    #[serde(default)]
    params: Option<Params>,
}

#[derive(Deserialize)]
struct Params {
    name: String,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    #[serde(rename = "_meta", default)]
    meta: Option<Map<String, Value>>,
}

#[derive(Serialize)]
struct Response<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: CallResult<'a>,
}

#[derive(Serialize)]
struct CallResult<'a> {
    content: [Text<'a>; 1],
    #[serde(rename = "resultType", skip_serializing_if = "Option::is_none")]
    result_type: Option<&'static str>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<Value>,
}

#[derive(Serialize)]
struct Text<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// Handles one echo request the serde way; returns the answer line's length.
fn serde_handle(line: &[u8], out: &mut Vec<u8>) -> usize {
    let req: Request = serde_json::from_slice(line).expect("a request");
    assert_eq!(req.jsonrpc, "2.0");
    assert_eq!(req.method, "tools/call");
    let params = req.params.expect("params");
    let modern = params
        .meta
        .as_ref()
        .is_some_and(|m| m.contains_key("io.modelcontextprotocol/protocolVersion"));
    assert_eq!(params.name, "echo");
    let args = params.arguments.expect("arguments");
    let text = args.get("text").and_then(Value::as_str).expect("text");
    let resp = Response {
        jsonrpc: "2.0",
        id: &req.id,
        result: CallResult {
            content: [Text { kind: "text", text }],
            result_type: modern.then_some("complete"),
            meta: modern.then(|| {
                serde_json::json!({"io.modelcontextprotocol/serverInfo":{"name":"serde","version":"1"}})
            }),
        },
    };
    out.clear();
    serde_json::to_writer(&mut *out, &resp).expect("encode");
    out.push(b'\n');
    out.len()
}

/// A `resources/read` or `prompts/get` as an SDK reads it.
#[derive(Deserialize)]
struct SurfaceRequest {
    id: Value,
    method: String,
    params: SurfaceParams,
}

#[derive(Deserialize)]
struct SurfaceParams {
    #[serde(default)]
    uri: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    #[serde(rename = "_meta", default)]
    meta: Option<Map<String, Value>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TextContents<'a> {
    uri: &'a str,
    mime_type: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'static str,
    content: Text<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum SurfaceResult<'a> {
    Read {
        contents: [TextContents<'a>; 1],
        #[serde(rename = "resultType", skip_serializing_if = "Option::is_none")]
        result_type: Option<&'static str>,
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Value>,
    },
    Prompt {
        messages: Vec<Message<'a>>,
        #[serde(rename = "resultType", skip_serializing_if = "Option::is_none")]
        result_type: Option<&'static str>,
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Value>,
    },
}

#[derive(Serialize)]
struct SurfaceResponse<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: SurfaceResult<'a>,
}

/// Handles a `resources/read` of `text` or a `prompts/get` the serde way.
fn serde_surface(line: &[u8], text: &str, out: &mut Vec<u8>) -> usize {
    let req: SurfaceRequest = serde_json::from_slice(line).expect("a request");
    let p = req.params;
    let modern = p
        .meta
        .as_ref()
        .is_some_and(|m| m.contains_key("io.modelcontextprotocol/protocolVersion"));
    let meta = || {
        modern.then(|| {
            serde_json::json!({"io.modelcontextprotocol/serverInfo":{"name":"serde","version":"1"}})
        })
    };
    let greeting;
    let result = if req.method == "resources/read" {
        SurfaceResult::Read {
            contents: [TextContents {
                uri: p.uri.as_deref().expect("a uri"),
                mime_type: "text/plain",
                text,
            }],
            result_type: modern.then_some("complete"),
            meta: meta(),
        }
    } else {
        assert_eq!(p.name.as_deref(), Some("greet"));
        let who = p
            .arguments
            .as_ref()
            .and_then(|a| a.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        greeting = format!("Write a short, friendly greeting for {who}.");
        SurfaceResult::Prompt {
            messages: vec![Message {
                role: "user",
                content: Text {
                    kind: "text",
                    text: &greeting,
                },
            }],
            result_type: modern.then_some("complete"),
            meta: meta(),
        }
    };
    let resp = SurfaceResponse {
        jsonrpc: "2.0",
        id: &req.id,
        result,
    };
    out.clear();
    serde_json::to_writer(&mut *out, &resp).expect("encode");
    out.push(b'\n');
    out.len()
}

fn template_frames(t: &RequestTemplate, n: u64) -> Vec<Bytes> {
    (1..=n)
        .map(|id| {
            let mut b = Vec::new();
            t.write(&mut b, id);
            b.pop();
            Bytes::from(b)
        })
        .collect()
}

fn frames(era: Era, n: u64) -> Vec<Bytes> {
    template_frames(&RequestTemplate::new(era, "abcdefghijklmnop"), n)
}

/// One group: a `Connection` of `era` over the demo server against `serde` on the same
/// frames, each side with an output buffer of `room` bytes.
fn pair(
    c: &mut Criterion,
    name: &str,
    era: Era,
    frames: &[Bytes],
    room: usize,
    mut serde: impl FnMut(&[u8], &mut Vec<u8>) -> usize,
) {
    let mut g = c.benchmark_group(format!("dispatch/{name} {}", era.name()));
    g.throughput(Throughput::Elements(1));
    let mut conn = Connection::new(demo::server());
    let mut out = BytesMut::with_capacity(room);
    if era == Era::Legacy {
        conn.handle_line(&INITIALIZE[..INITIALIZE.len() - 1], &mut out);
    }
    let mut i = 0;
    g.bench_function("janus Connection", |b| {
        b.iter(|| {
            out.clear();
            let frame = &frames[i % frames.len()];
            i += 1;
            conn.handle_line(black_box(frame), &mut out);
            out.len()
        });
    });
    let mut vec = Vec::with_capacity(room);
    let mut j = 0;
    g.bench_function("serde typed request + response", |b| {
        b.iter(|| {
            let frame = &frames[j % frames.len()];
            j += 1;
            serde(black_box(frame), &mut vec)
        });
    });
    g.finish();
}

fn dispatch(c: &mut Criterion) {
    for era in [Era::Legacy, Era::Modern] {
        pair(
            c,
            "echo 16 B",
            era,
            &frames(era, 1024),
            1 << 16,
            serde_handle,
        );
    }
}

fn surface(c: &mut Criterion) {
    let text = demo::text_64k();
    let workloads = [
        (
            "resources-read 64 KiB",
            "resources/read",
            format!(r#""uri":"{}""#, demo::TEXT_64K_URI),
        ),
        (
            "prompts-get",
            "prompts/get",
            r#""name":"greet","arguments":{"name":"Ann"}"#.to_owned(),
        ),
    ];
    for era in [Era::Legacy, Era::Modern] {
        for (name, method, members) in &workloads {
            let frames = template_frames(&RequestTemplate::call(era, method, members), 256);
            pair(c, name, era, &frames, 1 << 18, |f, v| {
                serde_surface(f, &text, v)
            });
        }
    }
}

criterion_group!(benches, dispatch, surface);
criterion_main!(benches);
