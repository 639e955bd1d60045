//! One normalised call result whatever the revision: content blocks of every type,
//! `structuredContent` and `isError`. What 2026-07-28 adds to every result (`resultType`, the
//! server's stamp in `_meta`) is read and left out, so the same tool served in two eras gives
//! equal results.

use crate::error::Error;
use crate::json::canonical;
use janus_codec::RawJson;
pub use janus_model::content::Content;
use janus_model::result::ToolResult;

/// The `_meta` key of the server's stamp on every 2026-07-28 result.
pub(crate) const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// What a `tools/call` answered: the model's [`ToolResult`] as a caller compares it
/// (`structuredContent` as canonical JSON), with the result's `_meta`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallResult {
    /// The content blocks.
    pub content: Vec<Content>,
    /// `structuredContent`, canonical JSON.
    pub structured: Option<String>,
    /// `isError`: the tool failed, and says why in its content.
    pub is_error: bool,
    /// `_meta` without the server's stamp, canonical JSON; `None` when nothing is left.
    pub meta: Option<String>,
}

impl CallResult {
    /// Reads a `tools/call` result.
    ///
    /// # Errors
    ///
    /// Why it is no call result: not an object, or a `content` that is not an array.
    pub fn from_wire(result: RawJson<'_>) -> Result<Self, String> {
        complete(Self::read(result, true))
    }

    /// Reads a `tools/call` result and its `resultType` in one walk: the result only when
    /// it is complete.
    pub(crate) fn read(
        result: RawJson<'_>,
        modern: bool,
    ) -> (ResultType, Option<Result<Self, String>>) {
        read_members(result, modern, Self::of)
    }

    fn of(
        content: Option<RawJson<'_>>,
        structured: Option<RawJson<'_>>,
        is_error: Option<RawJson<'_>>,
        meta: Option<RawJson<'_>>,
    ) -> Result<Self, String> {
        let r = ToolResult::from_members(content, structured, is_error)
            .map_err(|e| format!("a tools/call result whose {e}"))?;
        Ok(Self {
            content: r.content,
            structured: r.structured.map(|s| canonical(s.as_str())),
            is_error: r.is_error,
            meta: meta.and_then(without_stamp),
        })
    }

    /// The text of every `text` block, one after the other.
    #[must_use]
    pub fn text(&self) -> String {
        self.content.iter().filter_map(Content::as_text).collect()
    }
}

/// The members of a call result: its `resultType` and, when it is complete, what `of` makes
/// of its `content`, `structuredContent`, `isError` and `_meta` (one walk). The answer to a
/// request that was not `modern` (a handshake revision's) is complete whatever its
/// `resultType` member says: its revision has none.
fn read_members<T>(
    result: RawJson<'_>,
    modern: bool,
    of: impl FnOnce(
        Option<RawJson<'_>>,
        Option<RawJson<'_>>,
        Option<RawJson<'_>>,
        Option<RawJson<'_>>,
    ) -> Result<T, String>,
) -> (ResultType, Option<Result<T, String>>) {
    if !result.is_object() {
        let e = Err("a tools/call result that is not an object".into());
        return (ResultType::Complete, Some(e));
    }
    let [content, structured, is_error, meta, kind] = result.get_many([
        "content",
        "structuredContent",
        "isError",
        "_meta",
        "resultType",
    ]);
    let kind = ResultType::in_revision(kind, modern);
    if kind != ResultType::Complete {
        return (kind, None);
    }
    (kind, Some(of(content, structured, is_error, meta)))
}

/// What a read of a call result made of it, when the result is complete (else why it is
/// none).
pub(crate) fn complete<T>(read: (ResultType, Option<Result<T, String>>)) -> Result<T, String> {
    read.1
        .unwrap_or_else(|| Err("not a complete result".into()))
}

