//! What the client says and how it reads what it hears, without I/O: requests written for the
//! era the lifecycle settled (the 2026-07-28 envelope in every request's `_meta`, or nothing
//! after a handshake), and each incoming line classed as an answer to one of ours, a request
//! of the server's, or a notification.

use crate::error::Rejection;
use bytes::{BufMut, BytesMut};
use janus_codec::encode;
use janus_codec::{Id, Message, MessageKind, ProtocolVersion, RawJson};

/// The `extensions` member that declares the 2026-07-28 tasks extension.
pub(crate) const TASKS_EXTENSION: &str = r#"{"io.modelcontextprotocol/tasks":{}}"#;

/// The members of a params object (without its braces) whose values are these strings,
/// each key and value written as a JSON string: what [`Client::request`] takes.
///
/// [`Client::request`]: crate::Client::request
#[must_use]
pub fn members_of(pairs: &[(&str, &str)]) -> String {
    let mut m = BytesMut::new();
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            m.extend_from_slice(b",");
        }
        encode::write_str(&mut m, k);
        m.extend_from_slice(b":");
        encode::write_str(&mut m, v);
    }
    String::from_utf8_lossy(&m).into_owned()
}

/// Who the client is and what it can do, as it tells every server.
#[derive(Debug, Clone)]
pub struct Identity {
    /// `clientInfo`, compact JSON (`{"name":..,"version":..}`).
    pub info: String,
    /// The client's capabilities, compact JSON (`{}` = none).
    pub capabilities: String,
    /// The log level every 2026-07-28 request asks (`io.modelcontextprotocol/logLevel`).
    pub log_level: Option<String>,
    /// The 2026-07-28 extensions every request declares (the `extensions` member of its
    /// `clientCapabilities`, compact JSON): not said in a handshake.
    pub extensions: Option<String>,
}

