//! The lifecycle: how a connection settles its revision (`decisions.md`, "Client",
//! lifecycle modes), and what it learns of the server on the way.

use super::{Client, Want, lock};
use crate::core::{Probe, probe_outcome};
use crate::error::Error;
use crate::result::SERVER_INFO;
use janus_codec::{ProtocolVersion, RawJson};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// How long the `Auto` probe waits for `server/discover` before it falls back.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// How the client settles the revision with a server (`decisions.md`, "Client").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// The `initialize` handshake, offering 2025-11-25 (the default).
    #[default]
    Legacy,
    /// 2026-07-28, pinned: no negotiation traffic.
    Modern,
    /// `server/discover` first; modern when it answers so, else the handshake.
    Auto,
}

impl Mode {
    /// Reads a mode's name (`legacy`, `modern`, `auto`).
    ///
    /// # Errors
    ///
    /// Any other name: a configuration error, never a silent default.
    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "legacy" => Ok(Self::Legacy),
            "modern" => Ok(Self::Modern),
            "auto" => Ok(Self::Auto),
            other => Err(Error::Config(format!(
                "unknown protocol mode {other:?} (legacy, modern or auto)"
            ))),
        }
    }
}

/// What the lifecycle settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Negotiated {
    /// The revision requests are made in.
    pub version: ProtocolVersion,
    /// The server's `serverInfo`, compact JSON, when it told it.
    pub server_info: Option<String>,
    /// The server's capabilities, compact JSON, when it told them.
    pub capabilities: Option<String>,
    /// The server's instructions.
    pub instructions: Option<String>,
}

/// The outcomes of mode `Auto`, remembered per server (its command line or address), so a
/// second connection to the same server skips the probe.
#[derive(Debug, Clone, Default)]
pub struct AutoCache(Arc<Mutex<HashMap<String, Probe>>>);

impl AutoCache {
    /// The cache every connection uses unless given another.
    #[must_use]
    pub fn global() -> Self {
        static GLOBAL: OnceLock<AutoCache> = OnceLock::new();
        GLOBAL.get_or_init(Self::default).clone()
    }

    fn get(&self, key: &str) -> Option<Probe> {
        lock(&self.0).get(key).copied()
    }

    fn put(&self, key: String, p: Probe) {
        lock(&self.0).insert(key, p);
    }

    /// True when an outcome is remembered for `key`.
    #[must_use]
    pub fn knows(&self, key: &str) -> bool {
        lock(&self.0).contains_key(key)
    }
}

impl Client {
    pub(super) async fn settle(
        &self,
        mode: Mode,
        key: Option<String>,
        cache: &AutoCache,
    ) -> Result<Negotiated, Error> {
        match mode {
            Mode::Legacy => self.initialize().await,
            Mode::Modern => Ok(Negotiated {
                version: ProtocolVersion::V2026_07_28,
                server_info: None,
                capabilities: None,
                instructions: None,
            }),
            Mode::Auto => {
                if let Some(p) = key.as_deref().and_then(|k| cache.get(k)) {
                    return match p {
                        Probe::Modern(v) => Ok(Negotiated {
                            version: v,
                            server_info: None,
                            capabilities: None,
                            instructions: None,
                        }),
                        Probe::Legacy => self.initialize().await,
                    };
                }
                let (probe, found) = self.probe().await?;
                if let Some(k) = key {
                    cache.put(k, probe);
                }
                match (probe, found) {
                    (Probe::Modern(_), Some(n)) => Ok(n),
                    (Probe::Modern(v), None) => Ok(Negotiated {
                        version: v,
                        server_info: None,
                        capabilities: None,
                        instructions: None,
                    }),
                    (Probe::Legacy, _) => self.initialize().await,
                }
            }
        }
    }

    /// `server/discover` with the 2026-07-28 envelope: what it says of the server's era,
    /// and what the server told of itself when it answered.
    async fn probe(&self) -> Result<(Probe, Option<Negotiated>), Error> {
        let modern = ProtocolVersion::V2026_07_28;
        let sent = self
            .raw_request(
                "server/discover",
                &[],
                Some(modern),
                PROBE_TIMEOUT,
                None,
                Want::Raw,
            )
            .await;
        match sent {
            Ok(reply) => {
                let r = reply.result();
                let probe = probe_outcome(Ok(r)).map_err(Error::Rejected)?;
                let found = match probe {
                    Probe::Modern(v) => Some(described(r, v, false)),
                    Probe::Legacy => None,
                };
                Ok((probe, found))
            }
            Err(Error::Rejected(rej)) => {
                Ok((probe_outcome(Err(&rej)).map_err(Error::Rejected)?, None))
            }
            // NB. Over HTTP, a status without a modern JSON-RPC error is a legacy server.
            Err(Error::Timeout(_) | Error::Status(400 | 404 | 405, _)) => Ok((Probe::Legacy, None)),
            Err(e) => Err(e),
        }
    }

    /// The handshake, offering 2025-11-25; any handshake revision the server answers is
    /// taken, another one is an error.
    async fn initialize(&self) -> Result<Negotiated, Error> {
        let identity = lock(&self.inner.core).identity().clone();
        let mut m = String::new();
        m.push_str(r#""protocolVersion":"2025-11-25","capabilities":"#);
        m.push_str(&identity.capabilities);
        m.push_str(r#","clientInfo":"#);
        m.push_str(&identity.info);
        let reply = self
            .raw_request("initialize", &[&m], None, self.timeout, None, Want::Raw)
            .await?;
        let r = reply.result();
        let offered = r.get("protocolVersion").and_then(RawJson::as_string);
        let version = offered
            .as_deref()
            .and_then(ProtocolVersion::from_wire)
            .filter(|v| v.is_handshake())
            .ok_or_else(|| {
                Error::Protocol(format!(
                    "the server answered initialize with revision {}, which this client does not speak",
                    offered.as_deref().unwrap_or("(none)")
                ))
            })?;
        let n = described(r, version, true);
        let line = lock(&self.inner.core).notification("notifications/initialized", "");
        let _ = self.inner.out.send(line);
        // NB. Only a server that declares `logging` is asked for its log messages.
        let logs = n
            .capabilities
            .as_deref()
            .and_then(|c| janus_codec::RawJson::parse(c).ok())
            .is_some_and(|c| c.get("logging").is_some());
        if let Some(level) = identity.log_level.as_deref().filter(|_| logs) {
            let mut m = bytes::BytesMut::new();
            m.extend_from_slice(br#""level":"#);
            janus_codec::encode::write_str(&mut m, level);
            let m = String::from_utf8_lossy(&m).into_owned();
            // NB. A server without logging refuses it: the session goes on without logs.
            if let Err(e) = self
                .raw_request(
                    "logging/setLevel",
                    &[&m],
                    None,
                    self.timeout,
                    None,
                    Want::Raw,
                )
                .await
            {
                tracing::warn!("logging/setLevel {level}: {e}");
            }
        }
        Ok(n)
    }
}

/// What a discover or initialize result tells of the server.
fn described(r: RawJson<'_>, version: ProtocolVersion, handshake: bool) -> Negotiated {
    let [info, caps, instructions, meta] =
        r.get_many(["serverInfo", "capabilities", "instructions", "_meta"]);
    let info = if handshake {
        info
    } else {
        meta.and_then(|m| m.get(SERVER_INFO))
    };
    Negotiated {
        version,
        server_info: info.map(|i| crate::json::compact(i.as_str())),
        capabilities: caps.map(|c| crate::json::compact(c.as_str())),
        instructions: instructions
            .and_then(RawJson::as_string)
            .map(std::borrow::Cow::into_owned),
    }
}
