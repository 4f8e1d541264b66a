//! The bound of the active tier: how fast the hardware moves a block's bytes
//! with the tier's widest vectors, against which `fastpath bench` states
//! every implementation's efficiency (the bound's time ÷ its own).
//!
//! A bound is a loop that does nothing but the memory accesses a primitive
//! cannot do without: it loads the block (the checksum), stores it (the
//! fills), or loads the source and stores it to the destination (the
//! copies). It runs on the same blocks and the same random calls as the
//! implementations, and through a function pointer, as they are called.
//!
//! The accesses are `asm!` blocks, so that the compiler can neither drop the
//! loads, whose values nothing uses, nor turn the loops into calls to
//! `memcpy` or `memset`. With `W` the vector's bytes, a block of `len >= W`
//! bytes takes a vector at its start, then the whole vectors from the first
//! `W`-aligned address on, four per iteration into independent registers,
//! then one that ends at `len`: `ceil(len / W)` accesses on an aligned
//! block, one more on a misaligned one, which is what the kernels do too.
//! The vectors are aligned to the stored block (the destination), or for
//! loads alone to the source: unaligned, on a misaligned block, every
//! access would split a cache line, a store that does costs about twice as
//! much, and the bound would be slower than the kernels that align their
//! stores. A block shorter than `W` takes two accesses of the largest power
//! of two up to `len`, one at its start and one ending at its end, as the
//! kernels' short paths do at best.
//!
//! Up to a few hundred bytes, the call, the branches on the length and the
//! loop's control cost as much as the accesses, and a kernel with no loop
//! for such blocks, or inlined into the timing loop, may beat the bound (an
//! efficiency above 100%): the efficiency tells most from there on.
//!
//! The loops are the active tier's (fastpath's choice, and its detection):
//! 64-byte vectors for AVX-512, 32 for AVX2, 16 for SSE2 and NEON, and for
//! the portable tier, whose vectors are the compiler's, the target's own
//! (SSE2 on x86_64, NEON on aarch64). Other architectures have no bound.

use fastpath::Tier;

#[cfg(target_arch = "aarch64")]
use aarch64 as arch;
#[cfg(target_arch = "x86_64")]
use x86_64 as arch;

/// The loops of one vector width, as `unsafe` functions of raw pointers
/// that run only on a CPU with the width's instruction set: holding a value
/// proves that this one has it (the values are handed out only for a tier
/// that fastpath finds available, [`Tier::is_available`]).
#[derive(Clone, Copy)]
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code) // no loops there
)]
pub struct Loops {
    /// The width of the vectors, in bytes.
    bytes: usize,
    /// Loads the `len` bytes at `src`: `src` must be valid for reads of
    /// `len` bytes.
    load: unsafe fn(src: *const u8, len: usize),
    /// Stores `value` in the `len` bytes at `dst`: `dst` must be valid for
    /// writes of `len` bytes.
    store: unsafe fn(dst: *mut u8, len: usize, value: u8),
    /// Copies the `len` bytes at `src` to `dst`: `src` must be valid for
    /// reads and `dst` for writes of `len` bytes, and the two must not
    /// overlap.
    copy: unsafe fn(dst: *mut u8, src: *const u8, len: usize),
}

impl Loops {
    /// Loads every byte of `src`, once.
    #[inline(always)]
    pub fn load(&self, src: &[u8]) {
        // SAFETY: this CPU runs the loops (see the type), and `src` is
        // readable for its length.
        unsafe { (self.load)(src.as_ptr(), src.len()) }
    }

    /// Stores `value` in every byte of `dst`.
    #[inline(always)]
    pub fn store(&self, dst: &mut [u8], value: u8) {
        // SAFETY: this CPU runs the loops, and `dst` is writable for its
        // length.
        unsafe { (self.store)(dst.as_mut_ptr(), dst.len(), value) }
    }

