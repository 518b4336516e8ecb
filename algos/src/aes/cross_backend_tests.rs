//! The x86-64 AES backends against each other: the VAES drivers at every width this CPU
//! runs against the AES-NI drivers. Here, in the family's parent, because no backend
//! imports a sibling backend (each backend's own tests compare it with `aes-generic`).

use cryptoreg_registry::{HostFeatures, SkcipherImpl};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::aes::aesni::{ctr::new_ctr, xts::new_xts};
use crate::aes::vaes::tests::{ctr_driver, runnable, xts_driver};

/// The VAES drivers against the AES-NI drivers (`xts-aes-aesni`, `ctr-aes-aesni`).
#[test]
fn matches_aesni_drivers() {
    let ran = runnable("matches_aesni_drivers");
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    for (w, name) in &ran {
        for (xklen, cklen) in [(32, 16), (48, 24), (64, 32)] {
            let xkey: Vec<u8> = (0..xklen).map(|_| rng.gen()).collect();
            let ckey: Vec<u8> = (0..cklen).map(|_| rng.gen()).collect();
            let (mut ours_x, mut ni_x) =
                (xts_driver(*w), new_xts(&HostFeatures::detect()).unwrap());
            ours_x.set_key(&xkey).unwrap();
            ni_x.set_key(&xkey).unwrap();
            let (mut ours_c, mut ni_c) =
                (ctr_driver(*w), new_ctr(&HostFeatures::detect()).unwrap());
            ours_c.set_key(&ckey).unwrap();
            ni_c.set_key(&ckey).unwrap();
            for len in (16..600).chain([4096, 4111, 65536]) {
                let iv: [u8; 16] = rng.gen();
                let pt: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                for (ours, ni) in [(&ours_x as &dyn SkcipherImpl, &*ni_x), (&ours_c, &*ni_c)] {
                    let (mut a, mut b) = (pt.clone(), pt.clone());
                    ours.encrypt(&iv, &mut a).unwrap();
                    ni.encrypt(&iv, &mut b).unwrap();
                    assert_eq!(a, b, "{name} vs aesni enc len={len}");
                    ours.decrypt(&iv, &mut a).unwrap();
                    ni.decrypt(&iv, &mut b).unwrap();
                    assert_eq!(a, b, "{name} vs aesni dec len={len}");
                }
            }
        }
    }
}
