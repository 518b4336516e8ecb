//! The tests every `gcm(aes)` driver of an architecture module runs (`gcm-aes-aesni`,
//! `gcm-aes-ce`): the GCM specification's test cases (from `selftest/vectors/gcm_aes.toml`),
//! and a differential test against a plain reference composed here from `aes-generic` and
//! `ghash-generic` (random key sizes, AAD and text lengths 0..600 and a few long ones,
//! every authsize, one-shot and streaming in random pieces, in place and out of place,
//! tampering). Each driver's test module calls these with its driver (`#[test]` wrappers).

use crate::aes::gcm_rules::{gcm_j0, gcm_len_block};
use crate::aes::AesGeneric;
use crate::ghash::generic::ghash_generic;
use cryptoreg_registry::{AeadImpl, AeadLens, AeadState, BlockCipherImpl, Error, HashImpl, InOut};
use cryptoreg_selftest::{AeadVector, VectorSet};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// The `gcm(aes)` known answers of `selftest/vectors/gcm_aes.toml` (the GCM specification's
/// test cases with 96-bit IVs, truncated tags, inauthentic inputs): at least 12.
pub(crate) fn spec() -> Vec<AeadVector> {
    let v = VectorSet::embedded()
        .get_aead("gcm(aes)")
        .unwrap_or_default()
        .to_vec();
    assert!(v.len() >= 12, "gcm_aes.toml holds {} vectors", v.len());
    v
}

/// AES-GCM the obvious way: CTR with `aes-generic` block by block, GHASH with
/// `ghash-generic` over A || pad || C || pad || lengths. Returns (ciphertext, full tag).
pub(crate) fn reference(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, [u8; 16]) {
    let mut aes = AesGeneric::new();
    aes.set_key(key).unwrap();
    let enc = |block: [u8; 16]| {
        let mut b = block;
        aes.encrypt_blocks(&mut b);
        b
    };
    let hkey = enc([0; 16]);
    let j0 = gcm_j0(nonce).unwrap();
    let ct: Vec<u8> = pt
        .chunks(16)
        .enumerate()
        .flat_map(|(i, c)| {
            let mut ctr = j0;
            let n = u32::from_be_bytes(ctr[12..].try_into().unwrap()).wrapping_add(1 + i as u32);
            ctr[12..].copy_from_slice(&n.to_be_bytes());
            let ks = enc(ctr);
            c.iter().zip(ks).map(|(a, b)| a ^ b).collect::<Vec<u8>>()
        })
        .collect();
    let pad = |v: &[u8]| {
        let mut v = v.to_vec();
        v.resize(v.len().div_ceil(16) * 16, 0);
        v
    };
    let mut msg = pad(aad);
    msg.extend(pad(&ct));
    msg.extend(gcm_len_block(aad.len() as u64, ct.len() as u64));
    let mut g = ghash_generic();
    g.set_key(&hkey).unwrap();
    let mut s = [0u8; 16];
    g.digest(&msg, &mut s);
    let ek = enc(j0);
    let mut tag = [0u8; 16];
    for i in 0..16 {
        tag[i] = s[i] ^ ek[i];
    }
    (ct, tag)
}

#[test]
fn reference_passes_the_spec() {
    for c in spec().iter().filter(|c| !c.fail) {
        let (ct, tag) = reference(&c.key, &c.nonce, &c.aad, &c.plaintext);
        assert_eq!(ct, c.ciphertext, "{}", c.source);
        assert_eq!(tag[..c.tag.len()], c.tag[..], "{}", c.source);
    }
}

pub(crate) fn passes_the_spec_one_shot_and_streaming(mut d: Box<dyn AeadImpl>) {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for c in spec() {
        d.set_key(&c.key).unwrap();
        let authsize = c.tag.len();
        if c.fail {
            let mut data = c.ciphertext.clone();
            let r = d.open(&c.nonce, &c.aad, &mut data, &c.tag);
            assert!(matches!(r, Err(Error::BadMessage)), "{}: {r:?}", c.source);
            assert!(data.iter().all(|&b| b == 0), "{}: not wiped", c.source);
            let (_, tag) = streaming(
                &*d,
                &c.nonce,
                &c.aad,
                &c.ciphertext,
                authsize,
                false,
                &mut rng,
            );
            assert_ne!(tag, c.tag, "{}: streaming", c.source);
            continue;
        }
        let mut data = c.plaintext.clone();
        let mut tag = vec![0u8; authsize];
        d.seal(&c.nonce, &c.aad, &mut data, &mut tag).unwrap();
        assert_eq!(data, c.ciphertext, "{}", c.source);
        assert_eq!(tag, c.tag, "{}", c.source);
        d.open(&c.nonce, &c.aad, &mut data, &tag).unwrap();
        assert_eq!(data, c.plaintext, "{}", c.source);
        let (ct, tag2) = streaming(
            &*d,
            &c.nonce,
            &c.aad,
            &c.plaintext,
            authsize,
            true,
            &mut rng,
        );
        assert_eq!(
            (ct, tag2),
            (c.ciphertext.clone(), c.tag.clone()),
            "{} streaming",
            c.source
        );
    }
}

