//! # cryptoreg-algos
//!
//! Every implementation cryptoreg ships, each registered with `inventory::submit!`.
//! Generic drivers (`*-generic`) are portable and constant-time and register next to
//! their code; SIMD drivers live in architecture modules (`x86_64`, `aarch64`), the only
//! place `unsafe` appears.
//!
//! ## Architecture-specific records: compiled everywhere, built only at home
//!
//! Every architecture's driver records register on every architecture, so that lists,
//! `explain --cpu PRESET` for a CPU of another architecture, and configurations naming
//! any driver work on every host. The pattern (details in [`records`]):
//!
//! * the arch modules stay behind `#[cfg(target_arch = "...")]` and export their
//!   constructors as `pub(crate) fn new_x(host: &HostFeatures) -> Result<Box<dyn ...>>`;
//!   they submit no record;
//! * `records/<arch>.rs` (always compiled) holds the token feature sets (`needs::...`,
//!   which the arch's `cpu_token!` uses too) and the `inventory::submit!` of each record,
//!   with `arch_ctor!("<arch>", Kind, "driver", crate::path::new_x)` as the constructor:
//!   the real one on `<arch>`, one refusing with `Error::Unsupported` elsewhere;
//! * every record `requires` a feature of its own architecture (`Feature::arch`: x86-64
//!   sets name `sse2`/`avx2`/..., arm64 sets `neon`; `aes` alone belongs to both and is
//!   never enough), checked by a test over every record.
//!
//! Nothing here is called directly by users: the `cryptoreg` facade links this crate and
//! the registry hands drivers out by name.

#![deny(unsafe_code)]

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
mod aead;
pub mod aes;
pub mod chacha20;
pub mod chacha20poly1305;
pub mod clmul;
pub mod ghash;
pub mod poly1305;
pub(crate) mod records;
pub mod templates;
#[cfg(test)]
mod testing;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;
