//! Records of the x86-64 drivers, compiled on every architecture (the pattern:
//! [`crate::records`]). Every feature set here names an x86-only feature (`sse2`, `ssse3`,
//! `avx`, `avx2`, `pclmulqdq`) besides any shared one (`aes`), so no arm64 CPU satisfies a
//! record; the constructors exist only on x86-64.

use cryptoreg_registry::{inventory, AlgDef};

use super::arch_ctor;
#[cfg(feature = "aes")]
use crate::aes::gcm_rules::{GCM_NONCE_LEN, GCM_TAG_LEN};
#[cfg(feature = "chacha")]
use crate::chacha20::{
    CHACHA_IV_SIZE, CHACHA_KEY_SIZE, CHACHA_NONCE_SIZE, XCHACHA_IV_SIZE, XCHACHA_NONCE_SIZE,
};
#[cfg(feature = "chacha")]
use crate::poly1305::POLY1305_TAG_SIZE;

/// The feature sets the x86-64 CPU tokens prove (`x86/token.rs` builds each token from
/// one of these), and so what the records below require.
pub(crate) mod needs {
    use cryptoreg_registry::Feature::{self, *};

    /// AES-NI with SSE2.
    pub(crate) const AES_NI: &[Feature] = &[Aes, Sse2];
    /// VAES and VPCLMULQDQ on ymm (VEX), AES-NI for the key schedule.
    pub(crate) const VAES_AVX2: &[Feature] = &[Aes, Avx2, Vaes, Vpclmulqdq];
    /// The avx2 set plus AVX-512F/BW/VL (EVEX).
    pub(crate) const VAES_AVX10: &[Feature] =
        &[Aes, Avx2, Vaes, Vpclmulqdq, Avx512f, Avx512bw, Avx512vl];
    /// PCLMULQDQ on xmm with SSSE3.
    pub(crate) const PCLMUL: &[Feature] = &[Pclmulqdq, Ssse3, Sse2];
    /// AES-NI and PCLMULQDQ on xmm with SSSE3.
    pub(crate) const AES_NI_PCLMUL: &[Feature] = &[Aes, Pclmulqdq, Ssse3, Sse2];
    /// VPCLMULQDQ on ymm with AVX2.
    pub(crate) const VPCLMUL_AVX2: &[Feature] = &[Avx2, Vpclmulqdq];
    /// VPCLMULQDQ on zmm with AVX-512F/BW/VL.
    pub(crate) const VPCLMUL_AVX512: &[Feature] = &[Avx2, Vpclmulqdq, Avx512f, Avx512bw, Avx512vl];
    /// SSSE3 on xmm.
    pub(crate) const SSSE3: &[Feature] = &[Ssse3, Sse2];
    /// AVX2 on ymm.
    pub(crate) const AVX2: &[Feature] = &[Avx, Avx2];
    /// AVX-512F/BW/VL with AVX2.
    pub(crate) const AVX512: &[Feature] = &[Avx, Avx2, Avx512f, Avx512bw, Avx512vl];
    /// The AVX512 set plus AVX-512IFMA.
    pub(crate) const AVX512_IFMA: &[Feature] =
        &[Avx, Avx2, Avx512f, Avx512bw, Avx512vl, Avx512ifma];
}

// --- AES-NI (`aes/aesni/`) ---

#[cfg(feature = "aes")]
inventory::submit! {
    AlgDef::new("aes", "aes-aesni", 300,
        arch_ctor!("x86_64", Cipher, "aes-aesni", needs::AES_NI, crate::aes::aesni::cipher::new_aes_aesni))
        .requires(needs::AES_NI)
        .block_size(16)
        .key_sizes(16, 32)
}

#[cfg(feature = "aes")]
inventory::submit! {
    AlgDef::new("ecb(aes)", "ecb-aes-aesni", 400,
        arch_ctor!("x86_64", Skcipher, "ecb-aes-aesni", needs::AES_NI, crate::aes::aesni::ecb::new_ecb))
        .requires(needs::AES_NI)
        .block_size(16)
        .key_sizes(16, 32)
}

#[cfg(feature = "aes")]
inventory::submit! {
    AlgDef::new("cbc(aes)", "cbc-aes-aesni", 400,
        arch_ctor!("x86_64", Skcipher, "cbc-aes-aesni", needs::AES_NI, crate::aes::aesni::cbc::new_cbc))
        .requires(needs::AES_NI)
        .block_size(16)
        .key_sizes(16, 32)
        .iv_size(16)
}

#[cfg(feature = "aes")]
inventory::submit! {
    AlgDef::new("ctr(aes)", "ctr-aes-aesni", 400,
        arch_ctor!("x86_64", Skcipher, "ctr-aes-aesni", needs::AES_NI, crate::aes::aesni::ctr::new_ctr))
        .requires(needs::AES_NI)
        .key_sizes(16, 32)
        .iv_size(16)
}

