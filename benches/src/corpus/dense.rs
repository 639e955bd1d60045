//! The second family of the corpus: token-dense JSON, as real MCP traffic is full of it.
//!
//! Numbers (floats, exponents, negatives), JSON-Schema objects nested deep, long `tools/list`
//! results with escapes and non-ASCII text, base64 blobs, batches, and the spaced formatting
//! that Python's `json.dumps` and JavaScript's `JSON.stringify(v, null, 2)` write. Every item
//! is made by code from fixed seeds: the same bytes on every run.

use super::{Item, MODERN_META, legacy_call, line, modern_call, tools_list_result};
use base64::Engine as _;
use std::fmt::Write as _;

/// A small deterministic generator (xorshift64*), so that the items need no data files.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A number as clients write them: integers, negatives, decimals and exponents.
    fn number(&mut self, out: &mut String) {
        let m = self.below(1_000_000) as f64 / 997.0;
        let _ = match self.below(6) {
            0 => write!(out, "{}", self.below(100_000)),
            1 => write!(out, "-{}", self.below(10_000)),
            2 => write!(out, "{m:.6}"),
            3 => write!(out, "-{m:.3}"),
            4 => write!(out, "{:e}", m * 1e21),
            _ => write!(out, "{:E}", -m * 1e-9),
        };
    }
}

