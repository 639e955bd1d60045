//! The front's lists: built from what the backend says of itself and lists at the start
//! ([`front`]), then followed as the backend tells of their changes ([`follow`]), each
//! entry forwarded to the backend.

use crate::BridgeError;
use crate::backend::Pool;
use crate::forward::{Completer, Forward, forward_request, mismatched, read};
use crate::input::Answer;
use crate::said::call_options;
use crate::watch::Wanted;
use janus_client::Client;
use janus_codec::RawJson;
use janus_model::tool::ToolSpec;
use janus_server_core::prompts::{MessagesFuture, PromptArgs};
use janus_server_core::resources::Vars;
use janus_server_core::{Ctx, Server};
use std::sync::Arc;

/// The backend's name, version and title, from its `serverInfo` (JSON text).
fn identity(info: Option<&str>) -> (String, String, Option<String>) {
    let raw = info.and_then(|i| RawJson::parse(i).ok());
    let field = |k: &str| {
        raw.and_then(|r| r.get(k))
            .and_then(RawJson::as_string)
            .map(|c| c.into_owned())
    };
    (
        field("name").unwrap_or_else(|| "janus-bridge".into()),
        field("version").unwrap_or_else(|| "0".into()),
        field("title"),
    )
}

/// Builds the front: the backend's identity and instructions (its `initialize` result, or
/// its `server/discover` for a 2026-07-28 backend) and its tools.
pub(crate) async fn front(
    pool: &Arc<Pool>,
) -> Result<(Arc<Server>, Arc<Wanted>, Vec<ToolSpec>, Lists), BridgeError> {
    let client = pool.first().client()?;
    let negotiated = client.negotiated();
    let (mut info, mut instructions, mut capabilities) = (
        negotiated.server_info.clone(),
        negotiated.instructions.clone(),
        negotiated.capabilities.clone(),
    );
    if info.is_none() && negotiated.version.is_modern() {
        let reply = client.discover().await?;
        let [i, text, meta, caps] =
            reply
                .result()
                .get_many(["serverInfo", "instructions", "_meta", "capabilities"]);
        capabilities = caps.map(|c| c.as_str().to_owned());
        // NB. 2026-07-28 stamps the server's identity on every result, discover's included.
        let stamped = meta.and_then(|m| m.get("io.modelcontextprotocol/serverInfo"));
        info = i.or(stamped).map(|i| i.as_str().to_owned());
        instructions = text.and_then(RawJson::as_string).map(|c| c.into_owned());
    }
    let (name, version, title) = identity(info.as_deref());
    let mut b = Server::builder(&name, &version);
    if let Some(t) = &title {
        b = b.title(t);
    }
    if let Some(text) = &instructions {
        b = b.instructions(text);
    }
    let listed = client.list_tool_specs().await?;
    for spec in listed.clone() {
        // NB. A tool the front could not describe to its clients is left out, loudly, not
        // the whole backend.
        if let Err(e) = spec.check() {
            tracing::warn!(tool = %spec.name, "left out of the bridge's tools: {e}");
            continue;
        }
        let handler = Forward::new(pool, &spec);
        b = b.async_tool(spec, handler);
    }
    let caps = capabilities.as_deref().and_then(|c| RawJson::parse(c).ok());
    let completes = caps.is_some_and(|c| c.get("completions").is_some());
    let subscribes = caps
        .and_then(|c| c.get("resources"))
        .and_then(|r| r.get("subscribe"))
        .is_some_and(|s| s.as_str() == "true");
    // NB. A backend that says which it serves is asked only for those lists (one that says
    // nothing of itself is asked for all).
    let serves = |what: &str| caps.is_none_or(|c| c.get(what).is_some());
    let lists = Lists {
        prompts: serves("prompts"),
        resources: serves("resources"),
        completes,
    };
    // NB. A round the front gives up (a handshake client that refuses, cancels or does not
    // answer in time; a client without the capability) ends the backend call parked for it
    // at once, not when its state would expire.
    let parked = Arc::downgrade(pool);
    b = b.on_input_abandoned(move |token| {
        if let Some(pool) = parked.upgrade() {
            pool.abandon(token);
        }
    });
    // NB. The backend is asked for the updates of every resource it lists (so that an
    // update right after a front client's subscription is not missed), and of each other
    // one a front client subscribes to (a template's, say) as it does.
    let wanted = Arc::new(Wanted::new(subscribes));
    let asked = Arc::downgrade(&wanted);
    b = b.on_subscribe(move |uri, on| {
        if let Some(w) = asked.upgrade() {
            if on {
                w.add(uri);
            } else {
                w.release(uri);
            }
        }
    });
    let (b, uris) = prompts_and_resources(pool, &client, b, lists).await?;
    for u in &uris {
        wanted.add(u);
    }
    let server = b.build().map_err(|e| BridgeError::Spec(e.to_string()))?;
    Ok((server, wanted, listed, lists))
}

