//! What the CPU is and which of its features matter to fastpath's kernels.

/// The CPU features the kernels of this architecture use, with whether this
/// CPU has them (as the standard library detects them at run time).
pub fn features() -> Vec<(&'static str, bool)> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        vec![
            ("sse2", has!("sse2")),
            ("avx2", has!("avx2")),
            ("avx512f", has!("avx512f")),
            ("avx512bw", has!("avx512bw")),
            ("avx512vl", has!("avx512vl")),
            ("avx512vnni", has!("avx512vnni")),
            ("bmi2", has!("bmi2")),
        ]
    }
    #[cfg(target_arch = "aarch64")]
    {
        vec![("neon", std::arch::is_aarch64_feature_detected!("neon"))]
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        Vec::new()
    }
}

/// The CPU's model name: CPUID's brand string on x86_64, `/proc/cpuinfo`
/// elsewhere; "unknown CPU" if neither says. On x86_64, followed by the
/// vendor, family, model and stepping, which name the core where a shared
/// machine's brand string does not ("AMD EPYC"), and which fastpath's
/// rules for the C library's `memcpy` go by.
pub fn model() -> String {
    let name = brand_string()
        .or_else(proc_cpuinfo_model)
        .unwrap_or_else(|| "unknown CPU".to_owned());
    match signature() {
        Some(signature) => format!("{name} ({signature})"),
        None => name,
    }
}

/// The vendor, family, model and stepping, as fastpath reads them for its
/// own rules.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn signature() -> Option<String> {
    let cpu = fastpath::arch::x86_64::Signature::read();
    Some(format!(
        "{}, family {:#x}, model {:#x}, stepping {}",
        cpu.vendor_str(),
        cpu.family,
        cpu.model,
        cpu.stepping
    ))
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn signature() -> Option<String> {
    None
}

#[cfg(target_arch = "x86_64")]
fn brand_string() -> Option<String> {
    use std::arch::x86_64::__cpuid;

    // Leaves 0x8000_0002..=0x8000_0004 hold the brand string, 16 bytes each,
    // when the highest extended leaf reaches them.
    if __cpuid(0x8000_0000).eax < 0x8000_0004 {
        return None;
    }
    let mut bytes = Vec::with_capacity(48);
    for leaf in 0x8000_0002..=0x8000_0004 {
        let r = __cpuid(leaf);
        for reg in [r.eax, r.ebx, r.ecx, r.edx] {
            bytes.extend_from_slice(&reg.to_le_bytes());
        }
    }
    let brand = String::from_utf8_lossy(&bytes);
    let brand = brand.trim_matches(|c: char| c == '\0' || c.is_whitespace());
    (!brand.is_empty()).then(|| brand.to_owned())
}

#[cfg(not(target_arch = "x86_64"))]
fn brand_string() -> Option<String> {
    None
}

fn proc_cpuinfo_model() -> Option<String> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    cpuinfo.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        let key = key.trim();
        (key == "model name" || key == "Model" || key == "Hardware")
            .then(|| value.trim().to_owned())
            .filter(|value| !value.is_empty())
    })
}
