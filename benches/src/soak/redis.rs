//! Task-creating calls on Redis against the in-memory store.

use super::conn::HttpConn;
use super::{Size, bad, janus_http};
use std::io;
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Task-creating calls for `per` rounds on each of `conns` closed-loop connections spread
/// over `addrs`, in legacy sessions (whose tasks say their `ttl`: 1 s, so the in-memory
/// store's bound is never met); the calls per second.
fn task_rate(addrs: &[SocketAddr], conns: usize, per: u64) -> io::Result<f64> {
    let started = Instant::now();
    let threads: Vec<_> = (0..conns)
        .map(|i| {
            let addr = addrs[i % addrs.len()];
            std::thread::spawn(move || -> io::Result<()> {
                let mut c = HttpConn::open(addr)?;
                let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}"#;
                let (_, session, _) = c.post_with(&[], init)?;
                let session = session.ok_or_else(|| bad("no session id"))?;
                let h = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
                c.post_with(&h, br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)?;
                for id in 1..=per {
                    let body = format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":0}},"task":{{"ttl":1}}}}}}"#
                    );
                    let (status, _, answer) = c.post_with(&h, body.as_bytes())?;
                    if status != 200 || memchr::memmem::find(&answer, b"\"taskId\"").is_none() {
                        return Err(bad(format!(
                            "a task-creating call: {status} {}",
                            String::from_utf8_lossy(&answer)
                        )));
                    }
                }
                Ok(())
            })
        })
        .collect();
    for t in threads {
        t.join().map_err(|_| bad("a client panicked"))??;
    }
    Ok((conns as u64 * per) as f64 / started.elapsed().as_secs_f64())
}

/// 10. (`--with-redis`: `redis-server` on PATH) Task-creating calls through three replicas that
///     share one Redis, against one replica with the in-memory store, in the same run.
pub fn redis_tasks(janus: &Path, size: Size) -> io::Result<String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let mut redis = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
        ])
        .args(["--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| bad(format!("redis-server: {e}")))?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            let _ = redis.kill();
            return Err(bad("redis-server did not listen"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let conns = 32;
    let per = (size.long_calls as u64 / 4).max(100);
    let result = (|| {
        let one = janus_http(janus, &[])?;
        let memory = task_rate(&[one.addr], conns, per)?;
        drop(one);
        let url = format!("redis://127.0.0.1:{port}");
        let replicas = (0..3)
            .map(|i| janus_http(janus, &["--store", &url, "--node-id", &format!("r{i}")]))
            .collect::<io::Result<Vec<_>>>()?;
        let addrs: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
        let shared = task_rate(&addrs, conns, per)?;
        Ok::<_, io::Error>((memory, shared))
    })();
    let _ = redis.kill();
    let _ = redis.wait();
    let (memory, shared) = result?;
    Ok(format!(
        "task-creating calls ({conns} closed-loop connections, {} calls): one replica with the in-memory store {memory:.0}/s, three replicas on one Redis {shared:.0}/s ({:.2}x)",
        conns as u64 * per,
        shared / memory
    ))
}