/// A list of the backend's: none when it is not `asked` for (`list` is then never sent),
/// empty when it refuses it (it has none) or answers with something that is no such list
/// (logged); its other failures (it cannot be reached) stand.
async fn listed<T>(
    asked: bool,
    list: impl std::future::Future<Output = Result<Vec<T>, janus_client::Error>>,
    what: &str,
) -> Result<Vec<T>, BridgeError> {
    if !asked {
        return Ok(Vec::new());
    }
    match list.await {
        Ok(items) => Ok(items),
        Err(janus_client::Error::Rejected(r)) => {
            tracing::debug!("the backend lists no {what}: {r}");
            Ok(Vec::new())
        }
        Err(janus_client::Error::Protocol(why)) => {
            tracing::warn!("the backend's {what} are left out: {why}");
            Ok(Vec::new())
        }
        Err(e) => Err(BridgeError::Backend(e)),
    }
}

/// Which of its lists the backend is asked for, and whether it completes.
#[derive(Clone, Copy)]
pub(crate) struct Lists {
    prompts: bool,
    resources: bool,
    completes: bool,
}

/// The backend's prompts and direct resources, each forwarded (and the resources' URIs). A
/// backend that has none (a list it refuses) adds none.
async fn prompts_and_resources(
    backend: &Arc<Pool>,
    client: &Client,
    mut b: janus_server_core::server::ServerBuilder,
    lists: Lists,
) -> Result<(janus_server_core::server::ServerBuilder, Vec<String>), BridgeError> {
    let completes = lists.completes;
    let prompts = listed(lists.prompts, client.list_prompts(), "prompts").await?;
    for spec in prompts {
        if completes {
            for a in &spec.arguments {
                b = b.async_complete_prompt_argument(
                    &spec.name,
                    &a.name,
                    Completer::new(backend, false, &spec.name),
                );
            }
        }
        let backend = Arc::clone(backend);
        let name: Arc<str> = Arc::from(spec.name.as_str());
        b = b.async_prompt(spec, move |ctx: &Ctx<'_>, args: PromptArgs<'_>| {
            // NB. Prompt arguments are strings: each member goes on as its text.
            let pairs: Vec<(String, String)> = args
                .raw()
                .map(|a| {
                    a.members()
                        .into_iter()
                        .map(|(k, v)| {
                            let text = v
                                .as_string()
                                .map_or_else(|| v.as_str().to_owned(), |s| s.into_owned());
                            (k.into_owned(), text)
                        })
                        .collect()
                })
                .unwrap_or_default();
            let name = Arc::clone(&name);
            let work: MessagesFuture = forward_request(
                &backend,
                ctx,
                move |client, _, cancel, route| {
                    let opts = call_options(None, cancel, route);
                    let (name, pairs) = (Arc::clone(&name), pairs.clone());
                    Box::pin(async move {
                        let pairs: Vec<(&str, &str)> = pairs
                            .iter()
                            .map(|(k, v)| (k.as_str(), v.as_str()))
                            .collect();
                        client
                            .get_prompt_with(&name, &pairs, opts)
                            .await
                            .map(Answer::Prompt)
                    })
                },
                |a| match a {
                    Answer::Prompt(m) => Ok(m),
                    _ => Err(mismatched()),
                },
            )?;
            Ok(work)
        });
    }
    let resources = listed(lists.resources, client.list_resources(), "resources").await?;
    let uris = resources.iter().map(|r| r.uri.clone()).collect();
    for spec in resources {
        let backend = Arc::clone(backend);
        b = b.async_resource(spec, move |ctx: &Ctx<'_>, uri: &str| {
            read(&backend, ctx, uri)
        });
    }
    let templates = listed(
        lists.resources,
        client.list_resource_templates(),
        "resource templates",
    )
    .await?;
    for spec in templates {
        if completes {
            let vars: Vec<String> = spec.variables().map(str::to_owned).collect();
            for v in vars {
                b = b.async_complete_template_variable(
                    &spec.uri_template,
                    &v,
                    Completer::new(backend, true, &spec.uri_template),
                );
            }
        }
        let backend = Arc::clone(backend);
        b = b.async_resource_template(spec, move |ctx: &Ctx<'_>, uri: &str, _: &Vars| {
            read(&backend, ctx, uri)
        });
    }
    Ok((b, uris))
}

