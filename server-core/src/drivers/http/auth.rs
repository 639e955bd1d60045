//! Authorization as the specification's OAuth 2.1 resource server (`basic/authorization/`).
//!
//! [`AuthLayer`] is a tower layer to put in front of [`McpService`](super::McpService) (or of
//! any service whose response body can be made from bytes):
//! - it serves the Protected Resource Metadata document (RFC 9728) unauthenticated, at
//!   `/.well-known/oauth-protected-resource` with the resource's path inserted after it and
//!   at the root form;
//! - every other request must carry `Authorization: Bearer <token>`, which a
//!   [`TokenVerifier`] checks. A missing token is `401` with
//!   `WWW-Authenticate: Bearer resource_metadata="<metadata URL>"`, an invalid one `401`
//!   with `error="invalid_token"`, a malformed header `400` with `error="invalid_request"`,
//!   and a token without the required scopes `403` with `error="insufficient_scope"` and the
//!   scopes it needs. Each has a JSON-RPC error body too.
//! - an accepted request goes on with the token's [`Principal`] in its extensions.
//!
//! A verifier that must call out (token introspection) fits as a layer of its own: the
//! endpoint needs nothing from this one but the requests it lets through.

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, header};
use janus_codec::encode;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Where RFC 9728 puts the metadata document.
pub const METADATA_PREFIX: &str = "/.well-known/oauth-protected-resource";

pub use crate::api::ctx::Principal;

/// Checks an access token: the token's principal, or why it is not accepted (a short text
/// that goes into `error_description`).
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verifies `token` (the text after `Bearer `).
    ///
    /// # Errors
    ///
    /// Why the token is not accepted: a bad signature, another audience, expired, ...
    fn verify(&self, token: &str) -> Result<Principal, String>;
}

impl<F> TokenVerifier for F
where
    F: Fn(&str) -> Result<Principal, String> + Send + Sync + 'static,
{
    fn verify(&self, token: &str) -> Result<Principal, String> {
        self(token)
    }
}

/// A settings error of [`ProtectedResource`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceError(String);

impl std::fmt::Display for ResourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ResourceError {}

/// The protected resource: its canonical URI, its authorization servers and its scopes.
#[derive(Debug, Clone)]
pub struct ProtectedResource {
    resource: String,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    required_scopes: Vec<String>,
    resource_name: Option<String>,
    /// `scheme://authority`, and the resource's path (`""` for the root).
    origin: String,
    path: String,
}

impl ProtectedResource {
    /// `resource` is the endpoint's canonical URI (`https://mcp.example.com/mcp`): the audience
    /// tokens must be issued for. At least one authorization server is needed.
    ///
    /// # Errors
    ///
    /// `resource` is not an absolute `http`/`https` URI without query and fragment, or no
    /// authorization server is given.
    pub fn new(resource: &str, authorization_servers: Vec<String>) -> Result<Self, ResourceError> {
        let uri: http::Uri = resource
            .parse()
            .map_err(|e| ResourceError(format!("the resource URI {resource:?}: {e}")))?;
        let scheme = uri.scheme_str().unwrap_or("");
        if !matches!(scheme, "http" | "https") || uri.authority().is_none() {
            return Err(ResourceError(format!(
                "the resource URI {resource:?} must be absolute, http or https"
            )));
        }
        if uri.query().is_some() || resource.contains('#') {
            return Err(ResourceError(format!(
                "the resource URI {resource:?} must have no query and no fragment"
            )));
        }
        if authorization_servers.is_empty() {
            return Err(ResourceError(
                "a protected resource names at least one authorization server".into(),
            ));
        }
        let authority = uri.authority().map_or("", http::uri::Authority::as_str);
        let path = uri.path().trim_end_matches('/').to_owned();
        Ok(Self {
            resource: resource.to_owned(),
            authorization_servers,
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            resource_name: None,
            origin: format!("{scheme}://{authority}"),
            path,
        })
    }

