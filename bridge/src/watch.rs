//! The changes the front forwards, asked of the backend: a 2026-07-28 backend sends list
//! changes and resource updates only on a `subscriptions/listen` stream, so the bridge holds
//! one (listened again when the backend ends it, or on the new connection after a restart);
//! a handshake backend that can is subscribed to each resource the front serves. What comes
//! reaches [`crate::forward::follow`] as the connection's notifications.

use crate::backend::Backend;
use janus_client::{CallOptions, Client};
use std::sync::{Arc, Weak};
use std::time::Duration;

/// How often the watcher looks for a new connection, and whether the bridge is gone.
const LOOK: Duration = Duration::from_millis(250);

/// What to ask of the backend.
pub(crate) struct Wanted {
    /// The backend's direct resources, for their updates.
    pub(crate) uris: Vec<String>,
    /// The backend said it takes subscriptions to resources.
    pub(crate) subscribes: bool,
}

impl Wanted {
    /// The `notifications` filter of the bridge's `subscriptions/listen` (params' members).
    fn filter(&self) -> String {
        let mut m = bytes::BytesMut::new();
        m.extend_from_slice(
            br#""notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true"#,
        );
        if self.subscribes && !self.uris.is_empty() {
            m.extend_from_slice(br#","resourceSubscriptions":["#);
            for (i, u) in self.uris.iter().enumerate() {
                if i > 0 {
                    m.extend_from_slice(b",");
                }
                janus_codec::encode::write_str(&mut m, u);
            }
            m.extend_from_slice(b"]");
        }
        m.extend_from_slice(b"}");
        String::from_utf8_lossy(&m).into_owned()
    }
}

/// Resolves once the bridge is gone.
async fn gone(backend: &Weak<Backend>) {
    while backend.strong_count() > 0 {
        tokio::time::sleep(LOOK).await;
    }
}

/// Asks each connection to the backend, while the bridge lives, for the changes it forwards.
pub(crate) async fn watch(backend: Weak<Backend>, wanted: Wanted) {
    let mut served: Option<Weak<Client>> = None;
    loop {
        let Some(b) = backend.upgrade() else {
            return;
        };
        let client = b.client().ok();
        drop(b);
        let fresh = client.as_ref().filter(|c| {
            !served
                .as_ref()
                .is_some_and(|s| std::ptr::eq(s.as_ptr(), Arc::as_ptr(c)))
        });
        if let Some(c) = fresh.cloned() {
            served = Some(Arc::downgrade(&c));
            if c.negotiated().version.is_modern() {
                tokio::select! {
                    again = listen(&c, &wanted) => if again {
                        // NB. The backend ended the stream on a connection that goes on:
                        // listened again (after a pause), not left deaf.
                        served = None;
                    },
                    () = gone(&backend) => return,
                }
            } else if wanted.subscribes {
                subscribe(&c, &wanted.uris).await;
            }
        }
        drop(client);
        tokio::time::sleep(LOOK).await;
    }
}

/// Holds a listen stream on `c` until it ends; true when the backend ended it (listen
/// again), false when it refused it or the connection broke.
async fn listen(c: &Client, wanted: &Wanted) -> bool {
    let opts = CallOptions {
        timeout: Some(Duration::MAX),
        ..CallOptions::default()
    };
    match c
        .request("subscriptions/listen", &wanted.filter(), opts)
        .await
    {
        Ok(_) => {
            tracing::debug!("the backend ended the bridge's listen stream");
            true
        }
        Err(janus_client::Error::Rejected(r)) => {
            tracing::warn!(
                "the backend refused subscriptions/listen: its changes are not forwarded: {r}"
            );
            false
        }
        Err(e) => {
            tracing::debug!(error = %e, "the bridge's listen stream ended with its connection");
            false
        }
    }
}

/// Subscribes a handshake backend to each resource.
async fn subscribe(c: &Client, uris: &[String]) {
    for u in uris {
        let members = janus_client::members_of(&[("uri", u)]);
        if let Err(e) = c
            .request("resources/subscribe", &members, CallOptions::default())
            .await
        {
            tracing::warn!(uri = %u, error = %e, "the backend refused resources/subscribe");
        }
    }
}
