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
        config.push_str("[disable]\ndrivers = [\"xts-aes-faulty\", \"gcm-aes-faulty\"]\n");
    }
    config
}
