//! Tests of the Poly1305 SIMD drivers: the standard vectors (RFC 8439 2.5.2 and A.3, from
//! `selftest/vectors/poly1305.toml`) through every available driver, and each driver
//! against `poly1305-generic` over random lengths (both sides of every threshold), random
//! update splits, `finup`, export/import between updates (into the driver's and the
//! generic driver's states: the bytes are the same); carry-heavy keys and messages; token
//! refusal.

use cryptoreg_registry::{Error, Features, HashImpl, HashState, HostFeatures};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::hash::{Poly1305Simd, Width};
use super::raw::scalar_tag;
use crate::poly1305::Poly1305Generic;
use crate::x86::token::{Avx2, Avx512, Avx512Ifma};

/// Every driver this CPU can run, by name.
pub(crate) fn drivers() -> Vec<(&'static str, Poly1305Simd)> {
    let host = HostFeatures::detect();
    let mut v = Vec::new();
    if let Ok(t) = Avx2::new(&host, "t") {
        v.push((
            "poly1305-avx2",
            Poly1305Simd::new("poly1305-avx2", Width::Avx2(t)),
        ));
    }
    if let Ok(t) = Avx512::new(&host, "t") {
        v.push((
            "poly1305-avx512",
            Poly1305Simd::new("poly1305-avx512", Width::Avx512(t)),
        ));
    }
    if let Ok(t) = Avx512Ifma::new(&host, "t") {
        v.push((
            "poly1305-avx512ifma",
            Poly1305Simd::new("poly1305-avx512ifma", Width::Avx512Ifma(t)),
        ));
    }
    assert!(
        !v.is_empty() || !std::is_x86_feature_detected!("avx2"),
        "an AVX2 host must run at least poly1305-avx2"
    );
    v
}

fn digest(d: &dyn HashImpl, msg: &[u8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    d.digest(msg, &mut out);
    out
}

/// Lengths that favour the thresholds and vector boundaries: every length to 600, then a
/// random sample to 5000.
fn lengths(rng: &mut ChaCha8Rng) -> Vec<usize> {
    let mut v: Vec<usize> = (0..=600).collect();
    v.extend((0..200).map(|_| rng.gen_range(600..5000)));
    v.extend([1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 4999]);
    v
}

/// `poly1305-generic`'s tag: the reference.
fn generic_tag(key: &[u8], msg: &[u8]) -> [u8; 16] {
    let mut g = Poly1305Generic::new();
    g.set_key(key).unwrap();
    digest(&g, msg)
}

#[test]
fn standard_vectors_every_driver() {
    let set = cryptoreg_selftest::VectorSet::embedded();
    let vs = set.get_hash("poly1305").expect("poly1305 vectors");
    assert!(vs.len() >= 12, "RFC 8439 2.5.2 and A.3 #1-#11");
    for (name, mut d) in drivers() {
        for v in vs {
            d.set_key(&v.key).unwrap();
            assert_eq!(
                digest(&d, &v.message).to_vec(),
                v.digest,
                "{name}: {}",
                v.source
            );
            let mut st = d.init();
            for b in &v.message {
                st.update(std::slice::from_ref(b));
            }
            let mut out = [0u8; 16];
            st.finalize(&mut out);
            assert_eq!(out.to_vec(), v.digest, "{name}: {} byte by byte", v.source);
            // Long enough for the vector path: the message repeated, against the generic
            // driver.
            let long: Vec<u8> = v
                .message
                .iter()
                .copied()
                .cycle()
                .take(16 * 40 + 5)
                .collect();
            if !long.is_empty() {
                assert_eq!(
                    digest(&d, &long),
                    generic_tag(&v.key, &long),
                    "{name}: {} x40",
                    v.source
                );
            }
        }
    }
}

#[test]
fn digest_matches_generic() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x9011_0306);
    for (name, mut d) in drivers() {
        for len in lengths(&mut rng) {
            let mut key = [0u8; 32];
            rng.fill_bytes(&mut key);
            let mut msg = vec![0u8; len];
            rng.fill_bytes(&mut msg);
            d.set_key(&key).unwrap();
            assert_eq!(
                digest(&d, &msg),
                generic_tag(&key, &msg),
                "{name} len={len}"
            );
        }
    }
}

#[test]
fn digest_matches_the_scalar_path() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x9011_0305);
    for (name, mut d) in drivers() {
        for len in lengths(&mut rng) {
            let mut key = [0u8; 32];
            rng.fill_bytes(&mut key);
            let mut msg = vec![0u8; len];
            rng.fill_bytes(&mut msg);
            d.set_key(&key).unwrap();
            assert_eq!(digest(&d, &msg), scalar_tag(&key, &msg), "{name} len={len}");
        }
    }
}

