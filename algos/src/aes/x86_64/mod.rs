//! AES-NI code: the key schedule shared with the VAES drivers, the `aes-aesni` block
//! cipher and the `ecb`/`cbc`/`ctr`/`xts` mode drivers.
//!
//! This is one of the few places `unsafe` is allowed: every intrinsic call sits in a
//! `#[target_feature]` function that is only reachable through a driver the registry hands
//! out after checking the driver's `requires` list against the CPU.

#![allow(unsafe_code)]

pub(crate) mod key_schedule;
