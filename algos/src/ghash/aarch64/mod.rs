//! What the arm64 GHASH driver shares with the arm64 GCM driver, so that neither backend
//! imports the other: the PMULL core ([`pmull`]) and its entry [`ghash_ce`] (`ghash-ce`,
//! and `gcm-aes-ce` for its AAD), as `ghash/x86/` is for the x86-64 backends.
//!
//! Arch module: `unsafe` is allowed here; every entry is a `#[target_feature]` function
//! whose callers hold the token of its features.

#![allow(unsafe_code)]

pub(crate) mod pmull;

use pmull::{HPowers, Pmull};

/// GHASH over the whole blocks of `data` into `acc` (GHASH byte order); a trailing
/// partial block is ignored. Shared by `ghash-ce` and `gcm-aes-ce` (its AAD).
///
/// # Safety
/// The CPU has PMULL.
#[inline(never)]
#[target_feature(enable = "aes")]
pub(crate) unsafe fn ghash_ce(powers: &HPowers, acc: &mut [u8; 16], data: &[u8]) {
    // SAFETY: this function is compiled with `aes` (PMULL), present per its contract.
    let c = unsafe { Pmull::new() };
    let y = c.update(powers, c.load_block(acc), data);
    c.store_block(acc, y);
}
