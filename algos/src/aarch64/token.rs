//! arm64 CPU-feature tokens, the same scheme as `x86/token.rs` ([`cpu_token!`]): a token
//! is made only from the registry's [`HostFeatures`], so holding one proves that the
//! instructions exist here and that the operator did not mask them (`[cpu] disable`).
//! Every arm64 SIMD driver takes one in its constructor, and its `AlgDef` declares the
//! same list with `.requires(Token::FEATURES)`.
//!
//! Rust's `aes` target feature on aarch64 covers both FEAT_AES and FEAT_PMULL (the
//! intrinsics `vaeseq_u8` and `vmull_p64` both ask for it); the registry names the two
//! separately, as the kernel's hwcaps do, so a driver lists what it really executes.

use cryptoreg_registry::{Feature, HostFeatures, Result};

use crate::records::aarch64::needs;
use crate::records::cpu_token::cpu_token;

cpu_token!(
    /// The Crypto Extensions' AES instructions with Advanced SIMD: `aes-ce` and the
    /// `*-aes-ce` mode drivers.
    AesCe = needs::AES_CE
);

cpu_token!(
    /// PMULL/PMULL2 on 64-bit lanes with Advanced SIMD: `ghash-ce`.
    PmullCe = needs::PMULL_CE
);

cpu_token!(
    /// AES and PMULL with Advanced SIMD: `gcm-aes-ce` (AES-CTR and GHASH in one loop).
    AesPmull = needs::AES_PMULL
);

cpu_token!(
    /// Advanced SIMD alone: `chacha20-neon`, `xchacha20-neon`.
    Neon = needs::NEON
);

impl AesPmull {
    /// The AES token this one implies (for the shared key schedule).
    pub(crate) fn aes(self) -> AesCe {
        AesCe(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cryptoreg_registry::{Error, Features};

    #[test]
    fn tokens_refuse_a_masked_feature_each() {
        let host = HostFeatures::detect();
        type Make = fn(&HostFeatures) -> Result<()>;
        let tokens: [(&[Feature], Make); 4] = [
            (AesCe::FEATURES, |h| AesCe::new(h, "t").map(|_| ())),
            (PmullCe::FEATURES, |h| PmullCe::new(h, "t").map(|_| ())),
            (AesPmull::FEATURES, |h| AesPmull::new(h, "t").map(|_| ())),
            (Neon::FEATURES, |h| Neon::new(h, "t").map(|_| ())),
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