/// A modern `tools/call` whose arguments are mostly numbers (about 2 KB).
#[must_use]
pub fn numeric_call() -> Item {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let mut args = String::from(r#"{"points":["#);
    for i in 0..40 {
        if i > 0 {
            args.push(',');
        }
        args.push('[');
        for j in 0..3 {
            if j > 0 {
                args.push(',');
            }
            g.number(&mut args);
        }
        args.push(']');
    }
    args.push_str(r#"],"weights":["#);
    for i in 0..48 {
        if i > 0 {
            args.push(',');
        }
        g.number(&mut args);
    }
    args.push_str(r#"],"offset":-1.5e-3,"scale":6.02214076e23,"epsilon":2.220446049250313e-16,"max":9007199254740991,"seed":-42,"normalize":true}"#);
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":2041,"method":"tools/call","params":{{"name":"fit_curve","arguments":{args},{MODERN_META}}}}}"#
    );
    Item {
        name: "numeric arguments 2 KB",
        frame: line(frame),
        body: false,
    }
}

/// A JSON-Schema-like object nested `depth` levels, each level with a few members beside
/// the one that goes deeper.
fn schema(depth: usize, g: &mut Gen, out: &mut String) {
    let _ = write!(
        out,
        r#"{{"type":"object","title":"Level {depth}","description":"Settings of level {depth}; each field is checked before the next level is read.","default":{{"id":0,"mode":"safe","ratio":0.5}},"properties":{{"id":{{"type":"integer","minimum":{},"maximum":{}}},"mode":{{"type":"string","enum":["fast","safe","off"]}},"ratio":{{"type":"number","exclusiveMinimum":0,"multipleOf":0.25}}"#,
        g.below(10),
        1000 + g.below(9000)
    );
    if depth > 1 {
        out.push_str(r#","child":"#);
        schema(depth - 1, g, out);
    }
    out.push_str(r#"},"required":["id","mode"],"additionalProperties":false}"#);
}

/// A `tools/call` whose argument is a schema nested about 40 deep (about 9 KB).
#[must_use]
pub fn deep_schema_call() -> Item {
    let mut g = Gen(0xd1b5_4a32_d192_ed03);
    let mut s = String::new();
    // NB. Each schema level opens two containers (the level and its `properties`).
    schema(20, &mut g, &mut s);
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":"deep-7","method":"tools/call","params":{{"name":"validate","arguments":{{"schema":{s},"strict":true}},{MODERN_META}}}}}"#
    );
    Item {
        name: "deep schema 9 KB",
        frame: line(frame),
        body: false,
    }
}

/// A `tools/list` result of about 64 KB whose descriptions have escapes and non-ASCII text,
/// and whose schemas have enums, bounds and nested arrays of objects.
#[must_use]
pub fn tools_list_escaped() -> Item {
    let mut g = Gen(0x2545_f491_4f6c_dd1d);
    let words = [
        "r\u{e9}sum\u{e9}",
        "na\u{ef}ve",
        "\u{fc}ber",
        "\u{6f22}\u{5b57}",
        "\u{43f}\u{440}\u{438}\u{432}\u{435}\u{442}",
        "caf\\u00e9",
        "\\\"quoted\\\"",
        "tab\\tseparated",
        "line\\nbreak",
        "back\\\\slash",
        "\u{1F680}",
        "plain",
    ];
    let mut tools = Vec::new();
    let mut size = 0;
    let mut i = 0;
    while size < 64_000 {
        let mut desc = String::new();
        for k in 0..12 {
            if k > 0 {
                desc.push(' ');
            }
            desc.push_str(words[g.below(words.len() as u64) as usize]);
        }
        let t = format!(
            r#"{{"name":"tool_{i:03}","title":"Outil n°{i}","description":"{desc}","inputSchema":{{"type":"object","properties":{{"lang":{{"type":"string","enum":["fr","de","ja","ru","en"],"default":"en"}},"limit":{{"type":"integer","minimum":1,"maximum":{},"default":{}}},"threshold":{{"type":"number","minimum":-1.0,"maximum":1.0,"default":0.{}}},"filters":{{"type":"array","items":{{"type":"object","properties":{{"field":{{"type":"string"}},"op":{{"type":"string","enum":["=","<",">","~"]}},"value":{{}}}},"required":["field","op"]}}}}}},"required":["lang"]}},"outputSchema":{{"type":"object","properties":{{"count":{{"type":"integer"}},"items":{{"type":"array"}}}}}},"annotations":{{"readOnlyHint":{},"openWorldHint":false}}}}"#,
            100 + g.below(900),
            1 + g.below(99),
            g.below(100),
            i % 3 == 0
        );
        size += t.len() + 1;
        tools.push(t);
        i += 1;
    }
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":8,"result":{{"tools":[{}],"nextCursor":"c2hhcmQtMg=="}}}}"#,
        tools.join(",")
    );
    Item {
        name: "tools/list 64 KB, escapes, non-ASCII",
        frame: line(frame),
        body: false,
    }
}

/// A tool result with a 256 KiB image, base64.
#[must_use]
pub fn base64_blob() -> Item {
    let mut g = Gen(0x0bad_cafe_f00d_d00d);
    let bytes: Vec<u8> = (0..192 * 1024).map(|_| g.next() as u8).collect();
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":31,"result":{{"content":[{{"type":"image","data":"{data}","mimeType":"image/png"}}],"isError":false}}}}"#
    );
    Item {
        name: "image 256 KiB base64",
        frame: line(frame),
        body: false,
    }
}

/// A batch of 8 legacy calls with small numeric arguments (the 2025-03-26 batch form).
#[must_use]
pub fn batch() -> Item {
    let mut g = Gen(0x1234_5678_9abc_def1);
    let calls: Vec<String> = (0..8)
        .map(|i| {
            let mut args = String::new();
            g.number(&mut args);
            args.push(',');
            g.number(&mut args);
            format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"add","arguments":{{"values":[{args}],"round":{}}}}}}}"#,
                100 + i,
                i % 4
            )
        })
        .collect();
    Item {
        name: "batch of 8 calls",
        frame: line(format!("[{}]", calls.join(","))),
        body: false,
    }
}

/// Compact JSON as Python's `json.dumps` writes it by default: `", "` and `": "`.
#[must_use]
pub fn spaced(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 9 / 8);
    let mut strings = Strings::default();
    for c in compact.chars() {
        out.push(c);
        if !strings.within(c) && matches!(c, ',' | ':') {
            out.push(' ');
        }
    }
    out
}

/// Where a walk over JSON text is: inside a string or not.
#[derive(Default)]
struct Strings {
    inside: bool,
    escaped: bool,
}

impl Strings {
    /// Takes the next character: true when it belongs to a string (its quotes included).
    fn within(&mut self, c: char) -> bool {
        if self.inside {
            if self.escaped {
                self.escaped = false;
            } else if c == '\\' {
                self.escaped = true;
            } else if c == '"' {
                self.inside = false;
            }
            return true;
        }
        self.inside = c == '"';
        self.inside
    }
}

/// Compact JSON as `JSON.stringify(v, null, 2)` writes it: a line per member or element,
/// indented two spaces a level, `": "`, empty containers kept as `{}` and `[]`.
#[must_use]
pub fn indented(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let mut strings = Strings::default();
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        if strings.within(c) {
            out.push(c);
            continue;
        }
        match c {
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    out.push(close);
                    chars.next();
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            _ => out.push(c),
        }
    }
    out
}