    /// Copies `src` to `dst`, of the same length.
    #[inline(always)]
    pub fn copy(&self, dst: &mut [u8], src: &[u8]) {
        assert_eq!(dst.len(), src.len(), "the bound copies equal lengths");
        // SAFETY: this CPU runs the loops; `src` is readable and `dst`
        // writable for the length of both, and a shared and a mutable
        // borrow do not overlap.
        unsafe { (self.copy)(dst.as_mut_ptr(), src.as_ptr(), src.len()) }
    }
}

/// The bound of a tier: its widest vectors' loops, named after the tier.
#[derive(Clone, Copy)]
pub struct Bound {
    /// The tier, for the names.
    tier: Tier,
    /// The loops of its widest vectors.
    loops: Loops,
}

impl Bound {
    /// The bound of the active tier, on x86_64 and aarch64.
    pub fn active() -> Option<Bound> {
        let tier = fastpath::active_tier();
        // The tier's loops; for a tier without loops of its own (the
        // portable tier), the target's own, the first.
        let (_, loops) = LOOPS
            .iter()
            .find(|(of, _)| *of == tier)
            .or(LOOPS.first())
            .filter(|(of, _)| of.is_available())?;
        Some(Bound {
            tier,
            loops: *loops,
        })
    }

    /// What the bound is, for the header: the tier and the vectors' width.
    pub fn describe(&self) -> String {
        format!("{}, {}-byte vectors", self.tier, self.loops.bytes)
    }

    /// The bound's name as an implementation of a primitive whose bound
    /// makes these `accesses` ("loads", "stores", "loads and stores").
    pub fn name(&self, accesses: &str) -> String {
        format!(
            "bound ({}: {}-byte {accesses})",
            self.tier, self.loops.bytes
        )
    }

    /// The loops, to run on a primitive's blocks.
    pub fn loops(&self) -> &Loops {
        &self.loops
    }
}

/// The loops of the architecture, each with the tier whose instruction set
/// they need, the narrowest first.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const LOOPS: &[(Tier, Loops)] = arch::LOOPS;

/// No loops where the bound has none.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const LOOPS: &[(Tier, Loops)] = &[];

/// Calls `one(at)` for each vector of `W` bytes at offset `at`, and
/// `four(at)` for each four vectors from `at`, which together cover
/// `0..len` for `len >= W`, with `addr` the address of offset 0: the vector
/// at 0, the whole vectors from the first `W`-aligned address on, and the
/// vector that ends at `len`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn cover<const W: usize>(
    addr: usize,
    len: usize,
    mut four: impl FnMut(usize),
    mut one: impl FnMut(usize),
) {
    debug_assert!(len >= W);
    one(0);
    if len == W {
        return;
    }
    let last = len - W;
    // In `1..=W`: the vector at 0 covers what comes before.
    let mut at = W - addr % W;
    while at + 4 * W <= last {
        four(at);
        at += 4 * W;
    }
    while at < last {
        one(at);
        at += W;
    }
    one(last);
}

/// The size of both accesses to a block of `0 < len` bytes shorter than
/// the vectors: the largest power of two up to `len`, at 0 and at
/// `len - size`, which together cover `0..len`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn short_size(len: usize) -> usize {
    1 << len.ilog2()
}

#[cfg(target_arch = "x86_64")]
mod x86_64 {
    //! The loops with `movdqu` (SSE2), `vmovdqu` (AVX2) and `vmovdqu64`
    //! (AVX-512F), and with general registers for what is shorter than 16
    //! bytes. Registers are the compiler's choice, among all the class
    //! holds (`zmm0`-`zmm31` with AVX-512): each access writes its own, so
    //! that no load waits for another.

    use core::arch::asm;
    use core::arch::x86_64::{_mm_set1_epi8, _mm256_set1_epi8, _mm512_set1_epi8};

    use fastpath::Tier;

    use super::{Loops, cover, short_size};

    /// The loops of each width, with the tier whose CPUs run them: SSE2's
    /// `movdqu`, AVX2's `vmovdqu` and `vpbroadcastb`, AVX-512F's
    /// `vmovdqu64` (which the AVX-512 tier's CPUs have).
    pub const LOOPS: &[(Tier, Loops)] = &[
        (Tier::Sse2, sse2::LOOPS),
        (Tier::Avx2, avx2::LOOPS),
        (Tier::Avx512, avx512::LOOPS),
    ];

