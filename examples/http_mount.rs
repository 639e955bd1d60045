//! The MCP endpoint mounted in an existing hyper application, beside its other routes:
//! `/health` answers `ok`, `/mcp` is Janus (`McpService`, a `tower::Service`), anything else
//! is `404`. The same service mounts under any path in axum or any tower stack.
//!
//! `cargo run --example http_mount -- 127.0.0.1:7002` (port 0, the default, picks a free one);
//! it prints `listening on ADDR` once it accepts connections.

use bytes::Bytes;
use http_body_util::{Either, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use janus_server_core::demo;
use janus_server_core::http::{HttpConfig, McpBody, McpService};
use std::convert::Infallible;
use std::io::Write;

type Body = Either<McpBody, Full<Bytes>>;

async fn route(mcp: McpService, req: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    match req.uri().path() {
        "/health" => Ok(Response::new(Either::Right(Full::new(Bytes::from_static(
            b"ok",
        ))))),
        "/mcp" => {
            let mut mcp = mcp;
            let r = tower_call(&mut mcp, req).await;
            Ok(r.map(Either::Left))
        }
        _ => {
            let mut r = Response::new(Either::Right(Full::new(Bytes::new())));
            *r.status_mut() = StatusCode::NOT_FOUND;
            Ok(r)
        }
    }
}

/// Calls the endpoint as any tower stack would.
async fn tower_call(mcp: &mut McpService, req: Request<Incoming>) -> Response<McpBody> {
    use janus_server_core::http::tower_service::Service as _;
    match mcp.call(req).await {
        Ok(r) => r,
        Err(never) => match never {},
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("listening on {}", listener.local_addr()?);
    std::io::stdout().flush()?;
    let mcp = McpService::new(demo::server(), HttpConfig::default());
    loop {
        let (stream, _) = listener.accept().await?;
        let mcp = mcp.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| route(mcp.clone(), req));
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ =
                hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new())
                    .serve_connection(io, service)
                    .await;
        });
    }
}
