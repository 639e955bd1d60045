//! Server-sent events, parsed from the chunks of a response body as they come.

/// One SSE event.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Event {
    pub(crate) event: Option<String>,
    pub(crate) data: String,
    pub(crate) id: Option<String>,
}

/// An SSE parser over chunks as they come (`\n`, `\r\n` or `\r` line ends; comments
/// skipped; the last `retry` kept, as the stream's reconnection time). An event (or a line)
/// longer than its cap ends the stream's reading ([`Sse::overflowed`]).
#[derive(Debug)]
pub(crate) struct Sse {
    buf: Vec<u8>,
    /// Where the line being read starts in `buf`, and how far it was searched for its end
    /// (so that a long line coming in many chunks is searched once, not once a chunk).
    start: usize,
    searched: usize,
    event: Event,
    has_data: bool,
    retry: Option<std::time::Duration>,
    max: usize,
    overflowed: bool,
}

impl Default for Sse {
    fn default() -> Self {
        Self::with_max(janus_codec::DEFAULT_MAX_FRAME_LEN)
    }
}

impl Sse {
    /// A parser whose events (their data) and lines may take `max` bytes.
    pub(crate) fn with_max(max: usize) -> Self {
        Self {
            buf: Vec::new(),
            start: 0,
            searched: 0,
            event: Event::default(),
            has_data: false,
            retry: None,
            max,
            overflowed: false,
        }
    }

    /// The reconnection time the stream set with its last valid `retry` field.
    pub(crate) const fn retry(&self) -> Option<std::time::Duration> {
        self.retry
    }

    /// True once an event or a line went past the cap: nothing more is read.
    pub(crate) const fn overflowed(&self) -> bool {
        self.overflowed
    }

    pub(crate) fn push(&mut self, chunk: &[u8]) -> Vec<Event> {
        let mut out = Vec::new();
        if self.overflowed {
            return out;
        }
        self.buf.extend_from_slice(chunk);
        loop {
            let from = self.start.max(self.searched);
            let Some(at) = memchr::memchr2(b'\n', b'\r', &self.buf[from..]) else {
                self.searched = self.buf.len();
                if self.buf.len() - self.start > self.max {
                    self.overflow();
                }
                break;
            };
            let end = from + at;
            // NB. A `\r` at the very end may be half of a `\r\n`: wait for the next byte.
            if self.buf[end] == b'\r' && end + 1 == self.buf.len() {
                self.searched = end;
                break;
            }
            let skip = if self.buf[end] == b'\r' && self.buf.get(end + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            let line = String::from_utf8_lossy(&self.buf[self.start..end]).into_owned();
            self.start = end + skip;
            self.searched = self.start;
            if self.take_line(&line, &mut out) {
                break;
            }
        }
        // NB. What was read goes, once it is most of the buffer (not at every line).
        if self.start > 0 && self.start * 2 >= self.buf.len() {
            self.buf.drain(..self.start);
            self.searched -= self.start.min(self.searched);
            self.start = 0;
        }
        out
    }

    fn overflow(&mut self) {
        self.overflowed = true;
        self.buf = Vec::new();
        self.start = 0;
        self.searched = 0;
        self.event = Event::default();
    }

    /// Reads one line of the stream; true when it overflowed the cap.
    fn take_line(&mut self, line: &str, out: &mut Vec<Event>) -> bool {
        if line.is_empty() {
            if self.has_data || self.event.id.is_some() {
                out.push(std::mem::take(&mut self.event));
            }
            self.event = Event::default();
            self.has_data = false;
            return false;
        }
        if line.starts_with(':') {
            return false;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.event.data.len() + value.len() >= self.max {
                    self.overflow();
                    return true;
                }
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
        false
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

    #[test]
    fn a_long_event_in_many_chunks_is_read_whole_and_one_past_the_cap_ends_the_reading() {
        let mut p = Sse::with_max(10_000);
        let body = "x".repeat(9_000);
        let text = format!("data: {body}\r\n\r\ndata: y\n\n");
        let mut got = Vec::new();
        for chunk in text.as_bytes().chunks(7) {
            got.extend(p.push(chunk));
        }
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].data, body);
        assert_eq!(got[1].data, "y");
        assert!(!p.overflowed());
        // A line past the cap, before its end comes.
        let mut p = Sse::with_max(10_000);
        for chunk in "data: "
            .bytes()
            .chain(std::iter::repeat_n(b'x', 20_000))
            .collect::<Vec<_>>()
            .chunks(1000)
        {
            assert!(p.push(chunk).is_empty());
        }
        assert!(p.overflowed());
        assert!(
            p.push(b"\n\ndata: z\n\n").is_empty(),
            "nothing more is read"
        );
        // An event of many lines, each under the cap, that add up past it.
        let mut p = Sse::with_max(10_000);
        let line = format!("data: {}\n", "x".repeat(4_000));
        let got = p.push(line.repeat(3).as_bytes());
        assert!(got.is_empty());
        assert!(p.overflowed());
    }
}
