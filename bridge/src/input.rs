//! Input the backend asks for during a forwarded call (elicitation, sampling, roots): put to
//! the front's client as the server core asks any input (`input_required` with a
//! `requestState` in 2026-07-28, real server-to-client requests on a handshake session),
//! and the answer given back to the backend's request, which waited all along.
//!
//! The backend's call stays in flight between the front request that was answered
//! `input_required` and its retry: it is parked under a token that the front's sealed
//! `requestState` carries, and resumed by the retry. A parked call whose retry never comes
//! is ended when the state would expire: the backend's request for input gets an error.
//!
//! A legacy backend's request for input names no request of its own. On streamable HTTP the
//! response stream it comes on is its call's, and the call answers it. On stdio nothing
//! ties it to the call it is for: the bridge gives it to the one call in flight that may
//! ask; with several in flight, to the newest of them when they all came from one front
//! client (one stdio or TCP connection, one handshake session), preferring one whose
//! request declared the capability the question needs. The answer goes to the backend's
//! question whichever of that client's calls it was put to. Calls of several front clients
//! in flight: the question is refused (`-32603`, saying why), never put to a client it may
//! not be for.
//!
//! A backend that asks several things at once (its requests in flight together) has them
//! put to the front's client in one round, under the keys `input`, `input_2`, ...; a retry
//! that answers only some of them gets the others again, in a new round, while the answers
//! it gave go on to the backend.

use janus_client::{CallResult, Cancel, Error, Forwarded, LogMessage, Progress, Rejection};
use janus_server_core::PeerKey;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// How long a parked call waits for the retry that resumes it: the front's `requestState`
/// lifetime (the server core's default).
pub(crate) const PARKED_TTL: Duration = Duration::from_secs(600);

/// A request of the backend's for input, and where its answer goes.
pub(crate) struct Question {
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub(crate) method: &'static str,
    /// Its params, as sent.
    pub(crate) params: String,
    /// The answer (the result's JSON text), or the error the backend gets.
    pub(crate) answer: oneshot::Sender<Result<String, Rejection>>,
}

/// What the backend sends a call in flight: a request for input, or a log message.
pub(crate) enum Event {
    Ask(Question),
    Log(LogMessage),
}

/// A backend call in flight, as the forwarding handler drives it.
pub(crate) struct InFlight {
    /// The backend call itself, polled by the front request that drives it (not a task of
    /// its own: dropping it ends it, and a parked one waits, its answer kept, until resumed).
    pub(crate) call: BackendCall,
    pub(crate) questions: Arc<Inbox>,
    pub(crate) progress: Option<mpsc::UnboundedReceiver<Progress>>,
    pub(crate) cancel: Cancel,
    /// Its place among the calls that may ask: given back when it is dropped.
    pub(crate) _asker: Asker,
    /// How many questions the backend asked it so far: the next one's key follows them (the
    /// server core serves a retry with every earlier round's answers, under their keys, so
    /// a key is never used twice in one call).
    pub(crate) asked: usize,
    /// The last progress the front heard of this call: a front request run again after a
    /// round (a handshake session's) has a context of its own, and the backend, running its
    /// work again, starts its progress over; the front's never goes back.
    pub(crate) progressed: Option<f64>,
}

/// Where the backend's questions and log messages for one call wait for it: a small queue
/// and the waker of the one call that reads it, made with the call (a channel would cost a
/// block of slots a call, most of them never used; a `Notify`, a waiter list to join and
/// leave on every poll).
#[derive(Default)]
pub(crate) struct Inbox {
    events: Mutex<Queue>,
}

/// An inbox's events, and who waits for the next.
#[derive(Default)]
struct Queue {
    events: std::collections::VecDeque<Event>,
    /// The reader's waker while it waits (one reader at a time: the call, or the retry that
    /// resumed it).
    waiting: Option<std::task::Waker>,
}

impl Inbox {
    /// Queues `e` for the call.
    fn send(&self, e: Event) {
        let waiting = {
            let mut q = lock(&self.events);
            q.events.push_back(e);
            q.waiting.take()
        };
        if let Some(w) = waiting {
            w.wake();
        }
    }

    /// Puts the backend's question `method` (with `params`) to the call, and waits for the
    /// answer the call's front request gets for it.
    pub(crate) async fn ask(
        &self,
        method: &'static str,
        params: String,
    ) -> Result<String, Rejection> {
        let (answer, answered) = oneshot::channel();
        self.send(Event::Ask(Question {
            method,
            params,
            answer,
        }));
        answered.await.unwrap_or_else(|_| {
            Err(refused(
                "the client did not answer in time (its requestState expired)",
            ))
        })
    }

    /// The next event, at once when one waits.
    pub(crate) fn try_recv(&self) -> Option<Event> {
        lock(&self.events).events.pop_front()
    }

