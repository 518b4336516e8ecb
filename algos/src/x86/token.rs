//! CPU-feature tokens: zero-sized proofs that this CPU has a feature set, one type per
//! set a driver family executes (as ring's `cpu::intel` and RustCrypto's `InitToken`).
//!
//! A token is made only from the registry's [`HostFeatures`] (detected on this machine,
//! minus the operator's mask, limited to a simulated CPU), so holding one proves the
//! instructions exist and are allowed. Every SIMD driver takes one in its constructor
//! and keeps it; the `unsafe` calls into its `#[target_feature]` entries rely on that
//! and nothing else. The feature list of a token is a constant of
//! [`crate::records::x86_64::needs`] (compiled on every architecture), which is also what
//! its drivers' [`AlgDef`](cryptoreg_registry::AlgDef) records declare, so the two can
//! never differ.

use crate::records::x86_64::needs;
use cryptoreg_registry::{Feature, HostFeatures, Result};

use crate::records::cpu_token::cpu_token;

cpu_token!(
    /// AES-NI with SSE2: `aes-aesni` and the `*-aes-aesni` mode drivers.
    AesNi = needs::AES_NI
);

cpu_token!(
    /// VAES and VPCLMULQDQ on ymm with AVX2 (VEX encoding), plus AES-NI for the key
    /// schedule and the first tweak: the `*-vaes-avx2` drivers (a Zen 3 has this).
    VaesAvx2 = needs::VAES_AVX2
);

cpu_token!(
    /// The avx2 set plus AVX-512F/BW/VL (EVEX encoding, mask registers, zmm): the
    /// `*-vaes-avx10_256` and `*-vaes-avx10_512` drivers.
    VaesAvx10 = needs::VAES_AVX10
);

cpu_token!(
    /// PCLMULQDQ on xmm (SSE encoding) with SSSE3 for `PSHUFB` byte reflection: the
    /// `clmul` module's 64-bit multiply and `ghash-clmulni`. Every CPU with PCLMULQDQ has
    /// SSSE3, so asking for it costs nothing.
    Pclmul = needs::PCLMUL
);

cpu_token!(
    /// AES-NI and PCLMULQDQ on xmm with SSSE3: `gcm-aes-aesni` (AES-CTR and GHASH
    /// stitched in one loop).
    AesNiPclmul = needs::AES_NI_PCLMUL
);

cpu_token!(
    /// VPCLMULQDQ on ymm with AVX2 (VEX encoding): `ghash-vpclmulqdq-avx2`.
    VpclmulAvx2 = needs::VPCLMUL_AVX2
);

cpu_token!(
    /// VPCLMULQDQ on zmm with AVX-512F/BW/VL: `ghash-vpclmulqdq-avx512`.
    VpclmulAvx512 = needs::VPCLMUL_AVX512
);

cpu_token!(
    /// SSSE3 on xmm, legacy SSE encoding (`pshufb` for the byte rotates of ChaCha20):
    /// `chacha20-ssse3`, `xchacha20-ssse3`.
    Ssse3 = needs::SSSE3
);

cpu_token!(
    /// AVX2 on ymm, VEX encoding: `chacha20-avx2`, `xchacha20-avx2`.
    Avx2 = needs::AVX2
);

cpu_token!(
    /// AVX-512F/BW/VL with AVX2 (EVEX: `vprold`, byte-mask partial blocks):
    /// `chacha20-avx512vl` (ymm) and `chacha20-avx512f` (zmm, whose short tails run on
    /// EVEX ymm / xmm, hence VL and BW too), and their `xchacha20` twins.
    Avx512 = needs::AVX512
);

// --- Poly1305 (issue 9): `poly1305-avx2` takes `Avx2`, `poly1305-avx512` and the fused
// `rfc7539-chacha20-poly1305-avx512` take `Avx512` (above) ---

cpu_token!(
    /// The `Avx512` set plus AVX-512IFMA (52-bit multiply-add): `poly1305-avx512ifma`, and
    /// `rfc7539-chacha20-poly1305-avx512ifma` (whose ChaCha20 half is the `Avx512` zmm
    /// core, so the set must stay a superset of `Avx512`).
    Avx512Ifma = needs::AVX512_IFMA
);

// --- end Poly1305 ---

macro_rules! implies_aesni {
    ($($name:ident),*) => {$(
        impl $name {
            /// The AES-NI token this one implies (its set has AES, and AVX2 implies
            /// SSE2), for the shared AES-NI key schedule.
            pub(crate) fn aesni(self) -> AesNi {
                AesNi(())
            }
        }
    )*};
}

implies_aesni!(VaesAvx2, VaesAvx10, AesNiPclmul);

macro_rules! implies_avx2 {
    ($($name:ident),*) => {$(
        impl $name {
            /// The AVX2 token this one implies (its set includes AVX and AVX2), for a
            /// driver that runs a ymm kernel at some lengths.
            pub(crate) fn avx2(self) -> Avx2 {
                Avx2(())
            }
        }
    )*};
}

implies_avx2!(Avx512, Avx512Ifma);

impl Avx512Ifma {
    /// The `Avx512` token this one implies (its set is a superset of `Avx512`'s, which
    /// `chacha20poly1305::simd`'s test `ifma_token_covers_the_zmm_chacha20_core` checks):
    /// the fused `-avx512ifma` driver runs the radix-2^26 zmm entries at some lengths.
    pub(crate) fn avx512(self) -> Avx512 {
        Avx512(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cryptoreg_registry::{Error, Features};

    /// `implies_avx2!` hands out the smaller token: its features must be among the larger
    /// one's. (`implies_aesni!` leans on AVX2 implying SSE2 in hardware, not on a list.)
    #[test]
    fn implied_avx2_tokens_are_subsets() {
        let within = |small: &[Feature], big: &[Feature]| small.iter().all(|f| big.contains(f));
        for big in [Avx512::FEATURES, Avx512Ifma::FEATURES] {
            assert!(within(Avx2::FEATURES, big));
        }
    }

    #[test]
    fn tokens_refuse_a_masked_feature_each() {
        let host = HostFeatures::detect();
        type Make = fn(&HostFeatures) -> Result<()>;
        let tokens: [(&[Feature], Make); 7] = [
            (AesNi::FEATURES, |h| AesNi::new(h, "t").map(|_| ())),
            (VaesAvx2::FEATURES, |h| VaesAvx2::new(h, "t").map(|_| ())),
            (VaesAvx10::FEATURES, |h| VaesAvx10::new(h, "t").map(|_| ())),
            (Pclmul::FEATURES, |h| Pclmul::new(h, "t").map(|_| ())),
            (AesNiPclmul::FEATURES, |h| {
                AesNiPclmul::new(h, "t").map(|_| ())
            }),
            (VpclmulAvx2::FEATURES, |h| {
                VpclmulAvx2::new(h, "t").map(|_| ())
            }),
            (VpclmulAvx512::FEATURES, |h| {
                VpclmulAvx512::new(h, "t").map(|_| ())
            }),
        ];
        for (features, make) in tokens {
            for &f in features {
                let masked = host.without(Features::of(&[f]));
                let refused = make(&masked);
                assert!(
                    matches!(refused, Err(Error::Unsupported { ref missing, .. }) if missing.contains(f.name())),
                    "{f} masked: {refused:?}"
                );
            }
        }
    }
}
