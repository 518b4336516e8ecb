//! Tests of the VAES drivers against a plain XTS/CTR over `aes-generic`, the standards'
//! vectors, and the split (`encrypt_blocks` + `encrypt_tail`) path against the one-shot
//! one. Only drivers this CPU can run are exercised; each test prints which ran and which
//! were skipped (the avx10 drivers on a CPU without AVX-512 are covered by
//! `cargo xtask emu` instead), and fails if not even the avx2 drivers could run on a CPU
//! that has their features.

use cryptoreg_registry::{BlockCipherImpl, SkcipherImpl};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use super::{CtrVaes, Width, XtsVaes};
use crate::aes::xts_rules::gf128_mul_x_ble;
use crate::aes::AesGeneric;
use crate::testing::vectors as test_vectors;
use crate::x86::token::{VaesAvx10, VaesAvx2};
use cryptoreg_registry::HostFeatures;

const WIDTHS: [&str; 3] = ["avx2", "avx10_256", "avx10_512"];

/// The width named `name` with its token, if this CPU proves its features.
pub(crate) fn width(name: &str) -> cryptoreg_registry::Result<Width> {
    let host = HostFeatures::detect();
    Ok(match name {
        "avx2" => Width::Avx2(VaesAvx2::new(&host, name)?),
        "avx10_256" => Width::Avx10_256(VaesAvx10::new(&host, name)?),
        _ => Width::Avx10_512(VaesAvx10::new(&host, name)?),
    })
}

/// The widths this CPU runs, printed (and the skipped ones named as skipped).
pub(crate) fn runnable(test: &str) -> Vec<(Width, &'static str)> {
    let mut ran = Vec::new();
    for name in WIDTHS {
        if let Ok(w) = width(name) {
            ran.push((w, name));
        } else {
            eprintln!("{test}: SKIPPED {name} (CPU lacks its features; see `cargo xtask emu`)");
        }
    }
    eprintln!(
        "{test}: ran {:?}",
        ran.iter().map(|(_, n)| *n).collect::<Vec<_>>()
    );
    ran
}

pub(crate) fn xts_driver(w: Width) -> XtsVaes {
    XtsVaes::new("xts-aes-vaes-test", w)
}

pub(crate) fn ctr_driver(w: Width) -> CtrVaes {
    CtrVaes::new("ctr-aes-vaes-test", w)
}

pub(crate) fn generic(key: &[u8]) -> AesGeneric {
    let mut c = AesGeneric::new();
    c.set_key(key).unwrap();
    c
}

/// IEEE 1619 XTS over `aes-generic`, block by block, with ciphertext stealing.
pub(crate) fn ref_xts(key: &[u8], iv: &[u8; 16], data: &mut [u8], decrypt: bool) {
    let (k1, k2) = key.split_at(key.len() / 2);
    let (c1, c2) = (generic(k1), generic(k2));
    let mut t = *iv;
    c2.encrypt_blocks(&mut t);
    let crypt = |blk: &mut [u8], t: &[u8; 16]| {
        for (b, x) in blk.iter_mut().zip(t) {
            *b ^= x;
        }
        if decrypt {
            c1.decrypt_blocks(blk)
        } else {
            c1.encrypt_blocks(blk)
        }
        for (b, x) in blk.iter_mut().zip(t) {
            *b ^= x;
        }
    };
    let r = data.len() % 16;
    let full = data.len() / 16 - usize::from(r != 0);
    for i in 0..full {
        crypt(&mut data[16 * i..16 * i + 16], &t);
        gf128_mul_x_ble(&mut t);
    }
    if r != 0 {
        let mut t2 = t;
        gf128_mul_x_ble(&mut t2);
        let (ta, tb) = if decrypt { (t2, t) } else { (t, t2) };
        let off = 16 * full;
        let mut cc: [u8; 16] = data[off..off + 16].try_into().unwrap();
        crypt(&mut cc, &ta);
        let mut pp = cc;
        pp[..r].copy_from_slice(&data[off + 16..]);
        data[off + 16..].copy_from_slice(&cc[..r]);
        crypt(&mut pp, &tb);
        data[off..off + 16].copy_from_slice(&pp);
    }
}

