//! Authorization: the client side of the MCP authorization spec's OAuth 2.1 profile
//! (`basic/authorization`, 2025-11-25 and 2026-07-28).
//!
//! An [`OAuth`] given in [`Options::auth`](crate::Options::auth) answers a `401` (or a
//! `403 insufficient_scope`) of an HTTP server: it reads the challenge, finds the protected
//! resource metadata (RFC 9728) and the authorization server's metadata (RFC 8414, OpenID
//! Connect Discovery), identifies the client (pre-registered, a Client ID Metadata Document,
//! or dynamic registration per RFC 7591, in that order), runs the authorization code flow
//! with PKCE S256 through a [`Browser`], and retries the request with the token. A refresh
//! token is used before a new authorization; `state` and the `iss` response parameter (RFC
//! 9207) are checked; the `resource` parameter (RFC 8707) goes with every authorization and
//! token request.
//!
//! Nothing of this runs before a server asks for it: a connection without an [`OAuth`], or
//! whose server never answers `401`, does no more work than before. Tokens and secrets never
//! appear in an error or a log line.

mod credentials;
mod dpop;
mod loopback;
mod metadata;
mod net;
mod pkce;
mod store;
mod token;

pub use loopback::Loopback;
pub use store::token_file;

use crate::error::Error;
use crate::tls::Tls;
use http::Uri;
use http::header::{AUTHORIZATION, HeaderName, HeaderValue, LOCATION};
use metadata::{Challenge, Server, authorization_server, covers, default_endpoints, origin};
use net::Net;
use pkce::{Pkce, form, parse_query, random};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use token::{Registered, auth_for};

/// A future of a [`Browser`].
pub type BrowserFuture<'a> = Pin<Box<dyn Future<Output = Result<String, Error>> + Send + 'a>>;

/// Where the user agrees to an authorization: opens the authorization URL and gives back
/// the URL the authorization server redirected to.
pub trait Browser: Send + Sync {
    /// The redirect URI the client registers and sends with each authorization request.
    fn redirect_uri(&self) -> String;

    /// Sends the user to `url` (the authorization request) and returns the whole redirect
    /// URL, its query holding `code`, `state` and perhaps `iss` (or `error`).
    fn authorize<'a>(&'a self, url: &'a str) -> BrowserFuture<'a>;
}

/// A [`Browser`] without a user, for authorization servers that redirect at once (test and
/// conformance servers): it requests the authorization URL with a plain `GET` and reads the
/// redirect from the `Location` of the answer.
pub struct Headless {
    net: Net,
    redirect_uri: String,
}

impl Headless {
    /// A headless browser whose redirect URI is `http://localhost:3000/callback` (never
    /// listened on: the redirect is read, not followed), reaching `https` servers per `tls`.
    #[must_use]
    pub fn new(tls: Tls) -> Self {
        Self {
            net: Net::new(tls),
            redirect_uri: "http://localhost:3000/callback".into(),
        }
    }
}

impl Browser for Headless {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(&'a self, url: &'a str) -> BrowserFuture<'a> {
        Box::pin(async move {
            let a = self.net.get(url).await?;
            let location = a
                .headers
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .filter(|_| (300..400).contains(&a.status));
            location.map(str::to_owned).ok_or_else(|| {
                Error::Auth(format!(
                    "the authorization endpoint answered HTTP {} without a redirect",
                    a.status
                ))
            })
        })
    }
}

