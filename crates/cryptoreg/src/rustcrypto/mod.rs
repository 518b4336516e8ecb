//! Adapters to the RustCrypto traits (feature `rustcrypto`): code written against
//! [`cipher`] 0.5 and [`aead`] 0.6 — the versions the current `aes` 0.9, `ctr` 0.10,
//! `aes-gcm` 0.11 and `chacha20poly1305` 0.11 releases implement — switches to cryptoreg
//! by changing one constructor:
//!
//! ```
//! use cryptoreg::rustcrypto::aead::{self, AeadInOut, KeyInit};
//! # fn main() -> Result<(), aead::Error> {
//! let key = [7u8; 16];
//! // was: let gcm = aes_gcm::Aes128Gcm::new(&key.into());
//! let gcm = cryptoreg::rustcrypto::Aes128Gcm::new(&key.into());
//! let mut buf = b"hello".to_vec();
//! let nonce = [0u8; 12];
//! gcm.encrypt_in_place(&nonce.into(), b"aad", &mut buf)?;
//! gcm.decrypt_in_place(&nonce.into(), b"aad", &mut buf)?;
//! assert_eq!(buf, b"hello");
//! # Ok(()) }
//! ```
//!
//! | adapter | RustCrypto type | algorithm name | traits |
//! | --- | --- | --- | --- |
//! | [`Aes128`], [`Aes192`], [`Aes256`] | `aes::Aes*` | `aes` | `KeyInit`, `BlockCipherEncrypt`, `BlockCipherDecrypt` |
//! | [`Aes128Ctr`], [`Aes192Ctr`], [`Aes256Ctr`] | `ctr::Ctr128BE<aes::Aes*>` | `ctr(aes)` | `KeyIvInit`, `StreamCipher`, `StreamCipherSeek` |
//! | [`Aes128Gcm`], [`Aes256Gcm`] | `aes_gcm::Aes*Gcm` (12-byte nonce, 16-byte tag) | `gcm(aes)` | `KeyInit`, `AeadInOut` (so `AeadInPlace`, `Aead`) |
//! | [`ChaCha20Poly1305`] | `chacha20poly1305::ChaCha20Poly1305` | `rfc7539(chacha20,poly1305)` | `KeyInit`, `AeadInOut` |
//!
//! ## Which registry, and what can fail
//!
//! `KeyInit::new` / `KeyIvInit::new` allocate from the process-default registry
//! ([`crate::registry`]); `with_registry(&registry, key)` takes another one,
//! `with_driver(&registry, "gcm-aes-aesni", key)` pins one driver (an exact driver name
//! wins outright, as everywhere), and `try_new(key)` returns the registry's error. Key and nonce lengths are in the types,
//! so bad input cannot reach the registry; what remains is a registry that cannot serve
//! the algorithm at all (it failed to boot, or an operator disabled every driver of it):
//!
//! * the AEADs then return [`aead::Error`] from every call (they fail closed);
//! * the block ciphers' and the CTR stream's traits have no error channel on every path
//!   (a CTR stream that could not encrypt would pass data through unchanged on the
//!   `unchecked_*` methods), so their `KeyInit::new` / `KeyIvInit::new` panic with the
//!   registry's error. Use `try_new` or `with_registry` where that matters, and
//!   [`Registry::prepare`](crate::Registry::prepare) at start-up.
//!
//! A failed tag check returns [`aead::Error`] and leaves no plaintext: the output buffer
//! is wiped (RustCrypto's `aes-gcm` leaves the ciphertext; neither hands out plaintext).
//!
//! Each adapter holds one registry handle, so it counts in `stats` and reports
//! `is_current()` like any other handle; the driver is chosen when it is constructed.

mod aead_impl;
mod block;
mod stream;

pub use aead_impl::{Aes128Gcm, Aes256Gcm, ChaCha20Poly1305};
pub use block::{Aes128, Aes192, Aes256};
pub use stream::{Aes128Ctr, Aes192Ctr, Aes256Ctr};

/// Refuses a driver name that resolved to another algorithm than the adapter's.
fn check_algorithm(got: &str, want: &str, asked: &str) -> crate::Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(crate::Error::NotFound(format!(
            "{asked:?} is {got}, not a driver of {want}"
        )))
    }
}

/// The traits' crates, as the adapters see them (so a user can name the same versions).
pub use aead;
pub use cipher;