    /// Loads, stores or copies the `0 < len < 16` bytes at `src`/`dst`
    /// with two accesses of `short_size(len)` bytes in general registers:
    /// `$op` is `load`, `store` or `copy`.
    macro_rules! short {
        ($op:ident, $size:expr, $($operands:tt)*) => {
            match $size {
                8 => short!(@$op "mov", "", "qword", "", $($operands)*),
                4 => short!(@$op "mov", ":e", "dword", ":e", $($operands)*),
                2 => short!(@$op "movzx", ":e", "word", ":x", $($operands)*),
                _ => short!(@$op "movzx", ":e", "byte", ":l", $($operands)*),
            }
        };
        // `$load $t$lmod, $ptr ptr [..]` loads into `t`; `mov $ptr ptr
        // [..], $v$smod` stores the low bytes of `v`.
        (@load $load:literal, $lmod:literal, $ptr:literal, $smod:literal, $a:expr, $b:expr) => {
            asm!(
                concat!($load, " {t", $lmod, "}, ", $ptr, " ptr [{a}]"),
                concat!($load, " {u", $lmod, "}, ", $ptr, " ptr [{b}]"),
                a = in(reg) $a,
                b = in(reg) $b,
                t = out(reg) _,
                u = out(reg) _,
                options(nostack, preserves_flags, readonly),
            )
        };
        (@store $load:literal, $lmod:literal, $ptr:literal, $smod:literal, $a:expr, $b:expr, $v:expr) => {
            asm!(
                concat!("mov ", $ptr, " ptr [{a}], {v", $smod, "}"),
                concat!("mov ", $ptr, " ptr [{b}], {v", $smod, "}"),
                a = in(reg) $a,
                b = in(reg) $b,
                v = in(reg) $v,
                options(nostack, preserves_flags),
            )
        };
        (@copy $load:literal, $lmod:literal, $ptr:literal, $smod:literal, $da:expr, $db:expr, $sa:expr, $sb:expr) => {
            asm!(
                concat!($load, " {t", $lmod, "}, ", $ptr, " ptr [{sa}]"),
                concat!($load, " {u", $lmod, "}, ", $ptr, " ptr [{sb}]"),
                concat!("mov ", $ptr, " ptr [{da}], {t", $smod, "}"),
                concat!("mov ", $ptr, " ptr [{db}], {u", $smod, "}"),
                sa = in(reg) $sa,
                sb = in(reg) $sb,
                da = in(reg) $da,
                db = in(reg) $db,
                t = out(reg) _,
                u = out(reg) _,
                options(nostack, preserves_flags),
            )
        };
    }

