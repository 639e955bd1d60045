//! Authorization of the HTTP endpoint (feature `jwt`): the Protected Resource Metadata
//! document, every refusal with its status and challenge, and the JWT verifier's checks
//! (signature, key choice, algorithm family, expiry, audience, issuer, scopes), in process.
//!
//! `tests/keys/` holds keys made for these tests alone (`openssl genpkey`), with a JWKS of the
//! EC one.
#![cfg(feature = "jwt")]

mod http_client;

use http::{Request, Response};
use http_client::{Reply, request};
use janus_server_core::Halt;
use janus_server_core::demo;
use janus_server_core::http::tower_layer::Layer as _;
use janus_server_core::http::{
    AuthLayer, HttpConfig, JwtVerifier, McpService, Principal, ProtectedResource, serve_http,
};
use janus_server_core::serve::Shutdown;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use std::convert::Infallible;
use std::future::Ready;
use std::net::SocketAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const RESOURCE: &str = "http://127.0.0.1/mcp";
const METADATA: &str = "http://127.0.0.1/.well-known/oauth-protected-resource/mcp";
const SECRET: &[u8] = b"a shared secret of at least thirty-two bytes";
const EC_PRIVATE: &[u8] = include_bytes!("keys/ec-private.pem");
const ED_PRIVATE: &[u8] = include_bytes!("keys/ed-private.pem");
const ED_PUBLIC: &[u8] = include_bytes!("keys/ed-public.pem");
const JWKS: &[u8] = include_bytes!("keys/jwks.json");

fn resource() -> ProtectedResource {
    ProtectedResource::new(RESOURCE, vec!["https://auth.example".into()])
        .unwrap()
        .require_scopes(vec!["mcp:tools".into()])
        .resource_name("Janus tests")
}

async fn start<S>(service: S) -> (SocketAddr, Shutdown)
where
    S: tower_service::Service<
            Request<hyper::body::Incoming>,
            Response = Response<janus_server_core::http::McpBody>,
            Error = Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = Shutdown::new();
    let s = shutdown.clone();
    tokio::spawn(async move { serve_http(service, listener, &s, Duration::from_secs(2)).await });
    (addr, shutdown)
}

async fn start_jwt(verifier: JwtVerifier) -> (SocketAddr, Shutdown) {
    let mcp = McpService::new(demo::server(), HttpConfig::default());
    start(AuthLayer::new(verifier, resource()).layer(mcp)).await
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Claims of a good token, to spoil one at a time.
fn claims() -> Value {
    json!({"sub": "alice", "aud": RESOURCE, "iss": "https://auth.example",
           "exp": now() + 600, "scope": "openid mcp:tools"})
}

fn sign(alg: Algorithm, kid: Option<&str>, key: &EncodingKey, claims: &Value) -> String {
    let mut h = Header::new(alg);
    h.kid = kid.map(str::to_owned);
    jsonwebtoken::encode(&h, claims, key).unwrap()
}

fn hs256(claims: &Value) -> String {
    sign(
        Algorithm::HS256,
        None,
        &EncodingKey::from_secret(SECRET).unwrap(),
        claims,
    )
}

const LIST: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

async fn list(addr: SocketAddr, authorization: Option<&str>) -> Reply {
    let mut h = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    if let Some(a) = authorization {
        h.push(("authorization", a));
    }
    request(addr, "POST", "/mcp", &h, LIST).await
}

/// The parameters of a `WWW-Authenticate: Bearer ...` challenge.
fn challenge(r: &Reply) -> Vec<(String, String)> {
    let h = r.header("www-authenticate").expect("a challenge");
    let params = h.strip_prefix("Bearer ").expect("the Bearer scheme");
    params
        .split("\", ")
        .map(|p| {
            let (k, v) = p.split_once("=\"").unwrap();
            (k.to_owned(), v.trim_end_matches('"').to_owned())
        })
        .collect()
}

fn param<'c>(c: &'c [(String, String)], name: &str) -> Option<&'c str> {
    c.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

#[tokio::test]
async fn the_metadata_document_is_served_unauthenticated_at_both_well_known_paths() {
    let (addr, _stop) = start_jwt(JwtVerifier::hmac(SECRET, RESOURCE).unwrap()).await;
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let r = request(addr, "GET", path, &[], "").await;
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(
            r.json(),
            json!({"resource": RESOURCE, "authorization_servers": ["https://auth.example"],
                   "scopes_supported": ["mcp:tools"], "bearer_methods_supported": ["header"],
                   "resource_name": "Janus tests"})
        );
    }
    let r = request(
        addr,
        "POST",
        "/.well-known/oauth-protected-resource",
        &[],
        "{}",
    )
    .await;
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("GET, HEAD"));
}

