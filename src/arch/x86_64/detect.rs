//! The x86_64 CPU features the tiers need, detected at run time with `core`
//! alone: CPUID and XGETBV, so that a build without `std` chooses its tier
//! as one with `std` does.
//!
//! The detection follows the standard library's (`std_detect`), bit for
//! bit, for the features below; `tests::agrees_with_std` checks it against
//! `is_x86_feature_detected!` on the machine that runs the tests. A vector
//! feature counts only where the operating system saves its registers on a
//! context switch, as it says in XCR0 (read with XGETBV, which exists only
//! where the OS has set CR4.OSXSAVE, as CPUID reports):
//!
//! - CPUID leaf 1, EDX bit 26: SSE2, part of every x86_64 CPU;
//! - CPUID leaf 7 subleaf 0, EBX bit 5: AVX2, if XCR0 has the XMM and YMM
//!   state (bits 1 and 2);
//! - EBX bits 16 and 30, ECX bit 11: AVX-512F, AVX-512BW and AVX512-VNNI,
//!   if XCR0 also has the opmask, ZMM_Hi256 and Hi16_ZMM state (bits 5-7);
//! - EBX bit 8: BMI2, a scalar extension, whatever XCR0 holds; but not on
//!   an Intel CPU without AVX, as `std_detect` does: some such Skylake parts
//!   report BMI2 they do not have (Intel's erratum SKL052).
//!
//! The answer is read once, at the first query, and kept in an atomic; so
//! is the vendor ([`is_amd`]), which the rules that depend on it read.

use core::arch::x86_64::{__cpuid, __cpuid_count, CpuidResult};
use core::sync::atomic::{AtomicU32, Ordering};

/// SSE2.
pub(crate) const SSE2: u32 = 1 << 0;
/// AVX2, with its registers saved by the OS.
pub(crate) const AVX2: u32 = 1 << 1;
/// AVX-512F, with its registers saved by the OS.
pub(crate) const AVX512F: u32 = 1 << 2;
/// AVX-512BW, with its registers saved by the OS.
pub(crate) const AVX512BW: u32 = 1 << 3;
/// AVX512-VNNI, with its registers saved by the OS.
pub(crate) const AVX512VNNI: u32 = 1 << 4;
/// BMI2.
pub(crate) const BMI2: u32 = 1 << 5;

/// Set in [`DETECTED`] once the features are known, so that a CPU with none
/// of them is not detected again.
const KNOWN: u32 = 1 << 31;

/// The features of this CPU and OS with [`KNOWN`], or 0 before the first
/// query.
static DETECTED: AtomicU32 = AtomicU32::new(0);

/// Whether this CPU has every feature of `features` (an or of the
/// constants above), and the OS saves the registers they use.
#[inline]
pub(crate) fn has(features: u32) -> bool {
    let detected = match DETECTED.load(Ordering::Relaxed) {
        0 => detect(),
        detected => detected,
    };
    detected & features == features
}

/// Reads the features and keeps them; racing threads store the same value.
#[cold]
#[inline(never)]
fn detect() -> u32 {
    let detected = read() | KNOWN;
    DETECTED.store(detected, Ordering::Relaxed);
    detected
}

/// The features, read with CPUID and XGETBV.
// CPUID is a safe intrinsic since Rust 1.87; `unsafe` for the crate's
// older supported versions.
#[allow(unused_unsafe)]
fn read() -> u32 {
    let bit = |register: u32, bit: u32| register >> bit & 1 == 1;
    // SAFETY: CPUID exists on every x86_64 CPU.
    let CpuidResult {
        eax: max_leaf,
        ebx: vendor,
        ..
    } = unsafe { __cpuid(0) };
    if max_leaf < 1 {
        return 0;
    }
    // SAFETY: as above; leaf 1 exists, the maximum leaf being at least 1.
    let CpuidResult {
        ecx: leaf1_ecx,
        edx: leaf1_edx,
        ..
    } = unsafe { __cpuid(1) };
    let (leaf7_ebx, leaf7_ecx) = if max_leaf >= 7 {
        // SAFETY: as above; leaf 7 exists, the maximum leaf being at
        // least 7, and subleaf 0 is its first.
        let leaf7 = unsafe { __cpuid_count(7, 0) };
        (leaf7.ebx, leaf7.ecx)
    } else {
        (0, 0)
    };

    let mut features = 0;
    if bit(leaf1_edx, 26) {
        features |= SSE2;
    }
    // XSAVE (bit 26) and OSXSAVE (bit 27): the CPU has XGETBV and the OS
    // has enabled it.
    let xcr0 = if bit(leaf1_ecx, 26) && bit(leaf1_ecx, 27) {
        // SAFETY: CPUID just reported XSAVE and OSXSAVE.
        unsafe { xcr0() }
    } else {
        0
    };
    let os_saves_ymm = xcr0 & 0b110 == 0b110;
    let os_saves_zmm = xcr0 & 0b1110_0000 == 0b1110_0000;
    if os_saves_ymm {
        if bit(leaf7_ebx, 5) {
            features |= AVX2;
        }
        if os_saves_zmm {
            if bit(leaf7_ebx, 16) {
                features |= AVX512F;
            }
            if bit(leaf7_ebx, 30) {
                features |= AVX512BW;
            }
            if bit(leaf7_ecx, 11) {
                features |= AVX512VNNI;
            }
        }
    }
    let avx = os_saves_ymm && bit(leaf1_ecx, 28);
    let intel = vendor == u32::from_le_bytes(*b"Genu");
    if bit(leaf7_ebx, 8) && (avx || !intel) {
        features |= BMI2;
    }
    features
}

