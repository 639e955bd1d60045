//! The pub/sub side: [`RedisBus`], the subscriber that hears the bus and the ends of tasks,
//! and the waits for a task's end it wakes.

use crate::Inner;
use futures_util::StreamExt as _;
use janus_server_core::store::{Bus, Event, Hear};
use redis::aio::ConnectionManager;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;
use tokio::sync::{Notify, mpsc};

/// The most bus events waiting to be sent to Redis; more are dropped (with a warning), as a
/// bus delivers at most once.
const QUEUE: usize = 4096;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the subscriber shares with the store and the bus.
pub(crate) struct Shared {
    /// This process on the bus: its own events, heard back from Redis, are skipped (it
    /// heard them when it published them).
    instance: String,
    /// The waits for each task's end.
    waiters: Mutex<HashMap<String, Arc<Notify>>>,
    /// Where this process hears the bus.
    hears: Mutex<Vec<Hear>>,
    subscribed: AtomicBool,
    /// Told each time the subscription is (again) up.
    up: Notify,
    /// Events for the publisher to send.
    queue: OnceLock<mpsc::Sender<String>>,
}

impl Shared {
    pub(crate) fn new() -> Self {
        let mut bits = [0u8; 8];
        getrandom::fill(&mut bits).expect("the operating system gives random bytes");
        Self {
            instance: bits.iter().map(|b| format!("{b:02x}")).collect(),
            waiters: Mutex::default(),
            hears: Mutex::default(),
            subscribed: AtomicBool::new(false),
            up: Notify::new(),
            queue: OnceLock::new(),
        }
    }

    pub(crate) fn set_queue(&self, queue: mpsc::Sender<String>) {
        let _ = self.queue.set(queue);
    }

    pub(crate) fn subscribed(&self) -> bool {
        self.subscribed.load(Ordering::Relaxed)
    }

    /// Resolves once the subscription is up.
    pub(crate) async fn until_subscribed(&self) {
        loop {
            let up = self.up.notified();
            tokio::pin!(up);
            up.as_mut().enable();
            if self.subscribed() {
                return;
            }
            up.await;
        }
    }

    /// A wait for the end of task `id`, woken when its end is heard.
    pub(crate) fn waiter(self: &Arc<Self>, id: &str) -> Waiter {
        let notify = Arc::clone(lock(&self.waiters).entry(id.to_owned()).or_default());
        Waiter {
            shared: Arc::clone(self),
            id: id.to_owned(),
            notify,
        }
    }

    fn wake(&self, id: &str) {
        if let Some(n) = lock(&self.waiters).get(id) {
            n.notify_waiters();
        }
    }

    fn wake_all(&self) {
        for n in lock(&self.waiters).values() {
            n.notify_waiters();
        }
    }

    fn hear(&self, event: &Event) {
        let hears: Vec<Hear> = lock(&self.hears).clone();
        for h in hears {
            h(event);
        }
    }
}

/// A wait for a task's end ([`Shared::waiter`]); forgotten when the last wait for the task
/// goes.
pub(crate) struct Waiter {
    shared: Arc<Shared>,
    id: String,
    notify: Arc<Notify>,
}

impl Waiter {
    pub(crate) fn notified(&self) -> tokio::sync::futures::Notified<'_> {
        self.notify.notified()
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        let mut waiters = lock(&self.shared.waiters);
        // NB. The map holds one count and this wait another: none else waits.
        if Arc::strong_count(&self.notify) == 2 {
            waiters.remove(&self.id);
        }
    }
}

/// The bus of replicas that share one Redis ([`crate::Redis::bus`]): an event published here
/// is heard here at once and sent on the deployment's channel for every other replica.
#[derive(Clone)]
pub struct RedisBus {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBus")
            .field("channel", &self.inner.bus_channel)
            .finish_non_exhaustive()
    }
}

impl RedisBus {
    pub(crate) const fn new(inner: Arc<Inner>) -> Self {
        Self { inner }
    }
}

