//! A tool call's result ([`ToolResult`]): its content blocks, `structuredContent` and
//! `isError`, as every revision has them. What 2026-07-28 adds to every result (`resultType`,
//! the server's stamp in `_meta`) is the answer's, not the tool's: it is written with the
//! answer and left out when a result is read.

use crate::content::Content;
use crate::json::Json;
use janus_codec::RawJson;
use janus_codec::era::SERVER_INFO_KEY;

/// A tool call's result: what an asynchronous handler returns, what a client reads from
/// `tools/call`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolResult {
    /// Content blocks, in order.
    pub content: Vec<Content>,
    /// `structuredContent`.
    pub structured: Option<Json>,
    /// True for a failure the model should see.
    pub is_error: bool,
    /// The result's `_meta` (an object), as the tool gives it. A 2026-07-28 server's stamp
    /// (`io.modelcontextprotocol/serverInfo`) is the answer's: it is not in here, and is
    /// left out when a result is read.
    pub meta: Option<Json>,
}

impl ToolResult {
    /// One text block.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(text)],
            ..Self::default()
        }
    }

    /// A failure the model should see, with a message.
    #[must_use]
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(message)],
            is_error: true,
            ..Self::default()
        }
    }

    /// Adds a content block.
    #[must_use]
    pub fn with(mut self, c: Content) -> Self {
        self.content.push(c);
        self
    }

    /// Sets `structuredContent`.
    #[must_use]
    pub fn with_structured(mut self, json: Json) -> Self {
        self.structured = Some(json);
        self
    }

    /// Sets the result's `_meta` (written only when it is an object).
    #[must_use]
    pub fn with_meta(mut self, meta: Json) -> Self {
        self.meta = Some(meta);
        self
    }
}

impl ToolResult {
    /// Reads a `tools/call` result of any revision: its blocks ([`Content::read`]), its
    /// `structuredContent` (kept as sent), `isError` (`false` when absent) and `_meta` (kept
    /// as sent, but for a server's stamp, which is left out).
    ///
    /// # Errors
    ///
    /// Why it is no tool result: not an object, or members as [`ToolResult::from_members`]
    /// refuses them.
    pub fn read(result: RawJson<'_>) -> Result<Self, String> {
        if !result.is_object() {
            return Err("a result that is not an object".into());
        }
        let [content, structured, is_error, meta] =
            result.get_many(["content", "structuredContent", "isError", "_meta"]);
        let mut r = Self::from_members(content, structured, is_error)?;
        r.meta = meta.and_then(meta_without_stamp);
        Ok(r)
    }

    /// [`ToolResult::read`] from the result's `content`, `structuredContent` and `isError`
    /// members, for a reader that walked the result's members for more than these (and
    /// reads `_meta` its own way: it is left `None`).
    ///
    /// # Errors
    ///
    /// `content` that is not an array, or holds a block that is no object with a `type`;
    /// `structuredContent` that is no object; `isError` that is no boolean.
    pub fn from_members(
        content: Option<RawJson<'_>>,
        structured: Option<RawJson<'_>>,
        is_error: Option<RawJson<'_>>,
    ) -> Result<Self, String> {
        Self::of_members(content, structured, is_error, Content::read)
    }

    /// [`ToolResult::from_members`] with each content block passed on as it came
    /// ([`Content::as_sent`]), unread: for a gateway whose client's revision has every block
    /// type its server's has.
    ///
    /// # Errors
    ///
    /// As [`ToolResult::from_members`].
    pub fn from_members_as_sent(
        content: Option<RawJson<'_>>,
        structured: Option<RawJson<'_>>,
        is_error: Option<RawJson<'_>>,
    ) -> Result<Self, String> {
        Self::of_members(content, structured, is_error, Content::as_sent)
    }

    fn of_members(
        content: Option<RawJson<'_>>,
        structured: Option<RawJson<'_>>,
        is_error: Option<RawJson<'_>>,
        block: fn(RawJson<'_>) -> Content,
    ) -> Result<Self, String> {
        let content = match content {
            None => Vec::new(),
            Some(c) if c.is_array() => c
                .iter_elements()
                .map(|b| {
                    // NB. A block of a type no revision has goes on (a later revision's); one
                    // that is no typed object is no block at all.
                    let typed = typed_block(b);
                    typed.then(|| block(b)).ok_or_else(|| {
                        "content holds a block that is no object with a type".to_owned()
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("content that is not an array".into()),
        };
        let structured = match structured.filter(|s| !s.is_null()) {
            Some(s) if !s.is_object() => {
                return Err("structuredContent that is not an object".into());
            }
            s => s.map(Json::from_raw),
        };
        let is_error = match is_error.map(|e| e.as_str()) {
            None | Some("false" | "null") => false,
            Some("true") => true,
            Some(_) => return Err("isError that is not a boolean".into()),
        };
        Ok(Self {
            content,
            structured,
            is_error,
            meta: None,
        })
    }
}

/// True when `b` is an object whose `type` is a string. The usual block, compact with its
/// type first, is seen at a glance; another is looked through.
fn typed_block(b: RawJson<'_>) -> bool {
    b.as_str().starts_with("{\"type\":\"")
        || (b.is_object() && b.get("type").is_some_and(|t| t.as_string().is_some()))
}

/// A result's `_meta` without a server's stamp: as sent when it has none, rebuilt without
/// it when it has; `None` when it is no object or nothing is left.
#[must_use]
pub fn meta_without_stamp(meta: RawJson<'_>) -> Option<Json> {
    if !meta.is_object() {
        return None;
    }
    let text = meta.as_str();
    if !text.contains(SERVER_INFO_KEY) {
        return crate::json::object_members(text).map(|_| Json::from_raw(meta));
    }
    // NB. The common case, the stamp alone (compact), is seen without a walk of its own.
    if let Some(rest) = text
        .strip_prefix("{\"")
        .and_then(|t| t.strip_prefix(SERVER_INFO_KEY))
        .and_then(|t| t.strip_prefix("\":"))
        && let Some(v) = meta.get(SERVER_INFO_KEY)
        && rest.len() == v.as_str().len() + 1
    {
        return None;
    }
    crate::json::object_without(meta, |k| k == SERVER_INFO_KEY)
}
