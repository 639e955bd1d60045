//! `Connection` in memory: prompts, resources, templates, completions and legacy logging, in
//! both eras (`decisions.md`, "Server surface").

use janus_server_core::Halt;
use janus_server_core::content::Content;
use janus_server_core::prompts::{PromptArgs, PromptMessages, PromptSpec};
use janus_server_core::resources::{Contents, ResourceSpec, TemplateSpec, Vars};
use janus_server_core::tools::{Args, Output, ToolSpec};
use janus_server_core::{Ctx, Json, LogLevel, RpcError, Server};
use serde_json::{Value, json};
use std::sync::Arc;

mod support;
use support::*;

fn server(page_size: usize) -> Arc<Server> {
    fn greet(_: &Ctx<'_>, args: PromptArgs<'_>, out: &mut PromptMessages) -> Result<(), Halt> {
        let who = args.get("who").unwrap_or_default();
        out.description("a greeting");
        out.user(Content::text(format!("Say hello to {who}")));
        out.assistant(Content::resource_text(
            "test://note",
            Some("text/plain"),
            "noted",
        ));
        Ok(())
    }
    fn fails(_: &Ctx<'_>, _: PromptArgs<'_>, _: &mut PromptMessages) -> Result<(), Halt> {
        Err(RpcError::invalid_params("no such mood").into())
    }
    fn static_text(_: &Ctx<'_>, uri: &str, out: &mut Contents) -> Result<(), Halt> {
        out.text(uri, Some("text/plain"), "static text");
        Ok(())
    }
    fn static_blob(_: &Ctx<'_>, uri: &str, out: &mut Contents) -> Result<(), Halt> {
        out.blob(uri, Some("image/png"), &[1, 2, 3]);
        Ok(())
    }
    fn item(_: &Ctx<'_>, uri: &str, v: &Vars, out: &mut Contents) -> Result<(), Halt> {
        // Ids above 100 hold nothing: not found.
        if v.get("id")
            .and_then(|i| i.parse::<u32>().ok())
            .is_some_and(|i| i <= 100)
        {
            out.text(
                uri,
                Some("application/json"),
                &format!(r#"{{"id":"{}"}}"#, v.get("id").unwrap()),
            );
        }
        Ok(())
    }
    fn logs(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
        ctx.log(LogLevel::Debug, None, &Json::string("debug"));
        ctx.log(LogLevel::Warning, Some("t"), &Json::string("warning"));
        out.text("logged");
        Ok(())
    }
    Server::builder("surface", "1")
        .page_size(page_size)
        .tool(
            ToolSpec::new("logs", "logs", r#"{"type":"object"}"#).unwrap(),
            logs,
        )
        .prompt(
            PromptSpec::new("greet", "Greets someone")
                .title("Greeting")
                .argument("who", "whom to greet", true)
                .argument("tone", "", false),
            greet,
        )
        .prompt(PromptSpec::new("fails", "Always refuses"), fails)
        .resource(
            ResourceSpec::new("test://static-text", "text")
                .mime_type("text/plain")
                .title("Text"),
            static_text,
        )
        .resource(
            ResourceSpec::new("test://static-binary", "binary").size(3),
            static_blob,
        )
        .resource_template(
            TemplateSpec::new("test://item/{id}", "item")
                .unwrap()
                .mime_type("application/json"),
            item,
        )
        .complete_prompt_argument(
            "greet",
            "who",
            |_: &Ctx<'_>, r: &janus_server_core::complete::CompletionRequest<'_>| {
                let tone = r.context_argument("tone").unwrap_or_default();
                ["ann", "bob", "anna"]
                    .iter()
                    .filter(|n| n.starts_with(r.value()))
                    .map(|n| format!("{n}{tone}"))
                    .collect()
            },
        )
        .complete_template_variable(
            "test://item/{id}",
            "id",
            |_: &Ctx<'_>, _: &janus_server_core::complete::CompletionRequest<'_>| {
                (0..150).map(|i| i.to_string()).collect()
            },
        )
        .build()
        .unwrap()
}

fn legacy_client(version: &str) -> Client {
    let mut c = Client::with(server(100));
    c.initialize(version);
    c
}

#[test]
fn a_static_resource_is_served_from_its_encoded_content_in_both_eras() {
    let mut c = Client::new();
    c.initialize("2025-06-18");
    let r = c.answer(&legacy(1, "resources/read", r#"{"uri":"demo://text-64k"}"#));
    let item = &r["result"]["contents"][0];
    assert_eq!(item["uri"], "demo://text-64k");
    assert_eq!(item["mimeType"], "text/plain");
    assert_eq!(
        item["text"].as_str().unwrap(),
        janus_server_core::demo::text_64k()
    );
    assert!(r["result"].get("resultType").is_none());
    let mut m = Client::new();
    let r = m.answer(&modern(
        1,
        "resources/read",
        r#""uri":"demo:\/\/text-64k","#,
    ));
    assert_eq!(
        r["result"]["contents"][0]["text"].as_str().unwrap().len(),
        64 * 1024
    );
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["cacheScope"], "public");
    let r = m.answer(&modern(
        2,
        "prompts/get",
        r#""name":"greet","arguments":{"name":"Ann"},"#,
    ));
    assert!(
        r["result"]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("Ann")
    );
}

#[test]
fn capabilities_name_what_the_server_serves() {
    let mut c = Client::with(server(100));
    let caps = c.initialize("2025-06-18")["result"]["capabilities"].clone();
    // Every list can change at run time, and a change is announced.
    assert_eq!(caps["prompts"], json!({"listChanged": true}));
    assert_eq!(
        caps["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert_eq!(caps["completions"], json!({}));
    assert_eq!(caps["logging"], json!({}));
    let mut m = Client::with(server(100));
    let caps = m.answer(&modern(1, "server/discover", ""))["result"]["capabilities"].clone();
    assert_eq!(
        caps["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert!(caps["prompts"].is_object() && caps["completions"].is_object());
    // A server with tools only does not announce prompts or resources.
    let tools_only = Server::builder("tools", "1")
        .tool(
            ToolSpec::new("logs", "logs", r#"{"type":"object"}"#).unwrap(),
            |_: &Ctx<'_>, _: Args<'_>, _: &mut Output<'_>| Ok(()),
        )
        .build()
        .unwrap();
    let caps = Client::with(tools_only).initialize("2025-11-25")["result"]["capabilities"].clone();
    assert!(
        caps.get("prompts").is_none() && caps.get("resources").is_none(),
        "{caps}"
    );
}

#[test]
fn prompts_are_listed_and_got_in_each_revisions_shape() {
    for version in ["2025-03-26", "2025-06-18"] {
        let mut c = legacy_client(version);
        let r = c.answer(&legacy(2, "prompts/list", ""));
        let p = &r["result"]["prompts"][0];
        assert_eq!(p["name"], "greet");
        assert_eq!(p["description"], "Greets someone");
        assert_eq!(p.get("title").is_some(), version == "2025-06-18", "{p}");
        assert_eq!(
            p["arguments"],
            json!([{"name": "who", "description": "whom to greet", "required": true}, {"name": "tone", "required": false}])
        );
        assert!(r["result"].get("resultType").is_none());
        let r = c.answer(&legacy(
            3,
            "prompts/get",
            r#"{"name":"greet","arguments":{"who":"ann"}}"#,
        ));
        assert_eq!(r["result"]["description"], "a greeting");
        assert_eq!(
            r["result"]["messages"][0],
            json!({"role": "user", "content": {"type": "text", "text": "Say hello to ann"}})
        );
        assert_eq!(r["result"]["messages"][1]["role"], "assistant");
        assert_eq!(
            r["result"]["messages"][1]["content"]["resource"]["text"],
            "noted"
        );
    }
    let mut m = Client::with(server(100));
    let r = m.answer(&modern(
        1,
        "prompts/get",
        r#""name":"greet","arguments":{"who":"bo"},"#,
    ));
    assert_eq!(r["result"]["resultType"], "complete");
    assert!(r["result"]["_meta"][SERVER_INFO].is_object());
    let r = m.answer(&modern(2, "prompts/list", ""));
    assert_eq!(r["result"]["cacheScope"], "public");
    assert!(r["result"]["ttlMs"].is_u64());
    // A missing required argument, an unknown prompt, a handler's refusal: -32602.
    for (members, says) in [
        (r#""name":"greet","#, "who"),
        (r#""name":"greet","arguments":{"tone":"x"},"#, "who"),
        (r#""name":"nope","#, "Unknown prompt"),
        (r#""name":"fails","#, "no such mood"),
        (r#""name":"greet","arguments":[1],"#, "object"),
        (r#""#, "name"),
    ] {
        let r = m.answer(&modern(3, "prompts/get", members));
        assert_eq!(code(&r), -32602, "{members}: {r}");
        assert!(
            r["error"]["message"].as_str().unwrap().contains(says),
            "{r}"
        );
    }
}

#[test]
fn resources_and_templates_are_listed_and_read() {
    let mut c = legacy_client("2025-11-25");
    let r = c.answer(&legacy(2, "resources/list", ""));
    assert_eq!(
        r["result"]["resources"],
        json!([{"uri": "test://static-text", "name": "text", "title": "Text", "mimeType": "text/plain"},
               {"uri": "test://static-binary", "name": "binary", "size": 3}])
    );
    let r = c.answer(&legacy(3, "resources/templates/list", ""));
    assert_eq!(
        r["result"]["resourceTemplates"],
        json!([{"uriTemplate": "test://item/{id}", "name": "item", "mimeType": "application/json"}])
    );
    let r = c.answer(&legacy(
        4,
        "resources/read",
        r#"{"uri":"test://static-text"}"#,
    ));
    assert_eq!(
        r["result"]["contents"],
        json!([{"uri": "test://static-text", "mimeType": "text/plain", "text": "static text"}])
    );
    let r = c.answer(&legacy(
        5,
        "resources/read",
        r#"{"uri":"test://static-binary"}"#,
    ));
    assert_eq!(r["result"]["contents"][0]["blob"], "AQID");
    let r = c.answer(&legacy(6, "resources/read", r#"{"uri":"test://item/42"}"#));
    assert_eq!(r["result"]["contents"][0]["text"], r#"{"id":"42"}"#);
    // Not found: -32002 with the URI in the legacy era.
    for uri in ["test://nothing", "test://item/101"] {
        let r = c.answer(&legacy(
            7,
            "resources/read",
            &format!(r#"{{"uri":"{uri}"}}"#),
        ));
        assert_eq!(code(&r), -32002, "{r}");
        assert_eq!(r["error"]["data"]["uri"], uri);
    }
    assert_eq!(
        c.answer(&legacy(
            8,
            "resources/subscribe",
            r#"{"uri":"test://static-text"}"#
        ))["result"],
        json!({})
    );
    assert_eq!(
        c.answer(&legacy(
            9,
            "resources/unsubscribe",
            r#"{"uri":"test://static-text"}"#
        ))["result"],
        json!({})
    );
    // From 2026-07-28: -32602, caching hints on the read, and no subscribe method.
    let mut m = Client::with(server(100));
    let r = m.answer(&modern(1, "resources/read", r#""uri":"test://nothing","#));
    assert_eq!(code(&r), -32602);
    assert_eq!(r["error"]["data"]["uri"], "test://nothing");
    let r = m.answer(&modern(
        2,
        "resources/read",
        r#""uri":"test://static-text","#,
    ));
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["cacheScope"], "public");
    let r = m.answer(&modern(
        3,
        "resources/subscribe",
        r#""uri":"test://static-text","#,
    ));
    assert_eq!(code(&r), -32601);
    let r = m.answer(&modern(4, "logging/setLevel", r#""level":"debug","#));
    assert_eq!(code(&r), -32601);
}

#[test]
fn lists_are_paged_with_opaque_cursors() {
    let mut c = Client::with(server(1));
    c.initialize("2025-11-25");
    let r = c.answer(&legacy(2, "resources/list", ""));
    assert_eq!(r["result"]["resources"].as_array().unwrap().len(), 1);
    let next = r["result"]["nextCursor"].as_str().unwrap().to_owned();
    let r = c.answer(&legacy(
        3,
        "resources/list",
        &format!(r#"{{"cursor":"{next}"}}"#),
    ));
    assert_eq!(r["result"]["resources"][0]["uri"], "test://static-binary");
    assert!(r["result"].get("nextCursor").is_none());
    for bad in [
        r#"{"cursor":"x"}"#,
        r#"{"cursor":"janus-page-9"}"#,
        r#"{"cursor":1}"#,
    ] {
        assert_eq!(
            code(&c.answer(&legacy(4, "prompts/list", bad))),
            -32602,
            "{bad}"
        );
    }
}

#[test]
fn completions_see_the_value_and_the_context_and_are_capped_at_100() {
    let mut m = Client::with(server(100));
    let r = m.answer(&modern(1, "completion/complete", r#""ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"an"},"context":{"arguments":{"tone":"!"}},"#));
    assert_eq!(
        r["result"]["completion"],
        json!({"values": ["ann!", "anna!"], "total": 2, "hasMore": false})
    );
    assert_eq!(r["result"]["resultType"], "complete");
    let r = m.answer(&modern(2, "completion/complete", r#""ref":{"type":"ref/resource","uri":"test://item/{id}"},"argument":{"name":"id","value":""},"#));
    let c = &r["result"]["completion"];
    assert_eq!(c["values"].as_array().unwrap().len(), 100);
    assert_eq!(
        (c["total"].as_u64(), c["hasMore"].as_bool()),
        (Some(150), Some(true))
    );
    // An argument with no handler: no values. A ref to nothing, or a bad request: -32602.
    let r = m.answer(&modern(
        3,
        "completion/complete",
        r#""ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"tone","value":""},"#,
    ));
    assert_eq!(r["result"]["completion"]["values"], json!([]));
    for members in [
        r#""ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"x","value":""},"#,
        r#""ref":{"type":"ref/other"},"argument":{"name":"x","value":""},"#,
        r#""ref":{"type":"ref/prompt","name":"greet"},"#,
    ] {
        assert_eq!(
            code(&m.answer(&modern(4, "completion/complete", members))),
            -32602,
            "{members}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn completions_and_template_reads_whose_answer_comes_later_run_as_jobs() {
    let server = Server::builder("later", "1")
        .prompt(
            PromptSpec::new("p", "P").argument("who", "Who", false),
            |_: &Ctx<'_>, _: PromptArgs<'_>, out: &mut PromptMessages| {
                out.user(Content::text("hi"));
                Ok(())
            },
        )
        .async_complete_prompt_argument(
            "p",
            "who",
            |_: &Ctx<'_>, req: &janus_server_core::complete::CompletionRequest<'_>| {
                let typed = req.value().to_owned();
                let work: janus_server_core::complete::ValuesFuture = Box::pin(async move {
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                    Ok(vec![format!("{typed}1"), format!("{typed}2")].into())
                });
                Ok(work)
            },
        )
        .async_resource_template(
            TemplateSpec::new("later://{id}", "later").unwrap(),
            |_: &Ctx<'_>, uri: &str, vars: &Vars| {
                let (uri, id) = (
                    uri.to_owned(),
                    vars.get("id").unwrap_or_default().to_owned(),
                );
                let work: janus_server_core::resources::ContentsFuture = Box::pin(async move {
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                    let mut c = Contents::default();
                    if id != "none" {
                        c.text(&uri, None, &format!("item {id}"));
                    }
                    Ok(c)
                });
                Ok(work)
            },
        )
        .build()
        .unwrap();
    for legacy in [false, true] {
        let mut m = Client::with(Arc::clone(&server));
        let call = |id: i64, method: &str, members: &str| {
            if legacy {
                support::legacy(
                    id,
                    method,
                    &format!("{{{}}}", members.trim_end_matches(',')),
                )
            } else {
                modern(id, method, members)
            }
        };
        if legacy {
            m.initialize("2025-06-18");
        }
        m.job(&call(
            1,
            "completion/complete",
            r#""ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"who","value":"an"},"#,
        ));
        let r = m.finish().await;
        assert_eq!(
            r["result"]["completion"],
            json!({"values": ["an1", "an2"], "total": 2, "hasMore": false}),
            "{r}"
        );
        m.job(&call(2, "resources/read", r#""uri":"later://7","#));
        let r = m.finish().await;
        assert_eq!(r["result"]["contents"][0]["text"], "item 7", "{r}");
        // An empty read is not found, in the era's code.
        m.job(&call(3, "resources/read", r#""uri":"later://none","#));
        let r = m.finish().await;
        assert_eq!(code(&r), if legacy { -32002 } else { -32602 }, "{r}");
    }
}

#[test]
fn legacy_log_records_follow_set_level() {
    let mut c = legacy_client("2025-11-25");
    let call = legacy(2, "tools/call", r#"{"name":"logs","arguments":{}}"#);
    // Before any setLevel: no records.
    let lines = c.send(&call);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(
        c.answer(&legacy(3, "logging/setLevel", r#"{"level":"info"}"#))["result"],
        json!({})
    );
    let lines: Vec<Value> = c.send(&call);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["method"], "notifications/message");
    assert_eq!(lines[0]["params"]["level"], "warning");
    assert_eq!(lines[1]["result"]["content"][0]["text"], "logged");
    assert_eq!(
        c.answer(&legacy(4, "logging/setLevel", r#"{"level":"debug"}"#))["result"],
        json!({})
    );
    assert_eq!(c.send(&call).len(), 3);
    assert_eq!(
        code(&c.answer(&legacy(5, "logging/setLevel", r#"{"level":"loud"}"#))),
        -32602
    );
}

#[test]
fn icons_and_meta_appear_in_the_revisions_that_have_them() {
    use janus_server_core::content::Icon;
    let icon = || {
        Icon::new("https://example.com/i.png")
            .mime_type("image/png")
            .size("48x48")
            .theme("dark")
    };
    let meta = || Json::parse(r#"{"example.com/k":1}"#).unwrap();
    fn nothing(_: &Ctx<'_>, _: PromptArgs<'_>, _: &mut PromptMessages) -> Result<(), Halt> {
        Ok(())
    }
    fn text(_: &Ctx<'_>, uri: &str, out: &mut Contents) -> Result<(), Halt> {
        out.text(uri, None, "x");
        Ok(())
    }
    fn tool(_: &Ctx<'_>, _: Args<'_>, _: &mut Output<'_>) -> Result<(), Halt> {
        Ok(())
    }
    let server = Server::builder("d", "1")
        .tool(
            ToolSpec::new("t", "t", r#"{"type":"object"}"#)
                .unwrap()
                .icon(icon())
                .meta(r#"{"example.com/k":1}"#)
                .unwrap(),
            tool,
        )
        .prompt(PromptSpec::new("p", "p").icon(icon()).meta(meta()), nothing)
        .resource(
            ResourceSpec::new("r://x", "x").icon(icon()).meta(meta()),
            text,
        )
        .build()
        .unwrap();
    let want_icon = json!([{"src": "https://example.com/i.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "dark"}]);
    for (version, icons, meta) in [
        ("2025-03-26", false, false),
        ("2025-06-18", false, true),
        ("2025-11-25", true, true),
    ] {
        let mut c = Client::with(Arc::clone(&server));
        c.initialize(version);
        for (method, key) in [
            ("tools/list", "tools"),
            ("prompts/list", "prompts"),
            ("resources/list", "resources"),
        ] {
            let r = c.answer(&legacy(2, method, ""));
            let item = &r["result"][key][0];
            assert_eq!(
                item.get("icons").is_some(),
                icons,
                "{version} {method}: {item}"
            );
            assert_eq!(
                item.get("_meta").is_some(),
                meta,
                "{version} {method}: {item}"
            );
            if icons {
                assert_eq!(item["icons"], want_icon);
                assert_eq!(item["_meta"], json!({"example.com/k": 1}));
            }
        }
    }
    let mut m = Client::with(Arc::clone(&server));
    let r = m.answer(&modern(1, "prompts/list", ""));
    assert_eq!(r["result"]["prompts"][0]["icons"], want_icon);
    // A `_meta` that is not an object is refused when the server is built.
    let bad = Server::builder("d", "1")
        .prompt(
            PromptSpec::new("p", "p").meta(Json::parse("[1]").unwrap()),
            nothing,
        )
        .build();
    assert!(bad.is_err());
    assert!(
        ToolSpec::new("t", "t", r#"{"type":"object"}"#)
            .unwrap()
            .meta("7")
            .is_err()
    );
}

fn later_server() -> Arc<Server> {
    use janus_server_core::prompts::MessagesFuture;
    use janus_server_core::resources::ContentsFuture;
    fn slow_doc(ctx: &Ctx<'_>, uri: &str) -> Result<ContentsFuture, Halt> {
        let uri = uri.to_owned();
        let ctx = ctx.to_owned();
        Ok(Box::pin(async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            ctx.progress(1.0, None, None);
            let mut c = Contents::default();
            if uri.ends_with("/gone") {
                return Ok(c);
            }
            if uri.ends_with("/fails") {
                return Err(RpcError::invalid_params("no such page").into());
            }
            c.text(&uri, Some("text/plain"), "read later");
            Ok(c)
        }))
    }
    fn slow_prompt(_: &Ctx<'_>, args: PromptArgs<'_>) -> Result<MessagesFuture, Halt> {
        let who = args.str("who").unwrap_or_default().into_owned();
        if who == "nobody" {
            return Err(RpcError::invalid_params("who must be someone").into());
        }
        Ok(Box::pin(async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            let mut m = PromptMessages::default();
            m.description("later");
            m.user(Content::text(format!("hello {who}")));
            Ok(m)
        }))
    }
    Server::builder("later", "1")
        .async_resource(ResourceSpec::new("test://later/page", "page"), slow_doc)
        .async_resource(ResourceSpec::new("test://later/gone", "gone"), slow_doc)
        .async_resource(ResourceSpec::new("test://later/fails", "fails"), slow_doc)
        .async_prompt(
            PromptSpec::new("slow", "answers later").argument("who", "", true),
            slow_prompt,
        )
        .build()
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn asynchronous_resources_and_prompts_answer_as_jobs_in_both_eras() {
    let mut c = Client::with(later_server());
    c.job(&modern(
        1,
        "resources/read",
        r#""uri":"test://later/page","#,
    ));
    let r = c.finish().await;
    assert_eq!(r["result"]["contents"][0]["text"], "read later", "{r}");
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["cacheScope"], "public");
    c.job(&modern(
        2,
        "resources/read",
        r#""uri":"test://later/gone","#,
    ));
    let r = c.finish().await;
    assert_eq!(code(&r), -32602, "{r}");
    assert_eq!(r["error"]["data"]["uri"], "test://later/gone");
    c.job(&modern(
        3,
        "resources/read",
        r#""uri":"test://later/fails","#,
    ));
    assert_eq!(c.finish().await["error"]["message"], "no such page");
    c.job(&modern(
        4,
        "prompts/get",
        r#""name":"slow","arguments":{"who":"Ann"},"#,
    ));
    let r = c.finish().await;
    assert_eq!(r["result"]["description"], "later", "{r}");
    assert_eq!(r["result"]["messages"][0]["content"]["text"], "hello Ann");
    // Refused at once: no job.
    let r = c.answer(&modern(
        5,
        "prompts/get",
        r#""name":"slow","arguments":{"who":"nobody"},"#,
    ));
    assert_eq!(code(&r), -32602);
    // A legacy session: its revision's shapes and not-found code; a cancel stops the work.
    let mut s = Client::with(later_server());
    s.initialize("2025-06-18");
    s.job(&legacy(
        1,
        "resources/read",
        r#"{"uri":"test://later/gone"}"#,
    ));
    assert_eq!(code(&s.finish().await), -32002);
    s.job(&legacy(
        2,
        "prompts/get",
        r#"{"name":"slow","arguments":{"who":"Bo"}}"#,
    ));
    let r = s.finish().await;
    assert!(r["result"].get("resultType").is_none(), "{r}");
    s.job(&legacy(
        3,
        "resources/read",
        r#"{"uri":"test://later/page"}"#,
    ));
    s.silent(&cancel("3"));
    assert!(s.settle().await.is_empty());
}
