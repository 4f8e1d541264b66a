//! What CPU this is, by CPUID leaves 0 and 1: the vendor, family, model and
//! stepping, which name the core where a brand string does not ("AMD
//! EPYC"), and which the rules that depend on the core go by (`handoff`).

/// The CPU's signature: the vendor's identification string, and the
/// family, model and stepping of CPUID leaf 1, with their extended fields
/// added as the vendors' manuals say.
///
/// ```
/// use fastpath::arch::x86_64::Signature;
///
/// let cpu = Signature::read();
/// println!(
///     "{}, family {:#x}, model {:#x}, stepping {}",
///     cpu.vendor_str(),
///     cpu.family,
///     cpu.model,
///     cpu.stepping
/// );
/// assert!(cpu.family > 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Signature {
    /// The vendor's identification string, CPUID leaf 0's EBX, EDX and
    /// ECX: `GenuineIntel`, `AuthenticAMD`, `HygonGenuine`, ...
    pub vendor: [u8; 12],
    /// The family: the base family, plus the extended family where the
    /// base one is 0xf (AMD's 0x19 is Zen 3 and Zen 4, 0x1a Zen 5).
    pub family: u32,
    /// The model: the base model, with the extended model as its high
    /// nibble where the base family is 0x6 or 0xf (every family from 0xf
    /// on).
    pub model: u32,
    /// The stepping, the revision of the model.
    pub stepping: u32,
}

impl Signature {
    /// Reads the signature of the CPU that runs the call.
    ///
    /// ```
    /// let cpu = fastpath::arch::x86_64::Signature::read();
    /// assert_eq!(cpu, fastpath::arch::x86_64::Signature::read());
    /// ```
    // CPUID is a safe intrinsic since Rust 1.87; `unsafe` for the crate's
    // older supported versions.
    #[allow(unused_unsafe)]
    #[must_use]
    pub fn read() -> Signature {
        use core::arch::x86_64::__cpuid;

        // SAFETY: CPUID exists on every x86_64 CPU, and so does its leaf 1,
        // which reports SSE2, part of every x86_64 CPU.
        let (leaf0, eax) = unsafe { (__cpuid(0), __cpuid(1).eax) };
        let mut vendor = [0; 12];
        for (bytes, register) in vendor
            .chunks_exact_mut(4)
            .zip([leaf0.ebx, leaf0.edx, leaf0.ecx])
        {
            bytes.copy_from_slice(&register.to_le_bytes());
        }
        let (family, model) = family_model(eax);
        Signature {
            vendor,
            family,
            model,
            stepping: eax & 0xf,
        }
    }

    /// The vendor's identification string as text, or `""` if it is not
    /// UTF-8 (every vendor's is ASCII).
    ///
    /// ```
    /// let cpu = fastpath::arch::x86_64::Signature::read();
    /// assert_eq!(cpu.vendor_str().len(), 12);
    /// ```
    #[must_use]
    pub fn vendor_str(&self) -> &str {
        core::str::from_utf8(&self.vendor).unwrap_or("")
    }
}

/// The family and model of CPUID leaf 1's EAX, with their extended fields
/// added as the vendors' manuals say.
fn family_model(eax: u32) -> (u32, u32) {
    let base_family = (eax >> 8) & 0xf;
    let base_model = (eax >> 4) & 0xf;
    let family = if base_family == 0xf {
        base_family + ((eax >> 20) & 0xff)
    } else {
        base_family
    };
    let model = if base_family == 0xf || base_family == 0x6 {
        (((eax >> 16) & 0xf) << 4) | base_model
    } else {
        base_model
    };
    (family, model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_and_model_as_cpuid_gives_them() {
        // AMD EPYC 7763 (Milan, Zen 3): family 0x19, model 0x01.
        assert_eq!(family_model(0x00a0_0f11), (0x19, 0x01));
        // AMD EPYC 9654 (Genoa, Zen 4): family 0x19, model 0x11.
        assert_eq!(family_model(0x00a1_0f11), (0x19, 0x11));
        // Intel Xeon (Sapphire Rapids): family 6, model 0x8f.
        assert_eq!(family_model(0x0008_06f8), (0x6, 0x8f));
    }
}
