//! The one place where a kernel is chosen and cached: the active table
//! ([`active`]), its choice ([`selection`], with the `FASTPATH_TIER` cap) and
//! the `dispatch!` macro, which declares a primitive's cached function
//! pointer.
//!
//! The choice is made at run time with `std`, and without it on x86_64 with
//! SSE2, whose detection needs only `core` (`arch::x86_64::detect`): the
//! builds of `cfg(any(feature = "std", all(target_arch = "x86_64",
//! target_feature = "sse2")))`, the condition written below wherever the two
//! ways part. Elsewhere without `std` the table is `arch::ENABLED`, fixed at
//! compile time.

use crate::Tier;
use crate::arch::Kernels;

/// The tier whose kernels this process runs.
///
/// The first call detects the CPU's features and, with `std`, reads
/// `FASTPATH_TIER`; the answer is cached for the life of the process.
/// Without `std`, the detection is made on x86_64 alone; elsewhere the tier
/// is the best one enabled at compile time (see [`Tier`]).
///
/// ```
/// println!("fastpath runs its {} kernels", fastpath::active_tier());
/// ```
#[inline]
#[must_use]
pub fn active_tier() -> Tier {
    active().tier()
}

/// The kernel table this process runs: chosen once at run time with `std`
/// or on x86_64, at compile time elsewhere.
#[inline]
pub(crate) fn active() -> &'static Kernels {
    #[cfg(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        selection::active()
    }
    #[cfg(not(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2"))))]
    {
        crate::arch::ENABLED
    }
}

/// The choice of the kernel table, as the inline paths of `arch` make it
/// where they find none made yet: they name no dispatch, and take this as
/// a type parameter.
pub(crate) struct Choice;

impl crate::arch::inline::Choose for Choice {
    #[inline(always)]
    fn choose() {
        #[cfg(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2")))]
        selection::choose();
    }
}

/// The choice of a kernel table, made once and cached: with `std`, and
/// without it on x86_64 (with SSE2), whose detection needs only `core`.
#[cfg(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2")))]
pub(crate) mod selection {
    use core::sync::atomic::{AtomicU8, Ordering};

    use crate::arch::inline::InlinePath;
    use crate::arch::{self, Kernels};
    use crate::tier::{Tier, select};

    /// The state before the first choice.
    const UNSELECTED: u8 = 0;

    /// 1 + the index in [`arch::all`] of the chosen table, [`UNSELECTED`]
    /// before the first choice.
    static TABLE: AtomicU8 = AtomicU8::new(UNSELECTED);

