//! What both x86-64 AES backends (`aesni/`, `vaes/`) share, so that neither imports the
//! other: the AES-NI key schedule ([`key_schedule`]), the round-key bytes the VAES entries
//! and the `gcm-aes-aesni` kernels take ([`RoundKeyBytes`]), and the 16-byte IV check of
//! the chaining modes ([`iv16`]).
//!
//! Arch module: `unsafe` is allowed here (the key schedule's `#[target_feature]` entries,
//! reachable only with an [`AesNi`](crate::x86::token::AesNi) token).

#![allow(unsafe_code)]

pub(crate) mod key_schedule;

use cryptoreg_registry::{ChainState, Error, Result};

/// Round keys as bytes: `rounds + 1` (11, 13 or 15) of them are used.
pub type RoundKeyBytes = [[u8; 16]; 15];

/// Copies a 16-byte IV into a chaining state; any other length is
/// [`Error::InvalidIvLength`] (the handles check first, this keeps `start` panic-free).
pub(crate) fn iv16(iv: &[u8]) -> Result<ChainState> {
    iv.try_into().map_err(|_| Error::InvalidIvLength {
        len: iv.len(),
        expected: 16,
    })
}
