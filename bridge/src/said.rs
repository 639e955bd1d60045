//! What a forwarded request says beyond its params: where its progress goes, its cancel,
//! who the front's client is (its `clientInfo`, capabilities and `_meta` members, which the
//! backend hears instead of the bridge's), and whether the call answers its own input.

use crate::input::Inbox;
use janus_client::{CallOptions, Cancel, Forwarded, Progress};
use janus_model::json::object_without;
use janus_server_core::Ctx;
use std::sync::Arc;
use tokio::sync::mpsc;

/// The options of a forwarded request: where its progress goes, its cancel, what it says of
/// the front's client, and, when the backend says which call its input is for (a
/// 2026-07-28 backend's `input_required`; a handshake backend's requests on a call's HTTP
/// response stream), callbacks that put that input to its own call (a handshake backend's
/// requests on stdio name none, and are routed by the connection's callbacks).
pub(crate) fn call_options(
    progress: Option<mpsc::UnboundedSender<Progress>>,
    cancel: Cancel,
    route: Route<'_>,
) -> CallOptions {
    CallOptions {
        timeout: None,
        progress,
        cancel: Some(cancel),
        tasks: false,
        callbacks: route.own.then(|| crate::input::answering_in(route.inbox)),
        forwarded: Some(route.forwarded),
    }
}

/// Where a backend request's input goes, and what it says of the front request's client.
pub(crate) struct Route<'a> {
    pub(crate) inbox: &'a Arc<Inbox>,
    pub(crate) forwarded: Arc<Forwarded>,
    /// The backend's requests for input say which call they are for: the call answers its
    /// own (else they go through the router).
    pub(crate) own: bool,
}

/// The `_meta` keys a front request's client wrote that the bridge's client writes again
/// for the backend (in the backend's revision): the rest go on as they came.
const WRITTEN_AGAIN: [&str; 5] = [
    janus_codec::era::PROGRESS_TOKEN_KEY,
    janus_codec::era::PROTOCOL_VERSION_KEY,
    janus_codec::era::CLIENT_INFO_KEY,
    janus_codec::era::CLIENT_CAPABILITIES_KEY,
    janus_codec::era::LOG_LEVEL_KEY,
];

/// What a front request's client said, as the last forwarded request had it (`_meta` and
/// its client's capabilities as sent): the next request that says the same shares what was
/// forwarded for it, read once.
#[derive(Debug)]
pub(crate) struct Said {
    meta: Option<Box<str>>,
    capabilities: Option<Box<str>>,
    forwarded: Arc<Forwarded>,
}

/// What the front request's client says of itself, forwarded with its backend request: its
/// client info and capabilities but their extensions (which a 2026-07-28 backend reads
/// instead of the bridge's), and its other `_meta` members (a trace context, a vendor's
/// keys; in every revision). Requests that say the same share one (`said` keeps the last).
pub(crate) fn forwarded(ctx: &Ctx<'_>, said: &std::sync::Mutex<Option<Said>>) -> Arc<Forwarded> {
    let info = ctx.client_info().map(|i| i.as_str());
    let all = ctx.client_capabilities();
    let sent = ctx.meta();
    let mut last = said
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // NB. A client says the same thing in each request (but a progress token): its `_meta`
    // compared as text is cheaper than read again.
    if let Some(l) = last.as_ref()
        && l.meta.as_deref() == sent.map(|m| m.as_str())
        && l.capabilities.as_deref() == all.map(|c| c.as_str())
        && l.forwarded.client_info.as_deref() == info
    {
        return Arc::clone(&l.forwarded);
    }
    // NB. But for its extensions: the front's tasks are the server core's, and the bridge's
    // client declares what it handles itself (the tasks extension for a tool that needs it).
    let rest = all
        .filter(|c| c.as_str().contains("\"extensions\"") && c.get("extensions").is_some())
        .map(|c| {
            object_without(c, |k| k == "extensions")
                .map_or_else(|| "{}".to_owned(), |j| j.as_str().to_owned())
        });
    let caps = rest.as_deref().or_else(|| all.map(|c| c.as_str()));
    let meta = sent
        .filter(|m| m.has_other_members(&WRITTEN_AGAIN))
        .and_then(|m| object_without(m, |k| WRITTEN_AGAIN.contains(&k)))
        .map(|j| j.as_str().to_owned());
    // NB. A request whose `_meta` differs only by what is written again (a progress token,
    // new in each request) says what the last one said: it shares that, and the text kept
    // stays (no copy a request).
    if let Some(l) = last.as_ref()
        && l.forwarded.client_info.as_deref() == info
        && l.forwarded.capabilities.as_deref() == caps
        && l.forwarded.meta == meta
    {
        return Arc::clone(&l.forwarded);
    }
    let f = Arc::new(Forwarded {
        client_info: info.map(str::to_owned),
        capabilities: caps.map(str::to_owned),
        meta,
    });
    *last = Some(Said {
        meta: sent.map(|m| m.as_str().into()),
        capabilities: all.map(|c| c.as_str().into()),
        forwarded: Arc::clone(&f),
    });
    f
}
