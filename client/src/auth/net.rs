//! The few HTTP exchanges of authorization (metadata, registration, tokens, a headless
//! authorization request), on the client's own hyper stack.

use crate::error::Error;
use crate::tls::{Hyper, Tls, describe};
use bytes::{Bytes, BytesMut};
use http::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use http::{Method, Request, Uri};
use http_body_util::{BodyExt, Full};
use std::sync::OnceLock;
use std::time::Duration;

/// The longest an exchange with an authorization server may take.
const TIMEOUT: Duration = Duration::from_secs(20);

/// The largest body read from an authorization server (metadata documents are small).
const MAX_BODY: usize = 1 << 20;

/// An answer: its status, headers and body.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

impl Answer {
    /// The body as a JSON object, when it is one.
    pub(crate) fn json(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        match serde_json::from_slice(&self.body).ok()? {
            serde_json::Value::Object(m) => Some(m),
            _ => None,
        }
    }
}

/// The hyper clients of authorization, one a scheme, built when first needed.
pub(crate) struct Net {
    tls: Tls,
    plain: OnceLock<Hyper>,
    secure: OnceLock<Hyper>,
}

impl Net {
    pub(crate) fn new(tls: Tls) -> Self {
        Self {
            tls,
            plain: OnceLock::new(),
            secure: OnceLock::new(),
        }
    }

    fn hyper(&self, uri: &Uri) -> Result<Hyper, Error> {
        let cell = match uri.scheme_str() {
            Some("https") => &self.secure,
            Some("http") => &self.plain,
            _ => return Err(Error::Auth(format!("{uri} is no http or https URL"))),
        };
        if let Some(h) = cell.get() {
            return Ok(h.clone());
        }
        let h = Hyper::new(uri, &self.tls)?;
        Ok(cell.get_or_init(|| h).clone())
    }

    /// A `GET` of `url`, asking for JSON; redirects are not followed.
    pub(crate) async fn get(&self, url: &str) -> Result<Answer, Error> {
        self.send(Method::GET, url, Vec::new(), None).await
    }

    /// A `POST` of `body` (of type `kind`) to `url`, with `headers`.
    pub(crate) async fn post(
        &self,
        url: &str,
        headers: Vec<(HeaderName, HeaderValue)>,
        kind: &'static str,
        body: Vec<u8>,
    ) -> Result<Answer, Error> {
        self.send(Method::POST, url, headers, Some((kind, body)))
            .await
    }

    async fn send(
        &self,
        method: Method,
        url: &str,
        headers: Vec<(HeaderName, HeaderValue)>,
        body: Option<(&'static str, Vec<u8>)>,
    ) -> Result<Answer, Error> {
        let uri: Uri = url
            .parse()
            .map_err(|_| Error::Auth(format!("{url} is no URL")))?;
        let hyper = self.hyper(&uri)?;
        let what = format!("{method} {uri}");
        let mut req = Request::new(Full::new(Bytes::new()));
        if let Some((kind, body)) = body {
            *req.body_mut() = Full::new(Bytes::from(body));
            req.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(kind));
        }
        *req.method_mut() = method;
        *req.uri_mut() = uri.clone();
        req.headers_mut()
            .insert(ACCEPT, HeaderValue::from_static("application/json"));
        for (n, v) in headers {
            req.headers_mut().insert(n, v);
        }
        let exchange = async {
            let resp = hyper
                .request(req)
                .await
                .map_err(|e| Error::Transport(format!("{what}: {}", describe(&e, &uri))))?;
            let status = resp.status().as_u16();
            let (parts, mut body) = resp.into_parts();
            let mut whole = BytesMut::new();
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|e| Error::Transport(format!("{what}: {e}")))?;
                if let Ok(d) = frame.into_data() {
                    whole.extend_from_slice(&d);
                    if whole.len() > MAX_BODY {
                        return Err(Error::Auth(format!("{what}: an answer over 1 MiB")));
                    }
                }
            }
            Ok(Answer {
                status,
                headers: parts.headers,
                body: whole.freeze(),
            })
        };
        tokio::time::timeout(TIMEOUT, exchange)
            .await
            .map_err(|_| Error::Transport(format!("{what}: no answer within {TIMEOUT:?}")))?
    }
}