/// Who the client is to authorization servers, and what it asks of them.
#[derive(Clone)]
pub struct OAuthConfig {
    /// A client id registered beforehand (used with every authorization server).
    pub client_id: Option<String>,
    /// The secret of [`client_id`](Self::client_id), for a confidential client.
    pub client_secret: Option<String>,
    /// The URL of this client's metadata document (a Client ID Metadata Document), used as
    /// its client id where the authorization server supports them.
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for besides those the server's challenge names; when empty and the
    /// challenge names none, the protected resource's `scopes_supported`.
    pub scopes: Vec<String>,
    /// The name the client registers with.
    pub client_name: String,
    /// The most authorizations one request may cause (a server that keeps refusing the
    /// scopes it asked for is not asked again for ever).
    pub max_authorizations: u32,
    /// How the certificates of `https` authorization servers are checked.
    pub tls: Tls,
    /// Use the client credentials grant (a machine client, no user and no [`Browser`]):
    /// with [`client_id`](Self::client_id) and its secret, or its
    /// [`private_key_pem`](Self::private_key_pem).
    pub client_credentials: bool,
    /// A PKCS#8 PEM P-256 private key: the client credentials grant then authenticates with
    /// an ES256 JWT assertion (`private_key_jwt`) rather than a secret.
    pub private_key_pem: Option<String>,
    /// A JWT from a workload identity provider: the client then asks for tokens with the
    /// JWT bearer grant (RFC 7523 §2.1, workload identity federation) presenting it, with no
    /// user and no [`Browser`].
    pub assertion: Option<String>,
    /// A file the tokens (and the client as each authorization server registered it) are
    /// kept in between runs, readable by the user alone (see [`token_file`]); none: they
    /// live as long as the [`OAuth`].
    pub store: Option<std::path::PathBuf>,
    /// Enterprise-managed authorization (SEP-990): the user's ID token from the
    /// enterprise's identity provider is exchanged there for an identity assertion, which
    /// the JWT bearer grant presents to the authorization server, the client authenticating
    /// with [`client_id`](Self::client_id) and its secret. No [`Browser`].
    pub enterprise: Option<Enterprise>,
}

/// The enterprise identity provider of enterprise-managed authorization.
#[derive(Clone)]
pub struct Enterprise {
    /// The user's ID token, issued by the identity provider to this client.
    pub id_token: String,
    /// The identity provider's token endpoint.
    pub idp_token_endpoint: String,
    /// This client's id at the identity provider.
    pub idp_client_id: String,
    /// Its secret there, if it has one.
    pub idp_client_secret: Option<String>,
}

impl std::fmt::Debug for Enterprise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Enterprise")
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("idp_client_id", &self.idp_client_id)
            .finish_non_exhaustive()
    }
}

impl Default for OAuthConfig {
    fn default() -> Self {
        Self {
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            scopes: Vec::new(),
            client_name: "janus".into(),
            max_authorizations: 3,
            tls: Tls::default(),
            client_credentials: false,
            private_key_pem: None,
            assertion: None,
            store: None,
            enterprise: None,
        }
    }
}

impl std::fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthConfig")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "(hidden)"),
            )
            .field("client_metadata_url", &self.client_metadata_url)
            .field("scopes", &self.scopes)
            .field("client_name", &self.client_name)
            .field("max_authorizations", &self.max_authorizations)
            .field("client_credentials", &self.client_credentials)
            .field("store", &self.store)
            .field("enterprise", &self.enterprise)
            .finish_non_exhaustive()
    }
}

/// What the flow has learnt and been granted.
#[derive(Default)]
struct State {
    access: Option<String>,
    refresh: Option<String>,
    /// The authorization server the tokens came from.
    issuer: Option<String>,
    token_endpoint: Option<String>,
    resource: Option<String>,
    /// The scopes of the last authorization request (a step-up asks for them again).
    requested: Vec<String>,
    /// The client as each authorization server knows it, by issuer: never shown to another.
    clients: HashMap<String, Registered>,
}

/// The authorization of one server (or of several connections to it): cheap to clone, the
/// clones share their tokens.
#[derive(Clone)]
pub struct OAuth {
    inner: Arc<Inner>,
}

