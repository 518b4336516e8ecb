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
//! With the `getrandom` feature (it turns on `aead`'s, which is `crypto-common`'s
//! `Generate` over the operating system's generator), keys and nonces are generated as
//! in `aes-gcm` 0.11's documentation, with the same [`Key`] and [`Nonce`] names:
//!
#![cfg_attr(feature = "getrandom", doc = "```")]
#![cfg_attr(not(feature = "getrandom"), doc = "```ignore")]
//! use cryptoreg::rustcrypto::{
//!     aead::{Aead, AeadCore, Generate, Key, KeyInit},
//!     Aes256Gcm, Nonce, // was: use aes_gcm::{...}
//! };
//! # fn main() -> Result<(), cryptoreg::rustcrypto::aead::Error> {
//!
//! let key = Key::<Aes256Gcm>::generate();
//! let cipher = Aes256Gcm::new(&key);
//!
//! let nonce = Nonce::generate(); // MUST be unique per message
//! let ciphertext = cipher.encrypt(&nonce, b"plaintext message".as_ref())?;
//! let plaintext = cipher.decrypt(&nonce, ciphertext.as_ref())?;
//! assert_eq!(&plaintext, b"plaintext message");
//!
//! // XChaCha20-Poly1305's 24-byte nonce is long enough to be random.
//! use cryptoreg::rustcrypto::{XChaCha20Poly1305, XNonce};
//! let cipher = XChaCha20Poly1305::new(&Key::<XChaCha20Poly1305>::generate());
//! let nonce = XNonce::generate();
//! let ciphertext = cipher.encrypt(&nonce, b"plaintext message".as_ref())?;
//! assert_eq!(cipher.decrypt(&nonce, ciphertext.as_ref())?, b"plaintext message");
//! # Ok(()) }
//! ```
//!
//! | adapter | RustCrypto type | algorithm name | traits |
//! | --- | --- | --- | --- |
//! | [`Aes128`], [`Aes192`], [`Aes256`] | `aes::Aes*` | `aes` | `KeyInit`, `BlockCipherEncrypt`, `BlockCipherDecrypt` |
//! | [`Aes128Ctr`], [`Aes192Ctr`], [`Aes256Ctr`] | `ctr::Ctr128BE<aes::Aes*>` | `ctr(aes)` | `KeyIvInit`, `StreamCipher`, `StreamCipherSeek` |
//! | [`Aes128Gcm`], [`Aes256Gcm`] | `aes_gcm::Aes*Gcm` (12-byte nonce, 16-byte tag) | `gcm(aes)` | `KeyInit`, `AeadInOut` (so `AeadInPlace`, `Aead`) |
//! | [`ChaCha20Poly1305`] | `chacha20poly1305::ChaCha20Poly1305` | `rfc7539(chacha20,poly1305)` | `KeyInit`, `AeadInOut` |
//! | [`XChaCha20Poly1305`] | `chacha20poly1305::XChaCha20Poly1305` (24-byte nonce, 16-byte tag) | `xchacha20poly1305` | `KeyInit`, `AeadInOut` |
//! | [`Aes128Xts`], [`Aes256Xts`] (32- and 64-byte keys) | `xts_mode::Xts128<aes::Aes*>` | `xts(aes)` | `KeySizeUser`; `encrypt_sector`, `encrypt_area` and their `decrypt_*` (no `cipher` trait is XTS: see [`Aes128Xts`]) |
//!
//! The type names `aes-gcm` 0.11 exports are here too, so its imports carry over:
//! [`Key`]`<Aes256Gcm>` (the `aead` crate's), [`Nonce`]`<NonceSize>` and
//! [`Tag`]`<TagSize = U16>`, plus `chacha20poly1305`'s [`XNonce`] (`Nonce<U24>`).
//!
//! ## Which registry, and what can fail
//!
//! `KeyInit::new` / `KeyIvInit::new` allocate from the process-default registry
//! ([`crate::registry`]); `with_registry(&registry, key)` takes another one,
//! `with_driver(&registry, "gcm-aes-aesni", key)` pins one driver (an exact driver name
//! wins outright, as everywhere), and `try_new(key)` returns the registry's error. Key and
//! nonce lengths are in the types, so bad input cannot reach the registry (XTS's other
//! refusals, a data unit under 16 bytes or equal key halves, are error values: see
//! [`Aes128Xts`]); what remains is a registry that cannot serve the algorithm at all (it
//! failed to boot, or an operator disabled every driver of it):
//!
//! * the AEADs then return [`aead::Error`] from every call (they fail closed);
//! * the XTS adapters have only the fallible constructors, which return the error;
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

#![cfg_attr(docsrs, doc(cfg(feature = "rustcrypto")))]

mod aead_impl;
mod block;
mod stream;
mod xts;

pub use aead_impl::{Aes128Gcm, Aes256Gcm, ChaCha20Poly1305, XChaCha20Poly1305};
pub use block::{Aes128, Aes192, Aes256};
pub use stream::{Aes128Ctr, Aes192Ctr, Aes256Ctr};
pub use xts::{sector_tweak, Aes128Xts, Aes256Xts};

/// A key of `C` (`Key<Aes256Gcm>`, `Key<Aes128>`): the `aead` crate's, which `aes-gcm`
/// 0.11 re-exports under this name.
pub use aead::Key;

/// A nonce of `NonceSize` bytes (`Nonce<U12>`), as `aes-gcm` 0.11's `Nonce`: generic over
/// the size rather than the cipher, so `Nonce::generate()` and `Nonce::from(..)` take the
/// size from where the nonce is used.
pub type Nonce<NonceSize> = aead::array::Array<u8, NonceSize>;

/// A tag of `TagSize` bytes, 16 unless told, as `aes-gcm` 0.11's `Tag`.
pub type Tag<TagSize = aead::consts::U16> = aead::array::Array<u8, TagSize>;

/// XChaCha20-Poly1305's 24-byte nonce, as `chacha20poly1305`'s `XNonce`.
pub type XNonce = Nonce<aead::consts::U24>;

/// Random keys and nonces from the operating system (`Key::<Aes256Gcm>::generate()`,
/// `Nonce::generate()`): `aead`'s trait, there with the `getrandom` feature.
#[cfg(feature = "getrandom")]
#[cfg_attr(docsrs, doc(cfg(feature = "getrandom")))]
pub use aead::Generate;

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
