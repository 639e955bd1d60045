//! The task store and notification bus of Janus on Redis (`decisions.md`, "Storage"):
//! replicas behind one balancer share their tasks, their list changes and resource updates,
//! and the ends of their tasks.
//!
//! ```no_run
//! # async fn run() -> Result<(), janus_redis::ConnectError> {
//! let redis = janus_redis::Redis::connect("redis://127.0.0.1:6379", janus_redis::Options::default()).await?;
//! let server = janus_server_core::demo::builder()
//!     .task_store(redis.task_store())
//!     .bus(redis.bus())
//!     .build();
//! # Ok(()) }
//! ```
//!
//! - **Tasks** are hashes with the task's time to live; each transition (create, advance,
//!   cancel, park, answer) is one Lua script, so two replicas never both move one task.
//! - **Ends of tasks** are published in the same step as the transition that ends them: a
//!   `tasks/result` waiting on one replica is answered when another ends the task, and a
//!   `tasks/cancel` through any replica stops the work where it runs.
//! - **The bus** is a pub/sub channel: a list change or resource update published by one
//!   replica reaches every replica's sessions and `listen` streams (the publisher's at once,
//!   without the round trip).
//! - **Redis unreachable**: [`Redis::connect`] fails (`janus serve` exits 2); later, each
//!   operation fails within [`Options::timeout`] as [`StoreError::Unavailable`] (the client
//!   gets `-32603` with `data.reason`), the connection and the subscription come back by
//!   themselves, and a wait for a task's end looks at the task again when they do.

mod listen;
mod scripts;
mod tasks;

pub use listen::RedisBus;
pub use tasks::RedisTaskStore;

use janus_server_core::store::{Bus, Deadline, StoreError, TaskStore};
use listen::Shared;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::sync::Arc;
use std::time::Duration;

/// How a [`Redis`] is set up.
#[derive(Debug, Clone)]
pub struct Options {
    /// What every key and channel starts with: deployments that share one Redis use
    /// different ones.
    pub prefix: String,
    /// The longest a store operation may take before it fails as unavailable.
    pub timeout: Duration,
    /// The most tasks kept at once, across every replica.
    pub max_tasks: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            prefix: "janus:".to_owned(),
            timeout: Duration::from_secs(2),
            max_tasks: 100_000,
        }
    }
}

/// Why [`Redis::connect`] failed.
#[derive(Debug)]
pub struct ConnectError(String);

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConnectError {}

/// One process's connection to the Redis of a deployment: its [`TaskStore`] and its
/// [`Bus`]. Cloning it gives another handle on the same connection.
#[derive(Clone)]
pub struct Redis {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redis")
            .field("prefix", &self.inner.prefix)
            .finish_non_exhaustive()
    }
}

/// What the store and the bus share.
pub(crate) struct Inner {
    conn: ConnectionManager,
    prefix: String,
    max_tasks: usize,
    timeout: Duration,
    /// The channel a task's end is published on.
    ended_channel: String,
    /// The channel of the bus.
    bus_channel: String,
    shared: Arc<Shared>,
    /// The subscriber and the publisher, stopped when the last handle goes.
    tasks: Vec<tokio::task::AbortHandle>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl Redis {
    /// Connects to the Redis at `url` (`redis://[user:password@]host[:port][/db]`), checks
    /// that it answers, and subscribes to the channels of the deployment. Must be called
    /// within a tokio runtime, which then runs the connection's tasks.
    ///
    /// # Errors
    ///
    /// [`ConnectError`] when the URL is not one, or Redis does not answer within
    /// [`Options::timeout`].
    pub async fn connect(url: &str, options: Options) -> Result<Self, ConnectError> {
        let client = redis::Client::open(url)
            .map_err(|e| ConnectError(format!("{url} is not a Redis URL: {e}")))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(options.timeout))
            .set_response_timeout(Some(options.timeout))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_secs(2));
        let unreachable =
            |e: String| ConnectError(format!("Redis at {} is unreachable: {e}", redacted(url)));
        let mut conn = tokio::time::timeout(
            options.timeout,
            ConnectionManager::new_with_config(client.clone(), config),
        )
        .await
        .map_err(|_| unreachable("no answer in time".to_owned()))?
        .map_err(|e| unreachable(e.to_string()))?;
        let _: String =
            tokio::time::timeout(options.timeout, redis::cmd("PING").query_async(&mut conn))
                .await
                .map_err(|_| unreachable("no answer in time".to_owned()))?
                .map_err(|e| unreachable(e.to_string()))?;
        let ended_channel = format!("{}ended", options.prefix);
        let bus_channel = format!("{}bus", options.prefix);
        let shared = Arc::new(Shared::new());
        let (publisher, queue) = listen::publisher(conn.clone(), bus_channel.clone());
        shared.set_queue(queue);
        let subscriber = tokio::spawn(listen::subscribe(
            client,
            Arc::clone(&shared),
            bus_channel.clone(),
            ended_channel.clone(),
        ));
        let redis = Self {
            inner: Arc::new(Inner {
                conn,
                prefix: options.prefix,
                max_tasks: options.max_tasks,
                timeout: options.timeout,
                ended_channel,
                bus_channel,
                shared,
                tasks: vec![publisher.abort_handle(), subscriber.abort_handle()],
            }),
        };
        // NB. A replica is on the bus before it serves: nothing published after it starts is
        // missed.
        tokio::time::timeout(options.timeout, redis.inner.shared.until_subscribed())
            .await
            .map_err(|_| unreachable("no subscription in time".to_owned()))?;
        Ok(redis)
    }

    /// The task store, each operation bounded by [`Options::timeout`].
    #[must_use]
    pub fn task_store(&self) -> Arc<dyn TaskStore> {
        Arc::new(Deadline::new(
            RedisTaskStore::new(Arc::clone(&self.inner)),
            self.inner.timeout,
        ))
    }

    /// The bus.
    #[must_use]
    pub fn bus(&self) -> Arc<dyn Bus> {
        Arc::new(RedisBus::new(Arc::clone(&self.inner)))
    }

    /// True while the subscription to the deployment's channels is up (a replica that lost
    /// it may miss list changes and task ends of others: it is not ready).
    #[must_use]
    pub fn subscribed(&self) -> bool {
        self.inner.shared.subscribed()
    }

    /// Asks Redis whether it answers, within [`Options::timeout`].
    ///
    /// # Errors
    ///
    /// [`StoreError::Unavailable`] with the reason.
    pub async fn ping(&self) -> Result<(), StoreError> {
        let mut conn = self.inner.conn.clone();
        match tokio::time::timeout(
            self.inner.timeout,
            redis::cmd("PING").query_async::<String>(&mut conn),
        )
        .await
        {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(unavailable(e)),
            Err(_) => Err(StoreError::Unavailable(
                "redis: no answer in time".to_owned(),
            )),
        }
    }
}

/// A Redis failure as the client is told it: its kind and text, never the URL.
pub(crate) fn unavailable(e: redis::RedisError) -> StoreError {
    StoreError::Unavailable(format!("redis: {e}"))
}

/// `url` without its password.
fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}***{}", &url[..scheme + 3], &url[at..])
        }
        _ => url.to_owned(),
    }
}
