//! The changes the front forwards, asked of the backend: a 2026-07-28 backend sends list
//! changes and resource updates only on a `subscriptions/listen` stream, so the bridge holds
//! one (listened again when the backend ends it, on the new connection after a restart, and
//! with the new filter when a front client subscribes to a resource it does not name); a
//! handshake backend that can is subscribed to each resource a front client subscribes to,
//! as it does. What comes reaches [`crate::surface::follow`] as the connection's
//! notifications.

use crate::backend::Backend;
use janus_client::{CallOptions, Client};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::Notify;

/// How often the watcher looks for a new connection, and whether the bridge is gone.
const LOOK: Duration = Duration::from_millis(250);

/// What to ask of the backend: the resources it listed, and those the front's clients
/// subscribe to (a template's included) while they do.
pub(crate) struct Wanted {
    uris: Mutex<Uris>,
    /// The backend said it takes subscriptions to resources.
    subscribes: bool,
    /// Wakes the watcher when a URI is added.
    grew: Notify,
    /// [`MAX_URIS`] was reached (and said in the log).
    full: std::sync::atomic::AtomicBool,
}

/// The resources asked for, and how many holds each has (a listed one holds one for good).
#[derive(Default)]
struct Uris {
    held: HashMap<String, usize>,
    /// The same URIs, in order (the filter is written the same for the same set).
    all: BTreeSet<String>,
    /// How many times a URI was added to `all`.
    added: u64,
}

impl Wanted {
    pub(crate) fn new(subscribes: bool) -> Self {
        Self {
            uris: Mutex::new(Uris::default()),
            subscribes,
            grew: Notify::new(),
            full: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn uris(&self) -> std::sync::MutexGuard<'_, Uris> {
        self.uris
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A hold on `uri` (the backend listed it, or a front client subscribed to it): the
    /// backend is asked for its updates too (a backend that takes no subscriptions is not).
    pub(crate) fn add(&self, uri: &str) {
        if !self.subscribes {
            return;
        }
        let mut uris = self.uris();
        if let Some(n) = uris.held.get_mut(uri) {
            *n += 1;
            return;
        }
        // NB. Bounded: the filter (and each listen request) does not grow without end.
        if uris.held.len() >= MAX_URIS {
            drop(uris);
            if !self.full.swap(true, std::sync::atomic::Ordering::Relaxed) {
                tracing::warn!(
                    uri,
                    "the bridge asks the backend for the updates of {MAX_URIS} resources \
                     already: those of more resources subscribed to meanwhile are not asked for"
                );
            }
            return;
        }
        uris.held.insert(uri.to_owned(), 1);
        uris.all.insert(uri.to_owned());
        uris.added += 1;
        drop(uris);
        // NB. A permit is kept when the watcher is busy: the change is not missed.
        self.grew.notify_one();
    }

    /// A front client let go of `uri`: once none holds it, it leaves the set (the backend
    /// is asked for it no more from the next listen on; what it still sends of it the
    /// front's clients do not hear, as none subscribed).
    pub(crate) fn release(&self, uri: &str) {
        let mut uris = self.uris();
        let Some(n) = uris.held.get_mut(uri) else {
            return;
        };
        *n -= 1;
        if *n == 0 {
            uris.held.remove(uri);
            uris.all.remove(uri);
        }
    }

    /// How many URIs were added so far.
    fn generation(&self) -> u64 {
        self.uris().added
    }

    /// The `notifications` filter of the bridge's `subscriptions/listen` (params' members),
    /// and the [`Wanted::generation`] it holds; without the resources when not `with_uris`.
    fn filter(&self, with_uris: bool) -> (String, u64) {
        let mut m = bytes::BytesMut::new();
        m.extend_from_slice(
            br#""notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true"#,
        );
        let uris = self.uris();
        if with_uris && self.subscribes && !uris.all.is_empty() {
            m.extend_from_slice(br#","resourceSubscriptions":["#);
            for (i, u) in uris.all.iter().enumerate() {
                if i > 0 {
                    m.extend_from_slice(b",");
                }
                janus_codec::encode::write_str(&mut m, u);
            }
            m.extend_from_slice(b"]");
        }
        m.extend_from_slice(b"}");
        (String::from_utf8_lossy(&m).into_owned(), uris.added)
    }
}

/// The most resources the bridge asks the backend for updates of.
const MAX_URIS: usize = 1024;

/// The least time between two listen streams made again for the front's new subscriptions
/// (those that come meanwhile are gathered into the next).
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
                match hold_listen(&c, &wanted, &backend).await {
                    // NB. The backend ended the stream on a connection that goes on:
                    // listened again (after a pause), not left deaf.
                    Heard::Ended => served = None,
                    // NB. So is a stream broken on a connection that is not closed (an HTTP
                    // backend started again: the client is the same, the stream is not).
                    Heard::Broken if !c.is_closed() => served = None,
                    Heard::Gone => return,
                    Heard::Refused | Heard::Broken => {}
                }
            }
        }
        if let Some(c) = client
            .as_ref()
            .filter(|c| !c.negotiated().version.is_modern())
        {
            let new: Vec<String> = wanted.uris().all.difference(&told).cloned().collect();
            // NB. Only what the backend took counts as told: a subscription that failed
            // with its connection is asked again on the next one.
            let (took, lost) = subscribe(c, &new).await;
            told.extend(took);
            if let (Some(e), Some(b)) = (lost, backend.upgrade()) {
                b.failed(&e);
            }
        }
        drop(client);
        tokio::select! {
            () = tokio::time::sleep(LOOK) => {}
            () = wanted.grew.notified() => {}
        }
    }
}