fn reformatted(item: &Item, name: &'static str, how: fn(&str) -> String, body: bool) -> Item {
    let compact = std::str::from_utf8(super::super::baseline::line(&item.frame))
        .unwrap_or_default()
        .to_owned();
    Item {
        name,
        frame: line(how(&compact)),
        body,
    }
}

/// The second family, smallest first.
#[must_use]
pub fn dense() -> Vec<Item> {
    vec![
        reformatted(
            &legacy_call(),
            "legacy tools/call, json.dumps spacing",
            spaced,
            false,
        ),
        reformatted(
            &modern_call(),
            "modern tools/call, json.dumps spacing",
            spaced,
            false,
        ),
        reformatted(
            &modern_call(),
            "modern tools/call, JSON.stringify 2-space (HTTP body)",
            indented,
            true,
        ),
        batch(),
        numeric_call(),
        reformatted(
            &numeric_call(),
            "numeric arguments, json.dumps spacing",
            spaced,
            false,
        ),
        deep_schema_call(),
        tools_list_escaped(),
        reformatted(
            &tools_list_result(),
            "tools/list result, JSON.stringify 2-space (HTTP body)",
            indented,
            true,
        ),
        base64_blob(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(item: &Item) -> serde_json::Value {
        let body = &item.frame[..item.frame.len() - 1];
        assert_eq!(item.frame.last(), Some(&b'\n'), "{}", item.name);
        assert_eq!(body.contains(&b'\n'), item.body, "{}", item.name);
        serde_json::from_slice(body).unwrap_or_else(|e| panic!("{}: {e}", item.name))
    }

    #[test]
    fn every_dense_item_is_valid_json_of_its_size_and_shape() {
        let sizes = [
            (150, 260),
            (300, 420),
            (400, 1200),
            (800, 1600),
            (1800, 2600),
            (2000, 2900),
            (8000, 11_000),
            (64_000, 70_000),
            (60_000, 90_000),
            (256 * 1024, 256 * 1024 + 200),
        ];
        let items = dense();
        assert_eq!(items.len(), sizes.len());
        for (item, (lo, hi)) in items.iter().zip(sizes) {
            value(item);
            let n = item.frame.len();
            assert!((lo..hi).contains(&n), "{}: {n} bytes", item.name);
        }
        // The reformatted items mean what their compact forms mean.
        assert_eq!(value(&items[0]), value(&legacy_call()));
        assert_eq!(value(&items[1]), value(&modern_call()));
        assert_eq!(value(&items[2]), value(&modern_call()));
        assert_eq!(value(&items[5]), value(&numeric_call()));
        assert_eq!(value(&items[8]), value(&tools_list_result()));
        assert!(items[0].frame.windows(2).any(|w| w == b", "));
        assert!(items[2].frame.starts_with(b"{\n  \"jsonrpc\": \"2.0\",\n"));
    }

    #[test]
    fn the_shapes_are_what_their_names_say() {
        let deep = value(&deep_schema_call());
        let mut depth = 0;
        let mut v = &deep["params"]["arguments"]["schema"];
        while let Some(next) = v.get("properties").and_then(|p| p.get("child")) {
            depth += 2;
            v = next;
        }
        assert!(depth >= 38, "{depth} levels");
        let nums = value(&numeric_call());
        let text = String::from_utf8(numeric_call().frame).unwrap();
        assert!(text.contains("e2") || text.contains("e1"), "exponents");
        assert!(text.contains("E-"), "negative exponents");
        assert_eq!(
            nums["params"]["arguments"]["points"]
                .as_array()
                .unwrap()
                .len(),
            40
        );
        let list = String::from_utf8(tools_list_escaped().frame).unwrap();
        assert!(list.contains("\\u00e9") && list.contains("\\\"") && list.contains('\u{6f22}'));
        let blob = value(&base64_blob());
        let data = blob["result"]["content"][0]["data"].as_str().unwrap();
        assert_eq!(
            base64::engine::general_purpose::STANDARD
                .decode(data)
                .unwrap()
                .len(),
            192 * 1024
        );
        assert_eq!(value(&batch()).as_array().unwrap().len(), 8);
        // The same bytes every time.
        assert_eq!(dense()[4].frame, numeric_call().frame);
    }
}
