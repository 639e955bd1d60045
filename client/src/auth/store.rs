//! Tokens kept between runs: one JSON file a server, that only its user can read (mode
//! `0600` where the platform has modes), written whole through a temporary file.

use super::State;
use super::token::{ClientAuth, Registered};
use crate::error::Error;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The file the tokens of the server at `url` are kept in by default:
/// `$XDG_CONFIG_HOME/janus/tokens/` (else `~/.config/janus/tokens/`), named by a digest of
/// the URL. `None` when there is no home.
#[must_use]
pub fn token_file(url: &str) -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    let digest = ring::digest::digest(&ring::digest::SHA256, url.as_bytes());
    let name: String = digest.as_ref()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Some(
        base.join("janus")
            .join("tokens")
            .join(format!("{name}.json")),
    )
}

/// What `path` keeps, read into a fresh state; an absent or unreadable file is none.
pub(crate) fn load(path: &Path) -> Option<State> {
    let text = std::fs::read(path).ok()?;
    let Value::Object(m) = serde_json::from_slice(&text).ok()? else {
        return None;
    };
    let text =
        |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut st = State {
        access: text(&m, "access"),
        refresh: text(&m, "refresh"),
        issuer: text(&m, "issuer"),
        ..State::default()
    };
    st.requested = m
        .get("scopes")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(clients)) = m.get("clients") {
        for (issuer, c) in clients {
            let Some(c) = c.as_object() else { continue };
            let (Some(id), Some(auth)) = (
                text(c, "id"),
                text(c, "auth").as_deref().and_then(ClientAuth::from_name),
            ) else {
                continue;
            };
            let secret = text(c, "secret");
            st.clients
                .insert(issuer.clone(), Registered { id, secret, auth });
        }
    }
    Some(st)
}

/// Writes `st` to `path`, readable by the user alone.
///
/// # Errors
///
/// [`Error::Auth`] when the file cannot be written (naming the file, never its content).
pub(crate) fn save(path: &Path, st: &State) -> Result<(), Error> {
    let clients: Map<String, Value> = st
        .clients
        .iter()
        .map(|(issuer, c)| {
            (
                issuer.clone(),
                json!({"id": c.id, "secret": c.secret, "auth": c.auth.name()}),
            )
        })
        .collect();
    let doc = json!({
        "issuer": st.issuer,
        "access": st.access,
        "refresh": st.refresh,
        "scopes": st.requested,
        "clients": clients,
    });
    let fail =
        |e: std::io::Error| Error::Auth(format!("keeping the tokens in {}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let tmp = path.with_extension("tmp");
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    let mut f = open.open(&tmp).map_err(fail)?;
    std::io::Write::write_all(&mut f, doc.to_string().as_bytes()).map_err(fail)?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(fail)
}
