//! GHASH (the GCM universal hash, `ghash`): the VPCLMULQDQ drivers and the core the stitched
//! `gcm-aes-vaes-*` drivers share.

#[cfg(target_arch = "x86_64")]
pub(crate) mod vpclmulqdq;
