//! Bad input is an error value, never a panic: every public entry point of every cipher
//! and skcipher driver this host runs, fed wrong key, IV and data lengths, odd segment
//! lists (empty segments, one byte each, unequal source and destination lists) and
//! unkeyed handles. Each call must return `Ok` or an `Err`; the specific errors the
//! design names are asserted where the answer is fixed.

mod common;

use common::rung;

use std::panic::{catch_unwind, AssertUnwindSafe};

use cryptoreg::{Direction, Error};

const IV_LENS: &[usize] = &[0, 1, 8, 15, 17, 24, 32, 64];
const DATA_LENS: &[usize] = &[0, 1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 256];

/// Segment lists of `len` bytes: one piece, empty pieces around, one byte each, and an
/// uneven split.
fn layouts(len: usize) -> Vec<Vec<usize>> {
    let mut v = vec![vec![len], vec![0, len, 0], vec![1; len]];
    if len > 3 {
        v.push(vec![len / 3, 0, len - len / 3 - 1, 1]);
    }
    v
}

fn segments<'a>(data: &'a mut [u8], cuts: &[usize]) -> Vec<&'a mut [u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    for &c in cuts {
        let (a, b) = rest.split_at_mut(c);
        out.push(a);
        rest = b;
    }
    out
}

/// Runs `f`, turning a panic into a test failure that names the case.
fn no_panic<T>(what: &str, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(_) => panic!("panicked on {what}"),
    }
}

#[test]
fn skciphers_never_panic_on_bad_lengths() {
    let reg = common::boot("[selftest]\nmode = \"kat\"\n", None);
    // Template instances too: build the generic ones (and the AES-NI ones where they run).
    for name in [
        "ecb(aes-generic)",
        "cbc(aes-generic)",
        "ctr(aes-generic)",
        "xts(aes-generic)",
    ] {
        reg.resolve(name).unwrap();
    }
    let _ = reg.resolve(rung::XTS_INSTANCE);
    let drivers: Vec<String> = reg
        .list()
        .into_iter()
        .filter(|e| e.alg_type == "skcipher" && e.state == "passed")
        .map(|e| e.driver)
        .collect();
    assert!(
        drivers.iter().filter(|d| d.contains('(')).count() >= 4,
        "{drivers:?}"
    );
    for d in &drivers {
        let mut h = reg.alloc_skcipher(d).unwrap();
        let iv_size = h.iv_size();
        // Unkeyed: every operation is refused.
        let mut buf = [0u8; 32];
        assert_eq!(
            h.encrypt_in_place(&vec![0; iv_size], &mut buf),
            Err(Error::NoKey),
            "{d}"
        );
        for klen in 0..=80 {
            let key: Vec<u8> = (0..klen as u8).collect();
            let _ = no_panic(&format!("{d} set_key({klen})"), || h.set_key(&key));
        }
        let key: Vec<u8> = (0..h.info().sizes().max_key as u8).collect();
        h.set_key(&key).unwrap();
        for &ivl in IV_LENS.iter().chain([&iv_size]) {
            let iv = vec![7u8; ivl];
            for &len in DATA_LENS {
                for dir in [Direction::Encrypt, Direction::Decrypt] {
                    let what = format!("{d} {dir:?} iv={ivl} len={len}");
                    let mut data = vec![3u8; len];
                    let r = no_panic(&what, || match dir {
                        Direction::Encrypt => h.encrypt_in_place(&iv, &mut data),
                        Direction::Decrypt => h.decrypt_in_place(&iv, &mut data),
                    });
                    if ivl != iv_size {
                        assert!(
                            matches!(r, Err(Error::InvalidIvLength { .. })),
                            "{what}: {r:?}"
                        );
                    }
                    for cuts in layouts(len) {
                        let mut data = vec![3u8; len];
                        let mut segs = segments(&mut data, &cuts);
                        let r2 = no_panic(&what, || h.crypt_segments(dir, &iv, &mut segs));
                        assert_eq!(r2.is_ok(), r.is_ok(), "{what} segments {cuts:?}");
                        let src = vec![5u8; len];
                        let mut out = vec![0u8; len];
                        let mut dst = segments(&mut out, &cuts);
                        let r3 = no_panic(&what, || h.crypt_to(dir, &iv, &[&src[..]], &mut dst));
                        assert_eq!(r3.is_ok(), r.is_ok(), "{what} out of place {cuts:?}");
                        // One byte short or long on the destination side.
                        let mut short = vec![0u8; len.saturating_sub(1)];
                        if len > 0 {
                            let r4 = no_panic(&what, || {
                                h.crypt_to(dir, &iv, &[&src[..]], &mut [&mut short[..]])
                            });
                            assert!(
                                matches!(r4, Err(Error::LengthMismatch { .. })) || r4.is_err(),
                                "{what}: {r4:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn ciphers_never_panic_on_bad_lengths() {
    let reg = common::boot("[selftest]\nmode = \"kat\"\n", None);
    // Every cipher this CPU runs (another architecture's are listed but unsupported).
    let ciphers: Vec<_> = reg
        .list()
        .into_iter()
        .filter(|e| e.alg_type == "cipher" && e.state != "unsupported")
        .collect();
    assert!(ciphers.iter().any(|e| e.driver == "aes-generic"));
    for e in ciphers {
        let mut h = reg.alloc_cipher(&e.driver).unwrap();
        assert_eq!(h.encrypt_blocks(&mut [0u8; 16]), Err(Error::NoKey));
        for klen in 0..=40 {
            let key = vec![1u8; klen];
            let r = no_panic(&format!("{} set_key({klen})", e.driver), || h.set_key(&key));
            assert_eq!(
                r.is_ok(),
                [16, 24, 32].contains(&klen),
                "{} {klen}",
                e.driver
            );
        }
        h.set_key(&[1u8; 16]).unwrap();
        for &len in DATA_LENS {
            let mut data = vec![0u8; len];
            let r = no_panic(&e.driver, || h.encrypt_blocks(&mut data));
            assert_eq!(r.is_ok(), len % 16 == 0, "{} len {len}", e.driver);
        }
    }
}
