//! Servers described as MCP hosts describe them: a JSON file with `mcpServers` entries,
//! each `command`/`args`/`env` (a child process) or `url`, plus Janus's `protocol` (the
//! lifecycle mode) and `trusted`; for a `url`, `caFile` (a PEM file of a private CA, or an
//! array of them, trusted beside the platform's roots for `https`; a relative path is read
//! from the configuration file's folder) and the authorization fields `clientId`,
//! `clientSecret` and `scopes` (see [`OAuth`](crate::OAuth)). An unknown transport, mode or
//! field type is an error when the file is read, never a silent substitute.
//!
//! ```json
//! {"mcpServers": {
//!   "files": {"command": "npx", "args": ["-y", "some-server"], "env": {"ROOT": "/tmp"},
//!             "protocol": "auto", "trusted": true},
//!   "remote": {"url": "https://example.com/mcp", "protocol": "modern"},
//!   "internal": {"url": "https://mcp.internal:8443/mcp", "caFile": "internal-ca.pem"},
//!   "local": {"type": "tcp", "address": "127.0.0.1:7000"}
//! }}
//! ```

use crate::client::Mode;
use crate::error::Error;
use crate::tls::Tls;
use crate::transport::Command;
use serde_json::{Map, Value};
use std::path::Path;

/// How a configured server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// A child process.
    Stdio(Command),
    /// Newline-delimited JSON-RPC over TCP.
    Tcp(String),
    /// Streamable HTTP (both eras) at a URL, with extra headers.
    Http {
        /// The endpoint.
        url: String,
        /// Headers sent with every request.
        headers: Vec<(String, String)>,
    },
    /// The 2024-11-05 HTTP+SSE transport (a `GET` stream and a POST endpoint).
    Sse {
        /// The stream's URL.
        url: String,
        /// Headers sent with every request.
        headers: Vec<(String, String)>,
    },
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    /// Its name in the file.
    pub name: String,
    /// How it is reached.
    pub reach: Reach,
    /// The lifecycle mode (`protocol`; `legacy` when absent).
    pub mode: Mode,
    /// Whether its hints are trusted (`trusted`; `false` when absent).
    pub trusted: bool,
    /// The CA files its `https` certificate may be signed by (`caFile`; none when absent),
    /// for [`Options::tls`](crate::Options::tls).
    pub tls: Tls,
    /// Its authorization settings (`clientId`, `clientSecret`, `scopes`), for a `url`.
    pub auth: Authorization,
}

/// How the client identifies itself to a server's authorization server, and what it asks
/// for (each absent unless configured).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Authorization {
    /// A pre-registered client id (`clientId`).
    pub client_id: Option<String>,
    /// Its secret (`clientSecret`).
    pub client_secret: Option<String>,
    /// Scopes to ask for (`scopes`, an array, or a space-separated string).
    pub scopes: Vec<String>,
}

impl std::fmt::Debug for Authorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorization")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "(hidden)"),
            )
            .field("scopes", &self.scopes)
            .finish()
    }
}

/// Every server of a configuration file, in the file's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The servers.
    pub servers: Vec<Server>,
}

impl Config {
    /// Reads the file at `path`.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the file, and the entry and field at fault.
    pub fn load(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Config(format!("cannot read {}: {e}", path.display())))?;
        let mut config = Self::parse(&text).map_err(|e| match e {
            Error::Config(m) => Error::Config(format!("{}: {m}", path.display())),
            e => e,
        })?;
        // NB. A relative `caFile` is the file's neighbour, wherever the command runs from.
        let folder = path.parent().unwrap_or_else(|| Path::new(""));
        for s in &mut config.servers {
            for f in &mut s.tls.ca_files {
                if f.is_relative() {
                    *f = folder.join(&*f);
                }
            }
        }
        Ok(config)
    }

    /// Reads a configuration from its text (a relative `caFile` stays as written: relative
    /// to the working directory).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the entry and field at fault.
    pub fn parse(text: &str) -> Result<Self, Error> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| Error::Config(format!("not JSON: {e}")))?;
        let servers = v
            .get("mcpServers")
            .and_then(Value::as_object)
            .ok_or_else(|| Error::Config("no mcpServers object".into()))?;
        let servers = servers
            .iter()
            .map(|(name, entry)| {
                server(name, entry).map_err(|m| Error::Config(format!("server {name:?}: {m}")))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { servers })
    }

    /// The server called `name`.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when there is none, naming those there are.
    pub fn server(&self, name: &str) -> Result<&Server, Error> {
        self.servers.iter().find(|s| s.name == name).ok_or_else(|| {
            let known: Vec<&str> = self.servers.iter().map(|s| s.name.as_str()).collect();
            Error::Config(format!(
                "no server {name:?} (the file has {})",
                known.join(", ")
            ))
        })
    }
}

