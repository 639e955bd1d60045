//! A front request cancelled while its backend request is in flight: the backend hears
//! `notifications/cancelled` for it, whatever the method (a call, a prompt, a read) and
//! whatever the eras on either side, and the front's client has its answer at once.

use janus_client::{CallOptions, Cancel, Client, Error, Mode, Options, Transport};
use std::time::Duration;
use support::copies::{bridge_copying, line_in, lines_of};

mod support;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_prompt_read_or_call_is_cancelled_at_the_backend() {
    let dir = std::env::temp_dir().join(format!("janus-bridge-cancel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (front, back) in [(Mode::Modern, "legacy"), (Mode::Legacy, "modern")] {
        let heard = dir.join(format!("{back}.jsonl"));
        let _ = std::fs::remove_file(&heard);
        let opts = Options {
            mode: front,
            timeout: Duration::from_secs(20),
            ..Options::default()
        };
        let c = Client::connect(
            Transport::Stdio(bridge_copying(back, "faults", &heard)),
            opts,
        )
        .await
        .expect("the bridge serves");
        for method in ["prompts/get", "resources/read", "tools/call"] {
            let cancel = Cancel::new();
            let o = CallOptions {
                cancel: Some(cancel.clone()),
                ..CallOptions::default()
            };
            // NB. Fired once the backend has the request: it never answers it.
            let sent = line_in(&heard, method, |l| l["method"] == method);
            let asked = async {
                match method {
                    "prompts/get" => c.get_prompt_with("hang", &[], o).await.map(|_| ()),
                    "resources/read" => c.read_resource_with("faults://hang", o).await.map(|_| ()),
                    _ => c.call_tool("hang", None, o).await.map(|_| ()),
                }
            };
            let (answer, line) = tokio::join!(asked, async {
                let line = sent.await;
                cancel.fire();
                line
            });
            assert!(
                matches!(answer, Err(Error::Cancelled)),
                "{front:?} front, {back} backend, {method}: {answer:?}"
            );
            let id = line["id"].clone();
            line_in(&heard, "its cancel", |l| {
                l["method"] == "notifications/cancelled" && l["params"]["requestId"] == id
            })
            .await;
        }
        // The backend is still of use after the three.
        let r = c
            .call_tool("echo", Some(r#"{"text":"on"}"#), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(r.text(), "on");
        c.close(Duration::from_secs(2)).await;
        assert!(
            lines_of(&heard)
                .iter()
                .filter(|l| l["method"] == "notifications/cancelled")
                .count()
                >= 3
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
