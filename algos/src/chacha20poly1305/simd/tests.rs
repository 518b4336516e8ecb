//! Tests of the fused ChaCha20-Poly1305 drivers, for both algorithms they serve: the
//! RFC 8439 AEAD vectors (`rfc7539-*`) and draft-irtf-cfrg-xchacha-03's (`xchacha20poly1305-*`),
//! and every available driver against its algorithm's reference (the
//! `rfc7539(chacha20-generic,poly1305-generic)` template instance, `xchacha20poly1305-generic`)
//! over random AAD and text lengths (both sides of every chunk and threshold), one-shot
//! and streaming (random chunk runs, in place and out of place); tampered AAD, text or tag
//! must fail with `BadMessage` and leave no plaintext; refusals.

use std::sync::Arc;

use cryptoreg_registry::{
    inventory, AeadImpl, AeadLens, AeadState, AlgDef, Child, Error, Factory, HostFeatures, InOut,
};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Alg, ChaChaPolySimd, Width};
use crate::x86::token::{Avx2, Avx512, Avx512Ifma};

/// Both algorithms: the driver, its algorithm name and nonce length.
const ALGS: [(Alg, &str, usize); 2] = [
    (Alg::Rfc7539, "rfc7539(chacha20,poly1305)", 12),
    (Alg::XChaCha, "xchacha20poly1305", 24),
];

/// The drivers of `alg` this host runs, as the registry names them.
fn drivers(alg: Alg) -> Vec<(&'static str, ChaChaPolySimd)> {
    let host = HostFeatures::detect();
    let names = match alg {
        Alg::Rfc7539 => [
            "rfc7539-chacha20-poly1305-avx2",
            "rfc7539-chacha20-poly1305-avx512",
            "rfc7539-chacha20-poly1305-avx512ifma",
        ],
        Alg::XChaCha => [
            "xchacha20poly1305-avx2",
            "xchacha20poly1305-avx512",
            "xchacha20poly1305-avx512ifma",
        ],
    };
    let mut v = Vec::new();
    if let Ok(t) = Avx2::new(&host, "t") {
        v.push((
            names[0],
            ChaChaPolySimd::with_alg(names[0], Width::Avx2(t), alg),
        ));
    }
    if let Ok(t) = Avx512::new(&host, "t") {
        v.push((
            names[1],
            ChaChaPolySimd::with_alg(names[1], Width::Avx512(t), alg),
        ));
    }
    if let Ok(t) = Avx512Ifma::new(&host, "t") {
        v.push((
            names[2],
            ChaChaPolySimd::with_alg(names[2], Width::Avx512Ifma(t), alg),
        ));
    }
    assert!(
        !v.is_empty() || !std::is_x86_feature_detected!("avx2"),
        "an AVX2 host must run at least the avx2 driver"
    );
    assert!(
        !std::is_x86_feature_detected!("avx512ifma")
            || v.iter().any(|(n, _)| n.ends_with("-avx512ifma")),
        "an IFMA host must run the avx512ifma driver"
    );
    v
}

/// The reference of `alg`, keyed: `xchacha20poly1305-generic`, or ...
fn reference_of(alg: Alg, key: &[u8]) -> Box<dyn AeadImpl> {
    match alg {
        Alg::Rfc7539 => reference(key),
        Alg::XChaCha => {
            let mut a = crate::chacha20poly1305::xchacha20poly1305::XChaCha20Poly1305Generic::new();
            a.set_key(key).unwrap();
            Box::new(a)
        }
    }
}

/// ... the `rfc7539` template instance over the generic children.
fn reference(key: &[u8]) -> Box<dyn AeadImpl> {
    let child = |driver: &str| {
        let info = inventory::iter::<AlgDef>
            .into_iter()
            .find(|d| d.driver() == driver)
            .unwrap_or_else(|| panic!("{driver} is registered"))
            .to_info();
        Child::new(Arc::new(info), 100)
    };
    let inst =
        crate::templates::rfc7539::create(&[child("chacha20-generic"), child("poly1305-generic")])
            .unwrap();
    let Factory::Aead(f) = inst.factory() else {
        panic!("not an AEAD")
    };
    let mut a = f(&HostFeatures::detect()).unwrap();
    a.set_key(key).unwrap();
    a
}