#[tokio::test]
async fn a_missing_malformed_or_invalid_token_is_refused_with_its_challenge() {
    let (addr, _stop) = start_jwt(JwtVerifier::hmac(SECRET, RESOURCE).unwrap()).await;
    // No token, or another scheme: 401 with no error code (RFC 6750 §3.1).
    for auth in [None, Some("Basic dXNlcjpwYXNz")] {
        let r = list(addr, auth).await;
        assert_eq!(r.status, 401, "{auth:?}");
        let c = challenge(&r);
        assert_eq!(param(&c, "resource_metadata"), Some(METADATA));
        assert_eq!(param(&c, "scope"), Some("mcp:tools"));
        assert_eq!(param(&c, "error"), None);
        let body = r.json();
        assert_eq!(body["jsonrpc"], "2.0");
        assert!(body["error"]["code"].is_i64(), "{body}");
    }
    // A header that is not a bearer token's syntax: 400 invalid_request.
    let r = list(addr, Some("Bearer a\"b")).await;
    assert_eq!(r.status, 400);
    assert_eq!(param(&challenge(&r), "error"), Some("invalid_request"));
    // Tokens that fail one check each: 401 invalid_token, and the reason.
    let mut expired = claims();
    expired["exp"] = json!(now() - 3600);
    let mut other_audience = claims();
    other_audience["aud"] = json!("https://other.example/mcp");
    let mut no_audience = claims();
    no_audience.as_object_mut().unwrap().remove("aud");
    let mut no_expiry = claims();
    no_expiry.as_object_mut().unwrap().remove("exp");
    let mut not_yet = claims();
    not_yet["nbf"] = json!(now() + 3600);
    let wrong_secret = sign(
        Algorithm::HS256,
        None,
        &EncodingKey::from_secret(b"another secret, just as long as the first one").unwrap(),
        &claims(),
    );
    let cases = [
        (hs256(&expired), "expired"),
        (hs256(&other_audience), "another resource"),
        (hs256(&no_audience), "claim"),
        (hs256(&no_expiry), "claim"),
        (hs256(&not_yet), "not valid yet"),
        (wrong_secret, "signature"),
        ("not-a-jwt".to_owned(), "not a JWT"),
        // Signed with an EC key: no key of an HMAC verifier takes ES256.
        (
            sign(
                Algorithm::ES256,
                None,
                &EncodingKey::from_ec_pem(EC_PRIVATE).unwrap(),
                &claims(),
            ),
            "No key",
        ),
    ];
    for (token, why) in cases {
        let r = list(addr, Some(&format!("Bearer {token}"))).await;
        assert_eq!(r.status, 401, "{why}");
        let c = challenge(&r);
        assert_eq!(param(&c, "error"), Some("invalid_token"), "{why}");
        assert_eq!(param(&c, "resource_metadata"), Some(METADATA));
        let description = param(&c, "error_description").unwrap();
        assert!(description.contains(why), "{why}: {description}");
    }
    // An unsigned token (`alg: none`) is never accepted.
    let unsigned = format!(
        "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{}.",
        base64url(&serde_json::to_vec(&claims()).unwrap())
    );
    assert_eq!(
        list(addr, Some(&format!("Bearer {unsigned}"))).await.status,
        401
    );
}

