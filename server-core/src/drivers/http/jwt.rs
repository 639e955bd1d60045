//! A [`TokenVerifier`] for JWT access tokens (feature `jwt`), on the `jsonwebtoken` crate with
//! its pure-Rust cryptography.
//!
//! A token is accepted when its signature checks against one of the keys (a shared HMAC
//! secret, a PEM public key, or a JWKS document; a JWKS key is chosen by `kid`), its algorithm
//! belongs to that key's family (no `none`, no HMAC with a public key), it is not expired
//! (`exp` is required; 60 s of leeway), its `nbf` has passed, its `aud` names this resource
//! (RFC 8707: a token for another server is refused), and its `iss` is one of the allowed
//! issuers when they are set. Its scopes come from `scope` (space-separated, RFC 8693) or
//! `scp` (a list or a string).

use super::auth::{Principal, TokenVerifier};
use jsonwebtoken::jwk::{JwkSet, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use std::str::FromStr;

/// A key-loading error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError(String);

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeyError {}

struct Key {
    kid: Option<String>,
    algorithms: Vec<Algorithm>,
    key: DecodingKey,
}

/// Verifies JWT access tokens.
pub struct JwtVerifier {
    keys: Vec<Key>,
    audience: Vec<String>,
    issuers: Vec<String>,
    leeway: u64,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("keys", &self.keys.len())
            .field("audience", &self.audience)
            .field("issuers", &self.issuers)
            .finish_non_exhaustive()
    }
}

fn family_algorithms(key: &DecodingKey) -> Vec<Algorithm> {
    key.family().algorithms().to_vec()
}

impl JwtVerifier {
    fn with_keys(keys: Vec<Key>, audience: &str) -> Self {
        Self {
            keys,
            audience: vec![audience.to_owned()],
            issuers: Vec::new(),
            leeway: 60,
        }
    }

    /// A verifier of one key without an id, in its whole algorithm family.
    fn one_key(key: DecodingKey, audience: &str) -> Self {
        let algorithms = family_algorithms(&key);
        Self::with_keys(
            vec![Key {
                kid: None,
                algorithms,
                key,
            }],
            audience,
        )
    }

    /// Tokens signed with the shared secret `secret` (HS256, HS384, HS512) for `audience`.
    ///
    /// # Errors
    ///
    /// A secret shorter than 32 bytes.
    pub fn hmac(secret: &[u8], audience: &str) -> Result<Self, KeyError> {
        if secret.len() < 32 {
            return Err(KeyError("an HMAC secret needs at least 32 bytes".into()));
        }
        let key = DecodingKey::from_secret(secret).map_err(|e| KeyError(e.to_string()))?;
        Ok(Self::one_key(key, audience))
    }

    /// Tokens signed by the private half of the PEM public key `pem` (RSA, EC or Ed25519).
    ///
    /// # Errors
    ///
    /// `pem` is not a PEM public key of one of those kinds.
    pub fn public_key_pem(pem: &[u8], audience: &str) -> Result<Self, KeyError> {
        let key = DecodingKey::from_rsa_pem(pem)
            .or_else(|_| DecodingKey::from_ec_pem(pem))
            .or_else(|_| DecodingKey::from_ed_pem(pem))
            .map_err(|_| KeyError("not a PEM public key (RSA, EC or Ed25519)".into()))?;
        Ok(Self::one_key(key, audience))
    }

