//! Each front request the backend answers, forwarded over the one client connection: its
//! progress, log messages and the backend's questions on the way, its end as the answer.

use crate::backend::{Backend, Pool};
use crate::input::{Answer, Asked, BackendCall, Event, InFlight, Question};
use crate::said::{Route, call_options, forwarded};
use janus_client::{CallOptions, Cancel, Client, Progress};
use janus_codec::RawJson;
use janus_model::json::{Json, RpcError};
use janus_model::resource::Contents;
use janus_model::result::ToolResult;
use janus_server_core::LogLevel;
use janus_server_core::complete::{AsyncComplete, CompletionRequest, ValuesFuture};
use janus_server_core::resources::ContentsFuture;
use janus_server_core::tools::{Args, Stage, StagedFuture, ToolFuture};
use janus_server_core::{Ctx, Halt};
use janus_server_core::{InputRequest, InputRequired};
use std::sync::Arc;
use tokio::sync::mpsc;

/// A completion of a backend's prompt argument or template variable, forwarded.
pub(crate) struct Completer {
    backend: Arc<Pool>,
    template: bool,
    target: Arc<str>,
}

impl Completer {
    pub(crate) fn new(backend: &Arc<Pool>, template: bool, target: &str) -> Self {
        Self {
            backend: Arc::clone(backend),
            template,
            target: Arc::from(target),
        }
    }
}

impl AsyncComplete for Completer {
    fn complete(&self, ctx: &Ctx<'_>, req: &CompletionRequest<'_>) -> Result<ValuesFuture, Halt> {
        let (argument, value) = (req.argument().to_owned(), req.value().to_owned());
        let context: Vec<(String, String)> = req
            .context()
            .map(|c| {
                c.members()
                    .into_iter()
                    .filter_map(|(k, v)| Some((k.into_owned(), v.as_string()?.into_owned())))
                    .collect()
            })
            .unwrap_or_default();
        let (pool, template, target) = (
            Arc::clone(&self.backend),
            self.template,
            Arc::clone(&self.target),
        );
        // NB. What the front's client says of itself goes on as for a call; a cancel at the
        // front drops this work, and with it the backend request (which the client then
        // cancels at the backend).
        let forwarded = forwarded(ctx, &pool.said);
        Ok(Box::pin(async move {
            let backend = pool.pick();
            let mut client = match backend.client() {
                Ok(c) => c,
                Err(_) if backend.is_restarting() => backend
                    .back_within(RESTART_WAIT)
                    .await
                    .map_err(|e| Halt::from(rejection_of(&e)))?,
                Err(e) => return Err(rejection_of(&e).into()),
            };
            let opts = CallOptions {
                forwarded: Some(forwarded),
                ..CallOptions::default()
            };
            let reference = if template {
                janus_client::CompletionRef::Template(&target)
            } else {
                janus_client::CompletionRef::Prompt(&target)
            };
            let context: Vec<(&str, &str)> = context
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            // NB. The backend's `total` and `hasMore` go on as it said them. A completion an
            // HTTP backend refused for a session it forgot goes again on a new one, once.
            let mut again = backend.is_http();
            loop {
                match client
                    .complete_with(reference, &argument, &value, &context, opts.clone())
                    .await
                {
                    Err(e) if again && e.is_session_lost() => {
                        again = false;
                        client = new_session(backend, &client, &e)
                            .await
                            .map_err(|e| Halt::from(rejection_of(&e)))?;
                    }
                    r => return r.map_err(|e| halted(backend, &e)),
                }
            }
        }))
    }
}

/// `resources/read` of `uri` at the backend (input it asks for on the way put to the front's
/// client, as for a tool).
pub(crate) fn read(backend: &Pool, ctx: &Ctx<'_>, uri: &str) -> Result<ContentsFuture, Halt> {
    let uri = uri.to_owned();
    forward_request(
        backend,
        ctx,
        move |client, _, cancel, route| {
            let opts = call_options(None, cancel, route);
            let uri = uri.clone();
            Box::pin(async move {
                client
                    .read_resource_with(&uri, opts)
                    .await
                    .map(Answer::Read)
            })
        },
        |a| match a {
            Answer::Read(items) => Ok(Contents { items }),
            _ => Err(mismatched()),
        },
    )
}

