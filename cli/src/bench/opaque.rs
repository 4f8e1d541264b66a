//! Hiding values from the optimizer in the timing loops, in registers.
//!
//! `std::hint::black_box` hides a value by storing it to the stack and
//! reading it back: two stores and loads per call, which cost about as much
//! as a short checksum. Worse, a store to the stack whose address matches the
//! block's in its low 12 bits makes the next call's loads wait ("4K
//! aliasing"): one (implementation, size) pair in a run measured 3× slower
//! than the same kernel reached by another path. An empty `asm!` block with
//! register operands hides the same values with no memory traffic.

/// `data`, with its address and length passed through an empty `asm!` block
/// in registers, so the compiler cannot tell that every call sees the same
/// slice.
#[inline(always)]
pub fn slice(data: &[u8]) -> &[u8] {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        let (mut ptr, mut len) = (data.as_ptr(), data.len());
        // SAFETY: the assembly is empty, so `ptr` and `len` come out as they
        // went in: the slice rebuilt from them is `data`, borrowed as long.
        // (`nomem` is true: the assembly reads nothing through `ptr`.)
        #[allow(clippy::pointers_in_nomem_asm_block)]
        unsafe {
            core::arch::asm!(
                "/* {0} {1} */",
                inout(reg) ptr,
                inout(reg) len,
                options(nomem, nostack, preserves_flags)
            );
            std::slice::from_raw_parts(ptr, len)
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        std::hint::black_box(data)
    }
}

/// `data`, as [`slice()`] does for a mutable slice. The `asm!` block may, for
/// all the compiler knows, read and write memory, so every store before it
/// happens.
#[inline(always)]
pub fn slice_mut(data: &mut [u8]) -> &mut [u8] {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        let (mut ptr, mut len) = (data.as_mut_ptr(), data.len());
        // SAFETY: as in `slice`: the slice rebuilt is `data`.
        unsafe {
            core::arch::asm!(
                "/* {0} {1} */",
                inout(reg) ptr,
                inout(reg) len,
                options(nostack, preserves_flags)
            );
            std::slice::from_raw_parts_mut(ptr, len)
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        std::hint::black_box(data)
    }
}

/// Uses `value`, in a register, so the computation of it cannot be dropped.
#[inline(always)]
pub fn consume(value: u16) {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    // SAFETY: the assembly is empty and touches nothing.
    unsafe {
        core::arch::asm!("/* {0} */", in(reg) u64::from(value), options(nomem, nostack, preserves_flags));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        std::hint::black_box(value);
    }
}