    /// Scopes every request needs (`403` without them); also listed as `scopes_supported`
    /// unless that is set.
    #[must_use]
    pub fn require_scopes(mut self, scopes: Vec<String>) -> Self {
        self.required_scopes = scopes;
        self
    }

    /// The document's `scopes_supported`.
    #[must_use]
    pub fn scopes_supported(mut self, scopes: Vec<String>) -> Self {
        self.scopes_supported = scopes;
        self
    }

    /// The document's `resource_name`.
    #[must_use]
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The canonical URI.
    #[must_use]
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The path of the metadata document: the well-known prefix, then the resource's path.
    #[must_use]
    pub fn metadata_path(&self) -> String {
        format!("{METADATA_PREFIX}{}", self.path)
    }

    /// The URL of the metadata document, as `WWW-Authenticate` gives it.
    #[must_use]
    pub fn metadata_url(&self) -> String {
        format!("{}{}", self.origin, self.metadata_path())
    }

    /// The RFC 9728 document.
    #[must_use]
    pub fn document(&self) -> Bytes {
        let mut out = BytesMut::new();
        out.extend_from_slice(b"{\"resource\":");
        encode::write_str(&mut out, &self.resource);
        out.extend_from_slice(b",\"authorization_servers\":");
        write_list(&mut out, &self.authorization_servers);
        let scopes = if self.scopes_supported.is_empty() {
            &self.required_scopes
        } else {
            &self.scopes_supported
        };
        if !scopes.is_empty() {
            out.extend_from_slice(b",\"scopes_supported\":");
            write_list(&mut out, scopes);
        }
        out.extend_from_slice(b",\"bearer_methods_supported\":[\"header\"]");
        if let Some(name) = &self.resource_name {
            out.extend_from_slice(b",\"resource_name\":");
            encode::write_str(&mut out, name);
        }
        out.extend_from_slice(b"}");
        out.freeze()
    }
}

fn write_list(out: &mut BytesMut, items: &[String]) {
    out.extend_from_slice(b"[");
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b",");
        }
        encode::write_str(out, s);
    }
    out.extend_from_slice(b"]");
}

/// The tower layer of [`AuthService`].
pub struct AuthLayer<V> {
    shared: Arc<Shared<V>>,
}

impl<V> Clone for AuthLayer<V> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<V> std::fmt::Debug for AuthLayer<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthLayer")
            .field("resource", &self.shared.resource.resource)
            .finish_non_exhaustive()
    }
}

struct Shared<V> {
    verifier: V,
    resource: ProtectedResource,
    document: Bytes,
    metadata_path: String,
    metadata_url: String,
}

impl<V: TokenVerifier> AuthLayer<V> {
    /// Protects with `verifier` the resource `resource` describes.
    #[must_use]
    pub fn new(verifier: V, resource: ProtectedResource) -> Self {
        Self {
            shared: Arc::new(Shared {
                verifier,
                document: resource.document(),
                metadata_path: resource.metadata_path(),
                metadata_url: resource.metadata_url(),
                resource,
            }),
        }
    }
}

impl<S, V> tower_layer::Layer<S> for AuthLayer<V> {
    type Service = AuthService<S, V>;

    fn layer(&self, inner: S) -> AuthService<S, V> {
        AuthService {
            inner,
            shared: Arc::clone(&self.shared),
        }
    }
}

/// A service that lets through only requests with an accepted bearer token.
pub struct AuthService<S, V> {
    inner: S,
    shared: Arc<Shared<V>>,
}

impl<S: Clone, V> Clone for AuthService<S, V> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<S: std::fmt::Debug, V> std::fmt::Debug for AuthService<S, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthService")
            .field("inner", &self.inner)
            .field("resource", &self.shared.resource.resource)
            .finish()
    }
}

