//! Resumable SSE streams of legacy sessions (2025-03-26 to 2025-11-25).
//!
//! Every event of a session's streams (a POST's response stream, the `GET` stream) carries
//! an id `<stream>-<seq>`: the stream's number in the session, then the event's place in it.
//! Each stream keeps what it sent in a bounded [`Log`], and writes it to the connection that
//! reads it now, if any. A client whose connection broke (or that the server let go: a slow
//! reader, or a handler's [`crate::Ctx::close_stream`]) sends `GET` with `Last-Event-ID`,
//! and gets the events after that id, then the rest of the stream as it comes; never the
//! events of another stream. When a stream keeps more than its bound, the oldest progress
//! and log notifications are let go first: an answer or a server request is only let go
//! when nothing else is left, and an ended stream too big for the session's budget keeps
//! only those (so a client that fell behind a tool's flood of progress still gets its answer
//! by resuming). A stream of a
//! 2025-11-25 session starts with a priming event
//! (an id, a `retry` and empty data, SEP-1699), so its client can resume even before its
//! first message. 2026-07-28 streams are not resumable, as that revision says.

use bytes::{Bytes, BytesMut};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc;

/// How long a client waits before it reconnects (the `retry` field), in milliseconds.
pub(super) const RETRY_MS: u64 = 1000;
/// The most events one stream keeps.
const KEPT_EVENTS: usize = 1024;
/// The most bytes one stream keeps.
const KEPT_BYTES: usize = 4 << 20;
/// The most bytes a session keeps of its ended streams (the newest are kept).
const ENDED_BYTES: usize = 256 << 10;
/// The most ended streams a session keeps.
const ENDED_STREAMS: usize = 32;

/// The note a handler's [`crate::Ctx::close_stream`] leaves on its POST's channel: it ends
/// the connection there, not the stream. No line the connection writes is empty.
pub(super) const CLOSE: Bytes = Bytes::new();

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every update under these locks is a few assignments: a poisoned lock is taken over.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What one stream sent, and where it goes now.
#[derive(Debug)]
pub(super) struct Log {
    stream: u64,
    /// The place of the next event (the priming event is 0).
    next: u64,
    /// The events kept: their place, their text, and whether they may be let go before
    /// the others (a progress or log notification).
    kept: VecDeque<(u64, Bytes, bool)>,
    bytes: usize,
    /// Every event after this place is kept.
    floor: u64,
    /// The connection that reads the stream now.
    live: Option<mpsc::Sender<Bytes>>,
    /// True once the stream wrote its last event.
    ended: bool,
}

/// A stream's log, shared by its writer, the session and the `GET` that resumes it.
pub(super) type Shared = Arc<Mutex<Log>>;

impl Log {
    /// The priming event: an id to resume from, the time to wait, and no data.
    pub(super) fn priming(&self) -> Bytes {
        Bytes::from(format!(
            "id: {}-0\nretry: {RETRY_MS}\ndata: \n\n",
            self.stream
        ))
    }

    /// Keeps `event` with the next id, and writes it to the connection that reads the
    /// stream. `event` is an SSE event without an id (`event: ...`), or a line to send as
    /// one. A connection that is gone or full is let go: its client resumes from what it
    /// read.
    pub(super) fn write(&mut self, event: &[u8]) {
        let seq = self.next;
        self.next += 1;
        let id = format!("id: {}-{seq}\n", self.stream);
        let mut e = BytesMut::with_capacity(id.len() + event.len() + 24);
        e.extend_from_slice(id.as_bytes());
        if event.starts_with(b"event:") {
            e.extend_from_slice(event);
        } else {
            e.extend_from_slice(b"event: message\ndata: ");
            e.extend_from_slice(event.strip_suffix(b"\n").unwrap_or(event));
            e.extend_from_slice(b"\n\n");
        }
        let e = e.freeze();
        self.bytes += e.len();
        self.kept.push_back((seq, e.clone(), droppable(event)));
        while self.kept.len() > KEPT_EVENTS || self.bytes > KEPT_BYTES {
            // NB. Answers and server requests are few beside notifications: the first one
            // that may go is near the front.
            if let Some(i) = self.kept.iter().position(|k| k.2)
                && let Some((_, old, _)) = self.kept.remove(i)
            {
                self.bytes -= old.len();
                continue;
            }
            let Some((s, old, _)) = self.kept.pop_front() else {
                break;
            };
            self.bytes -= old.len();
            self.floor = s;
        }
        if let Some(live) = &self.live
            && live.try_send(e).is_err()
        {
            self.live = None;
        }
    }

