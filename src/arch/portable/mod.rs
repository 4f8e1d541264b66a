//! The portable tier: plain Rust, available on every target, written so that
//! compilers vectorize it for whatever vector unit the target has.

mod checksum;
mod copy;
pub(crate) mod fill;

pub(crate) use checksum::checksum;
pub(crate) use copy::copy_checksum;
pub(crate) use fill::{fill, fill_nontemporal};

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
    pub const fn new() -> Self {
        Portable(())
    }
}
