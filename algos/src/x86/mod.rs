//! The shared x86-64 layer every SIMD driver builds on: CPU-feature tokens ([`token`]),
//! the raw source/destination pointers of a run ([`inout`]) and the vector types
//! ([`vector`]: ymm without masks, ymm with AVX-512VL masks, zmm) that
//! the AES, GHASH and ChaCha20 cores are written over once and instantiated per width, and
//! the 32-bit-word view of the same registers plus xmm ([`word32`]: add, rotate, unpack,
//! lane transposes) that the ChaCha20 core uses.
//!
//! Algorithm-specific operations (AES rounds, the XTS multiply, CTR lanes) live with their
//! algorithm (`aes/vaes/`), on top of this layer.

#![allow(unsafe_code)]

pub(crate) mod inout;
pub(crate) mod token;
pub(crate) mod vector;
pub(crate) mod word32;
