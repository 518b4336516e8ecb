//! What the x86-64 GHASH drivers share with the x86-64 GCM drivers, so that no backend
//! imports another: the PCLMULQDQ xmm core ([`xmm`]) and its entry [`ghash_clmulni`]
//! (`ghash-clmulni`, and `gcm-aes-aesni` for its AAD), and the VPCLMULQDQ core over the
//! shared vector layer ([`vpclmul_core`]) with its entries ([`vpclmul_entry`])
//! (`ghash-vpclmulqdq-*`, and the stitched `gcm-aes-vaes-*` drivers).
//!
//! Arch module: `unsafe` is allowed here; every entry is a `#[target_feature]` function
//! whose callers hold the token of its features.

#![allow(unsafe_code)]

pub(crate) mod vpclmul_core;
pub(crate) mod vpclmul_entry;
pub(crate) mod xmm;

use xmm::{Clmul, HPowers};

/// GHASH over the whole blocks of the `len` bytes at `data` into `acc` (GHASH byte
/// order); a trailing partial block is ignored (the callers pass whole blocks). Shared by
/// `ghash-clmulni` and `gcm-aes-aesni` (its AAD), and exported through
/// `crate::aes::aesni::raw` for `cargo xtask emu` / `cargo xtask asm`: plain pointer and
/// length, no allocation, no panic, no call.
///
/// # Safety
/// `data` is valid for reads of `len` bytes and the CPU has PCLMULQDQ, SSSE3 and SSE2.
#[inline(never)]
#[target_feature(enable = "pclmulqdq,ssse3,sse2")]
pub unsafe fn ghash_clmulni(powers: &HPowers, acc: &mut [u8; 16], data: *const u8, len: usize) {
    // SAFETY: this function is compiled with the features `Clmul` stands for, and its
    // contract says the CPU has them; `len` bytes at `data` are readable.
    let (c, data) = unsafe { (Clmul::new(), core::slice::from_raw_parts(data, len)) };
    let y = c.update(powers, c.load_block(acc), data);
    c.store_raw(acc, c.bswap(y));
}
