//! Client identity (pre-registered, a Client ID Metadata Document, dynamic registration per
//! RFC 7591) and the token endpoint (RFC 6749 §3.2, with its client authentication).

use super::dpop::Dpop;
use super::metadata::Server;
use super::net::Net;
use super::pkce::{encode, form};
use crate::error::Error;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::header::{AUTHORIZATION, HeaderName, HeaderValue};
use serde_json::{Value, json};

/// How the client proves itself at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClientAuth {
    /// `client_secret_basic`: the id and secret in an `Authorization: Basic` header.
    Basic,
    /// `client_secret_post`: the id and secret in the form.
    Post,
    /// `none`: a public client, its id in the form.
    None,
}

impl ClientAuth {
    /// Its name in metadata.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::Basic => "client_secret_basic",
            Self::Post => "client_secret_post",
            Self::None => "none",
        }
    }

    pub(crate) fn from_name(s: &str) -> Option<Self> {
        match s {
            "client_secret_basic" => Some(Self::Basic),
            "client_secret_post" => Some(Self::Post),
            "none" => Some(Self::None),
            _ => None,
        }
    }
}

/// The client as one authorization server knows it.
#[derive(Clone)]
pub(crate) struct Registered {
    pub(crate) id: String,
    pub(crate) secret: Option<String>,
    pub(crate) auth: ClientAuth,
}

impl std::fmt::Debug for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registered")
            .field("id", &self.id)
            .field("secret", &self.secret.as_ref().map(|_| "(hidden)"))
            .field("auth", &self.auth)
            .finish()
    }
}

/// The method for a client with a secret or without, per the server's metadata: with a
/// secret `client_secret_basic` when listed, else `client_secret_post`; without, `none`.
pub(crate) fn auth_for(server: &Server, secret: bool) -> ClientAuth {
    if !secret {
        ClientAuth::None
    } else if server.takes_auth("client_secret_basic") {
        ClientAuth::Basic
    } else if server.takes_auth("client_secret_post") {
        ClientAuth::Post
    } else {
        ClientAuth::None
    }
}

/// Registers the client with `server` (RFC 7591).
pub(crate) async fn register(
    net: &Net,
    server: &Server,
    endpoint: &str,
    name: &str,
    redirect_uri: &str,
) -> Result<Registered, Error> {
    // NB. A public client where the server allows one: no secret to keep.
    let asked = if server.takes_auth("none") || server.token_auth_methods.is_none() {
        "none"
    } else if server.takes_auth("client_secret_basic") {
        "client_secret_basic"
    } else {
        "client_secret_post"
    };
    let native = redirect_uri.starts_with("http://127.0.0.1")
        || redirect_uri.starts_with("http://localhost")
        || redirect_uri.starts_with("http://[::1]");
    let body = json!({
        "client_name": name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": asked,
        "application_type": if native { "native" } else { "web" },
    });
    let a = net
        .post(
            endpoint,
            Vec::new(),
            "application/json",
            body.to_string().into_bytes(),
        )
        .await?;
    let m = a
        .json()
        .filter(|_| (200..300).contains(&a.status))
        .ok_or_else(|| {
            Error::Auth(format!(
                "the registration endpoint {endpoint} refused the client (HTTP {})",
                a.status
            ))
        })?;
    let id = m
        .get("client_id")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::Auth(format!("the registration at {endpoint} gave no client_id")))?
        .to_owned();
    let secret = m
        .get("client_secret")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let auth = m
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str)
        .and_then(ClientAuth::from_name)
        .unwrap_or_else(|| auth_for(server, secret.is_some()));
    Ok(Registered { id, secret, auth })
}

/// What the token endpoint granted.
#[derive(Clone)]
pub(crate) struct Granted {
    pub(crate) access: String,
    pub(crate) refresh: Option<String>,
    /// Whether the token is bound to the client's DPoP key (`token_type` `DPoP`).
    pub(crate) bound: bool,
}

/// A token request to `endpoint` with `params`, the client authenticating as `client`.
///
/// # Errors
///
/// [`Error::Auth`] with the server's `error` (and description) when it refuses; never with
/// a token or secret.
pub(crate) async fn request(
    net: &Net,
    endpoint: &str,
    client: &Registered,
    params: &[(&str, &str)],
    dpop: Option<&Dpop>,
) -> Result<Granted, Error> {
    let mut pairs: Vec<(&str, &str)> = params.to_vec();
    let mut headers = Vec::new();
    match (client.auth, client.secret.as_deref()) {
        (ClientAuth::Basic, Some(secret)) => {
            // NB. RFC 6749 §2.3.1: each part form-encoded before Base64.
            let pair = format!("{}:{}", encode(&client.id), encode(secret));
            let mut v = HeaderValue::from_str(&format!("Basic {}", STANDARD.encode(pair)))
                .map_err(|_| Error::Auth("client credentials that are no header value".into()))?;
            v.set_sensitive(true);
            headers.push((AUTHORIZATION, v));
        }
        (ClientAuth::Post, Some(secret)) => {
            pairs.push(("client_id", &client.id));
            pairs.push(("client_secret", secret));
        }
        _ => pairs.push(("client_id", &client.id)),
    }
    let body = form(&pairs).into_bytes();
    let mut retried = false;
    let (a, m) = loop {
        let mut h = headers.clone();
        if let Some(d) = dpop {
            let nonce = d.as_nonce.lock().ok().and_then(|n| n.clone());
            let proof = d.proof("POST", endpoint, nonce.as_deref(), None)?;
            let v = HeaderValue::from_str(&proof)
                .map_err(|_| Error::Auth("a DPoP proof that is no header value".into()))?;
            h.push((HeaderName::from_static("dpop"), v));
        }
        let a = net
            .post(
                endpoint,
                h,
                "application/x-www-form-urlencoded",
                body.clone(),
            )
            .await?;
        let m = a.json().unwrap_or_default();
        // NB. RFC 9449 §8: a server that wants a nonce says so once; the request is made again
        // with it.
        let fresh = a.headers.get("dpop-nonce").and_then(|v| v.to_str().ok());
        if let (Some(d), Some(n), false) = (dpop, fresh, retried)
            && a.status == 400
            && m.get("error").and_then(Value::as_str) == Some("use_dpop_nonce")
        {
            if let Ok(mut slot) = d.as_nonce.lock() {
                *slot = Some(n.to_owned());
            }
            retried = true;
            continue;
        }
        break (a, m);
    };
    if !(200..300).contains(&a.status) {
        let error = m
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("no error code");
        let why = m
            .get("error_description")
            .and_then(Value::as_str)
            .map(|d| format!(": {d}"))
            .unwrap_or_default();
        return Err(Error::Auth(format!(
            "the token endpoint {endpoint} refused (HTTP {}, {error}{why})",
            a.status
        )));
    }
    let access = m
        .get("access_token")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            Error::Auth(format!(
                "the token endpoint {endpoint} gave no access_token"
            ))
        })?
        .to_owned();
    let kind = m
        .get("token_type")
        .and_then(Value::as_str)
        .unwrap_or("Bearer");
    let bound = dpop.is_some() && kind.eq_ignore_ascii_case("dpop");
    if !kind.eq_ignore_ascii_case("bearer") && !bound {
        return Err(Error::Auth(format!(
            "the token endpoint {endpoint} gave a token of type {kind:?}, not Bearer"
        )));
    }
    Ok(Granted {
        access,
        bound,
        refresh: m
            .get("refresh_token")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}
