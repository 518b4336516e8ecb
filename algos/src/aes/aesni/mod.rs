//! AES-NI code: the key schedule shared with the VAES drivers, the `aes-aesni` block
//! cipher, the `ecb`/`cbc`/`ctr`/`xts` mode drivers and `gcm-aes-aesni`.
//!
//! This is one of the few places `unsafe` is allowed: every intrinsic runs inside a
//! `#[target_feature(enable = "aes,sse2")]` entry function that is only reachable through
//! a driver instance, and every driver constructor asserts AES-NI before building one
//! (the registry, for its part, builds drivers only after checking `requires`).

#![allow(unsafe_code)]

pub(crate) mod cbc;
pub(crate) mod cipher;
pub(crate) mod ctr;
pub(crate) mod ecb;
pub(crate) mod gcm;
pub(crate) mod xts;

/// The raw entry points of `gcm-aes-aesni` and `ghash-clmulni`, for the emulator test
/// crate (`emu/`) and the machine-code check (`cargo xtask asm`), as
/// [`crate::aes::vaes::raw`] has them for the VAES drivers. Not a public API: the
/// registry's drivers are. The drivers call these same functions.
#[doc(hidden)]
pub mod raw {
    pub use super::gcm::{
        gcm_dec_aesni, gcm_enc_aesni, gcm_open_aesni, gcm_seal_aesni, gcm_tag_aesni,
    };
    pub use crate::ghash::x86::ghash_clmulni;
    pub use crate::ghash::x86::xmm::HPowers;
}
