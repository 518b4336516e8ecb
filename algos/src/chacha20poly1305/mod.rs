//! The ChaCha20-Poly1305 family beyond the generic `rfc7539(chacha20,poly1305)` template:
//! the XChaCha20-Poly1305 AEAD ([`xchacha20poly1305`], its generic driver and the nonce
//! rule every XChaCha20-Poly1305 driver shares) and, on x86-64, the fused SIMD drivers
//! (`simd`: `chacha20poly1305-*` and `xchacha20poly1305-*`).

#[cfg(target_arch = "x86_64")]
pub mod simd;
pub mod xchacha20poly1305;
