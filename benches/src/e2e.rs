//! The end-to-end comparison: servers over stdio, pipelined and closed-loop, both eras.
//!
//! Each target runs in turn, runs interleaved (A B A B ...), and the table gives medians and
//! the median of the pair-by-pair ratios against the first target.

use crate::load::{self, Era, Target};
use std::fmt::{self, Write as _};
use std::io;

/// How much load each measurement sends.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Requests per pipelined run.
    pub pipelined_requests: u64,
    /// Requests in flight in a pipelined run.
    pub window: usize,
    /// Requests per closed-loop run.
    pub closed_loop_requests: u64,
    /// Runs of each target (odd, for a clean median).
    pub runs: usize,
    /// The echoed text's length in bytes.
    pub payload: usize,
}

impl Plan {
    /// About ten seconds on two cores.
    #[must_use]
    pub const fn quick() -> Self {
        Self {
            pipelined_requests: 100_000,
            window: 256,
            closed_loop_requests: 5_000,
            runs: 3,
            payload: 16,
        }
    }

    /// Tiny counts: every target and every check, for CI.
    #[must_use]
    pub const fn smoke() -> Self {
        Self {
            pipelined_requests: 2_000,
            window: 64,
            closed_loop_requests: 200,
            runs: 1,
            payload: 16,
        }
    }
}

/// The figures of one target in one era.
#[derive(Debug, Clone)]
pub struct Row {
    /// The target's name.
    pub target: String,
    /// The era.
    pub era: Era,
    /// Median pipelined requests per second.
    pub per_sec: f64,
    /// Median of (this target's rate / the first target's rate) per run pair.
    pub rate_ratio: f64,
    /// Median closed-loop p50, p99 and max, in microseconds.
    pub p50_us: f64,
    /// p99, in microseconds.
    pub p99_us: f64,
    /// Max, in microseconds.
    pub max_us: f64,
}

/// The whole end-to-end report.
#[derive(Debug, Clone)]
pub struct Report {
    /// The plan that was run.
    pub plan: Plan,
    /// One row per target and era.
    pub rows: Vec<Row>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs the plan on every target, in both eras.
///
/// # Errors
///
/// The first failed run: a lost, duplicated or wrong answer, or a server that fails.
pub fn run(targets: &[Target], plan: Plan) -> io::Result<Report> {
    let text = load::payload(plan.payload);
    let mut rows = Vec::new();
    for era in [Era::Legacy, Era::Modern] {
        let mut rates = vec![Vec::new(); targets.len()];
        let mut p50 = vec![Vec::new(); targets.len()];
        let mut p99 = vec![Vec::new(); targets.len()];
        let mut max = vec![Vec::new(); targets.len()];
        for _ in 0..plan.runs.max(1) {
            for (i, t) in targets.iter().enumerate() {
                let tp = load::pipelined(t, era, plan.pipelined_requests, plan.window, &text)?;
                rates[i].push(tp.per_sec());
                let h = load::closed_loop(t, era, plan.closed_loop_requests, &text)?;
                p50[i].push(h.value_at_quantile(0.50) as f64 / 1e3);
                p99[i].push(h.value_at_quantile(0.99) as f64 / 1e3);
                max[i].push(h.max() as f64 / 1e3);
            }
        }
        for (i, t) in targets.iter().enumerate() {
            let ratios = rates[i].iter().zip(&rates[0]).map(|(r, b)| r / b).collect();
            rows.push(Row {
                target: t.name.clone(),
                era,
                per_sec: median(rates[i].clone()),
                rate_ratio: median(ratios),
                p50_us: median(p50[i].clone()),
                p99_us: median(p99[i].clone()),
                max_us: median(max[i].clone()),
            });
        }
    }
    Ok(Report { plan, rows })
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.plan;
        writeln!(
            f,
            "End to end over stdio: echo of {} B; pipelined: {} requests, {} in flight; \
             closed loop: {} requests one at a time; medians of {} interleaved runs",
            p.payload, p.pipelined_requests, p.window, p.closed_loop_requests, p.runs
        )?;
        writeln!(f)?;
        writeln!(
            f,
            "| server | era | pipelined req/s | vs first | closed-loop p50 | p99 | max |"
        )?;
        writeln!(f, "|---|---|---:|---:|---:|---:|---:|")?;
        for r in &self.rows {
            let mut rate = String::new();
            let _ = write!(rate, "{:.0}", r.per_sec);
            writeln!(
                f,
                "| {} | {} | {rate} | {:.2}x | {:.1} us | {:.1} us | {:.1} us |",
                r.target,
                r.era.name(),
                r.rate_ratio,
                r.p50_us,
                r.p99_us,
                r.max_us
            )?;
        }
        Ok(())
    }
}
