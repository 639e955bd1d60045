//! The changes the front forwards, asked of the backend: a 2026-07-28 backend sends list
//! changes and resource updates only on a `subscriptions/listen` stream, so the bridge holds
//! one (listened again when the backend ends it, on the new connection after a restart, and
//! with the new filter when a front client subscribes to a resource it does not name); a
//! handshake backend that can is subscribed to each resource a front client subscribes to,
//! as it does. What comes reaches [`crate::surface::follow`] as the connection's
//! notifications.

use crate::backend::Backend;
use janus_client::{CallOptions, Client};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::Notify;

/// How often the watcher looks for a new connection, and whether the bridge is gone.
const LOOK: Duration = Duration::from_millis(250);

/// What to ask of the backend: the resources the front's clients subscribed to (any URI,
/// a template's included), which grow as they subscribe.
pub(crate) struct Wanted {
    uris: Mutex<BTreeSet<String>>,
    /// The backend said it takes subscriptions to resources.
    subscribes: bool,
    /// Wakes the watcher when a URI is added.
    grew: Notify,
}

impl Wanted {
    pub(crate) fn new(subscribes: bool) -> Self {
        Self {
            uris: Mutex::new(BTreeSet::new()),
            subscribes,
            grew: Notify::new(),
        }
    }

    fn uris(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        self.uris
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A front client subscribed to `uri`: the backend is asked for its updates too (a
    /// backend that takes no subscriptions is not).
    pub(crate) fn add(&self, uri: &str) {
        // NB. Bounded: a front client that subscribes to ever new URIs does not grow the
        // bridge's filter (and each listen request) without end.
        let mut uris = self.uris();
        if !self.subscribes || uris.len() >= MAX_URIS || !uris.insert(uri.to_owned()) {
            return;
        }
        drop(uris);
        // NB. A permit is kept when the watcher is busy: the change is not missed.
        self.grew.notify_one();
    }

    /// How many URIs were added so far.
    fn generation(&self) -> usize {
        self.uris().len()
    }

    /// The `notifications` filter of the bridge's `subscriptions/listen` (params' members),
    /// and the [`Wanted::generation`] it holds.
    fn filter(&self) -> (String, usize) {
        let mut m = bytes::BytesMut::new();
        m.extend_from_slice(
            br#""notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true"#,
        );
        let uris = self.uris();
        if self.subscribes && !uris.is_empty() {
            m.extend_from_slice(br#","resourceSubscriptions":["#);
            for (i, u) in uris.iter().enumerate() {
                if i > 0 {
                    m.extend_from_slice(b",");
                }
                janus_codec::encode::write_str(&mut m, u);
            }
            m.extend_from_slice(b"]");
        }
        m.extend_from_slice(b"}");
        (String::from_utf8_lossy(&m).into_owned(), uris.len())
    }
}

/// The most resources the bridge asks the backend for updates of.
const MAX_URIS: usize = 1024;

/// How long the watcher waits for more of the front's subscriptions before it listens
/// again with them.
const GATHER: Duration = Duration::from_millis(50);

/// Resolves once the bridge is gone.
async fn gone(backend: &Weak<Backend>) {
    while backend.strong_count() > 0 {
        tokio::time::sleep(LOOK).await;
    }
}

/// Asks each connection to the backend, while the bridge lives, for the changes it forwards.
pub(crate) async fn watch(backend: Weak<Backend>, wanted: Arc<Wanted>) {
    let mut served: Option<Weak<Client>> = None;
    // The URIs a handshake backend's connection was subscribed to.
    let mut told: BTreeSet<String> = BTreeSet::new();
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
            told.clear();
            if c.negotiated().version.is_modern() {
                let (filter, asked) = wanted.filter();
                let stream = listen(&c, filter);
                tokio::pin!(stream);
                let mut relisten = false;
                loop {
                    tokio::select! {
                        again = &mut stream => {
                            // NB. The backend ended the stream on a connection that goes on:
                            // listened again (after a pause), not left deaf.
                            if again {
                                served = None;
                            }
                            break;
                        }
                        () = wanted.grew.notified() => {
                            // NB. A front client subscribed to a resource the filter lacks:
                            // the stream is dropped (which cancels it at the backend) and
                            // made again with it, at once.
                            if wanted.generation() != asked {
                                // NB. Subscriptions that come together are one new stream,
                                // not one each (each carries the whole filter).
                                tokio::time::sleep(GATHER).await;
                                served = None;
                                relisten = true;
                                break;
                            }
                        }
                        () = gone(&backend) => return,
                    }
                }
                if relisten {
                    continue;
                }
            }
        }
        if let Some(c) = client
            .as_ref()
            .filter(|c| !c.negotiated().version.is_modern())
        {
            let new: Vec<String> = wanted.uris().difference(&told).cloned().collect();
            subscribe(c, &new).await;
            told.extend(new);
        }
        drop(client);
        tokio::select! {
            () = tokio::time::sleep(LOOK) => {}
            () = wanted.grew.notified() => {}
        }
    }
}

/// Holds a listen stream on `c` until it ends; true when the backend ended it (listen
/// again), false when it refused it or the connection broke.
async fn listen(c: &Client, filter: String) -> bool {
    let opts = CallOptions {
        timeout: Some(Duration::MAX),
        ..CallOptions::default()
    };
    match c.request("subscriptions/listen", &filter, opts).await {
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
