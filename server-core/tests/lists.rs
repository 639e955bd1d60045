//! Lists that change at run time, through `Connection` (`decisions.md`, "Server surface"):
//! what requests see, a session's `list_changed` and `resources/updated`, and
//! `subscriptions/listen` (acknowledgement, filter, tags, cancellation, the closing answer).

use bytes::BytesMut;
use janus_server_core::Halt;
use janus_server_core::content::Content;
use janus_server_core::prompts::{PromptArgs, PromptMessages, PromptSpec};
use janus_server_core::resources::{Contents, ResourceSpec};
use janus_server_core::tools::{Args, Output, ToolSpec};
use janus_server_core::{Ctx, Server};
use serde_json::{Value, json};
use std::sync::Arc;

mod support;
use support::*;

fn hello(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
    out.text("hello");
    Ok(())
}

fn note(_: &Ctx<'_>, _: PromptArgs<'_>, out: &mut PromptMessages) -> Result<(), Halt> {
    out.user(Content::text("a note"));
    Ok(())
}

fn doc(_: &Ctx<'_>, uri: &str, out: &mut Contents) -> Result<(), Halt> {
    out.text(uri, None, "doc");
    Ok(())
}

fn spec(name: &str) -> ToolSpec {
    ToolSpec::new(name, name, r#"{"type":"object"}"#).unwrap()
}

fn server() -> Arc<Server> {
    Server::builder("lists", "1")
        .tool(spec("hello"), hello)
        .prompt(PromptSpec::new("note", "n"), note)
        .resource(ResourceSpec::new("test://doc", "doc"), doc)
        .resource(ResourceSpec::new("test://other", "other"), doc)
        .build()
        .unwrap()
}

fn names(list: &Value, key: &str, field: &str) -> Vec<String> {
    list["result"][key]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t[field].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn requests_see_the_lists_as_they_are_now() {
    let server = server();
    let mut c = Client::with(Arc::clone(&server));
    c.initialize("2025-11-25");
    server.add_tool(spec("later"), hello).unwrap();
    let list = c.answer(&legacy(1, "tools/list", ""));
    assert_eq!(names(&list, "tools", "name"), ["hello", "later"]);
    let r = c.answer(&legacy(2, "tools/call", r#"{"name":"later"}"#));
    assert_eq!(r["result"]["content"][0]["text"], "hello");
    assert!(server.remove_tool("later"));
    assert!(!server.remove_tool("later"));
    let r = c.answer(&legacy(3, "tools/call", r#"{"name":"later"}"#));
    assert_eq!(code(&r), -32602);
    server
        .add_prompt(PromptSpec::new("second", "s"), note)
        .unwrap();
    let list = c.answer(&legacy(4, "prompts/list", ""));
    assert_eq!(names(&list, "prompts", "name"), ["note", "second"]);
    assert!(server.remove_resource("test://doc"));
    let r = c.answer(&legacy(5, "resources/read", r#"{"uri":"test://doc"}"#));
    assert_eq!(code(&r), -32002);
    // A bad spec at run time is refused and changes nothing.
    let bad = ToolSpec::new("bad", "b", r#"{"type":"object"}"#)
        .unwrap()
        .meta("[]");
    assert!(bad.is_err());
    assert!(
        server
            .add_prompt(
                PromptSpec::new("bad", "b").meta(janus_server_core::Json::parse("1").unwrap()),
                note
            )
            .is_err()
    );
}

#[tokio::test]
async fn a_session_hears_list_changes_and_the_updates_it_subscribed_to() {
    let server = server();
    let mut c = Client::with(Arc::clone(&server));
    let caps = c.initialize("2025-06-18")["result"]["capabilities"].clone();
    assert_eq!(caps["tools"]["listChanged"], true);
    server.add_tool(spec("later"), hello).unwrap();
    let heard = c.hear().await;
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0]["method"], "notifications/tools/list_changed");
    assert!(heard[0].get("id").is_none());
    server.remove_prompt("note");
    assert_eq!(
        c.hear().await[0]["method"],
        "notifications/prompts/list_changed"
    );
    // Updates: only for what it subscribed to, until it unsubscribes.
    server.resource_updated("test://doc");
    assert!(c.hear().await.is_empty());
    c.answer(&legacy(1, "resources/subscribe", r#"{"uri":"test://doc"}"#));
    server.resource_updated("test://doc");
    server.resource_updated("test://other");
    let heard = c.hear().await;
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0]["method"], "notifications/resources/updated");
    assert_eq!(heard[0]["params"]["uri"], "test://doc");
    c.answer(&legacy(
        2,
        "resources/unsubscribe",
        r#"{"uri":"test://doc"}"#,
    ));
    server.resource_updated("test://doc");
    assert!(c.hear().await.is_empty());
    // A connection that is gone is no longer told.
    drop(c);
    server.add_tool(spec("after"), hello).unwrap();
}

const ENV: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn listen(id: &str, filter: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{"_meta":{ENV},"notifications":{filter}}}}}"#
    )
}

fn sub(v: &Value) -> &Value {
    &v["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
}

#[tokio::test]
async fn a_listen_is_acknowledged_first_then_hears_what_it_asked_tagged() {
    let server = server();
    let mut c = Client::with(Arc::clone(&server));
    c.job(&listen(
        r#""all""#,
        r#"{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["test://doc"]}"#,
    ));
    c.job(&listen("7", r#"{"promptsListChanged":true}"#));
    let acks = c.hear().await;
    assert_eq!(acks.len(), 2, "{acks:?}");
    assert_eq!(
        acks[0]["method"],
        "notifications/subscriptions/acknowledged"
    );
    assert_eq!(sub(&acks[0]), "all");
    assert_eq!(
        acks[0]["params"]["notifications"],
        json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true, "resourceSubscriptions": ["test://doc"]})
    );
    assert_eq!(sub(&acks[1]), 7);
    assert_eq!(
        acks[1]["params"]["notifications"],
        json!({"promptsListChanged": true})
    );
    server.add_tool(spec("later"), hello).unwrap();
    let heard = c.hear().await;
    assert_eq!(heard.len(), 1, "only the listener that asked: {heard:?}");
    assert_eq!(heard[0]["method"], "notifications/tools/list_changed");
    assert_eq!(sub(&heard[0]), "all");
    server.add_prompt(PromptSpec::new("p2", "p"), note).unwrap();
    let heard = c.hear().await;
    let mut tags: Vec<String> = heard.iter().map(|h| sub(h).to_string()).collect();
    tags.sort();
    assert_eq!(tags, ["\"all\"", "7"]);
    server.resource_updated("test://doc");
    let heard = c.hear().await;
    assert_eq!(heard[0]["params"]["uri"], "test://doc");
    // Cancelled: nothing more for it, and the other one goes on.
    c.silent(&cancel(r#""all""#));
    server.add_tool(spec("more"), hello).unwrap();
    assert!(c.hear().await.is_empty());
    server.remove_prompt("p2");
    let heard = c.hear().await;
    assert_eq!(heard.len(), 1);
    assert_eq!(sub(&heard[0]), 7);
    // The end of input ends it: its request gets the closing answer.
    let mut out = BytesMut::new();
    c.conn.handle_eof(&mut out);
    let end = parse_lines(&out);
    assert_eq!(end.len(), 1, "{end:?}");
    assert_eq!(end[0]["id"], 7);
    assert_eq!(end[0]["result"]["resultType"], "complete");
    assert_eq!(
        end[0]["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    assert_eq!(c.conn.foreground(), 0);
}

#[tokio::test]
async fn the_server_ends_its_listens_with_a_closing_answer() {
    let server = server();
    let mut c = Client::with(Arc::clone(&server));
    c.job(&listen("1", r#"{"toolsListChanged":true}"#));
    c.hear().await;
    server.end_subscriptions();
    let end = c.settle().await;
    assert_eq!(end.len(), 1, "{end:?}");
    assert_eq!(end[0]["id"], 1);
    assert_eq!(end[0]["result"]["resultType"], "complete");
    assert!(end[0]["result"]["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
}

#[tokio::test]
async fn a_listen_filter_of_the_wrong_shape_is_32602_and_unknown_kinds_are_not_honoured() {
    let mut c = Client::with(
        Server::builder("bare", "1")
            .tool(spec("hello"), hello)
            .build()
            .unwrap(),
    );
    for bad in [
        r#""all""#,
        r#"{"toolsListChanged":"yes"}"#,
        r#"{"resourceSubscriptions":[1]}"#,
    ] {
        assert_eq!(code(&c.answer(&listen("1", bad))), -32602, "{bad}");
    }
    // Without prompts or resources, only the tools list is honoured.
    c.job(&listen(
        "2",
        r#"{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["x://y"]}"#,
    ));
    let acks = c.hear().await;
    assert_eq!(
        acks[0]["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    // A session has no listen: it is a 2026-07-28 method.
    let mut s = Client::new();
    s.initialize("2025-11-25");
    assert_eq!(
        code(&s.answer(&legacy(1, "subscriptions/listen", "{}"))),
        -32601
    );
}

#[test]
fn connections_that_come_and_go_leave_no_watchers_behind() {
    let server = server();
    for _ in 0..10_000 {
        let mut c = Client::with(Arc::clone(&server));
        c.initialize("2025-11-25");
    }
    // Dead ones are dropped as registrations go on, with no list change at all.
    assert!(
        server.watchers() <= 2 * 64,
        "{} watchers",
        server.watchers()
    );
}

/// Tools, prompts and resources named `admin*` are for callers with the `admin` scope.
fn by_caller() -> Arc<Server> {
    use janus_server_core::server::Listed;
    let admin_only = |ctx: &Ctx<'_>, item: Listed<'_>| {
        let name = match item {
            Listed::Tool(t) => t.name.as_str(),
            Listed::Prompt(p) => p.name(),
            Listed::Resource(r) => r.uri(),
            Listed::Template(t) => t.uri_template(),
            _ => "",
        };
        !name.contains("admin") || ctx.principal().is_some_and(|p| p.has_scope("admin"))
    };
    Server::builder("by-caller", "1")
        .tool(spec("hello"), hello)
        .tool(spec("admin_reset"), hello)
        .prompt(PromptSpec::new("note", "n"), note)
        .prompt(PromptSpec::new("admin_note", "n"), note)
        .resource(ResourceSpec::new("test://doc", "doc"), doc)
        .resource(ResourceSpec::new("test://admin", "admin"), doc)
        .complete_prompt_argument(
            "admin_note",
            "x",
            |_: &Ctx<'_>, _: &janus_server_core::complete::CompletionRequest<'_>| {
                vec!["y".to_owned()]
            },
        )
        .visibility(admin_only)
        .build()
        .unwrap()
}

fn mreq(id: i64, method: &str, members: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{members}"_meta":{ENV}}}}}"#
    )
}

#[test]
fn lists_that_depend_on_the_caller_are_private_and_hide_what_it_may_not_see() {
    use janus_server_core::ctx::Principal;
    let mut c = Client::with(by_caller());
    let tools = c.answer(&mreq(1, "tools/list", ""));
    assert_eq!(names(&tools, "tools", "name"), ["hello"]);
    assert_eq!(tools["result"]["cacheScope"], "private");
    let prompts = c.answer(&mreq(2, "prompts/list", ""));
    assert_eq!(names(&prompts, "prompts", "name"), ["note"]);
    assert_eq!(prompts["result"]["cacheScope"], "private");
    let res = c.answer(&mreq(3, "resources/list", ""));
    assert_eq!(names(&res, "resources", "uri"), ["test://doc"]);
    // What it does not see is unknown to it.
    let r = c.answer(&mreq(
        4,
        "tools/call",
        r#""name":"admin_reset","arguments":{},"#,
    ));
    assert_eq!(r["error"]["message"], "Unknown tool: admin_reset");
    assert_eq!(
        code(&c.answer(&mreq(5, "prompts/get", r#""name":"admin_note","#))),
        -32602
    );
    let r = c.answer(&mreq(6, "resources/read", r#""uri":"test://admin","#));
    assert_eq!(r["error"]["data"]["uri"], "test://admin");
    let r = c.answer(&mreq(
        7,
        "completion/complete",
        r#""ref":{"type":"ref/prompt","name":"admin_note"},"argument":{"name":"x","value":""},"#,
    ));
    assert_eq!(code(&r), -32602);
    // server/discover is the same for everyone.
    let d = c.answer(&mreq(8, "server/discover", ""));
    assert_eq!(d["result"]["cacheScope"], "public");
    // An admin sees it all.
    c.conn.set_principal(Some(Arc::new(Principal::new(
        Some("root".into()),
        None,
        vec!["admin".into()],
    ))));
    let tools = c.answer(&mreq(9, "tools/list", ""));
    assert_eq!(names(&tools, "tools", "name"), ["hello", "admin_reset"]);
    let r = c.answer(&mreq(
        10,
        "tools/call",
        r#""name":"admin_reset","arguments":{},"#,
    ));
    assert_eq!(r["result"]["content"][0]["text"], "hello");
    let r = c.answer(&mreq(11, "resources/read", r#""uri":"test://admin","#));
    assert_eq!(r["result"]["contents"][0]["text"], "doc");
    assert_eq!(r["result"]["cacheScope"], "private");
    // A legacy session sees the same rule, with its revision's not-found code.
    let mut s = Client::with(by_caller());
    s.initialize("2025-11-25");
    let r = s.answer(&legacy(1, "resources/read", r#"{"uri":"test://admin"}"#));
    assert_eq!(code(&r), -32002);
    let tools = s.answer(&legacy(2, "tools/list", ""));
    assert_eq!(names(&tools, "tools", "name"), ["hello"]);
}

/// Two servers on one bus, as two replicas of a deployment: a change made through one
/// reaches the listeners and sessions of the other (`decisions.md`, "Storage").
#[tokio::test]
async fn a_change_made_through_one_replica_reaches_listeners_on_another_through_the_bus() {
    let bus = janus_server_core::store::MemoryBus::new();
    let replica = |bus: &janus_server_core::store::MemoryBus| {
        Server::builder("lists", "1")
            .tool(spec("hello"), hello)
            .resource(ResourceSpec::new("test://doc", "doc"), doc)
            .bus(Arc::new(bus.clone()))
            .build()
            .unwrap()
    };
    let (a, b) = (replica(&bus), replica(&bus));
    let mut listener = Client::with(Arc::clone(&b));
    listener.job(&listen(
        "1",
        r#"{"toolsListChanged":true,"resourceSubscriptions":["test://doc"]}"#,
    ));
    assert_eq!(listener.hear().await.len(), 1, "the acknowledgement");
    let mut session = Client::with(Arc::clone(&b));
    session.initialize("2025-11-25");
    a.add_tool(spec("later"), hello).unwrap();
    let heard = listener.hear().await;
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0]["method"], "notifications/tools/list_changed");
    assert_eq!(sub(&heard[0]), 1);
    let heard = session.hear().await;
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0]["method"], "notifications/tools/list_changed");
    a.resource_updated("test://doc");
    let heard = listener.hear().await;
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0]["method"], "notifications/resources/updated");
    assert_eq!(heard[0]["params"]["uri"], "test://doc");
    // A server on a bus of its own hears none of it.
    let alone = server();
    let mut other = Client::with(Arc::clone(&alone));
    other.initialize("2025-11-25");
    a.add_tool(spec("again"), hello).unwrap();
    assert!(other.hear().await.is_empty());
    assert_eq!(session.hear().await.len(), 1);
}

#[tokio::test]
async fn each_subscription_made_is_told_and_so_is_its_end() {
    let told: Arc<std::sync::Mutex<Vec<(String, bool)>>> = Arc::default();
    let record = Arc::clone(&told);
    let server = Server::builder("lists", "1")
        .resource(ResourceSpec::new("test://doc", "doc"), doc)
        .on_subscribe(move |uri, on| record.lock().unwrap().push((uri.to_owned(), on)))
        .build()
        .unwrap();
    let taken = || std::mem::take(&mut *told.lock().unwrap());
    let mut c = Client::with(Arc::clone(&server));
    c.initialize("2025-11-25");
    let doc = r#"{"uri":"test://doc"}"#;
    c.answer(&legacy(1, "resources/subscribe", doc));
    // A second subscription of the same session is no new hold.
    c.answer(&legacy(2, "resources/subscribe", doc));
    c.answer(&legacy(3, "resources/subscribe", r#"{"uri":"any://uri"}"#));
    assert_eq!(
        taken(),
        [("test://doc".into(), true), ("any://uri".into(), true)]
    );
    c.answer(&legacy(4, "resources/unsubscribe", doc));
    c.answer(&legacy(5, "resources/unsubscribe", doc));
    assert_eq!(taken(), [("test://doc".into(), false)]);
    // The session's end lets go of what it still holds.
    drop(c);
    assert_eq!(taken(), [("any://uri".into(), false)]);
    // A listen stream holds its resources from its start to its end.
    let mut m = Client::with(Arc::clone(&server));
    m.job(&listen("9", r#"{"resourceSubscriptions":["test://doc"]}"#));
    assert_eq!(taken(), [("test://doc".into(), true)]);
    m.send(&cancel("9"));
    let _ = m.hear().await;
    assert_eq!(taken(), [("test://doc".into(), false)]);
}
