//! The AES rounds on the Crypto Extensions, one block or `N` independent blocks
//! interleaved round by round (the mode drivers use 4: `AESE`+`AESMC` pairs have a
//! latency of two to three cycles with one or two issued per cycle on Cortex-A72 and
//! Neoverse cores, so four independent blocks keep the unit busy, as the kernel's
//! `aes-ce-core.S` / `aes-modes.S` interleave 4 or 5).
//!
//! `AESE k` is `SubBytes(ShiftRows(x ^ k))` and `AESMC` is `MixColumns`, so a round of
//! FIPS-197 is `AESMC(AESE(x, k[r]))` with the round key added at the *start*; the last
//! round is `AESE(x, k[n-1]) ^ k[n]`. Decryption is the same shape with `AESD`/`AESIMC`
//! over the equivalent-inverse schedule ([`CeRoundKeys::dec`]).
//!
//! The round methods are `#[target_feature(enable = "aes")]` functions (safe to call from
//! the drivers' `aes` kernels, `unsafe` from anywhere else, so the compiler checks that
//! every caller is an AES context); a [`Keys`] is made only by its `unsafe` constructors,
//! inside those kernels, whose callers hold an [`AesCe`](crate::aarch64::token::AesCe) token.

use core::arch::aarch64::{uint8x16_t, vaesdq_u8, vaeseq_u8, vaesimcq_u8, vaesmcq_u8};

use super::key_schedule::CeRoundKeys;
use crate::aarch64::neon::{load, xor};

/// A key schedule for one direction, loaded into registers (15 of the 32 vector
/// registers at most).
#[derive(Clone, Copy)]
pub(crate) struct Keys {
    k: [uint8x16_t; 15],
    /// 10 ..= 14 (clamped when made), so no round-key index can leave the array.
    rounds: usize,
}

impl Keys {
    /// The encryption schedule.
    ///
    /// # Safety
    /// The CPU must have the AES instructions (see the module docs).
    #[inline(always)]
    pub(crate) unsafe fn enc(ks: &CeRoundKeys) -> Keys {
        Keys {
            k: core::array::from_fn(|i| load(&ks.enc[i])),
            rounds: ks.rounds.clamp(10, 14),
        }
    }

    /// The `AESD` schedule (equivalent inverse cipher).
    ///
    /// # Safety
    /// As [`Keys::enc`].
    #[inline(always)]
    pub(crate) unsafe fn dec(ks: &CeRoundKeys) -> Keys {
        Keys {
            k: core::array::from_fn(|i| load(&ks.dec[i])),
            rounds: ks.rounds.clamp(10, 14),
        }
    }

    /// Encrypts one block.
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn encrypt1(&self, b: uint8x16_t) -> uint8x16_t {
        let [x] = self.encrypt_n([b]);
        x
    }

    /// Decrypts one block.
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn decrypt1(&self, b: uint8x16_t) -> uint8x16_t {
        let [x] = self.decrypt_n([b]);
        x
    }

    /// Encrypts `N` independent blocks, interleaved round by round.
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn encrypt_n<const N: usize>(&self, mut b: [uint8x16_t; N]) -> [uint8x16_t; N] {
        let n = self.rounds;
        for k in &self.k[..n - 1] {
            for x in &mut b {
                *x = vaesmcq_u8(vaeseq_u8(*x, *k));
            }
        }
        for x in &mut b {
            *x = xor(vaeseq_u8(*x, self.k[n - 1]), self.k[n]);
        }
        b
    }

    /// Decrypts `N` independent blocks, interleaved round by round.
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn decrypt_n<const N: usize>(&self, mut b: [uint8x16_t; N]) -> [uint8x16_t; N] {
        let n = self.rounds;
        for k in &self.k[..n - 1] {
            for x in &mut b {
                *x = vaesimcq_u8(vaesdq_u8(*x, *k));
            }
        }
        for x in &mut b {
            *x = xor(vaesdq_u8(*x, self.k[n - 1]), self.k[n]);
        }
        b
    }
}
