//! `ghash-ce` (priority 200): GHASH on PMULL over the core in `ghash/aarch64/`.
//!
//! Name and priority: the kernel's arch/arm64/crypto/ghash-ce-glue.c registered its PMULL
//! GHASH as `ghash-ce` at 200 (v4.x .. v5.x); today's kernel keeps PMULL GHASH inside
//! `gcm-aes-ce` and registers `ghash-neon` at 150 (issue 11 takes 200 for ours).
//!
//! Arch module: `unsafe` is allowed here. The driver holds a [`PmullCe`] token, which
//! proves PMULL before the core's entry is called.

#![allow(unsafe_code)]

use cryptoreg_registry::{HashImpl, HostFeatures, Result};

use crate::aarch64::token::PmullCe;
use crate::ghash::aarch64::ghash_ce;
use crate::ghash::aarch64::pmull::HPowers;
use crate::ghash::{GhashBackend, GhashDriver};

/// The driver name.
pub const DRIVER: &str = "ghash-ce";

/// The keyed backend: the token and H^1 ..= H^4 (wiped on drop).
pub(crate) struct CeKey {
    _token: PmullCe,
    powers: HPowers,
}

impl GhashBackend for CeKey {
    type Token = PmullCe;

    fn new(token: PmullCe, h: &[u8; 16]) -> Self {
        CeKey {
            _token: token,
            powers: HPowers::new(h),
        }
    }

    fn update_blocks(&self, acc: &mut [u8; 16], blocks: &[u8]) {
        // SAFETY: `self._token` proves PMULL on this CPU.
        unsafe { ghash_ce(&self.powers, acc, blocks) }
    }
}

/// Builds `ghash-ce`, or refuses without PMULL.
pub(crate) fn new_ghash_ce(host: &HostFeatures) -> Result<Box<dyn HashImpl>> {
    let token = PmullCe::new(host, DRIVER)?;
    Ok(Box::new(GhashDriver::<CeKey>::new(DRIVER, token)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ghash::generic::ghash_generic;
    use crate::ghash::tests::{check_driver_splits, ghash_vectors};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    fn driver() -> Option<Box<dyn HashImpl>> {
        match new_ghash_ce(&HostFeatures::detect()) {
            Ok(d) => Some(d),
            Err(e) => {
                eprintln!("SKIPPED ghash-ce: {e}");
                None
            }
        }
    }

    #[test]
    fn passes_the_standard_vectors() {
        let Some(mut d) = driver() else { return };
        let vs = ghash_vectors();
        assert!(!vs.is_empty());
        for v in vs {
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
        let mut rng = ChaCha20Rng::seed_from_u64(200);
        for round in 0..200 {
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
        for len in [0usize, 1, 16, 17, 63, 64, 65, 127, 128, 129, 300] {
            let h: [u8; 16] = rng.gen();
            d.set_key(&h).unwrap();
            let msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            check_driver_splits(&*d, &h, &msg);
        }
    }
}
