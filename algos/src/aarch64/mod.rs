//! What every arm64 driver shares: CPU tokens ([`token`]) and the Advanced SIMD helpers
//! ([`neon`]). The drivers (names and priorities of the kernel's arch/arm64/crypto glue)
//! live under their primitive: `aes/ce/` (`aes-ce`, `*-aes-ce`, `gcm-aes-ce`),
//! `ghash/ce/` (`ghash-ce`), `chacha20/neon/` (`chacha20-neon`, `xchacha20-neon`).
//!
//! Arch module: `unsafe` is allowed here. Every intrinsic that needs more than the
//! aarch64 baseline runs inside a `#[target_feature(enable = "aes")]` entry reachable only
//! through a driver instance, and every driver constructor takes a CPU token first.

#![allow(unsafe_code)]

pub(crate) mod neon;
pub(crate) mod token;