/// A random key, nonce, AAD and text of the given sizes.
fn random_request(
    rng: &mut ChaCha8Rng,
    nonce_len: usize,
    alen: usize,
    tlen: usize,
) -> ([u8; 32], Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut key = [0u8; 32];
    rng.fill_bytes(&mut key);
    let mut fill = |n: usize| {
        let mut v = vec![0u8; n];
        rng.fill_bytes(&mut v);
        v
    };
    let nonce = fill(nonce_len);
    let aad = fill(alen);
    (key, nonce, aad, fill(tlen))
}

/// A request started for `aad_len` bytes of AAD and `text_len` of text with a 16-byte tag.
fn started(d: &dyn AeadImpl, nonce: &[u8], aad_len: usize, text_len: usize) -> AeadState {
    let mut st = AeadState::new();
    let lens = AeadLens {
        aad: aad_len,
        text: text_len,
        authsize: 16,
    };
    d.start(&mut st, nonce, lens).unwrap();
    st
}

/// One streaming text call over `piece` (whole chunks, or the tail), in place or out of
/// place (then from a copy of `piece` into it).
fn text_call(
    d: &dyn AeadImpl,
    st: &mut AeadState,
    piece: &mut [u8],
    encrypt: bool,
    tail: bool,
    out_of_place: bool,
) {
    let src = piece.to_vec();
    let io = if out_of_place {
        InOut::Split {
            src: &src,
            dst: piece,
        }
    } else {
        InOut::InPlace(piece)
    };
    match (encrypt, tail) {
        (true, false) => d.encrypt_chunks(st, io),
        (false, false) => d.decrypt_chunks(st, io),
        (true, true) => d.encrypt_tail(st, io),
        (false, true) => d.decrypt_tail(st, io),
    }
}

/// The request through the streaming calls, as the walker makes them: AAD in runs of
/// whole 16-byte chunks then the tail, text in runs of whole 64-byte chunks then the
/// tail, each run in place or out of place.
fn streaming(
    d: &dyn AeadImpl,
    nonce: &[u8],
    aad: &[u8],
    data: &mut [u8],
    encrypt: bool,
    rng: &mut ChaCha8Rng,
) -> [u8; 16] {
    let mut st = started(d, nonce, aad.len(), data.len());
    let whole_aad = aad.len() - aad.len() % 16;
    let mut at = 0;
    while at < whole_aad {
        let n = 16 * rng.gen_range(1..=(whole_aad - at) / 16);
        d.absorb_aad(&mut st, &aad[at..at + n]);
        at += n;
    }
    d.absorb_aad_tail(&mut st, &aad[whole_aad..]);
    let whole = data.len() - data.len() % 64;
    let mut at = 0;
    while at < whole {
        let n = 64 * rng.gen_range(1..=(whole - at) / 64);
        let oop = rng.gen_bool(0.5);
        text_call(d, &mut st, &mut data[at..at + n], encrypt, false, oop);
        at += n;
    }
    let oop = rng.gen_bool(0.5);
    text_call(d, &mut st, &mut data[whole..], encrypt, true, oop);
    let mut tag = [0u8; 16];
    d.finish(&mut st, &mut tag);
    tag
}

