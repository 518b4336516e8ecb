//! Out-of-place requests (the walker's `*_blocks_to` / `*_tail_to` calls, which the SIMD
//! drivers override to read the source and write the destination in one pass) against
//! in-place requests and a plain reference over `aes-generic`, for every AES-NI mode
//! driver and every VAES driver this CPU runs: both directions, lengths 0..600 and 4096,
//! 4111, 65536 (XTS ciphertext stealing included), the source left unmodified, every
//! destination byte written (the destination starts as junk).

use cryptoreg_registry::{BlockCipherImpl, HostFeatures, SkcipherImpl};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use super::aesni::{cbc::new_cbc, ctr::new_ctr, ecb::new_ecb, xts::new_xts};
use super::vaes::tests::{ctr_driver, generic, ref_ctr, ref_xts, runnable, xts_driver};

/// The mode a driver implements, which picks the reference and the key sizes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Ecb,
    Cbc,
    Ctr,
    Xts,
}

impl Mode {
    fn key_lens(self) -> &'static [usize] {
        match self {
            Mode::Xts => &[32, 48, 64],
            _ => &[16, 24, 32],
        }
    }
}

/// Every driver under test: the four AES-NI mode drivers and the VAES ones this CPU runs.
fn drivers() -> Vec<(String, Mode, Box<dyn SkcipherImpl>)> {
    let host = HostFeatures::detect();
    let mut out: Vec<(String, Mode, Box<dyn SkcipherImpl>)> = vec![
        ("ecb-aes-aesni".into(), Mode::Ecb, new_ecb(&host).unwrap()),
        ("cbc-aes-aesni".into(), Mode::Cbc, new_cbc(&host).unwrap()),
        ("ctr-aes-aesni".into(), Mode::Ctr, new_ctr(&host).unwrap()),
        ("xts-aes-aesni".into(), Mode::Xts, new_xts(&host).unwrap()),
    ];
    for (w, name) in runnable("out_of_place") {
        out.push((
            format!("xts-aes-vaes-{name}"),
            Mode::Xts,
            Box::new(xts_driver(w)),
        ));
        out.push((
            format!("ctr-aes-vaes-{name}"),
            Mode::Ctr,
            Box::new(ctr_driver(w)),
        ));
    }
    out
}

/// Whether `len` is a valid request length for `mode`.
fn valid(mode: Mode, len: usize) -> bool {
    match mode {
        Mode::Ecb | Mode::Cbc => len.is_multiple_of(16),
        Mode::Ctr => true,
        Mode::Xts => len >= 16,
    }
}

/// The mode over `aes-generic`, written plainly.
fn reference(mode: Mode, key: &[u8], iv: &[u8; 16], data: &mut [u8], decrypt: bool) {
    match mode {
        Mode::Ecb => {
            let c = generic(key);
            if decrypt {
                c.decrypt_blocks(data)
            } else {
                c.encrypt_blocks(data)
            }
        }
        Mode::Cbc => {
            let c = generic(key);
            let mut prev = *iv;
            for block in data.chunks_exact_mut(16) {
                let this: [u8; 16] = block.try_into().unwrap();
                if decrypt {
                    c.decrypt_blocks(block);
                    block.iter_mut().zip(prev).for_each(|(b, p)| *b ^= p);
                    prev = this;
                } else {
                    block.iter_mut().zip(prev).for_each(|(b, p)| *b ^= p);
                    c.encrypt_blocks(block);
                    prev = block.try_into().unwrap();
                }
            }
        }
        Mode::Ctr => ref_ctr(key, iv, data),
        Mode::Xts => ref_xts(key, iv, data, decrypt),
    }
}

/// A key for `mode` of `len` bytes (XTS halves differ).
fn key(rng: &mut ChaCha20Rng, len: usize) -> Vec<u8> {
    loop {
        let k: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        if k[..len / 2] != k[len / 2..] {
            return k;
        }
    }
}

/// Junk that no correct output equals by chance, to see every destination byte written.
fn junk(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 131 + 7) as u8).collect()
}

