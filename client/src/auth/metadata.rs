//! Discovery: the `WWW-Authenticate` challenge, protected resource metadata (RFC 9728) and
//! authorization server metadata (RFC 8414, OpenID Connect Discovery), in the order
//! `basic/authorization` gives.

use super::net::Net;
use crate::error::Error;
use http::Uri;
use serde_json::{Map, Value};

/// What a `Bearer` challenge says (RFC 6750 §3, RFC 9728 §5.1).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// Where the protected resource metadata is.
    pub(crate) resource_metadata: Option<String>,
    /// The scopes the request needs.
    pub(crate) scope: Option<String>,
    /// The error code (`invalid_token`, `insufficient_scope`, ...).
    pub(crate) error: Option<String>,
}

impl Challenge {
    /// Reads the `Bearer` challenge of a `WWW-Authenticate` value (the first of each
    /// parameter; the parameters of other schemes are passed over).
    pub(crate) fn parse(header: &str) -> Self {
        let mut c = Self::default();
        let mut bearer = false;
        let mut rest = header.trim_start();
        while !rest.is_empty() {
            let end = rest
                .find(|ch: char| ch == '=' || ch == ',' || ch.is_whitespace())
                .unwrap_or(rest.len());
            let token = &rest[..end];
            rest = rest[end..].trim_start();
            if let Some(after) = rest.strip_prefix('=') {
                let (value, left) = value(after.trim_start());
                rest = left;
                if bearer {
                    let slot = match token.to_ascii_lowercase().as_str() {
                        "resource_metadata" => &mut c.resource_metadata,
                        "scope" => &mut c.scope,
                        "error" => &mut c.error,
                        _ => &mut None,
                    };
                    if slot.is_none() {
                        *slot = Some(value);
                    }
                }
            } else if !token.is_empty() {
                // A token without `=` is the scheme of the next challenge.
                bearer = token.eq_ignore_ascii_case("bearer");
            }
            rest = rest.trim_start().trim_start_matches(',').trim_start();
        }
        c
    }
}

/// A parameter's value (a token or a quoted string) and what follows it.
fn value(s: &str) -> (String, &str) {
    if let Some(quoted) = s.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, ch)) = chars.next() {
            match ch {
                '\\' => {
                    if let Some((_, next)) = chars.next() {
                        out.push(next);
                    }
                }
                '"' => return (out, &quoted[i + 1..]),
                _ => out.push(ch),
            }
        }
        return (out, "");
    }
    let end = s.find([',', ' ', '\t']).unwrap_or(s.len());
    (s[..end].to_owned(), &s[end..])
}

/// Protected resource metadata: what the client uses of it.
#[derive(Debug, Clone)]
pub(crate) struct Resource {
    /// The resource identifier, exactly as published.
    pub(crate) resource: Option<String>,
    /// The authorization servers' issuer identifiers.
    pub(crate) authorization_servers: Vec<String>,
    /// The scopes the resource knows.
    pub(crate) scopes_supported: Option<Vec<String>>,
}

/// The scheme and authority of `uri` (`https://host:port`).
pub(crate) fn origin(uri: &Uri) -> String {
    format!(
        "{}://{}",
        uri.scheme_str().unwrap_or("https"),
        uri.authority().map_or("", http::uri::Authority::as_str)
    )
}

/// The path of `uri` without its trailing `/` (empty for the root).
fn path_of(uri: &Uri) -> &str {
    uri.path().trim_end_matches('/')
}

