//! The capture decoder of the `fastpath` command, as a library: the
//! binary's `pcap` subcommand, and what the fuzz targets drive.
//!
//! [`pcap`] reads pcap and pcapng captures block by block, decodes their
//! link layers and tunnels, and verifies and fixes every checksum.

#![warn(missing_docs)]

pub mod pcap;

use std::io;

/// Whether `err` comes from writing to a pipe that was closed early
/// (`fastpath ... | head`): a failure to report quietly.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|cause| cause.downcast_ref::<io::Error>())
        .any(|io| io.kind() == io::ErrorKind::BrokenPipe)
}

/// Whether standard output was closed when the process started (`>&-`).
///
/// Rust's runtime opens /dev/null, read-write, on a standard descriptor
/// found closed at start, so that writes to it succeed and are lost. A
/// shell's `>/dev/null` opens it write-only: /dev/null open read-write on
/// descriptor 1 is taken for a closed standard output.
pub fn stdout_closed() -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::FileTypeExt;
        use std::os::unix::fs::MetadataExt;
        // SAFETY: F_GETFL takes no argument and only reads the flags of
        // descriptor 1.
        let flags = unsafe { libc::fcntl(1, libc::F_GETFL) };
        if flags < 0 {
            return true;
        }
        if flags & libc::O_ACCMODE != libc::O_RDWR {
            return false;
        }
        let (Ok(null), Ok(stdout)) = (
            std::fs::metadata("/dev/null"),
            std::fs::metadata("/proc/self/fd/1"),
        ) else {
            return false;
        };
        stdout.file_type().is_char_device() && stdout.rdev() == null.rdev()
    }
    #[cfg(not(target_os = "linux"))]
    false
}
