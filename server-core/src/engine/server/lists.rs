//! Lists that change while the server runs, and who hears of it.
//!
//! A change builds a new [`Catalog`] beside the current one and swaps it in: requests already
//! being served keep the catalog they started with, later ones see the new lists. Then every
//! watcher hears of it: a handshake session sends `notifications/*/list_changed` (and
//! `notifications/resources/updated` for the URIs it subscribed to), a `subscriptions/listen`
//! request sends what its filter asked for.
//!
//! Only connections that listen are watchers (a session after `initialize`, a `listen`
//! request while it is open): a stateless request costs nothing here.

use super::{Catalog, Entry, Server, Surface};
use crate::api::ctx::CancelSignal;
use crate::api::prompts::{Prompt, PromptSpec};
use crate::api::resources::{ReadResource, ResourceSpec};
use crate::api::tools::{AsyncTool, Handler, SpecError, Tool, ToolSpec};
use crate::engine::store::Event;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// What changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change<'a> {
    Tools,
    Prompts,
    Resources,
    /// The content of the resource at this URI.
    Updated(&'a str),
}

/// Hears of the server's changes.
pub(crate) trait Watch: Send + Sync {
    fn changed(&self, change: Change<'_>);
}

/// The state behind the changes.
#[derive(Default)]
pub(crate) struct Lists {
    /// One change at a time.
    writer: Mutex<()>,
    watchers: Mutex<Watchers>,
    /// Raised when the server ends its subscriptions (a shutdown).
    pub(crate) closing: CancelSignal,
}

/// The watchers, and the length at which the dead ones are dropped next (so a server that
/// never changes its lists, with connections coming and going, keeps no garbage).
#[derive(Default)]
struct Watchers {
    all: Vec<Weak<dyn Watch>>,
    prune_at: usize,
}

/// Watchers registered before the first pruning.
const PRUNE_FIRST: usize = 64;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Server {
    /// Adds (or replaces) a tool that answers inline while the server runs; sessions and
    /// listeners hear `notifications/tools/list_changed`.
    ///
    /// # Errors
    ///
    /// The spec's failed check.
    pub fn add_tool(&self, spec: ToolSpec, handler: impl Tool) -> Result<(), SpecError> {
        self.put_tool(Entry::new(spec, Handler::Inline(Box::new(handler)))?);
        Ok(())
    }

    /// Adds (or replaces) a tool whose answer comes later, while the server runs.
    ///
    /// # Errors
    ///
    /// The spec's failed check.
    pub fn add_async_tool(&self, spec: ToolSpec, handler: impl AsyncTool) -> Result<(), SpecError> {
        self.put_tool(Entry::new(spec, Handler::Async(Box::new(handler)))?);
        Ok(())
    }

    fn put_tool(&self, e: Entry) {
        self.change(Change::Tools, |tools, _| {
            tools.retain(|t| t.spec.name != e.spec.name);
            tools.push(Arc::new(e));
            true
        });
    }

    /// The names of the tools served now, in the order they are listed.
    #[must_use]
    pub fn tool_names(&self) -> Vec<String> {
        self.catalog()
            .tools
            .iter()
            .map(|t| t.spec.name.clone())
            .collect()
    }

    /// Makes `tools` the tools served, in their order, in one change: sessions and listeners
    /// hear one `notifications/tools/list_changed`, where adding and removing them one by one
    /// would tell each step. A tool whose spec fails its check is left out, its error
    /// returned; of two of the same name, the later is kept.
    pub fn replace_async_tools<H: AsyncTool>(
        &self,
        tools: impl IntoIterator<Item = (ToolSpec, H)>,
    ) -> Vec<SpecError> {
        let mut refused = Vec::new();
        let mut entries = Vec::new();
        for (spec, handler) in tools {
            match Entry::new(spec, Handler::Async(Box::new(handler))) {
                Ok(e) => {
                    entries.retain(|k: &Arc<Entry>| k.spec.name != e.spec.name);
                    entries.push(Arc::new(e));
                }
                Err(e) => refused.push(e),
            }
        }
        self.change(Change::Tools, |now, _| {
            *now = entries;
            true
        });
        refused
    }

    /// Removes tool `name`; false when there was none.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.change(Change::Tools, |tools, _| {
            let before = tools.len();
            tools.retain(|t| t.spec.name != name);
            tools.len() != before
        })
    }

    /// Adds (or replaces) a prompt while the server runs.
    ///
    /// # Errors
    ///
    /// A `_meta` that is not a JSON object.
    pub fn add_prompt(&self, spec: PromptSpec, handler: impl Prompt) -> Result<(), SpecError> {
        check_meta(&spec.name, spec.meta.as_ref())?;
        self.change(Change::Prompts, |_, s| {
            s.prompts.retain(|(p, _)| p.name != spec.name);
            s.prompts.push((spec, Arc::new(handler)));
            true
        });
        Ok(())
    }

    /// Makes the prompts, direct resources, resource templates and completions of `from`
    /// this server's (its tools, identity and settings are not looked at): one change for
    /// the prompts and completions, one for the resources and templates, each announced
    /// (`list_changed`) only when its specs differ from the ones served. What a gateway
    /// uses to follow its backend's lists, built as they were at its start.
    ///
    /// # Errors
    ///
    /// A spec of `from` whose `_meta` is no JSON object: nothing is changed.
    pub fn replace_surface(&self, from: super::ServerBuilder) -> Result<(), SpecError> {
        let (new, error) = from.into_surface();
        if let Some(e) = error {
            return Err(e);
        }
        let super::Surface {
            prompts,
            resources,
            templates,
            completions,
        } = new;
        self.change(Change::Prompts, |_, s| {
            let same = s.prompts.len() == prompts.len()
                && s.prompts.iter().zip(&prompts).all(|(a, b)| a.0 == b.0);
            s.prompts = prompts;
            s.completions = completions;
            !same
        });
        self.change(Change::Resources, |_, s| {
            let same = s.resources.len() == resources.len()
                && s.resources.iter().zip(&resources).all(|(a, b)| a.0 == b.0)
                && s.templates.len() == templates.len()
                && s.templates.iter().zip(&templates).all(|(a, b)| a.0 == b.0);
            s.resources = resources;
            s.templates = templates;
            !same
        });
        Ok(())
    }

    /// Removes prompt `name`; false when there was none.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.change(Change::Prompts, |_, s| {
            let before = s.prompts.len();
            s.prompts.retain(|(p, _)| p.name != name);
            s.prompts.len() != before
        })
    }

    /// Adds (or replaces) a direct resource while the server runs.
    ///
    /// # Errors
    ///
    /// A `_meta` that is not a JSON object.
    pub fn add_resource(
        &self,
        spec: ResourceSpec,
        handler: impl ReadResource,
    ) -> Result<(), SpecError> {
        check_meta(&spec.uri, spec.meta.as_ref())?;
        self.change(Change::Resources, |_, s| {
            s.resources.retain(|(r, _)| r.uri != spec.uri);
            s.resources.push((spec, Arc::new(handler)));
            true
        });
        Ok(())
    }

    /// Removes the resource at `uri`; false when there was none.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.change(Change::Resources, |_, s| {
            let before = s.resources.len();
            s.resources.retain(|(r, _)| r.uri != uri);
            s.resources.len() != before
        })
    }

    /// The content of the resource at `uri` changed: the sessions that subscribed to it, and
    /// the listeners that named it, hear `notifications/resources/updated`.
    pub fn resource_updated(&self, uri: &str) {
        self.publish(Change::Updated(uri));
    }

    /// Ends every open `subscriptions/listen` gracefully (its request is answered), as a
    /// shutdown does; later ones are ended at once.
    pub fn end_subscriptions(&self) {
        self.lists.closing.cancel();
    }

    /// Registers a watcher while it lives.
    pub(crate) fn watch(&self, w: &Arc<dyn Watch>) {
        let mut ws = lock(&self.lists.watchers);
        ws.all.push(Arc::downgrade(w));
        if ws.all.len() >= ws.prune_at.max(PRUNE_FIRST) {
            ws.all.retain(|w| w.strong_count() > 0);
            // Amortised: the next pruning waits for as many registrations as are live now.
            ws.prune_at = 2 * ws.all.len();
        }
    }

    /// How many watchers are registered, dead ones not yet dropped included (for tests).
    #[doc(hidden)]
    #[must_use]
    pub fn watchers(&self) -> usize {
        lock(&self.lists.watchers).all.len()
    }

    /// Applies `f` to a copy of the lists; swaps the copy in and tells the watchers when it
    /// says something changed.
    fn change(
        &self,
        what: Change<'_>,
        f: impl FnOnce(&mut Vec<Arc<Entry>>, &mut Surface) -> bool,
    ) -> bool {
        {
            let _one = lock(&self.lists.writer);
            let now = self.catalog();
            let mut tools = now.tools.clone();
            let mut surface = now.surface.clone();
            if !f(&mut tools, &mut surface) {
                return false;
            }
            self.store_catalog(Catalog::new(tools, surface, self.page_size()));
        }
        self.publish(what);
        true
    }

    /// Sends a change over the bus: every process on it (this one included) tells its
    /// watchers ([`Server::hear`]).
    fn publish(&self, what: Change<'_>) {
        self.bus.publish(match what {
            Change::Tools => Event::ToolsChanged,
            Change::Prompts => Event::PromptsChanged,
            Change::Resources => Event::ResourcesChanged,
            Change::Updated(uri) => Event::ResourceUpdated(uri.to_owned()),
        });
    }

    /// A change heard on the bus: this process's watchers hear of it.
    pub(crate) fn hear(&self, event: &Event) {
        self.tell(match event {
            Event::ToolsChanged => Change::Tools,
            Event::PromptsChanged => Change::Prompts,
            Event::ResourcesChanged => Change::Resources,
            Event::ResourceUpdated(uri) => Change::Updated(uri),
        });
    }

    fn tell(&self, what: Change<'_>) {
        let live: Vec<Arc<dyn Watch>> = {
            let mut w = lock(&self.lists.watchers);
            w.all.retain(|w| w.strong_count() > 0);
            w.all.iter().filter_map(Weak::upgrade).collect()
        };
        for w in live {
            w.changed(what);
        }
    }
}

fn check_meta(name: &str, meta: Option<&janus_model::json::Json>) -> Result<(), SpecError> {
    if meta.is_some_and(|m| !m.is_object()) {
        return Err(SpecError {
            tool: name.to_owned(),
            reason: "_meta must be a JSON object".into(),
        });
    }
    Ok(())
}
