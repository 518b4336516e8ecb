//! Helpers shared by the facade's integration tests.

#![allow(dead_code)]

use cryptoreg::{Config, CpuInfo, Registry};

/// Boots with the embedded defaults plus `extra` TOML, planning for `cpu`.
pub fn boot(extra: &str, cpu: Option<&str>) -> Registry {
    let config = Config::parse(extra, "test").expect("test config parses");
    cryptoreg::boot(
        config,
        cpu.map(|p| CpuInfo::preset(p).expect("known preset")),
    )
    .expect("boot succeeds")
}

/// Deterministic pseudo-random bytes for test inputs (not for keys in production).
pub fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// An XTS key with distinct halves.
pub fn xts_key(seed: u64, len: usize) -> Vec<u8> {
    let mut k = bytes(seed, len);
    k[0] = 0;
    k[len / 2] = 1;
    k
}

/// A configuration of known answers only, plus `extra` TOML (which must not have a
/// `[disable]` table). In the fault-injection build the deliberately wrong drivers pass
/// known answers by design, so there they are disabled, in this file and in any file
/// reloaded from it, so that a test of something else sees the real drivers.
pub fn kat_config(extra: &str) -> String {
    let mut config = format!("[selftest]\nmode = \"kat\"\n{extra}");
    if cfg!(cryptoreg_fault_injection) {
        config.push_str(
            "[disable]\ndrivers = [\"xts-aes-faulty\", \"gcm-aes-faulty\", \"ctr-aes-faulty-cpu\"]\n",
        );
    }
    config
}

/// The fault-injection build's drivers that exist only in a test process that asks for
/// them (`fault_injection::use_late_drivers`, `use_calibration_drivers`): anywhere else
/// their constructor fails, so they are listed as `failed`.
pub const OPT_IN_DRIVERS: &[&str] = &[
    "ctr-aes-faulty-late",
    "xts-aes-faulty-late",
    "ctr-aes-slow",
    "ctr-aes-twin-a",
    "ctr-aes-twin-b",
];

/// Whether `driver` is one of the fault-injection build's test-only drivers (the
/// deliberately wrong ones and the opt-in ones).
pub fn is_test_only(driver: &str) -> bool {
    cfg!(cryptoreg_fault_injection)
        && (driver.contains("-faulty") || OPT_IN_DRIVERS.contains(&driver))
}

/// Whether this CPU has AES instructions (AES-NI on x86-64, the Crypto Extensions on
/// arm64), which the [`rung`] drivers need.
pub fn host_has_aes() -> bool {
    cryptoreg::driver::HostFeatures::detect().has_all(&[cryptoreg::Feature::Aes])
}

/// The AES rung the registry-behaviour tests pin, per architecture: a CPU preset whose
/// best AES drivers are these (x86-64: Westmere and AES-NI; arm64: Neoverse N1 and the
/// Crypto Extensions, the kernel's `arch/arm64/crypto` names and priorities), so each
/// test states its drivers once for both architectures.
pub mod rung {
    #[cfg(not(target_arch = "aarch64"))]
    mod names {
        pub const PRESET: &str = "westmere";
        pub const AES: &str = "aes-aesni";
        pub const ECB: &str = "ecb-aes-aesni";
        pub const CTR: &str = "ctr-aes-aesni";
        pub const XTS: &str = "xts-aes-aesni";
        pub const XTS_INSTANCE: &str = "xts(ecb-aes-aesni)";
        /// Base priority of [`XTS`].
        pub const XTS_PRIORITY: u32 = 401;
        /// Priority of [`XTS_INSTANCE`] (its child's, `ecb-aes-aesni`).
        pub const INSTANCE_PRIORITY: u32 = 400;
    }

    #[cfg(target_arch = "aarch64")]
    mod names {
        pub const PRESET: &str = "neoverse-n1";
        pub const AES: &str = "aes-ce";
        pub const ECB: &str = "ecb-aes-ce";
        pub const CTR: &str = "ctr-aes-ce";
        pub const XTS: &str = "xts-aes-ce";
        pub const XTS_INSTANCE: &str = "xts(ecb-aes-ce)";
        /// Base priority of [`XTS`].
        pub const XTS_PRIORITY: u32 = 300;
        /// Priority of [`XTS_INSTANCE`] (its child's, `ecb-aes-ce`).
        pub const INSTANCE_PRIORITY: u32 = 300;
    }

    pub use names::*;

    /// `text` (configuration, a request) with the x86-64 rung's driver names replaced by
    /// this architecture's.
    pub fn on_arch(text: &str) -> String {
        text.replace("aes-aesni", AES)
    }
}

/// Disables every concrete (non-instance) driver of `name`, so that a template instance
/// serves it: instances are only the fallback of an algorithm name while a concrete
/// driver of it is usable. Returns the drivers disabled.
pub fn disable_concrete(reg: &Registry, name: &str) -> Vec<String> {
    let drivers: Vec<String> = reg
        .list()
        .into_iter()
        .filter(|e| e.name == name && !e.instance)
        .map(|e| e.driver)
        .collect();
    for d in &drivers {
        reg.disable(d).unwrap();
    }
    drivers
}