#[cfg(feature = "aes")]
inventory::submit! {
    AlgDef::new("xts(aes)", "xts-aes-aesni", 401,
        arch_ctor!("x86_64", Skcipher, "xts-aes-aesni", needs::AES_NI, crate::aes::aesni::xts::new_xts))
        .requires(needs::AES_NI)
        .block_size(16)
        .key_sizes(32, 64)
        .iv_size(16)
}

#[cfg(feature = "aes")]
inventory::submit! {
    AlgDef::new("gcm(aes)", "gcm-aes-aesni", 400,
        arch_ctor!("x86_64", Aead, "gcm-aes-aesni", needs::AES_NI_PCLMUL, crate::aes::aesni::gcm::new_gcm))
        .requires(needs::AES_NI_PCLMUL)
        .block_size(1)
        .key_sizes(16, 32)
        .iv_size(12)
        .out_size(16)
}

// --- VAES (`aes/vaes/`) ---

/// The VAES `xts(aes)` (block 16, 32..64-byte keys) and `ctr(aes)` (block 1, 16..32)
/// records.
macro_rules! vaes_modes {
    ($($alg:literal, $driver:literal, $prio:expr, $needs:ident, $block:expr, $min:expr,
       $max:expr, $ctor:ident $(, $zmm:ident)?;)*) => {$(
        inventory::submit! {
            AlgDef::new($alg, $driver, $prio,
                arch_ctor!("x86_64", Skcipher, $driver, needs::$needs, crate::aes::vaes::$ctor))
                .requires(needs::$needs)
                .block_size($block)
                .key_sizes($min, $max)
                .iv_size(16)
                $(.$zmm())?
        }
    )*};
}

/// The VAES `gcm(aes)` records.
macro_rules! vaes_gcm {
    ($($driver:literal, $prio:expr, $needs:ident, $ctor:ident $(, $zmm:ident)?;)*) => {$(
        inventory::submit! {
            AlgDef::new("gcm(aes)", $driver, $prio,
                arch_ctor!("x86_64", Aead, $driver, needs::$needs, crate::aes::vaes::$ctor))
                .requires(needs::$needs)
                .block_size(1)
                .key_sizes(16, 32)
                .iv_size(GCM_NONCE_LEN)
                .out_size(GCM_TAG_LEN)
                $(.$zmm())?
        }
    )*};
}

#[cfg(feature = "aes")]
vaes_modes! {
    "xts(aes)", "xts-aes-vaes-avx2", 600, VAES_AVX2, 16, 32, 64, new_xts_vaes_avx2;
    "xts(aes)", "xts-aes-vaes-avx10_256", 700, VAES_AVX10, 16, 32, 64, new_xts_vaes_avx10_256;
    "xts(aes)", "xts-aes-vaes-avx10_512", 800, VAES_AVX10, 16, 32, 64, new_xts_vaes_avx10_512,
        uses_zmm;
    "ctr(aes)", "ctr-aes-vaes-avx2", 600, VAES_AVX2, 1, 16, 32, new_ctr_vaes_avx2;
    "ctr(aes)", "ctr-aes-vaes-avx10_256", 700, VAES_AVX10, 1, 16, 32, new_ctr_vaes_avx10_256;
    "ctr(aes)", "ctr-aes-vaes-avx10_512", 800, VAES_AVX10, 1, 16, 32, new_ctr_vaes_avx10_512,
        uses_zmm;
}

#[cfg(feature = "aes")]
vaes_gcm! {
    "gcm-aes-vaes-avx2", 600, VAES_AVX2, new_gcm_vaes_avx2;
    "gcm-aes-vaes-avx10_256", 700, VAES_AVX10, new_gcm_vaes_avx10_256;
    "gcm-aes-vaes-avx10_512", 800, VAES_AVX10, new_gcm_vaes_avx10_512, uses_zmm;
}

// --- GHASH (`ghash/clmulni`, `ghash/vpclmulqdq`) ---

macro_rules! ghash {
    ($($driver:literal, $prio:expr, $needs:ident, $($ctor:ident)::+ $(, $zmm:ident)?;)*) => {$(
        inventory::submit! {
            AlgDef::new("ghash", $driver, $prio, arch_ctor!("x86_64", Hash, $driver, needs::$needs, $($ctor)::+))
                .requires(needs::$needs)
                .block_size(16)
                .key_sizes(16, 16)
                .out_size(16)
                $(.$zmm())?
        }
    )*};
}

#[cfg(feature = "aes")]
ghash! {
    "ghash-clmulni", 400, PCLMUL, crate::ghash::clmulni::new_clmulni;
    "ghash-vpclmulqdq-avx2", 600, VPCLMUL_AVX2, crate::ghash::vpclmulqdq::new_avx2;
    "ghash-vpclmulqdq-avx512", 800, VPCLMUL_AVX512, crate::ghash::vpclmulqdq::new_avx512,
        uses_zmm;
}

