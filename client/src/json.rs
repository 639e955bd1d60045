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

/// The string a value holds, if it is one.
pub(crate) fn opt_string(v: Option<RawJson<'_>>) -> Option<String> {
    v.and_then(RawJson::as_string)
        .map(std::borrow::Cow::into_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_leaves_strings_alone() {
        assert_eq!(
            compact("{ \"a b\" : [ 1 ,\n\t2 ], \"c\\\" d\": \" x \" }"),
            r#"{"a b":[1,2],"c\" d":" x "}"#
        );
    }
}