/// CTR over `aes-generic` with a 128-bit big-endian counter.
pub(crate) fn ref_ctr(key: &[u8], iv: &[u8; 16], data: &mut [u8]) {
    let c = generic(key);
    let mut ctr = u128::from_be_bytes(*iv);
    for chunk in data.chunks_mut(16) {
        let mut ks = ctr.to_be_bytes();
        c.encrypt_blocks(&mut ks);
        for (b, k) in chunk.iter_mut().zip(ks) {
            *b ^= k;
        }
        ctr = ctr.wrapping_add(1);
    }
}

fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (16..=300).collect();
    v.extend([
        511,
        512,
        513,
        1000,
        1023,
        1024,
        1025,
        4095,
        4096,
        4097,
        4111,
        8191,
        65536 + 7,
    ]);
    v
}

#[test]
fn xts_matches_generic_all_lengths_and_key_sizes() {
    let ran = runnable("xts_matches_generic");
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let mut cases = 0;
    for (w, name) in &ran {
        for klen in [32, 48, 64] {
            let key: Vec<u8> = (0..klen).map(|_| rng.gen()).collect();
            let mut drv = xts_driver(*w);
            drv.set_key(&key).unwrap();
            for len in lengths() {
                let iv: [u8; 16] = rng.gen();
                let pt: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                let mut want = pt.clone();
                ref_xts(&key, &iv, &mut want, false);
                let mut got = pt.clone();
                drv.encrypt(&iv, &mut got).unwrap();
                assert_eq!(got, want, "{name} xts enc klen={klen} len={len}");
                drv.decrypt(&iv, &mut got).unwrap();
                assert_eq!(got, pt, "{name} xts dec klen={klen} len={len}");
                let mut back = want.clone();
                ref_xts(&key, &iv, &mut back, true);
                assert_eq!(back, pt, "reference xts round trip len={len}");
                cases += 1;
            }
        }
    }
    eprintln!("xts_matches_generic: {cases} cases");
}

#[test]
fn ctr_matches_generic_all_lengths_and_key_sizes() {
    let ran = runnable("ctr_matches_generic");
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for (w, name) in &ran {
        for klen in [16, 24, 32] {
            let key: Vec<u8> = (0..klen).map(|_| rng.gen()).collect();
            let mut drv = ctr_driver(*w);
            drv.set_key(&key).unwrap();
            let mut all = lengths();
            all.extend(0..16);
            for len in all {
                let iv: [u8; 16] = rng.gen();
                let pt: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                let mut want = pt.clone();
                ref_ctr(&key, &iv, &mut want);
                let mut got = pt.clone();
                drv.encrypt(&iv, &mut got).unwrap();
                assert_eq!(got, want, "{name} ctr klen={klen} len={len}");
                drv.decrypt(&iv, &mut got).unwrap();
                assert_eq!(got, pt, "{name} ctr dec klen={klen} len={len}");
            }
        }
    }
}

