//! The CPU's vendor, for the few choices inside a driver that measured differently on
//! Intel and AMD cores with the same instructions (not for what a driver may run: that is
//! the feature token's job, [`token`](super::token)).

use std::sync::OnceLock;

/// Whether this CPU reports itself as `GenuineIntel` (CPUID leaf 0), read once per
/// process.
pub(crate) fn is_intel() -> bool {
    static INTEL: OnceLock<bool> = OnceLock::new();
    *INTEL.get_or_init(|| {
        // SAFETY: CPUID leaf 0 exists on every x86-64 CPU and only reads registers.
        #[allow(unused_unsafe)]
        let id = unsafe { core::arch::x86_64::__cpuid(0) };
        // The vendor string is EBX, EDX, ECX: "Genu", "ineI", "ntel".
        (id.ebx, id.edx, id.ecx) == (0x756e_6547, 0x4965_6e69, 0x6c65_746e)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn vendor_matches_the_registry_identity() {
        let native = cryptoreg_registry::CpuInfo::native();
        assert_eq!(super::is_intel(), native.vendor == "GenuineIntel");
    }
}