impl Identity {
    /// A client named `name` at `version`, with `capabilities` (compact JSON).
    #[must_use]
    pub fn new(name: &str, version: &str, capabilities: &str) -> Self {
        let mut info = BytesMut::new();
        info.extend_from_slice(br#"{"name":"#);
        encode::write_str(&mut info, name);
        info.extend_from_slice(br#","version":"#);
        encode::write_str(&mut info, version);
        info.put_u8(b'}');
        Self {
            info: String::from_utf8_lossy(&info).into_owned(),
            capabilities: capabilities.to_owned(),
            log_level: None,
            extensions: None,
        }
    }
}

/// The request writer of one connection.
#[derive(Debug)]
pub(crate) struct Core {
    identity: Identity,
    /// The revision requests are written in: a modern one carries the envelope.
    version: ProtocolVersion,
    next: i64,
}

impl Core {
    pub(crate) const fn new(identity: Identity, version: ProtocolVersion) -> Self {
        Self {
            identity,
            version,
            next: 0,
        }
    }

    pub(crate) const fn set_version(&mut self, v: ProtocolVersion) {
        self.version = v;
    }

    /// The revision requests are written in.
    pub(crate) const fn version(&self) -> ProtocolVersion {
        self.version
    }

    pub(crate) const fn identity(&self) -> &Identity {
        &self.identity
    }

    /// A request: its id and its line (with the `\n`). `members`, joined, are the params'
    /// members as JSON text without braces (none for none); `progress` a progress token's
    /// JSON text. `envelope` forces the 2026-07-28 envelope (the lifecycle probe sends one
    /// before the era is settled). `tasks` declares the tasks extension on this request (a
    /// 2026-07-28 one) whatever the identity declares.
    pub(crate) fn request(
        &mut self,
        method: &str,
        members: &[&str],
        progress: Option<&str>,
        envelope: Option<ProtocolVersion>,
        tasks: bool,
        forwarded: Option<&Forwarded>,
    ) -> (i64, BytesMut) {
        self.next += 1;
        let id = self.next;
        let len: usize = members.iter().map(|m| m.len()).sum();
        let mut out = BytesMut::with_capacity(96 + len);
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        encode::write_i64(&mut out, id);
        out.extend_from_slice(br#","method":"#);
        encode::write_str(&mut out, method);
        self.write_params(&mut out, members, progress, envelope, (tasks, forwarded));
        encode::end_message(&mut out);
        (id, out)
    }

    /// A notification's line (`members` as for [`Core::request`]).
    pub(crate) fn notification(&self, method: &str, members: &str) -> BytesMut {
        let mut out = BytesMut::with_capacity(96 + members.len());
        out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
        encode::write_str(&mut out, method);
        self.write_params(&mut out, &[members], None, None, (false, None));
        encode::end_message(&mut out);
        out
    }

    fn write_params(
        &self,
        out: &mut BytesMut,
        members: &[&str],
        progress: Option<&str>,
        envelope: Option<ProtocolVersion>,
        (tasks, forwarded): (bool, Option<&Forwarded>),
    ) {
        let version = envelope.unwrap_or(self.version);
        let modern = !version.is_handshake();
        let empty = members.iter().all(|m| m.is_empty());
        let carried = forwarded
            .and_then(|f| f.meta.as_deref())
            .and_then(janus_model::json::object_members);
        if empty && !modern && progress.is_none() && carried.is_none() {
            return;
        }
        out.extend_from_slice(br#","params":{"#);
        let begin = out.len();
        for m in members {
            out.extend_from_slice(m.as_bytes());
        }
        // NB. A line break in the members (white space between tokens of a caller's valid
        // JSON; inside a string it would be invalid) must not end the line: it becomes a
        // space, which keeps the JSON's meaning.
        let mut at = begin;
        while let Some(i) = memchr::memchr2(b'\n', b'\r', &out[at..]) {
            out[at + i] = b' ';
            at += i + 1;
        }
        if !modern && progress.is_none() && carried.is_none() {
            out.put_u8(b'}');
            return;
        }
        if !empty {
            out.put_u8(b',');
        }
        out.extend_from_slice(br#""_meta":{"#);
        let mut first = true;
        if let Some(c) = carried {
            out.extend_from_slice(c.as_bytes());
            first = false;
        }
        if let Some(p) = progress {
            if !first {
                out.put_u8(b',');
            }
            out.extend_from_slice(br#""progressToken":"#);
            out.extend_from_slice(p.as_bytes());
            first = false;
        }
        if modern {
            if !first {
                out.put_u8(b',');
            }
            out.extend_from_slice(br#""io.modelcontextprotocol/protocolVersion":"#);
            encode::write_str(out, version.as_str());
            out.extend_from_slice(br#","io.modelcontextprotocol/clientInfo":"#);
            let info = forwarded.and_then(|f| f.client_info.as_deref());
            out.extend_from_slice(info.unwrap_or(&self.identity.info).as_bytes());
            out.extend_from_slice(br#","io.modelcontextprotocol/clientCapabilities":"#);
            let theirs = forwarded.and_then(|f| f.capabilities.as_deref());
            let caps = theirs.unwrap_or(&self.identity.capabilities).trim_end();
            let extensions = self
                .identity
                .extensions
                .as_deref()
                .or_else(|| tasks.then_some(TASKS_EXTENSION))
                // NB. Capabilities given for another client that name their extensions
                // already are said as they are.
                .filter(|_| {
                    theirs.is_none_or(|c| {
                        !RawJson::parse(c).is_ok_and(|c| c.get("extensions").is_some())
                    })
                });
            match (extensions, caps.strip_suffix('}')) {
                (Some(ext), Some(open)) => {
                    out.extend_from_slice(open.as_bytes());
                    if open.trim_end() != "{" {
                        out.put_u8(b',');
                    }
                    out.extend_from_slice(br#""extensions":"#);
                    out.extend_from_slice(ext.as_bytes());
                    out.put_u8(b'}');
                }
                _ => out.extend_from_slice(caps.as_bytes()),
            }
            if let Some(level) = &self.identity.log_level {
                out.extend_from_slice(br#","io.modelcontextprotocol/logLevel":"#);
                encode::write_str(out, level);
            }
        }
        out.extend_from_slice(b"}}");
    }
}

/// What a gateway says of its own client in a request it forwards for it
/// ([`crate::CallOptions::forwarded`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Forwarded {
    /// The `clientInfo` of the client the request is made for (compact JSON): said in a
    /// 2026-07-28 envelope instead of this connection's.
    pub client_info: Option<String>,
    /// That client's capabilities (a JSON object), said instead of this connection's.
    pub capabilities: Option<String>,
    /// Other `_meta` members the request carries, in every revision (the text of a JSON
    /// object: a trace context, a vendor's keys). The caller leaves out the ones the client
    /// writes itself (`progressToken` and the envelope's).
    pub meta: Option<String>,
}

/// One line the server sent.
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    /// The answer to our request `id`.
    Answer {
        id: i64,
        outcome: Result<RawJson<'a>, Rejection>,
    },
    /// A request of the server's (legacy input: elicitation, sampling, roots; `ping`).
    Request { id: Id<'a>, msg: Message<'a> },
    /// A notification.
    Notification(Message<'a>),
    /// Nothing we can use: an answer to no request of ours, or an error with id `null`.
    Stray,
}

impl<'a> Incoming<'a> {
    pub(crate) fn of(msg: Message<'a>) -> Self {
        match msg.kind() {
            MessageKind::Request => match msg.id() {
                Some(id) => Self::Request { id, msg },
                None => Self::Stray,
            },
            MessageKind::Notification => Self::Notification(msg),
            MessageKind::Response | MessageKind::ErrorResponse => {
                let Some(id) = msg.id().and_then(Id::as_i64) else {
                    return Self::Stray;
                };
                let outcome = match msg.result() {
                    Some(r) => Ok(r),
                    None => Err(Rejection::of_error_object(msg.error())),
                };
                Self::Answer { id, outcome }
            }
        }
    }
}

/// What the lifecycle's `server/discover` probe (mode `Auto`) found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Probe {
    /// The server is modern, at this revision.
    Modern(ProtocolVersion),
    /// The server is legacy: the handshake follows.
    Legacy,
}

/// Reads the probe's outcome (`decisions.md`, "Client", lifecycle modes): a discover result
/// that lists a revision the client speaks is modern; `-32022` whose `data.supported` holds
/// one is modern at that revision; `-32020` and `-32021` are modern errors the caller gets;
/// any other error (`-32601`, `-32602`, `-32600`, ...) or a result that names no modern
/// revision falls back to `initialize`.
pub(crate) fn probe_outcome(outcome: Result<RawJson<'_>, &Rejection>) -> Result<Probe, Rejection> {
    match outcome {
        Ok(result) => {
            Ok(modern_in(result.get("supportedVersions")).map_or(Probe::Legacy, Probe::Modern))
        }
        Err(r) if r.code == i64::from(janus_codec::UNSUPPORTED_PROTOCOL_VERSION) => {
            Ok(supported_modern(r).map_or(Probe::Legacy, Probe::Modern))
        }
        Err(r)
            if r.code == -32020 || r.code == i64::from(janus_codec::MISSING_CLIENT_CAPABILITY) =>
        {
            Err(r.clone())
        }
        Err(_) => Ok(Probe::Legacy),
    }
}

/// The newest modern revision the client speaks among the `data.supported` of an
/// UnsupportedProtocolVersion error (`-32022`), if it is one.
pub(crate) fn supported_modern(r: &Rejection) -> Option<ProtocolVersion> {
    if r.code != i64::from(janus_codec::UNSUPPORTED_PROTOCOL_VERSION) {
        return None;
    }
    let data = RawJson::parse(r.data.as_deref()?).ok()?;
    modern_in(data.get("supported"))
}

/// The newest modern revision the client speaks among `versions` (an array of strings).
fn modern_in(versions: Option<RawJson<'_>>) -> Option<ProtocolVersion> {
    versions?
        .elements()
        .into_iter()
        .filter_map(|v| v.as_string())
        .filter_map(|v| ProtocolVersion::from_wire(&v))
        .filter(|v| !v.is_handshake())
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn core(v: ProtocolVersion) -> Core {
        Core::new(Identity::new("c", "1", r#"{"roots":{}}"#), v)
    }

    #[test]
    fn requests_carry_the_envelope_only_in_the_modern_era() {
        let mut legacy = core(ProtocolVersion::V2025_11_25);
        let (id, line) = legacy.request("tools/list", &[], None, None, false, None);
        assert_eq!(id, 1);
        assert_eq!(
            &line[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n"
        );
        let (_, line) = legacy.request(
            "tools/call",
            &[r#""name":"a""#],
            Some("7"),
            None,
            false,
            None,
        );
        assert_eq!(
            &line[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"a\",\"_meta\":{\"progressToken\":7}}}\n"
        );
        let mut modern = core(ProtocolVersion::V2026_07_28);
        let (_, line) = modern.request("tools/list", &[], None, None, false, None);
        let text = std::str::from_utf8(&line).unwrap();
        let msg = janus_codec::Parser::new()
            .parse_single(text.trim_end().as_bytes())
            .unwrap();
        assert_eq!(
            msg.envelope().protocol_version.map(RawJson::as_str),
            Some("\"2026-07-28\"")
        );
        // The probe sends the envelope before the era is settled.
        let (_, line) = legacy.request(
            "server/discover",
            &[],
            None,
            Some(ProtocolVersion::V2026_07_28),
            false,
            None,
        );
        assert!(
            std::str::from_utf8(&line)
                .unwrap()
                .contains("clientCapabilities\":{\"roots\":{}}")
        );
    }

    #[test]
    fn a_forwarded_request_says_its_client_and_carries_its_meta_in_both_eras() {
        let theirs = Forwarded {
            client_info: Some(r#"{"name":"front","version":"9"}"#.into()),
            capabilities: Some(r#"{"elicitation":{}}"#.into()),
            meta: Some(r#"{"traceparent":"00-a-b-01"}"#.into()),
        };
        let parse = |line: &[u8]| -> serde_json::Value {
            serde_json::from_slice(line).expect("one JSON line")
        };
        let mut modern = core(ProtocolVersion::V2026_07_28);
        let (_, line) = modern.request(
            "tools/call",
            &[r#""name":"a""#],
            Some("\"p1\""),
            None,
            false,
            Some(&theirs),
        );
        let meta = &parse(&line)["params"]["_meta"];
        assert_eq!(meta["traceparent"], "00-a-b-01");
        assert_eq!(meta["progressToken"], "p1");
        assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "front");
        assert_eq!(
            meta["io.modelcontextprotocol/clientCapabilities"],
            serde_json::json!({"elicitation": {}})
        );
        // NB. The tasks extension a request declares joins the capabilities it says.
        let (_, line) = modern.request("tools/call", &[], None, None, true, Some(&theirs));
        assert_eq!(
            parse(&line)["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
            serde_json::json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
        );
        // A handshake request has no envelope: the other members go on alone.
        let mut legacy = core(ProtocolVersion::V2025_11_25);
        let (_, line) = legacy.request("tools/list", &[], None, None, false, Some(&theirs));
        assert_eq!(
            parse(&line)["params"],
            serde_json::json!({"_meta": {"traceparent": "00-a-b-01"}})
        );
        let bare = Forwarded {
            meta: Some("{ }".into()),
            ..theirs
        };
        let (_, line) = legacy.request("tools/list", &[], None, None, false, Some(&bare));
        assert_eq!(
            &line[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n"
        );
    }

    #[test]
    fn extensions_are_declared_in_the_modern_capabilities_only() {
        let tasks = r#"{"io.modelcontextprotocol/tasks":{}}"#;
        for (caps, want) in [
            (
                r#"{"roots":{}}"#,
                r#"clientCapabilities":{"roots":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}"#,
            ),
            (
                "{}",
                r#"clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#,
            ),
        ] {
            let mut identity = Identity::new("c", "1", caps);
            identity.extensions = Some(tasks.to_owned());
            let mut modern = Core::new(identity.clone(), ProtocolVersion::V2026_07_28);
            let (_, line) = modern.request("tools/list", &[], None, None, false, None);
            let text = std::str::from_utf8(&line).unwrap();
            assert!(text.contains(want), "{text}");
            assert!(
                serde_json::from_str::<serde_json::Value>(text).is_ok(),
                "{text}"
            );
            let mut legacy = Core::new(identity, ProtocolVersion::V2025_11_25);
            let (_, line) =
                legacy.request("tools/call", &[r#""name":"a""#], None, None, false, None);
            assert!(!std::str::from_utf8(&line).unwrap().contains("extensions"));
        }
    }

    fn rej(code: i64, data: Option<&str>) -> Rejection {
        Rejection {
            code,
            message: "m".into(),
            data: data.map(str::to_owned),
        }
    }

    #[test]
    fn the_probe_decides_as_decided() {
        let ok = RawJson::parse(r#"{"supportedVersions":["2025-11-25","2026-07-28"]}"#).unwrap();
        assert_eq!(
            probe_outcome(Ok(ok)),
            Ok(Probe::Modern(ProtocolVersion::V2026_07_28))
        );
        let none = RawJson::parse(r#"{"supportedVersions":["2099-01-01"]}"#).unwrap();
        assert_eq!(probe_outcome(Ok(none)), Ok(Probe::Legacy));
        let modern = rej(-32022, Some(r#"{"supported":["2026-07-28"]}"#));
        assert_eq!(
            probe_outcome(Err(&modern)),
            Ok(Probe::Modern(ProtocolVersion::V2026_07_28))
        );
        let only_old = rej(-32022, Some(r#"{"supported":["2025-06-18"]}"#));
        assert_eq!(probe_outcome(Err(&only_old)), Ok(Probe::Legacy));
        for code in [-32601, -32602, -32600, -32603] {
            assert_eq!(
                probe_outcome(Err(&rej(code, None))),
                Ok(Probe::Legacy),
                "{code}"
            );
        }
        assert!(probe_outcome(Err(&rej(-32021, None))).is_err());
        assert!(probe_outcome(Err(&rej(-32020, None))).is_err());
    }
}