fn lengths(rng: &mut ChaCha8Rng) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for t in [
        0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 256, 257, 511, 512, 513,
        1023, 1024, 1025, 2048, 4100,
        // Several whole batches, exact multiples of both widths and not: the steady-state
        // batches (`fused::Steady`) with 6, 7 and 8 groups queued, five or more in a row.
        3072, 4096, 5120, 6209,
        // A whole batch, then a tail on each kernel the stitched tail can take: the zmm
        // vertical batch (over 512 bytes), the ymm one (257 to 512), horizontal (up to 256).
        1624, 1324, 1124, 3772,
        // Around the whole seal's first batch (key block + 7 or 15 text blocks) and one
        // batch after it: ymm 448, zmm 960, 960 + 1024.
        447, 448, 449, 959, 960, 961, 1983, 1984, 1985, 1472, 1473,
        // The end of `-avx512ifma`'s run on the radix-2^26 entries (`RADIX26_TEXTS`).
        1215, 1216, 1217,
        // Where an open (2048), a whole seal (3008) and a streaming seal (3072) first queue
        // a full zmm batch of ciphertext before a full batch; two in a row (6144 and up).
        2047, 2049, 3007, 3008, 3009, 3071, 3073, 6144,
        // The short path's key block and text in one keyed entry call (up to 704 bytes of
        // text on zmm, 448 on ymm), on each of the ChaCha20 core's row kernels (5 to 12
        // blocks).
        191, 192, 193, 319, 320, 321, 383, 384, 385, 575, 576, 577, 703, 704, 705, 767, 768, 769,
    ] {
        for a in [0, 1, 12, 16, 255, 256, 300] {
            v.push((a, t));
        }
    }
    v.extend((0..150).map(|_| (rng.gen_range(0..600), rng.gen_range(0..5000))));
    v
}

/// The request through the streaming calls with the text's whole 64-byte chunks in ONE
/// run (then the tail): the non-keyed fused path over several whole batches in a row
/// (its first batch computes the powers of `r`, the next ones run `fused::Steady`), which
/// the random run splits of [`streaming`] reach only by chance.
fn one_run(
    d: &dyn AeadImpl,
    nonce: &[u8],
    aad: &[u8],
    data: &mut [u8],
    encrypt: bool,
    out_of_place: bool,
) -> [u8; 16] {
    let mut st = started(d, nonce, aad.len(), data.len());
    let whole_aad = aad.len() - aad.len() % 16;
    d.absorb_aad(&mut st, &aad[..whole_aad]);
    d.absorb_aad_tail(&mut st, &aad[whole_aad..]);
    let whole = data.len() - data.len() % 64;
    let (chunks, tail) = data.split_at_mut(whole);
    text_call(d, &mut st, chunks, encrypt, false, out_of_place);
    text_call(d, &mut st, tail, encrypt, true, out_of_place);
    let mut tag = [0u8; 16];
    d.finish(&mut st, &mut tag);
    tag
}

/// Several whole batches streamed in one run, both directions, in place and out of place,
/// against the reference: 2, 3 and 6 zmm batches (4, 6 and 12 ymm ones), with and
/// without a tail, with short and long AAD (a long AAD hands the text calls the powers).
#[test]
fn whole_batches_in_one_streamed_run_match_the_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x57ead);
    for (alg, _, nonce_len) in ALGS {
        for (name, mut d) in drivers(alg) {
            for tlen in [2048, 2048 + 100, 3072, 3072 + 64, 6144, 6144 + 65] {
                for alen in [13, 300] {
                    for oop in [false, true] {
                        let (key, nonce, aad, pt) = random_request(&mut rng, nonce_len, alen, tlen);
                        d.set_key(&key).unwrap();
                        let mut want = pt.clone();
                        let mut want_tag = [0u8; 16];
                        reference_of(alg, &key)
                            .seal(&nonce, &aad, &mut want, &mut want_tag)
                            .unwrap();
                        let what = format!("{name} alen={alen} tlen={tlen} oop={oop}");
                        let mut ct = pt.clone();
                        let tag = one_run(&d, &nonce, &aad, &mut ct, true, oop);
                        assert_eq!((&ct, tag), (&want, want_tag), "{what} encrypt");
                        let tag = one_run(&d, &nonce, &aad, &mut ct, false, oop);
                        assert_eq!((&ct, tag), (&pt, want_tag), "{what} decrypt");
                    }
                }
            }
        }
    }
}

