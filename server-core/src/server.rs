//! The server's configuration, shared by all connections: identity, tools, and the parts of
//! every answer that do not change (pre-encoded once, per protocol revision).

use crate::tools::{Tool, ToolSpec};
use bytes::BytesMut;
use janus_codec::encode::{self, JsonWriter};
use janus_codec::{ProtocolVersion, era};
use std::collections::HashMap;
use std::sync::Arc;

/// The default number of tools in one `tools/list` page.
pub const DEFAULT_PAGE_SIZE: usize = 100;
/// The default `ttlMs` of modern list and discover results.
pub const DEFAULT_TTL_MS: u64 = 60_000;

/// What a revision's results and tool descriptions may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) version: ProtocolVersion,
}

impl Shape {
    pub(crate) const fn new(version: ProtocolVersion) -> Self {
        Self { version }
    }

    /// Tool annotations exist from 2025-03-26.
    const fn annotations(self) -> bool {
        !matches!(self.version, ProtocolVersion::V2024_11_05)
    }

    /// `title`, `outputSchema` and `structuredContent` exist from 2025-06-18.
    pub(crate) const fn structured(self) -> bool {
        !matches!(
            self.version,
            ProtocolVersion::V2024_11_05 | ProtocolVersion::V2025_03_26
        )
    }

    /// `execution.taskSupport` exists in 2025-11-25 only (the 2026 Tool has no `execution`).
    const fn execution(self) -> bool {
        matches!(self.version, ProtocolVersion::V2025_11_25)
    }

    pub(crate) const fn modern(self) -> bool {
        self.version.is_modern()
    }

    fn index(self) -> usize {
        ProtocolVersion::KNOWN
            .iter()
            .position(|v| *v == self.version)
            .unwrap_or(0)
    }
}

struct Entry {
    spec: ToolSpec,
    handler: Box<dyn Tool>,
}

/// A configured server: build it with [`Server::builder`], share it with `Arc` between
/// connections.
pub struct Server {
    info_json: String,
    /// The `Implementation` without `title`, for revisions before 2025-06-18 (which lack it).
    untitled_info_json: String,
    instructions: Option<String>,
    tools: Vec<Entry>,
    index: HashMap<String, usize>,
    page_size: usize,
    ttl_ms: u64,
    /// Per revision (in `ProtocolVersion::KNOWN` order), per page: the tools, encoded and
    /// joined with commas.
    pages: Vec<Vec<String>>,
    /// `,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{...}}`.
    modern_tail: String,
    clock: fn() -> u64,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.info_json)
            .field("tools", &self.index.len())
            .finish_non_exhaustive()
    }
}

/// Builds a [`Server`].
pub struct ServerBuilder {
    name: String,
    version: String,
    title: Option<String>,
    instructions: Option<String>,
    tools: Vec<Entry>,
    page_size: usize,
    ttl_ms: u64,
    clock: fn() -> u64,
}

