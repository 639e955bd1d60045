//! PKCE (RFC 7636, S256 only), the random values of a flow, and the URL encodings it needs.

use crate::error::Error;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom, SystemRandom};

/// `n` random bytes, Base64url without padding.
pub(crate) fn random(n: usize) -> Result<String, Error> {
    let mut bytes = vec![0u8; n];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| Error::Auth("the system gave no random bytes".into()))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// A PKCE pair: the verifier kept by the client, the challenge sent with the authorization
/// request.
pub(crate) struct Pkce {
    pub(crate) verifier: String,
    pub(crate) challenge: String,
}

impl Pkce {
    /// A new verifier (32 random bytes: 43 characters, within RFC 7636's 43 to 128) and its
    /// S256 challenge.
    pub(crate) fn new() -> Result<Self, Error> {
        let verifier = random(32)?;
        let challenge = s256(&verifier);
        Ok(Self {
            verifier,
            challenge,
        })
    }
}

/// `BASE64URL(SHA256(verifier))`, the S256 challenge of `verifier`.
pub(crate) fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(ring::digest::digest(
        &ring::digest::SHA256,
        verifier.as_bytes(),
    ))
}

/// `pairs` as `application/x-www-form-urlencoded` (also a URL's query).
pub(crate) fn form(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (k, v) in pairs {
        if !out.is_empty() {
            out.push('&');
        }
        encode_into(&mut out, k);
        out.push('=');
        encode_into(&mut out, v);
    }
    out
}

/// `s` percent-encoded: everything but the unreserved characters of RFC 3986, a space as
/// `%20` (read alike in a query and a form).
pub(crate) fn encode(s: &str) -> String {
    let mut out = String::new();
    encode_into(&mut out, s);
    out
}

fn encode_into(out: &mut String, s: &str) {
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// The parameters of a query (or form) `q`, decoded, in order.
pub(crate) fn parse_query(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(c: u8) -> Option<u8> {
    char::from(c)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_s256_challenge_is_base64url_of_the_sha256_of_the_verifier() {
        // The value computed apart, with Python's hashlib and base64.urlsafe_b64encode.
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K1uQVOAH-xUHbMHHZpJDY1c1Sw"),
            "KDsjD0ILh1TsCnPxUvhswNT76ArXywEOeAFQ5bVjAiA"
        );
    }

    #[test]
    fn a_verifier_is_43_url_safe_characters_and_two_differ() {
        let (a, b) = (Pkce::new().unwrap(), Pkce::new().unwrap());
        assert_eq!(a.verifier.len(), 43);
        assert!(
            a.verifier
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        );
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(a.challenge, s256(&a.verifier));
    }

    #[test]
    fn a_form_round_trips_through_the_query_parser() {
        let text = form(&[
            ("redirect_uri", "http://localhost:3000/cb?x=1"),
            ("scope", "a b+c"),
        ]);
        assert_eq!(
            text,
            "redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fcb%3Fx%3D1&scope=a%20b%2Bc"
        );
        assert_eq!(
            parse_query(&text),
            vec![
                ("redirect_uri".into(), "http://localhost:3000/cb?x=1".into()),
                ("scope".into(), "a b+c".into())
            ]
        );
        assert_eq!(
            parse_query("code=a+b&bad=%zz&end=%4"),
            vec![
                ("code".into(), "a b".into()),
                ("bad".into(), "%zz".into()),
                ("end".into(), "%4".into())
            ]
        );
    }
}
