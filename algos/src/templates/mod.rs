//! The AEAD templates `rfc7539` and `rfc7539esp` (ChaCha20-Poly1305 over a `chacha20`
//! skcipher and a `poly1305` hash, priority the children's average) are in [`rfc7539`]
//! and [`rfc7539esp`].
//!
//! The mode templates `ecb`, `cbc`, `ctr` and `xts`, built over any registered cipher (or,
//! for `xts`, any ECB skcipher), with the kernel's derived names and priorities, and the
//! AEAD templates `gcm_base` / `gcm` (over a `ctr(aes)` and a `ghash`, see [`gcm`]) and
//! `rfc4106` (over a `gcm(aes)`, see [`rfc4106`]):
//!
//! | request | child request | algorithm name | driver name, e.g. | priority |
//! | --- | --- | --- | --- | --- |
//! | `ecb(aes)` | `aes` | `ecb(aes)` | `ecb(aes-generic)`, `ecb(aes-aesni)` | child |
//! | `cbc(aes)` | `aes` | `cbc(aes)` | `cbc(aes-generic)` | child |
//! | `ctr(aes)` | `aes` | `ctr(aes)` | `ctr(aes-generic)` | child |
//! | `xts(aes)` | `ecb(aes)` | `xts(aes)` | `xts(ecb-aes-aesni)`, `xts(ecb(aes-generic))` | child |
//! | `gcm(aes)` | `ctr(aes)`, `ghash` | `gcm(aes)` | `gcm_base(ctr(aes-generic),ghash-generic)` | (ctr + ghash) / 2 |
//! | `rfc4106(gcm(aes))` | `gcm(aes)` | `rfc4106(gcm(aes))` | `rfc4106(gcm-aes-aesni)` | child |
//!
//! Each instance's factory builds fresh child instances, so every handle owns its own key
//! schedule. The modes add no secret-dependent branches or indexes of their own, and wipe
//! the keystream and tweak buffers they use; the children zeroize their keys on drop.
//!
//! The `*_over_cipher` constructors build the same modes straight over a cipher
//! constructor, outside the registry (for tests and test-only drivers).

#[cfg(feature = "aes")]
pub mod cbc;
pub(crate) mod common;
#[cfg(feature = "aes")]
pub mod ctr;
#[cfg(feature = "aes")]
pub mod ecb;
#[cfg(feature = "aes")]
pub mod gcm;
#[cfg(feature = "aes")]
pub mod rfc4106;
#[cfg(feature = "chacha")]
pub mod rfc7539;
#[cfg(feature = "chacha")]
pub mod rfc7539esp;
#[cfg(feature = "aes")]
pub mod xts;

#[cfg(all(test, feature = "aes"))]
mod gcm_tests;
#[cfg(test)]
mod kat;
#[cfg(test)]
mod tests;

#[cfg(feature = "aes")]
pub use cbc::{cbc_over_cipher, Cbc};
#[cfg(feature = "aes")]
pub use ctr::{ctr_over_cipher, Ctr};
#[cfg(feature = "aes")]
pub use ecb::{ecb_over_cipher, Ecb};
#[cfg(feature = "aes")]
pub use gcm::{gcm_over, GcmBase};
#[cfg(feature = "aes")]
pub use rfc4106::Rfc4106;
#[cfg(feature = "aes")]
pub use xts::{xts_over_cipher, Xts};