struct Inner {
    config: OAuthConfig,
    browser: Box<dyn Browser>,
    net: Net,
    /// The `Authorization` header of the current access token, read by every request.
    header: Mutex<Option<HeaderValue>>,
    /// The access token, when it is bound to the DPoP key (each request then carries a proof
    /// with its hash).
    bound: Mutex<Option<String>>,
    /// The DPoP key, made when an authorization server first supports DPoP.
    dpop: std::sync::OnceLock<dpop::Dpop>,
    /// One flow at a time.
    state: tokio::sync::Mutex<State>,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("config", &self.inner.config)
            .field("authorized", &self.is_authorized())
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl OAuth {
    /// Authorization as `config` says, the user reached through `browser`.
    #[must_use]
    pub fn new(config: OAuthConfig, browser: impl Browser + 'static) -> Self {
        let net = Net::new(config.tls.clone());
        let state = config
            .store
            .as_deref()
            .and_then(store::load)
            .unwrap_or_default();
        let header = state.access.as_deref().and_then(|a| bearer(a).ok());
        Self {
            inner: Arc::new(Inner {
                config,
                browser: Box::new(browser),
                net,
                header: Mutex::new(header),
                bound: Mutex::new(None),
                dpop: std::sync::OnceLock::new(),
                state: tokio::sync::Mutex::new(state),
            }),
        }
    }

    /// Whether an access token is held.
    #[must_use]
    pub fn is_authorized(&self) -> bool {
        lock(&self.inner.header).is_some()
    }

    /// The `Authorization` header requests carry, once a token was granted.
    pub(crate) fn header(&self) -> Option<HeaderValue> {
        lock(&self.inner.header).clone()
    }

    /// The headers of authorization a request of `method` to `uri` carries: the token, and
    /// a fresh proof when the token is DPoP-bound.
    pub(crate) fn headers(&self, method: &str, uri: &Uri) -> Vec<(HeaderName, HeaderValue)> {
        let Some(h) = self.header() else {
            return Vec::new();
        };
        let mut out = vec![(AUTHORIZATION, h)];
        let bound = lock(&self.inner.bound).clone();
        if let (Some(token), Some(d)) = (bound, self.inner.dpop.get()) {
            let nonce = lock(&d.rs_nonce).clone();
            let proof = d.proof(method, &uri.to_string(), nonce.as_deref(), Some(&token));
            if let Some(v) = proof.ok().and_then(|p| HeaderValue::from_str(&p).ok()) {
                out.push((HeaderName::from_static("dpop"), v));
            }
        }
        out
    }

    /// The DPoP key when the authorization server `meta` supports ES256 proofs.
    fn dpop(&self, meta: &Server) -> Result<Option<&dpop::Dpop>, Error> {
        let es256 = meta
            .dpop_algs
            .as_ref()
            .is_some_and(|a| a.iter().any(|x| x == "ES256"));
        if !es256 {
            return Ok(None);
        }
        if self.inner.dpop.get().is_none() {
            let _ = self.inner.dpop.set(dpop::Dpop::new()?);
        }
        Ok(self.inner.dpop.get())
    }

    fn grant(&self, st: &mut State, g: token::Granted) -> Result<(), Error> {
        let access = g.access;
        let value = if g.bound {
            let mut v = HeaderValue::from_str(&format!("DPoP {access}"))
                .map_err(|_| Error::Auth("the access token is no header value".into()))?;
            v.set_sensitive(true);
            v
        } else {
            bearer(&access)?
        };
        *lock(&self.inner.header) = Some(value);
        *lock(&self.inner.bound) = g.bound.then(|| access.clone());
        st.access = Some(access);
        if g.refresh.is_some() {
            st.refresh = g.refresh;
        }
        if let Some(path) = &self.inner.config.store {
            store::save(path, st)?;
        }
        Ok(())
    }

    fn forget(&self, st: &mut State) {
        *lock(&self.inner.header) = None;
        *lock(&self.inner.bound) = None;
        st.access = None;
        st.refresh = None;
        st.requested.clear();
    }

    /// Answers the status `status` (`401` or `403`) with the challenge `www` that the server
    /// at `server` gave a request sent with the header `sent`: `Ok(true)` when the request
    /// should be sent again (with the header [`header`](Self::header) now gives), `Ok(false)`
    /// when the status is no matter of authorization. `tries` counts the authorizations of
    /// the request.
    ///
    /// # Errors
    ///
    /// [`Error::Auth`] when the flow fails or is refused, or the request caused
    /// [`OAuthConfig::max_authorizations`] already.
    pub(crate) async fn answer(
        &self,
        server: &Uri,
        status: u16,
        www: Option<&str>,
        sent: Option<&HeaderValue>,
        nonce: Option<&str>,
        tries: &mut u32,
    ) -> Result<bool, Error> {
        // NB. RFC 9449 §9: a resource server that wants a nonce in the proof gives one with
        // its 401; the request is made again with it, once a nonce.
        if let (401, Some(n), Some(d)) = (status, nonce, self.inner.dpop.get())
            && lock(&self.inner.bound).is_some()
        {
            let mut slot = lock(&d.rs_nonce);
            if slot.as_deref() != Some(n) {
                *slot = Some(n.to_owned());
                return Ok(true);
            }
        }
        let challenge = www.map(Challenge::parse).unwrap_or_default();
        if status == 403 && challenge.error.as_deref() != Some("insufficient_scope") {
            return Ok(false);
        }
        let mut st = self.inner.state.lock().await;
        // NB. Another request's flow may have replaced the token this one was sent with.
        let now = self.header();
        if status == 401 && now.is_some() && now.as_ref() != sent {
            return Ok(true);
        }
        let max = self.inner.config.max_authorizations;
        if *tries >= max {
            return Err(Error::Auth(format!(
                "the server still refuses after {max} authorizations (HTTP {status}{})",
                challenge
                    .error
                    .as_deref()
                    .map(|e| format!(", {e}"))
                    .unwrap_or_default()
            )));
        }
        *tries += 1;
        self.flow(&mut st, server, status, &challenge).await?;
        Ok(true)
    }

    async fn flow(
        &self,
        st: &mut State,
        server: &Uri,
        status: u16,
        challenge: &Challenge,
    ) -> Result<(), Error> {
        let net = &self.inner.net;
        let found =
            metadata::protected_resource(net, server, challenge.resource_metadata.as_deref())
                .await?;
        let canonical = canonical(server);
        let (issuer, resource, resource_scopes) = match &found {
            Some(r) => {
                if let Some(res) = &r.resource
                    && !covers(res, server)
                {
                    return Err(Error::Auth(format!(
                        "the protected resource metadata is for {res}, not {canonical}: refused"
                    )));
                }
                let issuer = r.authorization_servers.first().ok_or_else(|| {
                    Error::Auth(
                        "the protected resource metadata names no authorization server".into(),
                    )
                })?;
                let resource = r.resource.clone().unwrap_or_else(|| canonical.clone());
                (issuer.clone(), resource, r.scopes_supported.clone())
            }
            // NB. 2025-03-26: no resource metadata; the server's origin is its authorization
            // server.
            None => (origin(server), canonical.clone(), None),
        };
        let meta = match authorization_server(net, &issuer).await? {
            Some(m) => m,
            None if found.is_none() => default_endpoints(&issuer),
            None => {
                return Err(Error::Auth(format!(
                    "the authorization server {issuer} publishes no metadata"
                )));
            }
        };
        if st.issuer.as_deref() != Some(issuer.as_str()) {
            // NB. A new authorization server (or the first): nothing granted by another one is
            // presented to it.
            self.forget(st);
            st.issuer = Some(issuer.clone());
        }
        if status == 401
            && let (Some(refresh), Some(client)) = (st.refresh.take(), st.clients.get(&issuer))
        {
            let params = [
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh.as_str()),
                ("resource", resource.as_str()),
            ];
            let dpop = self.dpop(&meta)?;
            match token::request(net, &meta.token_endpoint, client, &params, dpop).await {
                Ok(g) => return self.grant(st, g),
                Err(e) => tracing::debug!("refreshing the token failed, authorizing anew: {e}"),
            }
        }
        let scopes = self.scopes(st, challenge, resource_scopes, &meta);
        let c = &self.inner.config;
        if c.client_credentials || c.assertion.is_some() || c.enterprise.is_some() {
            return self.machine(st, &issuer, &meta, &resource, scopes).await;
        }
        if meta.issuer.is_some()
            && !meta
                .code_challenge_methods
                .as_ref()
                .is_some_and(|m| m.iter().any(|x| x == "S256"))
        {
            return Err(Error::Auth(format!(
                "the authorization server {issuer} does not advertise PKCE S256 (code_challenge_methods_supported): refused"
            )));
        }
        let client = self.client(st, &issuer, &meta).await?;
        let pkce = Pkce::new()?;
        let state = random(16)?;
        let redirect_uri = self.inner.browser.redirect_uri();
        let scope = scopes.join(" ");
        let mut q = vec![
            ("response_type", "code"),
            ("client_id", client.id.as_str()),
            ("redirect_uri", redirect_uri.as_str()),
            ("code_challenge", pkce.challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", state.as_str()),
            ("resource", resource.as_str()),
        ];
        if !scope.is_empty() {
            q.push(("scope", &scope));
        }
        let sep = if meta.authorization_endpoint.contains('?') {
            '&'
        } else {
            '?'
        };
        let url = format!("{}{sep}{}", meta.authorization_endpoint, form(&q));
        let back = self.inner.browser.authorize(&url).await?;
        let code = check_redirect(&back, &state, &meta)?;
        let params = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", redirect_uri.as_str()),
            ("code_verifier", pkce.verifier.as_str()),
            ("resource", resource.as_str()),
        ];
        let dpop = self.dpop(&meta)?;
        let g = token::request(net, &meta.token_endpoint, &client, &params, dpop).await?;
        st.requested = scopes;
        st.token_endpoint = Some(meta.token_endpoint.clone());
        st.resource = Some(resource);
        self.grant(st, g)
    }

