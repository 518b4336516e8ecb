//! Tests of the stitched `gcm-aes-vaes-*` drivers: the GCM specification's test cases
//! (`selftest/vectors/gcm_aes.toml`), and
//! a differential test against a plain GCM composed here from `aes-generic` and a bitwise
//! GF(2^128) multiply (SP 800-38D, Algorithm 1) — random key sizes, AAD and text lengths
//! (0..2000, block and group boundaries favoured), every tag size, one-shot and streaming
//! with random splits, in place and out of place, and tampered inputs that must fail with
//! `BadMessage` leaving no plaintext. Every width this CPU runs.

use cryptoreg_registry::{AeadImpl, AeadLens, AeadState, BlockCipherImpl, Error, InOut};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use super::gcm_entry::GcmTuning;
use super::tests::{generic, runnable};
use super::GcmVaes;

fn driver(w: super::Width, key: &[u8]) -> GcmVaes {
    let mut d = GcmVaes::new("gcm-aes-vaes-test", w);
    d.set_key(key).unwrap();
    d
}

/// `x * y` in GCM's GF(2^128), bit by bit (SP 800-38D Algorithm 1); blocks as big-endian
/// integers.
fn gf_mul(x: u128, y: u128) -> u128 {
    let mut z = 0u128;
    let mut v = y;
    for i in 0..128 {
        if (x >> (127 - i)) & 1 == 1 {
            z ^= v;
        }
        v = if v & 1 == 1 {
            (v >> 1) ^ (0xe1 << 120)
        } else {
            v >> 1
        };
    }
    z
}

/// GHASH of `data` zero-padded to blocks, continuing from `y`.
fn ref_ghash(h: u128, mut y: u128, data: &[u8]) -> u128 {
    for chunk in data.chunks(16) {
        let mut b = [0u8; 16];
        b[..chunk.len()].copy_from_slice(chunk);
        y = gf_mul(y ^ u128::from_be_bytes(b), h);
    }
    y
}

/// Plain GCM over `aes-generic`: returns the ciphertext and the full tag.
fn ref_seal(key: &[u8], nonce: &[u8; 12], aad: &[u8], pt: &[u8]) -> (Vec<u8>, [u8; 16]) {
    let aes = generic(key);
    let mut hb = [0u8; 16];
    aes.encrypt_blocks(&mut hb);
    let h = u128::from_be_bytes(hb);
    let mut j0 = [0u8; 16];
    j0[..12].copy_from_slice(nonce);
    j0[15] = 1;
    let mut ct = pt.to_vec();
    for (i, chunk) in ct.chunks_mut(16).enumerate() {
        let mut cb = j0;
        let c = u32::from_be_bytes(cb[12..].try_into().unwrap()).wrapping_add(1 + i as u32);
        cb[12..].copy_from_slice(&c.to_be_bytes());
        aes.encrypt_blocks(&mut cb);
        chunk.iter_mut().zip(cb).for_each(|(x, k)| *x ^= k);
    }
    let y = ref_ghash(h, 0, aad);
    let y = ref_ghash(h, y, &ct);
    let mut lens = [0u8; 16];
    lens[..8].copy_from_slice(&(aad.len() as u64 * 8).to_be_bytes());
    lens[8..].copy_from_slice(&(ct.len() as u64 * 8).to_be_bytes());
    let y = ref_ghash(h, y, &lens);
    let mut ek = j0;
    aes.encrypt_blocks(&mut ek);
    let tag = (y ^ u128::from_be_bytes(ek)).to_be_bytes();
    (ct, tag)
}

/// The known answers of `selftest/vectors/gcm_aes.toml` (the GCM specification's test
/// cases with 96-bit IVs, truncated tags, inauthentic inputs).
fn spec() -> Vec<cryptoreg_selftest::AeadVector> {
    crate::testing::vectors::aead("gcm(aes)", 20)
}

