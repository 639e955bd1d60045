//! Answers' bodies: a whole JSON answer, or an SSE stream of events that ends with the
//! answer; and the statuses of the 2026-07-28 table.

use crate::engine::connection::Line;
use bytes::{Bytes, BytesMut};
use http::{HeaderValue, Response, StatusCode, header};
use http_body::{Body, Frame};
use janus_codec::encode;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use tokio::sync::mpsc;

use super::{HEADER_MISMATCH, KEEP_ALIVE};

/// The body of an answer: whole, or an SSE stream.
pub struct McpBody {
    kind: BodyKind,
}

enum BodyKind {
    Full(Option<Bytes>),
    Stream {
        events: mpsc::Receiver<Bytes>,
        keep_alive: tokio::time::Interval,
        /// Stops the request's work when the stream is dropped (the client went away).
        _work: AbortOnDrop,
        /// Its place among the endpoint's open streams.
        _permit: Option<StreamPermit>,
    },
}

impl std::fmt::Debug for McpBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            BodyKind::Full(_) => "full",
            BodyKind::Stream { .. } => "stream",
        };
        f.debug_struct("McpBody").field("kind", &kind).finish()
    }
}

impl McpBody {
    pub(super) fn full(bytes: impl Into<Bytes>) -> Self {
        Self {
            kind: BodyKind::Full(Some(bytes.into())),
        }
    }

    pub(super) fn empty() -> Self {
        Self {
            kind: BodyKind::Full(None),
        }
    }
}

impl From<Bytes> for McpBody {
    fn from(bytes: Bytes) -> Self {
        if bytes.is_empty() {
            Self::empty()
        } else {
            Self::full(bytes)
        }
    }
}

impl Body for McpBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.get_mut().kind {
            BodyKind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            BodyKind::Stream {
                events, keep_alive, ..
            } => {
                if let Poll::Ready(event) = events.poll_recv(cx) {
                    return Poll::Ready(event.map(|e| Ok(Frame::data(e))));
                }
                if keep_alive.poll_tick(cx).is_ready() {
                    return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
                        b": keep-alive\n\n",
                    )))));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.kind, BodyKind::Full(None))
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match &self.kind {
            // A whole answer goes out with its Content-Length.
            BodyKind::Full(b) => {
                http_body::SizeHint::with_exact(b.as_ref().map_or(0, |b| b.len() as u64))
            }
            BodyKind::Stream { .. } => http_body::SizeHint::default(),
        }
    }
}

/// The count of the endpoint's open streams: requests that wait for asynchronous work and
/// SSE streams, against a cap.
#[derive(Debug)]
pub(super) struct Streams {
    open: AtomicUsize,
    max: usize,
}

impl Streams {
    pub(super) fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            open: AtomicUsize::new(0),
            max,
        })
    }

    /// How many are open.
    pub(super) fn open(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    /// A place for one more stream, `None` at the cap.
    pub(super) fn try_open(self: &Arc<Self>) -> Option<StreamPermit> {
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.max).then_some(n + 1)
            })
            .ok()
            .map(|_| StreamPermit(Arc::clone(self)))
    }
}

/// One open stream; its place is given back when dropped.
#[derive(Debug)]
pub(super) struct StreamPermit(Arc<Streams>);

impl Drop for StreamPermit {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// `503` for a request past the cap of open streams, with `Retry-After: 1`.
pub(super) fn too_many_streams() -> Response<McpBody> {
    let mut r = refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        janus_codec::INTERNAL_ERROR,
        "Too many open streams: retry later",
    );
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

/// Aborts tasks when dropped.
pub(super) struct AbortOnDrop(pub(super) Vec<tokio::task::AbortHandle>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        for h in &self.0 {
            h.abort();
        }
    }
}

/// A JSON-RPC error body with id `null`, and its status.
pub(super) fn refuse(status: StatusCode, code: i32, message: &str) -> Response<McpBody> {
    let mut out = BytesMut::new();
    encode::write_error(&mut out, None, code, message, None);
    json_response(status, out)
}

pub(super) fn json_response(status: StatusCode, mut line: BytesMut) -> Response<McpBody> {
    if line.last() == Some(&b'\n') {
        line.truncate(line.len() - 1);
    }
    let mut r = Response::new(McpBody::full(line.freeze()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

pub(super) fn empty(status: StatusCode) -> Response<McpBody> {
    let mut r = Response::new(McpBody::empty());
    *r.status_mut() = status;
    r
}

/// The HTTP status of an answer, by the 2026-07-28 table, from what the core says the line
/// is: its error's code (a result, or a notification, is `200`).
pub(super) const fn status_of(line: &Line) -> StatusCode {
    let Line::Answer {
        error: Some(code), ..
    } = line
    else {
        return StatusCode::OK;
    };
    match *code {
        janus_codec::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        janus_codec::UNSUPPORTED_PROTOCOL_VERSION
        | janus_codec::MISSING_CLIENT_CAPABILITY
        | HEADER_MISMATCH
        | janus_codec::INVALID_REQUEST
        | janus_codec::PARSE_ERROR => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// `event: message` with the line as its data.
pub(super) fn sse_event(line: &[u8]) -> Bytes {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let mut e = BytesMut::with_capacity(line.len() + 24);
    e.extend_from_slice(b"event: message\ndata: ");
    e.extend_from_slice(line);
    e.extend_from_slice(b"\n\n");
    e.freeze()
}

pub(super) fn sse_response(
    events: mpsc::Receiver<Bytes>,
    work: AbortOnDrop,
    permit: Option<StreamPermit>,
) -> Response<McpBody> {
    let mut keep_alive = tokio::time::interval(KEEP_ALIVE);
    keep_alive.reset();
    let mut r = Response::new(McpBody {
        kind: BodyKind::Stream {
            events,
            keep_alive,
            _work: work,
            _permit: permit,
        },
    });
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache, no-transform"),
    );
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_of_an_answer_comes_from_its_error_code() {
        let answer = |error| Line::Answer { id: None, error };
        let cases = [
            (answer(None), 200),
            (answer(Some(janus_codec::METHOD_NOT_FOUND)), 404),
            (answer(Some(janus_codec::INVALID_PARAMS)), 200),
            (answer(Some(janus_codec::PARSE_ERROR)), 400),
            (answer(Some(HEADER_MISMATCH)), 400),
            (answer(Some(janus_codec::UNSUPPORTED_PROTOCOL_VERSION)), 400),
            (answer(Some(janus_codec::INTERNAL_ERROR)), 200),
            (Line::Notification { job: None }, 200),
        ];
        for (line, want) in cases {
            assert_eq!(status_of(&line).as_u16(), want, "{line:?}");
        }
    }
}