/// A request through the streaming calls, AAD and text cut into random whole-block pieces
/// (then the tail), each text piece in place or out of place at random. Returns the output
/// and the computed tag.
pub(crate) fn streaming(
    d: &dyn AeadImpl,
    nonce: &[u8],
    aad: &[u8],
    input: &[u8],
    authsize: usize,
    encrypt: bool,
    rng: &mut ChaCha20Rng,
) -> (Vec<u8>, Vec<u8>) {
    let lens = AeadLens {
        aad: aad.len(),
        text: input.len(),
        authsize,
    };
    let mut st = AeadState::new();
    d.start(&mut st, nonce, lens).unwrap();
    let awhole = aad.len() - aad.len() % 16;
    let mut off = 0;
    while off < awhole {
        let n = 16 * rng.gen_range(1..=(awhole - off) / 16);
        d.absorb_aad(&mut st, &aad[off..off + n]);
        off += n;
    }
    d.absorb_aad_tail(&mut st, &aad[awhole..]);
    let twhole = input.len() - input.len() % 16;
    let mut out = vec![0u8; input.len()];
    let mut off = 0;
    loop {
        let last = off == twhole;
        let n = if last {
            input.len() - twhole
        } else {
            16 * rng.gen_range(1..=(twhole - off) / 16)
        };
        let (src, dst) = (&input[off..off + n], &mut out[off..off + n]);
        let io = if rng.gen() {
            dst.copy_from_slice(src);
            InOut::InPlace(dst)
        } else {
            InOut::split(src, dst).unwrap()
        };
        match (encrypt, last) {
            (true, false) => d.encrypt_chunks(&mut st, io),
            (true, true) => d.encrypt_tail(&mut st, io),
            (false, false) => d.decrypt_chunks(&mut st, io),
            (false, true) => d.decrypt_tail(&mut st, io),
        }
        off += n;
        if last {
            break;
        }
    }
    let mut tag = vec![0u8; authsize];
    d.finish(&mut st, &mut tag);
    (out, tag)
}

pub(crate) fn agrees_with_the_reference_and_refuses_tampering(mut d: Box<dyn AeadImpl>) {
    let mut rng = ChaCha20Rng::seed_from_u64(0x6763_6d00);
    for round in 0..400 {
        let klen = [16, 24, 32][rng.gen_range(0..3)];
        let key: Vec<u8> = (0..klen).map(|_| rng.gen()).collect();
        let nonce: [u8; 12] = rng.gen();
        let len = |rng: &mut ChaCha20Rng| match rng.gen_range(0..4) {
            0 => 16 * rng.gen_range(0..38),
            1 => rng.gen_range(0..20),
            _ => rng.gen_range(0..600),
        };
        let (alen, plen) = if round < 8 {
            (
                [0, 1, 300, 4096][round % 4],
                [4096 + 15, 2048, 0, 1000][round % 4],
            )
        } else {
            (len(&mut rng), len(&mut rng))
        };
        let aad: Vec<u8> = (0..alen).map(|_| rng.gen()).collect();
        let pt: Vec<u8> = (0..plen).map(|_| rng.gen()).collect();
        let authsize = [4, 8, 12, 13, 14, 15, 16][rng.gen_range(0..7)];
        let what =
            format!("round {round}: klen={klen} alen={alen} plen={plen} authsize={authsize}");
        d.set_key(&key).unwrap();
        let (want_ct, want_tag) = reference(&key, &nonce, &aad, &pt);
        let want_tag = &want_tag[..authsize];

        let mut data = pt.clone();
        let mut tag = vec![0u8; authsize];
        d.seal(&nonce, &aad, &mut data, &mut tag).unwrap();
        assert_eq!(data, want_ct, "{what}: seal");
        assert_eq!(tag, want_tag, "{what}: seal tag");

        let (ct, tag) = streaming(&*d, &nonce, &aad, &pt, authsize, true, &mut rng);
        assert_eq!(
            (&ct, &tag[..]),
            (&want_ct, want_tag),
            "{what}: streaming seal"
        );
        let (back, tag) = streaming(&*d, &nonce, &aad, &want_ct, authsize, false, &mut rng);
        assert_eq!((&back, &tag[..]), (&pt, want_tag), "{what}: streaming open");

        let mut data = want_ct.clone();
        d.open(&nonce, &aad, &mut data, want_tag).unwrap();
        assert_eq!(data, pt, "{what}: open");

        // One flipped bit in the AAD, the text or the tag: BadMessage, output wiped.
        let mut aad2 = aad.clone();
        let mut ct2 = want_ct.clone();
        let mut tag2 = want_tag.to_vec();
        match rng.gen_range(0..3) {
            0 if alen > 0 => aad2[rng.gen_range(0..alen)] ^= 1 << rng.gen_range(0..8),
            1 if plen > 0 => ct2[rng.gen_range(0..plen)] ^= 1 << rng.gen_range(0..8),
            _ => tag2[rng.gen_range(0..authsize)] ^= 1 << rng.gen_range(0..8),
        }
        let mut data = ct2.clone();
        let r = d.open(&nonce, &aad2, &mut data, &tag2);
        assert!(
            matches!(r, Err(Error::BadMessage)),
            "{what}: tampered open: {r:?}"
        );
        assert!(
            data.iter().all(|&b| b == 0),
            "{what}: plaintext left after a failed open"
        );
    }
}

