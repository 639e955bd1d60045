//! Server-sent events, parsed from the chunks of a response body as they come.

/// One SSE event.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Event {
    pub(crate) event: Option<String>,
    pub(crate) data: String,
    pub(crate) id: Option<String>,
}

/// An SSE parser over chunks as they come (`\n`, `\r\n` or `\r` line ends; comments
/// skipped; the last `retry` kept, as the stream's reconnection time).
#[derive(Debug, Default)]
pub(crate) struct Sse {
    buf: Vec<u8>,
    event: Event,
    has_data: bool,
    retry: Option<std::time::Duration>,
}

impl Sse {
    /// The reconnection time the stream set with its last valid `retry` field.
    pub(crate) const fn retry(&self) -> Option<std::time::Duration> {
        self.retry
    }

    pub(crate) fn push(&mut self, chunk: &[u8]) -> Vec<Event> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        while let Some(end) = self.buf.iter().position(|&c| c == b'\n' || c == b'\r') {
            // NB. A `\r` at the very end may be half of a `\r\n`: wait for the next byte.
            if self.buf[end] == b'\r' && end + 1 == self.buf.len() {
                break;
            }
            let skip = if self.buf[end] == b'\r' && self.buf.get(end + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            let line: Vec<u8> = self.buf.drain(..end + skip).take(end).collect();
            let line = String::from_utf8_lossy(&line);
            if line.is_empty() {
                if self.has_data || self.event.id.is_some() {
                    out.push(std::mem::take(&mut self.event));
                }
                self.event = Event::default();
                self.has_data = false;
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (line.as_ref(), ""),
            };
            match field {
                "data" => {
                    if self.has_data {
                        self.event.data.push('\n');
                    }
                    self.event.data.push_str(value);
                    self.has_data = true;
                }
                "event" => self.event.event = Some(value.to_owned()),
                "id" => self.event.id = Some(value.to_owned()),
                // NB. As the SSE standard says: a value that is not all ASCII digits is ignored.
                "retry" if !value.is_empty() && value.bytes().all(|c| c.is_ascii_digit()) => {
                    if let Ok(ms) = value.parse() {
                        self.retry = Some(std::time::Duration::from_millis(ms));
                    }
                }
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_are_read_across_chunks_and_line_ends() {
        let mut p = Sse::default();
        let mut got = p.push(b"id: 1-0\nretry: 1000\ndata: \n\nevent: message\r\ndata: {\"a\"");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].data, "");
        assert_eq!(got[0].id.as_deref(), Some("1-0"));
        assert_eq!(p.retry(), Some(std::time::Duration::from_millis(1000)));
        got = p.push(b":1}\r\n\r\n: keep-alive\n\ndata: x\ndata: y\r");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].data, r#"{"a":1}"#);
        assert_eq!(got[0].event.as_deref(), Some("message"));
        got = p.push(b"\n\n");
        assert_eq!(got[0].data, "x\ny");
        // A retry that is not all digits leaves the last valid one in place.
        p.push(b"retry: 2s\nretry:\n\n");
        assert_eq!(p.retry(), Some(std::time::Duration::from_millis(1000)));
    }
}
