//! `janus serve --http` flags of authorization: the endpoint as an OAuth 2.1 resource server
//! that accepts JWT access tokens.

use clap::Args;
use janus_server_core::http::{JwtVerifier, ProtectedResource};
use std::path::PathBuf;

/// Authorization of the HTTP endpoint (off unless `--auth-resource` is given).
#[derive(Args, Debug, Default)]
pub(crate) struct AuthArgs {
    /// Require bearer tokens: the endpoint's canonical URI (`https://mcp.example.com/mcp`),
    /// the audience tokens must be issued for; its metadata is served at
    /// `/.well-known/oauth-protected-resource` + its path.
    #[arg(long, value_name = "URL", requires_all = ["http", "auth_servers"])]
    pub(crate) auth_resource: Option<String>,
    /// An authorization server that issues the tokens (repeat for more).
    #[arg(long = "auth-server", value_name = "URL", requires = "auth_resource")]
    pub(crate) auth_servers: Vec<String>,
    /// Verify tokens with the keys of this JWKS file.
    #[arg(long, value_name = "FILE", requires = "auth_resource",
          conflicts_with_all = ["auth_public_key", "auth_hmac_secret_file"])]
    pub(crate) auth_jwks: Option<PathBuf>,
    /// Verify tokens with this PEM public key (RSA, EC or Ed25519).
    #[arg(
        long,
        value_name = "FILE",
        requires = "auth_resource",
        conflicts_with = "auth_hmac_secret_file"
    )]
    pub(crate) auth_public_key: Option<PathBuf>,
    /// Verify tokens with the HMAC secret in this file (at least 32 bytes; HS256/384/512).
    #[arg(long, value_name = "FILE", requires = "auth_resource")]
    pub(crate) auth_hmac_secret_file: Option<PathBuf>,
    /// Accept only tokens from this issuer (`iss`; repeat for more).
    #[arg(long = "auth-issuer", value_name = "ISS", requires = "auth_resource")]
    pub(crate) auth_issuers: Vec<String>,
    /// A scope every request needs (repeat for more; 403 without it).
    #[arg(long = "auth-scope", value_name = "SCOPE", requires = "auth_resource")]
    pub(crate) auth_scopes: Vec<String>,
    /// Another audience accepted besides the resource URI (repeat for more).
    #[arg(long = "auth-audience", value_name = "AUD", requires = "auth_resource")]
    pub(crate) auth_audiences: Vec<String>,
}

/// The verifier and resource the flags describe, `None` when authorization is off.
///
/// # Errors
///
/// A key file that cannot be read or used, a bad resource URI, or no key source.
pub(crate) fn build(args: AuthArgs) -> Result<Option<(JwtVerifier, ProtectedResource)>, String> {
    let Some(resource) = args.auth_resource else {
        return Ok(None);
    };
    let read = |p: &PathBuf| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    let verifier = if let Some(p) = &args.auth_jwks {
        JwtVerifier::jwks(&read(p)?, &resource)
    } else if let Some(p) = &args.auth_public_key {
        JwtVerifier::public_key_pem(&read(p)?, &resource)
    } else if let Some(p) = &args.auth_hmac_secret_file {
        let secret = read(p)?;
        // A secret file usually ends with a line break that is not part of the secret.
        let secret = secret.strip_suffix(b"\n").unwrap_or(&secret);
        JwtVerifier::hmac(secret, &resource)
    } else {
        return Err(
            "--auth-resource needs a key: --auth-jwks, --auth-public-key or --auth-hmac-secret-file"
                .into(),
        );
    }
    .map_err(|e| e.to_string())?;
    let verifier = args
        .auth_audiences
        .iter()
        .fold(verifier, |v, a| v.also_audience(a))
        .issuers(args.auth_issuers);
    let resource = ProtectedResource::new(&resource, args.auth_servers)
        .map_err(|e| e.to_string())?
        .require_scopes(args.auth_scopes);
    Ok(Some((verifier, resource)))
}