    /// The chosen table, chosen now if it was not yet.
    #[inline]
    pub(crate) fn active() -> &'static Kernels {
        match TABLE.load(Ordering::Relaxed) {
            UNSELECTED => choose(),
            n => arch::all()
                .nth(usize::from(n) - 1)
                .unwrap_or_else(|| choose()),
        }
    }

    /// Chooses the table: the tier [`select`] picks from those this CPU
    /// runs, capped by `FASTPATH_TIER` with `std`, and that tier's preferred
    /// table. Caches and returns it, and tells the architecture's inline
    /// paths ([`InlinePath::selected`]).
    #[cold]
    #[inline(never)]
    pub(crate) fn choose() -> &'static Kernels {
        let tier = select(Tier::is_available, cap());
        let (index, kernels) = arch::all()
            .enumerate()
            .filter(|(_, kernels)| kernels.tier() == tier && kernels.is_available())
            .last()
            .unwrap_or((0, &arch::portable::Portable::KERNELS));
        // Racing threads compute the same answers; the ones stored last win
        // and equal the others.
        TABLE.store(index as u8 + 1, Ordering::Relaxed);
        arch::native::Inline::selected(kernels);
        // The longest copy that keeps the own kernel, without `std` every
        // one: there is no C library to hand copies to.
        #[cfg(feature = "std")]
        {
            #[cfg(target_arch = "x86_64")]
            let own_copy_to = arch::x86_64::handoff::own_copy_to(tier, crate::caches().l2);
            // No measurement elsewhere: the kernels to the x86_64 default.
            #[cfg(not(target_arch = "x86_64"))]
            let own_copy_to = 16 << 10;
            arch::memcpy::set_own_copy_to(own_copy_to);
            // The length from which the fill kernels store with `rep
            // stosb`, by the CPU's rule.
            #[cfg(target_arch = "x86_64")]
            arch::generic::fill::set_rep_stosb_from(arch::x86_64::handoff::rep_stosb_from());
            // The length from which fills keep the own kernels rather than
            // call `memset`, by the CPU's rule; elsewhere 1 KiB, as on the
            // x86_64 CPUs without a rule of their own.
            #[cfg(target_arch = "x86_64")]
            let memset_below = arch::x86_64::handoff::memset_below();
            #[cfg(not(target_arch = "x86_64"))]
            let memset_below = 1 << 10;
            arch::generic::fill::set_memset_below(memset_below);
        }
        kernels
    }

    /// The cap that `FASTPATH_TIER` sets, if any.
    #[cfg(feature = "std")]
    fn cap() -> Option<Tier> {
        match std::env::var("FASTPATH_TIER") {
            // Set but empty, as `FASTPATH_TIER= cmd` leaves it: not set.
            Ok(value) if value.trim().is_empty() => None,
            Ok(value) => match value.parse::<Tier>() {
                Ok(tier) => Some(tier),
                Err(err) => {
                    std::eprintln!("fastpath: ignoring FASTPATH_TIER={value:?}: {err}");
                    None
                }
            },
            Err(std::env::VarError::NotPresent) => None,
            Err(std::env::VarError::NotUnicode(value)) => {
                std::eprintln!("fastpath: ignoring FASTPATH_TIER={value:?}: not UTF-8");
                None
            }
        }
    }

    /// No cap without `std`: there is no environment to read.
    #[cfg(not(feature = "std"))]
    fn cap() -> Option<Tier> {
        None
    }
}