#[test]
fn ctr_counter_carries_across_all_bytes() {
    let ran = runnable("ctr_counter_carries");
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let ivs: [[u8; 16]; 4] = [
        [0xff; 16],
        {
            let mut v = [0u8; 16];
            v[8..].fill(0xff);
            v[..8].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 0xff]);
            v
        },
        {
            let mut v = [0xffu8; 16];
            v[15] = 0xf0; // wraps 16 blocks in
            v
        },
        {
            let mut v = [0u8; 16];
            v[8..].fill(0xff);
            v[15] = 0xfa; // the low qword wraps inside a main-loop iteration
            v
        },
    ];
    for (w, name) in &ran {
        for klen in [16, 24, 32] {
            let key: Vec<u8> = (0..klen).map(|_| rng.gen()).collect();
            let mut drv = ctr_driver(*w);
            drv.set_key(&key).unwrap();
            for iv in &ivs {
                for len in [16, 17, 100, 256, 257, 1024, 1040] {
                    let pt: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                    let mut want = pt.clone();
                    ref_ctr(&key, iv, &mut want);
                    let mut got = pt.clone();
                    drv.encrypt(iv, &mut got).unwrap();
                    assert_eq!(got, want, "{name} ctr wrap iv={iv:02x?} len={len}");
                    // The chaining state after whole blocks is the advanced counter.
                    let mut state = [0u8; 16];
                    drv.start(iv, &mut state).unwrap();
                    let mut blocks = pt[..len / 16 * 16].to_vec();
                    drv.encrypt_blocks(&mut state, &mut blocks);
                    let next = u128::from_be_bytes(*iv).wrapping_add((len / 16) as u128);
                    assert_eq!(state, next.to_be_bytes(), "{name} counter state");
                }
            }
        }
    }
}

/// Feeds requests through `start` + `encrypt_blocks` pieces + `encrypt_tail`, as the
/// segment walker does, and compares with the one-shot call.
#[test]
fn split_path_matches_one_shot() {
    let ran = runnable("split_path");
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    for (w, name) in &ran {
        let xts_key: Vec<u8> = (0..64).map(|_| rng.gen()).collect();
        let ctr_key: Vec<u8> = (0..32).map(|_| rng.gen()).collect();
        let mut xts = xts_driver(*w);
        xts.set_key(&xts_key).unwrap();
        let mut ctr = ctr_driver(*w);
        ctr.set_key(&ctr_key).unwrap();
        let drivers: [&dyn SkcipherImpl; 2] = [&xts, &ctr];
        for _ in 0..300 {
            let len = rng.gen_range(16..3000);
            let iv: [u8; 16] = rng.gen();
            let pt: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            for (d, drv) in drivers.iter().enumerate() {
                for decrypt in [false, true] {
                    let mut one = pt.clone();
                    if decrypt {
                        drv.decrypt(&iv, &mut one).unwrap();
                    } else {
                        drv.encrypt(&iv, &mut one).unwrap();
                    }
                    let mut split = pt.clone();
                    let tail = drv.tail_len(len).unwrap();
                    let mut state = [0u8; 16];
                    drv.start(&iv, &mut state).unwrap();
                    let (body, rest) = split.split_at_mut(len - tail);
                    let mut off = 0;
                    while off < body.len() {
                        let piece = (rng.gen_range(0..20) * 16).min(body.len() - off);
                        let chunk = &mut body[off..off + piece];
                        if decrypt {
                            drv.decrypt_blocks(&mut state, chunk);
                        } else {
                            drv.encrypt_blocks(&mut state, chunk);
                        }
                        off += piece;
                    }
                    if decrypt {
                        drv.decrypt_tail(&mut state, rest);
                    } else {
                        drv.encrypt_tail(&mut state, rest);
                    }
                    assert_eq!(split, one, "{name} driver#{d} dec={decrypt} len={len}");
                }
            }
        }
    }
}

/// Every IEEE 1619-2007 vector of `selftest/vectors/xts_aes.toml` (18 known answers, with
/// ciphertext stealing and both key sizes; vector 1's equal halves refused), one-shot and
/// out of place, on every width this CPU runs.
#[test]
fn ieee1619_vectors() {
    let ran = runnable("ieee1619_vectors");
    let ok = test_vectors::ok("xts(aes)", 18);
    let refused = test_vectors::refused("xts(aes)", 1);
    for (w, name) in &ran {
        let mut drv = xts_driver(*w);
        for v in &ok {
            let what = format!("{name}: {}", v.source);
            drv.set_key(&v.key).unwrap();
            let mut buf = v.plaintext.clone();
            drv.encrypt(&v.iv, &mut buf).unwrap();
            assert_eq!(buf, v.ciphertext, "{what}: encrypt");
            drv.decrypt(&v.iv, &mut buf).unwrap();
            assert_eq!(buf, v.plaintext, "{what}: decrypt");
            let mut out = vec![0u8; v.plaintext.len()];
            drv.encrypt_to(&v.iv, &v.plaintext, &mut out).unwrap();
            assert_eq!(out, v.ciphertext, "{what}: encrypt_to");
        }
        for v in &refused {
            test_vectors::check_refused(&mut xts_driver(*w), v);
        }
    }
}

