//! The end-to-end comparison: MCP servers over stdio, pipelined and closed loop, both eras.
//!
//! Every target is measured in turn for each (era, payload), runs interleaved, so a drift of
//! the machine's speed hits every server alike. Figures are medians over runs; the ratios
//! against Janus are the medians of the ratios of each run's pair.

use crate::load::{self, Budget, Era, Resources, Target};
use crate::units::{rate, secs, size};
use serde::Serialize;
use std::fmt;
use std::io::{self, Write as _};
use std::time::Duration;

/// How much load each measurement sends.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// The name of the plan (`quick`, `full`, `smoke`).
    pub name: &'static str,
    /// Time of one pipelined measurement.
    #[serde(serialize_with = "secs")]
    pub pipelined: Duration,
    /// Time of one closed-loop measurement.
    #[serde(serialize_with = "secs")]
    pub closed_loop: Duration,
    /// Requests in flight in a pipelined run.
    pub window: usize,
    /// The echoed text's lengths for pipelined runs.
    pub payloads: Vec<usize>,
    /// Runs of each measurement (odd, for a clean median).
    pub runs: usize,
    /// The most requests of one measurement.
    pub max_requests: u64,
    /// Connections of the mixed-era TCP run (half legacy, half modern); 0 for none.
    pub mixed_connections: usize,
}

impl Plan {
    /// Under a minute on two cores: the default of `janus bench`.
    #[must_use]
    pub fn quick() -> Self {
        Self {
            name: "quick",
            pipelined: Duration::from_millis(300),
            closed_loop: Duration::from_millis(250),
            window: 256,
            payloads: vec![16, 1024, 64 * 1024, 1 << 20],
            runs: 3,
            max_requests: 10_000_000,
            mixed_connections: 8,
        }
    }

    /// Longer measurements and more runs (`janus bench --full`).
    #[must_use]
    pub fn full() -> Self {
        Self {
            name: "full",
            pipelined: Duration::from_secs(2),
            closed_loop: Duration::from_secs(1),
            runs: 5,
            ..Self::quick()
        }
    }

    /// Tiny counts: every server and every check, in seconds (`janus bench --smoke`, CI).
    #[must_use]
    pub fn smoke() -> Self {
        Self {
            name: "smoke",
            pipelined: Duration::from_millis(50),
            closed_loop: Duration::from_millis(30),
            window: 64,
            payloads: vec![16, 64 * 1024],
            runs: 1,
            max_requests: 2_000,
            mixed_connections: 4,
        }
    }

    fn budget(&self, time: Duration) -> Budget {
        Budget {
            time,
            max_requests: self.max_requests,
        }
    }
}

/// Pipelined figures of one target, era and payload.
#[derive(Debug, Clone, Serialize)]
pub struct Pipelined {
    /// The echoed text's length.
    pub payload: usize,
    /// Median requests per second.
    pub per_sec: f64,
    /// Median over runs of Janus's rate over this target's rate.
    pub janus_over_this: f64,
}

/// Closed-loop latency of one target and era (16 B echo), in microseconds.
#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    /// Median p50.
    pub p50: f64,
    /// Median p90.
    pub p90: f64,
    /// Median p99.
    pub p99: f64,
    /// Median p99.9.
    pub p999: f64,
    /// Median max.
    pub max: f64,
}

/// All figures of one target in one era.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The target's name.
    pub target: String,
    /// `legacy` or `modern`.
    pub era: &'static str,
    /// One entry per payload.
    pub pipelined: Vec<Pipelined>,
    /// Closed loop, 16 B.
    pub latency: Latency,
    /// CPU time per request of the 16 B pipelined run (the process's whole life over the
    /// requests it answered), in microseconds; `None` where `/proc` is not readable.
    pub cpu_us_per_request: Option<f64>,
    /// The largest peak resident set size over the runs, in MiB.
    pub peak_rss_mib: Option<f64>,
}

/// The mixed-era TCP run of Janus.
#[derive(Debug, Clone, Serialize)]
pub struct Mixed {
    /// Connections, half of each era.
    pub connections: usize,
    /// Median requests per second over all connections.
    pub per_sec: f64,
}

