//! AES on the arm64 Crypto Extensions (`AESE`/`AESD`/`AESMC`/`AESIMC`): the key schedule,
//! the rounds (one or four blocks in flight), and the drivers, with the kernel's names
//! and priorities (torvalds/linux arch/arm64/crypto):
//!
//! * `aes-ce` (250, `aes-ce-glue.c`): the single-block cipher;
//! * `ecb-aes-ce`, `cbc-aes-ce`, `ctr-aes-ce`, `xts-aes-ce` (300, `aes-glue.c` built with
//!   `USE_V8_CRYPTO_EXTENSIONS`: `MODE "ce"`, `PRIO 300`).
//!
//! Request semantics (tails, IV updates, XTS stealing, CTR wrap) are those of the AES-NI
//! drivers (`aes/aesni/`), which the randomized self-tests compare with the generic ones.

#![allow(unsafe_code)]

pub(crate) mod cbc;
pub(crate) mod cipher;
pub(crate) mod ctr;
pub(crate) mod ecb;
pub(crate) mod gcm;
pub(crate) mod key_schedule;
pub(crate) mod rounds;
pub(crate) mod xts;

#[cfg(test)]
mod tests;
