//! `janus serve --metrics ADDR`: `/metrics` in the Prometheus text format (the `metrics`
//! facade and its Prometheus exporter), `/healthz` (alive) and `/readyz` (the store
//! reachable, not draining) for a balancer; `janus bridge --metrics` serves the same, with
//! its backend's state.
//!
//! What is measured: requests by method, era and outcome, and their latency (told by the
//! HTTP endpoint, [`janus_server_core::http::Observe`]); the sessions and streams it holds
//! open (read at each scrape); each store operation's latency and failures, and the tasks
//! made ([`Observed`]).

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Request, Response, StatusCode};
use janus_server_core::http::{Era, HttpStats, Observe};
use janus_server_core::input::InputRequest;
use janus_server_core::store::{StoreFuture, TaskStore};
use janus_server_core::tasks::{Outcome, Parked, Status, Task};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The latency buckets, in seconds: 50 µs to 30 s.
const BUCKETS: [f64; 16] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 5.0, 30.0,
];

/// Installs the process's recorder; the handle renders what it holds.
pub(crate) fn install() -> Result<PrometheusHandle, String> {
    PrometheusBuilder::new()
        .set_buckets(&BUCKETS)
        .map_err(|e| e.to_string())?
        .install_recorder()
        .map_err(|e| e.to_string())
}

/// The outcome label of an answer: `ok`, or the JSON-RPC error code (those MCP and JSON-RPC
/// define; any other is `error`, so labels stay few).
fn outcome(error: Option<i32>) -> &'static str {
    match error {
        None => "ok",
        Some(-32700) => "-32700",
        Some(-32600) => "-32600",
        Some(-32601) => "-32601",
        Some(-32602) => "-32602",
        Some(-32603) => "-32603",
        Some(-32001) => "-32001",
        Some(-32002) => "-32002",
        Some(-32020) => "-32020",
        Some(-32042) => "-32042",
        Some(-32800) => "-32800",
        Some(_) => "error",
    }
}

/// Tells the recorder of each request the HTTP endpoint answers.
#[derive(Debug)]
pub(crate) struct Requests;

impl Observe for Requests {
    fn answered(&self, method: &'static str, era: Era, error: Option<i32>, took: Duration) {
        let era = era.as_str();
        metrics::counter!("mcp_requests_total", "method" => method, "era" => era, "outcome" => outcome(error))
            .increment(1);
        metrics::histogram!("mcp_request_duration_seconds", "method" => method, "era" => era)
            .record(took.as_secs_f64());
    }
}

/// Sets the gauges of a bridge's backend: connected (1 or 0), and the times it was
/// connected again.
pub(crate) fn bridge_backend(connected: bool, reconnects: u64) {
    metrics::gauge!("janus_bridge_backend_connected").set(if connected { 1.0 } else { 0.0 });
    metrics::counter!("janus_bridge_backend_reconnects_total").absolute(reconnects);
}

/// A task store whose every operation is timed and whose failures are counted.
pub(crate) struct Observed(pub(crate) Arc<dyn TaskStore>);

impl Observed {
    fn time<T: Send + 'static>(op: &'static str, f: StoreFuture<T>) -> StoreFuture<T> {
        Box::pin(async move {
            let started = Instant::now();
            let r = f.await;
            metrics::histogram!("janus_store_duration_seconds", "op" => op)
                .record(started.elapsed().as_secs_f64());
            if r.is_err() {
                metrics::counter!("janus_store_errors_total", "op" => op).increment(1);
            }
            r
        })
    }
}

impl TaskStore for Observed {
    fn create(&self, now_ms: u64, ttl_ms: Option<u64>) -> StoreFuture<Task> {
        let made = self.0.create(now_ms, ttl_ms);
        Self::time(
            "create",
            Box::pin(async move {
                let t = made.await?;
                metrics::counter!("janus_tasks_created_total").increment(1);
                Ok(t)
            }),
        )
    }

    fn get(&self, id: &str, now_ms: u64) -> StoreFuture<Option<Task>> {
        Self::time("get", self.0.get(id, now_ms))
    }

    fn advance(
        &self,
        id: &str,
        now_ms: u64,
        status: Status,
        outcome: Option<Outcome>,
    ) -> StoreFuture<Option<(Task, bool)>> {
        Self::time("advance", self.0.advance(id, now_ms, status, outcome))
    }

    fn cancel(&self, id: &str, now_ms: u64) -> StoreFuture<Option<(Task, bool)>> {
        Self::time("cancel", self.0.cancel(id, now_ms))
    }

    fn park(
        &self,
        id: &str,
        now_ms: u64,
        requests: Vec<(String, InputRequest)>,
        parked: Parked,
    ) -> StoreFuture<Option<Task>> {
        Self::time("park", self.0.park(id, now_ms, requests, parked))
    }