// --- ChaCha20 (`chacha20/simd`) ---

macro_rules! chacha {
    ($($alg:literal, $driver:literal, $prio:expr, $needs:ident, $iv:expr, $ctor:ident
       $(, $zmm:ident)?;)*) => {$(
        inventory::submit! {
            AlgDef::new($alg, $driver, $prio,
                arch_ctor!("x86_64", Skcipher, $driver, needs::$needs, crate::chacha20::simd::$ctor))
                .requires(needs::$needs)
                .block_size(1)
                .key_sizes(CHACHA_KEY_SIZE, CHACHA_KEY_SIZE)
                .iv_size($iv)
                $(.$zmm())?
        }
    )*};
}

#[cfg(feature = "chacha")]
chacha! {
    "chacha20", "chacha20-ssse3", 300, SSSE3, CHACHA_IV_SIZE, new_chacha20_ssse3;
    "chacha20", "chacha20-avx2", 400, AVX2, CHACHA_IV_SIZE, new_chacha20_avx2;
    "chacha20", "chacha20-avx512vl", 500, AVX512, CHACHA_IV_SIZE, new_chacha20_avx512vl;
    "chacha20", "chacha20-avx512f", 600, AVX512, CHACHA_IV_SIZE, new_chacha20_avx512f, uses_zmm;
    "xchacha20", "xchacha20-ssse3", 300, SSSE3, XCHACHA_IV_SIZE, new_xchacha20_ssse3;
    "xchacha20", "xchacha20-avx2", 400, AVX2, XCHACHA_IV_SIZE, new_xchacha20_avx2;
    "xchacha20", "xchacha20-avx512vl", 500, AVX512, XCHACHA_IV_SIZE, new_xchacha20_avx512vl;
    "xchacha20", "xchacha20-avx512f", 600, AVX512, XCHACHA_IV_SIZE, new_xchacha20_avx512f,
        uses_zmm;
}

// --- Poly1305 (`poly1305/simd`) ---

macro_rules! poly1305 {
    ($($driver:literal, $prio:expr, $needs:ident, $ctor:ident $(, $zmm:ident)?;)*) => {$(
        inventory::submit! {
            AlgDef::new("poly1305", $driver, $prio,
                arch_ctor!("x86_64", Hash, $driver, needs::$needs, crate::poly1305::simd::hash::$ctor))
                .requires(needs::$needs)
                .block_size(16)
                .key_sizes(32, 32)
                .out_size(16)
                $(.$zmm())?
        }
    )*};
}

#[cfg(feature = "chacha")]
poly1305! {
    "poly1305-avx2", 400, AVX2, new_poly1305_avx2;
    "poly1305-avx512", 500, AVX512, new_poly1305_avx512, uses_zmm;
    "poly1305-avx512ifma", 550, AVX512_IFMA, new_poly1305_avx512ifma, uses_zmm;
}

// --- ChaCha20-Poly1305 and XChaCha20-Poly1305, fused (`chacha20poly1305/simd/`; XChaCha20: the
// same drivers with the HChaCha20 subkey per request) ---

macro_rules! chachapoly {
    ($alg:literal, $iv:ident; $($driver:literal, $prio:expr, $needs:ident, $ctor:ident $(, $zmm:ident)?;)*) => {$(
        inventory::submit! {
            AlgDef::new($alg, $driver, $prio,
                arch_ctor!("x86_64", Aead, $driver, needs::$needs, crate::chacha20poly1305::simd::$ctor))
                .requires(needs::$needs)
                .block_size(1)
                .key_sizes(CHACHA_KEY_SIZE, CHACHA_KEY_SIZE)
                .iv_size($iv)
                .out_size(POLY1305_TAG_SIZE)
                $(.$zmm())?
        }
    )*};
}

#[cfg(feature = "chacha")]
chachapoly! {
    "rfc7539(chacha20,poly1305)", CHACHA_NONCE_SIZE;
    "rfc7539-chacha20-poly1305-avx2", 450, AVX2, new_avx2;
    "rfc7539-chacha20-poly1305-avx512", 650, AVX512, new_avx512, uses_zmm;
    "rfc7539-chacha20-poly1305-avx512ifma", 660, AVX512_IFMA, new_avx512ifma, uses_zmm;
}

#[cfg(feature = "chacha")]
chachapoly! {
    "xchacha20poly1305", XCHACHA_NONCE_SIZE;
    "xchacha20poly1305-avx2", 450, AVX2, new_xchacha_avx2;
    "xchacha20poly1305-avx512", 650, AVX512, new_xchacha_avx512, uses_zmm;
    "xchacha20poly1305-avx512ifma", 660, AVX512_IFMA, new_xchacha_avx512ifma, uses_zmm;
}
