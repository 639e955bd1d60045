//! Input rounds of the 2026-07-28 era: an `input_required` result answered by the
//! callbacks, and the request made again with `inputResponses` and its `requestState`.

use super::{CallOptions, Client, Reply, Want};
use crate::error::Error;
use crate::input::Callbacks;
use crate::result::ResultType;
use bytes::{BufMut, BytesMut};
use janus_codec::{RawJson, encode};

impl Client {
    /// A request of the 2026-07-28 era answered `input_required`: its input is asked of the
    /// callbacks and the request made again with the answers and the state, up to the bound
    /// on rounds. In the handshake era the server asks with requests of its own instead,
    /// which the callbacks answer as they come.
    pub(super) async fn request_with_input(
        &self,
        method: &str,
        members: &[&str],
        opts: CallOptions,
        want: Want,
    ) -> Result<Reply, Error> {
        let CallOptions {
            timeout,
            progress,
            cancel,
            tasks,
            callbacks,
            forwarded,
        } = opts;
        let answerer = callbacks.as_ref().unwrap_or(&self.inner.callbacks);
        let timeout = timeout.unwrap_or(self.timeout);
        let mut retry = String::new();
        for _ in 0..=self.max_rounds {
            // The first round's members; a retry's are those and the answers.
            let mut m: Vec<&str> = Vec::new();
            let pieces = if retry.is_empty() {
                members
            } else {
                m.extend_from_slice(members);
                if members.iter().any(|p| !p.is_empty()) {
                    m.push(",");
                }
                m.push(&retry);
                &m
            };
            let o = CallOptions {
                timeout: None,
                progress: progress.clone(),
                cancel: cancel.clone(),
                tasks,
                callbacks: callbacks.clone(),
                forwarded: forwarded.clone(),
            };
            let reply = self
                .raw_request(method, pieces, None, timeout, Some(o), want)
                .await?;
            match reply.kind.check()? {
                ResultType::Complete => return Ok(reply),
                ResultType::Task => {
                    let to = super::tasks::Waiting {
                        cancel,
                        callbacks: answerer,
                        forwarded,
                    };
                    // NB. Boxed, as the answers below: the rarer branches would make every
                    // request's future (moved into its box on each call) several times
                    // larger.
                    return Box::pin(self.await_task(&reply, to)).await;
                }
                _ => {
                    retry = Box::pin(self.answer_inputs(reply.result(), None, answerer)).await?;
                }
            }
        }
        Err(Error::Protocol(format!(
            "the server asked for input more than {} times for one request",
            self.max_rounds
        )))
    }

    /// The answers of `callbacks` to an `input_required` result, as the retry's members. With
    /// `answered`, the keys in it are left out and the ones answered now added (a task asks
    /// what is outstanding until the answers reach it).
    pub(super) async fn answer_inputs(
        &self,
        r: RawJson<'_>,
        mut answered: Option<&mut std::collections::HashSet<String>>,
        callbacks: &Callbacks,
    ) -> Result<String, Error> {
        let [asked, state] = r.get_many(["inputRequests", "requestState"]);
        let state = state.filter(|s| s.is_string());
        let asked = match asked.filter(|a| a.is_object()) {
            Some(a) => a,
            // NB. A round that asks nothing but carries a state (the server keeps its place
            // with the client) is retried at once, the state echoed.
            None if asked.is_none() && state.is_some() => {
                let s = state.map_or("", |s| s.as_str());
                return Ok(format!(r#""requestState":{s}"#));
            }
            None => {
                return Err(Error::Protocol(
                    "an input_required result without inputRequests".into(),
                ));
            }
        };
        let mut responses = BytesMut::new();
        responses.extend_from_slice(br#""inputResponses":{"#);
        let mut first = true;
        for (key, req) in asked.members() {
            if let Some(done) = answered.as_deref_mut()
                && !done.insert(key.to_string())
            {
                continue;
            }
            let method = req
                .get("method")
                .and_then(RawJson::as_string)
                .ok_or_else(|| Error::Protocol(format!("input request {key} names no method")))?;
            let params = req
                .get("params")
                .map_or_else(|| "{}".to_owned(), |p| p.as_str().to_owned());
            let answer = callbacks.answer(&method, params).await.map_err(|rej| {
                Error::InputRefused(format!(
                    "the client could not answer {method} ({key}): {}",
                    rej.message
                ))
            })?;
            if !RawJson::parse(&answer).is_ok_and(|a| a.is_object()) {
                return Err(Error::Protocol(format!(
                    "the callback for {method} answered something that is not a JSON object"
                )));
            }
            if !first {
                responses.put_u8(b',');
            }
            first = false;
            encode::write_str(&mut responses, &key);
            responses.put_u8(b':');
            responses.extend_from_slice(answer.as_bytes());
        }
        responses.put_u8(b'}');
        if let Some(s) = state {
            responses.extend_from_slice(br#","requestState":"#);
            responses.extend_from_slice(s.as_str().as_bytes());
        }
        Ok(String::from_utf8_lossy(&responses).into_owned())
    }
}
