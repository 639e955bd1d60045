//! `Message<'buf>`: a JSON-RPC message read in place from its frame.

use crate::Error;
use crate::envelope::Envelope;
use crate::raw::{Id, RawJson};
use crate::scan::Scanner;
use crate::text::Text;
use read::{Members, ParamMembers, classify, finish, read_object, scan_frame};
use std::borrow::Cow;

mod read;

/// The default nesting limit: containers deeper than this are refused with `-32700`.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// What a well-formed message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageKind {
    /// `method` and `id`: an answer is due.
    Request,
    /// `method` without `id`: no answer is ever written.
    Notification,
    /// `result` and `id`.
    Response,
    /// `error`, with an id or `null`.
    ErrorResponse,
}

/// A JSON-RPC 2.0 message viewed in place: every field borrows from the frame.
#[derive(Debug, Clone)]
pub struct Message<'buf> {
    kind: MessageKind,
    id: Option<Id<'buf>>,
    method: Cow<'buf, str>,
    params: Option<RawJson<'buf>>,
    meta: Option<RawJson<'buf>>,
    envelope: Envelope<'buf>,
    params_members: ParamMembers,
    result: Option<RawJson<'buf>>,
    error: Option<RawJson<'buf>>,
}

impl<'buf> Message<'buf> {
    /// Request, notification, response or error response.
    #[must_use]
    pub const fn kind(&self) -> MessageKind {
        self.kind
    }

    /// The id; `None` for a notification and for an error response with id `null`.
    #[must_use]
    pub const fn id(&self) -> Option<Id<'buf>> {
        self.id
    }

    /// The method of a request or notification (`""` for responses).
    /// It borrows from the frame unless the method was written with escapes.
    #[must_use]
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The `params` value as sent (an object or an array).
    #[must_use]
    pub const fn params(&self) -> Option<RawJson<'buf>> {
        self.params
    }

    /// The member `key` of an object `params` (the last one of a duplicated key), found
    /// during the validating pass when `params` has few members, else by a walk over it.
    #[must_use]
    pub fn param(&self, key: &str) -> Option<RawJson<'buf>> {
        let params = self.params?;
        if self.params_members.more {
            return params.get(key);
        }
        self.params_members.find(params.as_str(), key)
    }

    /// The members `keys` of an object `params`, as [`Message::param`] finds each: among
    /// the members kept during the validating pass, else in one walk over `params` for all.
    #[must_use]
    pub fn params_many<const N: usize>(&self, keys: [&str; N]) -> [Option<RawJson<'buf>>; N] {
        match self.params {
            None => [None; N],
            Some(p) if self.params_members.more => p.get_many(keys),
            Some(p) => keys.map(|k| self.params_members.find(p.as_str(), k)),
        }
    }

    /// `params._meta` as sent, when `params` is an object that has it (of any type).
    /// Found during the validating pass, so reading the envelope needs no second walk over
    /// `params`.
    #[must_use]
    pub const fn meta(&self) -> Option<RawJson<'buf>> {
        self.meta
    }

    /// The envelope keys read from `params._meta` (empty when there is none), found during
    /// the validating pass.
    #[must_use]
    pub const fn envelope(&self) -> Envelope<'buf> {
        self.envelope
    }

    /// The `result` value of a response.
    #[must_use]
    pub const fn result(&self) -> Option<RawJson<'buf>> {
        self.result
    }

    /// The `error` value of an error response.
    #[must_use]
    pub const fn error(&self) -> Option<RawJson<'buf>> {
        self.error
    }

    /// True for requests (an answer is due).
    #[must_use]
    pub fn is_request(&self) -> bool {
        self.kind == MessageKind::Request
    }
}

/// A frame that is not a valid message, with the id when one could be read, so the error
/// answer can carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rejection<'buf> {
    /// What is wrong; [`Error::rpc_code`] gives the answer's code.
    pub error: Error,
    /// The request's id, when the frame is JSON and its `id` could be read.
    pub id: Option<Id<'buf>>,
}

impl From<Error> for Rejection<'_> {
    fn from(error: Error) -> Self {
        Self { error, id: None }
    }
}