/// RFC 8439's vectors for `rfc7539`, draft-irtf-cfrg-xchacha-03's for `xchacha20poly1305`
/// (the self-test files), through every driver of the algorithm.
#[test]
fn standard_vectors_every_driver() {
    let set = cryptoreg_selftest::VectorSet::embedded();
    for (alg, algorithm, _) in ALGS {
        let vs = set.get_aead(algorithm).expect("AEAD vectors");
        assert!(!vs.is_empty(), "{algorithm}");
        // A long one too: past the short path, through whole batches.
        assert!(
            vs.iter().any(|v| !v.fail && v.plaintext.len() >= 256),
            "{algorithm}: no vector of 256 bytes or more"
        );
        let mut checked = 0;
        for (name, mut d) in drivers(alg) {
            for v in vs {
                d.set_key(&v.key).unwrap();
                if v.fail {
                    let mut data = v.ciphertext.clone();
                    assert!(
                        matches!(
                            d.open(&v.nonce, &v.aad, &mut data, &v.tag),
                            Err(Error::BadMessage)
                        ),
                        "{name}: {}",
                        v.source
                    );
                    assert!(
                        data.iter().all(|&b| b == 0),
                        "{name}: {}: output not wiped",
                        v.source
                    );
                    continue;
                }
                let mut data = v.plaintext.clone();
                let mut tag = [0u8; 16];
                d.seal(&v.nonce, &v.aad, &mut data, &mut tag).unwrap();
                assert_eq!(data, v.ciphertext, "{name}: {}", v.source);
                assert_eq!(tag.to_vec(), v.tag, "{name}: {}", v.source);
                d.open(&v.nonce, &v.aad, &mut data, &v.tag).unwrap();
                assert_eq!(data, v.plaintext, "{name}: {} open", v.source);
                checked += 1;
            }
        }
        assert!(checked > 0 || drivers(alg).is_empty(), "{algorithm}");
    }
}

#[test]
fn matches_the_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x7539);
    for (alg, _, nonce_len) in ALGS {
        for (name, mut d) in drivers(alg) {
            for (alen, tlen) in lengths(&mut rng) {
                let (key, nonce, aad, pt) = random_request(&mut rng, nonce_len, alen, tlen);
                d.set_key(&key).unwrap();
                let r = reference_of(alg, &key);
                let mut want = pt.clone();
                let mut want_tag = [0u8; 16];
                r.seal(&nonce, &aad, &mut want, &mut want_tag).unwrap();
                let what = format!("{name} alen={alen} tlen={tlen}");

                let mut ct = pt.clone();
                let mut tag = [0u8; 16];
                d.seal(&nonce, &aad, &mut ct, &mut tag).unwrap();
                assert_eq!((&ct, tag), (&want, want_tag), "{what} seal");

                let mut ct2 = pt.clone();
                let tag2 = streaming(&d, &nonce, &aad, &mut ct2, true, &mut rng);
                assert_eq!((&ct2, tag2), (&want, want_tag), "{what} streaming encrypt");

                let mut back = ct.clone();
                d.open(&nonce, &aad, &mut back, &tag).unwrap();
                assert_eq!(back, pt, "{what} open");

                // Out of place (the driver's own kernel): `src` only read; a wrong tag
                // wipes `dst`.
                assert!(d.has_one_shot_to(), "{what}: no out-of-place kernel");
                let mut out = vec![0x77u8; tlen];
                let mut tag_to = [0u8; 16];
                d.seal_to(&nonce, &aad, &pt, &mut out, &mut tag_to).unwrap();
                assert_eq!((&out, tag_to), (&want, want_tag), "{what} seal_to");
                let mut back_to = vec![0x77u8; tlen];
                d.open_to(&nonce, &aad, &ct, &mut back_to, &tag).unwrap();
                assert_eq!(back_to, pt, "{what} open_to");
                let mut wrong = tag;
                wrong[rng.gen_range(0..16)] ^= 1 << rng.gen_range(0..8);
                let mut wiped = vec![0x77u8; tlen];
                let src = ct.clone();
                let got = d.open_to(&nonce, &aad, &src, &mut wiped, &wrong);
                assert_eq!(got, Err(Error::BadMessage), "{what} open_to, wrong tag");
                assert!(
                    wiped.iter().all(|&b| b == 0),
                    "{what}: open_to left plaintext"
                );
                assert_eq!(src, ct, "{what}: open_to changed its source");
                let mut back2 = ct.clone();
                let tag3 = streaming(&d, &nonce, &aad, &mut back2, false, &mut rng);
                assert_eq!((&back2, tag3), (&pt, want_tag), "{what} streaming decrypt");

                // One flipped bit in the AAD, the text or the tag: BadMessage, buffer wiped.
                let mut bad_aad = aad.clone();
                let mut bad_ct = ct.clone();
                let mut bad_tag = tag;
                match rng.gen_range(0..3) {
                    0 if alen > 0 => bad_aad[rng.gen_range(0..alen)] ^= 1 << rng.gen_range(0..8),
                    1 if tlen > 0 => bad_ct[rng.gen_range(0..tlen)] ^= 1 << rng.gen_range(0..8),
                    _ => bad_tag[rng.gen_range(0..16)] ^= 1 << rng.gen_range(0..8),
                }
                let got = d.open(&nonce, &bad_aad, &mut bad_ct, &bad_tag);
                assert!(
                    matches!(got, Err(Error::BadMessage)),
                    "{what} tampered: {got:?}"
                );
                assert!(
                    bad_ct.iter().all(|&b| b == 0),
                    "{what}: plaintext left after BadMessage"
                );
            }
        }
    }
}

