//! `Connection` in memory: era detection and version negotiation (`decisions.md`, "Era
//! detection", "Versions").

use janus_server_core::codec::{Era, ProtocolVersion};
use serde_json::json;

mod support;
use support::*;

// ------------------------------------------------------------------------------ era detection

#[test]
fn a_fresh_connection_has_no_era() {
    let c = Client::new();
    assert_eq!(c.conn.era(), None);
    assert_eq!(c.conn.negotiated(), None);
}

#[test]
fn notifications_before_the_first_request_are_dropped_and_decide_nothing() {
    let mut c = Client::new();
    c.silent(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    c.silent(&format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized","params":{{"_meta":{ENV}}}}}"#
    ));
    // Even a cancel is dropped: there is nothing it could name yet.
    c.silent(&cancel("1"));
    c.silent(r#"{"jsonrpc":"2.0","method":"no/such/notification","params":{}}"#);
    assert_eq!(c.conn.era(), None);
    let r = c.answer(&initialize(0, "2025-06-18"));
    assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(c.conn.era(), Some(Era::Legacy));
}

#[test]
fn client_responses_are_ignored_and_decide_nothing() {
    let mut c = Client::new();
    c.silent(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#);
    c.silent(r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}"#);
    c.silent(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"no"}}"#);
    assert_eq!(c.conn.era(), None);
    let r = c.answer(&modern(1, "tools/list", ""));
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(c.conn.era(), Some(Era::Modern));
    c.silent(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#);

    let mut c = Client::legacy("2025-06-18");
    c.silent(r#"{"jsonrpc":"2.0","id":9,"result":{"content":[]}}"#);
    c.silent(r#"{"jsonrpc":"2.0","id":9,"error":{"code":1,"message":"x"}}"#);
    assert_eq!(c.answer(&legacy(1, "ping", ""))["result"], json!({}));
}

#[test]
fn the_first_modern_request_opens_a_modern_connection() {
    let mut c = Client::new();
    let r = c.answer(&modern(
        1,
        "tools/call",
        r#""name":"echo","arguments":{"text":"hi"},"#,
    ));
    assert_eq!(r["result"]["content"][0]["text"], "hi");
    assert_eq!(c.conn.era(), Some(Era::Modern));
    assert_eq!(c.conn.negotiated(), None);
}

#[test]
fn the_first_legacy_request_opens_a_legacy_connection_negotiated_by_initialize() {
    let mut c = Client::new();
    assert_eq!(c.answer(&legacy(1, "ping", ""))["result"], json!({}));
    assert_eq!(c.conn.era(), Some(Era::Legacy));
    assert_eq!(c.conn.negotiated(), None);
    c.initialize("2025-03-26");
    assert_eq!(c.conn.era(), Some(Era::Legacy));
    assert_eq!(c.conn.negotiated(), Some(ProtocolVersion::V2025_03_26));
}

#[test]
fn the_protocol_version_key_alone_is_the_modern_signal() {
    // Only the version key: modern, so the missing capabilities are a -32602 (not the legacy
    // refusal before initialize).
    let mut c = Client::new();
    let r = c.answer(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
    );
    assert_eq!(code(&r), -32602, "{r}");
    assert_eq!(c.conn.era(), Some(Era::Modern));

    // Written with an escaped slash, the key is the same key.
    let mut c = Client::new();
    let r = c.answer(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28","io.modelcontextprotocol\/clientCapabilities":{}}}}"#,
    );
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(c.conn.era(), Some(Era::Modern));

    // No version key: legacy, whatever else `_meta` holds or wherever the keys stand.
    for params in [
        r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}"#,
        r#"{"_meta":{"progressToken":1}}"#,
        r#"{"_meta":["io.modelcontextprotocol/protocolVersion"]}"#,
        r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#,
        r#"[{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}]"#,
    ] {
        let mut c = Client::new();
        let r = c.answer(&legacy(1, "tools/list", params));
        assert_eq!(code(&r), -32600, "{params}: {r}");
        assert_eq!(r["error"]["message"], "Invalid request parameters", "{r}");
        assert_eq!(c.conn.era(), Some(Era::Legacy), "{params}");
    }
}

#[test]
fn an_initialize_with_an_envelope_opens_legacy_and_is_served_plain() {
    let mut c = Client::new();
    let r = c.answer(&format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-03-26","capabilities":{{}},"_meta":{ENV}}}}}"#
    ));
    assert_eq!(r["result"]["protocolVersion"], "2025-03-26", "{r}");
    assert!(r["result"].get("resultType").is_none(), "{r}");
    assert!(r["result"].get("_meta").is_none(), "{r}");
    assert_eq!(c.conn.era(), Some(Era::Legacy));
    assert_eq!(c.conn.negotiated(), Some(ProtocolVersion::V2025_03_26));
}

#[test]
fn the_era_is_locked() {
    let mut c = Client::legacy("2025-06-18");
    let r = c.answer(&modern(1, "server/discover", ""));
    assert_eq!(code(&r), -32600, "{r}");
    assert_eq!(c.conn.era(), Some(Era::Legacy));
    assert_eq!(c.conn.negotiated(), Some(ProtocolVersion::V2025_06_18));

    let mut c = Client::modern();
    let r = c.answer(&initialize(1, "2025-06-18"));
    assert_eq!(code(&r), -32022, "{r}");
    assert_eq!(c.conn.era(), Some(Era::Modern));
    assert_eq!(c.conn.negotiated(), None);
}

// ---------------------------------------------------------------------------------- versions

#[test]
fn each_handshake_version_is_echoed_and_negotiated() {
    for (v, known) in HANDSHAKE.iter().zip(ProtocolVersion::HANDSHAKE) {
        let mut c = Client::new();
        let r = c.answer(&initialize(0, v));
        assert_eq!(r["result"]["protocolVersion"], *v, "{r}");
        assert_eq!(c.conn.negotiated(), Some(known));
    }
}

#[test]
fn any_other_version_gets_the_latest_handshake_version() {
    // Versions are an enumerated set: no date comparison picks a neighbour.
    for v in [
        r#""2026-07-28""#,
        r#""garbage""#,
        r#""""#,
        r#""2025-05-01""#,
        r#""2025-12-31""#,
        r#""2024-01-01""#,
        "20250618",
        "null",
    ] {
        let mut c = Client::new();
        let r = c.answer(&format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":{v},"capabilities":{{}}}}}}"#
        ));
        assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "{v}: {r}");
        assert_eq!(c.conn.negotiated(), Some(ProtocolVersion::LATEST_HANDSHAKE));
    }
    let mut c = Client::new();
    let r = c.answer(r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#);
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "{r}");
}
