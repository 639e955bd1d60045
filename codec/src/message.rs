//! `Message<'buf>`: a JSON-RPC message read in place from its frame.

use crate::Error;
use crate::envelope::{self, Envelope, EnvelopeSpans};
use crate::raw::{Id, RawJson, decode, raw_eq};
use crate::scan::{Kind, Scanner, Span};
use crate::text::Text;
use std::borrow::Cow;

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
        let mut sc = Scanner::new(frame, self.max_depth).with_bulk_after(self.bulk_after);
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
        let mut sc = Scanner::line_at_start(buf, self.max_depth).with_bulk_after(self.bulk_after);
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

/// The end of [`Parser::parse`] once `sc` has scanned `frame`: the UTF-8 check, then the
/// message or the rejection.
#[inline(always)]
fn finish<'buf>(
    frame: &'buf [u8],
    sc: &Scanner<'buf>,
    scanned: Result<Scanned<'buf>, Error>,
    m: &Members<'buf>,
) -> Result<Parsed<'buf>, Rejection<'buf>> {
    // The scan reads bytes. Whatever it found, a frame that is not UTF-8 is refused as such
    // (as serde_json does); an ASCII frame needs no second pass to know it.
    let text = Text::of_scan(frame, sc, scanned.is_ok()).ok_or(Error::InvalidUtf8)?;
    match scanned? {
        Scanned::Single => classify(text, m).map(Parsed::Single),
        Scanned::Batch(read) => Ok(Parsed::Batch(Batch {
            text: text.span(read.array),
            read: read.members,
            rest_at: read.rest_at,
            len: read.len,
        })),
    }
}

/// What the scan of a frame found: one message object (its members written in place), or a
/// batch's array.
enum Scanned<'buf> {
    Single,
    Batch(BatchRead<'buf>),
}

/// What the scan of a batch's array found.
struct BatchRead<'buf> {
    array: Span<'buf>,
    members: Vec<Option<Members<'buf>>>,
    rest_at: Option<usize>,
    len: usize,
}

/// Scans a whole frame: the message object's members (into `m`), or a batch's array, or the
/// fault.
#[inline(always)]
fn scan_frame<'buf>(sc: &mut Scanner<'buf>, m: &mut Members<'buf>) -> Result<Scanned<'buf>, Error> {
    sc.skip_ws();
    match sc.peek() {
        Some(b'{') => {
            read_object(sc, 0, m)?;
            if !sc.at_end() {
                return Err(Error::Syntax);
            }
            Ok(Scanned::Single)
        }
        Some(b'[') => {
            let read = read_batch(sc)?;
            if !sc.at_end() {
                return Err(Error::Syntax);
            }
            if read.len == 0 {
                return Err(Error::EmptyBatch);
            }
            Ok(Scanned::Batch(read))
        }
        Some(_) => {
            sc.value(0)?;
            if !sc.at_end() {
                return Err(Error::Syntax);
            }
            Err(Error::NotAnObject)
        }
        None => Err(Error::Truncated),
    }
}

/// Reads the array at the cursor (validating it whole), each of its first
/// [`CACHED_ELEMENTS`] elements as a message is read: one pass over the batch.
fn read_batch<'buf>(sc: &mut Scanner<'buf>) -> Result<BatchRead<'buf>, Error> {
    let start = sc.mark()?;
    let array_at = sc.pos();
    // Most batches are small: one allocation holds eight elements.
    let mut members = Vec::with_capacity(8);
    // Where the elements past those read start, once the scan gets there.
    let mut read_end = 0;
    let mut len = 0;
    if sc.enter_array(0)? {
        loop {
            if len < CACHED_ELEMENTS {
                sc.skip_ws();
                if sc.peek() == Some(b'{') {
                    // Read in place: the members are too large to move cheaply.
                    members.push(Some(Members::default()));
                    if let Some(Some(m)) = members.last_mut() {
                        read_object(sc, 1, m)?;
                    }
                } else {
                    sc.value(1)?;
                    members.push(None);
                }
            } else {
                sc.value(1)?;
            }
            len += 1;
            if len == CACHED_ELEMENTS {
                read_end = sc.pos() - array_at;
            }
            if !sc.element_end()? {
                break;
            }
        }
    }
    Ok(BatchRead {
        array: sc.since(start),
        members,
        rest_at: (len > CACHED_ELEMENTS).then_some(read_end),
        len,
    })
}

