//! The HTTP comparison: MCP servers on streamable HTTP, both eras, from one to many keep-alive
//! connections.
//!
//! The targets run for the whole comparison; each measurement opens its own connections. For
//! each run, every (connections, payload) is measured on every target in turn, so a drift of
//! the machine's speed hits every server alike. Figures are medians over runs; a ratio is the
//! median of the ratios of each run's pair.

use crate::http_load::{self, HttpTarget, Load, Running};
use crate::load::{self, Era};
use crate::units::{rate, size};
use serde::Serialize;
use std::collections::HashMap;
use std::fmt;
use std::io;
use std::time::Duration;

/// How much load each measurement sends.
#[derive(Debug, Clone, Serialize)]
pub struct HttpPlan {
    /// The name of the plan.
    pub name: &'static str,
    /// Time of one measurement.
    #[serde(serialize_with = "crate::units::secs")]
    pub time: Duration,
    /// The connection counts measured.
    pub connections: Vec<usize>,
    /// The echoed text's lengths.
    pub payloads: Vec<usize>,
    /// Runs of each measurement (odd, for a clean median).
    pub runs: usize,
    /// The most requests of one measurement.
    pub max_requests: u64,
}

impl HttpPlan {
    /// The default of `janus bench`: about a minute on two cores.
    #[must_use]
    pub fn quick() -> Self {
        Self {
            name: "quick",
            time: Duration::from_millis(300),
            connections: vec![1, 16, 64, 256],
            payloads: vec![16, 64 * 1024],
            runs: 3,
            max_requests: 5_000_000,
        }
    }

    /// Longer measurements and more runs.
    #[must_use]
    pub fn full() -> Self {
        Self {
            name: "full",
            time: Duration::from_secs(1),
            runs: 5,
            ..Self::quick()
        }
    }

    /// Every target and check, in seconds (CI).
    #[must_use]
    pub fn smoke() -> Self {
        Self {
            name: "smoke",
            time: Duration::from_millis(50),
            connections: vec![1, 16],
            payloads: vec![16, 64 * 1024],
            runs: 1,
            max_requests: 2_000,
        }
    }
}

/// The figures of one target, era, connection count and payload.
#[derive(Debug, Clone, Serialize)]
pub struct HttpRow {
    /// The target's name.
    pub target: String,
    /// `legacy` or `modern`.
    pub era: &'static str,
    /// Keep-alive connections.
    pub connections: usize,
    /// The echoed text's length.
    pub payload: usize,
    /// Median requests per second.
    pub per_sec: f64,
    /// Median p50 latency, in microseconds.
    pub p50_us: f64,
    /// Median p99 latency, in microseconds.
    pub p99_us: f64,
    /// Median CPU time of the server process per request (user and system, from `/proc`),
    /// in microseconds: what the server itself spends, whatever the load driver costs.
    pub server_cpu_us: Option<f64>,
    /// Median over runs of Janus's rate (same era) over this target's.
    pub janus_over_this: f64,
}

/// One target of the HTTP issue, measured.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// What is compared.
    pub what: String,
    /// The measured ratio.
    pub measured: f64,
    /// The goal (`>=` for throughput, `<=` for latency).
    pub goal: String,
    /// Whether the measurement meets the goal.
    pub met: bool,
}

/// The whole HTTP report.
#[derive(Debug, Clone, Serialize)]
pub struct HttpReport {
    /// The plan that was run.
    pub plan: HttpPlan,
    /// One row per target, era, connections and payload.
    pub rows: Vec<HttpRow>,
    /// The goals, as measured in this run.
    pub checks: Vec<Check>,
}