/// Follows the backend's notifications while the bridge lives: a change of its tools, or of
/// its prompts and resources, is the front's (listed again and made the front's in one
/// change, which its clients hear as one `list_changed`); a resource's update is announced
/// at the front.
pub(crate) async fn follow(
    mut notices: tokio::sync::mpsc::UnboundedReceiver<janus_client::Notice>,
    backend: std::sync::Weak<Pool>,
    server: std::sync::Weak<Server>,
    mut listed: Vec<ToolSpec>,
    (lists, wanted): (Lists, Arc<Wanted>),
) {
    while let Some(n) = notices.recv().await {
        let (Some(backend), Some(server)) = (backend.upgrade(), server.upgrade()) else {
            return;
        };
        let mut what = heard(&server, &n);
        if what == Changed::default() {
            continue;
        }
        // NB. Changes told while the lists are fetched again are one change: the notices
        // queued meanwhile are taken at once, and each list fetched once for all of them (a
        // backend that floods list_changed costs one listing per catch-up, not one each).
        loop {
            if what.tools
                && let Err(e) = refresh_tools(&backend, &server, &mut listed).await
            {
                tracing::warn!(error = %e, "the backend's tools could not be listed again");
            }
            if what.surface
                && let Err(e) = refresh_surface(&backend, &server, lists, &wanted).await
            {
                tracing::warn!(error = %e, "the backend's prompts and resources could not be listed again");
            }
            what = Changed::default();
            while let Ok(n) = notices.try_recv() {
                let h = heard(&server, &n);
                what.tools |= h.tools;
                what.surface |= h.surface;
            }
            if what == Changed::default() {
                break;
            }
        }
    }
}

/// Which of the backend's lists a notification says changed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Changed {
    tools: bool,
    /// Its prompts, resources or resource templates.
    surface: bool,
}

/// Acts on one backend notification: a resource's update is announced at the front; the
/// lists it says changed (which the caller lists again).
fn heard(server: &Server, n: &janus_client::Notice) -> Changed {
    match n.method.as_str() {
        "notifications/tools/list_changed" => {
            return Changed {
                tools: true,
                surface: false,
            };
        }
        "notifications/prompts/list_changed" | "notifications/resources/list_changed" => {
            return Changed {
                tools: false,
                surface: true,
            };
        }
        "notifications/resources/updated" => {
            let uri = n
                .params
                .as_deref()
                .and_then(|p| RawJson::parse(p).ok())
                .and_then(|p| p.get("uri"))
                .and_then(RawJson::as_string);
            if let Some(uri) = uri {
                server.resource_updated(&uri);
            }
        }
        other => tracing::debug!(method = other, "a backend notification not forwarded"),
    }
    Changed::default()
}

/// Lists the backend's prompts, resources and templates again and makes them the front's
/// (its clients hear `list_changed` for those that changed); the backend is asked for the
/// updates of a resource new to it.
async fn refresh_surface(
    backend: &Arc<Pool>,
    server: &Server,
    lists: Lists,
    wanted: &Wanted,
) -> Result<(), BridgeError> {
    let client = backend.first().client()?;
    let b = Server::builder("janus-bridge", "0");
    let (b, uris) = prompts_and_resources(backend, &client, b, lists).await?;
    // NB. A resource the backend lists now is asked for as those listed at the start.
    for u in &uris {
        wanted.add(u);
    }
    server
        .replace_surface(b)
        .map_err(|e| BridgeError::Spec(e.to_string()))
}

/// Lists the backend's tools again and makes them the front's, when they are not those
/// `listed` last.
async fn refresh_tools(
    backend: &Arc<Pool>,
    server: &Server,
    listed: &mut Vec<ToolSpec>,
) -> Result<(), BridgeError> {
    let specs = backend.first().client()?.list_tool_specs().await?;
    // NB. The same tools as last listed (a backend started again, a change told twice): the
    // front's clients hear of no change.
    if specs == *listed {
        return Ok(());
    }
    listed.clone_from(&specs);
    // NB. In one change: the front's clients hear one list_changed for the backend's one,
    // not one for each tool added or removed.
    let tools = specs.into_iter().map(|spec| {
        let handler = Forward::new(backend, &spec);
        (spec, handler)
    });
    for e in server.replace_async_tools(tools) {
        tracing::warn!("left out of the bridge's tools: {e}");
    }
    Ok(())
}
