//! The ids a legacy session routes by: the session ids it mints, and the request ids a body
//! carries, cancels or answers.

use base64::Engine as _;
use janus_codec::{Id, IdBuf, Message, Parsed, Rejection};

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

/// The ids of the requests in a body (of a body that is no message, the id it holds when it
/// could be read: its error answers it).
pub(super) fn request_ids(read: &Result<Parsed<'_>, Rejection<'_>>) -> Vec<IdBuf> {
    if let Err(Rejection { id: Some(id), .. }) = read {
        return vec![Id::to_owned(*id)];
    }
    ids_of(read, |m| {
        m.is_request()
            .then(|| m.id().map(|id| id.to_owned()))
            .flatten()
    })
}

/// The ids of the requests in a body, with their methods.
pub(super) fn requests(read: &Result<Parsed<'_>, Rejection<'_>>) -> Vec<(IdBuf, String)> {
    let mut out = Vec::new();
    let mut each = |m: &Message<'_>| {
        if m.is_request()
            && let Some(id) = m.id()
        {
            out.push((id.to_owned(), m.method().to_owned()));
        }
    };
    match read {
        Ok(Parsed::Single(m)) => each(m),
        Ok(Parsed::Batch(b)) => b.iter().filter_map(Result::ok).for_each(|m| each(&m)),
        Err(_) => {}
    }
    out
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