    /// The loops of one width: `$mov` moves a vector of `$bytes` between
    /// memory (`$ptr ptr`) and a `$class` register, in functions that enable
    /// `$feature`; `$splat` makes the vector that the stores write. Blocks
    /// shorter than the vector take two accesses of the first `$half` width
    /// they reach (`vmovdqu` between memory and `$half_class` registers,
    /// which are never those that only EVEX encodes; `$half_splat` for
    /// stores), or else of general registers. Each function ends with
    /// `$exit`: `vzeroupper` after 256- and 512-bit registers, as compiled
    /// AVX code does, since legacy SSE code that runs with their upper
    /// halves dirty is slowed on some CPUs (the compiler adds none after
    /// registers that only assembly wrote).
    macro_rules! loops {
        (
            $module:ident, $feature:literal, $bytes:literal, $mov:literal, $ptr:literal,
            $class:ident, $splat:ident,
            halves: [$(($half:literal, $half_ptr:literal, $half_class:ident, $half_splat:ident)),*]
            $(, exit: $exit:literal)?
        ) => {
            pub mod $module {
                use super::*;

                /// The loops, for [`LOOPS`](super::LOOPS) to hand out.
                pub const LOOPS: Loops = Loops {
                    bytes: $bytes,
                    load,
                    store,
                    copy,
                };

                /// Loads the `len` bytes at `src`.
                ///
                /// # Safety
                ///
                #[doc = concat!("The CPU must support `", $feature, "`, and `src` must be valid")]
                /// for reads of `len` bytes.
                #[target_feature(enable = $feature)]
                unsafe fn load(src: *const u8, len: usize) {
                    // SAFETY: the CPU has the feature (the caller's word).
                    // Every access lies in `src..src + len` (see `cover`
                    // and `short_size`), readable as the caller guarantees;
                    // the assembly writes only the registers it declares.
                    unsafe {
                        if len >= $bytes {
                            cover::<$bytes>(
                                src as usize,
                                len,
                                |at| asm!(
                                    concat!($mov, " {a}, ", $ptr, " ptr [{p}]"),
                                    concat!($mov, " {b}, ", $ptr, " ptr [{p} + {w}]"),
                                    concat!($mov, " {c}, ", $ptr, " ptr [{p} + 2*{w}]"),
                                    concat!($mov, " {d}, ", $ptr, " ptr [{p} + 3*{w}]"),
                                    p = in(reg) src.add(at),
                                    w = const $bytes,
                                    a = out($class) _,
                                    b = out($class) _,
                                    c = out($class) _,
                                    d = out($class) _,
                                    options(nostack, preserves_flags, readonly),
                                ),
                                |at| asm!(
                                    concat!($mov, " {a}, ", $ptr, " ptr [{p}]"),
                                    p = in(reg) src.add(at),
                                    a = out($class) _,
                                    options(nostack, preserves_flags, readonly),
                                ),
                            );
                        } $(else if len >= $half {
                            asm!(
                                concat!("vmovdqu {a}, ", $half_ptr, " ptr [{p}]"),
                                concat!("vmovdqu {b}, ", $half_ptr, " ptr [{p} + {len} - ", $half, "]"),
                                p = in(reg) src,
                                len = in(reg) len,
                                a = out($half_class) _,
                                b = out($half_class) _,
                                options(nostack, preserves_flags, readonly),
                            );
                        })* else if len > 0 {
                            let size = short_size(len);
                            short!(load, size, src, src.add(len - size));
                        }
                        $(asm!($exit, clobber_abi("C"), options(nomem, nostack, preserves_flags));)?
                    }
                }

                /// Stores `value` in the `len` bytes at `dst`.
                ///
                /// # Safety
                ///
                #[doc = concat!("The CPU must support `", $feature, "`, and `dst` must be valid")]
                /// for writes of `len` bytes.
                #[target_feature(enable = $feature)]
                unsafe fn store(dst: *mut u8, len: usize, value: u8) {
                    let v = $splat(value as i8);
                    // SAFETY: as in `load`, for writes.
                    unsafe {
                        if len >= $bytes {
                            cover::<$bytes>(
                                dst as usize,
                                len,
                                |at| asm!(
                                    concat!($mov, " ", $ptr, " ptr [{p}], {v}"),
                                    concat!($mov, " ", $ptr, " ptr [{p} + {w}], {v}"),
                                    concat!($mov, " ", $ptr, " ptr [{p} + 2*{w}], {v}"),
                                    concat!($mov, " ", $ptr, " ptr [{p} + 3*{w}], {v}"),
                                    p = in(reg) dst.add(at),
                                    w = const $bytes,
                                    v = in($class) v,
                                    options(nostack, preserves_flags),
                                ),
                                |at| asm!(
                                    concat!($mov, " ", $ptr, " ptr [{p}], {v}"),
                                    p = in(reg) dst.add(at),
                                    v = in($class) v,
                                    options(nostack, preserves_flags),
                                ),
                            );
                        } $(else if len >= $half {
                            asm!(
                                concat!("vmovdqu ", $half_ptr, " ptr [{p}], {v}"),
                                concat!("vmovdqu ", $half_ptr, " ptr [{p} + {len} - ", $half, "], {v}"),
                                p = in(reg) dst,
                                len = in(reg) len,
                                v = in($half_class) $half_splat(value as i8),
                                options(nostack, preserves_flags),
                            );
                        })* else if len > 0 {
                            let size = short_size(len);
                            let word = u64::from(value) * 0x0101_0101_0101_0101;
                            short!(store, size, dst, dst.add(len - size), word);
                        }
                        $(asm!($exit, clobber_abi("C"), options(nomem, nostack, preserves_flags));)?
                    }
                }

                /// Copies the `len` bytes at `src` to `dst`.
                ///
                /// # Safety
                ///
                #[doc = concat!("The CPU must support `", $feature, "`, `src` must be valid for")]
                /// reads and `dst` for writes of `len` bytes, and the two must
                /// not overlap.
                #[target_feature(enable = $feature)]
                unsafe fn copy(dst: *mut u8, src: *const u8, len: usize) {
                    // SAFETY: as in `load`, for reads of `src` and writes
                    // of `dst` at the same offsets; every load comes before
                    // its store.
                    unsafe {
                        if len >= $bytes {
                            cover::<$bytes>(
                                dst as usize,
                                len,
                                |at| asm!(
                                    concat!($mov, " {a}, ", $ptr, " ptr [{s}]"),
                                    concat!($mov, " {b}, ", $ptr, " ptr [{s} + {w}]"),
                                    concat!($mov, " {c}, ", $ptr, " ptr [{s} + 2*{w}]"),
                                    concat!($mov, " {d}, ", $ptr, " ptr [{s} + 3*{w}]"),
                                    concat!($mov, " ", $ptr, " ptr [{t}], {a}"),
                                    concat!($mov, " ", $ptr, " ptr [{t} + {w}], {b}"),
                                    concat!($mov, " ", $ptr, " ptr [{t} + 2*{w}], {c}"),
                                    concat!($mov, " ", $ptr, " ptr [{t} + 3*{w}], {d}"),
                                    s = in(reg) src.add(at),
                                    t = in(reg) dst.add(at),
                                    w = const $bytes,
                                    a = out($class) _,
                                    b = out($class) _,
                                    c = out($class) _,
                                    d = out($class) _,
                                    options(nostack, preserves_flags),
                                ),
                                |at| asm!(
                                    concat!($mov, " {a}, ", $ptr, " ptr [{s}]"),
                                    concat!($mov, " ", $ptr, " ptr [{t}], {a}"),
                                    s = in(reg) src.add(at),
                                    t = in(reg) dst.add(at),
                                    a = out($class) _,
                                    options(nostack, preserves_flags),
                                ),
                            );
                        } $(else if len >= $half {
                            asm!(
                                concat!("vmovdqu {a}, ", $half_ptr, " ptr [{s}]"),
                                concat!("vmovdqu {b}, ", $half_ptr, " ptr [{s} + {len} - ", $half, "]"),
                                concat!("vmovdqu ", $half_ptr, " ptr [{t}], {a}"),
                                concat!("vmovdqu ", $half_ptr, " ptr [{t} + {len} - ", $half, "], {b}"),
                                s = in(reg) src,
                                t = in(reg) dst,
                                len = in(reg) len,
                                a = out($half_class) _,
                                b = out($half_class) _,
                                options(nostack, preserves_flags),
                            );
                        })* else if len > 0 {
                            let size = short_size(len);
                            short!(copy, size, dst, dst.add(len - size), src, src.add(len - size));
                        }
                        $(asm!($exit, clobber_abi("C"), options(nomem, nostack, preserves_flags));)?
                    }
                }
            }
        };
    }

