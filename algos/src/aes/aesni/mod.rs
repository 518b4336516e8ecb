//! AES-NI code: the key schedule shared with the VAES drivers, the `aes-aesni` block
//! cipher, the `ecb`/`cbc`/`ctr`/`xts` mode drivers and `gcm-aes-aesni`.
//!
//! This is one of the few places `unsafe` is allowed: every intrinsic runs inside a
//! `#[target_feature(enable = "aes,sse2")]` entry function that is only reachable through
//! a driver instance, and every driver constructor asserts AES-NI before building one
//! (the registry, for its part, builds drivers only after checking `requires`).

#![allow(unsafe_code)]

pub(crate) mod cbc;
pub(crate) mod cipher;
pub(crate) mod ctr;
pub(crate) mod ecb;
pub(crate) mod gcm;
pub(crate) mod key_schedule;
pub(crate) mod xts;
