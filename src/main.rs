//! `janus`: the command line of the Janus MCP server.

use clap::{Parser, Subcommand};

/// Janus: a fast dual-era Model Context Protocol server.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure Janus against its baselines and print a side-by-side table.
    Bench {
        /// Seconds spent measuring each pair of implementations on each message.
        #[arg(long, default_value_t = 0.5)]
        seconds: f64,
    },
}

fn main() {
    let cli = Cli::parse();
    match cli.command {
        Command::Bench { seconds } => {
            let report = janus_bench::quick::run(std::time::Duration::from_secs_f64(seconds));
            print!("{report}");
        }
    }
}