    loops!(sse2, "sse2", 16, "movdqu", "xmmword", xmm_reg, _mm_set1_epi8, halves: []);
    loops!(
        avx2, "avx2", 32, "vmovdqu", "ymmword", ymm_reg, _mm256_set1_epi8,
        halves: [(16, "xmmword", xmm_reg, _mm_set1_epi8)],
        exit: "vzeroupper"
    );
    loops!(
        avx512, "avx512f", 64, "vmovdqu64", "zmmword", zmm_reg, _mm512_set1_epi8,
        halves: [(32, "ymmword", ymm_reg, _mm256_set1_epi8), (16, "xmmword", xmm_reg, _mm_set1_epi8)],
        exit: "vzeroupper"
    );
}

#[cfg(target_arch = "aarch64")]
mod aarch64 {
    //! The loops with NEON's 16-byte registers, four per iteration in two
    //! `ldp`/`stp` pairs, and with general registers for what is shorter
    //! than 16 bytes.

    use core::arch::aarch64::vdupq_n_u8;
    use core::arch::asm;

    use fastpath::Tier;

    use super::{Loops, cover, short_size};

    /// The NEON loops, for the NEON tier's CPUs.
    pub const LOOPS: &[(Tier, Loops)] = &[(
        Tier::Neon,
        Loops {
            bytes: 16,
            load,
            store,
            copy,
        },
    )];

