//! Small JSON helpers on the codec's raw values: compact text, optional strings.

use janus_codec::RawJson;

/// `json` without the white space between its tokens (strings left as they are).
#[must_use]
pub fn compact(json: &str) -> String {
    let b = json.as_bytes();
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped, mut start) = (false, false, 0);
    for (i, &c) in b.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
            }
        } else if c == b'"' {
            in_string = true;
        } else if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            out.push_str(&json[start..i]);
            start = i + 1;
        }
    }
    out.push_str(&json[start..]);
    out
}

/// `json` in one canonical form: compact, every object's members sorted by key (the last of
/// a duplicated key kept), strings written with the codec's escapes. Two servers that send
/// the same value in another order or spacing give the same text.
#[must_use]
pub fn canonical(json: &str) -> String {
    match RawJson::parse(json) {
        Ok(v) => {
            let mut out = bytes::BytesMut::with_capacity(json.len());
            write_canonical(v, &mut out);
            String::from_utf8(out.to_vec()).unwrap_or_else(|_| compact(json))
        }
        Err(_) => compact(json),
    }
}

fn write_canonical(v: RawJson<'_>, out: &mut bytes::BytesMut) {
    if v.is_object() {
        let mut members = v.members();
        // NB. A stable sort keeps duplicates in order: the last one wins below.
        members.sort_by(|a, b| a.0.cmp(&b.0));
        out.extend_from_slice(b"{");
        let mut first = true;
        for (i, (k, m)) in members.iter().enumerate() {
            if members.get(i + 1).is_some_and(|n| n.0 == *k) {
                continue;
            }
            if !first {
                out.extend_from_slice(b",");
            }
            first = false;
            janus_codec::encode::write_str(out, k);
            out.extend_from_slice(b":");
            write_canonical(*m, out);
        }
        out.extend_from_slice(b"}");
    } else if v.is_array() {
        out.extend_from_slice(b"[");
        for (i, e) in v.elements().into_iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b",");
            }
            write_canonical(e, out);
        }
        out.extend_from_slice(b"]");
    } else if let Some(s) = v.as_string() {
        janus_codec::encode::write_str(out, &s);
    } else {
        out.extend_from_slice(v.as_str().as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_sorts_keys_and_settles_escapes() {
        assert_eq!(
            canonical(
                r#"{ "type":"object", "properties":{"b":[2, {"z":1,"a":"\u00e9"}],"a":1}, "a":0,"a":3 }"#
            ),
            r#"{"a":3,"properties":{"a":1,"b":[2,{"a":"é","z":1}]},"type":"object"}"#
        );
        assert_eq!(canonical("not json "), "notjson");
    }

    #[test]
    fn compact_leaves_strings_alone() {
        assert_eq!(
            compact("{ \"a b\" : [ 1 ,\n\t2 ], \"c\\\" d\": \" x \" }"),
            r#"{"a b":[1,2],"c\" d":" x "}"#
        );
    }
}