/// Why a request is turned away.
enum Refusal {
    /// No bearer token (RFC 6750 §3.1: no error code).
    Missing,
    /// `400 invalid_request`.
    Malformed,
    /// `401 invalid_token`.
    Invalid(String),
    /// `403 insufficient_scope`.
    Scope,
}

/// The bearer token of a request, by RFC 6750 §2.1 (the scheme's case does not matter).
fn bearer(headers: &HeaderMap) -> Result<&str, Refusal> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Err(Refusal::Missing);
    };
    if values.next().is_some() {
        return Err(Refusal::Malformed);
    }
    let value = value.to_str().map_err(|_| Refusal::Malformed)?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Refusal::Missing);
    }
    let token = token.trim_matches(' ');
    let b64token = |b: u8| b.is_ascii_alphanumeric() || b"-._~+/=".contains(&b);
    if token.is_empty() || !token.bytes().all(b64token) {
        return Err(Refusal::Malformed);
    }
    Ok(token)
}

/// A quoted-string value of `WWW-Authenticate`, with what RFC 6750 does not allow left out.
fn quoted(out: &mut String, name: &str, value: &str) {
    if !out.ends_with("Bearer ") {
        out.push_str(", ");
    }
    out.push_str(name);
    out.push_str("=\"");
    out.extend(
        value
            .chars()
            .filter(|&c| matches!(c, ' '..='~') && c != '"' && c != '\\'),
    );
    out.push('"');
}

impl<V> Shared<V> {
    fn refuse<RB: From<Bytes>>(&self, why: &Refusal) -> Response<RB> {
        let (status, error, description) = match why {
            Refusal::Missing => (StatusCode::UNAUTHORIZED, None, "Authorization required"),
            Refusal::Malformed => (
                StatusCode::BAD_REQUEST,
                Some("invalid_request"),
                "A malformed Authorization header",
            ),
            Refusal::Invalid(reason) => (
                StatusCode::UNAUTHORIZED,
                Some("invalid_token"),
                reason.as_str(),
            ),
            Refusal::Scope => (
                StatusCode::FORBIDDEN,
                Some("insufficient_scope"),
                "The token lacks a scope this server requires",
            ),
        };
        let mut challenge = String::from("Bearer ");
        if let Some(e) = error {
            quoted(&mut challenge, "error", e);
            quoted(&mut challenge, "error_description", description);
        }
        let required = &self.resource.required_scopes;
        if !required.is_empty() {
            quoted(&mut challenge, "scope", &required.join(" "));
        }
        quoted(&mut challenge, "resource_metadata", &self.metadata_url);
        let mut data = BytesMut::new();
        data.extend_from_slice(b"{\"error\":");
        encode::write_str(&mut data, error.unwrap_or("unauthorized"));
        data.extend_from_slice(b"}");
        let mut out = BytesMut::new();
        let message = format!("{}: {description}", status.canonical_reason().unwrap_or(""));
        let data = std::str::from_utf8(&data).unwrap_or("{}");
        encode::write_error(
            &mut out,
            None,
            janus_codec::INVALID_REQUEST,
            &message,
            Some(data),
        );
        let mut r = json(status, out);
        if let Ok(v) = HeaderValue::from_str(&challenge) {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
        }
        r
    }

    fn is_metadata_path(&self, path: &str) -> bool {
        path == self.metadata_path || path == METADATA_PREFIX
    }
}