fn server(name: &str, entry: &Value) -> Result<Server, String> {
    let e = entry.as_object().ok_or("not an object")?;
    let text = |k: &str| -> Result<Option<String>, String> {
        match e.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("{k} must be a string")),
        }
    };
    let mode = match text("protocol")? {
        None => Mode::Legacy,
        Some(m) => Mode::parse(&m).map_err(|e| e.to_string())?,
    };
    let trusted = match e.get("trusted") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("trusted must be true or false".into()),
    };
    let ca_files = match e.get("caFile") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(f)) => vec![f.into()],
        Some(Value::Array(_)) => strings(e.get("caFile"), "caFile")?
            .into_iter()
            .map(Into::into)
            .collect(),
        Some(_) => return Err("caFile must be a string or an array of strings".into()),
    };
    let kind = text("type")?;
    let (command, url, address) = (text("command")?, text("url")?, text("address")?);
    let kind = match (kind.as_deref(), &command, &url, &address) {
        (Some(k), ..) => k.to_owned(),
        (None, Some(_), None, None) => "stdio".into(),
        (None, None, Some(_), None) => "http".into(),
        (None, None, None, Some(_)) => "tcp".into(),
        (None, None, None, None) => return Err("neither command, url nor address".into()),
        (None, ..) => return Err("more than one of command, url and address".into()),
    };
    let reach = match kind.as_str() {
        "stdio" => {
            let program = command.ok_or("type stdio needs a command")?;
            let args = strings(e.get("args"), "args")?;
            let env = match e.get("env") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Object(m)) => pairs(m, "env")?,
                Some(_) => return Err("env must be an object of strings".into()),
            };
            Reach::Stdio(Command {
                program,
                args,
                env,
                cwd: text("cwd")?.map(Into::into),
            })
        }
        "tcp" => Reach::Tcp(address.ok_or("type tcp needs an address")?),
        "http" | "streamable-http" | "streamableHttp" => Reach::Http {
            url: url.ok_or("type http needs a url")?,
            headers: headers(e)?,
        },
        "sse" => Reach::Sse {
            url: url.ok_or("type sse needs a url")?,
            headers: headers(e)?,
        },
        other => {
            return Err(format!(
                "unknown transport type {other:?} (stdio, http, sse or tcp)"
            ));
        }
    };
    if !ca_files.is_empty() && !matches!(reach, Reach::Http { .. } | Reach::Sse { .. }) {
        return Err(format!("caFile is for a url, not for type {kind}"));
    }
    let scopes = match e.get("scopes") {
        Some(Value::String(s)) => s.split_whitespace().map(str::to_owned).collect(),
        v => strings(v, "scopes")?,
    };
    let auth = Authorization {
        client_id: text("clientId")?,
        client_secret: text("clientSecret")?,
        scopes,
    };
    if auth != Authorization::default() && !matches!(reach, Reach::Http { .. }) {
        return Err(format!(
            "clientId, clientSecret and scopes are for an http url, not for type {kind}"
        ));
    }
    Ok(Server {
        name: name.to_owned(),
        reach,
        mode,
        trusted,
        tls: Tls { ca_files },
        auth,
    })
}

fn strings(v: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|s| s.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(|| format!("{what} must be an array of strings")),
        Some(_) => Err(format!("{what} must be an array of strings")),
    }
}

fn pairs(m: &Map<String, Value>, what: &str) -> Result<Vec<(String, String)>, String> {
    m.iter()
        .map(|(k, v)| {
            v.as_str()
                .map(|s| (k.clone(), s.to_owned()))
                .ok_or_else(|| format!("{what}.{k} must be a string"))
        })
        .collect()
}

