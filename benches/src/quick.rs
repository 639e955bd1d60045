//! The in-process comparison that `janus bench` prints: Janus's classify path against its
//! baselines on the corpus, runs interleaved, medians and pair-by-pair ratios.

use crate::baseline::{self, Scratch};
use crate::corpus::{self, Item};
use janus_codec::{FrameCodec, Parsed, Parser};
use std::fmt::{self, Write as _};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// One way of reading frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contender {
    /// Janus: `FrameCodec::decode_message` (framing and whole-frame validation in one scan) +
    /// era.
    Janus,
    /// serde_json typed envelope with `&RawValue` params, plus a `_meta` pass.
    SerdeEnvelope,
    /// serde_json `Value`.
    SerdeValue,
    /// simd-json borrowed value (on a copy of the frame, buffers reused).
    SimdJson,
    /// sonic-rs `Value`.
    SonicValue,
}

impl Contender {
    /// Every contender, Janus first.
    pub const ALL: [Self; 5] = [
        Self::Janus,
        Self::SerdeEnvelope,
        Self::SerdeValue,
        Self::SimdJson,
        Self::SonicValue,
    ];

    /// The name in tables.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Janus => "janus",
            Self::SerdeEnvelope => "serde envelope + _meta pass",
            Self::SerdeValue => "serde_json Value",
            Self::SimdJson => "simd-json borrowed",
            Self::SonicValue => "sonic-rs Value",
        }
    }
}

/// `n` copies of a frame back to back, as a client's stream.
#[must_use]
pub fn stream_of(frame: &[u8], n: usize) -> Vec<u8> {
    let mut s = Vec::with_capacity(frame.len() * n);
    for _ in 0..n {
        s.extend_from_slice(frame);
    }
    s
}

/// How many copies of a frame make a stream of a few MiB (at least 1).
#[must_use]
pub fn copies_for(frame_len: usize) -> usize {
    (4 << 20) / frame_len.max(1)
}

/// Janus's reading of one parsed frame: its kind and era, or each element's in a batch.
fn janus_read(read: Result<Parsed<'_>, janus_codec::Rejection<'_>>) -> bool {
    match read {
        Ok(Parsed::Single(msg)) => {
            black_box((msg.kind(), janus_codec::Era::of_first_request(&msg)));
            true
        }
        Ok(Parsed::Batch(b)) => b.iter().all(|m| {
            m.map(|msg| black_box((msg.kind(), janus_codec::Era::of_first_request(&msg))))
                .is_ok()
        }),
        Err(_) => false,
    }
}

/// Reads every frame of `stream` (copies of one frame of `frame_len` bytes) with `who`, and
/// returns the time taken and how many frames were read as messages. A `body` frame (one
/// with line breaks of its own) is read whole, as an HTTP body is, by every contender.
/// Janus's input buffer is filled before the clock starts, so only the reading is timed.
pub fn time_stream(
    who: Contender,
    stream: &[u8],
    frame_len: usize,
    body: bool,
    scratch: &mut Scratch,
) -> (Duration, usize) {
    let mut ok = 0;
    match who {
        Contender::Janus if !body => {
            // The same input buffer every round, as a connection's reader keeps its buffer: a
            // new one each round would be fresh pages for the scan to fault and miss on.
            let buf = &mut scratch.input;
            buf.clear();
            buf.extend_from_slice(stream);
            let mut codec = FrameCodec::new();
            let parser = Parser::new();
            let t = Instant::now();
            // As the dispatch loop reads: each line in place, in the input buffer, framed and
            // parsed in one step.
            while let Some(read) = codec.decode_message(buf, &parser, |_, read| janus_read(read)) {
                ok += usize::from(read);
            }
            (t.elapsed(), ok)
        }
        Contender::Janus => {
            let parser = Parser::new();
            let t = Instant::now();
            for frame in stream.chunks(frame_len) {
                ok += usize::from(janus_read(parser.parse(baseline::body(frame))));
            }
            (t.elapsed(), ok)
        }
        _ => {
            let t = Instant::now();
            for frame in stream.chunks(frame_len) {
                let text = if body {
                    baseline::body(frame)
                } else {
                    baseline::line(frame)
                };
                let r = match who {
                    Contender::SerdeEnvelope => baseline::serde_envelope_text(text),
                    Contender::SerdeValue => baseline::serde_value_text(text),
                    Contender::SonicValue => baseline::sonic_value_text(text),
                    _ => baseline::simd_borrowed_text(text, scratch),
                };
                ok += usize::from(black_box(r).is_some());
            }
            (t.elapsed(), ok)
        }
    }
}