/// The protected resource metadata of the server at `server`: from `hint` (the challenge's
/// `resource_metadata`), else the path-based well-known URL, else the root one. `None` when
/// there is none (a 2025-03-26 server).
pub(crate) async fn protected_resource(
    net: &Net,
    server: &Uri,
    hint: Option<&str>,
) -> Result<Option<Resource>, Error> {
    let base = origin(server);
    let mut urls: Vec<String> = hint.map(str::to_owned).into_iter().collect();
    let path = path_of(server);
    if !path.is_empty() {
        urls.push(format!("{base}/.well-known/oauth-protected-resource{path}"));
    }
    urls.push(format!("{base}/.well-known/oauth-protected-resource"));
    for url in urls {
        let Ok(a) = net.get(&url).await else { continue };
        if a.status != 200 {
            continue;
        }
        let Some(m) = a.json() else { continue };
        let servers = strings(&m, "authorization_servers").unwrap_or_default();
        return Ok(Some(Resource {
            resource: m.get("resource").and_then(Value::as_str).map(str::to_owned),
            authorization_servers: servers,
            scopes_supported: strings(&m, "scopes_supported"),
        }));
    }
    Ok(None)
}

/// Whether the resource identifier `resource` covers the server at `server`: the same origin
/// (scheme and host compared without case), and a path that is the server's or a parent of
/// it, by whole segments.
pub(crate) fn covers(resource: &str, server: &Uri) -> bool {
    let Ok(r) = resource.parse::<Uri>() else {
        return false;
    };
    let same_origin = r.scheme_str().map(str::to_ascii_lowercase)
        == server.scheme_str().map(str::to_ascii_lowercase)
        && r.authority().map(|a| a.as_str().to_ascii_lowercase())
            == server.authority().map(|a| a.as_str().to_ascii_lowercase());
    let (rp, sp) = (path_of(&r), path_of(server));
    same_origin && (rp.is_empty() || sp == rp || sp.starts_with(&format!("{rp}/")))
}

/// Authorization server metadata: what the client uses of it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Server {
    /// The issuer identifier (checked against the one the metadata was looked up for); `None`
    /// for the 2025-03-26 default endpoints, which come with no metadata.
    pub(crate) issuer: Option<String>,
    pub(crate) authorization_endpoint: String,
    pub(crate) token_endpoint: String,
    pub(crate) registration_endpoint: Option<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) code_challenge_methods: Option<Vec<String>>,
    pub(crate) token_auth_methods: Option<Vec<String>>,
    pub(crate) grant_types: Option<Vec<String>>,
    /// `client_id_metadata_document_supported`.
    pub(crate) metadata_documents: bool,
    /// `authorization_response_iss_parameter_supported` (RFC 9207).
    pub(crate) iss_parameter: bool,
    /// `dpop_signing_alg_values_supported` (RFC 9449).
    pub(crate) dpop_algs: Option<Vec<String>>,
}

impl Server {
    /// Whether the server says it supports `method` for the token endpoint (RFC 8414: absent
    /// means `client_secret_basic` alone).
    pub(crate) fn takes_auth(&self, method: &str) -> bool {
        self.token_auth_methods
            .as_ref()
            .map_or(method == "client_secret_basic", |m| {
                m.iter().any(|x| x == method)
            })
    }

    /// Whether the server lists scope `s` in `scopes_supported`.
    pub(crate) fn lists_scope(&self, s: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|l| l.iter().any(|x| x == s))
    }
}

