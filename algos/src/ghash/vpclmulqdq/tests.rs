//! `ghash-vpclmulqdq-avx2` and `-avx512` against the standard vectors, against
//! `ghash-generic` on random keys and lengths (group boundaries of 256 bytes favoured), and
//! through the frame's splits and export/import. Only the drivers this CPU runs; each test
//! prints which ran and which were skipped.

use cryptoreg_registry::{HashImpl, HostFeatures};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use super::{new_avx2, new_avx512};
use crate::ghash::generic::ghash_generic;
use crate::ghash::tests::{check_driver_splits, ghash_vectors};

type Ctor = fn(&HostFeatures) -> cryptoreg_registry::Result<Box<dyn HashImpl>>;

/// The drivers this CPU can build, by name.
fn runnable(test: &str) -> Vec<(&'static str, Ctor)> {
    let host = HostFeatures::detect();
    let all: [(&str, Ctor); 2] = [
        ("ghash-vpclmulqdq-avx2", new_avx2),
        ("ghash-vpclmulqdq-avx512", new_avx512),
    ];
    let mut ran = Vec::new();
    for (name, ctor) in all {
        if ctor(&host).is_ok() {
            ran.push((name, ctor));
        } else {
            eprintln!("{test}: SKIPPED {name} (CPU lacks its features; see `cargo xtask emu`)");
        }
    }
    eprintln!(
        "{test}: ran {:?}",
        ran.iter().map(|r| r.0).collect::<Vec<_>>()
    );
    ran
}

fn keyed(ctor: Ctor, key: &[u8]) -> Box<dyn HashImpl> {
    let mut d = ctor(&HostFeatures::detect()).unwrap();
    d.set_key(key).unwrap();
    d
}

#[test]
fn standard_vectors() {
    for (name, ctor) in runnable("ghash vectors") {
        for v in ghash_vectors() {
            let d = keyed(ctor, &v.key);
            let mut out = [0u8; 16];
            d.digest(&v.message, &mut out);
            assert_eq!(out[..], v.digest[..], "{name}: {}", v.source);
        }
    }
}

#[test]
fn differential_against_generic() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x0067_6861_7368);
    for (name, ctor) in runnable("ghash differential") {
        for iter in 0..600 {
            let key: [u8; 16] = match iter {
                0 => [0; 16],
                1 => [0xff; 16],
                2 => {
                    let mut k = [0; 16];
                    k[0] = 0x80; // H = 1
                    k
                }
                _ => rng.gen(),
            };
            let len = match rng.gen_range(0..3) {
                0 => rng.gen_range(0..4000),
                1 => {
                    (256 * rng.gen_range(0..12usize)).saturating_add_signed(rng.gen_range(-17..=17))
                }
                _ => 16 * rng.gen_range(0..40),
            };
            let msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let mut reference = ghash_generic();
            reference.set_key(&key).unwrap();
            let (mut want, mut got) = ([0u8; 16], [0u8; 16]);
            reference.digest(&msg, &mut want);
            let d = keyed(ctor, &key);
            d.digest(&msg, &mut got);
            assert_eq!(
                got,
                want,
                "{name} iter {iter}: len {len} key {}",
                hex::encode(key)
            );
            // A running state fed in random pieces.
            let mut st = d.init();
            let mut off = 0;
            while off < msg.len() {
                let n = rng.gen_range(1..=(msg.len() - off).min(700));
                st.update(&msg[off..off + n]);
                off += n;
            }
            st.finalize(&mut got);
            assert_eq!(got, want, "{name} iter {iter}: pieces, len {len}");
        }
    }
}

#[test]
fn splits_and_export_import() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for (_, ctor) in runnable("ghash splits") {
        for len in [0usize, 1, 16, 17, 255, 256, 257, 300] {
            let h: [u8; 16] = rng.gen();
            let d = keyed(ctor, &h);
            let msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            check_driver_splits(&*d, &h, &msg);
        }
    }
}
