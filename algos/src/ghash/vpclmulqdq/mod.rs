//! GHASH on VPCLMULQDQ: `ghash-vpclmulqdq-avx2` (600, ymm) and `ghash-vpclmulqdq-avx512`
//! (800, zmm, `uses_zmm`), from one generic core ([`core`]) over the shared vector layer,
//! 16 blocks per reduction with precomputed powers of H. The stitched `gcm-aes-vaes-*`
//! drivers build on the same core.

#![allow(unsafe_code)]

pub(crate) mod core;
pub(crate) mod entry;
