//! The book of requests waiting for their answers, and how their timeouts fire.
//!
//! A tokio timer per request cost more than the rest of a small call's client side (its
//! registration in the timer wheel, its removal, the `select!` around it). The book keeps
//! each request's deadline instead, and the earliest deadline it has seen since its last
//! sweep: one task per connection sleeps until that instant, then times out what is due and
//! looks for the next. With one timeout for all (the usual case) the deadlines come in
//! order, so a sweep happens about once per timeout period, whatever the request rate.

use super::{Want, lock};
use crate::error::Error;
use foldhash::fast::FixedState;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, oneshot};

/// A request waiting for its answer.
pub(super) struct Waiter {
    pub(super) tx: oneshot::Sender<Result<super::Reply, Error>>,
    pub(super) want: Want,
    /// When it times out.
    pub(super) deadline: Instant,
    /// Its timeout, as the error says it.
    pub(super) timeout: Duration,
    /// Its own callbacks, for the server's requests made for it.
    pub(super) callbacks: Option<crate::input::Callbacks>,
    /// It was sent in a 2026-07-28 revision: a `resultType` of its answer counts (a
    /// handshake revision has none, and a member of that name means nothing).
    pub(super) modern: bool,
    /// Its cancel handle, whose [`super::Paused`] guards hold its timeout.
    pub(super) cancel: Option<super::Cancel>,
}

impl Waiter {
    fn paused(&self) -> bool {
        self.cancel.as_ref().is_some_and(super::Cancel::is_paused)
    }
}

struct Entries {
    map: HashMap<i64, Waiter, FixedState>,
    /// No deadline in `map` is earlier (a removed request may have left it behind).
    due: Option<Instant>,
}

/// The requests waiting, by id.
pub(super) struct Book {
    entries: Mutex<Entries>,
    /// Wakes the sweeper when a deadline earlier than the one it sleeps to comes in.
    wake: Arc<Notify>,
}

/// The instant `timeout` from now, or one so far off it never comes.
pub(super) fn deadline(timeout: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(timeout)
        .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 3600))
}

impl Book {
    pub(super) fn new() -> Self {
        Self {
            entries: Mutex::new(Entries {
                map: HashMap::with_hasher(FixedState::default()),
                due: None,
            }),
            wake: Arc::new(Notify::new()),
        }
    }

    /// The own callbacks of request `id`, while it waits.
    pub(super) fn callbacks_of(&self, id: i64) -> Option<crate::input::Callbacks> {
        lock(&self.entries)
            .map
            .get(&id)
            .and_then(|w| w.callbacks.clone())
    }

    pub(super) fn insert(&self, id: i64, w: Waiter) {
        let mut e = lock(&self.entries);
        let earlier = e.due.is_none_or(|d| w.deadline < d);
        if earlier {
            e.due = Some(w.deadline);
        }
        e.map.insert(id, w);
        drop(e);
        if earlier {
            self.wake.notify_one();
        }
    }

    pub(super) fn remove(&self, id: i64) -> Option<Waiter> {
        lock(&self.entries).map.remove(&id)
    }

    pub(super) fn reserve(&self, n: usize) {
        lock(&self.entries).map.reserve(n);
    }

    /// Every request waiting, taken out.
    pub(super) fn drain(&self) -> Vec<Waiter> {
        let mut e = lock(&self.entries);
        e.due = None;
        e.map.drain().map(|(_, w)| w).collect()
    }

    /// The requests whose deadline is `now` or past, taken out; the next deadline noted.
    fn expire(&self, now: Instant) -> Vec<(i64, Waiter)> {
        let mut e = lock(&self.entries);
        if e.due.is_none_or(|d| d > now) {
            return Vec::new();
        }
        // NB. A request whose timeout is held gets its whole timeout again from now: held
        // past it, it has that long once the guard is gone.
        for w in e.map.values_mut() {
            if w.deadline <= now && w.paused() {
                w.deadline = deadline(w.timeout);
            }
        }
        let expired = e.map.extract_if(|_, w| w.deadline <= now).collect();
        e.due = e.map.values().map(|w| w.deadline).min();
        expired
    }

    fn due(&self) -> Option<Instant> {
        lock(&self.entries).due
    }

    /// Lets the sweeper see that its connection is gone.
    pub(super) fn wake_sweeper(&self) {
        self.wake.notify_one();
    }
}

/// What a sweep does with a request that timed out (cancel it on the wire).
pub(super) trait Expired: Send + Sync + 'static {
    /// The book.
    fn book(&self) -> &Book;
    /// Tells the server that request `id` is no longer waited for.
    fn cancel_on_wire(&self, id: i64, reason: &str);
}

/// Times out the requests of `owner`'s book as their deadlines pass, until `owner` is gone.
pub(super) async fn sweep<T: Expired>(owner: Weak<T>) {
    let Some(wake) = owner.upgrade().map(|o| Arc::clone(&o.book().wake)) else {
        return;
    };
    loop {
        let Some(due) = owner.upgrade().map(|o| o.book().due()) else {
            return;
        };
        match due {
            None => wake.notified().await,
            Some(d) => {
                tokio::select! {
                    () = tokio::time::sleep_until(d.into()) => {}
                    () = wake.notified() => {}
                }
            }
        }
        let Some(o) = owner.upgrade() else { return };
        for (id, w) in o.book().expire(Instant::now()) {
            o.cancel_on_wire(id, "The request timed out");
            let _ = w.tx.send(Err(Error::Timeout(w.timeout)));
        }
    }
}

/// The id of an answer that could not be parsed, when its first members say it plainly: an
/// integer `id` before any nested value, followed by `result` or `error` (as most servers
/// write them). `None` otherwise: a request of the server's has an id of the server's.
pub(super) fn plain_answer_id(line: &[u8]) -> Option<i64> {
    let head = &line[..line.len().min(256)];
    let head = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    let at = head.find("\"id\"")?;
    let before = head[..at].trim_start().strip_prefix('{')?;
    if before.contains(['{', '[']) {
        return None;
    }
    let value = head[at + 4..].trim_start().strip_prefix(':')?.trim_start();
    let end = value
        .find(|c: char| !c.is_ascii_digit() && c != '-')
        .unwrap_or(value.len());
    let id = value[..end].parse().ok()?;
    let next = value[end..].trim_start().strip_prefix(',')?.trim_start();
    (next.starts_with("\"result\"") || next.starts_with("\"error\"")).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::plain_answer_id;

    #[test]
    fn an_unreadable_answer_s_id_is_taken_only_when_it_is_plain() {
        for (line, want) in [
            (r#"{"jsonrpc":"2.0","id":7,"result":{"d":[[[["#, Some(7)),
            (r#"{ "id" : -3 , "error":{"code":1}"#, Some(-3)),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":[[["#,
                None,
            ),
            (r#"{"result":{"x":1},"jsonrpc":"2.0","id":7}"#, None),
            (r#"{"jsonrpc":"2.0","id":"s","result":{}"#, None),
            (r#"{"jsonrpc":"2.0","result":{"id":7,"result":1}"#, None),
            ("not json", None),
        ] {
            assert_eq!(plain_answer_id(line.as_bytes()), want, "{line}");
        }
        let mut bad = br#"{"jsonrpc":"2.0","id":12,"result":{"text":""#.to_vec();
        bad.extend_from_slice(&[0xff, 0xfe]);
        assert_eq!(plain_answer_id(&bad), Some(12));
    }
}
