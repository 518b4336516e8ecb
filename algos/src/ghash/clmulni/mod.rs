//! `ghash-clmulni` (priority 400): GHASH on PCLMULQDQ (xmm, SSE encoding) with aggregated
//! reduction: eight blocks multiplied by H^8 .. H^1 and reduced once (see `ghash::x86::xmm`).
//!
//! Arch module: `unsafe` is allowed here. The driver takes a [`Pclmul`] token in its
//! constructor, which is what makes the calls into the `#[target_feature]` entry sound.

#![allow(unsafe_code)]

use cryptoreg_registry::{HashImpl, HostFeatures, Result};

use super::{GhashBackend, GhashDriver};
use crate::ghash::x86::ghash_clmulni;
use crate::ghash::x86::xmm::HPowers;
use crate::x86::token::Pclmul;

/// The driver name.
pub const DRIVER: &str = "ghash-clmulni";

/// The keyed backend: the token and H^1 ..= H^8 (wiped on drop by [`HPowers`]).
pub(crate) struct ClmulniKey {
    _token: Pclmul,
    powers: HPowers,
}

impl GhashBackend for ClmulniKey {
    type Token = Pclmul;

    fn new(token: Pclmul, h: &[u8; 16]) -> Self {
        ClmulniKey {
            _token: token,
            powers: HPowers::new(h),
        }
    }

    fn update_blocks(&self, acc: &mut [u8; 16], blocks: &[u8]) {
        // SAFETY: `self._token` proves PCLMULQDQ, SSSE3 and SSE2 on this CPU; `blocks` is
        // a live slice.
        unsafe { ghash_clmulni(&self.powers, acc, blocks.as_ptr(), blocks.len()) }
    }
}

/// Builds `ghash-clmulni`, or refuses without PCLMULQDQ/SSSE3.
pub(crate) fn new_clmulni(host: &HostFeatures) -> Result<Box<dyn HashImpl>> {
    let token = Pclmul::new(host, DRIVER)?;
    Ok(Box::new(GhashDriver::<ClmulniKey>::new(DRIVER, token)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ghash::generic::ghash_generic;
    use crate::ghash::tests::{check_driver_splits, ghash_vectors};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    fn driver() -> Option<Box<dyn HashImpl>> {
        let host = HostFeatures::detect();
        if !host.has_all(Pclmul::FEATURES) {
            eprintln!("ghash-clmulni: no PCLMULQDQ on this CPU, not tested here");
            return None;
        }
        Some(new_clmulni(&host).unwrap())
    }

    #[test]
    fn passes_the_standard_vectors() {
        let Some(mut d) = driver() else { return };
        for v in ghash_vectors() {
            d.set_key(&v.key).unwrap();
            let mut out = [0u8; 16];
            d.digest(&v.message, &mut out);
            assert_eq!(out[..], v.digest[..], "{}", v.source);
        }
    }

    #[test]
    fn agrees_with_generic_on_random_lengths_and_splits() {
        let Some(mut d) = driver() else { return };
        let mut g = ghash_generic();
        let mut rng = ChaCha20Rng::seed_from_u64(400);
        for round in 0..300 {
            let h: [u8; 16] = rng.gen();
            d.set_key(&h).unwrap();
            g.set_key(&h).unwrap();
            let len = match round % 3 {
                0 => rng.gen_range(0..300),
                1 => 16 * rng.gen_range(0..40),
                _ => rng.gen_range(0..3000),
            };
            let msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
            d.digest(&msg, &mut a);
            g.digest(&msg, &mut b);
            assert_eq!(a, b, "len {len}");
            // Random pieces through the running state.
            let mut st = d.init();
            let mut off = 0;
            while off < len {
                let n = rng.gen_range(0..=len - off).min(rng.gen_range(1..200));
                st.update(&msg[off..off + n]);
                off += n;
            }
            st.finalize(&mut a);
            assert_eq!(a, b, "pieces, len {len}");
        }
        for len in [0usize, 1, 16, 17, 127, 128, 129, 255, 256, 300] {
            let h: [u8; 16] = rng.gen();
            d.set_key(&h).unwrap();
            let msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            check_driver_splits(&*d, &h, &msg);
        }
    }
}