/// How a listen stream ended.
enum Heard {
    /// The backend ended it (listen again).
    Ended,
    /// The backend refused it.
    Refused,
    /// Its connection broke.
    Broken,
    /// The bridge is gone.
    Gone,
}

/// Holds a listen stream on the 2026-07-28 connection `c` until it ends, listened again with
/// a new filter as the front's clients subscribe to resources it lacks: the new stream is
/// asked for before the old one is let go (which cancels it at the backend), so that nothing
/// the backend sends meanwhile is lost (told twice at worst). A filter the backend refuses
/// leaves the stream that was (a first one refused with resources in it is asked for the
/// list changes alone).
async fn hold_listen(c: &Client, wanted: &Wanted, backend: &Weak<Backend>) -> Heard {
    let (filter, mut asked) = wanted.filter(true);
    let mut stream = Box::pin(listen(c, filter));
    let mut with_uris = true;
    let mut relistened: Option<tokio::time::Instant> = None;
    loop {
        tokio::select! {
            heard = &mut stream => match heard {
                Heard::Refused if with_uris && asked > 0 => {
                    tracing::warn!("the backend refused the bridge's resource subscriptions: only list changes are forwarded");
                    with_uris = false;
                    stream = Box::pin(listen(c, wanted.filter(false).0));
                }
                other => return other,
            },
            () = wanted.grew.notified() => {
                if !with_uris || wanted.generation() == asked {
                    continue;
                }
                // NB. A subscription is asked for at once (its update may come right after
                // the front client hears it is subscribed); more that come quickly after it
                // are one new stream, not one each (each carries the whole filter).
                if let Some(last) = relistened {
                    tokio::time::sleep_until(last + GATHER).await;
                }
                relistened = Some(tokio::time::Instant::now());
                let (filter, now) = wanted.filter(true);
                asked = now;
                let mut next = Box::pin(listen(c, filter));
                // NB. Polled once, which sends its request, before the old one is dropped.
                match std::future::poll_fn(|cx| std::task::Poll::Ready(next.as_mut().poll(cx))).await {
                    std::task::Poll::Pending => stream = next,
                    std::task::Poll::Ready(Heard::Refused) => {
                        tracing::warn!("the backend refused a listen stream with the front's new subscriptions: the one it had goes on");
                    }
                    std::task::Poll::Ready(other) => return other,
                }
            }
            () = gone(backend) => return Heard::Gone,
        }
    }
}

/// Holds a listen stream on `c` until it ends.
async fn listen(c: &Client, filter: String) -> Heard {
    let opts = CallOptions {
        timeout: Some(Duration::MAX),
        ..CallOptions::default()
    };
    match c.request("subscriptions/listen", &filter, opts).await {
        Ok(_) => {
            tracing::debug!("the backend ended the bridge's listen stream");
            Heard::Ended
        }
        Err(janus_client::Error::Rejected(r)) => {
            tracing::warn!(
                "the backend refused subscriptions/listen: its changes are not forwarded: {r}"
            );
            Heard::Refused
        }
        Err(e) => {
            tracing::debug!(error = %e, "the bridge's listen stream ended with its connection");
            Heard::Broken
        }
    }
}

/// Subscribes a handshake backend to each resource, all at once (one that never answers
/// holds up none of the others): those it took, and the error of a subscription lost with
/// its connection.
async fn subscribe(c: &Arc<Client>, uris: &[String]) -> (Vec<String>, Option<janus_client::Error>) {
    let mut asked = tokio::task::JoinSet::new();
    for u in uris {
        let (c, u) = (Arc::clone(c), u.clone());
        asked.spawn(async move {
            let members = janus_client::members_of(&[("uri", &u)]);
            let opts = CallOptions {
                timeout: Some(SUBSCRIBE_TIMEOUT),
                ..CallOptions::default()
            };
            let r = c.request("resources/subscribe", &members, opts).await;
            (u, r)
        });
    }
    let (mut took, mut lost) = (Vec::with_capacity(uris.len()), None);
    while let Some(Ok((u, r))) = asked.join_next().await {
        match r {
            Ok(_) => took.push(u),
            Err(janus_client::Error::Rejected(r)) => {
                // NB. Refused for good (not asked again on this connection).
                tracing::warn!(uri = %u, "the backend refused resources/subscribe: {r}");
                took.push(u);
            }
            Err(e) => {
                tracing::debug!(uri = %u, error = %e, "resources/subscribe failed");
                lost.get_or_insert(e);
            }
        }
    }
    (took, lost)
}

/// How long a subscription waits for the backend's answer (then it is asked again).
const SUBSCRIBE_TIMEOUT: Duration = Duration::from_secs(10);