#[test]
fn reference_matches_the_spec() {
    for v in spec().iter().filter(|v| !v.fail) {
        let (ct, tag) = ref_seal(
            &v.key,
            &v.nonce[..].try_into().unwrap(),
            &v.aad,
            &v.plaintext,
        );
        assert_eq!(ct, v.ciphertext, "{}", v.source);
        assert_eq!(tag[..v.tag.len()], v.tag[..], "{}", v.source);
    }
}

#[test]
fn spec_test_cases_every_width() {
    for (w, name) in runnable("gcm spec") {
        for v in spec() {
            let what = format!("{name}: {}", v.source);
            let d = driver(w, &v.key);
            if v.fail {
                let mut data = v.ciphertext.clone();
                let r = d.open(&v.nonce, &v.aad, &mut data, &v.tag);
                assert!(matches!(r, Err(Error::BadMessage)), "{what}: {r:?}");
                assert!(data.iter().all(|&b| b == 0), "{what}: not wiped");
                let mut data = v.ciphertext.clone();
                let mut tag = v.tag.clone();
                let r = streaming(
                    &d,
                    true,
                    &v.nonce,
                    &v.aad,
                    &mut data,
                    None,
                    &mut tag,
                    &mut [16],
                );
                assert!(
                    matches!(r, Err(Error::BadMessage)),
                    "{what}: streaming {r:?}"
                );
                continue;
            }
            let mut data = v.plaintext.clone();
            let mut tag = vec![0u8; v.tag.len()];
            d.seal(&v.nonce, &v.aad, &mut data, &mut tag).unwrap();
            assert_eq!(data, v.ciphertext, "{what}");
            assert_eq!(tag, v.tag, "{what}");
            d.open(&v.nonce, &v.aad, &mut data, &tag).unwrap();
            assert_eq!(data, v.plaintext, "{what}: open");
            let mut data = v.plaintext.clone();
            let mut tag = vec![0u8; v.tag.len()];
            streaming(
                &d,
                false,
                &v.nonce,
                &v.aad,
                &mut data,
                None,
                &mut tag,
                &mut [16, 32],
            )
            .unwrap();
            assert_eq!(data, v.ciphertext, "{what}: streaming");
            assert_eq!(tag, v.tag, "{what}: streaming");
        }
    }
}

/// Lengths 0..2000 with block and group boundaries (and their neighbours) favoured, and
/// now and then one in 2030..2340, around 8 groups (2 KiB, `gcm::HELD_MIN_GROUPS`), where
/// decryption's held-register form starts.
fn pick_len(rng: &mut ChaCha20Rng) -> usize {
    match rng.gen_range(0..5) {
        0 => rng.gen_range(0..2000),
        1 => rng.gen_range(0..40),
        2 if rng.gen_bool(0.5) => rng.gen_range(2030..2340),
        _ => {
            let unit = [16usize, 64, 256][rng.gen_range(0..3)];
            let n = rng.gen_range(0..=(1999 / unit));
            (n * unit)
                .saturating_add_signed(rng.gen_range(-1isize..=1))
                .min(1999)
        }
    }
}

/// Splits `n` (a multiple of 16) into random whole-block pieces.
fn splits(rng: &mut ChaCha20Rng, n: usize) -> Vec<usize> {
    let mut v = Vec::new();
    let mut left = n;
    while left > 0 {
        let take = 16 * rng.gen_range(1..=(left / 16).min(40));
        v.push(take);
        left -= take;
    }
    v
}

