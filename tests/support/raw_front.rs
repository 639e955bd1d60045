//! A raw 2026-07-28 stdio client of `janus bridge` (one line in, its answer out), for the
//! tests that read the bridge's answers member by member.

use std::time::Duration;

/// A raw 2026-07-28 stdio client of `janus bridge --mode legacy -- janus serve --tools
/// conformance`, with the tasks extension and elicitation declared.
pub(crate) struct RawFront {
    pub(crate) child: std::process::Child,
    out: std::io::BufReader<std::process::ChildStdout>,
}

impl RawFront {
    const META: &'static str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}"#;

    pub(crate) fn start() -> Self {
        Self::start_with(&[super::janus_bin(), "serve", "--tools", "conformance"])
    }

    /// The bridge in front of the backend command `backend`.
    pub(crate) fn start_with(backend: &[&str]) -> Self {
        let mut child = std::process::Command::new(super::janus_bin())
            .args(["bridge", "--mode", "legacy", "--"])
            .args(backend)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        Self { child, out }
    }

    /// Sends request `id` of `method` with params members `members`; its answer.
    pub(crate) fn ask(&mut self, id: u32, method: &str, members: &str) -> serde_json::Value {
        self.ask_with(id, method, members, Self::META)
    }

    /// As [`RawFront::ask`], with the `_meta` member `meta` (its text).
    pub(crate) fn ask_with(
        &mut self,
        id: u32,
        method: &str,
        members: &str,
        meta: &str,
    ) -> serde_json::Value {
        use std::io::{BufRead as _, Write as _};
        let sep = if members.is_empty() { "" } else { "," };
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{members}{sep}{meta}}}}}"#
        );
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        loop {
            let mut l = String::new();
            assert!(self.out.read_line(&mut l).unwrap() > 0, "the bridge ended");
            let v: serde_json::Value = serde_json::from_str(&l).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }

    /// Polls `tasks/get` of `task` until its status is not `working`.
    pub(crate) fn settled(&mut self, id: &mut u32, task: &str) -> serde_json::Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            *id += 1;
            let got = self.ask(*id, "tasks/get", &format!(r#""taskId":"{task}""#));
            if got["result"]["status"] != "working" {
                return got["result"].clone();
            }
            assert!(std::time::Instant::now() < deadline, "never settled: {got}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for RawFront {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