/// What a frame holds: one message, or (JSON-RPC batch) an array of them.
#[derive(Debug, Clone)]
#[allow(
    clippy::large_enum_variant,
    reason = "boxing the message would allocate for every frame; a Parsed lives on the stack"
)]
pub enum Parsed<'buf> {
    /// One message.
    Single(Message<'buf>),
    /// A non-empty JSON array, already validated; [`Batch::iter`] reads its elements.
    Batch(Batch<'buf>),
}

/// A validated JSON array of messages (a JSON-RPC batch).
///
/// The scan that validates the array reads its first 64 elements as it goes
/// (one pass, as for a single message); the elements past those, in a batch that large, are
/// read from the validated text when [`Batch::iter`] reaches them, so that no frame makes
/// the read allocate more than a bounded amount.
#[derive(Debug, Clone)]
pub struct Batch<'buf> {
    text: &'buf str,
    /// The members of the first elements, as the scan found them (`None` for an element that
    /// is no object); each is classified when the iterator reaches it, which is cheap.
    read: Vec<Option<Members<'buf>>>,
    /// Where in `text` the elements past `read` start (at the `,` after the last one read);
    /// `None` when `read` holds them all.
    rest_at: Option<usize>,
    /// How many elements the array holds.
    len: usize,
}

/// How many elements of a batch its validating scan reads as it goes.
pub(crate) const CACHED_ELEMENTS: usize = 64;

impl<'buf> Batch<'buf> {
    /// Each element, read as a message; elements that are not valid messages are rejections.
    pub fn iter(&self) -> impl Iterator<Item = Result<Message<'buf>, Rejection<'buf>>> + '_ {
        let text = Text::of_str(self.text);
        // The text is a validated array: past the elements read comes a `,` and the rest.
        let rest_at = self.rest_at.unwrap_or(self.text.len());
        let mut sc = Scanner::trusted(self.text.as_bytes().get(rest_at..).unwrap_or_default());
        let mut done = sc.expect(b',').is_err();
        let rest = core::iter::from_fn(move || {
            if done {
                return None;
            }
            sc.skip_ws();
            let item = if sc.peek() == Some(b'{') {
                let mut m = Members::default();
                read_object(&mut sc, 1, &mut m)
                    .map_err(Rejection::from)
                    .and_then(|()| classify(text, &m))
            } else {
                let r = sc.value(1).map(|_| ());
                debug_assert!(r.is_ok(), "batch text was validated");
                Err(Rejection::from(Error::NotAnObject))
            };
            done = sc.expect(b',').is_err();
            Some(item)
        });
        let read = self.read.iter().map(move |m| match m {
            Some(m) => classify(text, m),
            None => Err(Rejection::from(Error::NotAnObject)),
        });
        read.chain(rest)
    }

    /// How many elements the batch holds (at least one).
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Always false: an empty array is no batch ([`Error::EmptyBatch`]).
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The array as sent.
    #[must_use]
    pub const fn as_str(&self) -> &'buf str {
        self.text
    }
}

/// Reads JSON-RPC messages from frames.
///
/// # Example
///
/// ```
/// use janus_codec::{Parser, Parsed, MessageKind};
///
/// let frame = br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{}}}"#;
/// let Ok(Parsed::Single(msg)) = Parser::new().parse(frame) else { panic!() };
/// assert_eq!(msg.kind(), MessageKind::Request);
/// assert_eq!(msg.id().unwrap().as_raw(), "7");
/// assert_eq!(msg.method(), "tools/list");
/// assert_eq!(msg.meta().unwrap().as_str(), "{}");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Parser {
    max_depth: usize,
    bulk_after: usize,
    squeeze_from: Option<usize>,
}

impl Default for Parser {
    fn default() -> Self {
        Self::new()
    }
}

impl Parser {
    /// A parser with the default nesting limit ([`DEFAULT_MAX_DEPTH`]).
    #[must_use]
    pub const fn new() -> Self {
        Self {
            max_depth: DEFAULT_MAX_DEPTH,
            bulk_after: crate::scan::BULK_AFTER,
            squeeze_from: None,
        }
    }

    /// Sets the nesting limit: the most containers a value may have around it, the
    /// message's own object included.
    pub fn max_depth(&mut self, n: usize) -> &mut Self {
        self.max_depth = n;
        self
    }

    /// Sets how many bytes of a container the token walk reads before it hands the rest to the
    /// bulk scan (`usize::MAX`: never). For the tests and the fuzz targets, which run every
    /// frame both ways; the verdict is the same whatever it is.
    #[doc(hidden)]
    pub fn bulk_after(&mut self, bytes: usize) -> &mut Self {
        self.bulk_after = bytes;
        self
    }

    /// Sets how many bytes of its first block squeezing must drop for the bulk scan to read
    /// indented text with its runs of white space squeezed (0: always, with any kernel; above
    /// 64: never; by default, a figure of the CPU's kernel). For the tests and the fuzz
    /// targets, as [`Parser::bulk_after`]: the verdict is the same whatever it is.
    #[doc(hidden)]
    pub fn squeeze_from(&mut self, bytes: usize) -> &mut Self {
        self.squeeze_from = Some(bytes);
        self
    }

