//! Authorization against a small protected MCP server and authorization server made here
//! (one listener, raw HTTP/1.1, `Connection: close`): what the client sends each endpoint is
//! recorded, so the tests check the flow on the wire, not only that a call succeeded.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use janus_client::{
    Client, Enterprise, Error, Headless, Mode, OAuth, OAuthConfig, Options, Tls, Transport,
};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// How the fake servers behave.
#[derive(Clone)]
struct Knobs {
    /// `code_challenge_methods_supported` in the metadata.
    pkce_methods: Vec<&'static str>,
    /// The `state` of the redirect, when not the request's.
    wrong_state: bool,
    /// The `iss` of the redirect, when not the issuer.
    wrong_iss: bool,
    /// The issuer the metadata names, when not its own.
    metadata_issuer: Option<String>,
    /// Refresh tokens issued, and the resource refuses each access token after its first use.
    refresh: bool,
    /// The resource answers every request with a token `403 insufficient_scope`.
    always_403: bool,
    /// The scope of the challenge.
    challenge_scope: Option<&'static str>,
}

impl Default for Knobs {
    fn default() -> Self {
        Self {
            pkce_methods: vec!["S256"],
            wrong_state: false,
            wrong_iss: false,
            metadata_issuer: None,
            refresh: false,
            always_403: false,
            challenge_scope: Some("mcp:read"),
        }
    }
}

/// What the servers saw.
#[derive(Default, Debug)]
struct Seen {
    /// The query parameters of each authorization request.
    authorizations: Vec<Vec<(String, String)>>,
    /// The form of each token request.
    tokens: Vec<Vec<(String, String)>>,
    registrations: usize,
    /// The form of each token exchange at the identity provider.
    exchanges: Vec<Vec<(String, String)>>,
    /// The access tokens the resource accepted, in order.
    accepted: Vec<String>,
    /// The access tokens the resource was sent, used up or not.
    used: Vec<String>,
    issued: usize,
}

struct Fake {
    base: String,
    knobs: Knobs,
    seen: Mutex<Seen>,
}

fn query(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (unescape(k), unescape(v))
        })
        .collect()
}

fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(if b[i] == b'+' { b' ' } else { b[i] });
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn get<'a>(params: &'a [(String, String)], k: &str) -> Option<&'a str> {
    params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
}

async fn read_request(s: &mut (impl AsyncRead + Unpin)) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let len = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse::<usize>().unwrap())
        })
        .unwrap_or(0);
    let mut body = buf[end + 4..].to_vec();
    while body.len() < len {
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((head, body))
}