    /// A grant without a user: the JWT bearer grant presenting the configured assertion, or
    /// the client credentials grant, the client authenticated by its secret or a JWT
    /// assertion of its own.
    async fn machine(
        &self,
        st: &mut State,
        issuer: &str,
        meta: &Server,
        resource: &str,
        scopes: Vec<String>,
    ) -> Result<(), Error> {
        let config = &self.inner.config;
        let id = config
            .client_id
            .clone()
            .ok_or_else(|| Error::Auth("the client credentials grant needs a client id".into()))?;
        let scope = scopes.join(" ");
        let jag = match &config.enterprise {
            Some(e) => Some(credentials::id_jag(&self.inner.net, e, issuer, resource).await?),
            None => None,
        };
        let mut params = match jag.as_ref().or(config.assertion.as_ref()) {
            Some(jwt) => vec![
                ("grant_type", credentials::JWT_BEARER_GRANT),
                ("assertion", jwt.as_str()),
            ],
            None => vec![("grant_type", "client_credentials")],
        };
        params.push(("resource", resource));
        if !scope.is_empty() {
            params.push(("scope", &scope));
        }
        let assertion;
        let client = if let Some(pem) = config
            .private_key_pem
            .as_ref()
            .filter(|_| config.assertion.is_none() && jag.is_none())
        {
            assertion = credentials::assertion(pem, &id, issuer)?;
            params.push(("client_assertion_type", credentials::JWT_BEARER));
            params.push(("client_assertion", &assertion));
            Registered {
                id,
                secret: None,
                auth: token::ClientAuth::None,
            }
        } else {
            Registered {
                id,
                secret: config.client_secret.clone(),
                auth: auth_for(meta, config.client_secret.is_some()),
            }
        };
        let dpop = self.dpop(meta)?;
        let g = token::request(
            &self.inner.net,
            &meta.token_endpoint,
            &client,
            &params,
            dpop,
        )
        .await?;
        st.requested = scopes;
        st.token_endpoint = Some(meta.token_endpoint.clone());
        st.resource = Some(resource.to_owned());
        self.grant(st, g)
    }

