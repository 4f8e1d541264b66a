//! `fastpath`: a thin command-line shell over the `fastpath` library.
//!
//! - `fastpath info` shows what the library sees: CPU features, tiers, the
//!   `FASTPATH_TIER` cap and the kernel chosen for each primitive.
//! - `fastpath bench` is the perf autotest, after DPDK's
//!   `cksum_perf_autotest`: every tier, the dispatching entry point and the
//!   baselines, checked and then timed in the same run.
//! - `fastpath pcap verify|fix` checks and corrects the checksums of
//!   pcap and pcapng captures.

mod bench;
mod cpu;
mod info;
mod plot;
mod results;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fastpath_cli::{is_broken_pipe, pcap};

/// The data path of packet processing: Internet checksum kernels per CPU tier.
#[derive(Parser)]
#[command(name = "fastpath", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show the CPU features that matter, every tier, FASTPATH_TIER and the
    /// tier chosen for each primitive.
    Info(info::Args),
    /// Measure every implementation of the primitives (perf autotest).
    Bench(bench::Args),
    /// Verify and fix the checksums of captures (pcap, pcapng).
    #[command(subcommand)]
    Pcap(pcap::Command),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(args) => info::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Bench(args) => bench::run(&args),
        Command::Pcap(command) => return pcap::run(&command),
    };
    match result {
        Ok(code) => code,
        // `fastpath bench | head` closes the pipe early: quietly, but what
        // was not read was not delivered.
        Err(err) if is_broken_pipe(&err) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("fastpath: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
