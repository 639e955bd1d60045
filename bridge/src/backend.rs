//! The backend connection, kept up: a backend that exits or breaks its connection is
//! connected again (a stdio backend restarted) with a growing pause, while the requests that
//! were in flight get `-32603` with `data.reason` and the ones that come meanwhile fail the
//! same way at once, never a hang.

use crate::input::Router;
use janus_client::{Callbacks, Client, Error, Options, Transport};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The first pause before connecting again, doubled at each failure up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(100);
/// The longest pause between two attempts.
const MAX_PAUSE: Duration = Duration::from_secs(10);
/// How long a connection made again must last for the next failure to start over from
/// [`FIRST_PAUSE`] (one that ends sooner, a backend that dies at each start, makes the pause
/// grow on).
const STABLE: Duration = Duration::from_secs(10);
/// How often a connection is looked at for an end that no request saw (a backend that
/// exited while idle is restarted from there).
const WATCH_EVERY: Duration = Duration::from_millis(250);

/// The connection to the backend, and how to make it again.
pub(crate) struct Backend {
    /// How to connect again (`None` for a stream, which cannot be opened twice).
    transport: Mutex<Option<Transport>>,
    opts: Options,
    current: Mutex<Option<Arc<Client>>>,
    restarting: AtomicBool,
    /// How many times the connection was made again.
    reconnects: AtomicU64,
    /// Where the backend's requests for input go.
    router: Arc<Router>,
    /// A streamable HTTP backend: its requests for input made during a call come on that
    /// call's response stream, so they are the call's own to answer.
    streams: bool,
    /// When the connection was last made, and the pause that came before it.
    made: Mutex<(std::time::Instant, Duration)>,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend")
            .field("restarting", &self.restarting.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Backend {
    /// Connects to the backend once.
    pub(crate) async fn connect(transport: Transport, opts: Options) -> Result<Arc<Self>, Error> {
        let (logs, heard) = tokio::sync::mpsc::unbounded_channel();
        let router = Arc::new(Router::hearing(heard));
        let to = Arc::downgrade(&router);
        tokio::spawn(async move {
            // NB. The router's own queue: a call that ends takes what is in it at once too.
            while let Some(m) = std::future::poll_fn(|cx| match to.upgrade() {
                Some(r) => r.poll_log(cx),
                None => std::task::Poll::Ready(None),
            })
            .await
            {
                match to.upgrade() {
                    Some(r) => r.log(m),
                    None => return,
                }
            }
        });
        // NB. Every level is asked of the backend: each front request takes what it asked.
        let opts = Options {
            callbacks: callbacks(&router),
            logs: Some(logs),
            log_level: Some("debug".into()),
            ..opts
        };
        let streams = matches!(transport, Transport::Http { .. });
        let again = transport.try_clone();
        let client = Arc::new(Client::connect(transport, opts.clone()).await?);
        let me = Arc::new(Self {
            transport: Mutex::new(again),
            opts,
            current: Mutex::new(Some(Arc::clone(&client))),
            restarting: AtomicBool::new(false),
            reconnects: AtomicU64::new(0),
            router,
            streams,
            made: Mutex::new((std::time::Instant::now(), Duration::ZERO)),
        });
        me.watch(&client);
        Ok(me)
    }

    /// Looks at `client` while it is the connection: once it has ended (the backend exited
    /// or closed its output while no request was in flight), it is made again now, not when
    /// the next request fails. Holds neither (a bridge dropped still ends its backend).
    fn watch(self: &Arc<Self>, client: &Arc<Client>) {
        let (me, client) = (Arc::downgrade(self), Arc::downgrade(client));
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(WATCH_EVERY).await;
                let (Some(me), Some(c)) = (me.upgrade(), client.upgrade()) else {
                    return;
                };
                let current = me.client().ok();
                if !current.is_some_and(|now| Arc::ptr_eq(&now, &c)) {
                    return;
                }
                if c.is_closed() {
                    me.failed(&Error::Session("the backend's connection ended".into()));
                    return;
                }
            }
        });
    }

    /// Where the backend's requests for input go.
    pub(crate) const fn router(&self) -> &Arc<Router> {
        &self.router
    }

    /// Whether the backend is spoken to over streamable HTTP.
    pub(crate) const fn is_http(&self) -> bool {
        self.streams
    }

    /// Whether the backend's requests for input tell which call they are for (a 2026-07-28
    /// backend's always do; a handshake one's on streamable HTTP, by the stream they come
    /// on).
    pub(crate) fn tells_whose(&self, client: &Client) -> bool {
        self.streams || client.negotiated().version.is_modern()
    }

    /// The connection, or why there is none now (the backend is being restarted).
    pub(crate) fn client(&self) -> Result<Arc<Client>, Error> {
        self.current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
            .ok_or_else(|| Error::Session("the backend is restarting".into()))
    }

    /// Whether the connection is being made again now.
    pub(crate) fn is_restarting(&self) -> bool {
        self.restarting.load(Ordering::Acquire)
    }

    /// The connection once it is made again, if that happens within `patience` (checked
    /// every 20 ms); else, or when it is no longer being made, why there is none.
    pub(crate) async fn back_within(&self, patience: Duration) -> Result<Arc<Client>, Error> {
        let until = tokio::time::Instant::now() + patience;
        loop {
            match self.client() {
                Ok(c) => return Ok(c),
                Err(_) if self.is_restarting() && tokio::time::Instant::now() < until => {}
                Err(_) => {
                    return Err(Error::Session(format!(
                        "the backend is restarting (not back within {patience:?})"
                    )));
                }
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Whether the connection is up, and how many times it was made again. A connection
    /// found ended is made again from here too, so a backend that exited while idle comes
    /// back without waiting for a request to fail.
    pub(crate) fn status(self: &Arc<Self>) -> crate::BackendStatus {
        let current = self
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let connected = current.is_some_and(|c| !c.is_closed());
        if !connected
            && !self.restarting.load(Ordering::Acquire)
            && tokio::runtime::Handle::try_current().is_ok()
        {
            self.failed(&Error::Session("the backend's connection ended".into()));
        }
        crate::BackendStatus {
            connected,
            reconnects: self.reconnects.load(Ordering::Relaxed),
        }
    }

    /// Stops keeping the connection up (without its transport it is not made again), and
    /// gives it back, if there is one.
    pub(crate) fn stop(&self) -> Option<Arc<Client>> {
        self.transport
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        self.current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// The transport again, for a new connection.
    fn again(&self) -> Option<Transport> {
        self.transport
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .and_then(Transport::try_clone)
    }

    /// A request failed with `e`: when the connection itself is gone, it is made again in
    /// the background (once at a time).
    pub(crate) fn failed(self: &Arc<Self>, e: &Error) {
        if !matches!(e, Error::Session(_) | Error::Transport(_)) {
            return;
        }
        // NB. A fault of one request's answer (an HTTP answer cut short, or over the size
        // limit) fails that request only: the server was reached, and the connection goes
        // on. One that could not be made at all (a refused connection) is the connection's.
        if e.is_answer_fault() {
            return;
        }
        let Some(transport) = self.again() else {
            return;
        };
        if self.restarting.swap(true, Ordering::AcqRel) {
            return;
        }
        *self
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        tracing::warn!(error = %e, "the backend's connection is gone: connecting again");
        let me = Arc::clone(self);
        // NB. A connection that lasted goes back to the first pause; one made again that
        // ended soon after grows the pause on from the last one.
        // A session the backend forgot (it expired, or the server was started again) is no
        // crash: the backend answered, and a new session is made at once, its pause not
        // grown (the next failure starts from the first pause again).
        let mut pause = if e.is_session_lost() {
            Duration::ZERO
        } else {
            let (at, last) = *self
                .made
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if at.elapsed() < STABLE && !last.is_zero() {
                (last * 2).min(MAX_PAUSE)
            } else {
                FIRST_PAUSE
            }
        };
        tokio::spawn(async move {
            let mut transport = Some(transport);
            loop {
                tokio::time::sleep(pause).await;
                let t = match transport.take() {
                    Some(t) => t,
                    None => match me.again() {
                        Some(t) => t,
                        None => return,
                    },
                };
                match Client::connect(t, me.opts.clone()).await {
                    Ok(c) => {
                        let c = Arc::new(c);
                        *me.made
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner) =
                            (std::time::Instant::now(), pause);
                        *me.current
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner) =
                            Some(Arc::clone(&c));
                        me.watch(&c);
                        // NB. A backend started again may serve other tools, prompts or
                        // resources: the one whose changes the front follows is listed again,
                        // as for a change it told.
                        if let Some(tx) = &me.opts.notices {
                            for method in [
                                "notifications/tools/list_changed",
                                "notifications/prompts/list_changed",
                            ] {
                                let _ = tx.send(janus_client::Notice {
                                    method: method.into(),
                                    params: None,
                                });
                            }
                        }
                        me.reconnects.fetch_add(1, Ordering::Relaxed);
                        me.restarting.store(false, Ordering::Release);
                        tracing::info!("the backend is back");
                        return;
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, ?pause, "the backend did not come back yet");
                        pause = (pause * 2).clamp(FIRST_PAUSE, MAX_PAUSE);
                    }
                }
            }
        });
    }
}