    /// Loads, stores or copies the `0 < len < 16` bytes at `src`/`dst`
    /// with two accesses of `short_size(len)` bytes in general registers:
    /// `$op` is `load`, `store` or `copy`.
    macro_rules! short {
        ($op:ident, $size:expr, $($operands:tt)*) => {
            match $size {
                8 => short!(@$op "ldr", "str", ":x", $($operands)*),
                4 => short!(@$op "ldr", "str", ":w", $($operands)*),
                2 => short!(@$op "ldrh", "strh", ":w", $($operands)*),
                _ => short!(@$op "ldrb", "strb", ":w", $($operands)*),
            }
        };
        (@load $ldr:literal, $str:literal, $mod:literal, $a:expr, $b:expr) => {
            asm!(
                concat!($ldr, " {t", $mod, "}, [{a}]"),
                concat!($ldr, " {u", $mod, "}, [{b}]"),
                a = in(reg) $a,
                b = in(reg) $b,
                t = out(reg) _,
                u = out(reg) _,
                options(nostack, preserves_flags, readonly),
            )
        };
        (@store $ldr:literal, $str:literal, $mod:literal, $a:expr, $b:expr, $v:expr) => {
            asm!(
                concat!($str, " {v", $mod, "}, [{a}]"),
                concat!($str, " {v", $mod, "}, [{b}]"),
                a = in(reg) $a,
                b = in(reg) $b,
                v = in(reg) $v,
                options(nostack, preserves_flags),
            )
        };
        (@copy $ldr:literal, $str:literal, $mod:literal, $da:expr, $db:expr, $sa:expr, $sb:expr) => {
            asm!(
                concat!($ldr, " {t", $mod, "}, [{sa}]"),
                concat!($ldr, " {u", $mod, "}, [{sb}]"),
                concat!($str, " {t", $mod, "}, [{da}]"),
                concat!($str, " {u", $mod, "}, [{db}]"),
                sa = in(reg) $sa,
                sb = in(reg) $sb,
                da = in(reg) $da,
                db = in(reg) $db,
                t = out(reg) _,
                u = out(reg) _,
                options(nostack, preserves_flags),
            )
        };
    }

    /// Loads the `len` bytes at `src`.
    ///
    /// # Safety
    ///
    /// The CPU must support NEON, and `src` must be valid for reads of `len`
    /// bytes.
    #[target_feature(enable = "neon")]
    unsafe fn load(src: *const u8, len: usize) {
        // SAFETY: the CPU has NEON (the caller's word). Every access lies
        // in `src..src + len` (see `cover` and `short_size`), readable as
        // the caller guarantees; the assembly writes only the registers it
        // declares.
        unsafe {
            if len >= 16 {
                cover::<16>(
                    src as usize,
                    len,
                    |at| {
                        asm!(
                            "ldp {a:q}, {b:q}, [{p}]",
                            "ldp {c:q}, {d:q}, [{p}, #32]",
                            p = in(reg) src.add(at),
                            a = out(vreg) _,
                            b = out(vreg) _,
                            c = out(vreg) _,
                            d = out(vreg) _,
                            options(nostack, preserves_flags, readonly),
                        )
                    },
                    |at| {
                        asm!(
                            "ldr {a:q}, [{p}]",
                            p = in(reg) src.add(at),
                            a = out(vreg) _,
                            options(nostack, preserves_flags, readonly),
                        )
                    },
                );
            } else if len > 0 {
                let size = short_size(len);
                short!(load, size, src, src.add(len - size));
            }
        }
    }

