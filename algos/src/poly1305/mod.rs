//! Poly1305 (RFC 8439 §2.5): the one-time authenticator, as a keyed hash.
//!
//! **Keyed-hash form, decided.** `poly1305` is a hash type ([`cryptoreg_registry::HashImpl`])
//! keyed with `set_key` and the 32-byte one-time key `r || s` (r is clamped as RFC 8439
//! §2.5.1 says); the digest is the 16-byte tag. The kernel's shash `poly1305` (before it
//! was folded into the library) took no `setkey` and read the key from the first 32 bytes
//! of the data stream instead (`crypto_poly1305_setdesckey`); we keep the key out of the
//! data, as every other MAC does, so a message can never be mistaken for a key. A
//! Poly1305 key must never authenticate two messages: the `rfc7539` AEAD derives a fresh
//! one per nonce.
//!
//! - Updates of any length are buffered to 16-byte blocks; the final partial block is
//!   padded with a 1 byte then zeros (the "hibit" is not added for it).
//! - `export` / `import` move the running state (accumulator and partial block, not the
//!   key) between states keyed alike; bytes that are not such a state are
//!   [`Error::InvalidHashState`](cryptoreg_registry::Error::InvalidHashState).
//! - Constant time: radix 2^26 limbs with `u64` products, carries by shifts and masks,
//!   the final reduction mod 2^130 - 5 by a mask select; no branch or index on key or
//!   data (only on lengths).

mod generic;
#[cfg(target_arch = "x86_64")]
pub mod simd;

pub use generic::{Poly1305, Poly1305Blocks, Poly1305Generic, Portable, POLY1305_EXPORT_LEN};

/// The one-time key: 16 bytes of r, then 16 bytes of s.
pub const POLY1305_KEY_SIZE: usize = 32;
/// The tag (digest) size.
pub const POLY1305_TAG_SIZE: usize = 16;
/// The block size.
pub const POLY1305_BLOCK_SIZE: usize = 16;

#[cfg(test)]
mod tests;
