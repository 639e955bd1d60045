//! `janus tools` and `janus call`: janus-client on the command line.
//!
//! Both name a server the same way: an entry of an MCP hosts' configuration file
//! (`--config FILE --server NAME`), a TCP address (`--tcp`), a streamable HTTP URL
//! (`--url`), the stream of a 2024-11-05 HTTP+SSE server (`--sse`), or a command
//! after `--`. An `https` server's certificate is checked against the platform's roots, the
//! configuration's `caFile` and `--ca-file`. Results go to stdout; errors to stderr, with an exit code for each kind (see
//! [`janus_client::Error::exit_code`]): 1 a tool that failed (`isError`), 3 a protocol
//! rejection, 4 a transport or session failure, 5 a timeout, 6 a protocol violation, 7 a
//! configuration error.

use janus_client::config::{Config, Reach};
use janus_client::{
    CallOptions, CallResult, Client, Command, Content, Error, Mode, Options, ToolSpec, Transport,
};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Which server, and how to talk to it.
#[derive(clap::Args, Debug)]
pub(crate) struct Target {
    /// The lifecycle mode: legacy (the `initialize` handshake), modern (2026-07-28 pinned) or
    /// auto (`server/discover`, then the handshake if the server is not modern). Default:
    /// the configuration's `protocol`, else legacy.
    #[arg(long, value_parser = ["legacy", "modern", "auto"])]
    mode: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Trust the server's hints (default: the configuration's `trusted`, else not).
    #[arg(long)]
    trusted: bool,
    /// Seconds one request may take (then it is cancelled).
    #[arg(long, default_value_t = 60)]
    timeout_secs: u64,
    /// An MCP hosts' configuration file (`mcpServers`).
    #[arg(long, requires = "server", value_name = "FILE")]
    config: Option<PathBuf>,
    /// The server's name in `--config`.
    #[arg(long, requires = "config", value_name = "NAME")]
    server: Option<String>,
    /// A streamable HTTP endpoint.
    #[arg(long, alias = "upstream", conflicts_with_all = ["config", "command", "tcp", "sse"])]
    url: Option<String>,
    /// The stream URL of a 2024-11-05 HTTP+SSE server.
    #[arg(long, conflicts_with_all = ["config", "command", "tcp"])]
    sse: Option<String>,
    /// A PEM file of a certificate authority to trust for an `https` server, beside the
    /// platform's roots and the configuration's `caFile` (may be given more than once).
    #[arg(long = "ca-file", value_name = "PATH", conflicts_with_all = ["tcp", "command"])]
    ca_file: Vec<PathBuf>,
    /// Authorize with the server's authorization server when it answers `401`: the
    /// authorization URL is printed, and the browser's redirect comes back to a loopback
    /// port. On by default for a configured server with `clientId` or `scopes`.
    #[arg(long, conflicts_with_all = ["tcp", "command", "sse"])]
    oauth: bool,
    /// A pre-registered OAuth client id (implies `--oauth`).
    #[arg(long, value_name = "ID", conflicts_with_all = ["tcp", "command", "sse"])]
    client_id: Option<String>,
    /// The secret of `--client-id`; read from the environment variable
    /// `JANUS_CLIENT_SECRET` when not given, so it stays out of the process list.
    #[arg(long, value_name = "SECRET", requires = "client_id")]
    client_secret: Option<String>,
    /// A scope to ask for (may be given more than once; implies `--oauth`).
    #[arg(long = "scope", value_name = "SCOPE", conflicts_with_all = ["tcp", "command", "sse"])]
    scopes: Vec<String>,
    /// A TCP address (`host:port`) speaking newline-delimited JSON-RPC.
    #[arg(long, conflicts_with_all = ["config", "command"], value_name = "ADDR")]
    tcp: Option<String>,
    /// The server's command and its arguments, after `--`.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

/// Authorization through the user's browser: the URL printed on stderr, the redirect taken
/// on a loopback port (RFC 8252).
fn oauth(
    auth: janus_client::config::Authorization,
    tls: &janus_client::Tls,
    url: &str,
) -> Result<janus_client::OAuth, Error> {
    let browser = janus_client::Loopback::new(|url| {
        eprintln!("janus: the server asks for authorization; open this URL to grant it:\n  {url}");
    })?;
    let config = janus_client::OAuthConfig {
        client_id: auth.client_id,
        client_secret: auth.client_secret,
        scopes: auth.scopes,
        tls: tls.clone(),
        store: janus_client::auth::token_file(url),
        ..janus_client::OAuthConfig::default()
    };
    Ok(janus_client::OAuth::new(config, browser))
}