/// Declares a function `$name` that runs the active table's kernel `$field`
/// for one primitive, chosen once and cached in a function pointer.
///
/// Where the choice is made at run time (with `std`, and on x86_64 without
/// it), the pointer starts at a `detect` function which looks up the active
/// table, stores its kernel in the pointer and calls it; every later call is
/// one load and one indirect call, straight into the tier's
/// `#[target_feature]` function. Elsewhere the table is a compile-time
/// constant and the call is direct.
///
/// Declared `unsafe fn`, the function has the kernel's preconditions, which
/// its `# Safety` section states. With `route = f;`, with `std`, the pointer
/// caches `f(kernel)` rather than the kernel: a function of the same type
/// that `f` puts in front of the kernel on some CPUs (the fills' hand-off to
/// the C library, `fill::route`), or the kernel itself, so that the other
/// CPUs pay nothing for it.
macro_rules! dispatch {
    (
        @define [$($qualifier:tt)*]
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;
        kernel = $field:ident;
        $(route = $route:path;)?
    ) => {
        $(#[$attr])*
        $vis $($qualifier)* fn $name($($arg: $ty),*) -> $ret {
            type Kernel = unsafe fn($($ty),*) -> $ret;

            #[cfg(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2")))]
            {
                use core::sync::atomic::{AtomicPtr, Ordering};

                /// The first call: chooses, caches and calls the kernel.
                ///
                /// # Safety
                ///
                /// The arguments must meet the declared function's
                /// preconditions, if it has any.
                unsafe fn detect($($arg: $ty),*) -> $ret {
                    let kernel: Kernel = $crate::dispatch::active().$field;
                    $(
                        #[cfg(feature = "std")]
                        let kernel: Kernel = $route(kernel);
                    )?
                    FN.store(kernel as *mut (), Ordering::Relaxed);
                    // SAFETY: the active table is one this CPU runs, and the
                    // arguments meet the kernel's preconditions, as the
                    // caller guarantees.
                    unsafe { kernel($($arg),*) }
                }

                static FN: AtomicPtr<()> = AtomicPtr::new(detect as *mut ());

                let ptr = FN.load(Ordering::Relaxed);
                // SAFETY: `FN` only ever holds `detect` or a value of type
                // `Kernel` cast to a pointer, so it is a valid function
                // pointer of type `Kernel`.
                let kernel = unsafe { core::mem::transmute::<*mut (), Kernel>(ptr) };
                // SAFETY: a kernel is stored only after it was read from the
                // active table, which this CPU runs; the arguments meet its
                // preconditions (an `unsafe` declaration's caller
                // guarantees them; a safe one's kernel has none), as they
                // meet `detect`'s.
                unsafe { kernel($($arg),*) }
            }
            #[cfg(not(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2"))))]
            {
                let kernel: Kernel = $crate::arch::ENABLED.$field;
                // SAFETY: the table of a build that chooses at compile time
                // is one whose features the build enables; the arguments
                // meet the kernel's preconditions, as above.
                unsafe { kernel($($arg),*) }
            }
        }
    };
    (
        $(#[$attr:meta])*
        $vis:vis unsafe fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;
        kernel = $field:ident;
        $(route = $route:path;)?
    ) => {
        $crate::dispatch::dispatch! {
            @define [unsafe]
            $(#[$attr])*
            $vis fn $name($($arg: $ty),*) -> $ret;
            kernel = $field;
            $(route = $route;)?
        }
    };
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;
        kernel = $field:ident;
        $(route = $route:path;)?
    ) => {
        $crate::dispatch::dispatch! {
            @define []
            $(#[$attr])*
            $vis fn $name($($arg: $ty),*) -> $ret;
            kernel = $field;
            $(route = $route;)?
        }
    };
}
pub(crate) use dispatch;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_is_available() {
        assert!(active_tier().is_available());
        assert_eq!(active_tier(), active_tier());
    }

    /// The inline fill's own stores follow the active tier (and
    /// `FASTPATH_TIER`): AVX-512 stores with the AVX-512 tier and BMI2,
    /// AVX2 stores with the AVX2 tier (or AVX-512 without BMI2), none below.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn own_stores_follow_the_tier() {
        use crate::arch::x86_64::{detect, inline};

        let tier = active_tier();
        let expected = match tier {
            Tier::Avx512 if detect::has(detect::BMI2) => inline::ON,
            Tier::Avx512 | Tier::Avx2 => inline::AVX2,
            _ => inline::OFF,
        };
        assert_eq!(inline::own_stores(), expected, "{tier:?}");
    }

    /// The selection sets the length up to which copies keep the own
    /// kernel by the tier's and the CPU's rule.
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    #[test]
    fn long_copies_keep_the_own_kernel_only_by_the_rules() {
        let tier = active_tier();
        let to = crate::arch::x86_64::handoff::own_copy_to(tier, crate::caches().l2);
        assert!(to >= 2 << 10);
        assert_eq!(crate::arch::memcpy::own_copy_to(), to);
    }

    /// The selection sets the length below which fills go to `memset` by
    /// the CPU's rule.
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    #[test]
    fn fills_go_to_memset_below_the_cpus_length() {
        let _ = active_tier();
        let _tests = crate::arch::generic::fill::MEMSET_BELOW_TESTS.lock();
        assert_eq!(
            crate::arch::generic::fill::memset_below(),
            crate::arch::x86_64::handoff::memset_below()
        );
    }

    /// The selection sets the length from which the fill kernels store
    /// with `rep stosb` by the CPU's rule.
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    #[test]
    fn fills_store_with_rep_stosb_from_the_cpus_threshold() {
        let _ = active_tier();
        assert_eq!(
            crate::arch::generic::fill::rep_stosb_from(),
            crate::arch::x86_64::handoff::rep_stosb_from()
        );
    }
}
