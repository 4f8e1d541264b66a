//! The algorithms, written once over the traits of [`vector`] that each
//! tier implements on its register: the checksum and the copy-and-checksum
//! ([`checksum`], over [`vector::Sum`], with [`output`] for where the
//! vectors go), the copy ([`copy`]) and the fill ([`fill`]), over
//! [`vector::Vector`].
//!
//! A tier's entry functions (`arch::tier_type`) instantiate these on the
//! tier's vector, inside functions that enable its target features; a tier
//! whose algorithm differs for a primitive names its own function instead.

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) mod checksum;
pub(crate) mod copy;
pub(crate) mod fill;
#[cfg(any(
    all(target_arch = "x86_64", target_feature = "sse2"),
    all(target_arch = "aarch64", target_feature = "neon")
))]
pub(crate) mod output;
pub(crate) mod vector;