impl Target {
    /// The transport and the options the flags and the configuration give.
    fn resolve(&self) -> Result<(Transport, Options), Error> {
        self.resolve_with(false)
    }

    /// As [`resolve`](Self::resolve), authorization on whatever the flags say when `login`.
    fn resolve_with(&self, login: bool) -> Result<(Transport, Options), Error> {
        let mut opts = Options {
            timeout: Duration::from_secs(self.timeout_secs),
            name: "janus".into(),
            ..Options::default()
        };
        let mut auth = janus_client::config::Authorization::default();
        let reach = if let (Some(file), Some(name)) = (&self.config, &self.server) {
            let config = Config::load(file)?;
            let s = config.server(name)?;
            opts.mode = s.mode;
            opts.trusted = s.trusted;
            opts.tls = s.tls.clone();
            auth = s.auth.clone();
            s.reach.clone()
        } else if let Some(url) = &self.url {
            Reach::Http {
                url: url.clone(),
                headers: Vec::new(),
            }
        } else if let Some(url) = &self.sse {
            Reach::Sse {
                url: url.clone(),
                headers: Vec::new(),
            }
        } else if let Some(addr) = &self.tcp {
            Reach::Tcp(addr.clone())
        } else if let Some((program, args)) = self.command.split_first() {
            Reach::Stdio(Command::new(program.clone(), args.iter().cloned()))
        } else {
            return Err(Error::Config(
                "no server: give --config FILE --server NAME, --url, --tcp, or a command after --"
                    .into(),
            ));
        };
        if let Some(m) = &self.mode {
            opts.mode = Mode::parse(m)?;
        }
        opts.trusted |= self.trusted;
        opts.tls.ca_files.extend(self.ca_file.iter().cloned());
        if self.client_id.is_some() {
            auth.client_id.clone_from(&self.client_id);
            auth.client_secret = self
                .client_secret
                .clone()
                .or_else(|| std::env::var("JANUS_CLIENT_SECRET").ok());
        }
        auth.scopes.extend(self.scopes.iter().cloned());
        let wanted = login || self.oauth || auth != janus_client::config::Authorization::default();
        match &reach {
            Reach::Http { url, .. } if wanted => opts.auth = Some(oauth(auth, &opts.tls, url)?),
            _ if login => {
                return Err(Error::Config(
                    "janus login is for an http server (--url, or a url in --config)".into(),
                ));
            }
            _ => {}
        }
        if !self.ca_file.is_empty() && !matches!(reach, Reach::Http { .. } | Reach::Sse { .. }) {
            return Err(Error::Config(
                "--ca-file is for an http or sse server (--url, --sse, or a url in --config)"
                    .into(),
            ));
        }
        let transport = match reach {
            Reach::Stdio(c) => Transport::Stdio(c),
            Reach::Tcp(a) => Transport::Tcp(a),
            Reach::Http { url, headers } => Transport::Http { url, headers },
            Reach::Sse { url, headers } => Transport::Sse { url, headers },
        };
        Ok((transport, opts))
    }

    /// The backend of `janus bridge`: as [`resolve`](Self::resolve), in mode `auto` unless
    /// `--mode` or the configuration says otherwise, and named `janus-bridge`.
    pub(crate) fn resolve_backend(&self) -> Result<(Transport, Options), Error> {
        let (transport, mut opts) = self.resolve()?;
        if self.mode.is_none() && self.config.is_none() {
            opts.mode = Mode::Auto;
        }
        opts.name = "janus-bridge".into();
        Ok((transport, opts))
    }

    async fn connect(&self) -> Result<(Client, Mode), Error> {
        let (transport, opts) = self.resolve()?;
        let mode = opts.mode;
        Ok((Client::connect(transport, opts).await?, mode))
    }
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Legacy => "legacy",
        Mode::Modern => "modern",
        Mode::Auto => "auto",
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("janus: no runtime: {e}");
            ExitCode::FAILURE
        })
}

fn failed(e: &Error) -> ExitCode {
    eprintln!("janus: {e}");
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(1))
}

/// `janus login`: authorizes with the server (when it asks for it) and keeps the tokens for
/// later runs.
pub(crate) fn login(target: &Target) -> ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(c) => return c,
    };
    rt.block_on(async {
        let (transport, opts) = match target.resolve_with(true) {
            Ok(r) => r,
            Err(e) => return failed(&e),
        };
        let Transport::Http { url, .. } = &transport else {
            return ExitCode::FAILURE;
        };
        let url = url.clone();
        let auth = opts.auth.clone();
        let client = match Client::connect(transport, opts).await {
            Ok(c) => c,
            Err(e) => return failed(&e),
        };
        if let Err(e) = client.list_tools().await {
            return failed(&e);
        }
        client.close(Duration::from_secs(2)).await;
        match (
            auth.is_some_and(|a| a.is_authorized()),
            janus_client::auth::token_file(&url),
        ) {
            (true, Some(f)) => eprintln!(
                "janus: authorized with {url}; tokens kept in {}",
                f.display()
            ),
            _ => eprintln!("janus: {url} asked for no authorization"),
        }
        ExitCode::SUCCESS
    })
}

