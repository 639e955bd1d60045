//! `Connection` in memory: tools through the tool API: pagination, content types, errors, the
//! handler context, progress.

use janus_server_core::demo;

mod support;
use support::*;

// ------------------------------------------------------------------------------ pagination

/// Follows `nextCursor` from the first page; returns the tool names page by page.
fn pages(c: &mut Client, request: impl Fn(i64, Option<&str>) -> String) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    for id in 1..10 {
        let r = c.answer(&request(id, cursor.as_deref()));
        let names = r["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("a page: {r}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect();
        pages.push(names);
        match r["result"].get("nextCursor") {
            Some(next) => cursor = Some(next.as_str().expect("a string cursor").to_owned()),
            None => return pages,
        }
    }
    panic!("nextCursor never ends: {pages:?}");
}

#[test]
fn tools_list_pages_chain_through_every_tool() {
    let server = || demo::builder().page_size(1).build().unwrap();
    let want: Vec<Vec<String>> = ["echo", "add", "fail", "sleep"]
        .iter()
        .map(|n| vec![(*n).to_owned()])
        .collect();

    let mut c = Client::with(server());
    let got = pages(&mut c, |id, cursor| {
        let member = cursor.map_or(String::new(), |c| format!(r#""cursor":"{c}","#));
        modern(id, "tools/list", &member)
    });
    assert_eq!(got, want);

    let mut c = Client::with(server());
    c.initialize("2025-11-25");
    let got = pages(&mut c, |id, cursor| {
        let params = cursor.map_or(String::new(), |c| format!(r#"{{"cursor":"{c}"}}"#));
        legacy(id, "tools/list", &params)
    });
    assert_eq!(got, want);
}

#[test]
fn an_invalid_cursor_is_invalid_params() {
    let mut c = Client::with(demo::builder().page_size(1).build().unwrap());
    let first = c.answer(&modern(1, "tools/list", ""));
    let next = first["result"]["nextCursor"]
        .as_str()
        .expect("a cursor")
        .to_owned();
    for cursor in [
        r#""not-a-cursor""#.to_owned(),
        r#""""#.to_owned(),
        "7".to_owned(),
        "{}".to_owned(),
        format!(r#""{next}0""#),
        format!(r#""x{next}""#),
    ] {
        let r = c.answer(&modern(2, "tools/list", &format!(r#""cursor":{cursor},"#)));
        assert_eq!(code(&r), -32602, "{cursor}: {r}");
    }
    // The last cursor of this server, where there are fewer pages, is past the end.
    let mut cursor = next;
    loop {
        let r = c.answer(&modern(
            3,
            "tools/list",
            &format!(r#""cursor":"{cursor}","#),
        ));
        match r["result"].get("nextCursor") {
            Some(n) => cursor = n.as_str().unwrap().to_owned(),
            None => break,
        }
    }
    let mut fewer = Client::with(demo::builder().page_size(2).build().unwrap());
    let r = fewer.answer(&modern(
        4,
        "tools/list",
        &format!(r#""cursor":"{cursor}","#),
    ));
    assert_eq!(code(&r), -32602, "{cursor}: {r}");
    // The same on a legacy connection.
    let mut c = Client::with(demo::builder().page_size(1).build().unwrap());
    c.initialize("2025-06-18");
    let r = c.answer(&legacy(1, "tools/list", r#"{"cursor":"not-a-cursor"}"#));
    assert_eq!(code(&r), -32602, "{r}");
}