fn base64url(b: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for c in b.chunks(3) {
        let n = c.iter().fold(0u32, |n, &x| n << 8 | u32::from(x)) << (8 * (3 - c.len()));
        for i in 0..=c.len() {
            out.push(char::from(A[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

#[tokio::test]
async fn a_good_token_is_served_and_a_narrow_one_gets_403_with_the_scopes_it_needs() {
    let (addr, _stop) = start_jwt(
        JwtVerifier::hmac(SECRET, RESOURCE)
            .unwrap()
            .issuers(vec!["https://auth.example".into()]),
    )
    .await;
    let r = list(addr, Some(&format!("Bearer {}", hs256(&claims())))).await;
    assert_eq!(r.status, 200);
    assert!(r.json()["result"]["tools"].is_array());
    // A broader scope grants the narrower one; `scp` as a list counts too.
    let mut broad = claims();
    broad["scope"] = json!("mcp");
    assert_eq!(
        list(addr, Some(&format!("Bearer {}", hs256(&broad))))
            .await
            .status,
        200
    );
    let mut scp = claims();
    scp.as_object_mut().unwrap().remove("scope");
    scp["scp"] = json!(["mcp:tools"]);
    assert_eq!(
        list(addr, Some(&format!("Bearer {}", hs256(&scp))))
            .await
            .status,
        200
    );
    let mut narrow = claims();
    narrow["scope"] = json!("openid mcp:tools2");
    let r = list(addr, Some(&format!("Bearer {}", hs256(&narrow)))).await;
    assert_eq!(r.status, 403);
    let c = challenge(&r);
    assert_eq!(param(&c, "error"), Some("insufficient_scope"));
    assert_eq!(param(&c, "scope"), Some("mcp:tools"));
    assert_eq!(param(&c, "resource_metadata"), Some(METADATA));
    let mut other_issuer = claims();
    other_issuer["iss"] = json!("https://evil.example");
    let r = list(addr, Some(&format!("Bearer {}", hs256(&other_issuer)))).await;
    assert_eq!(r.status, 401);
    assert!(
        param(&challenge(&r), "error_description")
            .unwrap()
            .contains("issuer")
    );
}

#[tokio::test]
async fn a_jwks_key_is_chosen_by_kid_and_a_pem_key_by_its_family() {
    let (addr, _stop) = start_jwt(JwtVerifier::jwks(JWKS, RESOURCE).unwrap()).await;
    let ec = EncodingKey::from_ec_pem(EC_PRIVATE).unwrap();
    let good = sign(Algorithm::ES256, Some("k1"), &ec, &claims());
    assert_eq!(
        list(addr, Some(&format!("Bearer {good}"))).await.status,
        200
    );
    let unknown_kid = sign(Algorithm::ES256, Some("k9"), &ec, &claims());
    assert_eq!(
        list(addr, Some(&format!("Bearer {unknown_kid}")))
            .await
            .status,
        401
    );
    // An HMAC token "signed" with the public key's bytes: the family does not match.
    let confused = sign(
        Algorithm::HS256,
        Some("k1"),
        &EncodingKey::from_secret(JWKS).unwrap(),
        &claims(),
    );
    assert_eq!(
        list(addr, Some(&format!("Bearer {confused}"))).await.status,
        401
    );
    let ed = EncodingKey::from_ed_pem(ED_PRIVATE).unwrap();
    let ed_token = sign(Algorithm::EdDSA, Some("k1"), &ed, &claims());
    assert_eq!(
        list(addr, Some(&format!("Bearer {ed_token}"))).await.status,
        401
    );

    let (addr, _stop) = start_jwt(JwtVerifier::public_key_pem(ED_PUBLIC, RESOURCE).unwrap()).await;
    assert_eq!(
        list(addr, Some(&format!("Bearer {ed_token}"))).await.status,
        200
    );
    assert_eq!(
        list(addr, Some(&format!("Bearer {good}"))).await.status,
        401
    );

    assert!(JwtVerifier::hmac(b"short", RESOURCE).is_err());
    assert!(JwtVerifier::jwks(br#"{"keys":[]}"#, RESOURCE).is_err());
    assert!(JwtVerifier::jwks(b"not json", RESOURCE).is_err());
    assert!(JwtVerifier::public_key_pem(b"-----BEGIN NOTHING-----", RESOURCE).is_err());
}

#[tokio::test]
async fn every_legacy_request_needs_the_token_too() {
    let (addr, _stop) = start_jwt(JwtVerifier::hmac(SECRET, RESOURCE).unwrap()).await;
    let bearer = format!("Bearer {}", hs256(&claims()));
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    assert_eq!(request(addr, "POST", "/mcp", &[], init).await.status, 401);
    let r = request(addr, "POST", "/mcp", &[("authorization", &bearer)], init).await;
    assert_eq!(r.status, 200);
    let session = r.header("mcp-session-id").unwrap().to_owned();
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let h = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    assert_eq!(request(addr, "POST", "/mcp", &h, list).await.status, 401);
    let mut with = h.to_vec();
    with.push(("authorization", &bearer));
    let r = request(addr, "POST", "/mcp", &with, list).await;
    assert_eq!(r.status, 200);
    assert!(r.json()["result"]["tools"].is_array());
}

/// A service that answers with the subject of the principal the layer established.
#[derive(Clone)]
struct Whoami;

impl<B> tower_service::Service<Request<B>> for Whoami {
    type Response = Response<janus_server_core::http::McpBody>;
    type Error = Infallible;
    type Future = Ready<Result<Self::Response, Infallible>>;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let who = req
            .extensions()
            .get::<Principal>()
            .and_then(|p| p.subject.clone())
            .unwrap_or_default();
        std::future::ready(Ok(Response::new(bytes::Bytes::from(who).into())))
    }
}

#[tokio::test]
async fn a_verifier_of_ones_own_hands_its_principal_to_the_service_behind() {
    let verifier = |token: &str| match token {
        "open-sesame" => Ok(Principal::new(
            Some("ali".into()),
            None,
            vec!["mcp:tools".into()],
        )),
        "narrow" => Ok(Principal::new(Some("bo".into()), None, vec![])),
        _ => Err("unknown token".to_owned()),
    };
    let (addr, _stop) = start(AuthLayer::new(verifier, resource()).layer(Whoami)).await;
    let r = request(
        addr,
        "POST",
        "/any",
        &[("authorization", "Bearer open-sesame")],
        "",
    )
    .await;
    assert_eq!((r.status, r.body.as_slice()), (200, b"ali".as_slice()));
    let r = request(
        addr,
        "POST",
        "/any",
        &[("authorization", "Bearer narrow")],
        "",
    )
    .await;
    assert_eq!(r.status, 403);
    let r = request(
        addr,
        "POST",
        "/any",
        &[("authorization", "Bearer nope")],
        "",
    )
    .await;
    assert_eq!(r.status, 401);
    assert_eq!(
        param(&challenge(&r), "error_description"),
        Some("unknown token")
    );
}

#[tokio::test]
async fn handlers_see_who_calls_in_both_eras() {
    use janus_server_core::tools::{Args, Output, ToolFuture, ToolResult, ToolSpec};
    use janus_server_core::{Ctx, Server};
    fn whoami(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
        let who = ctx.principal().and_then(|p| p.subject.clone());
        out.text(&who.unwrap_or_else(|| "nobody".into()));
        Ok(())
    }
    fn whoami_later(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
        let ctx = ctx.to_owned();
        Ok(Box::pin(async move {
            let who = ctx.principal().and_then(|p| p.subject.clone());
            Ok(ToolResult::text(format!(
                "later {}",
                who.unwrap_or_default()
            )))
        }))
    }
    let server = Server::builder("w", "1")
        .tool(
            ToolSpec::new("whoami", "w", r#"{"type":"object"}"#).unwrap(),
            whoami,
        )
        .async_tool(
            ToolSpec::new("whoami_later", "w", r#"{"type":"object"}"#).unwrap(),
            whoami_later,
        )
        .build()
        .unwrap();
    let verifier = |token: &str| {
        Ok(Principal::new(
            Some(token.to_owned()),
            None,
            vec!["mcp:tools".into()],
        ))
    };
    let mcp = McpService::new(server, HttpConfig::default());
    let (addr, _stop) = start(AuthLayer::new(verifier, resource()).layer(mcp)).await;
    let call = |id: u64, tool: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        )
    };
    for (tool, want) in [("whoami", "ann"), ("whoami_later", "later ann")] {
        let h = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", tool),
            ("authorization", "Bearer ann"),
        ];
        let r = request(addr, "POST", "/mcp", &h, &call(1, tool)).await;
        assert_eq!(r.json()["result"]["content"][0]["text"], want, "{tool}");
    }
    // A legacy session: each POST's own token is the caller of its requests.
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let r = request(
        addr,
        "POST",
        "/mcp",
        &[("authorization", "Bearer bo")],
        init,
    )
    .await;
    let sid = r.header("mcp-session-id").unwrap().to_owned();
    for (token, want) in [("bo", "bo"), ("cy", "cy")] {
        let bearer = format!("Bearer {token}");
        let h = [
            ("mcp-session-id", sid.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
            ("authorization", bearer.as_str()),
        ];
        let body = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}"#;
        let r = request(addr, "POST", "/mcp", &h, body).await;
        assert_eq!(r.json()["result"]["content"][0]["text"], want);
    }
}