/// SP 800-38A F.5.1-F.5.6 and RFC 3686 vectors 3, 6, 9 from `selftest/vectors/ctr_aes.toml`
/// on every width this CPU runs.
#[test]
fn ctr_vectors() {
    let ran = runnable("ctr_vectors");
    let ok = test_vectors::ok("ctr(aes)", 6);
    for (w, name) in &ran {
        let mut drv = ctr_driver(*w);
        for v in &ok {
            drv.set_key(&v.key).unwrap();
            let mut buf = v.plaintext.clone();
            drv.encrypt(&v.iv, &mut buf).unwrap();
            assert_eq!(buf, v.ciphertext, "{name}: {}", v.source);
            drv.decrypt(&v.iv, &mut buf).unwrap();
            assert_eq!(buf, v.plaintext, "{name}: {}: decrypt", v.source);
        }
    }
}

#[test]
fn key_and_length_rules() {
    for (w, _) in runnable("key_and_length_rules") {
        let mut x = xts_driver(w);
        assert!(x.set_key(&[5u8; 64]).is_err(), "equal halves refused");
        assert!(x.set_key(&[5u8; 40]).is_err());
        let mut key = [5u8; 32];
        key[31] = 6;
        x.set_key(&key).unwrap();
        assert!(x.encrypt(&[0; 16], &mut [0u8; 15]).is_err());
        let mut c = ctr_driver(w);
        assert!(c.set_key(&[0u8; 20]).is_err());
        c.set_key(&[0u8; 24]).unwrap();
        c.encrypt(&[0; 16], &mut []).unwrap();
    }
}

/// A refused key leaves the schedules wiped, and a shorter key replacing a longer one
/// leaves none of its round keys behind (the schedules are expanded in place).
#[test]
fn set_key_wipes_the_old_schedule() {
    for (w, name) in runnable("set_key_wipes_the_old_schedule") {
        let long: Vec<u8> = (0..64u8).map(|b| b.wrapping_mul(37) | 1).collect();
        let mut x = xts_driver(w);
        for bad in [vec![7u8; 64], vec![1u8; 40]] {
            x.set_key(&long).unwrap();
            assert!(!x.data.is_wiped() && !x.tweak.is_wiped(), "{name}");
            assert!(x.set_key(&bad).is_err());
            assert!(x.data.is_wiped() && x.tweak.is_wiped(), "{name}");
        }
        x.set_key(&long).unwrap();
        x.set_key(&long[..32]).unwrap();
        let mut fresh = xts_driver(w);
        fresh.set_key(&long[..32]).unwrap();
        for (got, want) in [(&x.data, &fresh.data), (&x.tweak, &fresh.tweak)] {
            assert_eq!(
                (got.rounds, got.enc, got.dec),
                (10, want.enc, want.dec),
                "{name}"
            );
        }
        let mut c = ctr_driver(w);
        c.set_key(&long[..32]).unwrap();
        assert!(!c.keys.is_wiped());
        assert!(c.set_key(&long[..20]).is_err());
        assert!(c.keys.is_wiped(), "{name}");
    }
}

#[test]
fn avx2_runs_where_its_features_are() {
    // A CPU with VAES and VPCLMULQDQ must actually exercise at least the avx2 drivers.
    if width("avx2").is_ok() {
        assert!(!runnable("avx2_runs").is_empty());
    }
}