#[derive(Default, Clone)]
struct Samples {
    rate: Vec<f64>,
    p50: Vec<f64>,
    p99: Vec<f64>,
    cpu: Vec<f64>,
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The per-run ratios of two sample series, and their median.
/// The name of the bridge's row: `janus bridge --http` in front of `janus serve` on stdio,
/// spoken to in a handshake revision; a 2026-07-28 client in front.
pub const BRIDGE: &str = "janus bridge (legacy backend)";

fn ratio(a: &[f64], b: &[f64]) -> f64 {
    median(a.iter().zip(b).map(|(x, y)| x / y).collect())
}

/// Runs the plan on every target (the first must be Janus, serving both eras).
///
/// # Errors
///
/// A target that does not start, or a measurement that fails (a wrong or lost answer).
pub fn run(targets: &[HttpTarget], plan: HttpPlan) -> io::Result<HttpReport> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let running: Vec<Running> = targets
        .iter()
        .map(Running::start)
        .collect::<io::Result<_>>()?;
    let mut samples: HashMap<(usize, &'static str, usize, usize), Samples> = HashMap::new();
    for _ in 0..plan.runs.max(1) {
        for &c in &plan.connections {
            for &p in &plan.payloads {
                let text = load::payload(p);
                for (t, (target, server)) in targets.iter().zip(&running).enumerate() {
                    for &era in &target.eras {
                        let load = Load {
                            connections: c,
                            time: plan.time,
                            max_requests: plan.max_requests,
                        };
                        let before = load::resources(server.pid());
                        let r = http_load::measure(&rt, server.addr, era, load, &text).map_err(
                            |e| {
                                io::Error::other(format!(
                                    "{} {} {c} conns {p} B: {e}",
                                    target.name,
                                    era.name()
                                ))
                            },
                        )?;
                        let s = samples.entry((t, era.name(), c, p)).or_default();
                        s.rate.push(r.per_sec());
                        s.p50.push(r.latency.value_at_quantile(0.5) as f64 / 1e3);
                        s.p99.push(r.latency.value_at_quantile(0.99) as f64 / 1e3);
                        if let (Some(b), Some(a)) = (before, load::resources(server.pid())) {
                            let cpu = a.cpu.saturating_sub(b.cpu);
                            s.cpu
                                .push(cpu.as_secs_f64() * 1e6 / r.requests.max(1) as f64);
                        }
                    }
                }
            }
        }
    }
    drop(running);
    let mut rows = Vec::new();
    for &c in &plan.connections {
        for &p in &plan.payloads {
            for (t, target) in targets.iter().enumerate() {
                for &era in &target.eras {
                    let s = &samples[&(t, era.name(), c, p)];
                    // The floor speaks no era: it is compared with Janus's modern figures.
                    let janus = samples
                        .get(&(0, era.name(), c, p))
                        .or_else(|| samples.get(&(0, Era::Modern.name(), c, p)));
                    rows.push(HttpRow {
                        target: target.name.clone(),
                        era: era.name(),
                        connections: c,
                        payload: p,
                        per_sec: median(s.rate.clone()),
                        p50_us: median(s.p50.clone()),
                        p99_us: median(s.p99.clone()),
                        server_cpu_us: (!s.cpu.is_empty()).then(|| median(s.cpu.clone())),
                        janus_over_this: janus.map_or(f64::NAN, |j| ratio(&j.rate, &s.rate)),
                    });
                }
            }
        }
    }
    let checks = checks(targets, &plan, &samples);
    Ok(HttpReport { plan, rows, checks })
}

/// The goals of the HTTP issue, measured: Janus modern against the floor and against rmcp's
/// stateless JSON mode at 16 and 256 connections, legacy against modern, and the latency of
/// one connection against the floor's.
fn checks(
    targets: &[HttpTarget],
    plan: &HttpPlan,
    samples: &HashMap<(usize, &'static str, usize, usize), Samples>,
) -> Vec<Check> {
    let find = |prefix: &str| targets.iter().position(|t| t.name.starts_with(prefix));
    let (modern, legacy) = (Era::Modern.name(), Era::Legacy.name());
    let mut out = Vec::new();
    for &p in &plan.payloads {
        for &c in plan.connections.iter().filter(|&&c| c >= 16) {
            let j = &samples[&(0, modern, c, p)];
            if let Some(f) = find("floor") {
                let m = ratio(&j.rate, &samples[&(f, modern, c, p)].rate);
                out.push(Check {
                    what: format!("janus modern / floor, {c} conns, {p} B"),
                    measured: m,
                    goal: ">= 0.8".into(),
                    met: m >= 0.8,
                });
            }
            if let Some(r) = find("rmcp 3.11 (stateless") {
                let rm = &samples[&(r, modern, c, p)];
                let m = ratio(&j.rate, &rm.rate);
                out.push(Check {
                    what: format!("janus modern / rmcp stateless JSON, {c} conns, {p} B"),
                    measured: m,
                    goal: ">= 3".into(),
                    met: m >= 3.0,
                });
                if !j.cpu.is_empty() && j.cpu.len() == rm.cpu.len() {
                    let m = ratio(&rm.cpu, &j.cpu);
                    out.push(Check {
                        what: format!(
                            "rmcp stateless JSON / janus modern server CPU per request, {c} conns, {p} B"
                        ),
                        measured: m,
                        goal: ">= 3".into(),
                        met: m >= 3.0,
                    });
                }
            }
            if let Some(l) = samples.get(&(0, legacy, c, p)) {
                let m = ratio(&l.rate, &j.rate);
                out.push(Check {
                    what: format!("janus legacy / janus modern, {c} conns, {p} B"),
                    measured: m,
                    goal: ">= 0.9".into(),
                    met: m >= 0.9,
                });
            }
        }
        if let Some(b) = find(BRIDGE) {
            for &c in &plan.connections {
                let (Some(direct), Some(through)) = (
                    samples.get(&(0, legacy, c, p)),
                    samples.get(&(b, modern, c, p)),
                ) else {
                    continue;
                };
                let m = ratio(&through.rate, &direct.rate);
                out.push(Check {
                    what: format!(
                        "janus bridge (modern, legacy backend) / janus legacy direct, {c} conns, {p} B"
                    ),
                    measured: m,
                    goal: ">= 0.7".into(),
                    met: m >= 0.7,
                });
                if c == 1 {
                    let added = median(through.p50.clone()) - median(direct.p50.clone());
                    out.push(Check {
                        what: format!(
                            "janus bridge p50 added over janus legacy direct, 1 conn, {p} B (us)"
                        ),
                        measured: added,
                        goal: "<= 10".into(),
                        met: added <= 10.0,
                    });
                }
            }
        }
        if let (Some(f), true) = (find("floor"), plan.connections.contains(&1)) {
            let m = ratio(
                &samples[&(0, modern, 1, p)].p50,
                &samples[&(f, modern, 1, p)].p50,
            );
            out.push(Check {
                what: format!("janus modern p50 / floor p50, 1 conn, {p} B"),
                measured: m,
                goal: "<= 1.3".into(),
                met: m <= 1.3,
            });
        }
    }
    out
}

impl fmt::Display for HttpReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Streamable HTTP on loopback ({} plan): echo from a hyper client over keep-alive \
             HTTP/1.1 connections, one request in flight on each; {:.2} s per measurement; \
             medians of {} interleaved runs. (Nx) = Janus's rate (same era) over this server's.",
            self.plan.name,
            self.plan.time.as_secs_f64(),
            self.plan.runs
        )?;
        writeln!(f)?;
        writeln!(
            f,
            "| conns | payload | server | era | req/s | p50 | p99 | server CPU/req |"
        )?;
        writeln!(f, "|---:|---:|---|---|---:|---:|---:|---:|")?;
        for r in &self.rows {
            write!(
                f,
                "| {} | {} | {} | {} | {}",
                r.connections,
                size(r.payload),
                r.target,
                r.era,
                rate(r.per_sec)
            )?;
            if r.target != self.rows[0].target {
                write!(f, " ({:.2}x)", r.janus_over_this)?;
            }
            write!(f, " | {:.0} us | {:.0} us |", r.p50_us, r.p99_us)?;
            match r.server_cpu_us {
                Some(c) => writeln!(f, " {c:.1} us |")?,
                None => writeln!(f, " n/a |")?,
            }
        }
        writeln!(f)?;
        writeln!(f, "| goal, as measured in this run | measured | goal | |")?;
        writeln!(f, "|---|---:|---|---|")?;
        for c in &self.checks {
            // NB. A goal in microseconds (the bridge's p50 added) is no ratio.
            let unit = if c.what.ends_with("(us)") { " us" } else { "x" };
            writeln!(
                f,
                "| {} | {:.2}{unit} | {} | {} |",
                c.what,
                c.measured,
                c.goal,
                if c.met { "met" } else { "NOT met" }
            )?;
        }
        Ok(())
    }
}