/// One request through the streaming calls: AAD and text in the given whole-block pieces
/// (`pieces`: used cyclically; the tails as the last calls), in place or, with `src`, out
/// of place from `src` into `data`. Writes the tag (encrypt) or verifies it (decrypt).
#[allow(clippy::too_many_arguments)]
fn streaming(
    d: &GcmVaes,
    decrypt: bool,
    nonce: &[u8],
    aad: &[u8],
    data: &mut [u8],
    src: Option<&[u8]>,
    tag: &mut [u8],
    pieces: &mut [usize],
) -> Result<(), Error> {
    let mut st = AeadState::new();
    let lens = AeadLens {
        aad: aad.len(),
        text: data.len(),
        authsize: tag.len(),
    };
    d.start(&mut st, nonce, lens)?;
    let mut pi = 0;
    let mut next = |max: usize| {
        let p = pieces[pi % pieces.len()].min(max);
        pi += 1;
        p
    };
    let whole = aad.len() & !15;
    let mut off = 0;
    while off < whole {
        let n = next(whole - off);
        d.absorb_aad(&mut st, &aad[off..off + n]);
        off += n;
    }
    d.absorb_aad_tail(&mut st, &aad[whole..]);
    let whole = data.len() & !15;
    let mut off = 0;
    let run = |st: &mut AeadState, io: InOut<'_>, tail: bool| match (decrypt, tail) {
        (false, false) => d.encrypt_chunks(st, io),
        (true, false) => d.decrypt_chunks(st, io),
        (false, true) => d.encrypt_tail(st, io),
        (true, true) => d.decrypt_tail(st, io),
    };
    while off <= data.len() {
        let tail = off == whole;
        let n = if tail {
            data.len() - whole
        } else {
            next(whole - off)
        };
        let io = match src {
            None => InOut::InPlace(&mut data[off..off + n]),
            Some(s) => InOut::split(&s[off..off + n], &mut data[off..off + n]).unwrap(),
        };
        run(&mut st, io, tail);
        off += n;
        if tail {
            break;
        }
    }
    if decrypt {
        d.verify(&mut st, tag)
    } else {
        d.finish(&mut st, tag);
        Ok(())
    }
}