#[test]
fn refusals() {
    for (alg, _, nonce_len) in ALGS {
        // The other algorithm's nonce length is refused too.
        let (good, other) = (vec![0u8; nonce_len], vec![0u8; 36 - nonce_len]);
        for (name, mut d) in drivers(alg) {
            let mut data = vec![7u8; 10];
            let mut tag = [0u8; 16];
            assert!(
                matches!(d.seal(&good, &[], &mut data, &mut tag), Err(Error::NoKey)),
                "{name}"
            );
            assert!(
                matches!(d.set_key(&[1; 31]), Err(Error::InvalidKeyLength { .. })),
                "{name}"
            );
            d.set_key(&[1; 32]).unwrap();
            for bad in [&[0u8; 8][..], &other] {
                let got = d.seal(bad, &[], &mut data, &mut tag);
                assert_eq!(
                    got,
                    Err(Error::InvalidIvLength {
                        len: bad.len(),
                        expected: nonce_len
                    }),
                    "{name}"
                );
            }
            assert!(matches!(
                d.seal(&good, &[], &mut data, &mut tag[..12]),
                Err(Error::InvalidAuthsize { .. })
            ));
            assert!(d.check_authsize(12).is_err() && d.check_authsize(16).is_ok());
            assert_eq!(data, vec![7u8; 10], "{name}: a refused request wrote");
            // Out of place with buffers of two lengths: refused, nothing written.
            let mut out = vec![0x77u8; 9];
            let got = d.seal_to(&good, &[], &data, &mut out, &mut tag);
            assert!(
                matches!(got, Err(Error::LengthMismatch { .. })),
                "{name}: {got:?}"
            );
            let got = d.open_to(&good, &[], &data, &mut out, &tag);
            assert!(
                matches!(got, Err(Error::LengthMismatch { .. })),
                "{name}: {got:?}"
            );
            assert_eq!(
                out,
                vec![0x77u8; 9],
                "{name}: a refused out-of-place call wrote"
            );
            // A wrong nonce length or tag size, out of place: refused, nothing written.
            for (nonce, tag_len) in [(&[0u8; 8][..], 16), (&good[..], 12)] {
                let mut out = vec![0x77u8; 10];
                let mut tag = [0xa5u8; 16];
                let got = d.seal_to(nonce, &[], &data, &mut out, &mut tag[..tag_len]);
                assert!(got.is_err(), "{name}: {got:?}");
                let got = d.open_to(nonce, &[], &data, &mut out, &tag[..tag_len]);
                assert!(got.is_err(), "{name}: {got:?}");
                assert!(
                    out == vec![0x77u8; 10] && tag == [0xa5; 16],
                    "{name}: a refused out-of-place call wrote"
                );
            }
            // Past block 2^32 - 1 of the nonce: refused at start, before any byte is written.
            let mut st = AeadState::new();
            let lens = AeadLens {
                aad: 0,
                text: ((1usize << 32) - 1) * 64 + 1,
                authsize: 16,
            };
            assert!(
                matches!(
                    d.start(&mut st, &good, lens),
                    Err(Error::InvalidLength { .. })
                ),
                "{name}"
            );
            let lens = AeadLens {
                text: ((1usize << 32) - 1) * 64,
                ..lens
            };
            d.start(&mut st, &good, lens).unwrap();
        }
    }
}

