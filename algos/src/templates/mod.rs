//! The AEAD templates `rfc7539` and `rfc7539esp` (ChaCha20-Poly1305 over a `chacha20`
//! skcipher and a `poly1305` hash, priority the children's average) are in [`rfc7539`]
//! and [`rfc7539esp`].
//!
//! The mode templates `ecb`, `cbc`, `ctr` and `xts`, built over any registered cipher (or,
//! for `xts`, any ECB skcipher), with the kernel's derived names and priorities:
//!
//! | request | child request | algorithm name | driver name, e.g. | priority |
//! | --- | --- | --- | --- | --- |
//! | `ecb(aes)` | `aes` | `ecb(aes)` | `ecb(aes-generic)`, `ecb(aes-aesni)` | child |
//! | `cbc(aes)` | `aes` | `cbc(aes)` | `cbc(aes-generic)` | child |
//! | `ctr(aes)` | `aes` | `ctr(aes)` | `ctr(aes-generic)` | child |
//! | `xts(aes)` | `ecb(aes)` | `xts(aes)` | `xts(ecb-aes-aesni)`, `xts(ecb(aes-generic))` | child |
//!
//! Each instance's factory builds fresh child instances, so every handle owns its own key
//! schedule. The modes add no secret-dependent branches or indexes of their own, and wipe
//! the keystream and tweak buffers they use; the children zeroize their keys on drop.
//!
//! The `*_over_cipher` constructors build the same modes straight over a cipher
//! constructor, outside the registry (for tests and test-only drivers).

pub mod cbc;
pub(crate) mod common;
pub mod ctr;
pub mod ecb;
pub mod rfc7539;
pub mod rfc7539esp;
pub mod xts;

#[cfg(test)]
mod kat;
#[cfg(test)]
mod tests;

pub use cbc::{cbc_over_cipher, Cbc};
pub use ctr::{ctr_over_cipher, Ctr};
pub use ecb::{ecb_over_cipher, Ecb};
pub use xts::{xts_over_cipher, Xts};
