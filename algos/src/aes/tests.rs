//! Cross-driver tests: standards vectors, AES-NI against the generic cipher, and every
//! mode driver against a per-block reference built on [`AesGeneric`].

use cryptoreg_registry::BlockCipherImpl;

use super::AesGeneric;
use crate::testing::vectors as test_vectors;

/// FIPS-197 Appendix C (AES-128, -192, -256, from `selftest/vectors/aes.toml`) through any
/// block cipher, single block and batched.
pub(super) fn check_fips197(cipher: &mut dyn BlockCipherImpl) {
    for v in test_vectors::ok("aes", 3) {
        let what = &v.source;
        cipher.set_key(&v.key).unwrap();
        let mut block = v.plaintext.clone();
        cipher.encrypt_blocks(&mut block);
        assert_eq!(block, v.ciphertext, "{what}: encrypt");
        cipher.decrypt_blocks(&mut block);
        assert_eq!(block, v.plaintext, "{what}: decrypt");
        // Nine copies: exercises full batches and a partial one.
        let mut many = v.plaintext.repeat(9);
        cipher.encrypt_blocks(&mut many);
        assert_eq!(many, v.ciphertext.repeat(9), "{what}: batched encrypt");
        cipher.decrypt_blocks(&mut many);
        assert_eq!(many, v.plaintext.repeat(9), "{what}: batched decrypt");
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
/// obvious way over [`AesGeneric`] one block at a time. (Only the x86-64 drivers' tests use
/// them; the arm64 drivers' tests compare against the generic drivers directly.)
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
mod reference {
    use super::*;
    use crate::aes::xts_rules::gf128_mul_x_ble;

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

    /// SP 800-38A appendix F (ECB, CBC, CTR with AES-128/192/256) and RFC 3686 (CTR),
    /// from `selftest/vectors/{ecb,cbc,ctr}_aes.toml`, through the AES-NI mode drivers and
    /// the per-block references.
    #[test]
    fn sp800_38a_vectors() {
        if !have_aesni() {
            return;
        }
        type Reference = fn(&[u8], &[u8], &mut Vec<u8>);
        let modes: [(&str, usize, Box<dyn SkcipherImpl>, Reference); 3] = [
            (
                "ecb(aes)",
                3,
                new_ecb(&HostFeatures::detect()).unwrap(),
                |key, _, r| reference::ecb(key, r, true),
            ),
            (
                "cbc(aes)",
                3,
                new_cbc(&HostFeatures::detect()).unwrap(),
                |key, iv, r| reference::cbc(key, iv, r, true),
            ),
            (
                "ctr(aes)",
                6,
                new_ctr(&HostFeatures::detect()).unwrap(),
                |key, iv, r| reference::ctr(key, iv, r),
            ),
        ];
        let mut rng = rng();
        for (alg, min, mut drv, reference) in modes {
            for v in test_vectors::ok(alg, min) {
                drv.set_key(&v.key).unwrap();
                check(
                    drv.as_ref(),
                    &v.iv,
                    &v.plaintext,
                    &v.ciphertext,
                    &mut rng,
                    &v.source,
                );
                // The reference agrees too (it is what the random tests trust).
                let mut r = v.plaintext.clone();
                reference(&v.key, &v.iv, &mut r);
                assert_eq!(r, v.ciphertext, "{}: reference", v.source);
            }
        }
    }

    /// Every IEEE 1619-2007 XTS-AES vector of `selftest/vectors/xts_aes.toml`: the known
    /// answers (whole blocks, 512-byte units, ciphertext stealing) through the driver and
    /// the reference, and vector 1 (equal key halves) refused.
    #[test]
    fn ieee1619_vectors() {
        if !have_aesni() {
            return;
        }
        let mut rng = rng();
        let mut drv = new_xts(&HostFeatures::detect()).unwrap();
        for v in test_vectors::ok("xts(aes)", 18) {
            drv.set_key(&v.key).unwrap();
            check(
                drv.as_ref(),
                &v.iv,
                &v.plaintext,
                &v.ciphertext,
                &mut rng,
                &v.source,
            );
            let mut r = v.plaintext.clone();
            reference::xts(&v.key, &v.iv, &mut r, true);
            assert_eq!(r, v.ciphertext, "{}: reference", v.source);
        }
        for v in test_vectors::refused("xts(aes)", 1) {
            test_vectors::check_refused(new_xts(&HostFeatures::detect()).unwrap().as_mut(), &v);
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
