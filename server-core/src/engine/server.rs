//! The server's configuration, shared by all connections: identity, tools, and the parts of
//! every answer that do not change (pre-encoded once, per protocol revision).

use crate::api::complete::Complete;
use crate::api::prompts::{Prompt, PromptSpec};
use crate::api::resources::{
    ReadResource, ReadTemplate, ResourceSpec, StaticResource, TemplateSpec,
};
use crate::api::tools::{AsyncTool, Handler, SpecError, Tool, ToolSpec};
use crate::engine::store::{Bus, TaskStore};

use arc_swap::ArcSwap;
use bytes::BytesMut;
use janus_codec::ProtocolVersion;
use janus_codec::encode::JsonWriter;
use janus_model::shape::{self, Shape};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

pub(crate) mod lists;

/// The default number of tools in one `tools/list` page.
pub const DEFAULT_PAGE_SIZE: usize = 100;
/// The default `ttlMs` of modern list and discover results.
pub const DEFAULT_TTL_MS: u64 = 60_000;
/// How long a modern `requestState` stays valid by default.
pub const DEFAULT_STATE_TTL: Duration = Duration::from_secs(600);
/// How long a handshake session's handler waits for the client's answers by default.
pub const DEFAULT_INPUT_TIMEOUT: Duration = Duration::from_secs(300);

pub(crate) struct Entry {
    pub(crate) spec: ToolSpec,
    pub(crate) handler: Handler,
    /// The arguments that travel in `Mcp-Param-*` headers too, from the spec.
    param_headers: Vec<(String, String)>,
}

impl Entry {
    /// A tool whose spec passed its check.
    pub(crate) fn new(spec: ToolSpec, handler: Handler) -> Result<Self, SpecError> {
        let param_headers = spec.check().and_then(|()| spec.param_headers())?;
        Ok(Self {
            spec,
            handler,
            param_headers,
        })
    }
}