/// The callbacks that give the backend's requests for input to the front: it declares
/// elicitation, sampling and roots, and the front client's own capabilities decide.
fn callbacks(router: &Arc<Router>) -> Callbacks {
    let (e, s, r) = (Arc::clone(router), Arc::clone(router), Arc::clone(router));
    Callbacks::new()
        .elicit(move |params| {
            let router = Arc::clone(&e);
            async move { router.ask("elicitation/create", params).await }
        })
        .sample(move |params| {
            let router = Arc::clone(&s);
            async move { router.ask("sampling/createMessage", params).await }
        })
        .roots(move |params| {
            let router = Arc::clone(&r);
            async move { router.ask("roots/list", params).await }
        })
}

/// The backend connections a bridge spreads its requests over (`--pool N`): each kept up on
/// its own, each with its own calls that may ask for input.
#[derive(Debug)]
pub(crate) struct Pool {
    members: Vec<Arc<Backend>>,
    next: std::sync::atomic::AtomicUsize,
    /// What the last front request's client said of itself, as forwarded: the next one
    /// from the same client shares it.
    pub(crate) said: Mutex<Option<crate::said::Said>>,
}

impl Pool {
    /// A pool of these connections (at least one).
    pub(crate) fn new(members: Vec<Arc<Backend>>) -> Arc<Self> {
        assert!(!members.is_empty(), "a pool holds at least one connection");
        Arc::new(Self {
            members,
            next: std::sync::atomic::AtomicUsize::new(0),
            said: Mutex::new(None),
        })
    }