    /// Stores `value` in the `len` bytes at `dst`.
    ///
    /// # Safety
    ///
    /// The CPU must support NEON, and `dst` must be valid for writes of
    /// `len` bytes.
    #[target_feature(enable = "neon")]
    unsafe fn store(dst: *mut u8, len: usize, value: u8) {
        // SAFETY: as in `load`, for writes.
        unsafe {
            if len >= 16 {
                let v = vdupq_n_u8(value);
                cover::<16>(
                    dst as usize,
                    len,
                    |at| {
                        asm!(
                            "stp {v:q}, {v:q}, [{p}]",
                            "stp {v:q}, {v:q}, [{p}, #32]",
                            p = in(reg) dst.add(at),
                            v = in(vreg) v,
                            options(nostack, preserves_flags),
                        )
                    },
                    |at| {
                        asm!(
                            "str {v:q}, [{p}]",
                            p = in(reg) dst.add(at),
                            v = in(vreg) v,
                            options(nostack, preserves_flags),
                        )
                    },
                );
            } else if len > 0 {
                let size = short_size(len);
                let word = u64::from(value) * 0x0101_0101_0101_0101;
                short!(store, size, dst, dst.add(len - size), word);
            }
        }
    }

    /// Copies the `len` bytes at `src` to `dst`.
    ///
    /// # Safety
    ///
    /// The CPU must support NEON, `src` must be valid for reads and `dst`
    /// for writes of `len` bytes, and the two must not overlap.
    #[target_feature(enable = "neon")]
    unsafe fn copy(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: as in `load`, for reads of `src` and writes of `dst` at
        // the same offsets; every load comes before its store.
        unsafe {
            if len >= 16 {
                cover::<16>(
                    dst as usize,
                    len,
                    |at| {
                        asm!(
                            "ldp {a:q}, {b:q}, [{s}]",
                            "ldp {c:q}, {d:q}, [{s}, #32]",
                            "stp {a:q}, {b:q}, [{t}]",
                            "stp {c:q}, {d:q}, [{t}, #32]",
                            s = in(reg) src.add(at),
                            t = in(reg) dst.add(at),
                            a = out(vreg) _,
                            b = out(vreg) _,
                            c = out(vreg) _,
                            d = out(vreg) _,
                            options(nostack, preserves_flags),
                        )
                    },
                    |at| {
                        asm!(
                            "ldr {a:q}, [{s}]",
                            "str {a:q}, [{t}]",
                            s = in(reg) src.add(at),
                            t = in(reg) dst.add(at),
                            a = out(vreg) _,
                            options(nostack, preserves_flags),
                        )
                    },
                );
            } else if len > 0 {
                let size = short_size(len);
                short!(
                    copy,
                    size,
                    dst,
                    dst.add(len - size),
                    src,
                    src.add(len - size)
                );
            }
        }
    }
}

