//! `fill` and `zero`: a memset for the sizes of packet processing.

/// Sets every byte of `dst` to `value`.
///
/// ```
/// let mut buf = [0u8; 5];
/// fastpath::fill(&mut buf, 7);
/// assert_eq!(buf, [7; 5]);
/// ```
#[inline]
pub fn fill(dst: &mut [u8], value: u8) {
    dst.fill(value);
}

/// Sets every byte of `dst` to zero.
///
/// ```
/// let mut buf = [1u8; 5];
/// fastpath::zero(&mut buf);
/// assert_eq!(buf, [0; 5]);
/// ```
#[inline]
pub fn zero(dst: &mut [u8]) {
    fill(dst, 0);
}
