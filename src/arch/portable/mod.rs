//! The portable tier: plain Rust, available on every target, written so that
//! compilers vectorize it for whatever vector unit the target has.

mod checksum;
mod copy;

pub(crate) use checksum::sum;
pub(crate) use copy::copy_sum;

/// The portable tier. Always available.
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable(());

impl Portable {
    /// Returns the portable tier.
    #[inline]
    pub const fn new() -> Self {
        Portable(())
    }
}