/// A backend request failed with `e`: the backend hears of it (a broken connection is made
/// again), and the front request gets its error.
fn halted(backend: &Arc<Backend>, e: &janus_client::Error) -> Halt {
    backend.failed(e);
    rejection_of(e).into()
}

/// One backend tool, forwarded.
pub(crate) struct Forward {
    backend: Arc<Pool>,
    name: Arc<str>,
    /// The backend runs it only as a task.
    as_task: bool,
    /// A 2026-07-28 backend refused it to a client without the tasks extension: it is
    /// called declaring the extension (and the task it makes waited for).
    declares_tasks: Arc<std::sync::atomic::AtomicBool>,
}

impl Forward {
    pub(crate) fn new(backend: &Arc<Pool>, spec: &janus_model::tool::ToolSpec) -> Self {
        Self {
            backend: Arc::clone(backend),
            name: Arc::from(spec.name.as_str()),
            as_task: spec.task_support == janus_model::tool::TaskSupport::Required,
            declares_tasks: Arc::default(),
        }
    }
}

/// Whether `r` is a 2026-07-28 refusal of a request that only the tasks extension can
/// make (`-32021`, the extension in its `requiredCapabilities`).
fn needs_tasks(r: &janus_client::Rejection) -> bool {
    r.code == i64::from(janus_codec::MISSING_CLIENT_CAPABILITY)
        && r.data
            .as_deref()
            .and_then(|d| RawJson::parse(d).ok())
            .and_then(|d| d.get("requiredCapabilities"))
            .and_then(|c| c.get("extensions"))
            .is_some_and(|e| e.get("io.modelcontextprotocol/tasks").is_some())
}

/// What a forwarded call waits for next.
enum Next {
    Done(Result<Answer, janus_client::Error>),
    Asked(Question),
    Logged(janus_client::LogMessage),
    Heard(Progress),
    Cancelled,
    /// The patience of a call's first stage ran out.
    Later,
}

impl janus_server_core::tools::AsyncTool for Forward {
    fn call(&self, ctx: &Ctx<'_>, args: Args<'_>) -> Result<ToolFuture, Halt> {
        let (flight, backend) = self.open(ctx, args)?;
        Ok(drive(flight, ctx.to_owned(), backend, call_result, true))
    }

    /// The front's task mirrors the backend's. A tool the backend runs only as a task asks
    /// for its input before that task exists (a handshake backend, while it runs the call),
    /// so the front's call waits [`PATIENCE`] for the backend before its own task is made:
    /// a question within it is asked in rounds of the call, before any task exists; an
    /// answer within it makes the task already ended; else the task is made and waits for
    /// the rest (a later question parks it in `input_required`). A tool the backend runs as
    /// a call, which runs as a task at the front because its client asked, has its task
    /// from the start (`None`): the backend's questions park it.
    fn call_staged(&self, ctx: &Ctx<'_>, args: Args<'_>) -> Option<Result<StagedFuture, Halt>> {
        if !self.as_task {
            return None;
        }
        let opened = self.open(ctx, args);
        Some(opened.map(|(flight, backend)| {
            let ctx = ctx.to_owned();
            let first: StagedFuture = Box::pin(async move {
                match follow_call(flight, &ctx, &backend, Some(PATIENCE), true).await? {
                    Ending::Answered(a) => call_result(a).map(Stage::Done),
                    Ending::Later(flight) => {
                        Ok(Stage::Task(drive(flight, ctx, backend, call_result, true)))
                    }
                }
            });
            first
        }))
    }
}

/// How long the first stage of a forwarded call that is to run as a task waits for the
/// backend to answer or ask before the front makes its task.
const PATIENCE: std::time::Duration = std::time::Duration::from_millis(100);

/// A tool result of the backend's, for the front.
fn call_result(a: Answer) -> Result<ToolResult, Halt> {
    match a {
        // NB. The client read the backend's result from a checked frame and wrote its JSON
        // members again with the codec: taken as they are, without a second parse.
        Answer::Call(r) => Ok(ToolResult {
            content: r.content,
            structured: r.structured.map(|s| Json::from_written(s.as_bytes())),
            is_error: r.is_error,
            meta: r.meta.map(|m| Json::from_written(m.as_bytes())),
        }),
        Answer::Passed(r) => Ok(r),
        _ => Err(mismatched()),
    }
}