/// An answer: status, extra headers, JSON body.
type Reply = (u16, Vec<(&'static str, String)>, String);

fn json_reply(status: u16, v: &Value) -> Reply {
    (status, Vec::new(), v.to_string())
}

impl Fake {
    fn challenge(&self, extra: &str) -> (&'static str, String) {
        let scope = self
            .knobs
            .challenge_scope
            .map(|s| format!(r#", scope="{s}""#))
            .unwrap_or_default();
        (
            "www-authenticate",
            format!(
                r#"Bearer resource_metadata="{}/.well-known/oauth-protected-resource/mcp"{scope}{extra}"#,
                self.base
            ),
        )
    }

    fn metadata(&self) -> Value {
        let b = &self.base;
        json!({
            "issuer": self.knobs.metadata_issuer.clone().unwrap_or_else(|| b.clone()),
            "authorization_endpoint": format!("{b}/authorize"),
            "token_endpoint": format!("{b}/token"),
            "registration_endpoint": format!("{b}/register"),
            "code_challenge_methods_supported": self.knobs.pkce_methods,
            "authorization_response_iss_parameter_supported": true,
            "token_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": ["mcp:read", "offline_access"],
        })
    }

    fn handle(&self, head: &str, body: &[u8]) -> Reply {
        let line = head.lines().next().unwrap_or_default();
        let target = line.split(' ').nth(1).unwrap_or("/");
        let (path, q) = target.split_once('?').unwrap_or((target, ""));
        let auth = head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case("authorization")
                .then(|| v.trim().to_owned())
        });
        let mut seen = self.seen.lock().unwrap();
        match path {
            "/.well-known/oauth-protected-resource/mcp" => json_reply(
                200,
                &json!({"resource": format!("{}/mcp", self.base), "authorization_servers": [self.base]}),
            ),
            "/.well-known/oauth-authorization-server" => json_reply(200, &self.metadata()),
            "/register" => {
                seen.registrations += 1;
                json_reply(201, &json!({"client_id": "registered-client"}))
            }
            "/authorize" => {
                let params = query(q);
                let redirect = get(&params, "redirect_uri").unwrap().to_owned();
                let state = if self.knobs.wrong_state {
                    "not-the-state".to_owned()
                } else {
                    get(&params, "state").unwrap_or_default().to_owned()
                };
                let iss = if self.knobs.wrong_iss {
                    "https://evil.example.com".to_owned()
                } else {
                    self.base.clone()
                };
                seen.authorizations.push(params);
                let location = format!(
                    "{redirect}?code=the-code&state={state}&iss={}",
                    iss.replace(':', "%3A").replace('/', "%2F")
                );
                (302, vec![("location", location)], String::new())
            }
            "/idp-token" => {
                seen.exchanges.push(query(&String::from_utf8_lossy(body)));
                json_reply(
                    200,
                    &json!({"access_token": "the-id-jag", "token_type": "N_A"}),
                )
            }
            "/token" => {
                let form = query(&String::from_utf8_lossy(body));
                seen.tokens.push(form);
                seen.issued += 1;
                let mut t = json!({"access_token": format!("token-{}", seen.issued), "token_type": "Bearer", "expires_in": 3600});
                if self.knobs.refresh {
                    t["refresh_token"] = json!(format!("refresh-{}", seen.issued));
                }
                json_reply(200, &t)
            }
            "/mcp" => {
                let msg: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
                let Some(token) = auth.as_deref().and_then(|a| a.strip_prefix("Bearer ")) else {
                    let c = self.challenge("");
                    return (401, vec![c], r#"{"error":"invalid_token"}"#.into());
                };
                let token = token.to_owned();
                let reused = seen.used.contains(&token);
                seen.used.push(token.clone());
                if self.knobs.refresh && reused {
                    let c = self.challenge(r#", error="invalid_token""#);
                    return (401, vec![c], String::new());
                }
                if self.knobs.always_403 {
                    let c = self.challenge(r#", error="insufficient_scope""#);
                    return (403, vec![c], String::new());
                }
                seen.accepted.push(token);
                let Some(id) = msg.get("id").cloned() else {
                    return (202, Vec::new(), String::new());
                };
                let result = match msg["method"].as_str() {
                    Some("initialize") => json!({
                        "protocolVersion": "2025-11-25",
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "fake", "version": "0"},
                    }),
                    Some("tools/list") => {
                        json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
                    }
                    _ => json!({"content": [{"type": "text", "text": "ok"}]}),
                };
                json_reply(200, &json!({"jsonrpc": "2.0", "id": id, "result": result}))
            }
            _ => (404, Vec::new(), String::new()),
        }
    }
}

/// Starts the fake servers; their base URL is `Fake::base`.
async fn start(knobs: Knobs) -> Arc<Fake> {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let fake = Arc::new(Fake {
        base,
        knobs,
        seen: Mutex::new(Seen::default()),
    });
    let server = Arc::clone(&fake);
    tokio::spawn(async move {
        loop {
            let Ok((mut s, _)) = listener.accept().await else {
                return;
            };
            let server = Arc::clone(&server);
            tokio::spawn(async move {
                let Some((head, body)) = read_request(&mut s).await else {
                    return;
                };
                let (status, headers, body) = server.handle(&head, &body);
                let mut out = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                    body.len()
                );
                for (n, v) in headers {
                    out.push_str(&format!("{n}: {v}\r\n"));
                }
                out.push_str("\r\n");
                out.push_str(&body);
                let _ = s.write_all(out.as_bytes()).await;
            });
        }
    });
    fake
}

fn oauth() -> OAuth {
    OAuth::new(OAuthConfig::default(), Headless::new(Tls::default()))
}

async fn connect(fake: &Fake, auth: Option<OAuth>) -> Result<Client, Error> {
    let opts = Options {
        mode: Mode::Legacy,
        auth,
        ..Options::default()
    };
    let transport = Transport::Http {
        url: format!("{}/mcp", fake.base),
        headers: Vec::new(),
    };
    Client::connect(transport, opts).await
}

#[tokio::test]
async fn a_401_runs_the_flow_with_pkce_s256_and_the_resource_on_both_requests() {
    let fake = start(Knobs::default()).await;
    let auth = oauth();
    let client = connect(&fake, Some(auth.clone())).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools[0].name, "t");
    assert!(auth.is_authorized());
    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen.registrations, 1);
    let [a] = seen.authorizations.as_slice() else {
        panic!("one authorization request, not {:?}", seen.authorizations)
    };
    let [t] = seen.tokens.as_slice() else {
        panic!("one token request, not {:?}", seen.tokens)
    };
    let resource = format!("{}/mcp", fake.base);
    assert_eq!(get(a, "resource"), Some(resource.as_str()));
    assert_eq!(get(t, "resource"), Some(resource.as_str()));
    assert_eq!(get(a, "code_challenge_method"), Some("S256"));
    assert_eq!(get(a, "client_id"), Some("registered-client"));
    // The challenge's scope, and offline_access since the server lists it.
    assert_eq!(get(a, "scope"), Some("mcp:read offline_access"));
    let verifier = get(t, "code_verifier").unwrap();
    let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    assert_eq!(
        get(a, "code_challenge"),
        Some(URL_SAFE_NO_PAD.encode(digest).as_str())
    );
    assert_eq!(get(t, "grant_type"), Some("authorization_code"));
    assert_eq!(get(t, "code"), Some("the-code"));
    assert_eq!(get(t, "redirect_uri"), get(a, "redirect_uri"));
    // Every MCP request after the flow carried the token.
    assert!(
        seen.accepted.iter().all(|t| t == "token-1"),
        "{:?}",
        seen.accepted
    );
    assert!(!seen.accepted.is_empty());
}

#[tokio::test]
async fn without_authorization_a_401_is_the_request_s_status() {
    let fake = start(Knobs::default()).await;
    match connect(&fake, None).await {
        Err(Error::Status(401, _)) => {}
        other => panic!("expected HTTP 401, got {:?}", other.err()),
    }
    assert!(fake.seen.lock().unwrap().authorizations.is_empty());
}

/// Connects with authorization and expects an authorization error, with no token request.
async fn refused(knobs: Knobs, why: &str) -> Arc<Fake> {
    let fake = start(knobs).await;
    match connect(&fake, Some(oauth())).await {
        Err(Error::Auth(m)) => assert!(m.contains(why), "{m}"),
        other => panic!("expected an authorization error, got {:?}", other.err()),
    }
    assert!(fake.seen.lock().unwrap().tokens.is_empty());
    fake
}

#[tokio::test]
async fn a_redirect_with_another_state_is_refused_before_the_token_request() {
    let fake = refused(
        Knobs {
            wrong_state: true,
            ..Knobs::default()
        },
        "state",
    )
    .await;
    assert_eq!(fake.seen.lock().unwrap().authorizations.len(), 1);
}

#[tokio::test]
async fn a_redirect_with_another_iss_is_refused_before_the_token_request() {
    let fake = refused(
        Knobs {
            wrong_iss: true,
            ..Knobs::default()
        },
        "iss",
    )
    .await;
    assert_eq!(fake.seen.lock().unwrap().authorizations.len(), 1);
}

#[tokio::test]
async fn a_server_that_does_not_advertise_s256_is_refused_before_the_authorization_request() {
    let fake = refused(
        Knobs {
            pkce_methods: vec!["plain"],
            ..Knobs::default()
        },
        "S256",
    )
    .await;
    assert!(fake.seen.lock().unwrap().authorizations.is_empty());
}

#[tokio::test]
async fn metadata_naming_another_issuer_is_not_used() {
    let fake = refused(
        Knobs {
            metadata_issuer: Some("https://attacker.example.com".into()),
            ..Knobs::default()
        },
        "issuer",
    )
    .await;
    let seen = fake.seen.lock().unwrap();
    assert!(seen.authorizations.is_empty());
    assert_eq!(seen.registrations, 0);
}

#[tokio::test]
async fn a_refused_token_is_refreshed_rather_than_authorized_anew() {
    let fake = start(Knobs {
        refresh: true,
        ..Knobs::default()
    })
    .await;
    let client = connect(&fake, Some(oauth())).await.unwrap();
    client.list_tools().await.unwrap();
    client.list_tools().await.unwrap();
    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen.authorizations.len(), 1, "{:?}", seen.authorizations);
    let grants: Vec<_> = seen
        .tokens
        .iter()
        .map(|t| get(t, "grant_type").unwrap())
        .collect();
    assert_eq!(grants[0], "authorization_code");
    assert!(grants.len() >= 2, "{grants:?}");
    assert!(
        grants[1..].iter().all(|g| *g == "refresh_token"),
        "{grants:?}"
    );
    // Each refresh presented the refresh token of the grant before it, with the resource.
    for (i, t) in seen.tokens.iter().enumerate().skip(1) {
        assert_eq!(
            get(t, "refresh_token"),
            Some(format!("refresh-{i}").as_str())
        );
        assert_eq!(
            get(t, "resource"),
            Some(format!("{}/mcp", fake.base).as_str())
        );
    }
    // Only fresh tokens were accepted, each once.
    let mut accepted = seen.accepted.clone();
    accepted.dedup();
    assert_eq!(accepted.len(), seen.accepted.len());
}