impl HttpReport {
    /// An SVG chart: requests/s (log scale) by connections and payload, one bar per server
    /// and era.
    #[must_use]
    pub fn svg(&self) -> String {
        let colors = [
            "#1f77b4", "#aec7e8", "#d62728", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
        ];
        let mut series: Vec<(&str, &str)> = Vec::new();
        for r in &self.rows {
            if !series.contains(&(r.target.as_str(), r.era)) {
                series.push((r.target.as_str(), r.era));
            }
        }
        let (w, h) = (900.0_f64, 460.0_f64);
        let mut s = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">"#
        );
        s.push_str(r#"<rect width="100%" height="100%" fill="white"/>"#);
        s.push_str(r#"<text x="10" y="18" font-size="14">Streamable HTTP echo, requests/s (log scale), by connections and payload</text>"#);
        let groups: Vec<(usize, usize)> = self
            .plan
            .connections
            .iter()
            .flat_map(|&c| self.plan.payloads.iter().map(move |&p| (c, p)))
            .collect();
        let group_w = (w - 60.0) / groups.len().max(1) as f64;
        let (top, plot_h) = (30.0, h - 160.0);
        let y_of = |v: f64| {
            let lv = v.max(1.0).log10().clamp(2.0, 6.0);
            top + plot_h * (1.0 - (lv - 2.0) / 4.0)
        };
        for dec in 2..=6 {
            let y = y_of(10f64.powi(dec));
            s.push_str(&format!(
                r##"<line x1="50" x2="{w}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="5" y="{:.1}">1e{dec}</text>"##,
                y + 4.0
            ));
        }
        let bw = (group_w - 10.0) / series.len().max(1) as f64;
        for (g, &(c, p)) in groups.iter().enumerate() {
            let x0 = 55.0 + g as f64 * group_w;
            for (b, &(target, era)) in series.iter().enumerate() {
                let Some(row) = self.rows.iter().find(|r| {
                    r.target == target && r.era == era && r.connections == c && r.payload == p
                }) else {
                    continue;
                };
                let y = y_of(row.per_sec);
                s.push_str(&format!(
                    r#"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{target} {era}, {c} conns, {}: {:.0} req/s</title></rect>"#,
                    x0 + b as f64 * bw,
                    (bw - 1.0).max(1.0),
                    top + plot_h - y,
                    colors[b % colors.len()],
                    size(p),
                    row.per_sec
                ));
            }
            s.push_str(&format!(
                r#"<text x="{x0:.1}" y="{:.1}">{c} conns, {}</text>"#,
                top + plot_h + 14.0,
                size(p)
            ));
        }
        let legend_y = h - 110.0;
        for (b, (target, era)) in series.iter().enumerate() {
            s.push_str(&format!(
                r#"<rect x="60" y="{:.1}" width="10" height="10" fill="{}"/><text x="76" y="{:.1}">{target} ({era})</text>"#,
                legend_y + b as f64 * 15.0,
                colors[b % colors.len()],
                legend_y + 9.0 + b as f64 * 15.0,
            ));
        }
        s.push_str("</svg>\n");
        s
    }
}
