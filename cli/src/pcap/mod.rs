//! `fastpath pcap`: the checksums of real captures, verified and fixed.
//!
//! | file | what it does |
//! |---|---|
//! | [`read`] | pcap and pcapng, block by block through pcap-parser, with each block's raw bytes; bounded lengths, errors with byte offsets |
//! | `map` | a regular file read through a window mapped into memory, which moves forward |
//! | [`link`] | link layers: where a frame's IP packet starts |
//! | `fast` | the common frame (Ethernet, IPv4 or IPv6, TCP or UDP, no tunnel) verified in one pass |
//! | [`layers`] | every checksum of an IP packet, tunnels (IP-in-IP, GRE, VXLAN, Geneve, GTP-U) included; fixing them innermost first |
//! | [`inspect`] | what a frame holds: its checksums, what it is, what of it was not verified; their tally over a file; the model that the commands fill and `output` prints |
//! | [`verify`] | `verify`: JSON lines or a summary per file, exit status 0 to 3 |
//! | [`fix`] | `fix`: the raw blocks copied, checksum fields patched, written through a temporary file |
//! | `output` | the JSON line of the contract, and the summaries of a tally |
//! | `parallel` | several files at once, one per thread, their output in argument order |
//! | `progress` | the progress bar, on a terminal only |
//! | `bench` | `bench`: verify against a bare read of the same capture |

mod bench;
mod fast;
pub mod fix;
#[cfg(test)]
mod fuzz;
pub mod inspect;
pub mod layers;
pub mod link;
#[cfg(unix)]
mod map;
mod output;
mod parallel;
mod progress;
pub mod read;
pub mod verify;

use std::process::ExitCode;

use clap::Subcommand;

/// The subcommands of `fastpath pcap`.
#[derive(Subcommand)]
pub enum Command {
    /// Verify every checksum of captures: exit status 0 if none is bad, 1
    /// if one is (with --strict, also if one could not be verified), 2 if a
    /// file could not be read, 3 for both.
    Verify(verify::Args),
    /// Write a copy of a capture with every verifiable wrong checksum
    /// corrected, every other byte as it was: exit status 0, 2 on an error
    /// (nothing replaced), 3 if a record could not be read (the records
    /// before it fixed, every byte from it copied as it is).
    Fix(fix::Args),
    /// Time verify against a bare read of the same capture.
    Bench(bench::Args),
}

/// Runs a subcommand: its exit status.
pub fn run(command: &Command) -> ExitCode {
    match command {
        Command::Verify(args) => verify::run(args),
        Command::Fix(args) => fix::run(args),
        Command::Bench(args) => bench::run(args),
    }
}