#[test]
fn differential_against_plain_gcm_every_width() {
    let widths = runnable("gcm differential");
    let mut rng = ChaCha20Rng::seed_from_u64(0x6763_6d5f_7661_6573);
    for (w, name) in widths {
        for iter in 0..400 {
            let klen = [16, 24, 32][rng.gen_range(0..3)];
            let key: Vec<u8> = (0..klen).map(|_| rng.gen()).collect();
            let nonce: [u8; 12] = rng.gen();
            let aad: Vec<u8> = (0..pick_len(&mut rng)).map(|_| rng.gen()).collect();
            let pt: Vec<u8> = (0..pick_len(&mut rng)).map(|_| rng.gen()).collect();
            let authsize = [4, 8, 12, 13, 14, 15, 16][rng.gen_range(0..7)];
            let what = format!(
                "{name} iter {iter}: klen={klen} alen={} plen={} authsize={authsize}",
                aad.len(),
                pt.len()
            );
            let (ct, full) = ref_seal(&key, &nonce, &aad, &pt);
            // Either form of the loop, regardless of the one this CPU's drivers pick.
            let tuning = [GcmTuning::Intel, GcmTuning::Other][rng.gen_range(0..2)];
            let what = format!("{what} {tuning:?}");
            let d = driver(w, &key).with_tuning(tuning);

            // One-shot seal and open.
            let mut data = pt.clone();
            let mut tag = vec![0u8; authsize];
            d.seal(&nonce, &aad, &mut data, &mut tag).unwrap();
            assert_eq!(data, ct, "{what}: seal");
            assert_eq!(tag, full[..authsize], "{what}: seal tag");
            d.open(&nonce, &aad, &mut data, &tag).unwrap();
            assert_eq!(data, pt, "{what}: open");

            // Streaming, random splits, in place or out of place.
            let mut pieces = splits(&mut rng, 2048);
            let out_of_place = rng.gen_bool(0.5);
            let mut data = if out_of_place {
                vec![0u8; pt.len()]
            } else {
                pt.clone()
            };
            let mut tag2 = vec![0u8; authsize];
            let src = out_of_place.then_some(&pt[..]);
            streaming(
                &d,
                false,
                &nonce,
                &aad,
                &mut data,
                src,
                &mut tag2,
                &mut pieces,
            )
            .unwrap();
            assert_eq!(
                data, ct,
                "{what}: streaming seal (out of place: {out_of_place})"
            );
            assert_eq!(tag2, tag, "{what}: streaming tag");
            let mut back = if out_of_place {
                vec![0u8; ct.len()]
            } else {
                ct.clone()
            };
            let src = out_of_place.then_some(&ct[..]);
            streaming(
                &d,
                true,
                &nonce,
                &aad,
                &mut back,
                src,
                &mut tag2,
                &mut pieces,
            )
            .unwrap();
            assert_eq!(back, pt, "{what}: streaming open");

            // Tampering: one flipped bit in the AAD, the text or the tag.
            let mut aad_t = aad.clone();
            let mut data_t = ct.clone();
            let mut tag_t = tag.clone();
            let target = rng.gen_range(0..3);
            match target {
                0 if !aad_t.is_empty() => {
                    let i = rng.gen_range(0..aad_t.len());
                    aad_t[i] ^= 1 << rng.gen_range(0..8);
                }
                1 if !data_t.is_empty() => {
                    let i = rng.gen_range(0..data_t.len());
                    data_t[i] ^= 1 << rng.gen_range(0..8);
                }
                _ => {
                    let i = rng.gen_range(0..authsize);
                    tag_t[i] ^= 1 << rng.gen_range(0..8);
                }
            }
            let tampered_ct = data_t.clone();
            let r = d.open(&nonce, &aad_t, &mut data_t, &tag_t);
            assert!(
                matches!(r, Err(Error::BadMessage)),
                "{what}: tampered ({target}) {r:?}"
            );
            assert!(
                data_t.iter().all(|&b| b == 0),
                "{what}: plaintext left after a bad tag"
            );
            let mut data_s = tampered_ct;
            let r = streaming(
                &d,
                true,
                &nonce,
                &aad_t,
                &mut data_s,
                None,
                &mut tag_t,
                &mut pieces,
            );
            assert!(
                matches!(r, Err(Error::BadMessage)),
                "{what}: streaming tampered {r:?}"
            );
        }
    }
}

#[test]
fn refuses_bad_nonces_and_tag_sizes_without_writing() {
    for (w, name) in runnable("gcm refusals") {
        let d = driver(w, &[7u8; 16]);
        let mut data = vec![0x55u8; 40];
        let mut tag = [0u8; 16];
        let r = d.seal(&[0u8; 8], b"", &mut data, &mut tag);
        assert!(
            matches!(r, Err(Error::InvalidIvLength { .. })),
            "{name}: {r:?}"
        );
        let r = d.seal(&[0u8; 12], b"", &mut data, &mut tag[..5]);
        assert!(
            matches!(r, Err(Error::InvalidAuthsize { .. })),
            "{name}: {r:?}"
        );
        let r = d.open(&[0u8; 12], b"", &mut data, &tag[..3]);
        assert!(
            matches!(r, Err(Error::InvalidAuthsize { .. })),
            "{name}: {r:?}"
        );
        assert!(
            data.iter().all(|&b| b == 0x55),
            "{name}: refused request wrote"
        );
        let mut bad = GcmVaes::new("t", w);
        assert!(bad.set_key(&[0u8; 20]).is_err(), "{name}");
        assert!(bad.is_wiped(), "{name}: key material not wiped");
    }
}

/// The out-of-place one-shot calls (`seal_to`, `open_to`: the same entry reading one
/// buffer and writing another) against the reference, every width
/// (`crate::aes::gcm_driver_tests::out_of_place_one_shot`: lengths on both sides of the group
/// and pair boundaries and past the 2048 bytes where the handle used to fall back to the
/// segment walker, every tag size; the source is only read, a wrong tag wipes the
/// destination, refused requests write nothing).
#[test]
fn out_of_place_one_shot_matches_the_reference_every_width() {
    for (w, name) in runnable("gcm out of place") {
        crate::aes::gcm_driver_tests::out_of_place_one_shot(Box::new(GcmVaes::new("t", w)), name);
    }
}

