//! The arm64 drivers (Crypto Extensions and Advanced SIMD), with the names and priorities
//! of the kernel's arch/arm64/crypto glue: CPU tokens ([`token`]), the Advanced SIMD
//! helpers ([`neon`]), the AES drivers ([`aes`]: `aes-ce`, `*-aes-ce`), PMULL GHASH
//! ([`ghash`]: `ghash-ce`), AES-GCM ([`gcm`]: `gcm-aes-ce`) and ChaCha20 ([`chacha`]:
//! `chacha20-neon`, `xchacha20-neon`).
//!
//! Arch module: `unsafe` is allowed here. Every intrinsic that needs more than the
//! aarch64 baseline runs inside a `#[target_feature(enable = "aes")]` entry reachable only
//! through a driver instance, and every driver constructor takes a CPU token first.

#![allow(unsafe_code)]

pub(crate) mod neon;
pub(crate) mod token;