/// Milliseconds since the Unix epoch, from the system clock.
#[must_use]
pub fn system_clock() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl ServerBuilder {
    /// Sets the clock (milliseconds since the Unix epoch) that task timestamps and expiry
    /// read; [`system_clock`] by default. Tests pass their own.
    #[must_use]
    pub fn clock(mut self, clock: fn() -> u64) -> Self {
        self.clock = clock;
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

    /// Adds a tool. A later tool with the same name replaces the earlier one.
    #[must_use]
    pub fn tool(mut self, spec: ToolSpec, handler: impl Tool) -> Self {
        self.tools.retain(|e| e.spec.name != spec.name);
        self.tools.push(Entry {
            spec,
            handler: Box::new(handler),
        });
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

    /// Encodes what never changes and returns the server.
    #[must_use]
    pub fn build(self) -> Arc<Server> {
        let info_json = encode_info(&self.name, &self.version, self.title.as_deref());
        let untitled_info_json = encode_info(&self.name, &self.version, None);
        let modern_tail = format!(
            r#","resultType":"complete","_meta":{{"{}":{info_json}}}"#,
            era::SERVER_INFO_KEY
        );
        let index = self
            .tools
            .iter()
            .enumerate()
            .map(|(i, e)| (e.spec.name.clone(), i))
            .collect();
        let pages = ProtocolVersion::KNOWN
            .iter()
            .map(|&v| {
                self.tools
                    .chunks(self.page_size)
                    .map(|chunk| {
                        let mut buf = BytesMut::new();
                        for (i, e) in chunk.iter().enumerate() {
                            if i > 0 {
                                buf.extend_from_slice(b",");
                            }
                            encode_tool(&mut buf, &e.spec, Shape::new(v));
                        }
                        String::from_utf8_lossy(&buf).into_owned()
                    })
                    .collect()
            })
            .collect();
        Arc::new(Server {
            info_json,
            untitled_info_json,
            instructions: self.instructions,
            tools: self.tools,
            index,
            page_size: self.page_size,
            ttl_ms: self.ttl_ms,
            pages,
            modern_tail,
            clock: self.clock,
        })
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

fn encode_tool(buf: &mut BytesMut, spec: &ToolSpec, shape: Shape) {
    let mut w = JsonWriter::new(buf);
    w.begin_object();
    w.key("name").str(&spec.name);
    if shape.structured()
        && let Some(t) = &spec.title
    {
        w.key("title").str(t);
    }
    if let Some(d) = &spec.description {
        w.key("description").str(d);
    }
    w.key("inputSchema").raw(&spec.input_schema);
    if shape.structured()
        && let Some(s) = &spec.output_schema
    {
        w.key("outputSchema").raw(s);
    }
    if shape.annotations()
        && let Some(a) = &spec.annotations
    {
        w.key("annotations").raw(a);
    }
    if shape.execution() {
        w.key("execution").begin_object();
        w.key("taskSupport").str(spec.task_support.as_str());
        w.end_object();
    }
    w.end_object();
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
            clock: system_clock,
        }
    }

    /// The server's `Implementation` object, as JSON text.
    #[must_use]
    pub fn info_json(&self) -> &str {
        &self.info_json
    }

    pub(crate) fn tool(&self, name: &str) -> Option<(&ToolSpec, &dyn Tool)> {
        // A few names compare faster than they hash.
        let i = if self.tools.len() <= 8 {
            self.tools.iter().position(|e| e.spec.name == name)
        } else {
            self.index.get(name).copied()
        };
        i.map(|i| (&self.tools[i].spec, &*self.tools[i].handler))
    }

    /// Milliseconds since the Unix epoch, from the server's clock (task timestamps and
    /// expiry; the only time the core uses).
    #[must_use]
    pub fn now_ms(&self) -> u64 {
        (self.clock)()
    }

    pub(crate) fn modern_tail(&self) -> &str {
        &self.modern_tail
    }

    /// Writes the `initialize` result for the negotiated `version`, in that revision's shape
    /// (`serverInfo.title` exists from 2025-06-18).
    pub(crate) fn write_initialize(&self, out: &mut BytesMut, version: ProtocolVersion) {
        let info = if Shape::new(version).structured() {
            &self.info_json
        } else {
            &self.untitled_info_json
        };
        let mut w = JsonWriter::new(out);
        w.begin_object();
        w.key("protocolVersion").str(version.as_str());
        // NB. Experimental tasks exist in 2025-11-25 only.
        w.key("capabilities").raw(if version == ProtocolVersion::V2025_11_25 {
            r#"{"tools":{"listChanged":false},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}"#
        } else {
            r#"{"tools":{"listChanged":false}}"#
        });
        w.key("serverInfo").raw(info);
        if let Some(i) = &self.instructions {
            w.key("instructions").str(i);
        }
        w.end_object();
    }

    /// Writes the `server/discover` result.
    pub(crate) fn write_discover(&self, out: &mut BytesMut) {
        out.extend_from_slice(br#"{"supportedVersions":["#);
        for (i, v) in ProtocolVersion::MODERN.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b",");
            }
            encode::write_str(out, v.as_str());
        }
        out.extend_from_slice(
            br#"],"capabilities":{"tools":{"listChanged":false},"extensions":{"io.modelcontextprotocol/tasks":{}}}"#,
        );
        if let Some(i) = &self.instructions {
            out.extend_from_slice(br#","instructions":"#);
            encode::write_str(out, i);
        }
        self.write_cache_hints(out);
        out.extend_from_slice(self.modern_tail.as_bytes());
        out.extend_from_slice(b"}");
    }

    fn write_cache_hints(&self, out: &mut BytesMut) {
        out.extend_from_slice(br#","ttlMs":"#);
        encode::write_i64(out, i64::try_from(self.ttl_ms).unwrap_or(i64::MAX));
        out.extend_from_slice(br#","cacheScope":"public""#);
    }

    /// Writes a `tools/list` result for the page at `cursor`.
    ///
    /// # Errors
    ///
    /// `Err(())` when the cursor is not one this server minted.
    pub(crate) fn write_tools_list(
        &self,
        out: &mut BytesMut,
        shape: Shape,
        cursor: Option<&str>,
    ) -> Result<(), ()> {
        let page = match cursor {
            None => 0,
            Some(c) => decode_cursor(c).ok_or(())?,
        };
        let pages = &self.pages[shape.index()];
        if page > 0 && page >= pages.len() {
            return Err(());
        }
        out.extend_from_slice(br#"{"tools":["#);
        if let Some(p) = pages.get(page) {
            out.extend_from_slice(p.as_bytes());
        }
        out.extend_from_slice(b"]");
        if page + 1 < pages.len() {
            out.extend_from_slice(br#","nextCursor":"#);
            encode::write_str(out, &encode_cursor(page + 1));
        }
        if shape.modern() {
            self.write_cache_hints(out);
            out.extend_from_slice(self.modern_tail.as_bytes());
        }
        out.extend_from_slice(b"}");
        Ok(())
    }

    /// How many tools one page holds.
    #[must_use]
    pub const fn page_size(&self) -> usize {
        self.page_size
    }
}

/// Cursors are opaque to clients: a page number behind a fixed prefix.
fn encode_cursor(page: usize) -> String {
    format!("janus-page-{page}")
}

fn decode_cursor(c: &str) -> Option<usize> {
    let n: usize = c.strip_prefix("janus-page-")?.parse().ok()?;
    (n > 0 && c == encode_cursor(n)).then_some(n)
}
