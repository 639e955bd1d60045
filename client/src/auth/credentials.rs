//! The client credentials grant (the `io.modelcontextprotocol/oauth-client-credentials`
//! extension): a machine client with no user, authenticating with its secret or with a
//! signed JWT assertion (RFC 7523, `private_key_jwt`, ES256); and the names of the JWT
//! bearer grant that presents a workload's identity token or an enterprise's identity
//! assertion (SEP-990: an ID token exchanged at the identity provider first).

use super::Enterprise;
use super::net::Net;
use super::pkce::{form, random};
use crate::error::Error;
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use serde_json::json;

/// The `client_assertion_type` of a JWT assertion.
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// The `grant_type` of the JWT bearer grant (RFC 7523 §2.1).
pub(crate) const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// How long an assertion is good for.
const LIFETIME_SECS: u64 = 300;

/// A JWT assertion of `client_id` for the authorization server `audience`, signed ES256 with
/// the PKCS#8 PEM private key `pem`.
///
/// # Errors
///
/// [`Error::Auth`] when the key is no PKCS#8 P-256 key (never quoting it).
pub(crate) fn assertion(pem: &str, client_id: &str, audience: &str) -> Result<String, Error> {
    let b64: String = pem
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .map(str::trim)
        .collect();
    let der = STANDARD
        .decode(b64)
        .map_err(|_| Error::Auth("the private key is no PEM".into()))?;
    let rng = SystemRandom::new();
    let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &rng)
        .map_err(|_| Error::Auth("the private key is no PKCS#8 P-256 (ES256) key".into()))?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let header = json!({"alg": "ES256", "typ": "JWT"});
    let claims = json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + LIFETIME_SECS,
        "jti": random(16)?,
    });
    let signing_input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let sig = key
        .sign(&rng, signing_input.as_bytes())
        .map_err(|_| Error::Auth("signing the client assertion failed".into()))?;
    Ok(format!(
        "{signing_input}.{}",
        URL_SAFE_NO_PAD.encode(sig.as_ref())
    ))
}

/// The `grant_type` of a token exchange (RFC 8693).
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";

/// Exchanges the enterprise identity provider's ID token for an identity assertion
/// authorization grant (an ID-JAG) for the authorization server `audience` and the resource
/// `resource` (RFC 8693 at the identity provider's token endpoint).
///
/// # Errors
///
/// [`Error::Auth`] when the identity provider refuses or gives no token.
pub(crate) async fn id_jag(
    net: &Net,
    e: &Enterprise,
    audience: &str,
    resource: &str,
) -> Result<String, Error> {
    let mut pairs = vec![
        ("grant_type", TOKEN_EXCHANGE),
        (
            "requested_token_type",
            "urn:ietf:params:oauth:token-type:id-jag",
        ),
        ("subject_token", e.id_token.as_str()),
        (
            "subject_token_type",
            "urn:ietf:params:oauth:token-type:id_token",
        ),
        ("audience", audience),
        ("resource", resource),
        ("client_id", e.idp_client_id.as_str()),
    ];
    if let Some(secret) = &e.idp_client_secret {
        pairs.push(("client_secret", secret));
    }
    let endpoint = &e.idp_token_endpoint;
    let a = net
        .post(
            endpoint,
            Vec::new(),
            "application/x-www-form-urlencoded",
            form(&pairs).into_bytes(),
        )
        .await?;
    let m = a.json().unwrap_or_default();
    match m.get("access_token").and_then(serde_json::Value::as_str) {
        Some(t) if (200..300).contains(&a.status) => Ok(t.to_owned()),
        _ => Err(Error::Auth(format!(
            "the identity provider's token endpoint {endpoint} gave no grant (HTTP {}, {})",
            a.status,
            m.get("error")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("no error code")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, KeyPair, UnparsedPublicKey};

    #[test]
    fn an_assertion_verifies_with_the_public_key_and_names_the_client_and_audience() {
        let rng = SystemRandom::new();
        let doc = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            STANDARD.encode(doc.as_ref())
        );
        let jwt = assertion(&pem, "cid", "https://as.example").unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let key =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, doc.as_ref(), &rng).unwrap();
        let public = UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, key.public_key().as_ref());
        let sig = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        public
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig)
            .unwrap();
        let claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["iss"], "cid");
        assert_eq!(claims["sub"], "cid");
        assert_eq!(claims["aud"], "https://as.example");
        assert!(
            assertion(
                "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
                "c",
                "a"
            )
            .is_err()
        );
    }
}