/// One request out of place through the walker's calls: `start`, `*_blocks_to` over
/// pieces of the body (sizes from `pieces`, whole chunks), then `*_tail_to`.
fn out_of_place(
    drv: &dyn SkcipherImpl,
    iv: &[u8; 16],
    src: &[u8],
    dst: &mut [u8],
    decrypt: bool,
    mut pieces: impl FnMut() -> usize,
) {
    let len = src.len();
    let tail = drv.tail_len(len).unwrap();
    let mut state = [0u8; 16];
    drv.start(iv, &mut state).unwrap();
    let body = len - tail;
    let mut off = 0;
    while off < body {
        let n = (pieces() * 16).clamp(16, body - off);
        let (s, d) = (&src[off..off + n], &mut dst[off..off + n]);
        if decrypt {
            drv.decrypt_blocks_to(&mut state, s, d);
        } else {
            drv.encrypt_blocks_to(&mut state, s, d);
        }
        off += n;
    }
    let (s, d) = (&src[body..], &mut dst[body..]);
    if decrypt {
        drv.decrypt_tail_to(&mut state, s, d);
    } else {
        drv.encrypt_tail_to(&mut state, s, d);
    }
}

#[test]
fn out_of_place_matches_in_place_and_reference() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x00F_91ACE);
    let lengths: Vec<usize> = (0..600).chain([4096, 4111, 65536]).collect();
    let mut cases = 0usize;
    let mut names = Vec::new();
    for (name, mode, mut drv) in drivers() {
        names.push(name.clone());
        for (i, &len) in lengths.iter().enumerate() {
            if !valid(mode, len) {
                continue;
            }
            let klen = mode.key_lens()[i % 3];
            let k = key(&mut rng, klen);
            drv.set_key(&k).unwrap();
            let iv: [u8; 16] = rng.gen();
            let input: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let snapshot = input.clone();
            for decrypt in [false, true] {
                let ctx = format!("{name} klen={klen} len={len} dec={decrypt}");
                let mut want = input.clone();
                reference(mode, &k, &iv, &mut want, decrypt);

                let mut in_place = input.clone();
                if decrypt {
                    drv.decrypt(&iv, &mut in_place).unwrap();
                } else {
                    drv.encrypt(&iv, &mut in_place).unwrap();
                }
                assert_eq!(in_place, want, "{ctx}: in place vs reference");

                // One run for the body and one for the tail, as the walker hands over a
                // one-segment request.
                let mut dst = junk(len);
                out_of_place(&*drv, &iv, &input, &mut dst, decrypt, || usize::MAX / 32);
                assert_eq!(dst, want, "{ctx}: out of place vs reference");

                // The body in random pieces: the chaining state carries across `*_to` calls.
                let mut dst = junk(len);
                out_of_place(&*drv, &iv, &input, &mut dst, decrypt, || {
                    rng.gen_range(1..12)
                });
                assert_eq!(dst, want, "{ctx}: out of place in pieces vs reference");

                // The one-shot `encrypt_to`/`decrypt_to` a one-segment request takes.
                let mut dst = junk(len);
                if decrypt {
                    drv.decrypt_to(&iv, &input, &mut dst).unwrap();
                } else {
                    drv.encrypt_to(&iv, &input, &mut dst).unwrap();
                }
                assert_eq!(dst, want, "{ctx}: one-shot out of place vs reference");
                assert_eq!(input, snapshot, "{ctx}: source modified");
                cases += 1;
            }
        }
    }
    // The source is only ever borrowed shared; this checks the drivers' pointers do not
    // write through it regardless (the kernels take raw pointers).
    let src: Vec<u8> = (0..4111).map(|i| i as u8).collect();
    let copy = src.clone();
    for (name, mode, mut drv) in drivers() {
        let len = if mode == Mode::Ecb || mode == Mode::Cbc {
            4096
        } else {
            4111
        };
        drv.set_key(&key(&mut rng, mode.key_lens()[2])).unwrap();
        for decrypt in [false, true] {
            let mut dst = vec![0u8; len];
            out_of_place(&*drv, &[9; 16], &src[..len], &mut dst, decrypt, || 3);
            assert_eq!(src, copy, "{name} dec={decrypt}: source modified");
            assert_ne!(dst[..len], src[..len], "{name}: output equals input");
        }
    }
    eprintln!("out_of_place: {cases} cases over {names:?}");
    assert!(cases > 0 && names.len() >= 4);
}