impl Forward {
    /// Sends the call to the backend (or, for a retry that answers its question, takes the
    /// call it parked).
    fn open(&self, ctx: &Ctx<'_>, args: Args<'_>) -> Result<(InFlight, Arc<Backend>), Halt> {
        // NB. The arguments go on as they came: a span of the front request, copied once.
        let arguments = args.raw().map(|a| Arc::new(Json::from_raw(a)));
        let name = Arc::clone(&self.name);
        let as_task = self.as_task;
        let declares = Arc::clone(&self.declares_tasks);
        let front = ctx.version();
        open_call(
            &self.backend,
            ctx,
            move |client, progress, cancel, route| {
                let (name, arguments, declares) =
                    (Arc::clone(&name), arguments.clone(), Arc::clone(&declares));
                if as_task && client.negotiated().version.is_handshake() {
                    return Box::pin(async move {
                        crate::task::call(
                            client,
                            &name,
                            arguments.as_deref().map(Json::as_str),
                            cancel,
                        )
                        .await
                        .map(Answer::Call)
                    });
                }
                // NB. A tool a 2026-07-28 backend runs only as a task is called again
                // declaring the tasks extension (and so from then on): the client waits for
                // the task. Others are not, so that the backend runs them as calls (a
                // task's progress would not reach the front).
                let base = call_options(progress, cancel, route);
                let opts = move |tasks| CallOptions {
                    tasks,
                    ..base.clone()
                };
                // NB. A front client whose revision has every block type the backend's has
                // gets the backend's blocks as they came (none read, none written again, no
                // member lost); an older one gets them in its revision (an audio block
                // or a resource_link it lacks becomes text).
                let pass = front >= client.negotiated().version;
                Box::pin(async move {
                    use std::sync::atomic::Ordering::Relaxed;
                    let args = arguments.as_deref();
                    let declared = declares.load(Relaxed);
                    match call_tool(&client, &name, args, pass, opts(declared)).await {
                        Err(janus_client::Error::Rejected(r)) if !declared && needs_tasks(&r) => {
                            declares.store(true, Relaxed);
                            // NB. Boxed: the rare second call would double the size of
                            // every call's future (moved into its box on each call).
                            Box::pin(call_tool(&client, &name, args, pass, opts(true))).await
                        }
                        other => other,
                    }
                })
            },
        )
    }
}

/// One `tools/call` of the backend's: its result passed on unread when `pass` (the front
/// client's revision has every block type the backend's has), else read into the model.
async fn call_tool(
    client: &Client,
    name: &str,
    arguments: Option<&Json>,
    pass: bool,
    opts: CallOptions,
) -> Result<Answer, janus_client::Error> {
    if pass {
        client
            .call_tool_as_sent(name, arguments, opts)
            .await
            .map(Answer::Passed)
    } else {
        client
            .call_tool(name, arguments.map(Json::as_str), opts)
            .await
            .map(Answer::Call)
    }
}