/// A `tools/call` result to pass on ([`crate::Client::call_tool_as_sent`]) and its
/// `resultType`, in one walk: its blocks, `structuredContent` and `_meta` as they came
/// (without the server's stamp), unread.
pub(crate) fn read_as_sent(
    result: RawJson<'_>,
    modern: bool,
) -> (ResultType, Option<Result<ToolResult, String>>) {
    read_members(result, modern, |content, structured, is_error, meta| {
        let mut r = ToolResult::from_members_as_sent(content, structured, is_error)
            .map_err(|e| format!("a tools/call result whose {e}"))?;
        r.meta = meta.and_then(janus_model::result::meta_without_stamp);
        Ok(r)
    })
}

/// A `_meta` object without the server's stamp, as canonical JSON; `None` when it is empty.
pub(crate) fn without_stamp(meta: RawJson<'_>) -> Option<String> {
    janus_model::result::meta_without_stamp(meta).map(|m| canonical(m.as_str()))
}

/// A result's `resultType`: absent (a legacy server) is `complete`; an unknown one is
/// invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ResultType {
    Complete,
    InputRequired,
    /// A task the server made of the request (the 2026-07-28 tasks extension).
    Task,
    Unknown(String),
}

impl ResultType {
    /// The type of result `r` (one walk over its members).
    pub(crate) fn of(r: RawJson<'_>) -> Self {
        Self::named(r.get("resultType"))
    }

    /// The type a `resultType` member names in the answer to a request sent in a 2026-07-28
    /// revision (`modern`); a handshake server's answer is the result whatever the member
    /// says (its revision has none): never a round to retry, nor a task to wait for.
    pub(crate) fn in_revision(v: Option<RawJson<'_>>, modern: bool) -> Self {
        if modern {
            Self::named(v)
        } else {
            Self::Complete
        }
    }

    /// The type a `resultType` member names.
    pub(crate) fn named(v: Option<RawJson<'_>>) -> Self {
        match v.and_then(RawJson::as_string).as_deref() {
            None | Some("complete") => Self::Complete,
            Some("input_required") => Self::InputRequired,
            Some("task") => Self::Task,
            Some(other) => Self::Unknown(other.to_owned()),
        }
    }

    /// The type, or the error an unknown one is.
    pub(crate) fn check(&self) -> Result<&Self, Error> {
        match self {
            Self::Unknown(t) => Err(Error::Protocol(format!("unknown resultType {t:?}"))),
            known => Ok(known),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> CallResult {
        CallResult::from_wire(RawJson::parse(json).unwrap()).unwrap()
    }

    #[test]
    fn every_block_type_is_read_and_the_eras_agree() {
        let legacy = r#"{"content":[{"type":"text","text":"hi"},{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"audio","data":"AA==","mimeType":"audio/wav"},{"type":"resource_link","uri":"a://b","name":"b"},{"type":"resource","resource":{"uri":"a://c","text":"t"}},{"type":"future","x":1}],"structuredContent":{"n": 1},"isError":false}"#;
        let modern = r#"{"content":[{"type":"text","text":"hi"},{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"audio","data":"AA==","mimeType":"audio/wav"},{"type":"resource_link","uri":"a://b","name":"b"},{"type":"resource","resource":{"uri":"a://c","text":"t"}},{"type":"future","x":1}],"structuredContent":{"n":1},"isError":false,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}"#;
        let a = read(legacy);
        assert_eq!(a, read(modern));
        assert_eq!(a.content.len(), 6);
        assert_eq!(a.text(), "hi");
        assert_eq!(a.structured.as_deref(), Some(r#"{"n":1}"#));
        assert!(matches!(
            a.content[5].block,
            janus_model::content::Block::Other(_)
        ));
        assert_eq!(a.meta, None);
        let tagged = read(
            r#"{"content":[],"isError":true,"_meta":{"k":[1, 2],"io.modelcontextprotocol/serverInfo":{}}}"#,
        );
        assert!(tagged.is_error);
        assert_eq!(tagged.meta.as_deref(), Some(r#"{"k":[1,2]}"#));
    }

    #[test]
    fn a_result_that_is_no_call_result_is_refused() {
        for bad in ["[]", r#"{"content":"x"}"#] {
            assert!(CallResult::from_wire(RawJson::parse(bad).unwrap()).is_err());
        }
    }
}