    /// Ends the connection that reads the stream (after a `retry`), not the stream: what
    /// follows is kept for the client's `GET` with `Last-Event-ID`.
    pub(super) fn let_go(&mut self) {
        if let Some(live) = self.live.take() {
            let _ = live.try_send(Bytes::from(format!("retry: {RETRY_MS}\n\n")));
        }
    }

    /// The stream wrote its last event: the connection that reads it ends after it.
    pub(super) fn end(&mut self) {
        self.ended = true;
        self.live = None;
    }

    /// Lets go of the progress and log notifications it keeps: its answers and server
    /// requests are left.
    fn compact(&mut self) {
        self.kept.retain(|k| !k.2);
        self.bytes = self.kept.iter().map(|k| k.1.len()).sum();
    }

    /// True while a connection reads the stream.
    pub(super) fn is_read(&self) -> bool {
        self.live.as_ref().is_some_and(|l| !l.is_closed())
    }

    /// Resumes the stream after event `seq` on a new connection: the events after it, then
    /// (unless the stream ended) what follows. The connection that read it before is let
    /// go. `None` when some of those events are no longer kept.
    pub(super) fn resume(&mut self, seq: u64, room: usize) -> Option<mpsc::Receiver<Bytes>> {
        if seq < self.floor || seq >= self.next {
            return None;
        }
        let after: Vec<Bytes> = self
            .kept
            .iter()
            .filter(|(s, _, _)| *s > seq)
            .map(|(_, e, _)| e.clone())
            .collect();
        let (tx, rx) = mpsc::channel(room + after.len());
        for e in after {
            let _ = tx.try_send(e);
        }
        self.live = (!self.ended).then_some(tx);
        Some(rx)
    }
}

