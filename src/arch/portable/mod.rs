//! The portable tier: plain Rust, available on every target, written so that
//! compilers vectorize it for whatever vector unit the target has. Its copy
//! and fill are the generic algorithms on `vector::PortableVector`; its
//! checksum and copy-and-checksum are its own, a loop of 32-bit words that
//! compilers vectorize (`checksum.rs`, `copy.rs`).

mod checksum;
mod copy;
pub(crate) mod vector;

/// The portable tier. Always available.
///
/// ```
/// use fastpath::arch::portable::Portable;
///
/// // The example of RFC 1071 §3.
/// let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
/// assert_eq!(Portable::new().sum(&data), 0xddf2);
/// assert_eq!(Portable::new().checksum(&data), 0x220d);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable(());

impl Portable {
    /// Returns the portable tier.
    ///
    /// ```
    /// const PORTABLE: fastpath::arch::portable::Portable = fastpath::arch::portable::Portable::new();
    /// assert_eq!(PORTABLE.sum(&[0x12, 0x34]), 0x1234);
    /// ```
    #[inline]
    #[must_use]
    pub const fn new() -> Self {
        Portable(())
    }
}

crate::arch::tier_type::tier_type! {
    @kernels Portable: crate::Tier::Portable, "portable",
    is_available: || true,
    enabled: true,
    features: [],
    vector: vector::PortableVector,
    overrides: {
        checksum: checksum::checksum_words,
        copy_checksum: copy::copy_checksum_words,
    },
}

/// The tables and inline paths of a target with no vector tier: none beside
/// the portable table, and the portable fill inline.
#[cfg(not(any(
    all(target_arch = "x86_64", target_feature = "sse2"),
    all(target_arch = "aarch64", target_feature = "neon")
)))]
pub(crate) mod native {
    use crate::arch::Kernels;

    /// No tables beside the portable one.
    pub(crate) const VARIANTS: &[&Kernels] = &[];

    /// What [`crate::fill()`] inlines into its callers: pairs of words.
    pub(crate) struct Inline;

    impl crate::arch::inline::InlinePath for Inline {
        type Vector = super::vector::PortableVector;
    }
}
