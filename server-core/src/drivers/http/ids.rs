//! The ids a legacy session routes by: the session ids it mints, and the request ids a body
//! carries, cancels or answers.

use super::body::OwnLine;
use base64::Engine as _;
use janus_codec::{Id, IdBuf, Message, Parsed, Parser, Rejection};

/// A new session id: `<node>.<128 random bits, base64url>`, so a balancer can route by prefix.
pub(super) fn mint(node: &str) -> Option<String> {
    let mut bits = [0u8; 16];
    getrandom::fill(&mut bits).ok()?;
    Some(format!(
        "{node}.{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bits)
    ))
}

/// A random node id, for a process given none.
pub(super) fn random_node() -> String {
    let mut bits = [0u8; 6];
    let _ = getrandom::fill(&mut bits);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bits)
}

/// The ids `f` finds in each message of a read body (each element of a batch, skipping those
/// that are not messages); none when the body is no message.
fn ids_of(
    read: &Result<Parsed<'_>, Rejection<'_>>,
    f: impl Fn(&Message<'_>) -> Option<IdBuf>,
) -> Vec<IdBuf> {
    match read {
        Ok(Parsed::Single(m)) => f(m).into_iter().collect(),
        Ok(Parsed::Batch(b)) => b
            .iter()
            .filter_map(Result::ok)
            .filter_map(|m| f(&m))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The ids of the requests in a body.
pub(super) fn request_ids(read: &Result<Parsed<'_>, Rejection<'_>>) -> Vec<IdBuf> {
    ids_of(read, |m| {
        m.is_request()
            .then(|| m.id().map(|id| id.to_owned()))
            .flatten()
    })
}

/// The requests that the body's `notifications/cancelled` name.
pub(super) fn cancelled_ids(read: &Result<Parsed<'_>, Rejection<'_>>) -> Vec<IdBuf> {
    ids_of(read, |m| {
        (m.method() == "notifications/cancelled" && !m.is_request())
            .then(|| m.param("requestId").and_then(Id::from_json))
            .flatten()
            .map(|id| id.to_owned())
    })
}

/// The ids a line answers (every entry's, for a batch's line); none for a notification.
pub(super) fn answered_ids(line: &[u8]) -> Vec<IdBuf> {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    if let Some(ids) = own_answer_id(body) {
        return ids;
    }
    // NB. A server-to-client request has an id of the server's own: it answers nothing.
    ids_of(&Parser::new().parse(body), |m| {
        (!m.is_request())
            .then(|| m.id().map(|id| id.to_owned()))
            .flatten()
    })
}

/// The id of a single answer as the connection's encoder writes it, read from its first
/// bytes alone (`body::own_line`): a 64 KiB answer is not parsed again to route it. `None`
/// for any other shape, which is parsed whole.
fn own_answer_id(body: &[u8]) -> Option<Vec<IdBuf>> {
    match super::body::own_line(body)? {
        OwnLine::Notification => Some(Vec::new()),
        OwnLine::Answer { id, .. } => {
            let raw = janus_codec::RawJson::parse(std::str::from_utf8(id).ok()?).ok()?;
            Some(
                Id::from_json(raw)
                    .map(|id| id.to_owned())
                    .into_iter()
                    .collect(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids the whole parse finds.
    fn parsed_ids(line: &[u8]) -> Vec<IdBuf> {
        match Parser::new().parse(line) {
            Ok(Parsed::Single(m)) => m.id().map(|id| id.to_owned()).into_iter().collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn the_short_read_of_an_answer_id_agrees_with_the_whole_parse() {
        let lines: [&[u8]; 7] = [
            br#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
            br#"{"jsonrpc":"2.0","id":-3,"error":{"code":-32601,"message":"x"}}"#,
            br#"{"jsonrpc":"2.0","id":"a\"b\\c,d","result":{}}"#,
            br#"{"jsonrpc":"2.0","id":"\u00e9","result":{}}"#,
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#,
            br#"{"jsonrpc":"2.0","id":1.5e3,"result":{}}"#,
        ];
        for line in lines {
            let short = own_answer_id(line).expect("the encoder's shape");
            assert_eq!(short, parsed_ids(line), "{}", String::from_utf8_lossy(line));
        }
        // Other shapes are left to the whole parse.
        assert_eq!(
            own_answer_id(br#"{"id":1,"jsonrpc":"2.0","result":{}}"#),
            None
        );
        assert_eq!(
            own_answer_id(br#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#),
            None
        );
        assert_eq!(own_answer_id(br#"{"jsonrpc":"2.0","id":"open"#), None);
    }
}
