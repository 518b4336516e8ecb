//! The `*-aes-ce` drivers against plain ECB/CBC/CTR/XTS over `aes-generic` on random
//! keys, lengths and splits (one-shot, in place through `start` + pieces + tail, and out
//! of place through the `*_to` methods), plus `aes-ce` against `aes-generic` and the
//! standards' vectors. Skipped (with a line saying so) on a CPU without AES.

use cryptoreg_registry::{BlockCipherImpl, HostFeatures, SkcipherImpl};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use super::{cbc, cipher, ctr, ecb, xts};
use crate::aes::xts_rules::gf128_mul_x_ble;
use crate::aes::AesGeneric;
use crate::testing::vectors as test_vectors;

fn generic(key: &[u8]) -> AesGeneric {
    let mut c = AesGeneric::new();
    c.set_key(key).unwrap();
    c
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Ecb,
    Cbc,
    Ctr,
    Xts,
}

/// The mode over `aes-generic`, block by block.
fn reference(mode: Mode, key: &[u8], iv: &[u8; 16], data: &mut [u8], decrypt: bool) {
    match mode {
        Mode::Ecb => {
            let c = generic(key);
            for b in data.chunks_mut(16) {
                if decrypt {
                    c.decrypt_blocks(b)
                } else {
                    c.encrypt_blocks(b)
                }
            }
        }
        Mode::Cbc => {
            let c = generic(key);
            let mut prev = *iv;
            for b in data.chunks_mut(16) {
                if decrypt {
                    let ct: [u8; 16] = b.try_into().unwrap();
                    c.decrypt_blocks(b);
                    b.iter_mut().zip(prev).for_each(|(x, p)| *x ^= p);
                    prev = ct;
                } else {
                    b.iter_mut().zip(prev).for_each(|(x, p)| *x ^= p);
                    c.encrypt_blocks(b);
                    prev = b.try_into().unwrap();
                }
            }
        }
        Mode::Ctr => {
            let c = generic(key);
            let mut n = u128::from_be_bytes(*iv);
            for chunk in data.chunks_mut(16) {
                let mut ks = n.to_be_bytes();
                c.encrypt_blocks(&mut ks);
                chunk.iter_mut().zip(ks).for_each(|(b, k)| *b ^= k);
                n = n.wrapping_add(1);
            }
        }
        Mode::Xts => ref_xts(key, iv, data, decrypt),
    }
}