/// An item of a list, as a [`ServerBuilder::visibility`] rule sees it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Listed<'a> {
    /// A tool.
    Tool(&'a ToolSpec),
    /// A prompt.
    Prompt(&'a PromptSpec),
    /// A direct resource.
    Resource(&'a ResourceSpec),
    /// A resource template.
    Template(&'a TemplateSpec),
}

/// A rule that says whether the caller of a request sees an item.
pub type Visibility = dyn Fn(&crate::Ctx<'_>, Listed<'_>) -> bool + Send + Sync;

/// What a completion is registered for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CompletionRef {
    /// An argument of the prompt of this name.
    Prompt(String),
    /// A variable of the resource template with this URI template.
    Template(String),
}

/// The server's prompts, resources, templates and completions.
#[derive(Default, Clone)]
pub(crate) struct Surface {
    pub(crate) prompts: Vec<(PromptSpec, Arc<dyn Prompt>)>,
    pub(crate) resources: Vec<(ResourceSpec, Arc<dyn ReadResource>)>,
    pub(crate) templates: Vec<(TemplateSpec, Arc<dyn ReadTemplate>)>,
    pub(crate) completions: Vec<(CompletionRef, String, Arc<dyn Complete>)>,
}

impl Surface {
    pub(crate) fn prompt(&self, name: &str) -> Option<&(PromptSpec, Arc<dyn Prompt>)> {
        self.prompts.iter().find(|(s, _)| s.name == name)
    }

    pub(crate) fn completion(&self, r: &CompletionRef, argument: &str) -> Option<&dyn Complete> {
        self.completions
            .iter()
            .find(|(to, arg, _)| to == r && arg == argument)
            .map(|(_, _, h)| &**h)
    }

    pub(crate) fn has_resources(&self) -> bool {
        !self.resources.is_empty() || !self.templates.is_empty()
    }
}

/// The capabilities object of each era, as JSON text.
fn capabilities(surface: &Surface, legacy_tasks: bool, modern: bool) -> String {
    // NB. Every list can change at run time ([`Server::add_tool`] and the like), and a change
    // is announced: `notifications/*/list_changed` to sessions, and on `subscriptions/listen`.
    let mut c = String::from(r#"{"tools":{"listChanged":true}"#);
    if !surface.prompts.is_empty() {
        c.push_str(r#","prompts":{"listChanged":true}"#);
    }
    if surface.has_resources() {
        c.push_str(r#","resources":{"subscribe":true,"listChanged":true}"#);
    }
    if !surface.completions.is_empty() {
        c.push_str(r#","completions":{}"#);
    }
    // NB. Legacy sessions set their level with `logging/setLevel`; a modern request names its
    // own in `_meta`: both are served by every server.
    c.push_str(r#","logging":{}"#);
    if legacy_tasks {
        c.push_str(r#","tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}"#);
    }
    if modern {
        c.push_str(r#","extensions":{"io.modelcontextprotocol/tasks":{}}"#);
    }
    c.push('}');
    c
}

/// A configured server: build it with [`Server::builder`], share it with `Arc` between
/// connections.
pub struct Server {
    pub(crate) info_json: String,
    /// The `Implementation` without `title`, for revisions before 2025-06-18 (which lack it).
    pub(crate) untitled_info_json: String,
    pub(crate) instructions: Option<String>,
    page_size: usize,
    pub(crate) ttl_ms: u64,
    /// Per `resultType` (in [`shape::ResultType`] order): the modern stamp,
    /// `"resultType":"...","_meta":{"io.modelcontextprotocol/serverInfo":{...}}`.
    pub(crate) stamps: [String; 3],
    /// The lists as they are now; a change swaps in a new catalog.
    catalog: ArcSwap<Catalog>,
    pub(crate) input: InputConfig,
    pub(crate) lists: lists::Lists,
    /// Who sees what, when the lists depend on the caller.
    pub(crate) visible: Option<Box<Visibility>>,
    /// The process's task store, shared by every connection that serves this server.
    pub(crate) tasks: Arc<dyn TaskStore>,
    /// The bus list changes and resource updates go through.
    bus: Arc<dyn Bus>,
    /// Told each resource a client subscribes to ([`ServerBuilder::on_subscribe`]).
    pub(crate) on_subscribe: Option<Subscribed>,
}

/// What hears of a client's subscriptions to resources.
type Subscribed = Arc<dyn Fn(&str, bool) + Send + Sync>;

/// The server's lists at one moment: tools (with their pages encoded per revision), prompts,
/// resources, templates, completions, and the capabilities they make.
pub(crate) struct Catalog {
    pub(crate) tools: Vec<Arc<Entry>>,
    index: HashMap<String, usize>,
    /// Per revision (in `ProtocolVersion::KNOWN` order), per page: the tools, encoded and
    /// joined with commas.
    pages: Vec<Vec<String>>,
    pub(crate) surface: Surface,
    /// The capabilities of `initialize` before 2025-11-25, of 2025-11-25 (with tasks), and of
    /// `server/discover`.
    pub(crate) caps: [String; 3],
}

impl Catalog {
    pub(crate) fn new(tools: Vec<Arc<Entry>>, surface: Surface, page_size: usize) -> Self {
        let index = tools
            .iter()
            .enumerate()
            .map(|(i, e)| (e.spec.name.clone(), i))
            .collect();
        let pages = ProtocolVersion::KNOWN
            .iter()
            .map(|&v| {
                tools
                    .chunks(page_size)
                    .map(|chunk| {
                        let mut buf = BytesMut::new();
                        for (i, e) in chunk.iter().enumerate() {
                            if i > 0 {
                                buf.extend_from_slice(b",");
                            }
                            shape::write_tool(&mut buf, &e.spec, Shape::new(v));
                        }
                        String::from_utf8_lossy(&buf).into_owned()
                    })
                    .collect()
            })
            .collect();
        let caps = [
            capabilities(&surface, false, false),
            capabilities(&surface, true, false),
            capabilities(&surface, false, true),
        ];
        Self {
            tools,
            index,
            pages,
            surface,
            caps,
        }
    }

    fn position(&self, name: &str) -> Option<usize> {
        // A few names compare faster than they hash.
        if self.tools.len() <= 8 {
            self.tools.iter().position(|e| e.spec.name == name)
        } else {
            self.index.get(name).copied()
        }
    }

    pub(crate) fn tool(&self, name: &str) -> Option<(&ToolSpec, &Handler)> {
        self.position(name)
            .map(|i| (&self.tools[i].spec, &self.tools[i].handler))
    }

    /// The page a `tools/list` cursor names in `shape` (`None`: the first page); `None`
    /// when the cursor is not one this server minted.
    pub(crate) fn page(&self, shape: Shape, cursor: Option<&str>) -> Option<usize> {
        let page = match cursor {
            None => 0,
            Some(c) => decode_cursor(c)?,
        };
        let pages = self.pages[shape.index()].len();
        (page == 0 || page < pages).then_some(page)
    }

    /// Page `page` (from [`Catalog::page`]) in `shape`: its tools, encoded and joined with
    /// commas, and the cursor of the next page.
    pub(crate) fn tools_page(&self, shape: Shape, page: usize) -> (&str, Option<String>) {
        let pages = &self.pages[shape.index()];
        let next = (page + 1 < pages.len()).then(|| encode_cursor(page + 1));
        (pages.get(page).map_or("", String::as_str), next)
    }
}

/// How input rounds are kept: the `requestState` key and lifetime, the legacy wait.
#[derive(Clone)]
pub(crate) struct InputConfig {
    pub(crate) state_key: Vec<u8>,
    pub(crate) state_ttl_ms: u64,
    pub(crate) timeout_ms: u64,
    /// Told the state of each round given up ([`ServerBuilder::on_input_abandoned`]).
    pub(crate) abandoned: Option<Abandoned>,
}

/// What hears of a round given up.
type Abandoned = Arc<dyn Fn(&str) + Send + Sync>;

impl InputConfig {
    /// A round whose handler kept `state` is given up: its handler hears of it.
    pub(crate) fn abandon(&self, state: Option<&str>) {
        if let (Some(tell), Some(state)) = (&self.abandoned, state) {
            tell(state);
        }
    }
}

impl Default for InputConfig {
    fn default() -> Self {
        // NB. Random per process: a retry that reaches another replica fails its check unless
        // every replica is given the same key.
        let mut key = vec![0; 32];
        if getrandom::fill(&mut key).is_err() {
            // No randomness from the system: a key from the clock and the address space is
            // still unknown to a client, if weaker.
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let seed = format!("{t}{:p}", &key);
            key = seed.into_bytes();
        }
        Self {
            state_key: key,
            state_ttl_ms: millis(DEFAULT_STATE_TTL),
            timeout_ms: millis(DEFAULT_INPUT_TIMEOUT),
            abandoned: None,
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.info_json)
            .field("tools", &self.catalog().tools.len())
            .finish_non_exhaustive()
    }
}

/// Builds a [`Server`].
pub struct ServerBuilder {
    name: String,
    version: String,
    title: Option<String>,
    instructions: Option<String>,
    tools: Vec<Arc<Entry>>,
    page_size: usize,
    ttl_ms: u64,
    /// The first spec that failed its check, reported by [`ServerBuilder::build`].
    error: Option<SpecError>,
    surface: Surface,
    input: InputConfig,
    visible: Option<Box<Visibility>>,
    tasks: Option<Arc<dyn TaskStore>>,
    bus: Option<Arc<dyn Bus>>,
    on_subscribe: Option<Subscribed>,
}

impl ServerBuilder {
    /// The notification bus of the process (`decisions.md`, "Storage"): list changes and
    /// resource updates made through this server are published on it, and those heard on
    /// it reach this server's sessions and `subscriptions/listen` streams. A
    /// [`MemoryBus`](crate::engine::store::MemoryBus) of its own by default; replicas on a shared
    /// bus hear each other's changes.
    #[must_use]
    pub fn bus(mut self, bus: Arc<dyn Bus>) -> Self {
        self.bus = Some(bus);
        self
    }

    /// The task store of the process (`decisions.md`, "Storage"): every connection that
    /// serves the server (stdio, TCP, HTTP sessions and stateless POSTs) keeps its tasks
    /// there. A [`MemoryTaskStore`](crate::engine::store::MemoryTaskStore) of its own by default; a
    /// store that replicas share lets a task made through one be read, awaited and
    /// cancelled through another.
    #[must_use]
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.tasks = Some(store);
        self
    }

    /// Adds a prompt. A later prompt with the same name replaces the earlier one.
    #[must_use]
    pub fn prompt(mut self, spec: PromptSpec, handler: impl Prompt) -> Self {
        self.check_meta(&spec.name, spec.meta.as_ref());
        self.surface.prompts.retain(|(s, _)| s.name != spec.name);
        self.surface.prompts.push((spec, Arc::new(handler)));
        self
    }

    /// Adds a direct resource. A later one with the same URI replaces the earlier one.
    #[must_use]
    pub fn resource(mut self, spec: ResourceSpec, handler: impl ReadResource) -> Self {
        self.check_meta(&spec.uri, spec.meta.as_ref());
        self.surface.resources.retain(|(s, _)| s.uri != spec.uri);
        self.surface.resources.push((spec, Arc::new(handler)));
        self
    }

    /// Adds a prompt whose answer comes later (its work runs as a job).
    #[must_use]
    pub fn async_prompt(
        self,
        spec: PromptSpec,
        handler: impl crate::api::prompts::AsyncPrompt,
    ) -> Self {
        self.prompt(spec, crate::api::prompts::LaterPrompt(handler))
    }

    /// Adds a direct resource whose content comes later (its read runs as a job).
    #[must_use]
    pub fn async_resource(
        self,
        spec: ResourceSpec,
        handler: impl crate::api::resources::AsyncReadResource,
    ) -> Self {
        self.resource(spec, crate::api::resources::Later(handler))
    }

    /// Adds a resource whose content never changes: reads are answered from the encoded
    /// content, with no call and no allocation. The spec's `mimeType` is used when the
    /// content gives none.
    #[must_use]
    pub fn static_resource(self, spec: ResourceSpec, content: StaticResource) -> Self {
        let content = if content.mime_type.is_none() {
            let mut c = content;
            c.mime_type.clone_from(&spec.mime_type);
            c
        } else {
            content
        };
        self.resource(spec, content)
    }

    /// Adds a resource template; a URI that no direct resource names is read by the first
    /// template that matches it.
    #[must_use]
    pub fn resource_template(mut self, spec: TemplateSpec, handler: impl ReadTemplate) -> Self {
        self.check_meta(&spec.uri_template, spec.meta.as_ref());
        self.surface
            .templates
            .retain(|(s, _)| s.uri_template != spec.uri_template);
        self.surface.templates.push((spec, Arc::new(handler)));
        self
    }

    /// Adds a resource template whose reads come later (each runs as a job).
    #[must_use]
    pub fn async_resource_template(
        self,
        spec: TemplateSpec,
        handler: impl crate::api::resources::AsyncReadTemplate,
    ) -> Self {
        self.resource_template(spec, crate::api::resources::LaterTemplate(handler))
    }

    /// The builder's prompts, resources, templates and completions, and the first spec
    /// error it recorded.
    pub(crate) fn into_surface(self) -> (Surface, Option<SpecError>) {
        (self.surface, self.error)
    }

    /// Records a `_meta` that is not an object, for [`ServerBuilder::build`].
    fn check_meta(&mut self, name: &str, meta: Option<&janus_model::json::Json>) {
        if meta.is_some_and(|m| !m.is_object()) {
            self.error.get_or_insert(SpecError {
                tool: name.to_owned(),
                reason: "_meta must be a JSON object".into(),
            });
        }
    }

    /// Completes argument `argument` of prompt `prompt`.
    #[must_use]
    pub fn complete_prompt_argument(
        mut self,
        prompt: &str,
        argument: &str,
        handler: impl Complete,
    ) -> Self {
        self.surface.completions.push((
            CompletionRef::Prompt(prompt.to_owned()),
            argument.to_owned(),
            Arc::new(handler),
        ));
        self
    }

    /// Completes argument `argument` of prompt `prompt` with a handler whose answer comes
    /// later (its work runs as a job).
    #[must_use]
    pub fn async_complete_prompt_argument(
        self,
        prompt: &str,
        argument: &str,
        handler: impl crate::api::complete::AsyncComplete,
    ) -> Self {
        self.complete_prompt_argument(
            prompt,
            argument,
            crate::api::complete::LaterComplete(handler),
        )
    }

    /// Completes variable `variable` of the resource template `uri_template` with a handler
    /// whose answer comes later (its work runs as a job).
    #[must_use]
    pub fn async_complete_template_variable(
        self,
        uri_template: &str,
        variable: &str,
        handler: impl crate::api::complete::AsyncComplete,
    ) -> Self {
        self.complete_template_variable(
            uri_template,
            variable,
            crate::api::complete::LaterComplete(handler),
        )
    }

    /// Completes variable `variable` of the resource template `uri_template`.
    #[must_use]
    pub fn complete_template_variable(
        mut self,
        uri_template: &str,
        variable: &str,
        handler: impl Complete,
    ) -> Self {
        self.surface.completions.push((
            CompletionRef::Template(uri_template.to_owned()),
            variable.to_owned(),
            Arc::new(handler),
        ));
        self
    }

    /// Sets a human title for the server.
    #[must_use]
    pub fn title(mut self, title: &str) -> Self {
        self.title = Some(title.to_owned());
        self
    }

    /// Sets the `instructions` of the `initialize` and `server/discover` results.
    #[must_use]
    pub fn instructions(mut self, text: &str) -> Self {
        self.instructions = Some(text.to_owned());
        self
    }

    /// Adds a tool that answers inline. A later tool with the same name replaces the earlier
    /// one. Its spec is checked here; [`ServerBuilder::build`] reports a failure.
    #[must_use]
    pub fn tool(self, spec: ToolSpec, handler: impl Tool) -> Self {
        self.add(spec, Handler::Inline(Box::new(handler)))
    }

    /// Adds a tool whose answer comes later (its work runs as a job).
    #[must_use]
    pub fn async_tool(self, spec: ToolSpec, handler: impl AsyncTool) -> Self {
        self.add(spec, Handler::Async(Box::new(handler)))
    }

    /// Adds a typed tool that answers inline (feature `serde`): its arguments are an `A`, its
    /// result an `R`, and both schemas come from the types ([`crate::api::typed`]). The handler
    /// may also write content blocks of its own into the [`crate::api::tools::Output`].
    #[cfg(feature = "serde")]
    #[must_use]
    pub fn typed_tool<A, R, F>(self, name: &str, description: &str, f: F) -> Self
    where
        A: serde::de::DeserializeOwned + schemars::JsonSchema + 'static,
        R: serde::Serialize + schemars::JsonSchema + 'static,
        F: Fn(&crate::Ctx<'_>, A, &mut crate::api::tools::Output<'_>) -> Result<R, crate::Halt>
            + Send
            + Sync
            + 'static,
    {
        match crate::api::typed::spec::<A, R>(name, description) {
            Ok(spec) => self.tool(spec, crate::api::typed::Typed::new(f)),
            Err(e) => self.fail(e),
        }
    }

    /// Adds a typed tool whose answer comes later (feature `serde`).
    #[cfg(feature = "serde")]
    #[must_use]
    pub fn typed_async_tool<A, R, F, Fut>(self, name: &str, description: &str, f: F) -> Self
    where
        A: serde::de::DeserializeOwned + schemars::JsonSchema + 'static,
        R: serde::Serialize + schemars::JsonSchema + 'static,
        F: Fn(crate::Context, A) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<R, crate::Halt>> + Send + 'static,
    {
        match crate::api::typed::spec::<A, R>(name, description) {
            Ok(spec) => self.async_tool(spec, crate::api::typed::TypedAsync::new(f)),
            Err(e) => self.fail(e),
        }
    }

    /// Records a registration that failed, for [`ServerBuilder::build`].
    #[cfg(feature = "serde")]
    fn fail(mut self, e: SpecError) -> Self {
        self.error.get_or_insert(e);
        self
    }

    fn add(mut self, spec: ToolSpec, handler: Handler) -> Self {
        match Entry::new(spec, handler) {
            Ok(e) => {
                self.tools.retain(|t| t.spec.name != e.spec.name);
                self.tools.push(Arc::new(e));
            }
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    /// Sets how many tools one `tools/list` page holds (at least 1).
    #[must_use]
    pub fn page_size(mut self, n: usize) -> Self {
        self.page_size = n.max(1);
        self
    }

    /// Sets the `ttlMs` of modern list and discover results.
    #[must_use]
    pub const fn ttl_ms(mut self, ms: u64) -> Self {
        self.ttl_ms = ms;
        self
    }

    /// Makes the lists depend on who asks: `rule` says whether the request's caller (its
    /// [`crate::Ctx::principal`], its capabilities...) sees a tool, prompt, resource or
    /// template. Items it does not see are left out of the lists and are unknown to it
    /// (`tools/call`, `prompts/get`, `resources/read`, `completion/complete`), and every list
    /// and read is answered `cacheScope: "private"`. The rule must not depend on the
    /// connection: 2026-07-28 lists never do.
    #[must_use]
    pub fn visibility(
        mut self,
        rule: impl Fn(&crate::Ctx<'_>, Listed<'_>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.visible = Some(Box::new(rule));
        self
    }

    /// Sets the key that seals modern `requestState` (HMAC-SHA256). Replicas behind one
    /// balancer must share it; by default it is random per process.
    #[must_use]
    pub fn state_key(mut self, key: &[u8]) -> Self {
        self.input.state_key = key.to_vec();
        self
    }

    /// Sets how long a modern `requestState` stays valid (10 minutes by default).
    #[must_use]
    pub fn state_ttl(mut self, ttl: Duration) -> Self {
        self.input.state_ttl_ms = millis(ttl);
        self
    }

    /// Calls `tell` with the state a handler kept with its [`crate::InputRequired`] (its
    /// [`crate::InputRequired::state`]) when the round it asked is given up, so that what
    /// waits on it can end: its requests were refused for capabilities the client did not
    /// declare, or (a handshake session's) the client answered one with an error, did not
    /// answer in time, cancelled the request or ended its input. A 2026-07-28 round the
    /// client was given is not told of: its retry may come until its `requestState` expires.
    #[must_use]
    pub fn on_input_abandoned(mut self, tell: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.input.abandoned = Some(Arc::new(tell));
        self
    }

    /// Calls `tell(uri, true)` for each subscription a client makes to a resource, and
    /// `tell(uri, false)` when it lets it go: a handshake session's `resources/subscribe` of
    /// a URI it was not subscribed to (before its answer is written), and its
    /// `resources/unsubscribe` or its end; each URI a 2026-07-28 `subscriptions/listen` names
    /// in its `resourceSubscriptions` (as the server honours it), at its start and at its
    /// end. Each `true` is matched by one `false`; several clients may hold the same URI.
    /// For a server that must itself ask for a resource's updates (a gateway subscribing at
    /// its upstream).
    #[must_use]
    pub fn on_subscribe(mut self, tell: impl Fn(&str, bool) + Send + Sync + 'static) -> Self {
        self.on_subscribe = Some(Arc::new(tell));
        self
    }

    /// Sets how long a handshake session's handler waits for the client's answers to its
    /// input requests (5 minutes by default); then the request is answered `-32001`
    /// (a tool call: a tool error).
    #[must_use]
    pub fn input_timeout(mut self, timeout: Duration) -> Self {
        self.input.timeout_ms = millis(timeout);
        self
    }

    /// Encodes what never changes and returns the server.
    ///
    /// # Errors
    ///
    /// The first tool spec that failed its check ([`ToolSpec::check`]).
    pub fn build(self) -> Result<Arc<Server>, SpecError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let info_json = encode_info(&self.name, &self.version, self.title.as_deref());
        let untitled_info_json = encode_info(&self.name, &self.version, None);
        let stamps = shape::ResultType::ALL.map(|t| {
            format!(
                r#""resultType":"{}","_meta":{{"{}":{info_json}}}"#,
                t.as_str(),
                janus_codec::era::SERVER_INFO_KEY
            )
        });
        let catalog = Catalog::new(self.tools, self.surface, self.page_size);
        let bus = self
            .bus
            .unwrap_or_else(|| Arc::new(crate::engine::store::MemoryBus::new()));
        Ok(Arc::new_cyclic(|me: &std::sync::Weak<Server>| {
            let me = me.clone();
            bus.subscribe(Arc::new(move |event| {
                if let Some(server) = me.upgrade() {
                    server.hear(event);
                }
            }));
            Server {
                info_json,
                untitled_info_json,
                instructions: self.instructions,
                page_size: self.page_size,
                ttl_ms: self.ttl_ms,
                stamps,
                catalog: ArcSwap::from_pointee(catalog),
                input: self.input,
                lists: lists::Lists::default(),
                visible: self.visible,
                tasks: self
                    .tasks
                    .unwrap_or_else(|| Arc::new(crate::engine::store::MemoryTaskStore::new())),
                bus,
                on_subscribe: self.on_subscribe,
            }
        }))
    }
}

/// An `Implementation` object as JSON text.
fn encode_info(name: &str, version: &str, title: Option<&str>) -> String {
    let mut info = BytesMut::new();
    let mut w = JsonWriter::new(&mut info);
    w.begin_object();
    w.key("name").str(name);
    w.key("version").str(version);
    if let Some(t) = title {
        w.key("title").str(t);
    }
    w.end_object();
    String::from_utf8_lossy(&info).into_owned()
}

impl Server {
    /// Starts building a server named `name` at `version` (its `Implementation`).
    #[must_use]
    pub fn builder(name: &str, version: &str) -> ServerBuilder {
        ServerBuilder {
            name: name.to_owned(),
            version: version.to_owned(),
            title: None,
            instructions: None,
            tools: Vec::new(),
            page_size: DEFAULT_PAGE_SIZE,
            ttl_ms: DEFAULT_TTL_MS,
            error: None,
            surface: Surface::default(),
            input: InputConfig::default(),
            visible: None,
            tasks: None,
            bus: None,
            on_subscribe: None,
        }
    }

    /// The process's task store ([`ServerBuilder::task_store`]).
    #[must_use]
    pub fn task_store(&self) -> &Arc<dyn TaskStore> {
        &self.tasks
    }

    /// The server's `Implementation` object, as JSON text.
    #[must_use]
    pub fn info_json(&self) -> &str {
        &self.info_json
    }

    /// The lists as they are now.
    pub(crate) fn catalog(&self) -> arc_swap::Guard<Arc<Catalog>> {
        self.catalog.load()
    }

    /// Swaps in a new catalog (the writer holds the lists' lock).
    pub(crate) fn store_catalog(&self, c: Catalog) {
        self.catalog.store(Arc::new(c));
    }

    /// True when `ctx`'s caller sees `item` (always, without a visibility rule).
    pub(crate) fn shows(&self, ctx: &crate::Ctx<'_>, item: Listed<'_>) -> bool {
        self.visible.as_ref().is_none_or(|rule| rule(ctx, item))
    }

    /// The arguments of tool `name` that travel in `Mcp-Param-*` headers too.
    #[must_use]
    pub fn param_headers(&self, name: &str) -> Vec<(String, String)> {
        let cat = self.catalog();
        cat.position(name)
            .map_or_else(Vec::new, |i| cat.tools[i].param_headers.clone())
    }

    /// How many tools one page holds.
    #[must_use]
    pub const fn page_size(&self) -> usize {
        self.page_size
    }
}

/// The bounds of the page a cursor names in a list of `len` items, and the next page's
/// cursor: `None` when the cursor is not one this server minted.
pub(crate) fn page_bounds(
    len: usize,
    page_size: usize,
    cursor: Option<&str>,
) -> Option<(usize, usize, Option<String>)> {
    let page = match cursor {
        None => 0,
        Some(c) => decode_cursor(c)?,
    };
    let start = page.checked_mul(page_size)?;
    if page > 0 && start >= len {
        return None;
    }
    let end = start.saturating_add(page_size).min(len);
    Some((start, end, (end < len).then(|| encode_cursor(page + 1))))
}

/// Cursors are opaque to clients: a page number behind a fixed prefix.
fn encode_cursor(page: usize) -> String {
    format!("janus-page-{page}")
}

fn decode_cursor(c: &str) -> Option<usize> {
    let n: usize = c.strip_prefix("janus-page-")?.parse().ok()?;
    (n > 0 && c == encode_cursor(n)).then_some(n)
}