    /// The next event. Cancel-safe: an event leaves the queue only when it is returned.
    pub(crate) async fn recv(&self) -> Event {
        std::future::poll_fn(|cx| {
            let mut q = lock(&self.events);
            if let Some(e) = q.events.pop_front() {
                return std::task::Poll::Ready(e);
            }
            // NB. Checked and registered under the one lock: a send cannot fall between.
            if !q.waiting.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                q.waiting = Some(cx.waker().clone());
            }
            std::task::Poll::Pending
        })
        .await
    }
}

/// What a forwarded request's backend call answers.
pub(crate) enum Answer {
    /// `tools/call`.
    Call(CallResult),
    /// `tools/call`, its blocks as the backend wrote them (for a front client whose
    /// revision has every block type the backend's has).
    Passed(janus_model::result::ToolResult),
    /// `prompts/get`.
    Prompt(janus_model::prompt::PromptMessages),
    /// `resources/read`.
    Read(Vec<janus_model::resource::ResourceContents>),
}

/// A backend call in flight.
pub(crate) type BackendCall =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Answer, Error>> + Send>>;

/// One question of a parked call, under the input key the front's client answers.
pub(crate) struct Asked {
    /// The key of `inputRequests` it was put under.
    pub(crate) key: String,
    /// The backend's question (its answer waits here).
    pub(crate) question: Question,
}

/// A call parked for its retry, and the questions it waits on.
struct Parked {
    flight: InFlight,
    asked: Vec<Asked>,
    /// While parked for a 2026-07-28 front, whose request ended with the round (its retry is
    /// a request of its own, which may come when a person has answered): the call's timeout
    /// is held, and the parked time ([`PARKED_TTL`]) bounds the wait instead. A handshake
    /// front's request stays open while its client is asked: its timeout runs on.
    _paused: Option<janus_client::Paused>,
}

/// A parked call resumed by a retry: its answers given to the backend, but for the ones
/// the retry left out, which are asked again.
pub(crate) struct Resumed {
    pub(crate) flight: InFlight,
    /// The questions the retry did not answer.
    pub(crate) unanswered: Vec<Asked>,
}

/// The calls in flight that may ask, by their number (one in and one out a call: a fast
/// hash, the numbers being the router's own).
type Askers<P = PeerKey> = HashMap<u64, Entry<P>, foldhash::fast::RandomState>;

/// A call in flight that may ask, of the front client `P` names.
struct Entry<P = PeerKey> {
    inbox: Arc<Inbox>,
    /// It waits for the answers to its questions: another call running takes the questions
    /// that come meanwhile.
    parked: bool,
    /// The front client it came from.
    peer: P,
    /// What its front request said of its client (the capabilities it declared).
    said: Arc<Forwarded>,
}

impl<P> Entry<P> {
    /// Its front request declared the capability `method` needs.
    fn may_ask(&self, method: &str) -> bool {
        let capability = match method {
            "sampling/createMessage" => "sampling",
            "roots/list" => "roots",
            _ => "elicitation",
        };
        self.said
            .capabilities
            .as_deref()
            .and_then(|c| janus_codec::RawJson::parse(c).ok())
            .and_then(|c| c.get(capability))
            .is_some_and(|c| c.is_object())
    }
}

/// The call the backend's `method` (with no request named) is for: the one call that may
/// ask, or the newest of several that all came from one front client (one that declared the
/// capability `method` needs, when there is one). A call running is taken before a parked
/// one. `Err` with the number of calls when they came from several front clients.
fn whose<P: Eq>(askers: &Askers<P>, method: Option<&str>) -> Result<Arc<Inbox>, usize> {
    let running = askers.values().filter(|a| !a.parked).count();
    let candidates = || askers.iter().filter(|(_, a)| running == 0 || !a.parked);
    let mut all = candidates();
    let Some(first) = all.next() else {
        return Err(0);
    };
    if all.any(|(_, a)| a.peer != first.1.peer) {
        return Err(candidates().count());
    }
    // NB. The newest that may ask, else the newest.
    let (_, chosen) = candidates()
        .max_by_key(|(id, a)| (method.is_some_and(|m| a.may_ask(m)), **id))
        .unwrap_or(first);
    Ok(Arc::clone(&chosen.inbox))
}

/// The calls in flight that may ask, and the parked ones.
#[derive(Default)]
pub(crate) struct Router {
    next: AtomicU64,
    /// The calls in flight that may ask.
    askers: Mutex<Askers>,
    parked: Mutex<HashMap<String, Parked>>,
    /// The backend's log messages on their way from the client's reader.
    heard: Mutex<Option<mpsc::UnboundedReceiver<LogMessage>>>,
}

/// A call's place among those that may ask.
pub(crate) struct Asker {
    router: Arc<Router>,
    id: u64,
}