pub(crate) fn refusals_are_errors(mut d: Box<dyn AeadImpl>) {
    for len in [0, 15, 17, 20, 31, 33, 64] {
        assert!(
            matches!(
                d.set_key(&vec![0; len]),
                Err(Error::InvalidKeyLength { .. })
            ),
            "{len}"
        );
    }
    d.set_key(&[1; 16]).unwrap();
    for n in [0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 17] {
        assert!(
            matches!(d.check_authsize(n), Err(Error::InvalidAuthsize { .. })),
            "{n}"
        );
    }
    let mut data = [7u8; 20];
    let mut tag = [0u8; 16];
    assert!(matches!(
        d.seal(&[0; 8], b"", &mut data, &mut tag),
        Err(Error::InvalidIvLength { .. })
    ));
    assert!(matches!(
        d.open(&[0; 12], b"", &mut data, &[0; 5]),
        Err(Error::InvalidAuthsize { .. })
    ));
    // Refused before any byte is touched.
    assert_eq!(data, [7u8; 20]);
    let mut st = AeadState::new();
    let too_long = AeadLens {
        aad: 0,
        text: crate::aes::gcm_rules::GCM_MAX_TEXT as usize + 1,
        authsize: 16,
    };
    assert!(matches!(
        d.start(&mut st, &[0; 12], too_long),
        Err(Error::InvalidLength { .. })
    ));
}

/// The one-shot `seal` writes exactly the authsize bytes of the tag (the bytes after the
/// tag slice, here the rest of a larger buffer, stay untouched), none when it refuses the
/// request, and takes `J0` from the 12-byte nonce alone (what follows the nonce in memory
/// changes nothing).
pub(crate) fn writes_exactly_the_tag(mut d: Box<dyn AeadImpl>) {
    let mut rng = ChaCha20Rng::seed_from_u64(0x7461_675f_6c65_6e73);
    d.set_key(&[3u8; 16]).unwrap();
    let mut data = [7u8; 40];
    let mut out = [0xa5u8; 32];
    assert!(d.seal(&[0; 8], b"", &mut data, &mut out[..16]).is_err());
    assert!(d.seal(&[0; 12], b"", &mut data, &mut out[..5]).is_err());
    assert!(d.seal(&[0; 12], b"", &mut data, &mut out[..17]).is_err());
    assert!(
        out.iter().all(|&b| b == 0xa5) && data == [7u8; 40],
        "a refused seal wrote"
    );
    for authsize in [4, 8, 12, 13, 14, 15, 16] {
        let key: [u8; 16] = rng.gen();
        d.set_key(&key).unwrap();
        let mut nonce_buf: [u8; 16] = rng.gen();
        let pt: Vec<u8> = (0..rng.gen_range(0..300)).map(|_| rng.gen()).collect();
        let (ct, full) = reference(&key, &nonce_buf[..12], b"ad", &pt);
        for tail in [0u8, 0xff] {
            nonce_buf[12..].fill(tail);
            let mut data = pt.clone();
            let mut out = [0xa5u8; 32];
            d.seal(&nonce_buf[..12], b"ad", &mut data, &mut out[..authsize])
                .unwrap();
            assert_eq!(data, ct, "authsize {authsize}");
            assert_eq!(out[..authsize], full[..authsize], "authsize {authsize}");
            assert!(
                out[authsize..].iter().all(|&b| b == 0xa5),
                "authsize {authsize}: wrote past the tag"
            );
            d.open(&nonce_buf[..12], b"ad", &mut data, &out[..authsize])
                .unwrap();
            assert_eq!(data, pt, "authsize {authsize}: open");
        }
    }
}

