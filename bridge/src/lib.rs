//! `janus bridge`: MCP clients of either era in front of a server of either era.
//!
//! A [`Bridge`] is a janus-client connection to the backend (a command on stdio, or a URL)
//! and a server-core [`Server`] whose identity, instructions and tools are the backend's:
//! served by any of the server core's drivers (stdio, TCP, streamable HTTP), it answers
//! clients of both eras, while the backend is spoken to in its own revision. Each front
//! request the backend must answer is forwarded over the one client connection, requests in
//! flight multiplexed on it (the client remaps their ids), never serialised.
//!
//! What a revision lacks is the server core's to translate (`server/discover` from the
//! backend's `initialize`, the 2026-07-28 stamps on every result, a block a client's revision
//! has no type for); what the backend answers is the model's ([`janus_model`]), read once.

mod backend;
mod forward;
mod input;
mod said;
mod surface;
mod task;
mod watch;

use backend::{Backend, Pool};
use janus_client::{Client, Options, Transport};
use janus_server_core::Server;
use std::sync::Arc;

pub use forward::rejection_of;

/// Why a bridge could not start.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// The backend could not be reached, or refused the handshake.
    #[error("the backend: {0}")]
    Backend(#[from] janus_client::Error),
    /// The backend described something the server core does not serve.
    #[error("the backend's {0}")]
    Spec(String),
}

/// A backend and the front that serves it.
#[derive(Debug)]
pub struct Bridge {
    pool: Arc<Pool>,
    server: Arc<Server>,
}

impl Bridge {
    /// Connects to the backend `transport` names (in `opts.mode`: `Auto` finds its era) and
    /// builds the front from what it says of itself and its tools.
    ///
    /// # Errors
    ///
    /// [`BridgeError::Backend`] when it cannot be reached or listed; [`BridgeError::Spec`]
    /// for a tool the front cannot describe.
    pub async fn connect(transport: Transport, opts: Options) -> Result<Self, BridgeError> {
        Self::connect_pool(transport, opts, 1).await
    }

    /// As [`Bridge::connect`], with `size` connections to the backend (a pool of sessions of
    /// an HTTP backend, or of processes of a stdio one), each request sent on the next one
    /// that is up. The front follows the first one's lists and changes.
    ///
    /// # Errors
    ///
    /// As [`Bridge::connect`]; [`BridgeError::Spec`] for a pool of more than one over a
    /// transport that cannot be opened twice (a stream).
    pub async fn connect_pool(
        transport: Transport,
        opts: Options,
        size: usize,
    ) -> Result<Self, BridgeError> {
        let mut others = Vec::new();
        for _ in 1..size.max(1) {
            others.push(transport.try_clone().ok_or_else(|| {
                BridgeError::Spec("transport cannot be opened more than once: no pool".into())
            })?);
        }
        let (tx, notices) = tokio::sync::mpsc::unbounded_channel();
        // NB. Only the first connection's notifications are followed: the same change told
        // by every session would list the tools again as many times.
        let mut members = vec![
            Backend::connect(
                transport,
                Options {
                    notices: Some(tx),
                    ..opts.clone()
                },
            )
            .await?,
        ];
        for t in others {
            members.push(Backend::connect(t, opts.clone()).await?);
        }
        let first = Arc::downgrade(&members[0]);
        let pool = Pool::new(members);
        let (server, wanted, listed, lists) = surface::front(&pool).await?;
        tokio::spawn(surface::follow(
            notices,
            Arc::downgrade(&pool),
            Arc::downgrade(&server),
            listed,
            (lists, Arc::clone(&wanted)),
        ));
        tokio::spawn(watch::watch(first, wanted));
        Ok(Self { pool, server })
    }

    /// The front: serve it with any of the server core's drivers.
    #[must_use]
    pub const fn server(&self) -> &Arc<Server> {
        &self.server
    }

    /// The (first) connection to the backend now (none while it is being restarted: a backend
    /// whose connection broke is connected again, a stdio one restarted, with a growing
    /// pause).
    #[must_use]
    pub fn backend(&self) -> Option<Arc<Client>> {
        self.pool.first().client().ok()
    }

    /// What a health check or a metrics scrape reads of the backend's connections (of a
    /// pool: connected when every one is, and their reconnections added up). Called within
    /// a tokio runtime, a connection found ended is made again from here (a stdio backend
    /// that exited while idle is restarted).
    #[must_use]
    pub fn status(&self) -> BackendStatus {
        self.pool.status()
    }

    /// Ends the bridge's backend connections, all at once, as the stdio transport's
    /// shutdown asks: each backend's input is closed (an HTTP session is ended with
    /// `DELETE`) and its process given `grace` to exit, then SIGTERM and `grace` again, then
    /// SIGKILL ([`Client::shutdown`]). A backend is no longer restarted from the call on.
    /// For the end of serving: the front's requests still waiting get `-32603`.
    /// (Dropping the bridge kills a stdio backend at once.)
    pub async fn close(self, grace: std::time::Duration) {
        let mut ending = tokio::task::JoinSet::new();
        for client in self.pool.members().iter().filter_map(|b| b.stop()) {
            ending.spawn(async move { client.shutdown(grace).await });
        }
        while ending.join_next().await.is_some() {}
    }

    /// A handle on [`Bridge::status`] that does not keep the bridge alive (`None` once it
    /// is gone).
    pub fn watch(&self) -> impl Fn() -> Option<BackendStatus> + Send + Sync + 'static {
        let pool = Arc::downgrade(&self.pool);
        move || pool.upgrade().map(|p| p.status())
    }
}

/// The state of a bridge's backend connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackendStatus {
    /// The connection is up (false while the backend is being connected again).
    pub connected: bool,
    /// How many times the connection was made again since the bridge started.
    pub reconnects: u64,
}
