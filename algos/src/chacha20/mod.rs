//! ChaCha20 and XChaCha20: the rules every driver shares, the scalar core, and the
//! portable drivers.
//!
//! Every `chacha20` and `xchacha20` driver (the generic ones here, the SIMD ladder beside
//! them) takes these rules from this module, so a request is accepted or refused the same
//! way on every CPU:
//!
//! - **`chacha20`** is the kernel's `chacha20` skcipher (RFC 8439 §2.4): a 32-byte key and
//!   a 16-byte IV that is the 32-bit **little-endian block counter** (state word 12)
//!   followed by the 96-bit nonce (words 13..16). The first block of the request uses the
//!   counter as given (RFC 8439's examples start at 1; the AEAD reserves block 0 for the
//!   Poly1305 key). It is a stream cipher: any length, block size 1; the last partial
//!   block uses a prefix of one more keystream block; encryption and decryption are the
//!   same operation.
//! - **`xchacha20`** is the kernel's `xchacha20` (`crypto/chacha.c`,
//!   `crypto_xchacha_crypt`): a 32-byte key and a 32-byte IV = the 192-bit nonce then a
//!   64-bit little-endian stream position. The subkey is HChaCha20(key, IV[0..16]); the
//!   ChaCha20 state then takes IV[24..28] as the block counter (word 12), IV[28..32] as
//!   word 13, and IV[16..24] as words 14 and 15, i.e. the 16-byte ChaCha20 IV is
//!   `IV[24..32] || IV[16..24]` ([`xchacha_inner_iv`]). As in the kernel, only word 12
//!   counts: the high half of the stream position never receives a carry, so it acts as
//!   part of the nonce. With IV[24..32] = 0 this is draft-irtf-cfrg-xchacha-03 §2.3
//!   (counter 0, nonce `0^4 || nonce[16..24]`).
//! - **Counter room**: a request that would pass block 2^32 of one nonce (counter +
//!   blocks > 2^32, with blocks = ceil(len / 64)) is [`Error::InvalidLength`] before any
//!   byte is written, in every driver ([`check_counter_room`]). A request that ends exactly
//!   at block 2^32 - 1 is accepted. The kernel wraps the counter silently into a keystream
//!   that repeats; we refuse.
//! - **Keys**: 32 bytes only. Key words and the derived subkey are zeroized on drop.
//!
//! The scalar core ([`quarter_round`], [`chacha20_block`], [`hchacha20`]) is plain
//! portable add-rotate-xor code: constant-time by construction (no table, no branch on
//! data). The SIMD drivers use it for their tests and may use it for tails.

mod core;
mod generic;
#[cfg(target_arch = "aarch64")]
pub(crate) mod neon;
#[cfg(target_arch = "x86_64")]
pub mod simd;

pub use self::core::{
    chacha20_block, chacha20_xor, hchacha20, hchacha20_into, init_state, quarter_round,
    CHACHA_CONSTANTS,
};
pub use generic::{ChaCha20Generic, XChaCha20Generic};

use cryptoreg_registry::{Error, Result};

/// Key size of ChaCha20 and XChaCha20.
pub const CHACHA_KEY_SIZE: usize = 32;
/// Keystream block size.
pub const CHACHA_BLOCK_SIZE: usize = 64;
/// `chacha20` IV: 32-bit LE counter then 96-bit nonce.
pub const CHACHA_IV_SIZE: usize = 16;
/// `xchacha20` IV: 192-bit nonce then 64-bit LE stream position.
pub const XCHACHA_IV_SIZE: usize = 32;
/// The AEAD nonce (RFC 8439): 96 bits.
pub const CHACHA_NONCE_SIZE: usize = 12;
/// The XChaCha20-Poly1305 nonce: 192 bits.
pub const XCHACHA_NONCE_SIZE: usize = 24;

/// Number of 64-byte blocks a request of `len` bytes consumes: ceil(len / 64).
pub const fn blocks_for(len: usize) -> u64 {
    (len as u64).div_ceil(CHACHA_BLOCK_SIZE as u64)
}

/// Refuses a request of `len` bytes starting at block `counter` that would pass block
/// 2^32 of one nonce: `counter + ceil(len / 64) > 2^32`.
pub fn check_counter_room(counter: u32, len: usize) -> Result<()> {
    if u64::from(counter) + blocks_for(len) > 1u64 << 32 {
        return Err(Error::InvalidLength {
            len,
            reason: "ChaCha20 request passes block 2^32 of its nonce (32-bit counter)",
        });
    }
    Ok(())
}

/// The block counter of a 16-byte `chacha20` IV (its first 4 bytes, little-endian);
/// `None` for another length.
pub fn iv_counter(iv: &[u8]) -> Option<u32> {
    let iv: &[u8; CHACHA_IV_SIZE] = iv.try_into().ok()?;
    Some(u32::from_le_bytes([iv[0], iv[1], iv[2], iv[3]]))
}

/// Checks a 16-byte `chacha20` IV and the request length together (the rule every
/// `chacha20` driver's `check_request` applies).
pub fn check_chacha_request(iv: &[u8], len: usize) -> Result<()> {
    let Some(counter) = iv_counter(iv) else {
        return Err(Error::InvalidIvLength {
            len: iv.len(),
            expected: CHACHA_IV_SIZE,
        });
    };
    check_counter_room(counter, len)
}

/// The 16-byte ChaCha20 IV that an `xchacha20` request runs under once the subkey is
/// derived: `IV[24..32] || IV[16..24]` (counter word 12, word 13, nonce words 14 and 15).
pub fn xchacha_inner_iv(iv: &[u8; XCHACHA_IV_SIZE]) -> [u8; CHACHA_IV_SIZE] {
    let mut out = [0u8; CHACHA_IV_SIZE];
    out[..8].copy_from_slice(&iv[24..32]);
    out[8..].copy_from_slice(&iv[16..24]);
    out
}

/// The 16-byte HChaCha20 input of an `xchacha20` IV: its first 16 bytes.
pub fn xchacha_hchacha_nonce(iv: &[u8; XCHACHA_IV_SIZE]) -> [u8; 16] {
    let mut out = [0u8; 16];
    out.copy_from_slice(&iv[..16]);
    out
}

/// Parses a 32-byte `xchacha20` IV; wrong length is [`Error::InvalidIvLength`].
pub fn xchacha_iv(iv: &[u8]) -> Result<&[u8; XCHACHA_IV_SIZE]> {
    iv.try_into().map_err(|_| Error::InvalidIvLength {
        len: iv.len(),
        expected: XCHACHA_IV_SIZE,
    })
}

#[cfg(test)]
mod tests;
