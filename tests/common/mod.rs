//! What the integration tests share: one deterministic random generator,
//! one guard-page buffer, the kernel tables under test, and one runner that
//! checks every implementation of a primitive against its plain reference
//! (`runner`), stamped into each primitive's test file by
//! [`primitive_tests!`].

#![allow(dead_code, unused_imports)]

#[cfg(unix)]
pub mod guard;
pub mod random;
pub mod runner;

use std::mem::MaybeUninit;

use fastpath::Tier;
use fastpath::arch::Kernels;

pub use random::{Rng, random_bytes};
pub use runner::{Case, Destinations, Implementation, Operands, Pattern, Place, Primitive, Runner};

/// The tiers the tests construct directly: all of them, or, if
/// `FASTPATH_TIER` is set, those ranked no higher than the cap it sets on
/// the dispatch. A run under a tool that cannot execute the wider instructions
/// (valgrind: no AVX-512) then never reaches them, not even through the
/// directly constructed tiers. Whether this CPU runs a tier is still checked
/// by whoever constructs it.
pub fn tiers() -> impl Iterator<Item = Tier> {
    let cap = std::env::var("FASTPATH_TIER")
        .ok()
        .and_then(|value| value.parse::<Tier>().ok())
        .map_or(u8::MAX, Tier::rank);
    Tier::ALL.into_iter().filter(move |tier| tier.rank() <= cap)
}

/// The kernel tables this machine runs whose tiers [`tiers`] allows: every
/// table of every tier, so on a CPU with AVX512-VNNI both AVX-512 tables.
pub fn variants() -> impl Iterator<Item = &'static Kernels> {
    fastpath::arch::variants().filter(|kernels| tiers().any(|tier| tier == kernels.tier()))
}

/// The name of a public entry point under test, with the tier it
/// dispatches to.
pub fn public(function: &str) -> String {
    format!(
        "fastpath::{function} (dispatch: {})",
        fastpath::active_tier()
    )
}

/// Views bytes as possibly uninitialized ones.
pub fn uninit(bytes: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: same layout; whoever writes through the view writes
    // initialized bytes (the functions under test only copy).
    unsafe { &mut *(bytes as *mut [u8] as *mut [MaybeUninit<u8>]) }
}

/// The runner's tests for one primitive, in a module of their own: every
/// length and offset, long lengths, guard pages and random cases
/// ([`runner`]'s functions of the same names).
///
/// ```ignore
/// common::primitive_tests!(checksum: Sum);
/// ```
macro_rules! primitive_tests {
    ($module:ident: $primitive:ident) => {
        mod $module {
            #[test]
            fn every_length_and_offset() {
                $crate::common::runner::every_length_and_offset::<super::$primitive>();
            }

            #[test]
            fn long_lengths() {
                $crate::common::runner::long_lengths::<super::$primitive>();
            }

            #[cfg(unix)]
            #[test]
            fn guard_pages() {
                $crate::common::runner::guard_pages::<super::$primitive>();
            }

            #[test]
            fn random() {
                $crate::common::runner::random::<super::$primitive>();
            }
        }
    };
}
pub(crate) use primitive_tests;
