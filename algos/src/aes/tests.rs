//! Cross-driver tests: standards vectors, AES-NI against the generic cipher, and every
//! mode driver against a per-block reference built on [`AesGeneric`].

use cryptoreg_registry::BlockCipherImpl;

use super::AesGeneric;

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).expect("hex")
}

/// FIPS-197 Appendix C: (key, plaintext, ciphertext) for AES-128, -192, -256.
pub(super) const FIPS197_C: [(&str, &str, &str); 3] = [
    (
        "000102030405060708090a0b0c0d0e0f",
        "00112233445566778899aabbccddeeff",
        "69c4e0d86a7b0430d8cdb78070b4c55a",
    ),
    (
        "000102030405060708090a0b0c0d0e0f1011121314151617",
        "00112233445566778899aabbccddeeff",
        "dda97ca4864cdfe06eaf70a0ec0d7191",
    ),
    (
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "00112233445566778899aabbccddeeff",
        "8ea2b7ca516745bfeafc49904b496089",
    ),
];

/// Runs FIPS-197 Appendix C through any block cipher, single block and batched.
pub(super) fn check_fips197(cipher: &mut dyn BlockCipherImpl) {
    for (key, pt, ct) in FIPS197_C {
        cipher.set_key(&h(key)).unwrap();
        let mut block = h(pt);
        cipher.encrypt_blocks(&mut block);
        assert_eq!(hex::encode(&block), ct);
        cipher.decrypt_blocks(&mut block);
        assert_eq!(hex::encode(&block), pt);
        // Nine copies: exercises full batches and a partial one.
        let mut many = h(pt).repeat(9);
        cipher.encrypt_blocks(&mut many);
        assert_eq!(many, h(ct).repeat(9));
        cipher.decrypt_blocks(&mut many);
        assert_eq!(many, h(pt).repeat(9));
    }
}

#[test]
fn generic_fips197() {
    check_fips197(&mut AesGeneric::new());
}

#[test]
fn generic_rejects_bad_key_lengths() {
    let mut c = AesGeneric::new();
    for len in [0, 8, 15, 17, 20, 31, 33, 64] {
        assert!(matches!(
            c.set_key(&vec![0u8; len]),
            Err(cryptoreg_registry::Error::InvalidKeyLength { .. })
        ));
    }
}

/// The per-block references the mode drivers are checked against, written in the most
/// obvious way over [`AesGeneric`] one block at a time.
mod reference {
    use super::*;
    use crate::xts_util::gf128_mul_x_ble;

    fn cipher(key: &[u8]) -> AesGeneric {
        let mut c = AesGeneric::new();
        c.set_key(key).unwrap();
        c
    }

    fn xor16(a: &mut [u8], b: &[u8]) {
        for (x, y) in a.iter_mut().zip(b) {
            *x ^= y;
        }
    }

    pub(super) fn ecb(key: &[u8], data: &mut [u8], enc: bool) {
        let c = cipher(key);
        for block in data.chunks_exact_mut(16) {
            if enc {
                c.encrypt_blocks(block);
            } else {
                c.decrypt_blocks(block);
            }
        }
    }

    pub(super) fn cbc(key: &[u8], iv: &[u8], data: &mut [u8], enc: bool) {
        let c = cipher(key);
        let mut prev = iv.to_vec();
        for block in data.chunks_exact_mut(16) {
            if enc {
                xor16(block, &prev);
                c.encrypt_blocks(block);
                prev = block.to_vec();
            } else {
                let ct = block.to_vec();
                c.decrypt_blocks(block);
                xor16(block, &prev);
                prev = ct;
            }
        }
    }

    pub(super) fn ctr(key: &[u8], iv: &[u8], data: &mut [u8]) {
        let c = cipher(key);
        let mut counter = u128::from_be_bytes(iv.try_into().unwrap());
        for piece in data.chunks_mut(16) {
            let mut ks = counter.to_be_bytes();
            c.encrypt_blocks(&mut ks);
            xor16(piece, &ks);
            counter = counter.wrapping_add(1);
        }
    }