    fn answer(
        &self,
        id: &str,
        now_ms: u64,
        responses: Vec<(String, String)>,
    ) -> StoreFuture<Option<Option<Parked>>> {
        Self::time("answer", self.0.answer(id, now_ms, responses))
    }

    fn list(&self, now_ms: u64, cursor: usize) -> StoreFuture<(Vec<Task>, Option<usize>)> {
        Self::time("list", self.0.list(now_ms, cursor))
    }

    fn expire(&self, now_ms: u64) -> StoreFuture<usize> {
        Self::time("expire", self.0.expire(now_ms))
    }

    fn ended(&self, id: &str) -> StoreFuture<Option<Task>> {
        // NB. Not timed: it lasts as long as the task runs.
        self.0.ended(id)
    }
}

/// What a readiness check gives: `Ok` when ready, else why not.
pub(crate) type ReadyFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), String>> + Send>>;

/// Whether the store lets the process serve, asked at each `/readyz`.
pub(crate) type Ready = Arc<dyn Fn() -> ReadyFuture + Send + Sync>;

/// What the metrics endpoint reads.
pub(crate) struct Endpoint {
    pub(crate) handle: PrometheusHandle,
    /// False once the process drains.
    pub(crate) serving: Arc<AtomicBool>,
    /// What else the process needs to serve (the store: Redis answers and the subscription
    /// is up; a bridge: its backend connected): why not, as a sentence.
    pub(crate) ready: Option<Ready>,
    /// Sets the gauges read at each scrape (a bridge's backend state).
    pub(crate) scrape: Option<Arc<dyn Fn() + Send + Sync>>,
    /// The HTTP endpoint's open sessions and streams.
    pub(crate) stats: Option<Arc<dyn Fn() -> HttpStats + Send + Sync>>,
}

impl Endpoint {
    async fn answer(&self, path: &str) -> (StatusCode, &'static str, String) {
        match path {
            "/metrics" => {
                if let Some(stats) = &self.stats {
                    let s = stats();
                    metrics::gauge!("janus_http_sessions").set(s.sessions as f64);
                    metrics::gauge!("janus_http_streams_open").set(s.streams as f64);
                }
                if let Some(scrape) = &self.scrape {
                    scrape();
                }
                let serving = self.serving.load(Ordering::Relaxed);
                metrics::gauge!("janus_serving").set(if serving { 1.0 } else { 0.0 });
                (
                    StatusCode::OK,
                    "text/plain; version=0.0.4; charset=utf-8",
                    self.handle.render(),
                )
            }
            "/healthz" => (StatusCode::OK, "text/plain", "alive\n".to_owned()),
            "/readyz" => {
                if !self.serving.load(Ordering::Relaxed) {
                    return (
                        StatusCode::SERVICE_UNAVAILABLE,
                        "text/plain",
                        "draining\n".to_owned(),
                    );
                }
                match &self.ready {
                    Some(check) => match check().await {
                        Ok(()) => (StatusCode::OK, "text/plain", "ready\n".to_owned()),
                        Err(why) => (
                            StatusCode::SERVICE_UNAVAILABLE,
                            "text/plain",
                            format!("not ready: {why}\n"),
                        ),
                    },
                    None => (StatusCode::OK, "text/plain", "ready\n".to_owned()),
                }
            }
            _ => (
                StatusCode::NOT_FOUND,
                "text/plain",
                "not found\n".to_owned(),
            ),
        }
    }
}

/// Serves the metrics endpoint on `listener` for as long as the process runs, and keeps the
/// recorder's histograms trimmed.
pub(crate) async fn serve(listener: tokio::net::TcpListener, endpoint: Endpoint) {
    let endpoint = Arc::new(endpoint);
    let upkeep = endpoint.handle.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(5));
        loop {
            every.tick().await;
            upkeep.run_upkeep();
        }
    });
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let endpoint = Arc::clone(&endpoint);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                let endpoint = Arc::clone(&endpoint);
                async move {
                    let (status, kind, body) = if req.method() == hyper::Method::GET {
                        endpoint.answer(req.uri().path()).await
                    } else {
                        (
                            StatusCode::METHOD_NOT_ALLOWED,
                            "text/plain",
                            "GET only\n".to_owned(),
                        )
                    };
                    let mut r = Response::new(Full::new(Bytes::from(body)));
                    *r.status_mut() = status;
                    r.headers_mut().insert(
                        hyper::header::CONTENT_TYPE,
                        hyper::header::HeaderValue::from_static(kind),
                    );
                    Ok::<_, std::convert::Infallible>(r)
                }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(io, service)
                .await;
        });
    }
}

/// Binds the metrics address (at start: a bad one is an error before serving).
pub(crate) async fn bind(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let l = janus_server_core::serve::bind(addr)?;
    tracing::info!(addr = %l.local_addr()?, "metrics listening (/metrics, /healthz, /readyz)");
    Ok(l)
}