/// The members of a message object, as found (the last of a duplicated key wins): spans of
/// the frame's bytes, made text once the frame is known to be UTF-8.
#[derive(Debug, Clone, Default)]
struct Members<'buf> {
    jsonrpc: Option<(Span<'buf>, Kind)>,
    id: Option<(Span<'buf>, Kind)>,
    method: Option<(Span<'buf>, Kind)>,
    params: Option<(Span<'buf>, Kind)>,
    params_members: ParamMembers,
    meta: Option<(Span<'buf>, EnvelopeSpans<'buf>)>,
    result: Option<Span<'buf>>,
    error: Option<Span<'buf>>,
}

/// Which member a key names.
#[derive(Clone, Copy)]
enum Field {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

#[inline]
fn field(k: &[u8], escaped: bool) -> Field {
    if escaped {
        return [
            ("jsonrpc", Field::Jsonrpc),
            ("id", Field::Id),
            ("method", Field::Method),
            ("params", Field::Params),
            ("result", Field::Result),
            ("error", Field::Error),
        ]
        .into_iter()
        .find(|(name, _)| raw_eq(k, true, name))
        .map_or(Field::Other, |(_, f)| f);
    }
    match k {
        b"jsonrpc" => Field::Jsonrpc,
        b"id" => Field::Id,
        b"method" => Field::Method,
        b"params" => Field::Params,
        b"result" => Field::Result,
        b"error" => Field::Error,
        _ => Field::Other,
    }
}

/// Takes a compact member key (`"id":` and the like) at the cursor without scanning it as a
/// string; returns the field.
#[inline(always)]
fn fast_key(sc: &mut Scanner<'_>) -> Option<Field> {
    // Each key is compared as a constant, which compiles to a few word compares.
    #[inline(always)]
    fn take(sc: &mut Scanner<'_>, key: &'static [u8], f: Field) -> Option<Field> {
        sc.take(key).then_some(f)
    }
    match *sc.rest().get(1)? {
        // Spaced text (`"jsonrpc": "2.0"`); compact text took the whole member already.
        b'j' => take(sc, br#""jsonrpc":"#, Field::Jsonrpc),
        b'i' => take(sc, br#""id":"#, Field::Id),
        b'm' => take(sc, br#""method":"#, Field::Method),
        b'p' => take(sc, br#""params":"#, Field::Params),
        b'r' => take(sc, br#""result":"#, Field::Result),
        b'e' => take(sc, br#""error":"#, Field::Error),
        _ => None,
    }
}

/// Reads the object at the cursor (validating it whole) and finds its members.
/// `depth` is the number of containers around the object.
#[inline(always)]
fn read_object<'buf>(
    sc: &mut Scanner<'buf>,
    depth: usize,
    m: &mut Members<'buf>,
) -> Result<(), Error> {
    if sc.enter_object(depth)? {
        loop {
            // Compact clients write `{"jsonrpc":"2.0",...`: take that member whole.
            if let Some(v) = sc.take_member(br#""jsonrpc":"2.0""#, 10) {
                m.jsonrpc = Some((v, Kind::String { escaped: false }));
                if !sc.member_end()? {
                    break;
                }
                continue;
            }
            // The fast keys start at the key's quote: in spaced text (`{"jsonrpc": "2.0",
            // "id": 1, ...`), past the white space before it.
            let fast = match fast_key(sc) {
                None if sc.past_ws() => fast_key(sc),
                f => f,
            };
            let f = match fast {
                Some(f) => f,
                None => {
                    let (k, escaped) = sc.key()?;
                    field(k.bytes(), escaped)
                }
            };
            let start = sc.mark()?;
            let kind = if matches!(f, Field::Params) && sc.peek() == Some(b'{') {
                read_params(sc, depth + 1, &mut m.params_members, &mut m.meta)?;
                Kind::Object
            } else {
                sc.value(depth + 1)?
            };
            let v = sc.since(start);
            match f {
                Field::Jsonrpc => m.jsonrpc = Some((v, kind)),
                Field::Id => m.id = Some((v, kind)),
                Field::Method => m.method = Some((v, kind)),
                Field::Params => {
                    if kind != Kind::Object {
                        m.meta = None;
                        m.params_members = ParamMembers::default();
                    }
                    m.params = Some((v, kind));
                }
                Field::Result => m.result = Some(v),
                Field::Error => m.error = Some(v),
                Field::Other => {}
            }
            if !sc.member_end()? {
                break;
            }
        }
    }
    Ok(())
}

/// Walks a `params` object, validating it, and records its `_meta` member in `meta` with the
/// envelope read from it on the way (so the envelope costs no second walk). The first members
/// are recorded in `members`, so a handler finds `name` or `arguments` without a second walk.
///
/// Both are written in place: the envelope is too large to move through return values cheaply
/// on the hot path.
fn read_params<'buf>(
    sc: &mut Scanner<'buf>,
    depth: usize,
    members: &mut ParamMembers,
    meta: &mut Option<(Span<'buf>, EnvelopeSpans<'buf>)>,
) -> Result<(), Error> {
    *meta = None;
    *members = ParamMembers::default();
    let params_start = sc.mark()?;
    if !sc.enter_object(depth)? {
        return Ok(());
    }
    loop {
        // A compact `"_meta":` is taken whole; every other key is read as a string.
        const META: &[u8] = br#""_meta":"#;
        let mut rest = sc.rest();
        let mut meta_key = sc.take(META);
        if !meta_key && sc.past_ws() {
            // Spaced text: the key after the white space.
            rest = sc.rest();
            meta_key = sc.take(META);
        }
        let (k, escaped, is_meta) = if meta_key {
            (&rest[1..META.len() - 2], false, true)
        } else {
            let (k, escaped) = sc.key()?;
            (k.bytes(), escaped, raw_eq(k.bytes(), escaped, "_meta"))
        };
        let start = sc.mark()?;
        let value = if is_meta {
            // The last `_meta` wins, as every duplicated key does.
            let (span, env) = meta.insert((sc.since(start), EnvelopeSpans::default()));
            if sc.peek() == Some(b'{') {
                read_meta(sc, depth + 1, env)?;
            } else {
                sc.value(depth + 1)?;
            }
            *span = sc.since(start);
            *span
        } else {
            sc.value(depth + 1)?;
            sc.since(start)
        };
        // The params text read so far holds this member; the offsets only need its start.
        members.push(sc.since(params_start).bytes(), k, escaped, value.bytes());
        if !sc.member_end()? {
            return Ok(());
        }
    }
}

/// How many members of `params` a message keeps spans of.
const KEPT_PARAMS: usize = 6;

/// The first members of an object `params`, as offsets into the `params` text: small (a
/// message is moved by value), no allocation, no drop glue.
#[derive(Debug, Clone, Copy, Default)]
struct ParamMembers {
    /// Per member: key start, key length, value start, value length (within `params`).
    kept: [[u32; 4]; KEPT_PARAMS],
    /// Bit `i`: member `i`'s key holds an escape.
    escaped: u8,
    len: u8,
    /// True when `params` had more members than are kept (or offsets too large to keep).
    more: bool,
}

impl ParamMembers {
    /// Records a member; `key` and `value` are slices of `params`.
    fn push(&mut self, params: &[u8], key: &[u8], escaped: bool, value: &[u8]) {
        let base = params.as_ptr() as usize;
        let offsets = [
            key.as_ptr() as usize - base,
            key.len(),
            value.as_ptr() as usize - base,
            value.len(),
        ];
        let len = usize::from(self.len);
        match (len < KEPT_PARAMS, offsets.map(u32::try_from)) {
            (true, [Ok(a), Ok(b), Ok(c), Ok(d)]) => {
                self.kept[len] = [a, b, c, d];
                self.escaped |= u8::from(escaped) << len;
                self.len += 1;
            }
            _ => self.more = true,
        }
    }

    /// The last kept member named `key`.
    fn find<'buf>(&self, params: &'buf str, key: &str) -> Option<RawJson<'buf>> {
        let slice = |at: u32, len: u32| {
            let at = at as usize;
            params.get(at..at + len as usize)
        };
        (0..usize::from(self.len)).rev().find_map(|i| {
            let [ks, kl, vs, vl] = self.kept[i];
            let k = slice(ks, kl)?;
            raw_eq(k.as_bytes(), self.escaped & (1 << i) != 0, key)
                .then(|| slice(vs, vl).map(RawJson::new_unchecked))
                .flatten()
        })
    }
}

/// Walks a `_meta` object, validating it, and records the envelope keys in `env`.
fn read_meta<'buf>(
    sc: &mut Scanner<'buf>,
    depth: usize,
    env: &mut EnvelopeSpans<'buf>,
) -> Result<(), Error> {
    if !sc.enter_object(depth)? {
        return Ok(());
    }
    loop {
        // Compact clients write the envelope's keys as they are: take those whole.
        let fast = match envelope::fast_key(sc) {
            None if sc.past_ws() => envelope::fast_key(sc),
            i => i,
        };
        let slot = if let Some(i) = fast {
            Some(i)
        } else {
            let (k, escaped) = sc.key()?;
            envelope::key_index(k.bytes(), escaped)
        };
        let start = sc.mark()?;
        sc.value(depth + 1)?;
        if let Some(i) = slot {
            env[i] = Some(sc.since(start));
        }
        if !sc.member_end()? {
            return Ok(());
        }
    }
}

/// Classifies the members of a message object found in `text` (which holds every span).
#[inline(always)]
fn classify<'buf>(text: Text<'buf>, m: &Members<'buf>) -> Result<Message<'buf>, Rejection<'buf>> {
    let json = |span| RawJson::new_unchecked(text.span(span));
    let id = match m.id {
        Some((v, Kind::String { .. } | Kind::Integer)) => Some(Id::new_unchecked(text.span(v))),
        _ => None,
    };
    let reject = |error| Err(Rejection { error, id });
    match m.jsonrpc {
        Some((v, Kind::String { escaped })) if raw_eq(v.string_body().bytes(), escaped, "2.0") => {}
        _ => return reject(Error::BadVersion),
    }
    let id_is_null = matches!(m.id, Some((_, Kind::Null)));
    if m.id.is_some() && id.is_none() && !id_is_null {
        return reject(Error::BadId);
    }
    if let Some((method, kind)) = m.method {
        let Kind::String { escaped } = kind else {
            return reject(Error::BadMethod);
        };
        if m.result.is_some() || m.error.is_some() {
            return reject(Error::Ambiguous);
        }
        if let Some((_, k)) = m.params
            && !matches!(k, Kind::Object | Kind::Array)
        {
            return reject(Error::BadParams);
        }
        if id_is_null {
            return reject(Error::BadId);
        }
        return Ok(Message {
            kind: if id.is_some() {
                MessageKind::Request
            } else {
                MessageKind::Notification
            },
            id,
            method: decode(text.span(method.string_body()), escaped),
            params: m.params.map(|p| json(p.0)),
            meta: m.meta.map(|m| json(m.0)),
            envelope: m
                .meta
                .map(|m| Envelope::from_spans(&m.1, json))
                .unwrap_or_default(),
            params_members: m.params_members,
            result: None,
            error: None,
        });
    }
    let kind = match (m.result, m.error) {
        (Some(_), Some(_)) => return reject(Error::Ambiguous),
        (Some(_), None) if id.is_some() => MessageKind::Response,
        (None, Some(_)) if id.is_some() || id_is_null => MessageKind::ErrorResponse,
        (Some(_), None) if id_is_null => return reject(Error::BadId),
        _ => return reject(Error::Incomplete),
    };
    Ok(Message {
        kind,
        id,
        method: Cow::Borrowed(""),
        params: None,
        meta: None,
        envelope: Envelope::default(),
        params_members: ParamMembers::default(),
        result: m.result.map(json),
        error: m.error.map(json),
    })
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
        // More members than are kept: the walk over params answers, with the same rule.
        let many = r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"a":8}}"#;
        let m = msg(many);
        for key in ["a", "b", "f", "g", "h"] {
            assert_eq!(m.param(key), m.params().unwrap().get(key), "{key}");
        }
        assert_eq!(m.param("a").unwrap().as_str(), "8");
        // A later params that is not an object leaves no members behind.
        let m = msg(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a"},"params":[1]}"#);
        assert_eq!(m.param("name"), None);
        assert_eq!(m.params().unwrap().as_str(), "[1]");
    }
}
