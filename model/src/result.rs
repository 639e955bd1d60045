//! A tool call's result ([`ToolResult`]): its content blocks, `structuredContent` and
//! `isError`, as every revision has them. What 2026-07-28 adds to every result (`resultType`,
//! the server's stamp in `_meta`) is the answer's, not the tool's: it is written with the
//! answer and left out when a result is read.

use crate::content::Content;
use crate::json::Json;
use janus_codec::RawJson;

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
            structured: None,
            is_error: true,
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
}

impl ToolResult {
    /// Reads a `tools/call` result of any revision: its blocks ([`Content::read`]), its
    /// `structuredContent` (kept as sent) and `isError` (`false` when absent).
    ///
    /// # Errors
    ///
    /// Why it is no tool result: not an object, or `content` that is not an array.
    pub fn read(result: RawJson<'_>) -> Result<Self, String> {
        if !result.is_object() {
            return Err("a result that is not an object".into());
        }
        let [content, structured, is_error] =
            result.get_many(["content", "structuredContent", "isError"]);
        Self::from_members(content, structured, is_error)
    }

    /// [`ToolResult::read`] from the result's `content`, `structuredContent` and `isError`
    /// members, for a reader that walked the result's members for more than these.
    ///
    /// # Errors
    ///
    /// `content` that is not an array.
    pub fn from_members(
        content: Option<RawJson<'_>>,
        structured: Option<RawJson<'_>>,
        is_error: Option<RawJson<'_>>,
    ) -> Result<Self, String> {
        let content = match content {
            None => Vec::new(),
            Some(c) if c.is_array() => c.iter_elements().map(Content::read).collect(),
            Some(_) => return Err("content that is not an array".into()),
        };
        Ok(Self {
            content,
            structured: structured.filter(|s| !s.is_null()).map(Json::from_raw),
            is_error: is_error.is_some_and(|e| e.as_str() == "true"),
        })
    }
}