/// Whether an event (an SSE event or a line, as [`Log::write`] takes it) is a progress or
/// log notification: one the stream may let go before its answers.
fn droppable(event: &[u8]) -> bool {
    let head = &event[..event.len().min(160)];
    memchr::memmem::find(head, br#""method":"notifications/progress""#).is_some()
        || memchr::memmem::find(head, br#""method":"notifications/message""#).is_some()
}

/// The logs of one session's streams.
#[derive(Debug, Default)]
pub(super) struct Logs {
    next: u64,
    open: HashMap<u64, Shared>,
    /// Ended streams, oldest first, with the bytes each keeps.
    ended: VecDeque<(u64, usize)>,
    ended_bytes: usize,
}

impl Logs {
    /// A new stream, read by `live`.
    pub(super) fn open(&mut self, live: mpsc::Sender<Bytes>) -> Shared {
        self.next += 1;
        let log = Arc::new(Mutex::new(Log {
            stream: self.next,
            next: 1,
            kept: VecDeque::new(),
            bytes: 0,
            floor: 0,
            live: Some(live),
            ended: false,
        }));
        self.open.insert(self.next, Arc::clone(&log));
        log
    }

    /// Stream `log` ended: it stays resumable while the session's budget for ended streams
    /// holds it (a stream that would not fit keeps only its answers and server requests).
    pub(super) fn ended(&mut self, log: &Shared) {
        let (stream, bytes) = {
            let mut l = lock(log);
            l.end();
            if self.ended_bytes + l.bytes > ENDED_BYTES {
                l.compact();
            }
            (l.stream, l.bytes)
        };
        self.ended.push_back((stream, bytes));
        self.ended_bytes += bytes;
        while self.ended.len() > ENDED_STREAMS || self.ended_bytes > ENDED_BYTES {
            let Some((s, b)) = self.ended.pop_front() else {
                break;
            };
            self.ended_bytes -= b;
            self.open.remove(&s);
        }
    }

    /// The stream an event id names, and the event's place in it.
    pub(super) fn find(&self, event_id: &str) -> Option<(Shared, u64)> {
        let (stream, seq) = event_id.trim().split_once('-')?;
        let stream: u64 = stream.parse().ok()?;
        let seq: u64 = seq.parse().ok()?;
        self.open.get(&stream).map(|l| (Arc::clone(l), seq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(b: &Bytes) -> String {
        String::from_utf8_lossy(b).into_owned()
    }

    #[test]
    fn a_stream_resumes_after_the_last_event_its_client_read() {
        let mut logs = Logs::default();
        let (tx, mut first) = mpsc::channel(8);
        let log = logs.open(tx);
        let mut l = lock(&log);
        assert!(text(&l.priming()).starts_with("id: 1-0\nretry: "));
        l.write(b"event: message\ndata: {\"a\":1}\n\n");
        l.write(b"{\"a\":2}\n");
        assert_eq!(
            text(&first.try_recv().unwrap()),
            "id: 1-1\nevent: message\ndata: {\"a\":1}\n\n"
        );
        assert_eq!(
            text(&first.try_recv().unwrap()),
            "id: 1-2\nevent: message\ndata: {\"a\":2}\n\n"
        );
        l.let_go();
        assert!(!l.is_read());
        l.write(b"event: message\ndata: {\"a\":3}\n\n");
        drop(l);
        let (found, seq) = logs.find("1-1").unwrap();
        let mut again = lock(&found).resume(seq, 8).unwrap();
        let got: Vec<String> = std::iter::from_fn(|| again.try_recv().ok())
            .map(|b| text(&b))
            .collect();
        assert_eq!(got.len(), 2);
        assert!(
            got[0].starts_with("id: 1-2\n") && got[1].starts_with("id: 1-3\n"),
            "{got:?}"
        );
        // What follows goes to the new connection; the stream's end ends it.
        lock(&found).write(b"event: message\ndata: {}\n\n");
        assert!(text(&again.try_recv().unwrap()).starts_with("id: 1-4\n"));
        logs.ended(&found);
        assert!(again.try_recv().is_err());
        // An ended stream still replays; ids of no stream, or not yet sent, do not.
        assert!(lock(&found).resume(0, 1).is_some());
        assert!(logs.find("9-1").is_none() && logs.find("x").is_none());
        assert!(lock(&found).resume(99, 1).is_none());
    }

    #[test]
    fn what_a_stream_no_longer_keeps_cannot_be_resumed() {
        let mut logs = Logs::default();
        let (tx, _rx) = mpsc::channel(1);
        let log = logs.open(tx);
        let mut l = lock(&log);
        for _ in 0..KEPT_EVENTS + 10 {
            l.write(b"event: message\ndata: {}\n\n");
        }
        assert!(l.resume(5, 1).is_none());
        assert!(l.resume(20, 1).is_some());
    }

    #[test]
    fn a_flood_of_progress_lets_notifications_go_never_the_answer() {
        let mut logs = Logs::default();
        let (tx, _rx) = mpsc::channel(1);
        let log = logs.open(tx);
        let note = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":1,"progress":1,"message":"{}"}}}}"#,
            "x".repeat(1000)
        );
        let mut l = lock(&log);
        l.write(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"roots/list\"}\n");
        for _ in 0..20_000 {
            l.write(note.as_bytes());
        }
        l.write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
        assert!(l.kept.len() <= KEPT_EVENTS && l.bytes <= KEPT_BYTES);
        // A client that read only the first events resumes: the server request it read is
        // not sent again; the notifications still kept, then the answer, are.
        let mut again = l.resume(1, 8).unwrap();
        let got: Vec<String> = std::iter::from_fn(|| again.try_recv().ok())
            .map(|b| text(&b))
            .collect();
        assert!(got.iter().all(|e| !e.contains("roots/list")));
        assert!(
            got.last().unwrap().contains(r#""result""#),
            "{:?}",
            got.last()
        );
        drop(l);
        // Ended and too big for the session's budget, it keeps its answer and the request.
        logs.ended(&log);
        let (found, seq) = logs.find("1-0").expect("still resumable");
        let mut again = lock(&found).resume(seq, 8).unwrap();
        let got: Vec<String> = std::iter::from_fn(|| again.try_recv().ok())
            .map(|b| text(&b))
            .collect();
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].contains("roots/list") && got[1].contains(r#""result""#));
    }

    #[test]
    fn a_session_keeps_its_newest_ended_streams() {
        let mut logs = Logs::default();
        for _ in 0..ENDED_STREAMS + 5 {
            let (tx, _rx) = mpsc::channel(1);
            let log = logs.open(tx);
            logs.ended(&log);
        }
        assert!(logs.find("1-0").is_none());
        assert!(logs.find(&format!("{}-0", ENDED_STREAMS + 5)).is_some());
    }
}
