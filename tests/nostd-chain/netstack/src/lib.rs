//! A `no_std` library that checksums packets with fastpath, as a network
//! stack does, and depends on it as such crates do: with
//! `default-features = false`, so without fastpath's `std` feature.
#![no_std]

pub use fastpath::Tier;

/// The tier whose kernels fastpath runs in this process.
pub fn tier() -> Tier {
    fastpath::active_tier()
}

/// The RFC 1071 checksum of `data`, by fastpath.
pub fn checksum(data: &[u8]) -> u16 {
    fastpath::checksum(data)
}
