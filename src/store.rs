//! `janus serve --store`: where the tasks and list changes of a process live.

use janus_server_core::server::ServerBuilder;
use janus_server_core::store::{MemoryTaskStore, TaskStore};
use std::sync::Arc;

/// The store a process was given.
pub(crate) enum Shared {
    /// This process's own memory (the default).
    Memory,
    /// A Redis that replicas share.
    #[cfg(feature = "redis")]
    Redis(janus_redis::Redis),
}

/// Opens the store `url` names: `memory`, or a Redis URL (connected and checked here).
pub(crate) async fn open(url: &str, prefix: &str) -> Result<Shared, String> {
    if url == "memory" {
        return Ok(Shared::Memory);
    }
    if !(url.starts_with("redis://") || url.starts_with("redis+unix://")) {
        return Err(format!(
            "--store takes `memory` or a redis:// URL, not {}",
            url.split("://").next().unwrap_or(url)
        ));
    }
    open_redis(url, prefix).await
}

#[cfg(feature = "redis")]
async fn open_redis(url: &str, prefix: &str) -> Result<Shared, String> {
    let options = janus_redis::Options {
        prefix: prefix.to_owned(),
        ..janus_redis::Options::default()
    };
    let redis = janus_redis::Redis::connect(url, options)
        .await
        .map_err(|e| e.to_string())?;
    tracing::info!(prefix, "tasks and list changes shared through Redis");
    Ok(Shared::Redis(redis))
}

#[cfg(not(feature = "redis"))]
async fn open_redis(_url: &str, _prefix: &str) -> Result<Shared, String> {
    Err("this janus was built without the `redis` feature".to_owned())
}

impl Shared {
    /// Gives the server the store and bus (the default ones for memory); with `observed`,
    /// each store operation is timed for the metrics.
    pub(crate) fn install(&self, builder: ServerBuilder, observed: bool) -> ServerBuilder {
        let (store, builder): (Arc<dyn TaskStore>, _) = match self {
            Self::Memory => (Arc::new(MemoryTaskStore::new()), builder),
            #[cfg(feature = "redis")]
            Self::Redis(r) => (r.task_store(), builder.bus(r.bus())),
        };
        let store = if observed {
            Arc::new(crate::metrics::Observed(store))
        } else {
            store
        };
        builder.task_store(store)
    }

    /// The store's readiness check: Redis answers and the subscription is up (memory is
    /// always ready).
    pub(crate) fn ready(&self) -> Option<crate::metrics::Ready> {
        match self {
            Self::Memory => None,
            #[cfg(feature = "redis")]
            Self::Redis(r) => {
                let r = r.clone();
                Some(Arc::new(move || {
                    let r = r.clone();
                    Box::pin(async move {
                        r.ping()
                            .await
                            .map_err(|e| format!("the store is not reachable: {e}"))?;
                        if r.subscribed() {
                            Ok(())
                        } else {
                            Err(
                                "the store is not reachable: the subscription to Redis is down"
                                    .to_owned(),
                            )
                        }
                    })
                }))
            }
        }
    }
}