/// The avx512ifma driver runs the zmm ChaCha20 entries of `Avx512` under its own token:
/// that is sound only while `Avx512Ifma`'s features include all of `Avx512`'s.
#[test]
fn ifma_token_covers_the_zmm_chacha20_core() {
    for f in Avx512::FEATURES {
        assert!(
            Avx512Ifma::FEATURES.contains(f),
            "Avx512Ifma lacks {f:?}, which the zmm ChaCha20 entries need"
        );
    }
}

/// Which entries a one-shot request runs (`Width::one_shot_width`), at both sides of each
/// bound, for every width this host has (an IFMA host, as CI's, checks all three): the zmm
/// drivers run the avx2 entries up to `MID_TEXT` (seal) / `MID_OPEN` (open), and
/// `-avx512ifma` runs `-avx512`'s for `RADIX26_TEXTS` (960 to 1216 bytes), its own above.
#[test]
fn one_shot_width_follows_the_measured_bounds() {
    let name = |w: Width| match w {
        Width::Avx2(_) => "avx2",
        Width::Avx512(_) => "avx512",
        Width::Avx512Ifma(_) => "avx512ifma",
    };
    let host = HostFeatures::detect();
    let cases: [(usize, bool, &str, &str); 12] = [
        // (text bytes, sealing, on -avx512, on -avx512ifma)
        (640, true, "avx2", "avx2"),
        (641, true, "avx512", "avx512ifma"),
        (959, true, "avx512", "avx512ifma"),
        (960, true, "avx512", "avx512"),
        (1216, true, "avx512", "avx512"),
        (1217, true, "avx512", "avx512ifma"),
        (959, false, "avx2", "avx2"),
        (960, false, "avx512", "avx512"),
        (1216, false, "avx512", "avx512"),
        (1217, false, "avx512", "avx512ifma"),
        (1983, false, "avx512", "avx512ifma"),
        (8192, true, "avx512", "avx512ifma"),
    ];
    for (len, seal, zmm, ifma) in cases {
        if let Ok(t) = Avx2::new(&host, "t") {
            assert_eq!(name(Width::Avx2(t).one_shot_width(len, seal)), "avx2");
        }
        if let Ok(t) = Avx512::new(&host, "t") {
            let got = name(Width::Avx512(t).one_shot_width(len, seal));
            assert_eq!(got, zmm, "-avx512, {len} bytes, seal {seal}");
        }
        if let Ok(t) = Avx512Ifma::new(&host, "t") {
            let got = name(Width::Avx512Ifma(t).one_shot_width(len, seal));
            assert_eq!(got, ifma, "-avx512ifma, {len} bytes, seal {seal}");
        }
    }
}

/// The whole-seal entries (`rfc7539_seal_*`) called directly, in place and out of place at
/// misaligned offsets (`seal` reaches them in place only): every text length from the
/// entry's minimum to 130 bytes above it, both sides of the following batch boundaries,
/// and random ones, each with AAD of 0, 17 and 300 bytes. Ciphertext and tag must match
/// the generic template, the counter must end past the text, the source must be unchanged.
#[test]
fn whole_seal_entries_match_the_generic_template() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5ea1);
    for (name, d) in drivers(Alg::Rfc7539) {
        let (seal, min) = d.width.seal_entry();
        let mut lens: Vec<usize> = (min..=min + 130).collect();
        for k in 1..4 {
            let b = min + 1024 * k;
            lens.extend([b - 65, b - 64, b - 1, b, b + 1, b + 64, b + 257]);
        }
        lens.extend((0..40).map(|_| rng.gen_range(min..6000)));
        for &tlen in &lens {
            for alen in [0, 17, 300] {
                let key: [u8; 32] = rng.gen();
                let nonce: [u8; 12] = rng.gen();
                let mut aad = vec![0u8; alen];
                rng.fill_bytes(&mut aad);
                let mut pt = vec![0u8; tlen];
                rng.fill_bytes(&mut pt);
                let mut want = pt.clone();
                let mut want_tag = [0u8; 16];
                reference(&key)
                    .seal(&nonce, &aad, &mut want, &mut want_tag)
                    .unwrap();
                let what = format!("{name} whole seal alen={alen} tlen={tlen}");
                let (got, tag) = run_whole(seal, &key, &nonce, &aad, &pt, &mut rng, &what);
                assert_eq!((&got[..], tag), (&want[..], want_tag), "{what}");
            }
        }
    }
}