/// One server-surface workload of one target and era, pipelined over stdio.
#[derive(Debug, Clone, Serialize)]
pub struct SurfaceRow {
    /// What each request is.
    pub workload: &'static str,
    /// The target's name.
    pub target: String,
    /// `legacy` or `modern`.
    pub era: &'static str,
    /// Median requests per second.
    pub per_sec: f64,
    /// Median over runs of Janus's rate over this target's rate.
    pub janus_over_this: f64,
}

/// The server-surface workloads: a name, the request (method and params members) and the
/// start of the `"text"` every answer must hold.
fn surface_workloads() -> Vec<(&'static str, &'static str, String, Vec<u8>)> {
    let mut text = bytes::BytesMut::new();
    janus_codec::encode::write_str(&mut text, &janus_server_core::demo::text_64k());
    vec![
        (
            "resources/read 64 KiB",
            "resources/read",
            format!(r#""uri":"{}""#, janus_server_core::demo::TEXT_64K_URI),
            text.to_vec(),
        ),
        (
            "prompts/get",
            "prompts/get",
            r#""name":"greet","arguments":{"name":"Ann"}"#.to_owned(),
            br#""Write a short, friendly greeting for Ann.""#.to_vec(),
        ),
    ]
}

/// The whole end-to-end report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The plan that was run.
    pub plan: Plan,
    /// Targets that were looked for but not found, with the reason.
    pub absent: Vec<(String, String)>,
    /// One row per target and era.
    pub rows: Vec<Row>,
    /// The mixed-era run, when the plan has one.
    pub mixed: Option<Mixed>,
    /// The server-surface workloads, per target that serves them and era.
    pub surface: Vec<SurfaceRow>,
    /// The streamable HTTP comparison, when it was run.
    pub http: Option<crate::http_bench::HttpReport>,
    /// The client comparison, when it was run.
    pub client: Option<crate::client_bench::ClientReport>,
}

/// The name of the bridge's row: `janus bridge` in front of `janus serve` on stdio, spoken
/// to in a handshake revision.
pub const BRIDGE: &str = "janus bridge (legacy backend)";

/// The name of the relay floor's row: `janus serve` behind a process that copies bytes both
/// ways (the least any bridge in a process of its own adds).
pub const RELAY: &str = "relay floor (janus serve)";

/// The name of the row of `janus bridge` in front of python-sdk v1's FastMCP.
pub const BRIDGE_PY_V1: &str = "janus bridge -> python-sdk v1";

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Progress on stderr, one line rewritten in place.
struct Progress {
    done: usize,
    total: usize,
    /// Only a terminal gets the progress line; a log would fill with it.
    shown: bool,
}

impl Progress {
    fn step(&mut self, what: &str) {
        self.done += 1;
        if !self.shown {
            return;
        }
        let mut e = io::stderr().lock();
        let _ = write!(e, "\r\x1b[2K[{}/{}] {what}", self.done, self.total);
        let _ = e.flush();
    }

    fn end(&self) {
        if self.shown {
            let _ = write!(io::stderr().lock(), "\r\x1b[2K");
        }
    }
}

#[derive(Default, Clone)]
struct Samples {
    rates: Vec<Vec<f64>>,
    p50: Vec<f64>,
    p90: Vec<f64>,
    p99: Vec<f64>,
    p999: Vec<f64>,
    max: Vec<f64>,
    cpu_per_req: Vec<f64>,
    rss: Vec<f64>,
}