/// The figures of one contender on one item.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Who.
    pub who: Contender,
    /// Median nanoseconds per message.
    pub ns_per_msg: f64,
    /// Median bytes per second.
    pub bytes_per_sec: f64,
    /// Median over rounds of (this contender's time / Janus's time) in the same round.
    pub janus_speedup: f64,
}

/// The results of one item.
#[derive(Debug, Clone)]
pub struct ItemReport {
    /// The item's name.
    pub name: &'static str,
    /// Its frame length in bytes.
    pub frame_len: usize,
    /// One figure per contender, in [`Contender::ALL`] order.
    pub figures: Vec<Figure>,
}

/// The whole report of [`run`].
#[derive(Debug, Clone)]
pub struct Report {
    /// One entry per corpus item.
    pub items: Vec<ItemReport>,
    /// Rounds measured per item.
    pub rounds: usize,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Measures one item: `rounds` rounds, each timing every contender once, in turn.
///
/// # Panics
///
/// When a contender does not read every frame of the item as a message: a benchmark that
/// lost messages would report a meaningless figure.
#[must_use]
pub fn measure(item: &Item, rounds: usize) -> ItemReport {
    let len = item.frame.len();
    let n = copies_for(len);
    let stream = stream_of(&item.frame, n);
    let mut scratch = Scratch::default();
    let mut times = vec![Vec::with_capacity(rounds); Contender::ALL.len()];
    for round in 0..=rounds {
        for (i, who) in Contender::ALL.into_iter().enumerate() {
            let (d, ok) = time_stream(who, &stream, len, item.body, &mut scratch);
            assert_eq!(
                ok,
                n,
                "{} read {ok} of {n} frames of {}",
                who.name(),
                item.name
            );
            // Round 0 warms caches and allocators up and is not counted.
            if round > 0 {
                times[i].push(d.as_secs_f64());
            }
        }
    }
    let figures = Contender::ALL
        .into_iter()
        .enumerate()
        .map(|(i, who)| {
            let mut per_msg: Vec<f64> = times[i].iter().map(|t| t / n as f64 * 1e9).collect();
            let mut bps: Vec<f64> = times[i].iter().map(|t| (len * n) as f64 / t).collect();
            let mut ratio: Vec<f64> = times[i].iter().zip(&times[0]).map(|(t, j)| t / j).collect();
            Figure {
                who,
                ns_per_msg: median(&mut per_msg),
                bytes_per_sec: median(&mut bps),
                janus_speedup: median(&mut ratio),
            }
        })
        .collect();
    ItemReport {
        name: item.name,
        frame_len: len,
        figures,
    }
}

/// Runs the comparison on the whole corpus with about `budget` of measuring per item.
#[must_use]
pub fn run(budget: Duration) -> Report {
    let items = corpus::everything();
    // One round reads a few MiB with each contender; pick rounds to fit the budget.
    let probe = measure(&items[0], 1);
    let per_round: f64 = probe
        .figures
        .iter()
        .map(|f| f.ns_per_msg * copies_for(probe.frame_len) as f64 / 1e9)
        .sum();
    let rounds = ((budget.as_secs_f64() / per_round.max(1e-6)) as usize).clamp(5, 51) | 1;
    Report {
        items: items.iter().map(|it| measure(it, rounds)).collect(),
        rounds,
    }
}

fn human_rate(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{:.2} GB/s", bps / 1e9)
    } else {
        format!("{:.0} MB/s", bps / 1e6)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Classify a frame (framing + full JSON validation + message view + era), \
             medians of {} interleaved rounds",
            self.rounds
        )?;
        writeln!(f)?;
        let mut header = String::from("| message | bytes |");
        let mut rule = String::from("|---|---:|");
        for who in Contender::ALL {
            let _ = write!(header, " {} |", who.name());
            rule.push_str("---:|");
        }
        writeln!(f, "{header}")?;
        writeln!(f, "{rule}")?;
        for it in &self.items {
            write!(f, "| {} | {} |", it.name, it.frame_len)?;
            for fig in &it.figures {
                if fig.who == Contender::Janus {
                    write!(
                        f,
                        " {:.0} ns, {} |",
                        fig.ns_per_msg,
                        human_rate(fig.bytes_per_sec)
                    )?;
                } else {
                    write!(f, " {:.0} ns ({:.1}x) |", fig.ns_per_msg, fig.janus_speedup)?;
                }
            }
            writeln!(f)?;
        }
        writeln!(f)?;
        writeln!(
            f,
            "(Nx) = the baseline's time over Janus's, median of the per-round ratios."
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_reads_every_frame_of_every_item() {
        crate::baseline::tests::on_a_large_stack(|| {
            for item in corpus::everything() {
                let r = measure(&item, 1);
                assert_eq!(r.figures.len(), Contender::ALL.len());
                assert!(r.figures.iter().all(|f| f.ns_per_msg > 0.0));
            }
        });
    }
}