/// IEEE 1619 XTS over `aes-generic`, with ciphertext stealing.
fn ref_xts(key: &[u8], iv: &[u8; 16], data: &mut [u8], decrypt: bool) {
    let (k1, k2) = key.split_at(key.len() / 2);
    let (c1, c2) = (generic(k1), generic(k2));
    let mut t = *iv;
    c2.encrypt_blocks(&mut t);
    let crypt = |blk: &mut [u8], t: &[u8; 16]| {
        blk.iter_mut().zip(t).for_each(|(b, x)| *b ^= x);
        if decrypt {
            c1.decrypt_blocks(blk)
        } else {
            c1.encrypt_blocks(blk)
        }
        blk.iter_mut().zip(t).for_each(|(b, x)| *b ^= x);
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

type Make = fn(&HostFeatures) -> cryptoreg_registry::Result<Box<dyn SkcipherImpl>>;

const DRIVERS: [(Mode, &str, Make); 4] = [
    (Mode::Ecb, "ecb-aes-ce", ecb::new_ecb),
    (Mode::Cbc, "cbc-aes-ce", cbc::new_cbc),
    (Mode::Ctr, "ctr-aes-ce", ctr::new_ctr),
    (Mode::Xts, "xts-aes-ce", xts::new_xts),
];

/// The drivers this CPU runs, or none (printed) without AES.
fn drivers() -> Vec<(Mode, &'static str, Box<dyn SkcipherImpl>)> {
    let host = HostFeatures::detect();
    let mut out = Vec::new();
    for (mode, name, make) in DRIVERS {
        match make(&host) {
            Ok(d) => out.push((mode, name, d)),
            Err(e) => eprintln!("SKIPPED {name}: {e}"),
        }
    }
    out
}

fn key_len(mode: Mode, rng: &mut ChaCha20Rng) -> usize {
    let base = [16, 24, 32][rng.gen_range(0..3)];
    if mode == Mode::Xts {
        2 * base
    } else {
        base
    }
}

fn length(mode: Mode, rng: &mut ChaCha20Rng) -> usize {
    let len = match rng.gen_range(0..4) {
        0 => rng.gen_range(0..80),
        1 => 16 * rng.gen_range(0..20),
        2 => 16 * rng.gen_range(1..20) + rng.gen_range(0..16),
        _ => rng.gen_range(0..2000),
    };
    match mode {
        Mode::Ecb | Mode::Cbc => len / 16 * 16,
        Mode::Xts => len.max(16),
        Mode::Ctr => len,
    }
}

/// Runs a request through `start` + random whole-block pieces + the tail, in place or
/// out of place, as the segment walker does.
fn by_pieces(
    d: &dyn SkcipherImpl,
    iv: &[u8],
    data: &[u8],
    decrypt: bool,
    split: bool,
    rng: &mut ChaCha20Rng,
) -> Vec<u8> {
    let tail = d.tail_len(data.len()).unwrap();
    let mut st = [0u8; 16];
    d.start(iv, &mut st).unwrap();
    let mut out = vec![0u8; data.len()];
    if !split {
        out.copy_from_slice(data);
    }
    let body = data.len() - tail;
    let mut off = 0;
    while off < body {
        let n = (16 * rng.gen_range(1..12)).min(body - off);
        let (src, dst) = (&data[off..off + n], &mut out[off..off + n]);
        match (split, decrypt) {
            (true, false) => d.encrypt_blocks_to(&mut st, src, dst),
            (true, true) => d.decrypt_blocks_to(&mut st, src, dst),
            (false, false) => d.encrypt_blocks(&mut st, dst),
            (false, true) => d.decrypt_blocks(&mut st, dst),
        }
        off += n;
    }
    let (src, dst) = (&data[body..], &mut out[body..]);
    match (split, decrypt) {
        (true, false) => d.encrypt_tail_to(&mut st, src, dst),
        (true, true) => d.decrypt_tail_to(&mut st, src, dst),
        (false, false) => d.encrypt_tail(&mut st, dst),
        (false, true) => d.decrypt_tail(&mut st, dst),
    }
    out
}

#[test]
fn modes_match_generic_on_random_lengths_and_splits() {
    let mut rng = ChaCha20Rng::seed_from_u64(0xce);
    for (mode, name, mut d) in drivers() {
        for round in 0..150 {
            let klen = key_len(mode, &mut rng);
            let mut key: Vec<u8> = (0..klen).map(|_| rng.gen()).collect();
            if mode == Mode::Xts && key[..klen / 2] == key[klen / 2..] {
                key[0] ^= 1;
            }
            d.set_key(&key).unwrap();
            let len = length(mode, &mut rng);
            let mut iv: [u8; 16] = rng.gen();
            if mode == Mode::Ctr && round % 5 == 0 {
                // Counters about to carry across bytes and wrap.
                iv[8..].fill(0xff);
                if round % 10 == 0 {
                    iv.fill(0xff);
                }
            }
            let pt: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let mut want = pt.clone();
            reference(mode, &key, &iv, &mut want, false);
            let what = format!("{name} klen={klen} len={len} round={round}");

            let mut got = pt.clone();
            d.encrypt(&iv, &mut got).unwrap();
            assert_eq!(got, want, "one-shot encrypt {what}");
            d.decrypt(&iv, &mut got).unwrap();
            assert_eq!(got, pt, "one-shot decrypt {what}");

            for split in [false, true] {
                let c = by_pieces(&*d, &iv, &pt, false, split, &mut rng);
                assert_eq!(c, want, "pieces encrypt split={split} {what}");
                let p = by_pieces(&*d, &iv, &want, true, split, &mut rng);
                assert_eq!(p, pt, "pieces decrypt split={split} {what}");
            }
        }
    }
}

/// The IV update rules: after whole blocks the chaining state is the last ciphertext
/// block (CBC), the advanced counter (CTR), or the next tweak (XTS) — checked by
/// continuing a request in a second call, which only works if the state is right.
#[test]
fn chaining_state_continues_a_request() {
    let mut rng = ChaCha20Rng::seed_from_u64(0xc0);
    for (mode, name, mut d) in drivers() {
        let klen = if mode == Mode::Xts { 64 } else { 32 };
        let key: Vec<u8> = (0..klen as u8).map(|i| i.wrapping_mul(29) ^ 0x5c).collect();
        d.set_key(&key).unwrap();
        let iv: [u8; 16] = rng.gen();
        let pt: Vec<u8> = (0..16 * 13).map(|_| rng.gen()).collect();
        let mut want = pt.clone();
        reference(mode, &key, &iv, &mut want, false);
        let mut st = [0u8; 16];
        d.start(&iv, &mut st).unwrap();
        let mut got = pt.clone();
        let (a, b) = got.split_at_mut(16 * 5);
        d.encrypt_blocks(&mut st, a);
        if mode == Mode::Cbc {
            assert_eq!(st[..], a[a.len() - 16..], "{name}: CBC state");
        }
        if mode == Mode::Ctr {
            let next = u128::from_be_bytes(iv).wrapping_add(5);
            assert_eq!(st, next.to_be_bytes(), "{name}: CTR state");
        }
        d.encrypt_blocks(&mut st, b);
        assert_eq!(got, want, "{name}: continued request");
    }
}

#[test]
fn bad_requests_are_errors() {
    for (mode, name, mut d) in drivers() {
        let klen = if mode == Mode::Xts { 64 } else { 16 };
        let key: Vec<u8> = (1..=klen as u8).collect();
        d.set_key(&key).unwrap();
        assert!(d.set_key(&[0u8; 20]).is_err(), "{name} key 20");
        d.set_key(&key).unwrap();
        let iv = [0u8; 16];
        match mode {
            Mode::Ecb | Mode::Cbc => assert!(d.encrypt(&iv, &mut [0u8; 17]).is_err(), "{name}"),
            Mode::Xts => {
                assert!(d.encrypt(&iv, &mut [0u8; 15]).is_err(), "{name}");
                assert!(d.set_key(&[3u8; 64]).is_err(), "{name}: equal halves");
            }
            Mode::Ctr => assert!(d.encrypt(&iv, &mut [0u8; 5]).is_ok(), "{name}"),
        }
        if mode != Mode::Ecb {
            let mut d2 =
                DRIVERS.iter().find(|x| x.1 == name).unwrap().2(&HostFeatures::detect()).unwrap();
            d2.set_key(&key).unwrap();
            assert!(
                d2.encrypt(&[0u8; 12], &mut [0u8; 32]).is_err(),
                "{name}: IV 12"
            );
        }
    }
}

#[test]
fn modes_pass_the_standard_vectors() {
    let mut ran = 0;
    for (mode, name, mut d) in drivers() {
        let alg = match mode {
            Mode::Ecb => "ecb(aes)",
            Mode::Cbc => "cbc(aes)",
            Mode::Ctr => "ctr(aes)",
            Mode::Xts => "xts(aes)",
        };
        for v in test_vectors::ok(alg, 1) {
            d.set_key(&v.key).unwrap();
            let mut buf = v.plaintext.clone();
            d.encrypt(&v.iv, &mut buf).unwrap();
            assert_eq!(buf, v.ciphertext, "{name} {}", v.source);
            d.decrypt(&v.iv, &mut buf).unwrap();
            assert_eq!(buf, v.plaintext, "{name} {} decrypt", v.source);
            ran += 1;
        }
        for v in test_vectors::refused(alg, 0) {
            test_vectors::check_refused(&mut *d, &v);
        }
    }
    eprintln!("modes_pass_the_standard_vectors: {ran} vectors");
}

#[test]
fn aes_ce_matches_generic_and_fips197() {
    let Ok(mut d) = cipher::new_aes_ce(&HostFeatures::detect()) else {
        eprintln!("SKIPPED aes-ce: no AES on this CPU");
        return;
    };
    let mut rng = ChaCha20Rng::seed_from_u64(0xa5);
    for klen in [16, 24, 32] {
        for _ in 0..20 {
            let key: Vec<u8> = (0..klen).map(|_| rng.gen()).collect();
            d.set_key(&key).unwrap();
            let g = generic(&key);
            let n = rng.gen_range(1..12);
            let pt: Vec<u8> = (0..16 * n).map(|_| rng.gen()).collect();
            let (mut a, mut b) = (pt.clone(), pt.clone());
            d.encrypt_blocks(&mut a);
            g.encrypt_blocks(&mut b);
            assert_eq!(a, b, "aes-ce encrypt klen={klen}");
            d.decrypt_blocks(&mut a);
            assert_eq!(a, pt, "aes-ce decrypt klen={klen}");
        }
    }
    // FIPS-197 Appendix C.1 (AES-128).
    d.set_key(&hex::decode("000102030405060708090a0b0c0d0e0f").unwrap())
        .unwrap();
    let mut b = hex::decode("00112233445566778899aabbccddeeff").unwrap();
    d.encrypt_blocks(&mut b);
    assert_eq!(hex::encode(&b), "69c4e0d86a7b0430d8cdb78070b4c55a");
}
