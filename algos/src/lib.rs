//! # cryptoreg-algos
//!
//! Every implementation cryptoreg ships, each registered with `inventory::submit!` next to
//! its code. Generic drivers (`*-generic`) are portable and constant-time; SIMD drivers
//! live in `x86_64` modules and are the only place `unsafe` appears.
//!
//! Nothing here is called directly by users: the `cryptoreg` facade links this crate and
//! the registry hands drivers out by name.

#![deny(unsafe_code)]

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
pub mod aes;
pub mod chacha20;
#[cfg(target_arch = "x86_64")]
pub mod chacha20poly1305;
pub mod clmul;
#[cfg(target_arch = "aarch64")]
mod cpu_token;
pub mod gcm_util;
pub mod ghash;
pub mod poly1305;
pub mod templates;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;
pub mod xchacha20poly1305;
pub mod xts_util;

#[cfg(test)]
mod test_vectors;