    /// The scopes of an authorization request: the challenge's, else the configured ones,
    /// else the resource's `scopes_supported`, else none; with those asked before (a
    /// step-up keeps what was granted), and `offline_access` when the authorization server
    /// lists it.
    fn scopes(
        &self,
        st: &State,
        challenge: &Challenge,
        resource_scopes: Option<Vec<String>>,
        meta: &Server,
    ) -> Vec<String> {
        let configured = &self.inner.config.scopes;
        let mut scopes: Vec<String> = match &challenge.scope {
            Some(s) => s.split_whitespace().map(str::to_owned).collect(),
            None if !configured.is_empty() => configured.clone(),
            None => resource_scopes.unwrap_or_default(),
        };
        for s in st.requested.iter().chain(configured) {
            if !scopes.contains(s) {
                scopes.push(s.clone());
            }
        }
        let refreshable = meta
            .grant_types
            .as_ref()
            .is_none_or(|g| g.iter().any(|x| x == "refresh_token"));
        let offline = "offline_access";
        if !scopes.is_empty()
            && refreshable
            && meta.lists_scope(offline)
            && !scopes.iter().any(|s| s == offline)
        {
            scopes.push(offline.into());
        }
        scopes
    }

    /// The client as `issuer` knows it: pre-registered, else its metadata document's URL
    /// where the server takes one, else registered now.
    async fn client(
        &self,
        st: &mut State,
        issuer: &str,
        meta: &Server,
    ) -> Result<Registered, Error> {
        if let Some(c) = st.clients.get(issuer) {
            return Ok(c.clone());
        }
        let config = &self.inner.config;
        let c = if let Some(id) = &config.client_id {
            Registered {
                id: id.clone(),
                secret: config.client_secret.clone(),
                auth: auth_for(meta, config.client_secret.is_some()),
            }
        } else if let (true, Some(url)) = (meta.metadata_documents, &config.client_metadata_url) {
            Registered {
                id: url.clone(),
                secret: None,
                auth: token::ClientAuth::None,
            }
        } else if let Some(endpoint) = &meta.registration_endpoint {
            let redirect = self.inner.browser.redirect_uri();
            token::register(
                &self.inner.net,
                meta,
                endpoint,
                &config.client_name,
                &redirect,
            )
            .await?
        } else {
            return Err(Error::Auth(format!(
                "the authorization server {issuer} takes no registration: configure a client id"
            )));
        };
        st.clients.insert(issuer.to_owned(), c.clone());
        Ok(c)
    }
}

