//! The `x-mcp-header` annotations of a tool's input schema (2026-07-28): which arguments a
//! request mirrors into `Mcp-Param-*` headers, and the header text of a value.

use http::header::HeaderName;
use janus_codec::RawJson;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One header a tool's argument is mirrored into: the path of `properties` keys to it, and
/// the header's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mirror {
    pub(super) path: Vec<String>,
    pub(super) header: HeaderName,
}

/// The `x-mcp-header` mirrors of the tools listed so far, by tool name.
pub(crate) type Mirrors = Arc<Mutex<HashMap<String, Vec<Mirror>>>>;

/// The `x-mcp-header` annotations of an input schema, or why they make the tool invalid.
pub(crate) fn mirrors_of(schema: &str) -> Result<Vec<Mirror>, String> {
    let Ok(root) = RawJson::parse(schema) else {
        return Err("its inputSchema is no JSON".into());
    };
    let mut found = Vec::new();
    walk(root, &mut Vec::new(), &mut found)?;
    // NB. Every annotation must be on a property reached through `properties` alone.
    let everywhere = count_key(schema, "x-mcp-header");
    if everywhere != found.len() {
        return Err("an x-mcp-header outside a chain of properties".into());
    }
    let mut seen: Vec<String> = Vec::new();
    for m in &found {
        let lower = m.header.as_str().to_ascii_lowercase();
        if seen.contains(&lower) {
            return Err(format!("x-mcp-header {} is not unique", m.header));
        }
        seen.push(lower);
    }
    Ok(found)
}

fn walk(
    schema: RawJson<'_>,
    path: &mut Vec<String>,
    found: &mut Vec<Mirror>,
) -> Result<(), String> {
    let Some(props) = schema.get("properties").filter(|p| p.is_object()) else {
        return Ok(());
    };
    for (key, prop) in props.members() {
        path.push(key.into_owned());
        if let Some(h) = prop.get("x-mcp-header") {
            let name = h
                .as_string()
                .filter(|n| !n.is_empty() && n.bytes().all(is_tchar))
                .ok_or_else(|| format!("x-mcp-header of {} is no header name", path.join(".")))?;
            let kind = prop.get("type").and_then(RawJson::as_string);
            if !matches!(kind.as_deref(), Some("string" | "integer" | "boolean")) {
                return Err(format!(
                    "x-mcp-header on {}, which is not a string, integer or boolean",
                    path.join(".")
                ));
            }
            let header = HeaderName::from_bytes(format!("mcp-param-{name}").as_bytes())
                .map_err(|_| format!("x-mcp-header {name} is no header name"))?;
            found.push(Mirror {
                path: path.clone(),
                header,
            });
        }
        walk(prop, path, found)?;
        path.pop();
    }
    Ok(())
}

/// How many times `"key"` stands as an object key in `json` (outside strings).
fn count_key(json: &str, key: &str) -> usize {
    let needle = format!("\"{key}\"");
    let b = json.as_bytes();
    let mut n = 0;
    let mut at = 0;
    while let Some(i) = json[at..].find(&needle) {
        let start = at + i;
        let end = start + needle.len();
        let escaped = start > 0 && b[start - 1] == b'\\';
        let rest = json[end..].trim_start();
        if !escaped && rest.starts_with(':') {
            n += 1;
        }
        at = end;
    }
    n
}

const fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'!' | b'#'
                | b'$'
                | b'%'
                | b'&'
                | b'\''
                | b'*'
                | b'+'
                | b'-'
                | b'.'
                | b'^'
                | b'_'
                | b'`'
                | b'|'
                | b'~'
        )
}

/// A header value for `s`: as it is when it is plain header text, else the Base64 sentinel.
pub(crate) fn header_text(s: &str) -> String {
    let sentinel = s.starts_with("=?base64?") && s.ends_with("?=");
    let edge_space = s.starts_with([' ', '\t']) || s.ends_with([' ', '\t']);
    let plain = if s.is_empty() || sentinel || edge_space {
        false
    } else {
        s.bytes().all(|c| (0x20..=0x7e).contains(&c) || c == b'\t')
    };
    if plain {
        s.to_owned()
    } else {
        use base64::Engine as _;
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(s.as_bytes())
        )
    }
}

/// The value an argument gives its header, when it has one of the types allowed.
pub(super) fn mirrored(args: RawJson<'_>, path: &[String]) -> Option<String> {
    let mut v = args;
    for k in path {
        v = v.get(k)?;
    }
    if let Some(s) = v.as_string() {
        return Some(header_text(&s));
    }
    match v.as_str() {
        b @ ("true" | "false") => Some(b.to_owned()),
        n => {
            let i: i64 = n.parse().ok()?;
            (i.unsigned_abs() < (1 << 53)).then(|| i.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_are_plain_or_the_base64_sentinel() {
        assert_eq!(header_text("us-west1"), "us-west1");
        assert_eq!(
            header_text("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(header_text(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(header_text("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            header_text("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
    }

    #[test]
    fn x_mcp_header_annotations_are_read_or_make_the_tool_invalid() {
        let ok = r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"q":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}}}"#;
        let m = mirrors_of(ok).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].path, ["q", "n"]);
        let args = RawJson::parse(r#"{"region":"eu 1 ","q":{"n":-7}}"#).unwrap();
        assert_eq!(mirrored(args, &m[0].path).unwrap(), "=?base64?ZXUgMSA=?=");
        assert_eq!(mirrored(args, &m[1].path).unwrap(), "-7");
        for bad in [
            r#"{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}"#,
            r#"{"properties":{"a":{"type":"string","x-mcp-header":""}}}"#,
            r#"{"properties":{"a":{"type":"string","x-mcp-header":"a b"}}}"#,
            r#"{"properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}"#,
            r#"{"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}"#,
            r#"{"oneOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}"#,
        ] {
            assert!(mirrors_of(bad).is_err(), "{bad}");
        }
        // A description that names the keyword is no annotation.
        assert!(
            mirrors_of(r#"{"description":"see \"x-mcp-header\": docs"}"#)
                .unwrap()
                .is_empty()
        );
    }
}
