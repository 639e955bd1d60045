//! The message reader: one walk over a frame that validates it whole and finds the members
//! a [`Message`] is made of (the envelope's in `params._meta` too), then their classification.

use super::{Batch, CACHED_ELEMENTS, Message, MessageKind, Parsed, Rejection};
use crate::Error;
use crate::envelope::{self, Envelope, EnvelopeSpans};
use crate::raw::{Id, RawJson, decode, raw_eq};
use crate::scan::{Kind, Scanner, Span};
use crate::text::Text;
use std::borrow::Cow;

/// The end of [`super::Parser::parse`] once `sc` has scanned `frame`: the UTF-8 check, then the
/// message or the rejection.
#[inline(always)]
pub(super) fn finish<'buf>(
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
pub(super) enum Scanned<'buf> {
    Single,
    Batch(BatchRead<'buf>),
}

/// What the scan of a batch's array found.
pub(super) struct BatchRead<'buf> {
    array: Span<'buf>,
    members: Vec<Option<Members<'buf>>>,
    rest_at: Option<usize>,
    len: usize,
}

/// Scans a whole frame: the message object's members (into `m`), or a batch's array, or the
/// fault.
#[inline(always)]
pub(super) fn scan_frame<'buf>(
    sc: &mut Scanner<'buf>,
    m: &mut Members<'buf>,
) -> Result<Scanned<'buf>, Error> {
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
pub(super) struct Members<'buf> {
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
pub(super) fn read_object<'buf>(
    sc: &mut Scanner<'buf>,
    depth: usize,
    m: &mut Members<'buf>,
) -> Result<(), Error> {
    if !sc.enter_object(depth)? {
        return Ok(());
    }
    // Clients open with `{"jsonrpc":"2.0",` (or `"jsonrpc": "2.0"`, spaced): that first
    // member is taken whole. It is only looked for first, where clients write it; elsewhere it
    // is read as any member is.
    let jsonrpc = sc
        .take_member(br#""jsonrpc":"2.0""#, 10)
        .or_else(|| sc.take_member(br#""jsonrpc": "2.0""#, 11));
    if let Some(v) = jsonrpc {
        m.jsonrpc = Some((v, Kind::String { escaped: false }));
        if !sc.member_end()? {
            return Ok(());
        }
    }
    loop {
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
            return Ok(());
        }
    }
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
pub(super) struct ParamMembers {
    /// Per member: key start, key length, value start, value length (within `params`).
    kept: [[u32; 4]; KEPT_PARAMS],
    /// Bit `i`: member `i`'s key holds an escape.
    escaped: u8,
    len: u8,
    /// True when `params` had more members than are kept (or offsets too large to keep).
    pub(super) more: bool,
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
    pub(super) fn find<'buf>(&self, params: &'buf str, key: &str) -> Option<RawJson<'buf>> {
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
pub(super) fn classify<'buf>(
    text: Text<'buf>,
    m: &Members<'buf>,
) -> Result<Message<'buf>, Rejection<'buf>> {
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
