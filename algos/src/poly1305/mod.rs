//! Poly1305 (RFC 8439 section 2.5): the one-time authenticator of ChaCha20-Poly1305.

#[cfg(target_arch = "x86_64")]
pub mod simd;
