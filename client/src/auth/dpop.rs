//! DPoP (RFC 9449, the `io.modelcontextprotocol/auth/dpop` extension): tokens bound to a key
//! of the client's, each request proven with a fresh ES256 proof, nonces taken when a server
//! asks for them.

use super::pkce::random;
use crate::error::Error;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};
use std::sync::Mutex;

/// The client's DPoP key, and the nonces servers gave.
pub(crate) struct Dpop {
    key: EcdsaKeyPair,
    rng: SystemRandom,
    jwk: Value,
    /// The authorization server's nonce.
    pub(crate) as_nonce: Mutex<Option<String>>,
    /// The resource server's nonce.
    pub(crate) rs_nonce: Mutex<Option<String>>,
}

impl Dpop {
    /// A new P-256 key.
    pub(crate) fn new() -> Result<Self, Error> {
        let rng = SystemRandom::new();
        let fail = |_: ring::error::Unspecified| Error::Auth("no DPoP key could be made".into());
        let doc =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).map_err(fail)?;
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, doc.as_ref(), &rng)
            .map_err(|_| Error::Auth("no DPoP key could be made".into()))?;
        // NB. The public key is the uncompressed point: 0x04, then x and y, 32 bytes each.
        let point = key.public_key().as_ref();
        let jwk = json!({
            "kty": "EC",
            "crv": "P-256",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
        });
        Ok(Self {
            key,
            rng,
            jwk,
            as_nonce: Mutex::new(None),
            rs_nonce: Mutex::new(None),
        })
    }

    /// A proof for a request of `method` to `url` (without query or fragment), with the
    /// server's `nonce` and, for a resource request, the hash of the access token.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        nonce: Option<&str>,
        token: Option<&str>,
    ) -> Result<String, Error> {
        let htu = url.split(['?', '#']).next().unwrap_or(url);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk});
        let mut claims = json!({"jti": random(16)?, "htm": method, "htu": htu, "iat": now});
        if let Some(n) = nonce {
            claims["nonce"] = json!(n);
        }
        if let Some(t) = token {
            let digest = ring::digest::digest(&ring::digest::SHA256, t.as_bytes());
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(digest));
        }
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let sig = self
            .key
            .sign(&self.rng, input.as_bytes())
            .map_err(|_| Error::Auth("signing a DPoP proof failed".into()))?;
        Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.as_ref())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    fn part(jwt: &str, i: usize) -> Value {
        let p = jwt.split('.').nth(i).unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(p).unwrap()).unwrap()
    }

    #[test]
    fn a_proof_verifies_with_its_jwk_and_binds_method_url_nonce_and_token() {
        let d = Dpop::new().unwrap();
        let a = d
            .proof(
                "POST",
                "https://rs.example/mcp?x=1",
                Some("n1"),
                Some("tok"),
            )
            .unwrap();
        let b = d
            .proof("POST", "https://rs.example/mcp", None, None)
            .unwrap();
        let (header, claims) = (part(&a, 0), part(&a, 1));
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(header["jwk"].get("d").is_none());
        let x = URL_SAFE_NO_PAD
            .decode(header["jwk"]["x"].as_str().unwrap())
            .unwrap();
        let y = URL_SAFE_NO_PAD
            .decode(header["jwk"]["y"].as_str().unwrap())
            .unwrap();
        let point = [&[4u8][..], &x, &y].concat();
        let (input, sig) = a.rsplit_once('.').unwrap();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point)
            .verify(input.as_bytes(), &URL_SAFE_NO_PAD.decode(sig).unwrap())
            .unwrap();
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://rs.example/mcp");
        assert_eq!(claims["nonce"], "n1");
        let ath = URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, b"tok"));
        assert_eq!(claims["ath"], ath);
        let other = part(&b, 1);
        assert!(other.get("nonce").is_none() && other.get("ath").is_none());
        assert_ne!(claims["jti"], other["jti"]);
    }
}
