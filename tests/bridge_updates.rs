//! A resource's update reaches the front client that subscribed to it, through `janus bridge`
//! in front of a backend of either era, for any URI: the bridge asks the backend for the
//! updates of each resource a front client subscribes to (a handshake session's
//! `resources/subscribe`, a 2026-07-28 `subscriptions/listen`'s `resourceSubscriptions`), a
//! template's included, not only of the resources the backend listed at the start.

use janus_client::{CallOptions, Client, Command, Mode, Options, Transport, members_of};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

const JANUS: &str = env!("CARGO_BIN_EXE_janus");

mod support;

/// Resources of the backend's template `faults://item/{id}`: the backend lists no such
/// resource, so only a front client's subscription can make the bridge ask for them.
const ITEM: &str = "faults://item/7";
const OTHER: &str = "faults://item/8";

/// A client (in `front`) of `janus bridge --mode BACK -- janus serve --tools faults`, and
/// the notifications it hears.
async fn front(
    front: Mode,
    back: &str,
) -> (Arc<Client>, mpsc::UnboundedReceiver<janus_client::Notice>) {
    let cmd = Command::new(
        JANUS,
        [
            "bridge", "--mode", back, "--", JANUS, "serve", "--tools", "faults",
        ],
    );
    let (tx, rx) = mpsc::unbounded_channel();
    let opts = Options {
        mode: front,
        timeout: Duration::from_secs(20),
        notices: Some(tx),
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    };
    let c = Client::connect(Transport::Stdio(cmd), opts)
        .await
        .expect("the bridge serves");
    (Arc::new(c), rx)
}

/// Subscribes to `uri` in the front's era (a 2026-07-28 front holds a listen stream).
async fn subscribe(c: &Arc<Client>, modern: bool, uri: &str) {
    if modern {
        let listening = Arc::clone(c);
        let filter = format!(r#""notifications":{{"resourceSubscriptions":["{uri}"]}}"#);
        tokio::spawn(async move {
            let opts = CallOptions {
                timeout: Some(Duration::from_secs(60)),
                ..CallOptions::default()
            };
            let _ = listening
                .request("subscriptions/listen", &filter, opts)
                .await;
        });
    } else {
        c.request(
            "resources/subscribe",
            &members_of(&[("uri", uri)]),
            CallOptions::default(),
        )
        .await
        .expect("the front takes the subscription");
    }
}

/// Makes the backend announce an update of `uri` until the front client hears it (the
/// bridge subscribes at the backend as the front client subscribes, not before its answer).
async fn hears_the_update(
    c: &Client,
    heard: &mut mpsc::UnboundedReceiver<janus_client::Notice>,
    uri: &str,
    label: &str,
) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let args = format!(r#"{{"uri":"{uri}"}}"#);
    loop {
        let r = c
            .call_tool("touch", Some(&args), CallOptions::default())
            .await
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(r.text(), format!("Updated {uri}"), "{label}");
        let wait = tokio::time::sleep(Duration::from_millis(200));
        tokio::pin!(wait);
        loop {
            tokio::select! {
                n = heard.recv() => {
                    let n = n.unwrap_or_else(|| panic!("{label}: the front's notices ended"));
                    if n.method == "notifications/resources/updated" {
                        let p: serde_json::Value =
                            serde_json::from_str(n.params.as_deref().unwrap_or("{}")).unwrap();
                        if p["uri"] == uri {
                            return;
                        }
                    }
                }
                () = &mut wait => break,
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{label}: the update of {uri} never reached the front"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_of_a_resource_a_front_client_subscribed_to_reaches_it() {
    for (mode, back) in [
        (Mode::Legacy, "legacy"),
        (Mode::Legacy, "modern"),
        (Mode::Modern, "legacy"),
        (Mode::Modern, "modern"),
    ] {
        let label = format!("{mode:?} front, {back} backend");
        let (c, mut heard) = front(mode, back).await;
        let modern = mode == Mode::Modern;
        subscribe(&c, modern, ITEM).await;
        hears_the_update(&c, &mut heard, ITEM, &label).await;
        // A second subscription (a 2026-07-28 backend's stream made again with it): both
        // resources' updates come.
        subscribe(&c, modern, OTHER).await;
        hears_the_update(&c, &mut heard, OTHER, &label).await;
        hears_the_update(&c, &mut heard, ITEM, &label).await;
        // The template's resource is read through the bridge as well.
        let read = c
            .read_resource(ITEM)
            .await
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert!(format!("{read:?}").contains("item 7"), "{label}: {read:?}");
        drop(heard);
        if let Ok(c) = Arc::try_unwrap(c) {
            c.close(Duration::from_secs(2)).await;
        }
    }
}

/// Subscriptions let go leave the bridge's set: a front client that goes through more
/// resources than the bridge asks the backend for at once (1,024), one after the other,
/// still hears the updates of the last.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_let_go_make_room_for_new_ones() {
    let (c, mut heard) = front(Mode::Legacy, "legacy").await;
    for n in 0..1100 {
        let members = members_of(&[("uri", &format!("faults://item/cycled-{n}"))]);
        c.request("resources/subscribe", &members, CallOptions::default())
            .await
            .unwrap_or_else(|e| panic!("subscription {n}: {e}"));
        c.request("resources/unsubscribe", &members, CallOptions::default())
            .await
            .unwrap_or_else(|e| panic!("unsubscription {n}: {e}"));
    }
    subscribe(&c, false, ITEM).await;
    hears_the_update(&c, &mut heard, ITEM, "after 1,100 let go").await;
    drop(heard);
    if let Ok(c) = Arc::try_unwrap(c) {
        c.close(Duration::from_secs(2)).await;
    }
}

/// A 2026-07-28 HTTP backend started again (the bridge's client is the same, its listen
/// stream broke): the bridge listens again, and the updates come again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_come_again_from_an_http_backend_started_again() {
    let first = support::HttpServe::start(&["--tools", "faults"]);
    let addr = first.addr.clone();
    let upstream = format!("http://{addr}/mcp");
    let (tx, mut heard) = mpsc::unbounded_channel();
    let opts = Options {
        mode: Mode::Legacy,
        timeout: Duration::from_secs(20),
        notices: Some(tx),
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    };
    let cmd = Command::new(
        JANUS,
        [
            "bridge",
            "--mode",
            "modern",
            "--upstream",
            upstream.as_str(),
        ],
    );
    let c = Client::connect(Transport::Stdio(cmd), opts)
        .await
        .expect("the bridge serves");
    let c = Arc::new(c);
    subscribe(&c, false, ITEM).await;
    hears_the_update(&c, &mut heard, ITEM, "before").await;
    drop(first);
    let _second = support::HttpServe::launch(&["serve", "--http", &addr, "--tools", "faults"]);
    // NB. Calls may fail while the bridge finds the backend again: they are tried again.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while c
        .call_tool("echo", Some(r#"{"text":"up"}"#), CallOptions::default())
        .await
        .is_err()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the backend never came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    hears_the_update(&c, &mut heard, ITEM, "after the backend was started again").await;
}