/// Whether the CPU is AMD's (or Hygon's, its licensee): for the rules and
/// the caches of `std`.
#[cfg(feature = "std")]
#[inline]
pub(crate) fn is_amd() -> bool {
    matches!(vendor_class(), AMD_BEFORE_ZEN_5 | AMD_FROM_ZEN_5)
}

/// Whether the CPU is AMD's (or Hygon's) of a family before Zen 5's
/// (0x1a): Zen 4 and earlier.
#[inline]
pub(crate) fn is_amd_before_zen_5() -> bool {
    vendor_class() == AMD_BEFORE_ZEN_5
}

/// [`vendor_class`] of an AMD or Hygon CPU before family 0x1a.
const AMD_BEFORE_ZEN_5: u8 = 1;
/// [`vendor_class`] of any other vendor's CPU.
const OTHER_VENDOR: u8 = 2;
/// [`vendor_class`] of an AMD CPU of family 0x1a (Zen 5) or later.
const AMD_FROM_ZEN_5: u8 = 3;

/// The vendor, and AMD's families before Zen 5 apart from the others: read
/// with CPUID at the first call, then from a cached value, with or without
/// `std`.
#[inline]
fn vendor_class() -> u8 {
    use core::sync::atomic::{AtomicU8, Ordering};

    /// 0 until known, then one of the classes.
    static CLASS: AtomicU8 = AtomicU8::new(0);

    /// Reads the vendor and the family, and caches their class.
    #[cold]
    #[inline(never)]
    fn detect() -> u8 {
        let cpu = super::Signature::read();
        let class = match &cpu.vendor {
            b"AuthenticAMD" | b"HygonGenuine" if cpu.family >= 0x1a => AMD_FROM_ZEN_5,
            b"AuthenticAMD" | b"HygonGenuine" => AMD_BEFORE_ZEN_5,
            _ => OTHER_VENDOR,
        };
        CLASS.store(class, Ordering::Relaxed);
        class
    }

    match CLASS.load(Ordering::Relaxed) {
        0 => detect(),
        class => class,
    }
}

/// XCR0, the state components that the OS saves.
///
/// # Safety
///
/// The CPU must have XSAVE and the OS must have enabled it: CPUID leaf 1
/// reports XSAVE and OSXSAVE (ECX bits 26 and 27). Elsewhere XGETBV raises
/// an invalid-opcode exception.
#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    // SAFETY: XGETBV exists and is enabled, as the caller guarantees; XCR0
    // (number 0) exists wherever it does.
    unsafe { core::arch::x86_64::_xgetbv(0) }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    /// The cached vendor class is the signature's: AMD or Hygon, and of a
    /// family before 0x1a or not.
    #[test]
    fn vendor_class_is_the_signatures() {
        let cpu = super::super::Signature::read();
        let amd = matches!(&cpu.vendor, b"AuthenticAMD" | b"HygonGenuine");
        for _ in 0..2 {
            assert_eq!(is_amd(), amd);
            assert_eq!(is_amd_before_zen_5(), amd && cpu.family < 0x1a);
        }
    }

    /// Each feature is detected exactly where the standard library detects
    /// it.
    #[test]
    fn agrees_with_std() {
        let features = [
            ("sse2", SSE2, std::is_x86_feature_detected!("sse2")),
            ("avx2", AVX2, std::is_x86_feature_detected!("avx2")),
            ("avx512f", AVX512F, std::is_x86_feature_detected!("avx512f")),
            (
                "avx512bw",
                AVX512BW,
                std::is_x86_feature_detected!("avx512bw"),
            ),
            (
                "avx512vnni",
                AVX512VNNI,
                std::is_x86_feature_detected!("avx512vnni"),
            ),
            ("bmi2", BMI2, std::is_x86_feature_detected!("bmi2")),
        ];
        for (name, feature, std_detected) in features {
            std::eprintln!("{name}: {std_detected}");
            assert_eq!(has(feature), std_detected, "{name}");
        }
    }

    /// A query of several features is the and of the single ones.
    #[test]
    fn several_features_at_once() {
        assert_eq!(has(AVX512F | AVX512BW), has(AVX512F) && has(AVX512BW));
        assert!(has(0));
    }
}