impl Drop for Asker {
    fn drop(&mut self) {
        lock(&self.router.askers).remove(&self.id);
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn refused(message: &str) -> Rejection {
    Rejection {
        code: i64::from(janus_codec::INTERNAL_ERROR),
        message: message.to_owned(),
        data: None,
    }
}

impl Router {
    /// A router of the log messages that come on `heard` (the client's log sink).
    pub(crate) fn hearing(heard: mpsc::UnboundedReceiver<LogMessage>) -> Self {
        Self {
            heard: Mutex::new(Some(heard)),
            ..Self::default()
        }
    }

    /// The next log message of the backend's, for the task that routes them.
    pub(crate) fn poll_log(
        &self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<LogMessage>> {
        match lock(&self.heard).as_mut() {
            Some(rx) => rx.poll_recv(cx),
            None => std::task::Poll::Ready(None),
        }
    }

    /// Routes the log messages already heard: a call whose answer came takes the ones the
    /// backend sent before it (the client's reader queued them first) without waiting for
    /// the routing task's turn.
    pub(crate) fn route_heard(&self) {
        loop {
            let next = lock(&self.heard).as_mut().and_then(|rx| rx.try_recv().ok());
            match next {
                Some(m) => self.log(m),
                None => return,
            }
        }
    }

    /// A new call that may ask, of the front client `peer` (whose request said `said`): its
    /// place, and where its questions come.
    pub(crate) fn register(
        self: &Arc<Self>,
        peer: PeerKey,
        said: Arc<Forwarded>,
    ) -> (Asker, Arc<Inbox>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let rx = Arc::new(Inbox::default());
        let entry = Entry {
            inbox: Arc::clone(&rx),
            parked: false,
            peer,
            said,
        };
        lock(&self.askers).insert(id, entry);
        (
            Asker {
                router: Arc::clone(self),
                id,
            },
            rx,
        )
    }

    /// The backend asks `method` with `params`: given to the call it is for ([`whose`]),
    /// whose front request puts it to its client; the answer comes back when it is given.
    /// With no call running but parked ones, it is one of those (a backend that asks
    /// several things at once: the ones that come after the call was parked wait for its
    /// next round).
    pub(crate) async fn ask(
        &self,
        method: &'static str,
        params: String,
    ) -> Result<String, Rejection> {
        let to = whose(&lock(&self.askers), Some(method));
        match to {
            Ok(inbox) => inbox.ask(method, params).await,
            Err(0) => Err(refused(&format!(
                "no call in flight this {method} could be for"
            ))),
            Err(n) => Err(refused(&format!(
                "the bridge cannot tell which request this {method} is for ({n} calls of several clients in flight)"
            ))),
        }
    }

    /// A log message of the backend's (a legacy backend's names no request either): to the
    /// call running it is for ([`whose`]), which sends it at its request's log level;
    /// dropped when none is running or the calls running came from several clients.
    pub(crate) fn log(&self, m: LogMessage) {
        let askers = lock(&self.askers);
        if !askers.values().any(|a| !a.parked) {
            tracing::debug!(level = %m.level, "a backend log message with no call running");
            return;
        }
        match whose(&askers, None) {
            Ok(inbox) => inbox.send(Event::Log(m)),
            Err(_) => tracing::debug!(level = %m.level, "a backend log message for no one call"),
        }
    }

    /// Parks a call until its retry comes with the answers to the `asked` questions: the
    /// token the front's `requestState` carries. Dropped (the backend's questions refused,
    /// its call cancelled) after [`PARKED_TTL`]. `hold_timeout`: the call's own timeout
    /// does not run while it is parked.
    pub(crate) fn park(
        self: &Arc<Self>,
        flight: InFlight,
        asked: Vec<Asked>,
        hold_timeout: bool,
    ) -> String {
        // NB. One count for the process: the routers of a pool's connections never hand out
        // the same token (a retry or a round given up finds its own call).
        static PARKED: AtomicU64 = AtomicU64::new(0);
        let token = format!("bridge-{}", PARKED.fetch_add(1, Ordering::Relaxed));
        self.mark(flight._asker.id, true);
        let paused = hold_timeout.then(|| flight.cancel.pause_timeout());
        lock(&self.parked).insert(
            token.clone(),
            Parked {
                flight,
                asked,
                _paused: paused,
            },
        );
        let router = Arc::downgrade(self);
        let key = token.clone();
        tokio::spawn(async move {
            tokio::time::sleep(PARKED_TTL).await;
            let expired = router.upgrade().and_then(|r| lock(&r.parked).remove(&key));
            if let Some(p) = expired {
                // NB. Dropping the call ends it at the backend too.
                p.flight.cancel.fire();
                drop(p);
            }
        });
        token
    }

    /// Ends the call parked under `token` (its questions refused, its request cancelled at
    /// the backend); false when none is parked under it here.
    pub(crate) fn abandon(&self, token: &str) -> bool {
        let Some(p) = lock(&self.parked).remove(token) else {
            return false;
        };
        for a in p.asked {
            let _ = a.question.answer.send(Err(refused(
                "the front's client cannot or did not answer it (it lacks the capability, refused, cancelled, or its time ran out)",
            )));
        }
        p.flight.cancel.fire();
        true
    }

    /// Resumes the call parked under `token` with the front client's answers (`given` reads
    /// the one under a key: a result, or a handshake client's error reply): each given to
    /// the backend's question, the ones not given back to be asked again. `None` when no
    /// call here is parked under it.
    pub(crate) fn resume(
        &self,
        token: &str,
        given: &dyn Fn(&str) -> Option<Result<String, Rejection>>,
    ) -> Option<Resumed> {
        let p = lock(&self.parked).remove(token)?;
        self.mark(p.flight._asker.id, false);
        let mut unanswered = Vec::new();
        for a in p.asked {
            match given(&a.key) {
                Some(answer) => {
                    let _ = a.question.answer.send(answer);
                }
                None => unanswered.push(a),
            }
        }
        Some(Resumed {
            flight: p.flight,
            unanswered,
        })
    }

    /// Marks the call `id` parked or running again.
    fn mark(&self, id: u64, parked: bool) {
        if let Some(a) = lock(&self.askers).get_mut(&id) {
            a.parked = parked;
        }
    }
}

/// Callbacks that put a request's input to the one call whose `inbox` it is (a 2026-07-28
/// backend's input rounds belong to the request they answer).
pub(crate) fn answering_in(inbox: &Arc<Inbox>) -> janus_client::Callbacks {
    let asking = |method: &'static str| {
        let inbox = Arc::clone(inbox);
        move |params: String| {
            let inbox = Arc::clone(&inbox);
            async move { inbox.ask(method, params).await }
        }
    };
    janus_client::Callbacks::new()
        .elicit(asking("elicitation/create"))
        .sample(asking("sampling/createMessage"))
        .roots(asking("roots/list"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls in flight: (their number, their client, parked, the capabilities they declared).
    fn askers(calls: &[(u64, u8, bool, &str)]) -> Askers<u8> {
        calls
            .iter()
            .map(|&(id, peer, parked, caps)| {
                let said = Forwarded {
                    capabilities: Some(caps.to_owned()),
                    ..Forwarded::default()
                };
                let entry = Entry {
                    inbox: Arc::new(Inbox::default()),
                    parked,
                    peer,
                    said: Arc::new(said),
                };
                (id, entry)
            })
            .collect()
    }

    /// The number of the call `whose` picks.
    fn picked(calls: &[(u64, u8, bool, &str)], method: &str) -> Result<u64, usize> {
        let a = askers(calls);
        let inbox = whose(&a, Some(method))?;
        Ok(*a
            .iter()
            .find(|(_, e)| Arc::ptr_eq(&e.inbox, &inbox))
            .expect("one of them")
            .0)
    }

    const ELICITS: &str = r#"{"elicitation":{}}"#;
    const NONE: &str = "{}";

    #[test]
    fn one_call_takes_the_question_whatever_it_declared() {
        assert_eq!(picked(&[(4, 1, false, NONE)], "elicitation/create"), Ok(4));
        assert_eq!(picked(&[(4, 1, true, NONE)], "elicitation/create"), Ok(4));
        assert_eq!(picked(&[], "elicitation/create"), Err(0));
    }

    #[test]
    fn calls_of_one_client_give_it_to_the_newest_that_may_ask() {
        let calls = [
            (1, 7, false, ELICITS),
            (2, 7, false, ELICITS),
            (3, 7, false, NONE),
        ];
        assert_eq!(picked(&calls, "elicitation/create"), Ok(2));
        // NB. None declared sampling: the newest, whose request the server core refuses.
        assert_eq!(picked(&calls, "sampling/createMessage"), Ok(3));
    }

    #[test]
    fn a_running_call_is_taken_before_a_parked_one() {
        let calls = [(1, 7, false, ELICITS), (2, 7, true, ELICITS)];
        assert_eq!(picked(&calls, "elicitation/create"), Ok(1));
        let parked = [(1, 7, true, ELICITS), (2, 7, true, ELICITS)];
        assert_eq!(picked(&parked, "elicitation/create"), Ok(2));
    }

    #[test]
    fn calls_of_several_clients_refuse_it() {
        let calls = [(1, 7, false, ELICITS), (2, 8, false, ELICITS)];
        assert_eq!(picked(&calls, "elicitation/create"), Err(2));
        // NB. A parked call of another client does not count while one is running.
        let calls = [(1, 7, false, ELICITS), (2, 8, true, ELICITS)];
        assert_eq!(picked(&calls, "elicitation/create"), Ok(1));
    }
}