/// Runs the plan on every target (the first must be Janus), in both eras.
///
/// # Errors
///
/// The first failed run: a lost, duplicated or wrong answer, or a server that fails.
pub fn run(
    targets: &[Target],
    absent: Vec<(String, String)>,
    mixed_server: Option<&Target>,
    plan: Plan,
) -> io::Result<Report> {
    let eras = [Era::Legacy, Era::Modern];
    let mut samples = vec![vec![Samples::default(); targets.len()]; eras.len()];
    for per_era in &mut samples {
        for s in per_era.iter_mut() {
            s.rates = vec![Vec::new(); plan.payloads.len()];
        }
    }
    let mut progress = Progress {
        done: 0,
        total: plan.runs.max(1)
            * (eras.len() * targets.len() * (plan.payloads.len() + 1)
                + eras.len() * 2 * targets.iter().filter(|t| t.surface).count()
                + usize::from(mixed_server.is_some() && plan.mixed_connections > 0)),
        shown: std::io::IsTerminal::is_terminal(&io::stderr()),
    };
    let small = load::payload(16);
    for _ in 0..plan.runs.max(1) {
        for (e, &era) in eras.iter().enumerate() {
            for (p, &len) in plan.payloads.iter().enumerate() {
                let text = load::payload(len);
                for (t, target) in targets.iter().enumerate() {
                    progress.step(&format!("{} {} pipelined {len} B", target.name, era.name()));
                    if (target.light && p > 0) || (target.legacy_only && era == Era::Modern) {
                        continue;
                    }
                    let r = load::pipelined(
                        target,
                        era,
                        plan.budget(plan.pipelined),
                        plan.window,
                        &text,
                    )?;
                    let s = &mut samples[e][t];
                    s.rates[p].push(r.per_sec());
                    if len == 16
                        && let Some(Resources { cpu, peak_rss_kib }) = r.resources
                    {
                        s.cpu_per_req
                            .push(cpu.as_secs_f64() * 1e6 / r.requests as f64);
                        s.rss.push(peak_rss_kib as f64 / 1024.0);
                    }
                }
            }
            for (t, target) in targets.iter().enumerate() {
                progress.step(&format!("{} {} closed loop", target.name, era.name()));
                if target.legacy_only && era == Era::Modern {
                    continue;
                }
                let (h, r) = load::closed_loop(target, era, plan.budget(plan.closed_loop), &small)?;
                let s = &mut samples[e][t];
                let us = |q: f64| h.value_at_quantile(q) as f64 / 1e3;
                s.p50.push(us(0.50));
                s.p90.push(us(0.90));
                s.p99.push(us(0.99));
                s.p999.push(us(0.999));
                s.max.push(h.max() as f64 / 1e3);
                if let Some(res) = r.resources {
                    s.rss.push(res.peak_rss_kib as f64 / 1024.0);
                }
            }
        }
    }
    // The server surface: the targets that serve it, on the same requests.
    let workloads = surface_workloads();
    let serving: Vec<&Target> = targets.iter().filter(|t| t.surface).collect();
    let mut surface_rates =
        vec![vec![vec![Vec::new(); serving.len()]; workloads.len()]; eras.len()];
    for _ in 0..plan.runs.max(1) {
        for (e, &era) in eras.iter().enumerate() {
            for (w, (name, method, members, want)) in workloads.iter().enumerate() {
                for (t, target) in serving.iter().enumerate() {
                    progress.step(&format!("{} {} {name}", target.name, era.name()));
                    let r = load::pipelined_template(
                        target,
                        era,
                        plan.budget(plan.pipelined),
                        plan.window,
                        load::RequestTemplate::call(era, method, members),
                        Some(want.clone()),
                    )?;
                    surface_rates[e][w][t].push(r.per_sec());
                }
            }
        }
    }
    let mut surface = Vec::new();
    for (e, &era) in eras.iter().enumerate() {
        for (w, (name, ..)) in workloads.iter().enumerate() {
            for (t, target) in serving.iter().enumerate() {
                let rates = &surface_rates[e][w];
                surface.push(SurfaceRow {
                    workload: name,
                    target: target.name.clone(),
                    era: era.name(),
                    per_sec: median(rates[t].clone()),
                    janus_over_this: median(
                        rates[0].iter().zip(&rates[t]).map(|(j, x)| j / x).collect(),
                    ),
                });
            }
        }
    }
    let mut mixed = None;
    if let (Some(server), true) = (mixed_server, plan.mixed_connections > 0) {
        let mut rates = Vec::new();
        for _ in 0..plan.runs.max(1) {
            progress.step("janus mixed-era TCP");
            rates.push(load::mixed_tcp(
                server,
                plan.mixed_connections,
                plan.budget(plan.pipelined),
                plan.window,
                &small,
            )?);
        }
        mixed = Some(Mixed {
            connections: plan.mixed_connections,
            per_sec: median(rates),
        });
    }
    progress.end();
    let mut rows = Vec::new();
    for (e, &era) in eras.iter().enumerate() {
        for (t, target) in targets.iter().enumerate() {
            let s = &samples[e][t];
            let janus = &samples[e][0];
            let pipelined = plan
                .payloads
                .iter()
                .enumerate()
                .map(|(p, &payload)| Pipelined {
                    payload,
                    per_sec: median(s.rates[p].clone()),
                    janus_over_this: median(
                        janus.rates[p]
                            .iter()
                            .zip(&s.rates[p])
                            .map(|(j, x)| j / x)
                            .collect(),
                    ),
                })
                .collect();
            rows.push(Row {
                target: target.name.clone(),
                era: era.name(),
                pipelined,
                latency: Latency {
                    p50: median(s.p50.clone()),
                    p90: median(s.p90.clone()),
                    p99: median(s.p99.clone()),
                    p999: median(s.p999.clone()),
                    max: median(s.max.clone()),
                },
                cpu_us_per_request: (!s.cpu_per_req.is_empty())
                    .then(|| median(s.cpu_per_req.clone())),
                peak_rss_mib: s.rss.iter().copied().reduce(f64::max),
            });
        }
    }
    Ok(Report {
        plan,
        absent,
        rows,
        mixed,
        surface,
        http: None,
        client: None,
    })
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.plan;
        writeln!(
            f,
            "End to end over stdio ({} plan): echo; pipelined {:.2} s per measurement with {} \
             in flight; closed loop {:.2} s of 16 B requests one at a time; medians of {} \
             interleaved runs. (Nx) = Janus's rate over this server's, pair by pair.",
            p.name,
            p.pipelined.as_secs_f64(),
            p.window,
            p.closed_loop.as_secs_f64(),
            p.runs
        )?;
        writeln!(f)?;
        write!(f, "| server | era |")?;
        for &b in &p.payloads {
            write!(f, " pipelined {} req/s |", size(b))?;
        }
        writeln!(f, " p50 | p90 | p99 | p99.9 | max | CPU/req | peak RSS |")?;
        write!(f, "|---|---|")?;
        for _ in &p.payloads {
            write!(f, "---:|")?;
        }
        writeln!(f, "---:|---:|---:|---:|---:|---:|---:|")?;
        for r in &self.rows {
            write!(f, "| {} | {} |", r.target, r.era)?;
            for c in &r.pipelined {
                if c.per_sec.is_nan() {
                    write!(f, " — |")?;
                } else if r.target == self.rows[0].target {
                    write!(f, " {} |", rate(c.per_sec))?;
                } else {
                    write!(f, " {} ({:.2}x) |", rate(c.per_sec), c.janus_over_this)?;
                }
            }
            let l = &r.latency;
            write!(
                f,
                " {:.1} us | {:.1} us | {:.1} us | {:.1} us | {:.0} us |",
                l.p50, l.p90, l.p99, l.p999, l.max
            )?;
            match r.cpu_us_per_request {
                Some(c) => write!(f, " {c:.2} us |")?,
                None => write!(f, " n/a |")?,
            }
            match r.peak_rss_mib {
                Some(m) => writeln!(f, " {m:.1} MiB |")?,
                None => writeln!(f, " n/a |")?,
            }
        }
        for (name, why) in &self.absent {
            writeln!(f, "| {name} | absent: {why} |")?;
        }
        self.bridge_summary(f)?;
        if let Some(m) = &self.mixed {
            writeln!(f)?;
            writeln!(
                f,
                "Mixed eras over TCP: janus serve --listen, {} connections (half legacy, half \
                 modern), pipelined 16 B echo: {} req/s in all.",
                m.connections,
                rate(m.per_sec)
            )?;
        }
        if !self.surface.is_empty() {
            writeln!(f)?;
            writeln!(
                f,
                "Server surface over stdio, pipelined ({} in flight), the same content on every \
                 server: resources/read of a 64 KiB text resource, prompts/get of a one-message \
                 prompt. (Nx) = Janus's rate over this server's.",
                p.window
            )?;
            writeln!(f)?;
            writeln!(f, "| workload | server | era | req/s |")?;
            writeln!(f, "|---|---|---|---:|")?;
            for r in &self.surface {
                if r.target == self.surface[0].target {
                    writeln!(
                        f,
                        "| {} | {} | {} | {} |",
                        r.workload,
                        r.target,
                        r.era,
                        rate(r.per_sec)
                    )?;
                } else {
                    writeln!(
                        f,
                        "| {} | {} | {} | {} ({:.2}x) |",
                        r.workload,
                        r.target,
                        r.era,
                        rate(r.per_sec),
                        r.janus_over_this
                    )?;
                }
            }
        }
        if let Some(h) = &self.http {
            writeln!(f)?;
            write!(f, "{h}")?;
        }
        if let Some(c) = &self.client {
            writeln!(f)?;
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl Report {
    /// The bridge's cost, from its rows: a 2026-07-28 client through `janus bridge` in front
    /// of `janus serve` spoken to in a handshake revision, against `janus serve` answering a
    /// legacy client directly (the #36 goals: at least 0.7x the rate, at most 10 us added at
    /// p50).
    fn bridge_summary(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row = |target: &str, era: &str| {
            self.rows
                .iter()
                .find(|r| r.target == target && r.era == era)
        };
        let (Some(through), Some(direct)) = (
            row(BRIDGE, Era::Modern.name()),
            row(&self.rows[0].target, Era::Legacy.name()),
        ) else {
            return Ok(());
        };
        let (Some(t), Some(d)) = (through.pipelined.first(), direct.pipelined.first()) else {
            return Ok(());
        };
        let ratio = t.per_sec / d.per_sec;
        let added = through.latency.p50 - direct.latency.p50;
        writeln!(f)?;
        writeln!(
            f,
            "janus bridge over stdio: a 2026-07-28 client through the bridge in front of janus \
             serve spoken to as 2025-06-18, against janus serve answering a legacy client \
             directly: pipelined {} B {} req/s against {} ({ratio:.2}x, goal >= 0.7: {}); \
             closed-loop p50 {:.1} us against {:.1} us ({added:+.1} us, goal <= 10: {}).",
            t.payload,
            rate(t.per_sec),
            rate(d.per_sec),
            if ratio >= 0.7 { "met" } else { "NOT met" },
            through.latency.p50,
            direct.latency.p50,
            if added <= 10.0 { "met" } else { "NOT met" },
        )?;
        // NB. What any bridge in a process of its own adds at least, on this machine.
        if let Some(relay) = row(RELAY, Era::Legacy.name())
            && let Some(r) = relay.pipelined.first()
        {
            writeln!(
                f,
                "The relay floor (janus serve behind a process that only copies bytes, both \
                 ways: the least a bridge in its own process adds): pipelined {} req/s \
                 ({:.2}x direct; the bridge {:.2}x of it); closed-loop p50 {:.1} us \
                 ({:+.1} us over direct; the bridge {:+.1} us over it).",
                rate(r.per_sec),
                r.per_sec / d.per_sec,
                t.per_sec / r.per_sec,
                relay.latency.p50,
                relay.latency.p50 - direct.latency.p50,
                through.latency.p50 - relay.latency.p50,
            )?;
        }
        let (Some(through), Some(direct)) = (
            row(BRIDGE_PY_V1, Era::Modern.name()),
            self.rows
                .iter()
                .find(|r| r.target.starts_with("python-sdk v1") && r.era == Era::Legacy.name()),
        ) else {
            return Ok(());
        };
        let (Some(t), Some(d)) = (through.pipelined.first(), direct.pipelined.first()) else {
            return Ok(());
        };
        writeln!(
            f,
            "janus bridge in front of python-sdk v1's FastMCP: a 2026-07-28 client through the \
             bridge, pipelined {} B {} req/s against {} for a legacy client of the server \
             directly ({:.2}x, goal: the backend's own rate); closed-loop p50 {:.1} us against \
             {:.1} us.",
            t.payload,
            rate(t.per_sec),
            rate(d.per_sec),
            t.per_sec / d.per_sec,
            through.latency.p50,
            direct.latency.p50,
        )
    }

    /// An SVG chart: pipelined throughput by payload (log scale) and closed-loop p50, per
    /// server and era.
    #[must_use]
    pub fn svg(&self) -> String {
        let colors = [
            "#1f77b4", "#d62728", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
        ];
        let (w, h) = (900.0_f64, 420.0_f64);
        let mut s = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">"#
        );
        s.push_str(r#"<rect width="100%" height="100%" fill="white"/>"#);
        s.push_str(r#"<text x="10" y="18" font-size="14">Pipelined echo, requests/s (log scale), by payload</text>"#);
        let groups = self.plan.payloads.len() * 2;
        let group_w = (w - 60.0) / groups as f64;
        let bars = self.rows.len() / 2;
        let top = 30.0;
        let plot_h = h - 130.0;
        let y_of = |v: f64| {
            let lv = v.max(1.0).log10().clamp(2.0, 8.0);
            top + plot_h * (1.0 - (lv - 2.0) / 6.0)
        };
        for dec in 2..=8 {
            let y = y_of(10f64.powi(dec));
            s.push_str(&format!(
                r##"<line x1="50" x2="{w}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="5" y="{:.1}">1e{dec}</text>"##,
                y + 4.0
            ));
        }
        for (e, era) in ["legacy", "modern"].iter().enumerate() {
            for (p, &payload) in self.plan.payloads.iter().enumerate() {
                let g = e * self.plan.payloads.len() + p;
                let x0 = 55.0 + g as f64 * group_w;
                let bw = (group_w - 10.0) / bars.max(1) as f64;
                for (b, row) in self.rows.iter().filter(|r| r.era == *era).enumerate() {
                    let v = row.pipelined[p].per_sec;
                    let y = y_of(v);
                    s.push_str(&format!(
                        r#"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{} {era} {}: {:.0} req/s</title></rect>"#,
                        x0 + b as f64 * bw,
                        bw - 1.0,
                        top + plot_h - y,
                        colors[b % colors.len()],
                        row.target,
                        size(payload),
                        v
                    ));
                }
                s.push_str(&format!(
                    r#"<text x="{:.1}" y="{:.1}">{era} {}</text>"#,
                    x0,
                    top + plot_h + 14.0,
                    size(payload)
                ));
            }
        }
        let legend_y = h - 70.0;
        for (b, row) in self.rows.iter().filter(|r| r.era == "legacy").enumerate() {
            let lat: Vec<String> = self
                .rows
                .iter()
                .filter(|r| r.target == row.target)
                .map(|r| format!("{} p50 {:.1} us", r.era, r.latency.p50))
                .collect();
            s.push_str(&format!(
                r#"<rect x="60" y="{:.1}" width="10" height="10" fill="{}"/><text x="76" y="{:.1}">{}: closed-loop {}</text>"#,
                legend_y + b as f64 * 15.0,
                colors[b % colors.len()],
                legend_y + 9.0 + b as f64 * 15.0,
                row.target,
                lat.join(", ")
            ));
        }
        s.push_str("</svg>\n");
        s
    }

    /// Writes `report.json`, `chart.svg` and (with the HTTP comparison) `chart-http.svg` into
    /// `dir`; returns their paths.
    ///
    /// # Errors
    ///
    /// When the folder or the files cannot be written.
    pub fn save(&self, dir: &std::path::Path) -> io::Result<Vec<std::path::PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let json = dir.join("report.json");
        let svg = dir.join("chart.svg");
        std::fs::write(
            &json,
            serde_json::to_vec_pretty(self).map_err(io::Error::other)?,
        )?;
        std::fs::write(&svg, self.svg())?;
        let mut paths = vec![json, svg];
        if let Some(h) = &self.http {
            let http_svg = dir.join("chart-http.svg");
            std::fs::write(&http_svg, h.svg())?;
            paths.push(http_svg);
        }
        Ok(paths)
    }
}