#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod tests {
    use super::*;
    use crate::bench::blocks::{AlignedBuffer, random_bytes};

    /// The loops of every tier this CPU runs, the narrowest first.
    fn available() -> Vec<Loops> {
        LOOPS
            .iter()
            .filter(|(tier, _)| tier.is_available())
            .map(|(_, loops)| *loops)
            .collect()
    }

    /// The byte the stores write; the bytes around a block hold its
    /// complement.
    const VALUE: u8 = 0x5a;

    /// The longest block tested: four iterations of AVX-512's loop and
    /// every tail.
    const MAX_LEN: usize = 300;

    /// Where a block of the tests starts past a 64-byte boundary: the
    /// source's and the destination's.
    const OFFSETS: [(usize, usize); 6] = [(0, 0), (1, 0), (0, 1), (14, 0), (0, 14), (63, 5)];

    /// A page, readable and writable, between two that cannot be accessed,
    /// so that an access past either end of the page faults.
    struct Guarded {
        /// The first of the three pages.
        base: *mut u8,
        page: usize,
    }

    impl Guarded {
        fn new() -> Guarded {
            // SAFETY: `sysconf` has no preconditions.
            let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap();
            // SAFETY: an anonymous private mapping of three pages, at an
            // address the kernel chooses; its first and last pages are then
            // made inaccessible.
            let base = unsafe {
                let base = libc::mmap(
                    std::ptr::null_mut(),
                    3 * page,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                );
                assert_ne!(base, libc::MAP_FAILED);
                for guard in [0, 2] {
                    let guard = base.cast::<u8>().add(guard * page).cast();
                    assert_eq!(libc::mprotect(guard, page, libc::PROT_NONE), 0);
                }
                base.cast::<u8>()
            };
            Guarded { base, page }
        }

        /// The accessible page.
        fn page(&mut self) -> &mut [u8] {
            // SAFETY: the middle page of the mapping is readable and
            // writable, and borrowed from `self` as long as the slice lives.
            unsafe { std::slice::from_raw_parts_mut(self.base.add(self.page), self.page) }
        }
    }

    impl Drop for Guarded {
        fn drop(&mut self) {
            // SAFETY: the mapping that `new` made, no longer borrowed.
            unsafe { libc::munmap(self.base.cast(), 3 * self.page) };
        }
    }

    /// The loops of every width this CPU runs access nothing outside their
    /// blocks, which lie against either end of a page between inaccessible
    /// ones: an access past the block would fault. (Which bytes in the page
    /// the stores write, the next test checks.)
    #[test]
    fn accesses_stay_in_the_block() {
        let mut guarded = Guarded::new();
        let page = guarded.page();
        for loops in available() {
            for len in 0..=MAX_LEN {
                for start in [0, page.len() - len] {
                    let block = &mut page[start..start + len];
                    loops.load(block);
                    loops.store(block, VALUE);
                    let mut out = random_bytes(len);
                    loops.copy(&mut out, block);
                    assert!(out.iter().all(|&b| b == VALUE), "{len} bytes at {start}");
                    let other = random_bytes(len);
                    loops.copy(block, &other);
                    assert_eq!(block, &other[..], "{len} bytes at {start}");
                }
            }
        }
    }

    /// The stores and the copies of every width this CPU runs write every
    /// byte of their block, as they should, and no other.
    #[test]
    fn stores_and_copies_write_exactly_the_block() {
        let region = 64 + MAX_LEN + 128;
        let src = AlignedBuffer::random(region);
        let mut dst = AlignedBuffer::zeroed(region);
        for loops in available() {
            for (src_offset, dst_offset) in OFFSETS {
                for len in 0..=MAX_LEN {
                    let (from, to) = (64 + src_offset, 64 + dst_offset);
                    let src = src.block(0, region);
                    let dst = dst.block_mut(0, region);
                    dst.fill(!VALUE);
                    loops.store(&mut dst[to..to + len], VALUE);
                    for (i, &byte) in dst.iter().enumerate() {
                        let expected = if (to..to + len).contains(&i) {
                            VALUE
                        } else {
                            !VALUE
                        };
                        assert_eq!(byte, expected, "store: {len} bytes at +{to}, byte {i}");
                    }
                    for (d, s) in dst.iter_mut().zip(src) {
                        *d = !*s;
                    }
                    loops.copy(&mut dst[to..to + len], &src[from..from + len]);
                    for (i, &byte) in dst.iter().enumerate() {
                        let expected = if (to..to + len).contains(&i) {
                            src[from + i - to]
                        } else {
                            !src[i]
                        };
                        assert_eq!(
                            byte, expected,
                            "copy: {len} bytes from +{from} to +{to}, byte {i}"
                        );
                    }
                }
            }
        }
    }

    /// The bound is the active tier's width, or for the portable tier the
    /// narrowest.
    #[test]
    fn the_bound_has_the_active_tier_s_width() {
        let bound = Bound::active().expect("a bound on this architecture");
        let widths = available();
        match fastpath::active_tier().vector_bits() {
            0 => assert_eq!(bound.loops.bytes, widths[0].bytes),
            bits => assert_eq!(bound.loops.bytes * 8, bits as usize),
        }
        assert!(bound.name("loads").starts_with("bound ("));
    }
}