/// All-ones keys and messages drive every limb to its bound (the worst case of the lazy
/// carries), and h close to p exercises the final reduction.
#[test]
fn carry_heavy_inputs_match_the_scalar_path() {
    let keys = [[0xffu8; 32], {
        let mut k = [0xffu8; 32];
        k[16..].fill(0);
        k
    }];
    for (name, mut d) in drivers() {
        for key in &keys {
            d.set_key(key).unwrap();
            for len in [0, 16, 64, 128, 255, 256, 257, 512, 1024, 4096] {
                for fill in [0xffu8, 0x00, 0xfe] {
                    let msg = vec![fill; len];
                    assert_eq!(
                        digest(&d, &msg),
                        scalar_tag(key, &msg),
                        "{name} len={len} fill={fill:#x}"
                    );
                }
            }
        }
    }
}

#[test]
fn streaming_splits_finup_and_export_import() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5717_7ea3);
    for (name, mut d) in drivers() {
        for _ in 0..300 {
            let len = if rng.gen_bool(0.5) {
                rng.gen_range(0..600)
            } else {
                rng.gen_range(0..5000)
            };
            let mut key = [0u8; 32];
            rng.fill_bytes(&mut key);
            let mut msg = vec![0u8; len];
            rng.fill_bytes(&mut msg);
            d.set_key(&key).unwrap();
            let want = generic_tag(&key, &msg);
            let mut generic = Poly1305Generic::new();
            generic.set_key(&key).unwrap();

            let mut st: Box<dyn HashState> = d.init();
            let mut rest = &msg[..];
            let finup = rng.gen_bool(0.5);
            loop {
                let n = rng.gen_range(0..=rest.len().min(700));
                st.update(&rest[..n]);
                rest = &rest[n..];
                if rng.gen_bool(0.3) {
                    // Export, then continue in a fresh state of the same driver, or
                    // through a state of the generic driver and back: same bytes.
                    let bytes = st.export();
                    let mut fresh = d.init();
                    if rng.gen_bool(0.5) {
                        let mut g = generic.init();
                        g.import(&bytes).unwrap();
                        g.update(&[]);
                        fresh.import(&g.export()).unwrap();
                    } else {
                        fresh.import(&bytes).unwrap();
                    }
                    st = fresh;
                }
                if rest.is_empty() || (finup && rng.gen_bool(0.2)) {
                    break;
                }
            }
            let mut out = [0u8; 16];
            if finup {
                st.finup(rest, &mut out);
            } else {
                st.finalize(&mut out);
            }
            assert_eq!(out, want, "{name} len={len} finup={finup}");
        }
    }
}

#[test]
fn drivers_export_the_same_state() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut key = [0u8; 32];
    rng.fill_bytes(&mut key);
    let mut msg = vec![0u8; 3001];
    rng.fill_bytes(&mut msg);
    let mut g = Poly1305Generic::new();
    g.set_key(&key).unwrap();
    let mut st = g.init();
    st.update(&msg);
    let mut exports = vec![("poly1305-generic", st.export().to_vec())];
    for (name, mut d) in drivers() {
        d.set_key(&key).unwrap();
        let mut st = d.init();
        st.update(&msg);
        exports.push((name, st.export().to_vec()));
    }
    for w in exports.windows(2) {
        assert_eq!(w[0].1, w[1].1, "{} vs {}", w[0].0, w[1].0);
    }
}

#[test]
fn bad_keys_and_states_are_errors() {
    for (name, mut d) in drivers() {
        for len in [0, 16, 31, 33, 64] {
            assert!(
                matches!(
                    d.set_key(&vec![1; len]),
                    Err(Error::InvalidKeyLength { .. })
                ),
                "{name} key len {len}"
            );
        }
        d.set_key(&[3; 32]).unwrap();
        let mut st = d.init();
        assert!(st.import(&[0; 36]).is_err(), "{name}: short state");
        let mut bad = st.export().to_vec();
        bad[36] = 16;
        assert!(st.import(&bad).is_err(), "{name}: 16 buffered bytes");
        let mut bad = st.export().to_vec();
        bad[3] = 0x04; // limb 0 = 2^26
        assert!(st.import(&bad).is_err(), "{name}: a limb over 26 bits");
    }
}

#[test]
fn tokens_refuse_a_masked_feature() {
    let host = HostFeatures::detect();
    for (features, which) in [
        (Avx2::FEATURES, 0),
        (Avx512::FEATURES, 1),
        (Avx512Ifma::FEATURES, 2),
    ] {
        for &f in features {
            let masked = host.without(Features::of(&[f]));
            let r = match which {
                0 => Avx2::new(&masked, "t").map(|_| ()),
                1 => Avx512::new(&masked, "t").map(|_| ()),
                _ => Avx512Ifma::new(&masked, "t").map(|_| ()),
            };
            assert!(
                matches!(r, Err(Error::Unsupported { .. })),
                "{f} masked: {r:?}"
            );
        }
    }
}