    pub(super) fn xts(key: &[u8], iv: &[u8], data: &mut [u8], enc: bool) {
        let (k1, k2) = key.split_at(key.len() / 2);
        let (c1, c2) = (cipher(k1), cipher(k2));
        let mut t: [u8; 16] = iv.try_into().unwrap();
        c2.encrypt_blocks(&mut t);
        let one = |t: &[u8; 16], block: &mut [u8]| {
            xor16(block, t);
            if enc {
                c1.encrypt_blocks(block);
            } else {
                c1.decrypt_blocks(block);
            }
            xor16(block, t);
        };
        let r = data.len() % 16;
        let full = data.len() / 16 - usize::from(r != 0);
        for block in data[..16 * full].chunks_exact_mut(16) {
            one(&t, block);
            gf128_mul_x_ble(&mut t);
        }
        if r != 0 {
            let mut t_next = t;
            gf128_mul_x_ble(&mut t_next);
            let (t_a, t_b) = if enc { (t, t_next) } else { (t_next, t) };
            let tail = &mut data[16 * full..];
            let mut cc = tail[..16].to_vec();
            one(&t_a, &mut cc);
            let mut pp = cc.clone();
            pp[..r].copy_from_slice(&tail[16..]);
            one(&t_b, &mut pp);
            tail[..16].copy_from_slice(&pp);
            tail[16..].copy_from_slice(&cc[..r]);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod aesni {
    use cryptoreg_registry::{Error, HostFeatures, SkcipherImpl};
    use rand::{Rng, RngCore, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::aes::aesni::{cbc::new_cbc, cipher::new_aes_aesni, ctr::new_ctr};
    use crate::aes::aesni::{ecb::new_ecb, xts::new_xts};

    /// Skips (returns false) only on a CPU without AES-NI.
    fn have_aesni() -> bool {
        let ok = std::arch::is_x86_feature_detected!("aes");
        if !ok {
            eprintln!("skipping: no AES-NI on this CPU");
        }
        ok
    }

    fn rng() -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(0xc0ff_eeae_5202_6000)
    }

    fn random(rng: &mut ChaCha8Rng, len: usize) -> Vec<u8> {
        let mut v = vec![0u8; len];
        rng.fill_bytes(&mut v);
        v
    }

    /// An XTS key whose halves differ.
    fn xts_key(rng: &mut ChaCha8Rng, len: usize) -> Vec<u8> {
        let mut k = random(rng, len);
        k[0] = !k[len / 2];
        k
    }

    #[test]
    fn aesni_fips197() {
        if have_aesni() {
            check_fips197(new_aes_aesni(&HostFeatures::detect()).unwrap().as_mut());
        }
    }

    #[test]
    fn aesni_matches_generic() {
        if !have_aesni() {
            return;
        }
        let mut rng = rng();
        let mut fast = new_aes_aesni(&HostFeatures::detect()).unwrap();
        let mut slow = AesGeneric::new();
        for klen in [16, 24, 32] {
            for blocks in (0..=40).chain([64, 257]) {
                let key = random(&mut rng, klen);
                fast.set_key(&key).unwrap();
                slow.set_key(&key).unwrap();
                let pt = random(&mut rng, 16 * blocks);
                let (mut a, mut b) = (pt.clone(), pt.clone());
                fast.encrypt_blocks(&mut a);
                slow.encrypt_blocks(&mut b);
                assert_eq!(a, b, "encrypt klen={klen} blocks={blocks}");
                fast.decrypt_blocks(&mut a);
                slow.decrypt_blocks(&mut b);
                assert_eq!(a, pt, "decrypt klen={klen} blocks={blocks}");
                assert_eq!(b, pt);
            }
        }
        for len in [0, 8, 20, 33, 64] {
            assert!(matches!(
                fast.set_key(&vec![1u8; len]),
                Err(Error::InvalidKeyLength { .. })
            ));
        }
    }

    /// Checks a driver against a reference on one request: one-shot encrypt and decrypt,
    /// then the split path (pieces of `encrypt_blocks` + `encrypt_tail`) both ways.
    fn check(
        drv: &dyn SkcipherImpl,
        iv: &[u8],
        pt: &[u8],
        want: &[u8],
        rng: &mut ChaCha8Rng,
        what: &str,
    ) {
        let mut buf = pt.to_vec();
        drv.encrypt(iv, &mut buf).unwrap();
        assert_eq!(buf, want, "{what}: encrypt len={}", pt.len());
        drv.decrypt(iv, &mut buf).unwrap();
        assert_eq!(buf, pt, "{what}: decrypt len={}", pt.len());
        for enc in [true, false] {
            let (input, output) = if enc { (pt, want) } else { (want, pt) };
            let mut buf = input.to_vec();
            split_crypt(drv, iv, &mut buf, enc, rng);
            assert_eq!(buf, output, "{what}: split enc={enc} len={}", pt.len());
        }
    }

    /// The segment walker's way: `start`, `*_blocks` over random whole-chunk pieces, then
    /// the tail in one piece.
    fn split_crypt(
        drv: &dyn SkcipherImpl,
        iv: &[u8],
        data: &mut [u8],
        enc: bool,
        rng: &mut ChaCha8Rng,
    ) {
        let tail = drv.tail_len(data.len()).unwrap();
        let mut state = [0u8; 16];
        drv.start(iv, &mut state).unwrap();
        let (mut body, rest) = data.split_at_mut(data.len() - tail);
        while !body.is_empty() {
            let chunks = body.len() / 16;
            let take = 16 * rng.gen_range(1..=chunks.min(11));
            let (piece, more) = body.split_at_mut(take);
            if enc {
                drv.encrypt_blocks(&mut state, piece);
            } else {
                drv.decrypt_blocks(&mut state, piece);
            }
            body = more;
        }
        if enc {
            drv.encrypt_tail(&mut state, rest);
        } else {
            drv.decrypt_tail(&mut state, rest);
        }
    }

    fn lengths(step: usize, min: usize) -> impl Iterator<Item = usize> {
        (min..=100)
            .filter(move |l| l % step == 0)
            .chain([127, 128, 129, 1024, 4096, 4111, 8000])
            .filter(move |l| l % step == 0)
    }

    #[test]
    fn ecb_matches_reference() {
        if !have_aesni() {
            return;
        }
        let mut rng = rng();
        let mut drv = new_ecb(&HostFeatures::detect()).unwrap();
        for klen in [16, 24, 32] {
            let key = random(&mut rng, klen);
            drv.set_key(&key).unwrap();
            for len in lengths(16, 0) {
                let pt = random(&mut rng, len);
                let mut want = pt.clone();
                reference::ecb(&key, &mut want, true);
                check(drv.as_ref(), &[], &pt, &want, &mut rng, "ecb");
            }
        }
    }

    #[test]
    fn cbc_matches_reference() {
        if !have_aesni() {
            return;
        }
        let mut rng = rng();
        let mut drv = new_cbc(&HostFeatures::detect()).unwrap();
        for klen in [16, 24, 32] {
            let key = random(&mut rng, klen);
            drv.set_key(&key).unwrap();
            for len in lengths(16, 0) {
                let iv = random(&mut rng, 16);
                let pt = random(&mut rng, len);
                let mut want = pt.clone();
                reference::cbc(&key, &iv, &mut want, true);
                let mut back = want.clone();
                reference::cbc(&key, &iv, &mut back, false);
                assert_eq!(back, pt, "reference round trip");
                check(drv.as_ref(), &iv, &pt, &want, &mut rng, "cbc");
            }
        }
    }

    #[test]
    fn ctr_matches_reference_and_wraps() {
        if !have_aesni() {
            return;
        }
        let mut rng = rng();
        let mut drv = new_ctr(&HostFeatures::detect()).unwrap();
        for klen in [16, 24, 32] {
            let key = random(&mut rng, klen);
            drv.set_key(&key).unwrap();
            for len in lengths(1, 0) {
                // Random IVs, and counters that carry across 8 and 16 bytes mid-request.
                let mut wrap = [0xffu8; 16];
                wrap[15] = 0xfd;
                let mut mid = [0u8; 16];
                mid[..8].copy_from_slice(&[0x12; 8]);
                mid[8..].fill(0xff);
                mid[15] = 0xfe;
                for iv in [
                    random(&mut rng, 16),
                    wrap.to_vec(),
                    [0xff; 16].to_vec(),
                    mid.to_vec(),
                ] {
                    let pt = random(&mut rng, len);
                    let mut want = pt.clone();
                    reference::ctr(&key, &iv, &mut want);
                    check(drv.as_ref(), &iv, &pt, &want, &mut rng, "ctr");
                }
            }
        }
        // ff..ff wraps to 00..00: the second keystream block is E(0).
        let key = [0x2bu8; 16];
        drv.set_key(&key).unwrap();
        let mut data = [0u8; 32];
        drv.encrypt(&[0xff; 16], &mut data).unwrap();
        let mut zero = [0u8; 16];
        let mut g = AesGeneric::new();
        g.set_key(&key).unwrap();
        g.encrypt_blocks(&mut zero);
        assert_eq!(data[16..], zero);
    }

    #[test]
    fn xts_matches_reference() {
        if !have_aesni() {
            return;
        }
        let mut rng = rng();
        let mut drv = new_xts(&HostFeatures::detect()).unwrap();
        for klen in [32, 48, 64] {
            let key = xts_key(&mut rng, klen);
            drv.set_key(&key).unwrap();
            for len in lengths(1, 16) {
                let iv = random(&mut rng, 16);
                let pt = random(&mut rng, len);
                let mut want = pt.clone();
                reference::xts(&key, &iv, &mut want, true);
                let mut back = want.clone();
                reference::xts(&key, &iv, &mut back, false);
                assert_eq!(back, pt, "reference round trip len={len}");
                check(drv.as_ref(), &iv, &pt, &want, &mut rng, "xts");
            }
        }
    }

    /// SP 800-38A F.1.1, F.2.1, F.5.1 (AES-128, four blocks).
    #[test]
    fn sp800_38a_vectors() {
        if !have_aesni() {
            return;
        }
        let key = h("2b7e151628aed2a6abf7158809cf4f3c");
        let pt = h(concat!(
            "6bc1bee22e409f96e93d7e117393172a",
            "ae2d8a571e03ac9c9eb76fac45af8e51",
            "30c81c46a35ce411e5fbc1191a0a52ef",
            "f69f2445df4f9b17ad2b417be66c3710"
        ));
        let cases: [(Box<dyn SkcipherImpl>, &str, &str); 3] = [
            (
                new_ecb(&HostFeatures::detect()).unwrap(),
                "",
                concat!(
                    "3ad77bb40d7a3660a89ecaf32466ef97",
                    "f5d3d58503b9699de785895a96fdbaaf",
                    "43b1cd7f598ece23881b00e3ed030688",
                    "7b0c785e27e8ad3f8223207104725dd4"
                ),
            ),
            (
                new_cbc(&HostFeatures::detect()).unwrap(),
                "000102030405060708090a0b0c0d0e0f",
                concat!(
                    "7649abac8119b246cee98e9b12e9197d",
                    "5086cb9b507219ee95db113a917678b2",
                    "73bed6b8e3c1743b7116e69e22229516",
                    "3ff1caa1681fac09120eca307586e1a7"
                ),
            ),
            (
                new_ctr(&HostFeatures::detect()).unwrap(),
                "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
                concat!(
                    "874d6191b620e3261bef6864990db6ce",
                    "9806f66b7970fdff8617187bb9fffdff",
                    "5ae4df3edbd5d35e5b4f09020db03eab",
                    "1e031dda2fbe03d1792170a0f3009cee"
                ),
            ),
        ];
        let mut rng = rng();
        for (mut drv, iv, ct) in cases {
            drv.set_key(&key).unwrap();
            check(drv.as_ref(), &h(iv), &pt, &h(ct), &mut rng, iv);
            // The reference agrees too (it is what the random tests trust).
            let mut r = pt.clone();
            match iv {
                "" => reference::ecb(&key, &mut r, true),
                "000102030405060708090a0b0c0d0e0f" => reference::cbc(&key, &h(iv), &mut r, true),
                _ => reference::ctr(&key, &h(iv), &mut r),
            }
            assert_eq!(r, h(ct));
        }
    }

    /// IEEE 1619-2007 XTS-AES vectors 2 (whole blocks) and 15 (17 bytes: stealing).
    #[test]
    fn ieee1619_vectors() {
        if !have_aesni() {
            return;
        }
        let cases = [
            (
                "1111111111111111111111111111111122222222222222222222222222222222",
                "33333333330000000000000000000000",
                "4444444444444444444444444444444444444444444444444444444444444444",
                "c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0",
            ),
            (
                "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0",
                "9a785634120000000000000000000000",
                "000102030405060708090a0b0c0d0e0f10",
                "6c1625db4671522d3d7599601de7ca09ed",
            ),
        ];
        let mut rng = rng();
        let mut drv = new_xts(&HostFeatures::detect()).unwrap();
        for (key, iv, pt, ct) in cases {
            drv.set_key(&h(key)).unwrap();
            check(drv.as_ref(), &h(iv), &h(pt), &h(ct), &mut rng, "ieee1619");
            let mut r = h(pt);
            reference::xts(&h(key), &h(iv), &mut r, true);
            assert_eq!(r, h(ct));
        }
    }

    #[test]
    fn rejections() {
        if !have_aesni() {
            return;
        }
        let iv = [0u8; 16];
        for mut drv in [
            new_ecb(&HostFeatures::detect()).unwrap(),
            new_cbc(&HostFeatures::detect()).unwrap(),
            new_ctr(&HostFeatures::detect()).unwrap(),
        ] {
            for len in [0, 15, 17, 33, 48] {
                assert!(matches!(
                    drv.set_key(&vec![3u8; len]),
                    Err(Error::InvalidKeyLength { .. })
                ));
            }
            drv.set_key(&[3u8; 16]).unwrap();
            assert!(matches!(
                drv.encrypt(&iv[..8], &mut [0u8; 16]),
                Err(Error::InvalidIvLength { len: 8, .. }) | Ok(())
            ));
        }
        for mut drv in [
            new_ecb(&HostFeatures::detect()).unwrap(),
            new_cbc(&HostFeatures::detect()).unwrap(),
        ] {
            drv.set_key(&[3u8; 16]).unwrap();
            for len in [1, 15, 17, 31, 100] {
                let mut data = vec![0u8; len];
                assert!(matches!(
                    drv.encrypt(&iv, &mut data),
                    Err(Error::InvalidLength { .. })
                ));
                assert!(matches!(
                    drv.decrypt(&iv, &mut data),
                    Err(Error::InvalidLength { .. })
                ));
                assert!(data.iter().all(|&b| b == 0), "untouched on error");
            }
        }
        let mut xts = new_xts(&HostFeatures::detect()).unwrap();
        for len in [16, 24, 31, 33, 63, 65, 128] {
            assert!(matches!(
                xts.set_key(&vec![3u8; len]),
                Err(Error::InvalidKeyLength { .. })
            ));
        }
        for len in [32, 48, 64] {
            assert!(matches!(
                xts.set_key(&vec![9u8; len]),
                Err(Error::WeakKey(_))
            ));
        }
        let mut key = [9u8; 32];
        key[31] = 1;
        xts.set_key(&key).unwrap();
        for len in 0..16 {
            let mut data = vec![0u8; len];
            assert!(matches!(
                xts.encrypt(&iv, &mut data),
                Err(Error::InvalidLength { .. })
            ));
            assert!(matches!(
                xts.decrypt(&iv, &mut data),
                Err(Error::InvalidLength { .. })
            ));
        }
        assert!(matches!(
            xts.encrypt(&iv[..12], &mut [0u8; 16]),
            Err(Error::InvalidIvLength { len: 12, .. })
        ));
    }
}