    /// Tokens signed by a key of the JWKS document `jwks` (`{"keys":[...]}`). Keys for
    /// encryption (`"use": "enc"`) and kinds this verifier cannot use are left out.
    ///
    /// # Errors
    ///
    /// `jwks` is not a JWKS document, or it has no signing key this verifier can use.
    pub fn jwks(jwks: &[u8], audience: &str) -> Result<Self, KeyError> {
        let set: JwkSet =
            serde_json::from_slice(jwks).map_err(|e| KeyError(format!("not a JWKS: {e}")))?;
        let mut keys = Vec::new();
        for jwk in &set.keys {
            if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption))
                || !jwk.is_supported()
            {
                continue;
            }
            let Ok(key) = DecodingKey::from_jwk(jwk) else {
                continue;
            };
            let algorithms = match jwk.common.key_algorithm {
                Some(alg) => match algorithm_of(alg) {
                    Some(a) if key.family().algorithms().contains(&a) => vec![a],
                    _ => continue,
                },
                None => family_algorithms(&key),
            };
            keys.push(Key {
                kid: jwk.common.key_id.clone(),
                algorithms,
                key,
            });
        }
        if keys.is_empty() {
            return Err(KeyError(
                "the JWKS has no signing key this server can use".into(),
            ));
        }
        Ok(Self::with_keys(keys, audience))
    }

    /// Also accepts tokens whose `aud` is `audience`.
    #[must_use]
    pub fn also_audience(mut self, audience: &str) -> Self {
        self.audience.push(audience.to_owned());
        self
    }

    /// Accepts only tokens whose `iss` is one of `issuers`.
    #[must_use]
    pub fn issuers(mut self, issuers: Vec<String>) -> Self {
        self.issuers = issuers;
        self
    }

    /// The clock skew allowed on `exp` and `nbf`, in seconds (60 by default).
    #[must_use]
    pub fn leeway(mut self, seconds: u64) -> Self {
        self.leeway = seconds;
        self
    }
}

fn algorithm_of(alg: KeyAlgorithm) -> Option<Algorithm> {
    Algorithm::from_str(&alg.to_string()).ok()
}

/// `scp` as a list or as one space-separated string.
#[derive(Deserialize)]
#[serde(untagged)]
enum Scopes {
    List(Vec<String>),
    Text(String),
}

#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
    client_id: Option<String>,
    azp: Option<String>,
    scope: Option<String>,
    scp: Option<Scopes>,
}

impl TokenVerifier for JwtVerifier {
    fn verify(&self, token: &str) -> Result<Principal, String> {
        let header =
            jsonwebtoken::decode_header(token).map_err(|_| "The token is not a JWT".to_owned())?;
        let key = self
            .keys
            .iter()
            .filter(|k| k.algorithms.contains(&header.alg))
            .find(|k| match (&header.kid, &k.kid) {
                (Some(want), Some(have)) => want == have,
                // A key without an id serves any token; a token without one, any key.
                _ => true,
            })
            .ok_or_else(|| "No key of this server verifies the token".to_owned())?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.leeway;
        validation.validate_nbf = true;
        validation.set_audience(&self.audience);
        validation.set_required_spec_claims(&["exp", "aud"]);
        if !self.issuers.is_empty() {
            validation.set_issuer(&self.issuers);
        }
        let data = jsonwebtoken::decode::<Claims>(token, &key.key, &validation).map_err(|e| {
            use jsonwebtoken::errors::ErrorKind;
            match e.kind() {
                ErrorKind::ExpiredSignature => "The token has expired",
                ErrorKind::ImmatureSignature => "The token is not valid yet",
                ErrorKind::InvalidAudience => "The token was issued for another resource",
                ErrorKind::InvalidIssuer => "The token's issuer is not trusted",
                ErrorKind::MissingRequiredClaim(_) => "The token lacks a required claim",
                ErrorKind::InvalidSignature => "The token's signature does not verify",
                _ => "The token is not valid",
            }
            .to_owned()
        })?;
        let c = data.claims;
        let mut scopes: Vec<String> = c
            .scope
            .iter()
            .flat_map(|s| s.split_ascii_whitespace())
            .map(str::to_owned)
            .collect();
        match c.scp {
            Some(Scopes::List(l)) => scopes.extend(l),
            Some(Scopes::Text(t)) => scopes.extend(t.split_ascii_whitespace().map(str::to_owned)),
            None => {}
        }
        Ok(Principal::new(c.sub, c.client_id.or(c.azp), scopes))
    }
}