fn json<RB: From<Bytes>>(status: StatusCode, mut body: BytesMut) -> Response<RB> {
    if body.last() == Some(&b'\n') {
        body.truncate(body.len() - 1);
    }
    let mut r = Response::new(RB::from(body.freeze()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

impl<S, V, B, RB> tower_service::Service<Request<B>> for AuthService<S, V>
where
    S: tower_service::Service<Request<B>, Response = Response<RB>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    V: TokenVerifier,
    B: Send + 'static,
    RB: From<Bytes> + Send + 'static,
{
    type Response = Response<RB>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<RB>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<B>) -> Self::Future {
        let shared = &self.shared;
        if shared.is_metadata_path(req.uri().path()) {
            let r = match *req.method() {
                Method::GET | Method::HEAD => {
                    let mut r = json(StatusCode::OK, BytesMut::from(&shared.document[..]));
                    // Browser-based clients fetch it from another origin.
                    r.headers_mut().insert(
                        header::ACCESS_CONTROL_ALLOW_ORIGIN,
                        HeaderValue::from_static("*"),
                    );
                    r
                }
                _ => {
                    let mut r = Response::new(RB::from(Bytes::new()));
                    *r.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
                    r.headers_mut()
                        .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
                    r
                }
            };
            return Box::pin(async move { Ok(r) });
        }
        // A CORS preflight carries no credentials by definition: the endpoint answers it.
        let verdict = if req.method() == Method::OPTIONS {
            Ok(None)
        } else {
            bearer(req.headers()).and_then(|token| {
                let principal = shared.verifier.verify(token).map_err(Refusal::Invalid)?;
                let required = &shared.resource.required_scopes;
                if required.iter().all(|s| principal.has_scope(s)) {
                    Ok(Some(principal))
                } else {
                    Err(Refusal::Scope)
                }
            })
        };
        match verdict {
            Err(why) => {
                let r = shared.refuse(&why);
                Box::pin(async move { Ok(r) })
            }
            Ok(principal) => {
                if let Some(p) = principal {
                    req.extensions_mut().insert(p);
                }
                // The clone that was made ready serves this call (tower's usual swap).
                let clone = self.inner.clone();
                let mut inner = std::mem::replace(&mut self.inner, clone);
                Box::pin(inner.call(req))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broader_scope_grants_a_narrower_one() {
        let p = Principal::new(None, None, vec!["files".into(), "mcp:tools".into()]);
        assert!(p.has_scope("files"));
        assert!(p.has_scope("files:read"));
        assert!(p.has_scope("mcp:tools"));
        assert!(!p.has_scope("mcp"));
        assert!(!p.has_scope("filesystem"));
        assert!(!p.has_scope("mcp:tools2"));
    }

    #[test]
    fn the_metadata_path_inserts_the_resource_path() {
        let r = ProtectedResource::new(
            "https://mcp.example.com/public/mcp",
            vec!["https://as".into()],
        )
        .unwrap();
        assert_eq!(
            r.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp"
        );
        let root =
            ProtectedResource::new("http://127.0.0.1:8080/", vec!["https://as".into()]).unwrap();
        assert_eq!(
            root.metadata_url(),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
        );
        assert!(ProtectedResource::new("mcp.example.com/mcp", vec!["a".into()]).is_err());
        assert!(ProtectedResource::new("https://m/mcp#x", vec!["a".into()]).is_err());
        assert!(ProtectedResource::new("https://m/mcp?q=1", vec!["a".into()]).is_err());
        assert!(ProtectedResource::new("https://m/mcp", vec![]).is_err());
    }

    #[test]
    fn the_bearer_token_is_read_by_rfc_6750() {
        let mut h = HeaderMap::new();
        assert!(matches!(bearer(&h), Err(Refusal::Missing)));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer abc.DEF-_~+/="),
        );
        assert_eq!(bearer(&h).ok(), Some("abc.DEF-_~+/="));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Basic dXNlcjpwYXNz"),
        );
        assert!(matches!(bearer(&h), Err(Refusal::Missing)));
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert!(matches!(bearer(&h), Err(Refusal::Malformed)));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer a\"b"),
        );
        assert!(matches!(bearer(&h), Err(Refusal::Malformed)));
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer a"));
        h.append(header::AUTHORIZATION, HeaderValue::from_static("Bearer b"));
        assert!(matches!(bearer(&h), Err(Refusal::Malformed)));
    }
}
