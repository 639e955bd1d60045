//! The deterministic MCP corpus: the same bytes on every run and every machine.
//!
//! Each item is one newline-terminated frame, as it travels on stdio (or, for indented JSON,
//! an HTTP body). Two families: [`all`], the first (strings and large texts), and [`dense`],
//! token-dense JSON (numbers, deep schemas, escapes, base64, batches, spaced formatting).

mod dense;

pub use dense::{
    base64_blob, batch, deep_schema_call, dense, indented, numeric_call, spaced, tools_list_escaped,
};

/// A `_meta` envelope of a modern request, as a client library sends it.
const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"janus-bench","version":"1.0.0"}}"#;

/// One benchmark message.
#[derive(Debug, Clone)]
pub struct Item {
    /// A short name for tables.
    pub name: &'static str,
    /// The frame, with its trailing `\n`.
    pub frame: Vec<u8>,
    /// The frame holds line breaks of its own (indented JSON): it can only travel as an HTTP
    /// body, so it is read whole rather than framed by lines.
    pub body: bool,
}

/// A modern `tools/call` of about 300 bytes (envelope in `params._meta`).
#[must_use]
pub fn modern_call() -> Item {
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":1042,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello from the benchmark","n":3}},{MODERN_META}}}}}"#
    );
    Item {
        name: "modern tools/call",
        frame: line(frame),
        body: false,
    }
}

/// A legacy `tools/call` of about 160 bytes (a progress token in `_meta`, no envelope).
#[must_use]
pub fn legacy_call() -> Item {
    let frame = r#"{"jsonrpc":"2.0","id":1042,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello from a legacy client 0123456789"},"_meta":{"progressToken":17}}}"#;
    Item {
        name: "legacy tools/call",
        frame: line(frame.to_owned()),
        body: false,
    }
}

/// A `tools/list` result of about 32 KB: many tools with schemas, annotations and text.
#[must_use]
pub fn tools_list_result() -> Item {
    let mut tools = Vec::new();
    let mut i = 0;
    let mut size = 0;
    while size < 32_000 {
        let t = format!(
            r#"{{"name":"tool_{i:03}","title":"Tool number {i}","description":"Reads the records of shard {i} and returns the ones that match the filter; results are paged and sorted by their key.","inputSchema":{{"type":"object","properties":{{"query":{{"type":"string","description":"A filter expression"}},"limit":{{"type":"integer","minimum":1,"maximum":1000,"default":50}},"cursor":{{"type":["string","null"]}},"tags":{{"type":"array","items":{{"type":"string"}}}}}},"required":["query"],"additionalProperties":false}},"annotations":{{"readOnlyHint":true,"idempotentHint":{},"openWorldHint":false}},"execution":{{"taskSupport":"optional"}}}}"#,
            i % 2 == 0
        );
        size += t.len() + 1;
        tools.push(t);
        i += 1;
    }
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":7,"result":{{"resultType":"complete","tools":[{}],"ttlMs":60000,"cacheScope":"public","_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"janus","version":"0.1.0"}}}}}}}}"#,
        tools.join(",")
    );
    Item {
        name: "tools/list result 32 KB",
        frame: line(frame),
        body: false,
    }
}

/// Text of `len` bytes or a little more, with escapes (`"`, `\`, `\n`, `\t`, `\u` forms) and
/// non-ASCII characters, already escaped as a JSON string body.
fn mixed_text_escaped(len: usize) -> String {
    let pieces = [
        r#"Plain ASCII prose, a line of it. "#,
        r#"Quotes: \"a\" and a back\\slash; "#,
        "Accents: caf\u{e9}, na\u{ef}ve, \u{fc}ber, \u{f1}and\u{fa}. ",
        r"Escaped \u00e9\u00e8 and a tab\tthen a newline\n",
        "CJK \u{6f22}\u{5b57}\u{304b}\u{306a} and emoji \u{1F600}\u{1F680}. ",
        r#"{\"looks\":\"like json\", \"but\": [1,2,3]} inside text. "#,
    ];
    let mut s = String::with_capacity(len + 64);
    let mut i = 0;
    while s.len() < len {
        s.push_str(pieces[i % pieces.len()]);
        i += 1;
    }
    s
}

/// A tool result of 64 KiB text with escapes and non-ASCII characters.
#[must_use]
pub fn large_tool_result() -> Item {
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":"r-64k","result":{{"content":[{{"type":"text","text":"{}"}}],"isError":false}}}}"#,
        mixed_text_escaped(64 * 1024)
    );
    Item {
        name: "tool result 64 KiB",
        frame: line(frame),
        body: false,
    }
}

/// A modern `tools/call` with a 1 MiB text argument and its `_meta` after it.
#[must_use]
pub fn huge_argument() -> Item {
    let text: String = "0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRSTUVWXYZ \\n"
        .chars()
        .cycle()
        .take(1 << 20)
        .collect();
    // Keep the escape whole at the cut.
    let text = text.trim_end_matches('\\');
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}},{MODERN_META}}}}}"#
    );
    Item {
        name: "1 MiB argument + _meta",
        frame: line(frame),
        body: false,
    }
}

/// Every item, smallest first.
#[must_use]
pub fn all() -> Vec<Item> {
    vec![
        legacy_call(),
        modern_call(),
        tools_list_result(),
        large_tool_result(),
        huge_argument(),
    ]
}

/// Both families: [`all`] then [`dense`].
#[must_use]
pub fn everything() -> Vec<Item> {
    let mut v = all();
    v.extend(dense());
    v
}

fn line(mut s: String) -> Vec<u8> {
    s.push('\n');
    s.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_one_valid_json_line_of_its_size() {
        let sizes = [
            (120, 200),
            (250, 350),
            (30_000, 40_000),
            (65_536, 70_000),
            (1 << 20, (1 << 20) + 400),
        ];
        for (item, (lo, hi)) in all().iter().zip(sizes) {
            let (body, nl) = item.frame.split_at(item.frame.len() - 1);
            assert_eq!(nl, b"\n");
            assert!(!body.contains(&b'\n'), "{}", item.name);
            let _: serde_json::Value = serde_json::from_slice(body).expect(item.name);
            assert!(
                (lo..hi).contains(&item.frame.len()),
                "{}: {}",
                item.name,
                item.frame.len()
            );
        }
    }
}