/// The well-known metadata URLs of `issuer`, in the spec's order: for an issuer with a path,
/// OAuth with the path inserted, OpenID with the path inserted, OpenID with the path
/// appended; for one without, OAuth then OpenID.
pub(crate) fn metadata_urls(issuer: &Uri) -> Vec<String> {
    let base = origin(issuer);
    let path = path_of(issuer);
    if path.is_empty() {
        vec![
            format!("{base}/.well-known/oauth-authorization-server"),
            format!("{base}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{base}/.well-known/oauth-authorization-server{path}"),
            format!("{base}/.well-known/openid-configuration{path}"),
            format!("{base}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// The metadata of the authorization server `issuer`, `None` when no well-known URL has
/// any.
///
/// # Errors
///
/// [`Error::Auth`] when a document names another issuer than `issuer` (RFC 8414 §3.3: it
/// must not be used), or lacks the endpoints.
pub(crate) async fn authorization_server(net: &Net, issuer: &str) -> Result<Option<Server>, Error> {
    let uri: Uri = issuer
        .parse()
        .map_err(|_| Error::Auth(format!("the authorization server {issuer} is no URL")))?;
    for url in metadata_urls(&uri) {
        let Ok(a) = net.get(&url).await else { continue };
        if a.status != 200 {
            continue;
        }
        let Some(m) = a.json() else { continue };
        let named = m.get("issuer").and_then(Value::as_str).unwrap_or_default();
        // NB. A simple string comparison: metadata for another issuer is refused, whatever
        // else it says.
        if named != issuer {
            return Err(Error::Auth(format!(
                "the metadata at {url} names the issuer {named:?}, not {issuer:?}: refused"
            )));
        }
        let endpoint = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
        let (Some(authorization_endpoint), Some(token_endpoint)) = (
            endpoint("authorization_endpoint"),
            endpoint("token_endpoint"),
        ) else {
            return Err(Error::Auth(format!(
                "the metadata at {url} lacks the authorization or token endpoint"
            )));
        };
        return Ok(Some(Server {
            issuer: Some(issuer.to_owned()),
            authorization_endpoint,
            token_endpoint,
            registration_endpoint: endpoint("registration_endpoint"),
            scopes_supported: strings(&m, "scopes_supported"),
            code_challenge_methods: strings(&m, "code_challenge_methods_supported"),
            token_auth_methods: strings(&m, "token_endpoint_auth_methods_supported"),
            grant_types: strings(&m, "grant_types_supported"),
            dpop_algs: strings(&m, "dpop_signing_alg_values_supported"),
            metadata_documents: m
                .get("client_id_metadata_document_supported")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            iss_parameter: m
                .get("authorization_response_iss_parameter_supported")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }));
    }
    Ok(None)
}

/// The 2025-03-26 default endpoints of a server without metadata: `/authorize`, `/token`
/// and `/register` at the origin of `issuer`.
pub(crate) fn default_endpoints(base: &str) -> Server {
    Server {
        authorization_endpoint: format!("{base}/authorize"),
        token_endpoint: format!("{base}/token"),
        registration_endpoint: Some(format!("{base}/register")),
        ..Server::default()
    }
}

/// A list of strings of `m` (a JSON array, or a space-separated string as `scope` is).
pub(crate) fn strings(m: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
    match m.get(key)? {
        Value::Array(a) => Some(
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        Value::String(s) => Some(s.split_whitespace().map(str::to_owned).collect()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_gives_its_bearer_parameters_quoted_or_not() {
        let c = Challenge::parse(
            r#"Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp", error_description="say \"no\"""#,
        );
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scope.as_deref(), Some("a b"));
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://x/.well-known/oauth-protected-resource/mcp")
        );
        let c = Challenge::parse(r#"Basic realm="x", Bearer error=invalid_token, scope="s""#);
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        assert_eq!(c.scope.as_deref(), Some("s"));
        assert_eq!(Challenge::parse(r#"Basic realm="x""#), Challenge::default());
    }

    #[test]
    fn the_metadata_urls_follow_the_spec_order() {
        let u: Uri = "https://as.example/tenant1".parse().unwrap();
        assert_eq!(
            metadata_urls(&u),
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant1",
                "https://as.example/.well-known/openid-configuration/tenant1",
                "https://as.example/tenant1/.well-known/openid-configuration",
            ]
        );
        let u: Uri = "https://as.example".parse().unwrap();
        assert_eq!(
            metadata_urls(&u),
            [
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn a_resource_covers_its_own_url_and_those_below_it_only() {
        let s: Uri = "http://localhost:3000/mcp".parse().unwrap();
        assert!(covers("http://localhost:3000/mcp", &s));
        assert!(covers("http://LOCALHOST:3000", &s));
        assert!(covers("http://localhost:3000/", &s));
        assert!(!covers("https://evil.example.com/mcp", &s));
        assert!(!covers("http://localhost:3000/mc", &s));
        assert!(!covers("http://localhost:3001/mcp", &s));
        assert!(!covers("http://localhost:3000/mcp/deeper", &s));
    }
}
