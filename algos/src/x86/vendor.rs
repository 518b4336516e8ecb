//! The CPU's vendor, for the few choices inside a driver that measured differently on
//! Intel and AMD cores with the same instructions (not for what a driver may run: that is
//! the feature token's job, [`token`](super::token)).

use std::sync::OnceLock;

/// Whether this CPU reports itself as `GenuineIntel`: the registry's reading of CPUID
/// leaf 0 ([`CpuInfo::native`](cryptoreg_registry::CpuInfo::native)), taken once per
/// process (a driver asks on every handle it builds).
pub(crate) fn is_intel() -> bool {
    static INTEL: OnceLock<bool> = OnceLock::new();
    *INTEL.get_or_init(|| cryptoreg_registry::CpuInfo::native().vendor == "GenuineIntel")
}