/// The `Authorization` header of `access`, marked sensitive.
fn bearer(access: &str) -> Result<HeaderValue, Error> {
    let mut v = HeaderValue::from_str(&format!("Bearer {access}"))
        .map_err(|_| Error::Auth("the access token is no header value".into()))?;
    v.set_sensitive(true);
    Ok(v)
}

/// The server's URL as a resource identifier: without a fragment.
fn canonical(server: &Uri) -> String {
    let s = server.to_string();
    s.split('#').next().unwrap_or(&s).to_owned()
}

/// The code of the redirect `back`, once its `state` is the request's and its `iss` (RFC
/// 9207) the issuer's: compared as strings, required when the server advertises it.
fn check_redirect(back: &str, state: &str, meta: &Server) -> Result<String, Error> {
    let query = back
        .split_once('?')
        .map_or("", |(_, q)| q.split('#').next().unwrap_or(q));
    let params = parse_query(query);
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    if let Some(e) = get("error") {
        let why = get("error_description")
            .map(|d| format!(": {d}"))
            .unwrap_or_default();
        return Err(Error::Auth(format!(
            "the authorization server refused: {e}{why}"
        )));
    }
    if get("state") != Some(state) {
        return Err(Error::Auth(
            "the redirect's state is not the request's: refused".into(),
        ));
    }
    match (get("iss"), meta.issuer.as_deref()) {
        (Some(iss), Some(issuer)) if iss != issuer => {
            return Err(Error::Auth(format!(
                "the redirect's iss {iss:?} is not the authorization server's issuer {issuer:?}: refused"
            )));
        }
        (None, Some(issuer)) if meta.iss_parameter => {
            return Err(Error::Auth(format!(
                "the authorization server {issuer} advertises the iss parameter, and the redirect has none: refused"
            )));
        }
        _ => {}
    }
    get("code")
        .map(str::to_owned)
        .ok_or_else(|| Error::Auth("the redirect carries no code".into()))
}
