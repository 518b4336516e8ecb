//! What every AEAD driver family shares: the constant-time tag comparison and the verdict
//! of a one-shot `open` ([`tag`]), and the one-shot calls written once over a driver's
//! `seal_into` / `open_into` ([`one_shot`]). Safe code; callers are the GCM drivers
//! (`aes/{aesni,vaes,ce}`, `templates::gcm`) and the ChaCha20-Poly1305 ones
//! (`templates::rfc7539`, `chacha20poly1305::simd`).

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) mod one_shot;
pub(crate) mod tag;
