//! Records of the arm64 drivers (`crate::aarch64`), compiled on every architecture: see
//! [`crate::records`] for the pattern. Names and priorities are the kernel's
//! `arch/arm64/crypto` glue (`aes-ce-glue.c`, `aes-glue.c`, `ghash-ce-glue.c`,
//! `chacha-neon-glue.c`; the driver modules cite them); `ghash-ce` keeps 200 as the
//! issue asks. Every feature set includes `neon`, which no x86-64 CPU reports, so an
//! x86-64 host never selects these records (while `explain --cpu neoverse-n1` plans them).

use cryptoreg_registry::{inventory, AlgDef};

use super::arch_ctor;
#[cfg(feature = "chacha")]
use crate::chacha20::{CHACHA_IV_SIZE, CHACHA_KEY_SIZE, XCHACHA_IV_SIZE};

/// The feature sets the arm64 CPU tokens prove (`aarch64/token.rs` builds each token from
/// one of these), and so what the records below require.
pub(crate) mod needs {
    use cryptoreg_registry::Feature::{self, *};

    /// The Crypto Extensions' AES instructions with Advanced SIMD.
    pub(crate) const AES_CE: &[Feature] = &[Aes, Neon];
    /// PMULL/PMULL2 (64 x 64 carry-less multiply) with Advanced SIMD.
    pub(crate) const PMULL_CE: &[Feature] = &[Pmull, Neon];
    /// AES and PMULL with Advanced SIMD (`gcm-aes-ce`).
    pub(crate) const AES_PMULL: &[Feature] = &[Aes, Pmull, Neon];
    /// Advanced SIMD alone.
    pub(crate) const NEON: &[Feature] = &[Neon];
}

// --- AES on the Crypto Extensions (`aes/ce/`) ---

#[cfg(feature = "aes")]
inventory::submit! {
    AlgDef::new("aes", "aes-ce", 250,
        arch_ctor!("aarch64", Cipher, "aes-ce", needs::AES_CE, crate::aes::ce::cipher::new_aes_ce))
        .requires(needs::AES_CE)
        .block_size(16)
        .key_sizes(16, 32)
}

#[cfg(feature = "aes")]
inventory::submit! {
    AlgDef::new("ecb(aes)", "ecb-aes-ce", 300,
        arch_ctor!("aarch64", Skcipher, "ecb-aes-ce", needs::AES_CE, crate::aes::ce::ecb::new_ecb))
        .requires(needs::AES_CE)
        .block_size(16)
        .key_sizes(16, 32)
}

#[cfg(feature = "aes")]
inventory::submit! {
    AlgDef::new("cbc(aes)", "cbc-aes-ce", 300,
        arch_ctor!("aarch64", Skcipher, "cbc-aes-ce", needs::AES_CE, crate::aes::ce::cbc::new_cbc))
        .requires(needs::AES_CE)
        .block_size(16)
        .key_sizes(16, 32)
        .iv_size(16)
}

#[cfg(feature = "aes")]
inventory::submit! {
    AlgDef::new("ctr(aes)", "ctr-aes-ce", 300,
        arch_ctor!("aarch64", Skcipher, "ctr-aes-ce", needs::AES_CE, crate::aes::ce::ctr::new_ctr))
        .requires(needs::AES_CE)
        .key_sizes(16, 32)
        .iv_size(16)
}

#[cfg(feature = "aes")]
inventory::submit! {
    AlgDef::new("xts(aes)", "xts-aes-ce", 300,
        arch_ctor!("aarch64", Skcipher, "xts-aes-ce", needs::AES_CE, crate::aes::ce::xts::new_xts))
        .requires(needs::AES_CE)
        .block_size(16)
        .key_sizes(32, 64)
        .iv_size(16)
}

// --- GHASH and GCM on PMULL (`ghash/ce/`, `aes/ce/gcm.rs`) ---

#[cfg(feature = "aes")]
inventory::submit! {
    AlgDef::new("ghash", "ghash-ce", 200,
        arch_ctor!("aarch64", Hash, "ghash-ce", needs::PMULL_CE, crate::ghash::ce::new_ghash_ce))
        .requires(needs::PMULL_CE)
        .block_size(16)
        .key_sizes(16, 16)
        .out_size(16)
}

#[cfg(feature = "aes")]
inventory::submit! {
    AlgDef::new("gcm(aes)", "gcm-aes-ce", 300,
        arch_ctor!("aarch64", Aead, "gcm-aes-ce", needs::AES_PMULL, crate::aes::ce::gcm::new_gcm))
        .requires(needs::AES_PMULL)
        .block_size(1)
        .key_sizes(16, 32)
        .iv_size(12)
        .out_size(16)
}

// --- ChaCha20 on Advanced SIMD (`chacha20/neon/`) ---

#[cfg(feature = "chacha")]
inventory::submit! {
    AlgDef::new("chacha20", "chacha20-neon", 300,
        arch_ctor!("aarch64", Skcipher, "chacha20-neon", needs::NEON, crate::chacha20::neon::new_chacha20_neon))
        .requires(needs::NEON)
        .block_size(1)
        .key_sizes(CHACHA_KEY_SIZE, CHACHA_KEY_SIZE)
        .iv_size(CHACHA_IV_SIZE)
}

#[cfg(feature = "chacha")]
inventory::submit! {
    AlgDef::new("xchacha20", "xchacha20-neon", 300,
        arch_ctor!("aarch64", Skcipher, "xchacha20-neon", needs::NEON, crate::chacha20::neon::new_xchacha20_neon))
        .requires(needs::NEON)
        .block_size(1)
        .key_sizes(CHACHA_KEY_SIZE, CHACHA_KEY_SIZE)
        .iv_size(XCHACHA_IV_SIZE)
}