#[tokio::test]
async fn a_scope_that_is_never_enough_stops_after_three_authorizations() {
    let fake = start(Knobs {
        always_403: true,
        challenge_scope: Some("mcp:admin"),
        ..Knobs::default()
    })
    .await;
    match connect(&fake, Some(oauth())).await {
        Err(Error::Auth(m)) => assert!(m.contains("3 authorizations"), "{m}"),
        other => panic!("expected an authorization error, got {:?}", other.err()),
    }
    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen.authorizations.len(), 3);
    // The client registered once, and each step-up asked for the challenged scope.
    assert_eq!(seen.registrations, 1);
    for a in &seen.authorizations {
        assert!(
            get(a, "scope")
                .unwrap()
                .split(' ')
                .any(|s| s == "mcp:admin")
        );
    }
}

/// A user's browser: a `GET` of `url` (plain HTTP), the answer's head and body.
fn browse(url: &str) -> String {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut s = std::net::TcpStream::connect(host).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[tokio::test]
async fn the_loopback_browser_takes_the_redirect_the_user_s_browser_brings_back() {
    let fake = start(Knobs::default()).await;
    let shown = Arc::new(Mutex::new(Vec::new()));
    let seen_by_user = Arc::clone(&shown);
    let browser = janus_client::Loopback::new(move |url: &str| {
        seen_by_user.lock().unwrap().push(url.to_owned());
        let url = url.to_owned();
        // The user opens the URL; the authorization server sends the browser back to the
        // loopback port, which answers the page.
        std::thread::spawn(move || {
            let answer = browse(&url);
            let location = answer
                .lines()
                .find_map(|l| l.strip_prefix("location: "))
                .unwrap()
                .to_owned();
            assert!(location.starts_with("http://127.0.0.1:"), "{location}");
            let page = browse(&location);
            assert!(page.starts_with("HTTP/1.1 200"), "{page}");
        });
    })
    .unwrap();
    let redirect = janus_client::Browser::redirect_uri(&browser);
    let auth = OAuth::new(OAuthConfig::default(), browser);
    let client = connect(&fake, Some(auth)).await.unwrap();
    client.list_tools().await.unwrap();
    assert_eq!(shown.lock().unwrap().len(), 1);
    let seen = fake.seen.lock().unwrap();
    assert_eq!(
        get(&seen.authorizations[0], "redirect_uri"),
        Some(redirect.as_str())
    );
    assert_eq!(get(&seen.tokens[0], "code"), Some("the-code"));
}

#[tokio::test]
async fn grants_without_a_user_ask_the_token_endpoint_alone() {
    for (config, grant) in [
        (
            OAuthConfig {
                client_id: Some("workload".into()),
                assertion: Some("header.claims.signature".into()),
                ..OAuthConfig::default()
            },
            "urn:ietf:params:oauth:grant-type:jwt-bearer",
        ),
        (
            OAuthConfig {
                client_id: Some("machine".into()),
                client_secret: Some("s".into()),
                client_credentials: true,
                ..OAuthConfig::default()
            },
            "client_credentials",
        ),
    ] {
        let fake = start(Knobs::default()).await;
        let auth = OAuth::new(config, Headless::new(Tls::default()));
        let client = connect(&fake, Some(auth)).await.unwrap();
        client.list_tools().await.unwrap();
        let seen = fake.seen.lock().unwrap();
        assert!(seen.authorizations.is_empty());
        assert_eq!(seen.registrations, 0);
        let [t] = seen.tokens.as_slice() else {
            panic!("one token request, not {:?}", seen.tokens)
        };
        assert_eq!(get(t, "grant_type"), Some(grant));
        assert_eq!(
            get(t, "resource"),
            Some(format!("{}/mcp", fake.base).as_str())
        );
        if grant == "client_credentials" {
            // The metadata lists only `none`, so the secret goes nowhere and the id in the form.
            assert_eq!(get(t, "client_id"), Some("machine"));
            assert_eq!(get(t, "client_secret"), None);
        } else {
            assert_eq!(get(t, "assertion"), Some("header.claims.signature"));
            assert_eq!(get(t, "client_id"), Some("workload"));
        }
    }
}

#[tokio::test]
async fn a_stored_token_serves_the_next_run_without_a_new_authorization() {
    let fake = start(Knobs::default()).await;
    let dir = std::env::temp_dir().join(format!("janus-auth-store-{}", std::process::id()));
    let file = dir.join("tokens").join("server.json");
    let stored = || {
        OAuth::new(
            OAuthConfig {
                store: Some(file.clone()),
                ..OAuthConfig::default()
            },
            Headless::new(Tls::default()),
        )
    };
    let first = stored();
    assert!(!first.is_authorized());
    connect(&fake, Some(first))
        .await
        .unwrap()
        .list_tools()
        .await
        .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let second = stored();
    assert!(second.is_authorized());
    connect(&fake, Some(second))
        .await
        .unwrap()
        .list_tools()
        .await
        .unwrap();
    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen.authorizations.len(), 1);
    assert_eq!(seen.registrations, 1);
    assert!(
        seen.accepted.iter().all(|t| t == "token-1"),
        "{:?}",
        seen.accepted
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn enterprise_managed_authorization_exchanges_the_id_token_then_presents_the_grant() {
    let fake = start(Knobs::default()).await;
    let config = OAuthConfig {
        client_id: Some("mcp-client".into()),
        enterprise: Some(janus_client::Enterprise {
            id_token: "the-id-token".into(),
            idp_token_endpoint: format!("{}/idp-token", fake.base),
            idp_client_id: "idp-client".into(),
            idp_client_secret: None,
        }),
        ..OAuthConfig::default()
    };
    let client = connect(
        &fake,
        Some(OAuth::new(config, Headless::new(Tls::default()))),
    )
    .await
    .unwrap();
    client.list_tools().await.unwrap();
    let seen = fake.seen.lock().unwrap();
    let [x] = seen.exchanges.as_slice() else {
        panic!("one exchange, not {:?}", seen.exchanges)
    };
    assert_eq!(
        get(x, "grant_type"),
        Some("urn:ietf:params:oauth:grant-type:token-exchange")
    );
    assert_eq!(get(x, "subject_token"), Some("the-id-token"));
    assert_eq!(
        get(x, "requested_token_type"),
        Some("urn:ietf:params:oauth:token-type:id-jag")
    );
    assert_eq!(get(x, "audience"), Some(fake.base.as_str()));
    assert_eq!(
        get(x, "resource"),
        Some(format!("{}/mcp", fake.base).as_str())
    );
    assert_eq!(get(x, "client_id"), Some("idp-client"));
    let [t] = seen.tokens.as_slice() else {
        panic!("one token request, not {:?}", seen.tokens)
    };
    assert_eq!(
        get(t, "grant_type"),
        Some("urn:ietf:params:oauth:grant-type:jwt-bearer")
    );
    assert_eq!(get(t, "assertion"), Some("the-id-jag"));
    assert!(seen.authorizations.is_empty());
}

#[tokio::test]
async fn tokens_and_secrets_never_show_in_debug_output_or_errors() {
    // A refused flow: the server took each token the client was granted and still said no.
    let fake = start(Knobs {
        always_403: true,
        challenge_scope: Some("mcp:admin"),
        ..Knobs::default()
    })
    .await;
    let auth = oauth();
    let err = connect(&fake, Some(auth.clone())).await.err().unwrap();
    let granted: Vec<String> = fake.seen.lock().unwrap().used.clone();
    // And a configuration that holds every kind of secret.
    let config = OAuthConfig {
        client_secret: Some("the-secret".into()),
        assertion: Some("the-assertion".into()),
        private_key_pem: Some("the-private-key".into()),
        enterprise: Some(Enterprise {
            id_token: "the-id-token".into(),
            idp_token_endpoint: "https://idp.example/token".into(),
            idp_client_id: "idp-client".into(),
            idp_client_secret: Some("the-idp-secret".into()),
        }),
        ..OAuthConfig::default()
    };
    let shown = [
        format!("{err}"),
        format!("{err:?}"),
        format!("{auth:?}"),
        format!("{config:?}"),
        format!(
            "{:?}",
            OAuth::new(config.clone(), Headless::new(Tls::default()))
        ),
    ];
    assert!(!granted.is_empty(), "the server saw no token");
    for text in &shown {
        for hidden in granted
            .iter()
            .map(String::as_str)
            .chain(["the-secret", "the-assertion", "the-private-key"])
            .chain(["the-id-token", "the-idp-secret"])
        {
            assert!(!text.contains(hidden), "{hidden:?} shown in {text}");
        }
    }
}