    /// The first connection: the one whose lists and changes the front follows.
    pub(crate) fn first(&self) -> &Arc<Backend> {
        &self.members[0]
    }

    /// The connection for the next request: the next one that is up, in turn (the next one
    /// in turn when none is, whose error the request gets).
    pub(crate) fn pick(&self) -> &Arc<Backend> {
        let n = self.members.len();
        if n == 1 {
            return &self.members[0];
        }
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        (0..n)
            .map(|i| &self.members[(start + i) % n])
            .find(|b| b.client().is_ok())
            .unwrap_or(&self.members[start % n])
    }

    /// The connection whose call is parked under `token`, and the call, resumed with the
    /// front client's answers (`given` reads the one under a key).
    pub(crate) fn resume(
        &self,
        token: &str,
        given: &dyn Fn(&str) -> Option<Result<String, janus_client::Rejection>>,
    ) -> Option<(Arc<Backend>, crate::input::Resumed)> {
        self.members
            .iter()
            .find_map(|b| Some((Arc::clone(b), b.router().resume(token, given)?)))
    }

    /// Ends the call parked under `token`, whose round the front gave up: its questions
    /// are refused at the backend and its request there cancelled.
    pub(crate) fn abandon(&self, token: &str) {
        for b in &self.members {
            if b.router().abandon(token) {
                return;
            }
        }
    }

    /// Every connection, as they are now.
    pub(crate) fn members(&self) -> &[Arc<Backend>] {
        &self.members
    }

    /// Every connection up, and how many times they were made again, in all.
    pub(crate) fn status(&self) -> crate::BackendStatus {
        let all: Vec<_> = self.members.iter().map(Backend::status).collect();
        crate::BackendStatus {
            connected: all.iter().all(|s| s.connected),
            reconnects: all.iter().map(|s| s.reconnects).sum(),
        }
    }
}