/// The whole-open entries (`rfc7539_open_*`) straight, not through the drivers' routing
/// (which sends a zmm driver's shorter texts to the avx2 entry): every text length they
/// take, AAD of 0, 17 or 300 bytes, in place and out of place at random offsets. The
/// plaintext and tag must match the generic template, the counter must end past the text,
/// an out-of-place source must be unchanged.
#[test]
fn whole_open_entries_match_the_generic_template() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x0be7);
    for (name, d) in drivers(Alg::Rfc7539) {
        let (open, lens) = d.width.open_entry();
        for tlen in lens {
            let alen = [0, 17, 300][rng.gen_range(0..3)];
            let key: [u8; 32] = rng.gen();
            let nonce: [u8; 12] = rng.gen();
            let mut aad = vec![0u8; alen];
            rng.fill_bytes(&mut aad);
            let mut pt = vec![0u8; tlen];
            rng.fill_bytes(&mut pt);
            let mut ct = pt.clone();
            let mut want_tag = [0u8; 16];
            reference(&key)
                .seal(&nonce, &aad, &mut ct, &mut want_tag)
                .unwrap();
            let what = format!("{name} whole open alen={alen} tlen={tlen}");
            let (got, tag) = run_whole(open, &key, &nonce, &aad, &ct, &mut rng, &what);
            assert_eq!((&got[..], tag), (&pt[..], want_tag), "{what}");
        }
    }
}

/// Runs a whole-request entry (`seal` or `open` of [`super::Width`]) over `input`, in place
/// or out of place (at random), at random offsets, and returns its output and tag. Asserts
/// that the counter ends past the text and that an out-of-place source is unchanged.
fn run_whole(
    entry: super::WholeFn,
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
    input: &[u8],
    rng: &mut ChaCha8Rng,
    what: &str,
) -> (Vec<u8>, [u8; 16]) {
    let tlen = input.len();
    let oop = rng.gen_bool(0.5);
    let (so, doff) = (rng.gen_range(0..16), rng.gen_range(0..16));
    let mut src = vec![0u8; tlen + 16];
    src[so..so + tlen].copy_from_slice(input);
    let mut dst = vec![0x5au8; tlen + 16];
    let mut s = super::state0(key, nonce);
    let (mut rl, mut tag_s, mut h) = ([0u64; 3], [0u8; 16], [0u64; 3]);
    let (sp, dp) = if oop {
        (src[so..].as_ptr(), dst[doff..].as_mut_ptr())
    } else {
        let p = src[so..].as_mut_ptr();
        (p.cast_const(), p)
    };
    // SAFETY: the caller's driver token proves the entry's features and `tlen` is a length
    // the entry takes; `tlen` bytes at `sp` / `dp`, equal or disjoint; the AAD is readable;
    // `s` is at block 0 and a few thousand bytes have counter room.
    unsafe {
        entry(
            &mut s,
            &mut rl,
            &mut tag_s,
            &mut h,
            aad.as_ptr(),
            aad.len(),
            sp,
            dp,
            tlen,
        )
    };
    let tag = super::raw::finish(&rl, &tag_s, h, aad.len(), tlen);
    assert_eq!(
        s[12] as usize,
        1 + tlen.div_ceil(64),
        "{what} oop={oop}: counter"
    );
    let got = if oop {
        assert_eq!(&src[so..so + tlen], input, "{what}: source changed");
        dst[doff..doff + tlen].to_vec()
    } else {
        src[so..so + tlen].to_vec()
    };
    (got, tag)
}