/// `janus logout URL`: forgets the tokens kept for the server at `url`.
pub(crate) fn logout(url: &str) -> ExitCode {
    let Some(file) = janus_client::auth::token_file(url) else {
        return failed(&Error::Config("no home folder: no tokens are kept".into()));
    };
    match std::fs::remove_file(&file) {
        Ok(()) => {
            eprintln!("janus: forgot the tokens of {url} ({})", file.display());
            ExitCode::SUCCESS
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("janus: no tokens were kept for {url}");
            ExitCode::SUCCESS
        }
        Err(e) => failed(&Error::Config(format!("{}: {e}", file.display()))),
    }
}

/// `janus tools`: the server's tools as normalised specs, with their safety classes and the
/// revision settled.
pub(crate) fn tools(target: &Target) -> ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(c) => return c,
    };
    rt.block_on(async {
        let (client, mode) = match target.connect().await {
            Ok(c) => c,
            Err(e) => return failed(&e),
        };
        let specs = match client.list_tools().await {
            Ok(s) => s,
            Err(e) => return failed(&e),
        };
        let n = client.negotiated().clone();
        client.close(Duration::from_secs(2)).await;
        if target.json {
            let out = json!({
                "revision": n.version.as_str(),
                "mode": mode_name(mode),
                "serverInfo": n.server_info.as_deref().map(parse),
                "tools": specs.iter().map(spec_json).collect::<Vec<_>>(),
            });
            println!("{out}");
        } else {
            println!(
                "revision {} (mode {}), server {}",
                n.version.as_str(),
                mode_name(mode),
                n.server_info.as_deref().unwrap_or("(not told)")
            );
            for s in &specs {
                let about = s
                    .title
                    .as_deref()
                    .or(s.description.as_deref())
                    .unwrap_or("");
                println!("{:<32} {:<12} {about}", s.name, s.safety.as_str());
            }
        }
        ExitCode::SUCCESS
    })
}

/// `janus call`: one tool called, its result printed.
pub(crate) fn call(target: &Target, tool: &str, args: Option<&str>) -> ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(c) => return c,
    };
    rt.block_on(async {
        let (client, _) = match target.connect().await {
            Ok(c) => c,
            Err(e) => return failed(&e),
        };
        let called = client.call_tool(tool, args, CallOptions::default()).await;
        let revision = client.negotiated().version.as_str();
        client.close(Duration::from_secs(2)).await;
        let r = match called {
            Ok(r) => r,
            Err(e) => return failed(&e),
        };
        if target.json {
            let mut v = result_json(&r);
            v["revision"] = json!(revision);
            println!("{v}");
        } else {
            for c in &r.content {
                match c.as_text() {
                    Some(text) => println!("{text}"),
                    None => println!("{}", content_json(c)),
                }
            }
            if let Some(s) = &r.structured {
                println!("{s}");
            }
        }
        if r.is_error {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        }
    })
}

fn parse(json: &str) -> Value {
    serde_json::from_str(json).unwrap_or(Value::Null)
}

fn spec_json(s: &ToolSpec) -> Value {
    let a = &s.annotations;
    json!({
        "name": s.name,
        "title": s.title,
        "description": s.description,
        "inputSchema": parse(&s.input_schema),
        "outputSchema": s.output_schema.as_deref().map(parse),
        "annotations": {
            "title": a.title,
            "readOnlyHint": a.read_only,
            "destructiveHint": a.destructive,
            "idempotentHint": a.idempotent,
            "openWorldHint": a.open_world,
        },
        "taskSupport": format!("{:?}", s.task_support).to_lowercase(),
        "safety": s.safety.as_str(),
    })
}

/// A block as the model writes it in the latest revision's shape.
fn content_json(c: &Content) -> Value {
    let mut out = bytes::BytesMut::new();
    let shape = janus_model::shape::Shape::new(janus_codec::ProtocolVersion::V2026_07_28);
    janus_model::shape::write_block(&mut out, shape, c, true);
    serde_json::from_slice(&out).unwrap_or(Value::Null)
}

fn result_json(r: &CallResult) -> Value {
    json!({
        "content": r.content.iter().map(content_json).collect::<Vec<_>>(),
        "structuredContent": r.structured.as_deref().map(parse),
        "isError": r.is_error,
    })
}
