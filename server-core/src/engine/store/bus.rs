//! [`Bus`]: how the notifications that concern every connection (list changes, resource
//! updates) reach every process of a deployment.

use std::sync::{Arc, Mutex, PoisonError};

/// What the bus carries: a change every listener of every process may need to hear of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The tool list changed.
    ToolsChanged,
    /// The prompt list changed.
    PromptsChanged,
    /// The resource list changed.
    ResourcesChanged,
    /// The content of the resource at this URI changed.
    ResourceUpdated(String),
}

/// Where a process hears the bus.
pub type Hear = Arc<dyn Fn(&Event) + Send + Sync>;

/// The notification bus of a deployment: what one process publishes, every process on the
/// bus hears, the publisher included (so a change is told to local listeners the same way as
/// to remote ones).
///
/// `publish` must not block: an implementation that talks to a network queues the event and
/// sends it from a task of its own. Delivery is at most once: a listener that misses a list
/// change lists again when it next asks, as the specification allows.
pub trait Bus: Send + Sync + 'static {
    /// Sends `event` to every process on the bus, this one included.
    fn publish(&self, event: Event);

    /// Registers where this process hears the bus (the server does, once, when it is built).
    fn subscribe(&self, hear: Hear);
}

/// The bus of one process (the default): `publish` tells every subscriber at once, on the
/// caller's thread. Cloning it gives another handle on the same bus, so servers built in one
/// process with clones of it hear each other, as replicas on a shared bus do.
#[derive(Clone, Default)]
pub struct MemoryBus {
    subscribers: Arc<Mutex<Vec<Hear>>>,
}

impl std::fmt::Debug for MemoryBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self
            .subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        f.debug_struct("MemoryBus")
            .field("subscribers", &n)
            .finish()
    }
}

impl MemoryBus {
    /// A bus with no subscriber yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl Bus for MemoryBus {
    fn publish(&self, event: Event) {
        // NB. The subscribers are copied out first: one that publishes in turn does not
        // deadlock on the list.
        let subscribers: Vec<Hear> = self
            .subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for hear in subscribers {
            hear(&event);
        }
    }

    fn subscribe(&self, hear: Hear) {
        self.subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(hear);
    }
}
