//! What `completion/complete` answers ([`Completion`]): the values a prompt's argument or a
//! template's variable may take, and what the server knows of the rest. Written by a server,
//! read by a client, forwarded by a bridge as it was given.

use crate::json::owned_string;
use bytes::{BufMut, BytesMut};
use janus_codec::RawJson;

/// The most values one answer holds (the specification's limit).
pub const MAX_VALUES: usize = 100;

/// A completion: the candidates, best first, and how many there are in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completion {
    /// The candidates, best first (at most [`MAX_VALUES`] are written).
    pub values: Vec<String>,
    /// How many candidates there are in all, when the server knows (it may be more than the
    /// values given).
    pub total: Option<u64>,
    /// The server has more candidates than the values given.
    pub has_more: bool,
}

impl From<Vec<String>> for Completion {
    /// All the candidates there are: `total` is their number, and there are more only when
    /// they are more than one answer holds.
    fn from(values: Vec<String>) -> Self {
        Self {
            total: u64::try_from(values.len()).ok(),
            has_more: values.len() > MAX_VALUES,
            values,
        }
    }
}

impl Completion {
    /// Reads a `completion/complete` result, of any revision.
    ///
    /// # Errors
    ///
    /// A result whose `completion.values` is not an array; a value that is not a string is
    /// left out.
    pub fn read(result: RawJson<'_>) -> Result<Self, String> {
        let c = result
            .get("completion")
            .ok_or("a completion result without completion")?;
        let [values, total, has_more] = c.get_many(["values", "total", "hasMore"]);
        let values = values
            .filter(|v| v.is_array())
            .ok_or("a completion result without values")?
            .iter_elements()
            .filter_map(|v| owned_string(Some(v)))
            .collect();
        Ok(Self {
            values,
            total: total.and_then(|t| t.as_str().parse().ok()),
            has_more: has_more.is_some_and(|h| h.as_str() == "true"),
        })
    }

    /// Writes the result object `{"completion":{"values":[...],"total":N,"hasMore":B}}`:
    /// at most [`MAX_VALUES`] values (more given means `hasMore`); `total` when known, and
    /// never fewer than the values written.
    pub fn write(&self, out: &mut BytesMut) {
        out.extend_from_slice(br#"{"completion":{"values":["#);
        let written = self.values.len().min(MAX_VALUES);
        for (i, v) in self.values[..written].iter().enumerate() {
            if i > 0 {
                out.put_u8(b',');
            }
            janus_codec::encode::write_str(out, v);
        }
        out.put_u8(b']');
        let given = u64::try_from(self.values.len()).unwrap_or(u64::MAX);
        if let Some(total) = self.total.map(|t| t.max(given)) {
            out.extend_from_slice(br#","total":"#);
            janus_codec::encode::write_i64(out, i64::try_from(total).unwrap_or(i64::MAX));
        }
        out.extend_from_slice(if self.has_more || self.values.len() > MAX_VALUES {
            br#","hasMore":true}}"#
        } else {
            br#","hasMore":false}}"#
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(c: &Completion) -> serde_json::Value {
        let mut out = BytesMut::new();
        c.write(&mut out);
        serde_json::from_slice(&out).expect("valid JSON")
    }

    #[test]
    fn what_a_server_says_of_the_rest_is_read_and_written_again() {
        let wire =
            r#"{"completion":{"values":["a","b",3,"c"],"total":5000,"hasMore":true},"_meta":{}}"#;
        let c = Completion::read(RawJson::parse(wire).unwrap()).unwrap();
        assert_eq!(c.values, ["a", "b", "c"]);
        assert_eq!((c.total, c.has_more), (Some(5000), true));
        assert_eq!(
            written(&c),
            serde_json::json!({"completion":{"values":["a","b","c"],"total":5000,"hasMore":true}})
        );
        // NB. A server that says nothing of the rest: none is claimed.
        let c = Completion::read(RawJson::parse(r#"{"completion":{"values":["x"]}}"#).unwrap())
            .unwrap();
        assert_eq!((c.total, c.has_more), (None, false));
        assert_eq!(
            written(&c),
            serde_json::json!({"completion":{"values":["x"],"hasMore":false}})
        );
        assert!(Completion::read(RawJson::parse(r#"{"completion":{}}"#).unwrap()).is_err());
        assert!(Completion::read(RawJson::parse(r#"{}"#).unwrap()).is_err());
    }

    #[test]
    fn a_handler_s_values_are_cut_at_the_limit_and_counted() {
        let c = Completion::from((0..150).map(|n| n.to_string()).collect::<Vec<_>>());
        let w = written(&c);
        assert_eq!(
            w["completion"]["values"].as_array().unwrap().len(),
            MAX_VALUES
        );
        assert_eq!(w["completion"]["total"], 150);
        assert_eq!(w["completion"]["hasMore"], true);
        // NB. A total below the values given is not believed.
        let c = Completion {
            values: vec!["a".into(), "b".into()],
            total: Some(1),
            has_more: false,
        };
        assert_eq!(written(&c)["completion"]["total"], 2);
    }
}
