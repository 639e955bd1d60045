//! A server with typed tools, on stdin/stdout: run it with `cargo run --example typed_server`
//! and speak MCP to it (any client of either era).
//!
//! - `forecast {city, days}`: structured content (an object with a list), and its JSON as text;
//! - `chart {values}`: an SVG bar chart as an image block, with summary statistics as
//!   structured content;
//! - `greet {name}`: plain text, written straight into the answer (an inline tool).
//!
//! The argument and result types give the tools' input and output JSON Schemas; arguments that
//! do not fit are answered `-32602` before the handler runs.

use janus_server_core::Halt;
use janus_server_core::content::Content;
use janus_server_core::serve::{self, Config, Shutdown};
use janus_server_core::tools::{Args, Output, ToolSpec};
use janus_server_core::{Ctx, RpcError, Server};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, JsonSchema)]
struct ForecastArgs {
    /// The city to forecast.
    city: String,
    /// How many days, 1 to 7.
    days: u8,
}

#[derive(Serialize, JsonSchema)]
struct Day {
    day: u8,
    high_c: f64,
    low_c: f64,
}

#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    days: Vec<Day>,
}

/// A deterministic made-up forecast: the point is the shapes, not the weather.
fn forecast(_: &Ctx<'_>, args: ForecastArgs, _: &mut Output<'_>) -> Result<Forecast, Halt> {
    if !(1..=7).contains(&args.days) {
        return Err(RpcError::invalid_params("days must be between 1 and 7").into());
    }
    let seed = args.city.bytes().map(f64::from).sum::<f64>() % 10.0;
    let days = (1..=args.days)
        .map(|day| Day {
            day,
            high_c: 15.0 + seed + f64::from(day),
            low_c: 5.0 + seed - f64::from(day) / 2.0,
        })
        .collect();
    Ok(Forecast {
        city: args.city,
        days,
    })
}

#[derive(Deserialize, JsonSchema)]
struct ChartArgs {
    /// The bars' heights (at most 64, each at least 0).
    values: Vec<f64>,
}

#[derive(Serialize, JsonSchema)]
struct Summary {
    count: usize,
    min: f64,
    max: f64,
    mean: f64,
}

fn chart(_: &Ctx<'_>, args: ChartArgs, out: &mut Output<'_>) -> Result<Summary, Halt> {
    let v = &args.values;
    if v.is_empty() || v.len() > 64 || v.iter().any(|x| !x.is_finite() || *x < 0.0) {
        return Err(
            RpcError::invalid_params("values: 1 to 64 finite numbers, none below 0").into(),
        );
    }
    let max = v.iter().copied().fold(0.0, f64::max);
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let scale = if max > 0.0 { 100.0 / max } else { 0.0 };
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="100">"#,
        v.len() * 10
    );
    for (i, x) in v.iter().enumerate() {
        let h = x * scale;
        svg.push_str(&format!(
            r#"<rect x="{}" y="{:.1}" width="8" height="{h:.1}"/>"#,
            i * 10,
            100.0 - h
        ));
    }
    svg.push_str("</svg>");
    out.content(&Content::image(svg.as_bytes(), "image/svg+xml"));
    Ok(Summary {
        count: v.len(),
        min,
        max,
        mean: v.iter().sum::<f64>() / v.len() as f64,
    })
}

fn greet(_: &Ctx<'_>, args: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
    let name = args
        .str("name")
        .ok_or_else(|| RpcError::invalid_params("name must be a string"))?;
    out.text(&format!("Hello, {name}!"));
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let greet_spec = ToolSpec::new(
        "greet",
        "Greets someone by name.",
        r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#,
    )?
    .annotations(r#"{"readOnlyHint":true}"#)?;
    let server = Server::builder("typed-example", "1.0.0")
        .typed_tool("forecast", "A made-up weather forecast.", forecast)
        .typed_tool(
            "chart",
            "Draws a bar chart; returns it with statistics.",
            chart,
        )
        .tool(greet_spec, greet)
        .build()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(serve::serve_stdio(
        server,
        &Config::default(),
        &Shutdown::new(),
    ))?;
    Ok(())
}