fn headers(e: &Map<String, Value>) -> Result<Vec<(String, String)>, String> {
    match e.get("headers") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(m)) => pairs(m, "headers"),
        Some(_) => Err("headers must be an object of strings".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_authorization_fields_are_read_for_a_url_and_the_secret_is_never_shown() {
        let c = Config::parse(
            r#"{"mcpServers":{
                "a":{"url":"https://h/mcp","clientId":"cid","clientSecret":"s3cret","scopes":["r","w"]},
                "b":{"url":"https://h/mcp","scopes":"r w"},
                "c":{"url":"https://h/mcp"}}}"#,
        )
        .unwrap();
        let a = &c.server("a").unwrap().auth;
        assert_eq!(a.client_id.as_deref(), Some("cid"));
        assert_eq!(a.client_secret.as_deref(), Some("s3cret"));
        assert_eq!(a.scopes, ["r", "w"]);
        assert_eq!(c.server("b").unwrap().auth.scopes, ["r", "w"]);
        assert_eq!(c.server("c").unwrap().auth, Authorization::default());
        assert!(!format!("{c:?}").contains("s3cret"));
        let e = Config::parse(r#"{"mcpServers":{"x":{"command":"srv","clientId":"cid"}}}"#);
        assert!(e.unwrap_err().to_string().contains("clientId"));
        let e = Config::parse(r#"{"mcpServers":{"x":{"url":"https://h","clientId":7}}}"#);
        assert!(e.unwrap_err().to_string().contains("clientId"));
    }

    #[test]
    fn a_hosts_file_reads_and_every_mistake_is_loud() {
        let c = Config::parse(
            r#"{"mcpServers":{
                "a":{"command":"srv","args":["-x"],"env":{"K":"v"},"protocol":"auto","trusted":true},
                "b":{"url":"http://127.0.0.1:1/mcp","protocol":"modern","headers":{"Authorization":"Bearer t"}},
                "c":{"type":"sse","url":"http://h/sse"},
                "d":{"type":"tcp","address":"127.0.0.1:7"}}}"#,
        )
        .unwrap();
        assert_eq!(c.servers.len(), 4);
        let a = c.server("a").unwrap();
        assert_eq!(a.mode, Mode::Auto);
        assert!(a.trusted);
        assert!(
            matches!(&a.reach, Reach::Stdio(cmd) if cmd.args == ["-x"] && cmd.env == [("K".into(), "v".into())])
        );
        assert!(matches!(c.server("b").unwrap().reach, Reach::Http { .. }));
        assert_eq!(c.server("b").unwrap().mode, Mode::Modern);
        assert!(!c.server("c").unwrap().trusted);
        assert!(c.server("zz").is_err());
        for bad in [
            r#"{"mcpServers":{"x":{"command":"a","protocol":"fast"}}}"#,
            r#"{"mcpServers":{"x":{"type":"websocket","url":"ws://h"}}}"#,
            r#"{"mcpServers":{"x":{"command":"a","trusted":"yes"}}}"#,
            r#"{"mcpServers":{"x":{"command":"a","args":"-x"}}}"#,
            r#"{"mcpServers":{"x":{"command":"a","url":"http://h"}}}"#,
            r#"{"mcpServers":{"x":{}}}"#,
            r#"{"mcpServers":{"x":{"url":"https://h","caFile":7}}}"#,
            r#"{"mcpServers":{"x":{"url":"https://h","caFile":["a",7]}}}"#,
            r#"{"mcpServers":{"x":{"command":"a","caFile":"ca.pem"}}}"#,
            r#"{"servers":{}}"#,
            "not json",
        ] {
            let e = Config::parse(bad).unwrap_err();
            assert!(matches!(e, Error::Config(_)), "{bad}: {e}");
        }
    }

    #[test]
    fn a_url_servers_ca_file_is_read_and_a_relative_one_is_the_configuration_files_neighbour() {
        let c = Config::parse(
            r#"{"mcpServers":{
                "one":{"url":"https://h/mcp","caFile":"ca.pem"},
                "two":{"type":"sse","url":"https://h/sse","caFile":["/etc/a.pem","b.pem"]},
                "none":{"url":"https://h/mcp"}}}"#,
        )
        .unwrap();
        let files = |n: &str| c.server(n).unwrap().tls.ca_files.clone();
        assert_eq!(files("one"), [std::path::PathBuf::from("ca.pem")]);
        assert_eq!(files("two").len(), 2);
        assert!(files("none").is_empty());
        let dir = std::env::temp_dir().join(format!("janus-config-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("servers.json");
        std::fs::write(
            &path,
            r#"{"mcpServers":{"s":{"url":"https://h","caFile":["ca.pem","/etc/x.pem"]}}}"#,
        )
        .unwrap();
        let loaded = Config::load(&path);
        let _ = std::fs::remove_dir_all(&dir);
        let loaded = loaded.unwrap();
        let files = &loaded.server("s").unwrap().tls.ca_files;
        assert_eq!(files[0], dir.join("ca.pem"));
        assert_eq!(files[1], std::path::PathBuf::from("/etc/x.pem"));
    }
}