    /// Validates the whole frame as JSON and reads it as a JSON-RPC message (or batch).
    ///
    /// Nothing is allocated for a well-formed message whose method has no escapes.
    ///
    /// # Errors
    ///
    /// A [`Rejection`] when the frame is not UTF-8 or not JSON (`-32700`), or is JSON but not a
    /// JSON-RPC 2.0 message (`-32600`, with the id where one could be read).
    #[inline]
    pub fn parse<'buf>(&self, frame: &'buf [u8]) -> Result<Parsed<'buf>, Rejection<'buf>> {
        let mut sc = Scanner::new(frame, self.max_depth)
            .with_bulk_after(self.bulk_after)
            .with_squeeze_from(self.squeeze_from);
        let mut m = Members::default();
        let scanned = scan_frame(&mut sc, &mut m);
        finish(frame, &sc, scanned, &m)
    }

    /// Reads the line at the start of `buf` (which may hold more after it) when one scan finds
    /// where the line ends (a JSON value, then white space, then `\n`) and the line is at most
    /// `max_len` bytes.
    /// Returns what [`Parser::parse`] gives for the line (without its `\n` and a `\r` before
    /// it), the line's length, and the bytes it takes with its newline.
    ///
    /// `None` when the scan cannot tell (a fault in the JSON text, or no `\n` yet) or the line
    /// is too long. The caller then frames the line with a search for `\n` and parses it as
    /// usual.
    #[inline(always)]
    pub(crate) fn parse_line_at_start<'buf>(
        &self,
        buf: &'buf [u8],
        max_len: usize,
    ) -> Option<(Result<Parsed<'buf>, Rejection<'buf>>, usize, usize)> {
        let mut sc = Scanner::line_at_start(buf, self.max_depth)
            .with_bulk_after(self.bulk_after)
            .with_squeeze_from(self.squeeze_from);
        let mut m = Members::default();
        let scanned = scan_frame(&mut sc, &mut m);
        // The scan stopped at the end of the line, after its white space.
        let nl = sc.pos();
        if scanned.is_err() || buf.get(nl) != Some(&b'\n') {
            return None;
        }
        let len = if nl > 0 && buf[nl - 1] == b'\r' {
            nl - 1
        } else {
            nl
        };
        if len > max_len {
            return None;
        }
        Some((finish(&buf[..len], &sc, scanned, &m), len, nl + 1))
    }

    /// Like [`Parser::parse`], but a batch is a rejection ([`Error::NotAnObject`]) after the
    /// frame has been validated.
    ///
    /// # Errors
    ///
    /// As [`Parser::parse`].
    #[inline]
    pub fn parse_single<'buf>(&self, frame: &'buf [u8]) -> Result<Message<'buf>, Rejection<'buf>> {
        match self.parse(frame)? {
            Parsed::Single(m) => Ok(m),
            Parsed::Batch(_) => Err(Error::NotAnObject.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(text: &str) -> Message<'_> {
        Parser::new()
            .parse_single(text.as_bytes())
            .expect("a message")
    }

    #[test]
    fn params_members_are_found_without_a_second_walk_and_agree_with_get() {
        let m = msg(
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a","n\u0061me":"b","arguments":{"x":1}}}"#,
        );
        assert_eq!(m.param("name").unwrap().as_str(), r#""b""#);
        assert_eq!(m.param("arguments").unwrap().as_str(), r#"{"x":1}"#);
        assert_eq!(m.param("missing"), None);
        let [name, args, missing] = m.params_many(["name", "arguments", "missing"]);
        assert_eq!(
            (name, args, missing),
            (m.param("name"), m.param("arguments"), None)
        );
        // More members than are kept: the walk over params answers, with the same rule.
        let many = r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"a":8}}"#;
        let m = msg(many);
        for key in ["a", "b", "f", "g", "h"] {
            assert_eq!(m.param(key), m.params().unwrap().get(key), "{key}");
        }
        assert_eq!(m.param("a").unwrap().as_str(), "8");
        let keys = ["a", "b", "f", "g", "h"];
        assert_eq!(m.params_many(keys), m.params().unwrap().get_many(keys));
        // A later params that is not an object leaves no members behind.
        let m = msg(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a"},"params":[1]}"#);
        assert_eq!(m.param("name"), None);
        assert_eq!(m.params().unwrap().as_str(), "[1]");
    }
}