/// The driver's out-of-place one-shot calls (`seal_to` / `open_to`, which must exist)
/// against the reference: random key sizes, AAD, authsizes, and texts from empty to 9000
/// bytes, on both sides of the block, group and pair boundaries (the kernels' short paths
/// and main loops); a wrong tag wipes `dst` and leaves `src` as it was; buffers of
/// different lengths, a wrong nonce length or tag size are refused with nothing written.
pub(crate) fn out_of_place_one_shot(mut d: Box<dyn AeadImpl>, name: &str) {
    assert!(
        d.has_one_shot_to(),
        "{name}: no out-of-place one-shot kernel"
    );
    // Each driver its own cases: the name goes into the seed.
    let seed = name.bytes().fold(0x6f6f_705f_6763_6d31u64, |h, b| {
        h.rotate_left(8) ^ u64::from(b)
    });
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    for iter in 0..60 {
        let klen = [16, 24, 32][rng.gen_range(0..3)];
        let key: Vec<u8> = (0..klen).map(|_| rng.gen()).collect();
        d.set_key(&key).unwrap();
        let nonce: [u8; 12] = rng.gen();
        let aad: Vec<u8> = (0..rng.gen_range(0..40)).map(|_| rng.gen()).collect();
        // Short texts, both sides of a block, 4-block, group (256) and pair (512)
        // boundary, and long texts past the 2048 bytes where the handle copies.
        let len = match iter % 3 {
            0 => rng.gen_range(0..300),
            1 => {
                let unit = [16usize, 64, 256, 512][rng.gen_range(0..4)];
                (unit * rng.gen_range(0..=8)).saturating_add_signed(rng.gen_range(-1isize..=1))
            }
            _ => rng.gen_range(2000..9000),
        };
        let pt: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let authsize = [4, 8, 12, 16][rng.gen_range(0..4)];
        let what = format!("{name} iter {iter}: klen={klen} len={len} authsize={authsize}");
        let (ct, full) = reference(&key, &nonce, &aad, &pt);

        let mut out = vec![0x77u8; len];
        let mut tag = vec![0u8; authsize];
        d.seal_to(&nonce, &aad, &pt, &mut out, &mut tag).unwrap();
        assert_eq!(out, ct, "{what}: seal_to");
        assert_eq!(tag, full[..authsize], "{what}: seal_to tag");

        let mut back = vec![0x77u8; len];
        d.open_to(&nonce, &aad, &ct, &mut back, &tag).unwrap();
        assert_eq!(back, pt, "{what}: open_to");

        let mut bad = tag.clone();
        bad[rng.gen_range(0..authsize)] ^= 1 << rng.gen_range(0..8);
        let mut wiped = vec![0x77u8; len];
        let src = ct.clone();
        let r = d.open_to(&nonce, &aad, &src, &mut wiped, &bad);
        assert_eq!(r, Err(Error::BadMessage), "{what}");
        assert!(wiped.iter().all(|&b| b == 0), "{what}: not wiped");
        assert_eq!(src, ct, "{what}: source changed");
    }
    d.set_key(&[5u8; 16]).unwrap();
    let mut out = vec![0x77u8; 40];
    let mut tag = [0xa5u8; 16];
    let r = d.seal_to(&[0; 12], b"", &[1u8; 41], &mut out, &mut tag);
    assert!(
        matches!(r, Err(Error::LengthMismatch { .. })),
        "{name}: {r:?}"
    );
    assert!(
        out.iter().all(|&b| b == 0x77) && tag == [0xa5; 16],
        "{name}: wrote"
    );
    let mut short = [0x77u8; 39];
    let r = d.open_to(&[0; 12], b"", &[1u8; 40], &mut short, &tag);
    assert!(
        matches!(r, Err(Error::LengthMismatch { .. })),
        "{name}: {r:?}"
    );
    assert!(short.iter().all(|&b| b == 0x77), "{name}: wrote");
    // Refused before anything is written: a nonce of the wrong length, a tag size GCM
    // does not have.
    let src = [1u8; 40];
    for (nonce, tag_len) in [
        (&[0u8; 8][..], 16),
        (&[0u8; 12][..], 5),
        (&[0u8; 12][..], 17),
    ] {
        let mut out = [0x77u8; 40];
        let mut tag = [0xa5u8; 17];
        let r = d.seal_to(nonce, b"", &src, &mut out, &mut tag[..tag_len]);
        assert!(r.is_err(), "{name}: seal_to accepted {nonce:?} / {tag_len}");
        assert!(
            out.iter().all(|&b| b == 0x77) && tag.iter().all(|&b| b == 0xa5),
            "{name}: a refused seal_to wrote"
        );
        let r = d.open_to(nonce, b"", &src, &mut out, &tag[..tag_len]);
        assert!(r.is_err(), "{name}: open_to accepted {nonce:?} / {tag_len}");
        assert!(
            out.iter().all(|&b| b == 0x77),
            "{name}: a refused open_to wrote"
        );
    }
}