/// The one-shot entries write the tag straight into the caller's slice, with a partial
/// store of its length, and read `J0` from the 12 nonce bytes alone
/// (`crate::aes::gcm_driver_tests::writes_exactly_the_tag`), every width.
#[test]
fn one_shot_writes_exactly_the_tag_and_reads_only_the_nonce() {
    for (w, _) in runnable("gcm tag bounds") {
        crate::aes::gcm_driver_tests::writes_exactly_the_tag(Box::new(GcmVaes::new("t", w)));
    }
}

/// Texts long enough for the main loop's pairs of 16-block groups, an odd last group, and
/// groups whose counters wrap the low counter byte (the shuffle-saving counter path is only
/// taken when they do not, see `gcm::fast_counters`): at 15 groups and more from `J0 + 1`,
/// and anywhere in streaming pieces that start at other counters; from 8 groups, where
/// decryption's held-register form starts. Seal, open and streaming against the plain
/// reference, every width, in each [`GcmTuning`] form.
#[test]
fn long_texts_cross_counter_byte_wraps_every_width() {
    let widths = runnable("gcm long texts");
    let mut rng = ChaCha20Rng::seed_from_u64(0x6763_6d5f_6c6f_6e67);
    let lens = [
        8 * 256,
        9 * 256 + 1,
        15 * 256,
        16 * 256 - 1,
        17 * 256 + 5,
        31 * 256,
        8192,
        8192 + 16 * 7 + 3,
        33 * 256 + 16,
    ];
    for ((w, name), tuning) in widths
        .iter()
        .flat_map(|&w| [GcmTuning::Intel, GcmTuning::Other].map(move |t| (w, t)))
    {
        for (i, &len) in lens.iter().enumerate() {
            let klen = [16, 24, 32][i % 3];
            let key: Vec<u8> = (0..klen).map(|_| rng.gen()).collect();
            let nonce: [u8; 12] = rng.gen();
            let aad: Vec<u8> = (0..[0, 20, 300][i % 3]).map(|_| rng.gen()).collect();
            let pt: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let what = format!(
                "{name} {tuning:?}: klen={klen} alen={} plen={len}",
                aad.len()
            );
            let (ct, full) = ref_seal(&key, &nonce, &aad, &pt);
            let d = driver(w, &key).with_tuning(tuning);

            let mut data = pt.clone();
            let mut tag = [0u8; 16];
            d.seal(&nonce, &aad, &mut data, &mut tag).unwrap();
            assert_eq!(data, ct, "{what}: seal");
            assert_eq!(tag, full, "{what}: seal tag");
            d.open(&nonce, &aad, &mut data, &tag).unwrap();
            assert_eq!(data, pt, "{what}: open");

            // Pieces of 3, 250 and 17 blocks: later pieces start at counters whose low
            // byte is anywhere, and the long ones cross a wrap.
            let mut pieces = [16 * 3, 16 * 250, 16 * 17];
            let mut data = pt.clone();
            let mut tag2 = [0u8; 16];
            streaming(
                &d,
                false,
                &nonce,
                &aad,
                &mut data,
                None,
                &mut tag2,
                &mut pieces,
            )
            .unwrap();
            assert_eq!(data, ct, "{what}: streaming seal");
            assert_eq!(tag2, full, "{what}: streaming tag");
            streaming(
                &d,
                true,
                &nonce,
                &aad,
                &mut data,
                None,
                &mut tag2,
                &mut pieces,
            )
            .unwrap();
            assert_eq!(data, pt, "{what}: streaming open");
        }
    }
}
