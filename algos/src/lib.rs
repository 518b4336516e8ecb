//! # cryptoreg-algos
//!
//! Every implementation cryptoreg ships, each registered with `inventory::submit!`.
//! Generic drivers (`*-generic`) are portable and constant-time and register next to
//! their code; SIMD drivers live under their primitive in a folder named as the driver's
//! suffix (`aes/aesni/`, `ghash/ce/`, ...; the table below), with their records in
//! `records/`.
//!
//! ## Safety rules
//!
//! `#![deny(unsafe_code)]` crate-wide; `unsafe` is allowed only in these arch modules,
//! each block with a `// SAFETY:` comment: on x86-64 `x86/`, `aes/x86/`, `aes/aesni/`,
//! `aes/vaes/`, `clmul/pclmul.rs`, `ghash/x86/`, `ghash/clmulni/`, `ghash/vpclmulqdq/`,
//! `chacha20/simd/`, `poly1305/simd/`, `chacha20poly1305/simd/`; on arm64 `aarch64/`,
//! `aes/ce/`, `ghash/aarch64/`, `ghash/ce/`, `chacha20/neon/`. `x86/` and `aarch64/` hold
//! only what every driver of the architecture shares (CPU tokens, vector types, NEON
//! helpers); what two backends of a family share is the family's ISA module (`aes/x86/`,
//! `ghash/x86/`, `ghash/aarch64/`), so no backend imports a sibling backend.
//!
//! ## Architecture-specific records: compiled everywhere, built only at home
//!
//! Every architecture's driver records register on every architecture, so that lists,
//! `explain --cpu PRESET` for a CPU of another architecture, and configurations naming
//! any driver work on every host. The pattern (details in `records/mod.rs`):
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
//! ## Drivers
//!
//! Every driver record, with the file of its constructor (under `algos/src/`), its
//! priority and the CPU features it requires (`—`: portable, none). The primitive is the
//! folder and the instruction set the subfolder named as the driver's suffix, on every
//! architecture; templates (`ecb(...)`, `gcm_base(...)`, `rfc7539(...)`, ...) are in
//! `templates/`. Checked against the registered records by `records::table_tests`.
//!
//! | driver | file | priority | CPU features |
//! |---|---|---|---|
//! | `aes-aesni` | `aes/aesni/cipher.rs` | 300 | `aes`, `sse2` |
//! | `aes-ce` | `aes/ce/cipher.rs` | 250 | `aes`, `neon` |
//! | `aes-generic` | `aes/generic/mod.rs` | 100 | — |
//! | `cbc-aes-aesni` | `aes/aesni/cbc.rs` | 400 | `aes`, `sse2` |
//! | `cbc-aes-ce` | `aes/ce/cbc.rs` | 300 | `aes`, `neon` |
//! | `chacha20-avx2` | `chacha20/simd/mod.rs` | 400 | `avx`, `avx2` |
//! | `chacha20-avx512f` | `chacha20/simd/mod.rs` | 600 | `avx`, `avx2`, `avx512bw`, `avx512f`, `avx512vl` |
//! | `chacha20-avx512vl` | `chacha20/simd/mod.rs` | 500 | `avx`, `avx2`, `avx512bw`, `avx512f`, `avx512vl` |
//! | `chacha20-generic` | `chacha20/generic.rs` | 100 | — |
//! | `chacha20-neon` | `chacha20/neon/mod.rs` | 300 | `neon` |
//! | `chacha20-ssse3` | `chacha20/simd/mod.rs` | 300 | `sse2`, `ssse3` |
//! | `ctr-aes-aesni` | `aes/aesni/ctr.rs` | 400 | `aes`, `sse2` |
//! | `ctr-aes-ce` | `aes/ce/ctr.rs` | 300 | `aes`, `neon` |
//! | `ctr-aes-vaes-avx10_256` | `aes/vaes/mod.rs` | 700 | `aes`, `avx2`, `avx512bw`, `avx512f`, `avx512vl`, `vaes`, `vpclmulqdq` |
//! | `ctr-aes-vaes-avx10_512` | `aes/vaes/mod.rs` | 800 | `aes`, `avx2`, `avx512bw`, `avx512f`, `avx512vl`, `vaes`, `vpclmulqdq` |
//! | `ctr-aes-vaes-avx2` | `aes/vaes/mod.rs` | 600 | `aes`, `avx2`, `vaes`, `vpclmulqdq` |
//! | `ecb-aes-aesni` | `aes/aesni/ecb.rs` | 400 | `aes`, `sse2` |
//! | `ecb-aes-ce` | `aes/ce/ecb.rs` | 300 | `aes`, `neon` |
//! | `gcm-aes-aesni` | `aes/aesni/gcm.rs` | 400 | `aes`, `pclmulqdq`, `sse2`, `ssse3` |
//! | `gcm-aes-ce` | `aes/ce/gcm.rs` | 300 | `aes`, `neon`, `pmull` |
//! | `gcm-aes-vaes-avx10_256` | `aes/vaes/mod.rs` | 700 | `aes`, `avx2`, `avx512bw`, `avx512f`, `avx512vl`, `vaes`, `vpclmulqdq` |
//! | `gcm-aes-vaes-avx10_512` | `aes/vaes/mod.rs` | 800 | `aes`, `avx2`, `avx512bw`, `avx512f`, `avx512vl`, `vaes`, `vpclmulqdq` |
//! | `gcm-aes-vaes-avx2` | `aes/vaes/mod.rs` | 600 | `aes`, `avx2`, `vaes`, `vpclmulqdq` |
//! | `ghash-ce` | `ghash/ce/mod.rs` | 200 | `neon`, `pmull` |
//! | `ghash-clmulni` | `ghash/clmulni/mod.rs` | 400 | `pclmulqdq`, `sse2`, `ssse3` |
//! | `ghash-generic` | `ghash/generic.rs` | 100 | — |
//! | `ghash-vpclmulqdq-avx2` | `ghash/vpclmulqdq/mod.rs` | 600 | `avx2`, `vpclmulqdq` |
//! | `ghash-vpclmulqdq-avx512` | `ghash/vpclmulqdq/mod.rs` | 800 | `avx2`, `avx512bw`, `avx512f`, `avx512vl`, `vpclmulqdq` |
//! | `poly1305-avx2` | `poly1305/simd/hash.rs` | 400 | `avx`, `avx2` |
//! | `poly1305-avx512` | `poly1305/simd/hash.rs` | 500 | `avx`, `avx2`, `avx512bw`, `avx512f`, `avx512vl` |
//! | `poly1305-avx512ifma` | `poly1305/simd/hash.rs` | 550 | `avx`, `avx2`, `avx512bw`, `avx512f`, `avx512ifma`, `avx512vl` |
//! | `poly1305-generic` | `poly1305/generic.rs` | 100 | — |
//! | `rfc7539-chacha20-poly1305-avx2` | `chacha20poly1305/simd/mod.rs` | 450 | `avx`, `avx2` |
//! | `rfc7539-chacha20-poly1305-avx512` | `chacha20poly1305/simd/mod.rs` | 650 | `avx`, `avx2`, `avx512bw`, `avx512f`, `avx512vl` |
//! | `rfc7539-chacha20-poly1305-avx512ifma` | `chacha20poly1305/simd/mod.rs` | 660 | `avx`, `avx2`, `avx512bw`, `avx512f`, `avx512ifma`, `avx512vl` |
//! | `xchacha20-avx2` | `chacha20/simd/mod.rs` | 400 | `avx`, `avx2` |
//! | `xchacha20-avx512f` | `chacha20/simd/mod.rs` | 600 | `avx`, `avx2`, `avx512bw`, `avx512f`, `avx512vl` |
//! | `xchacha20-avx512vl` | `chacha20/simd/mod.rs` | 500 | `avx`, `avx2`, `avx512bw`, `avx512f`, `avx512vl` |
//! | `xchacha20-generic` | `chacha20/generic.rs` | 100 | — |
//! | `xchacha20-neon` | `chacha20/neon/mod.rs` | 300 | `neon` |
//! | `xchacha20-ssse3` | `chacha20/simd/mod.rs` | 300 | `sse2`, `ssse3` |
//! | `xchacha20poly1305-avx2` | `chacha20poly1305/simd/mod.rs` | 450 | `avx`, `avx2` |
//! | `xchacha20poly1305-avx512` | `chacha20poly1305/simd/mod.rs` | 650 | `avx`, `avx2`, `avx512bw`, `avx512f`, `avx512vl` |
//! | `xchacha20poly1305-avx512ifma` | `chacha20poly1305/simd/mod.rs` | 660 | `avx`, `avx2`, `avx512bw`, `avx512f`, `avx512ifma`, `avx512vl` |
//! | `xchacha20poly1305-generic` | `chacha20poly1305/xchacha20poly1305.rs` | 100 | — |
//! | `xts-aes-aesni` | `aes/aesni/xts.rs` | 401 | `aes`, `sse2` |
//! | `xts-aes-ce` | `aes/ce/xts.rs` | 300 | `aes`, `neon` |
//! | `xts-aes-vaes-avx10_256` | `aes/vaes/mod.rs` | 700 | `aes`, `avx2`, `avx512bw`, `avx512f`, `avx512vl`, `vaes`, `vpclmulqdq` |
//! | `xts-aes-vaes-avx10_512` | `aes/vaes/mod.rs` | 800 | `aes`, `avx2`, `avx512bw`, `avx512f`, `avx512vl`, `vaes`, `vpclmulqdq` |
//! | `xts-aes-vaes-avx2` | `aes/vaes/mod.rs` | 600 | `aes`, `avx2`, `vaes`, `vpclmulqdq` |
//!
//! Nothing here is called directly by users: the `cryptoreg` facade links this crate and
//! the registry hands drivers out by name.

#![deny(unsafe_code)]
// docs.rs builds with `--cfg docsrs` (see `[package.metadata.docs.rs]`): mark feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]
// A build with one family of algorithms (`--no-default-features --features chacha`)
// leaves some shared helpers (CPU feature sets, SIMD words) without a user.
#![cfg_attr(
    not(all(feature = "aes", feature = "chacha")),
    allow(dead_code, unused_imports, unused_macros)
)]

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
mod aead;
#[cfg(feature = "aes")]
pub mod aes;
#[cfg(feature = "chacha")]
pub mod chacha20;
#[cfg(feature = "chacha")]
pub mod chacha20poly1305;
#[cfg(feature = "aes")]
pub mod clmul;
#[cfg(feature = "aes")]
pub mod ghash;
#[doc(hidden)]
pub mod limits;
#[cfg(feature = "chacha")]
pub mod poly1305;
pub(crate) mod records;
pub mod templates;
#[cfg(test)]
mod testing;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;