impl Bus for RedisBus {
    fn publish(&self, event: Event) {
        let shared = &self.inner.shared;
        shared.hear(&event);
        let text = match &event {
            Event::ToolsChanged => format!("{} tools", shared.instance),
            Event::PromptsChanged => format!("{} prompts", shared.instance),
            Event::ResourcesChanged => format!("{} resources", shared.instance),
            Event::ResourceUpdated(uri) => format!("{} updated {uri}", shared.instance),
        };
        if let Some(q) = shared.queue.get()
            && q.try_send(text).is_err()
        {
            tracing::warn!("the Redis bus is behind: an event is not sent to the other replicas");
        }
    }

    fn subscribe(&self, hear: Hear) {
        lock(&self.inner.shared.hears).push(hear);
    }
}

/// An event as the bus channel carries it, and who sent it.
fn parse_event(text: &str) -> Option<(&str, Event)> {
    let (instance, rest) = text.split_once(' ')?;
    let event = match rest.split_once(' ') {
        Some(("updated", uri)) => Event::ResourceUpdated(uri.to_owned()),
        None if rest == "tools" => Event::ToolsChanged,
        None if rest == "prompts" => Event::PromptsChanged,
        None if rest == "resources" => Event::ResourcesChanged,
        _ => return None,
    };
    Some((instance, event))
}

/// The task that sends the bus's events to Redis, and its queue.
pub(crate) fn publisher(
    mut conn: ConnectionManager,
    channel: String,
) -> (tokio::task::JoinHandle<()>, mpsc::Sender<String>) {
    let (tx, mut rx) = mpsc::channel::<String>(QUEUE);
    let task = tokio::spawn(async move {
        while let Some(text) = rx.recv().await {
            let sent: redis::RedisResult<i64> = redis::cmd("PUBLISH")
                .arg(&channel)
                .arg(&text)
                .query_async(&mut conn)
                .await;
            if let Err(e) = sent {
                tracing::warn!(error = %e, "a bus event is not sent to the other replicas");
            }
        }
    });
    (task, tx)
}

/// Hears the deployment's channels for as long as the process runs: subscribes, hands out
/// what it hears, and subscribes again (with backoff) when the connection drops. Each time
/// it is subscribed again, every wait for a task's end looks at its task, for ends it missed.
pub(crate) async fn subscribe(
    client: redis::Client,
    shared: Arc<Shared>,
    bus_channel: String,
    ended_channel: String,
) {
    let mut delay = Duration::from_millis(100);
    loop {
        match client.get_async_pubsub().await {
            Ok(mut pubsub) => {
                let ok = pubsub.subscribe(&bus_channel).await.is_ok()
                    && pubsub.subscribe(&ended_channel).await.is_ok();
                if ok {
                    delay = Duration::from_millis(100);
                    shared.subscribed.store(true, Ordering::Relaxed);
                    shared.up.notify_waiters();
                    shared.wake_all();
                    let mut messages = pubsub.into_on_message();
                    while let Some(msg) = messages.next().await {
                        let text = String::from_utf8_lossy(msg.get_payload_bytes());
                        if msg.get_channel_name() == ended_channel {
                            shared.wake(&text);
                        } else if let Some((from, event)) = parse_event(&text)
                            && from != shared.instance
                        {
                            shared.hear(&event);
                        }
                    }
                    shared.subscribed.store(false, Ordering::Relaxed);
                    tracing::warn!("the subscription to Redis dropped; subscribing again");
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot subscribe to Redis; trying again"),
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(5));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_events_read_back_as_written() {
        assert_eq!(parse_event("ab tools"), Some(("ab", Event::ToolsChanged)));
        assert_eq!(
            parse_event("ab prompts"),
            Some(("ab", Event::PromptsChanged))
        );
        assert_eq!(
            parse_event("ab resources"),
            Some(("ab", Event::ResourcesChanged))
        );
        assert_eq!(
            parse_event("ab updated file:///a b"),
            Some(("ab", Event::ResourceUpdated("file:///a b".into())))
        );
        assert_eq!(parse_event("ab nonsense"), None);
        assert_eq!(parse_event("ab"), None);
    }
}