/// What makes one front request's backend call, given the connection, where its progress
/// goes, its cancel and its route: called again for a call made again on a new session.
pub(crate) trait Start:
    Fn(Arc<Client>, Option<mpsc::UnboundedSender<Progress>>, Cancel, Route<'_>) -> BackendCall
    + Send
    + Sync
    + 'static
{
}

impl<F> Start for F where
    F: Fn(Arc<Client>, Option<mpsc::UnboundedSender<Progress>>, Cancel, Route<'_>) -> BackendCall
        + Send
        + Sync
        + 'static
{
}

/// The error of a retry whose `requestState` names a backend call of another method.
pub(crate) fn mismatched() -> Halt {
    RpcError::invalid_params("the requestState belongs to a request of another method").into()
}

/// Starts (or, for a retry that answers the backend's question, resumes) the backend call
/// of one front request and drives it: `start` makes the call, given the connection, where
/// its progress goes and its cancel; `answer` reads what it answered.
pub(crate) fn forward_request<T: Send + 'static>(
    pool: &Pool,
    ctx: &Ctx<'_>,
    start: impl Start,
    answer: fn(Answer) -> Result<T, Halt>,
) -> Result<janus_server_core::ctx::BoxFuture<Result<T, Halt>>, Halt> {
    let (flight, backend) = open_call(pool, ctx, start)?;
    Ok(drive(flight, ctx.to_owned(), backend, answer, false))
}

/// Starts the backend call of one front request (`start` makes it), or, for a retry that
/// answers the backend's question, takes the call it parked: the call in flight, and the
/// backend it went to. A retry that left questions unanswered is asked them again.
fn open_call(
    pool: &Pool,
    ctx: &Ctx<'_>,
    start: impl Start,
) -> Result<(InFlight, Arc<Backend>), Halt> {
    // NB. A retry that answers the backend's question resumes the call it parked; its
    // request was sent already.
    if let Some(token) = ctx.request_state() {
        // NB. A handshake front client's error reply reaches the backend as its error
        // (the backend's call goes on with it).
        let given = |key: &str| match ctx.input(key) {
            Some(a) => Some(Ok(a.as_str().to_owned())),
            None => ctx
                .input_refusal(key)
                .map(|e| Err(janus_client::Rejection::of_error_object(Some(e)))),
        };
        let Some((backend, resumed)) = pool.resume(token, &given) else {
            return Err(RpcError::invalid_params(
                "the requestState names no backend call waiting for input (it expired, or was answered)",
            )
            .into());
        };
        // NB. A retry that left some questions unanswered gets them again, in a new round
        // (the answers it gave went on).
        if !resumed.unanswered.is_empty() {
            let modern = ctx.version().is_modern();
            return match put_to_front(&backend, resumed.flight, resumed.unanswered, modern) {
                Ok(halt) => Err(halt),
                Err(flight) => Ok((flight, backend)),
            };
        }
        return Ok((resumed.flight, backend));
    }
    let backend = pool.pick();
    let router = backend.router();
    // NB. A backend being started again is waited for (a little), not failed at once: a
    // request that comes in the pause after a crash is served by the next process.
    let client = match backend.client() {
        Ok(c) => Some(c),
        Err(_) if backend.is_restarting() => None,
        Err(e) => return Err(Halt::from(rejection_of(&e))),
    };
    let (progress, heard) = if ctx.progress_token().is_some() {
        let (tx, rx) = mpsc::unbounded_channel::<Progress>();
        (Some(tx), Some(rx))
    } else {
        (None, None)
    };
    let cancel = Cancel::new();
    let said = forwarded(ctx, &pool.said);
    let (asker, questions) = router.register(ctx.peer(), Arc::clone(&said));
    // NB. Polled by the front request's own job, not spawned: one task a call.
    let call = if backend.is_http() {
        on_a_session(
            Arc::clone(backend),
            client,
            (progress, cancel.clone(), Arc::clone(&questions), said),
            start,
        )
    } else {
        match client {
            Some(client) => {
                let route = Route {
                    inbox: &questions,
                    forwarded: said,
                    own: backend.tells_whose(&client),
                };
                start(client, progress, cancel.clone(), route)
            }
            None => {
                let (b, inbox, again) =
                    (Arc::clone(backend), Arc::clone(&questions), cancel.clone());
                let waited: BackendCall = Box::pin(async move {
                    let client = b.back_within(RESTART_WAIT).await?;
                    let route = Route {
                        inbox: &inbox,
                        forwarded: said,
                        own: b.tells_whose(&client),
                    };
                    start(client, progress, again, route).await
                });
                waited
            }
        }
    };
    let flight = InFlight {
        call,
        questions,
        progress: heard,
        cancel,
        _asker: asker,
        asked: 0,
        progressed: None,
    };
    Ok((flight, Arc::clone(backend)))
}

/// A backend call over streamable HTTP: made on the session there is (or, while it is being
/// made again, on the next one), and made again, once, on a new session when the backend
/// refused it for a session it no longer knows (`404`: it expired, or the server was
/// started again), which means the backend did not run it.
fn on_a_session(
    backend: Arc<Backend>,
    client: Option<Arc<Client>>,
    (progress, cancel, inbox, said): (
        Option<mpsc::UnboundedSender<Progress>>,
        Cancel,
        Arc<crate::input::Inbox>,
        Arc<janus_client::Forwarded>,
    ),
    start: impl Start,
) -> BackendCall {
    Box::pin(async move {
        let mut client = match client {
            Some(c) => c,
            None => backend.back_within(RESTART_WAIT).await?,
        };
        let mut again = true;
        loop {
            let route = Route {
                inbox: &inbox,
                forwarded: Arc::clone(&said),
                own: backend.tells_whose(&client),
            };
            match start(Arc::clone(&client), progress.clone(), cancel.clone(), route).await {
                Err(e) if again && e.is_session_lost() => {
                    again = false;
                    client = new_session(&backend, &client, &e).await?;
                }
                other => return other,
            }
        }
    })
}

/// The connection made again after the backend refused a request on `lost`, a session it
/// no longer knows (`e`).
async fn new_session(
    backend: &Arc<Backend>,
    lost: &Arc<Client>,
    e: &janus_client::Error,
) -> Result<Arc<Client>, janus_client::Error> {
    tracing::debug!("the backend forgot the bridge's session: the request goes again on a new one");
    // NB. Only the session that was lost is made again: requests refused together make
    // one new session, not one each.
    if backend.client().is_ok_and(|now| Arc::ptr_eq(&now, lost)) {
        backend.failed(e);
    }
    backend.back_within(RESTART_WAIT).await
}

/// How long a request waits for a backend being started again before it fails.
const RESTART_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The key of the `n`th input (from 0) a call asks, over all its rounds: `input`, then
/// `input_2`, `input_3`, ...
fn input_key(n: usize) -> String {
    if n == 0 {
        "input".to_owned()
    } else {
        format!("input_{}", n + 1)
    }
}

/// Parks the call with the backend's `asked` questions and puts them to the front's client
/// in one round: the `input_required` the front request ends with. The call back when the
/// front can forward none of them (each is refused at the backend, saying why). One whose
/// capability the front's client did not declare is the server core's to refuse (`-32021`,
/// or a tool error on a handshake session), which ends the call parked for it.
fn put_to_front(
    backend: &Backend,
    mut flight: InFlight,
    asked: Vec<Asked>,
    modern: bool,
) -> Result<Halt, InFlight> {
    let mut round = InputRequired::new();
    let mut kept = Vec::with_capacity(asked.len());
    for a in asked {
        let q = &a.question;
        match InputRequest::forwarded(
            q.method,
            Some(q.params.as_str()).filter(|p| !p.trim().is_empty()),
        ) {
            Ok(req) => {
                round = round.ask(&a.key, req);
                kept.push(a);
            }
            Err(e) => {
                let _ = a.question.answer.send(Err(janus_client::Rejection {
                    code: i64::from(janus_codec::INVALID_PARAMS),
                    message: format!("the bridge cannot forward it: {e}"),
                    data: None,
                }));
            }
        }
    }
    if kept.is_empty() {
        return Err(flight);
    }
    let ended = keep_parked(&mut flight);
    let token = backend.router().park(flight, kept, modern);
    // NB. Within the task: a front task (the work of a call that runs as one, which started
    // before the backend asked) waits for the answers in `input_required`; a plain call
    // ignores the mark.
    Ok(round
        .state(&token)
        .within_task()
        .ends_on(ended)
        .takes_refusals()
        .into())
}

/// Keeps a call followed while it is parked: a task polls it, so that a call that fails
/// meanwhile (the backend exited, or did not answer in time) is seen at once. Its end comes
/// back through `flight.call` as before; a failure also resolves the future returned, which
/// ends a handshake session's round with it ([`InputRequired::ends_on`]) instead of leaving
/// the front's request to wait for its client's answers. Dropping the flight still ends the
/// call at the backend.
fn keep_parked(flight: &mut InFlight) -> impl Future<Output = RpcError> + Send + 'static {
    let (mut to_flight, from_task) = tokio::sync::oneshot::channel();
    let (failed, on_failure) = tokio::sync::oneshot::channel();
    let call = std::mem::replace(
        &mut flight.call,
        Box::pin(async move {
            from_task.await.unwrap_or_else(|_| {
                Err(janus_client::Error::Session(
                    "the backend call ended while it waited for input".into(),
                ))
            })
        }),
    );
    tokio::spawn(async move {
        let ended = tokio::select! {
            r = call => Some(r),
            // NB. The flight was dropped: so is the call, which ends it at the backend.
            () = to_flight.closed() => None,
        };
        if let Some(r) = ended {
            if let Err(e) = &r {
                let _ = failed.send(rejection_of(e));
            }
            let _ = to_flight.send(r);
        }
    });
    async move {
        match on_failure.await {
            Ok(e) => e,
            // NB. The call ended well (its answer waits for the retry), or was dropped.
            Err(_) => std::future::pending().await,
        }
    }
}

