//! The capture decoder of the `fastpath` command, as a library: the
//! binary's `pcap` subcommand, and what the fuzz targets drive.
//!
//! [`pcap`] reads pcap and pcapng captures block by block, decodes their
//! link layers and tunnels, and verifies and fixes every checksum.

#![warn(missing_docs)]

pub mod pcap;

use std::io;

/// Whether `err` comes from writing to a pipe that was closed early
/// (`fastpath ... | head`), which is no failure.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|cause| cause.downcast_ref::<io::Error>())
        .any(|io| io.kind() == io::ErrorKind::BrokenPipe)
}
