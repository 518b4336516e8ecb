//! GHASH on VPCLMULQDQ: `ghash-vpclmulqdq-avx2` (600, ymm) and `ghash-vpclmulqdq-avx512`
//! (800, zmm, `uses_zmm`), from one generic core (`ghash::x86::vpclmul_core`) over the shared vector layer,
//! 16 blocks per reduction with precomputed powers of H. The stitched `gcm-aes-vaes-*`
//! drivers build on the same core.

#![allow(unsafe_code)]

#[cfg(test)]
mod tests;

use cryptoreg_registry::{HashImpl, HostFeatures, Result};

use super::{GhashBackend, GhashDriver};
use crate::ghash::x86::vpclmul_core::{h_times_x_inv, GhashPowers};
use crate::ghash::x86::vpclmul_entry as entry;
use crate::x86::token::{VpclmulAvx2, VpclmulAvx512};

macro_rules! backends {
    ($($(#[$doc:meta])* $key:ident, $token:ident, $entry:ident, $driver:literal,
       $ctor:ident;)*) => {$(
        $(#[$doc])*
        /// The power table `H^16 .. H^1` (wiped on drop) and the token proving the
        /// features of its entry.
        pub(crate) struct $key {
            token: $token,
            powers: GhashPowers,
        }

        impl GhashBackend for $key {
            type Token = $token;

            fn new(token: $token, h: &[u8; 16]) -> Self {
                let mut key = $key {
                    token,
                    powers: GhashPowers::empty(),
                };
                let mut k1 = h_times_x_inv(h).to_le_bytes();
                // SAFETY: the token proves AVX2 and VPCLMULQDQ.
                unsafe { entry::ghash_powers_vpclmulqdq(&k1, &mut key.powers) };
                ::zeroize::Zeroize::zeroize(&mut k1);
                key
            }

            fn update_blocks(&self, acc: &mut [u8; 16], blocks: &[u8]) {
                let _proof: $token = self.token;
                // SAFETY: `self.token` proves every feature the entry is compiled for;
                // `blocks` is readable for its length.
                unsafe { entry::$entry(&self.powers, acc, blocks.as_ptr(), blocks.len()) }
            }
        }

        /// Builds the driver when the host proves the token's features.
        pub(crate) fn $ctor(host: &HostFeatures) -> Result<Box<dyn HashImpl>> {
            let token = $token::new(host, $driver)?;
            Ok(Box::new(GhashDriver::<$key>::new($driver, token)))
        }

    )*};
}

backends! {
    /// `ghash-vpclmulqdq-avx2`: ymm, 8 vectors per 16-block group.
    Avx2Key, VpclmulAvx2, ghash_vpclmulqdq_avx2, "ghash-vpclmulqdq-avx2", new_avx2;
    /// `ghash-vpclmulqdq-avx512`: zmm, 4 vectors per 16-block group.
    Avx512Key, VpclmulAvx512, ghash_vpclmulqdq_avx512, "ghash-vpclmulqdq-avx512", new_avx512;
}