/// Drives a backend call for one front request: its progress to the request, a front
/// cancel to the backend, its end as the answer; a question of the backend's parks it and
/// answers the front request `input_required` (or, on a session, a server request).
fn drive<T: Send + 'static>(
    mut flight: InFlight,
    ctx: janus_server_core::Context,
    backend: Arc<Backend>,
    answer: fn(Answer) -> Result<T, Halt>,
    tool: bool,
) -> janus_server_core::ctx::BoxFuture<Result<T, Halt>> {
    Box::pin(async move {
        loop {
            // NB. Without patience the call is followed to its end.
            match follow_call(flight, &ctx, &backend, None, tool).await? {
                Ending::Answered(a) => return answer(a),
                Ending::Later(f) => flight = f,
            }
        }
    })
}

/// Where [`follow_call`] left a backend call.
enum Ending {
    /// The backend answered.
    Answered(Answer),
    /// Still in flight when the patience ran out.
    Later(InFlight),
}

/// Follows a backend call for one front request until it ends, or `patience` runs out:
/// its progress and log messages to the request, a front cancel to the backend; a question
/// of the backend's parks the call and ends the front request with the round to ask (or,
/// on a session, server requests).
async fn follow_call(
    mut flight: InFlight,
    ctx: &janus_server_core::Context,
    backend: &Arc<Backend>,
    patience: Option<std::time::Duration>,
    tool: bool,
) -> Result<Ending, Halt> {
    let timer = async {
        match patience {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(timer);
    loop {
        // NB. Biased: what the backend sent before its answer (progress, log messages,
        // requests for input) is taken before the answer, and the answer before the end of
        // the patience.
        let next = tokio::select! {
            biased;
            e = flight.questions.recv() => match e {
                Event::Ask(q) => Next::Asked(q),
                Event::Log(m) => Next::Logged(m),
            },
            Some(p) = async {
                match flight.progress.as_mut() {
                    Some(rx) => rx.recv().await,
                    None => std::future::pending().await,
                }
            } => Next::Heard(p),
            () = ctx.cancelled() => Next::Cancelled,
            r = &mut flight.call => Next::Done(r),
            () = &mut timer => Next::Later,
        };
        match next {
            Next::Heard(p) => {
                if flight.progressed.is_none_or(|last| p.progress > last) {
                    flight.progressed = Some(p.progress);
                    ctx.progress(p.progress, p.total, p.message.as_deref());
                }
            }
            Next::Logged(m) => log(ctx, m),
            Next::Later => return Ok(Ending::Later(flight)),
            Next::Cancelled => {
                // NB. A front request cancelled stops the backend's work too.
                flight.cancel.fire();
                drop(flight);
                return Err(RpcError::new(janus_codec::INTERNAL_ERROR, "cancelled").into());
            }
            Next::Asked(q) => {
                // NB. A backend that asks several things at once: the questions already on
                // their way join this round (a later one waits for the next).
                // (Turns are given while more come: two at least, eight at most.)
                let mut questions = vec![q];
                for turn in 0..8 {
                    tokio::task::yield_now().await;
                    let mut came = false;
                    while let Some(e) = flight.questions.try_recv() {
                        came = true;
                        match e {
                            Event::Ask(q) => questions.push(q),
                            Event::Log(m) => log(ctx, m),
                        }
                    }
                    if !came && turn >= 1 {
                        break;
                    }
                }
                let first = flight.asked;
                flight.asked += questions.len();
                let asked = questions
                    .into_iter()
                    .enumerate()
                    .map(|(n, question)| Asked {
                        key: input_key(first + n),
                        question,
                    })
                    .collect();
                match put_to_front(backend, flight, asked, ctx.version().is_modern()) {
                    Ok(halt) => return Err(halt),
                    Err(back) => flight = back,
                }
            }
            Next::Done(Ok(r)) => {
                // NB. A log message the backend sent just before its answer was queued
                // before it: routed now, then sent with the request.
                backend.router().route_heard();
                while let Some(Event::Log(m)) = flight.questions.try_recv() {
                    log(ctx, m);
                }
                return Ok(Ending::Answered(r));
            }
            Next::Done(Err(e)) => {
                // NB. A handshake front's tool call that cannot have the input it needs is
                // a tool error, as `janus serve` answers it (-32021 is 2026-07-28's).
                if tool
                    && !ctx.version().is_modern()
                    && let Some(text) = tool_failure(&e)
                {
                    return Ok(Ending::Answered(Answer::Passed(ToolResult {
                        content: vec![janus_model::content::Content::text(&text)],
                        structured: None,
                        is_error: true,
                        meta: None,
                    })));
                }
                return Err(halted(backend, &e));
            }
        }
    }
}

/// The tool error a handshake front's call gets for a backend call that failed for want of
/// the client's input: the backend's `-32021` (the front's client did not declare the
/// capability), or the front client's refusal of the backend's question.
fn tool_failure(e: &janus_client::Error) -> Option<String> {
    match e {
        janus_client::Error::Rejected(r)
            if r.code == i64::from(janus_codec::MISSING_CLIENT_CAPABILITY) =>
        {
            let needs = r
                .data
                .as_deref()
                .and_then(|d| RawJson::parse(d).ok())
                .and_then(|d| d.get("requiredCapabilities"))
                .map(|c| {
                    c.members()
                        .into_iter()
                        .map(|(k, _)| k.into_owned())
                        .collect::<Vec<_>>()
                })
                .filter(|n| !n.is_empty())
                .map_or_else(|| "a capability".to_owned(), |n| n.join(", "));
            Some(format!(
                "This tool needs input the client cannot give: it did not declare {needs}"
            ))
        }
        janus_client::Error::InputRefused(why) => Some(format!("The client failed: {why}")),
        _ => None,
    }
}

/// Sends a backend's log message with the front request: the request says which levels
/// it wants (the backend was asked for every level).
fn log(ctx: &janus_server_core::Context, m: janus_client::LogMessage) {
    let level = LogLevel::from_wire(&m.level).unwrap_or(LogLevel::Info);
    let data = Json::parse(m.data).unwrap_or_else(|_| Json::string("?"));
    ctx.log(level, m.logger.as_deref(), &data);
}

/// The JSON-RPC error a front request gets for a backend's failure: the backend's own
/// rejection as it gave it, or `-32603` with `data.reason` saying what went wrong on the way
/// (the backend exited, did not answer in time, broke the protocol).
#[must_use]
pub fn rejection_of(e: &janus_client::Error) -> RpcError {
    use janus_codec::{INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, UNSUPPORTED_PROTOCOL_VERSION};
    match e {
        janus_client::Error::Rejected(r) => {
            let data = r.data.as_deref().map(Json::parse).and_then(Result::ok);
            match i32::try_from(r.code) {
                // NB. These say what the backend made of the bridge's own request (its
                // framing, its revision), not of the front's: the front's client hears that
                // the bridge failed, and why.
                Ok(PARSE_ERROR | INVALID_REQUEST | UNSUPPORTED_PROTOCOL_VERSION) | Err(_) => {
                    failed(&format!("the backend answered {r}"))
                }
                // NB. A backend's own internal error (or a malformed error object) says why
                // in `data.reason` when it gave no data of its own.
                Ok(INTERNAL_ERROR) if data.is_none() => {
                    RpcError::new(INTERNAL_ERROR, r.message.clone()).with_data(
                        janus_model::shape::reason(&format!("the backend: {}", r.message)),
                    )
                }
                Ok(code) => {
                    let e = RpcError::new(code, r.message.clone());
                    match data {
                        Some(data) => e.with_data(data),
                        None => e,
                    }
                }
            }
        }
        other => {
            // NB. The backend's stderr stays in the bridge's log.
            tracing::warn!("a request to the backend failed: {other}");
            failed(&format!("the backend: {}", other.without_stderr()))
        }
    }
}

/// `-32603 Internal error` saying `why` in `data.reason`.
fn failed(why: &str) -> RpcError {
    RpcError::new(janus_codec::INTERNAL_ERROR, "Internal error")
        .with_data(janus_model::shape::reason(why))
}
