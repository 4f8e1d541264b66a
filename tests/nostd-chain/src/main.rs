//! A `std` application that reaches fastpath only through a `no_std`
//! library (`netstack`, which depends on it with `default-features =
//! false`), so that fastpath is built without its `std` feature. It checks,
//! from the outside, that fastpath still detects the CPU at run time:
//!
//! - the active tier is the best one this CPU runs, by the standard
//!   library's detection: AVX-512 (F and BW), AVX2 or SSE2 on x86_64; on
//!   aarch64, where a build without `std` takes its tier from the target
//!   features, NEON where the target has it; the portable tier elsewhere;
//! - `FASTPATH_TIER` does not change it (a copy of this program run with
//!   `FASTPATH_TIER=portable` reports the same tier): fastpath without
//!   `std` reads no environment, so this also shows that nothing in the
//!   chain turned `std` on;
//! - the checksums are right: RFC 1071's example, and 9000 bytes (a jumbo
//!   frame, long enough for the vector kernels) against a plain sum.
//!
//! `cargo run --locked --release --manifest-path tests/nostd-chain/Cargo.toml`
//! prints both tiers and exits with 1 if they differ.

use std::process::{Command, ExitCode};

use netstack::Tier;

/// The argument that makes this program print the active tier and exit.
const PRINT_TIER: &str = "--print-tier";

/// The best tier this CPU runs, by the standard library's detection (and
/// on aarch64 by the target features, as fastpath without `std` decides).
fn best_tier() -> Tier {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    let best = if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
        Tier::Avx512
    } else if is_x86_feature_detected!("avx2") {
        Tier::Avx2
    } else {
        Tier::Sse2
    };
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    let best = Tier::Neon;
    #[cfg(not(any(
        all(target_arch = "x86_64", target_feature = "sse2"),
        all(target_arch = "aarch64", target_feature = "neon")
    )))]
    let best = Tier::Portable;
    best
}

/// RFC 1071's checksum, one 16-bit big-endian word at a time.
fn plain_checksum(data: &[u8]) -> u16 {
    let mut sum: u64 = data
        .chunks(2)
        .map(|pair| u64::from(u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some(PRINT_TIER) {
        println!("{}", netstack::tier());
        return ExitCode::SUCCESS;
    }

    let tier = netstack::tier();
    let best = best_tier();
    println!("fastpath, reached through a no_std library, runs: {tier}");
    println!("the best tier this CPU runs (std's detection): {best}");

    let example = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
    assert_eq!(netstack::checksum(&example), 0x220d, "RFC 1071's example");
    let frame: Vec<u8> = (0..9000u32).map(|i| (i * 31 + i / 251) as u8).collect();
    for len in [frame.len(), frame.len() - 1, 1500, 64, 63] {
        let data = &frame[..len];
        assert_eq!(
            netstack::checksum(data),
            plain_checksum(data),
            "{len} bytes"
        );
    }
    println!("checksums: right");

    let capped = Command::new(std::env::current_exe().expect("the path of this program"))
        .arg(PRINT_TIER)
        .env("FASTPATH_TIER", "portable")
        .output()
        .expect("this program, run again");
    let capped = String::from_utf8_lossy(&capped.stdout);
    let capped = capped.trim();
    println!("with FASTPATH_TIER=portable: {capped}");

    if tier != best {
        eprintln!("FAIL: fastpath runs {tier}, this CPU runs {best}");
        return ExitCode::FAILURE;
    }
    if capped != tier.name() {
        eprintln!(
            "FAIL: FASTPATH_TIER changed the tier to {capped}: is fastpath's std feature on?"
        );
        return ExitCode::FAILURE;
    }
    println!("ok");
    ExitCode::SUCCESS
}
