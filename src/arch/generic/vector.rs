//! The two traits every tier implements once, on its register, in its
//! `vector.rs`: [`Vector`], the loads and stores that the copy and the fill
//! are written over, and [`Sum`], the arithmetic of the checksum and the
//! copy-and-checksum.
//!
//! Implementations are `#[inline(always)]` and carry no `#[target_feature]`:
//! they are inlined into the tiers' entry functions, which enable the
//! features, or into [`crate::fill()`] when the build enables them.

/// A vector register as bytes: what the copy and the fill need of it.
///
/// Besides the operations, a few constants and two methods with defaults
/// let a tier adjust the shared algorithms where it measured faster: the
/// order of the copy's stores, `rep stosb`, the branch of the fill's short
/// path, the fill up to 64 bytes and the long copy.
pub(crate) trait Vector: Copy {
    /// The width of the vector in bytes: a power of two from 16 to 64.
    const BYTES: usize;

    /// Whether the copy's loop stores each step's vectors in address order,
    /// the compiler kept from reordering them by a fence between the
    /// stores. Left to itself, LLVM stored the four AVX2 vectors of a step
    /// last first; in address order, a 64 MiB aligned copy ran at
    /// 0.99-1.02× glibc's AVX2 `memcpy` on Zen 4 rather than 0.84-0.91×.
    /// Not for the portable tier, which ran 3× slower with the fences or the
    /// loads grouped: its chunks were no longer merged into the target's
    /// vectors.
    const IN_ORDER: bool = false;

    /// Whether the copy's loop runs from the end when the destination lies
    /// 0-255 bytes past the source modulo the page and the copy is at most
    /// `generic::copy::BACKWARD_MAX` bytes (`generic::copy::copy_lines`):
    /// the x86_64 tiers, as measured there. Not for the portable tier, whose
    /// loop the compiler vectorizes only in one order (see `IN_ORDER`), nor
    /// for NEON, not measured.
    const BACKWARD_NEAR: bool = false;

    /// Whether fills of `generic::fill::REP_STOSB_MIN` bytes or more use
    /// `rep stosb`.
    #[cfg(target_arch = "x86_64")]
    const REP_STOSB: bool = false;

    /// Whether the fill's short path stores four vectors for every length
    /// from 65 to `4 * BYTES`, with no branch, rather than two or four
    /// behind a branch on the length: fewer mispredictions on random
    /// lengths, more stores at fixed ones. Only for vectors of at most 32
    /// bytes, for which four are needed from 65 bytes anyway.
    const BRANCH_FREE_SHORT: bool = true;

    /// The vector with `value` in every byte.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    unsafe fn splat(value: u8) -> Self;

    /// Loads `Self::BYTES` bytes from `ptr`, which need not be aligned.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set, and `ptr` must be
    /// valid for reads of `Self::BYTES` bytes.
    unsafe fn load_unaligned(ptr: *const u8) -> Self;

    /// Stores the vector at `ptr`, which need not be aligned.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set, and `ptr` must be
    /// valid for writes of `Self::BYTES` bytes.
    unsafe fn store_unaligned(self, ptr: *mut u8);

    /// Stores the vector at `ptr`, aligned to `Self::BYTES`.
    ///
    /// # Safety
    ///
    /// As [`store_unaligned`](Self::store_unaligned), and `ptr` must be
    /// aligned to `Self::BYTES`.
    unsafe fn store_aligned(self, ptr: *mut u8);

    /// Stores the vector at `ptr`, aligned to `Self::BYTES`, bypassing the
    /// caches where the instruction set can; [`fence_nontemporal`] must
    /// follow before any other access to those bytes. By default, an
    /// ordinary aligned store.
    ///
    /// # Safety
    ///
    /// As [`store_aligned`](Self::store_aligned).
    ///
    /// [`fence_nontemporal`]: Self::fence_nontemporal
    #[inline(always)]
    unsafe fn store_nontemporal(self, ptr: *mut u8) {
        // SAFETY: the caller's guarantees are those of `store_aligned`.
        unsafe { self.store_aligned(ptr) }
    }

    /// Orders the non-temporal stores made so far before every later memory
    /// access. By default, nothing (ordinary stores need no fence).
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    #[inline(always)]
    unsafe fn fence_nontemporal() {}

    /// Stores the vector's first 16 bytes at `ptr`, which need not be
    /// aligned.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set, and `ptr` must be
    /// valid for writes of 16 bytes.
    unsafe fn store16(self, ptr: *mut u8);

    /// The vector's first 8 bytes, as a word.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    unsafe fn low_word(self) -> u64;

    /// Fills the `len <= 64` bytes at `ptr` with the byte in every lane of
    /// `self` in the tier's own way, and returns `true`; or returns `false`,
    /// having stored nothing, for the fill algorithm's own short path
    /// (`generic::fill::fill_upto_64`). By default `false`; AVX-512 stores
    /// under a byte mask.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set, `len` must be at
    /// most 64, and `ptr` must be valid for writes of `len` bytes.
    #[inline(always)]
    unsafe fn try_fill_upto_64(self, _ptr: *mut u8, _len: usize) -> bool {
        false
    }

    /// Copies the `len > 8 * Self::BYTES` bytes at `src` to `dst` in the
    /// tier's own way, and returns `true`; or returns `false`, having stored
    /// nothing, for the copy algorithm's loop on this vector
    /// (`generic::copy::copy_lines`). By default `false`; AVX-512 picks
    /// another vector for some placements on some CPUs, unless `OWN_LOOP`:
    /// the selection found that this CPU takes the loop on this vector at
    /// every placement (`arch::memcpy::route`).
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set, `len` must be
    /// more than `8 * Self::BYTES`, `src` valid for reads and `dst` for
    /// writes of `len` bytes, and the two must not overlap.
    #[inline(always)]
    unsafe fn try_copy_long<const OWN_LOOP: bool>(
        _dst: *mut u8,
        _src: *const u8,
        _len: usize,
    ) -> bool {
        false
    }
}

/// A vector register of 32-bit lanes that sums 16-bit words: what the
/// checksum and the copy-and-checksum need of it, besides [`Vector`]'s
/// loads and stores.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) trait Sum: Vector {
    /// All lanes zero.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    unsafe fn zero() -> Self;

    /// Adds both 16-bit words of every 32-bit lane of `data` to the lane of
    /// `self`, each less 32768: the words' top bits are flipped, which makes
    /// them signed `w - 32768`, so that `pmaddwd` by 1 can add them in pairs.
    /// A lane moves by at most 65 536.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    unsafe fn add_words(self, data: Self) -> Self;

    /// Adds the lanes of `other` (lane-wise, wrapping).
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    unsafe fn add(self, other: Self) -> Self;

    /// The sum of all 32-bit lanes, read as signed.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    unsafe fn reduce(self) -> i64;
}
