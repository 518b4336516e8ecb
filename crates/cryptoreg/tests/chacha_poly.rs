//! The ChaCha20 / Poly1305 ladder through the facade: the generic drivers and the
//! `rfc7539` / `rfc7539esp` template instances pass the boot self-test (known answers and
//! randomized cases), resolve by name with the kernel's derived names and priorities,
//! agree with each other, and refuse bad input with error values.

mod common;

use cryptoreg::Error;

#[test]
fn instances_are_built_tested_and_named_as_the_kernel_does() {
    let reg = common::boot("", None);
    for (alg, tmpl) in [
        ("rfc7539(chacha20,poly1305)", "rfc7539"),
        ("rfc7539esp(chacha20,poly1305)", "rfc7539esp"),
    ] {
        let h = reg.alloc_aead(alg).unwrap();
        // Where a fused driver (`rfc7539-chacha20-poly1305-*`) outranks the instance, the
        // name resolves to it; the instance is then built by its children's names.
        let h = if h.driver_name().starts_with(&format!("{tmpl}(")) {
            h
        } else {
            let fused = reg
                .list()
                .into_iter()
                .find(|e| e.driver == h.driver_name())
                .unwrap();
            assert!(
                !fused.instance && fused.state == "passed",
                "{alg}: {}",
                fused.driver
            );
            let best_child = |name: &str| {
                reg.list()
                    .into_iter()
                    .filter(|c| c.name == name && !c.instance && c.state == "passed")
                    .max_by_key(|c| c.priority)
                    .unwrap()
                    .driver
            };
            reg.alloc_aead(&format!(
                "{tmpl}({},{})",
                best_child("chacha20"),
                best_child("poly1305")
            ))
            .unwrap()
        };
        let e = reg
            .list()
            .into_iter()
            .find(|e| e.name == alg && e.instance)
            .unwrap_or_else(|| panic!("{alg} instance listed"));
        assert_eq!(e.state, "passed", "{alg}: {:?}", e.failures);
        assert!(e.tests > 1, "{alg} ran {} checks", e.tests);
        assert!(
            e.driver.starts_with(&format!("{tmpl}(chacha20-")),
            "{}",
            e.driver
        );
        let chacha = reg.list().into_iter().filter(|c| c.name == "chacha20");
        let poly = reg.list().into_iter().filter(|c| c.name == "poly1305");
        let best = |it: &mut dyn Iterator<Item = cryptoreg::ListEntry>| {
            it.filter(|c| c.state == "passed")
                .map(|c| c.priority)
                .max()
                .unwrap()
        };
        let want = (best(&mut { chacha }) + best(&mut { poly })) / 2;
        assert_eq!(e.priority, want, "{alg}: the average of the children");
        assert_eq!(h.authsize(), 16);
    }
    let g = reg
        .alloc_aead("rfc7539(chacha20-generic,poly1305-generic)")
        .unwrap();
    assert_eq!(
        g.driver_name(),
        "rfc7539(chacha20-generic,poly1305-generic)"
    );
}

#[test]
fn generic_aeads_agree_and_refuse_bad_input() {
    let reg = common::boot("", None);
    let key = common::bytes(1, 32);
    let mut rfc = reg.alloc_aead("rfc7539(chacha20,poly1305)").unwrap();
    rfc.set_key(&key).unwrap();
    let mut esp = reg.alloc_aead("rfc7539esp(chacha20,poly1305)").unwrap();
    let mut esp_key = key.clone();
    esp_key.extend_from_slice(&[9, 8, 7, 6]);
    esp.set_key(&esp_key).unwrap();
    let pt = common::bytes(2, 1000);
    let aad = common::bytes(3, 12);
    let iv = common::bytes(4, 8);
    let mut nonce = vec![9, 8, 7, 6];
    nonce.extend_from_slice(&iv);

    let (mut a, mut b) = (pt.clone(), pt.clone());
    let (mut ta, mut tb) = ([0u8; 16], [0u8; 16]);
    rfc.seal(&nonce, &aad, &mut a, &mut ta).unwrap();
    esp.seal(&iv, &aad, &mut b, &mut tb).unwrap();
    assert_eq!((a.clone(), ta), (b, tb), "ESP is RFC 8439 under salt || IV");
    assert_ne!(a, pt);

    // The tag is checked before anything is decrypted: the buffer keeps the ciphertext
    // or is wiped by the handle, and never holds plaintext.
    let mut bad = a.clone();
    let mut tbad = ta;
    tbad[3] ^= 0x10;
    assert_eq!(
        rfc.open(&nonce, &aad, &mut bad, &tbad),
        Err(Error::BadMessage)
    );
    assert_ne!(bad, pt);
    let mut ok = a.clone();
    rfc.open(&nonce, &aad, &mut ok, &ta).unwrap();
    assert_eq!(ok, pt);

    // Tag 16 only; ESP AAD 8 or 12 bytes; nonce sizes.
    assert!(matches!(
        rfc.set_authsize(12),
        Err(Error::InvalidAuthsize { .. })
    ));
    let mut buf = pt.clone();
    let mut tag = [0u8; 16];
    assert!(matches!(
        esp.seal(&iv, &aad[..10], &mut buf, &mut tag),
        Err(Error::InvalidLength { .. })
    ));
    assert_eq!(buf, pt, "a refused request writes nothing");
    esp.seal(&iv, &aad[..8], &mut buf, &mut tag).unwrap();
    assert!(rfc.seal(&iv, &aad, &mut buf, &mut tag).is_err());
    assert!(matches!(
        rfc.set_key(&[0; 31]),
        Err(Error::InvalidKeyLength { .. })
    ));

    let mut x = reg.alloc_aead("xchacha20poly1305").unwrap();
    x.set_key(&key).unwrap();
    let xn = common::bytes(5, 24);
    let mut c = pt.clone();
    let mut t = [0u8; 16];
    x.seal(&xn, &aad, &mut c, &mut t).unwrap();
    x.open(&xn, &aad, &mut c, &t).unwrap();
    assert_eq!(c, pt);
}

/// The counter rule through the handles: `chacha20` from counter 2^32 - 2 takes two
/// blocks and refuses a third byte block, leaving the data as it was.
#[test]
fn chacha20_refuses_to_pass_block_2_pow_32() {
    let reg = common::boot("", None);
    let mut c = reg.alloc_skcipher("chacha20").unwrap();
    c.set_key(&common::bytes(7, 32)).unwrap();
    let mut iv = [0u8; 16];
    iv[..4].copy_from_slice(&(u32::MAX - 1).to_le_bytes());
    let mut data = vec![0x5a; 129];
    assert!(matches!(
        c.encrypt_in_place(&iv, &mut data),
        Err(Error::InvalidLength { .. })
    ));
    assert!(data.iter().all(|&b| b == 0x5a));
    c.encrypt_in_place(&iv, &mut data[..128]).unwrap();

    let mut x = reg.alloc_skcipher("xchacha20").unwrap();
    x.set_key(&common::bytes(8, 32)).unwrap();
    let mut xiv = common::bytes(9, 32);
    xiv[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
    let mut d = vec![1u8; 65];
    assert!(matches!(
        x.encrypt_in_place(&xiv, &mut d),
        Err(Error::InvalidLength { .. })
    ));
    assert!(d.iter().all(|&b| b == 1));
    x.encrypt_in_place(&xiv, &mut d[..64]).unwrap();
}

/// Splits `v` into pieces at the cut points drawn from `seed`.
fn pieces(v: &[u8], seed: u64) -> Vec<Vec<u8>> {
    let cuts = common::bytes(seed, 6);
    let mut out = Vec::new();
    let mut at = 0;
    for c in cuts {
        let n = (usize::from(c) % 97).min(v.len() - at);
        out.push(v[at..at + n].to_vec());
        at += n;
    }
    out.push(v[at..].to_vec());
    out
}

/// The generic AEADs are their own references, so the randomized differential test does
/// not run on them: here their streaming path (AAD and text scattered over pieces, the
/// walker's bounces, out of place) must give the one-shot path's ciphertext and tag, and
/// open a flipped copy with `BadMessage` and every piece wiped.
#[test]
fn streaming_paths_match_the_one_shot_path() {
    let reg = common::boot("", None);
    for (alg, klen, nlen, aad_lens) in [
        (
            "rfc7539(chacha20,poly1305)",
            32,
            12,
            &[0usize, 1, 12, 15, 16, 17, 100][..],
        ),
        ("rfc7539esp(chacha20,poly1305)", 36, 8, &[8, 12][..]),
        (
            "xchacha20poly1305",
            32,
            24,
            &[0, 1, 12, 15, 16, 17, 100][..],
        ),
    ] {
        let mut h = reg.alloc_aead(alg).unwrap();
        h.set_key(&common::bytes(11, klen)).unwrap();
        for (i, &alen) in aad_lens.iter().enumerate() {
            for (j, tlen) in [0usize, 1, 15, 16, 63, 64, 65, 130, 1000]
                .into_iter()
                .enumerate()
            {
                let seed = (i * 100 + j) as u64;
                let nonce = common::bytes(seed + 1, nlen);
                let aad = common::bytes(seed + 2, alen);
                let pt = common::bytes(seed + 3, tlen);
                let mut one = pt.clone();
                let mut tag = [0u8; 16];
                h.seal(&nonce, &aad, &mut one, &mut tag).unwrap();

                let aad_p = pieces(&aad, seed + 4);
                let aad_s: Vec<&[u8]> = aad_p.iter().map(Vec::as_slice).collect();
                let mut txt = pieces(&pt, seed + 5);
                let mut segs: Vec<&mut [u8]> = txt.iter_mut().map(Vec::as_mut_slice).collect();
                let mut tag2 = [0u8; 16];
                h.seal_segments(&nonce, &aad_s, &mut segs, &mut tag2)
                    .unwrap();
                assert_eq!(txt.concat(), one, "{alg} alen={alen} tlen={tlen}");
                assert_eq!(tag2, tag, "{alg} alen={alen} tlen={tlen}");

                let src_p = pieces(&one, seed + 6);
                let src_s: Vec<&[u8]> = src_p.iter().map(Vec::as_slice).collect();
                let mut dst = pieces(&vec![0u8; tlen], seed + 7);
                let mut dst_s: Vec<&mut [u8]> = dst.iter_mut().map(Vec::as_mut_slice).collect();
                h.open_to(&nonce, &aad_s, &src_s, &mut dst_s, &tag).unwrap();
                assert_eq!(dst.concat(), pt, "{alg} open_to alen={alen} tlen={tlen}");

                let mut bad = pieces(&one, seed + 8);
                let mut bad_s: Vec<&mut [u8]> = bad.iter_mut().map(Vec::as_mut_slice).collect();
                let mut tbad = tag;
                tbad[15] ^= 0x80;
                assert_eq!(
                    h.open_segments(&nonce, &aad_s, &mut bad_s, &tbad),
                    Err(Error::BadMessage)
                );
                assert!(bad.concat().iter().all(|&b| b == 0), "{alg}: wiped");
            }
        }
    }
}

/// The randomized runners on the generic drivers: a generic driver is its own reference,
/// so the boot skips its randomized cases, but a replay compares it with a second
/// instance. Replaying many case seeds runs the runners' draws on this ladder: `chacha20`
/// and `xchacha20` IVs near the counter wrap (both instances must refuse the same
/// requests), Poly1305 splits with export / import, AEAD flips and ESP AAD lengths.
#[test]
fn replayed_random_cases_pass_on_the_generic_drivers() {
    let reg = common::boot("", None);
    reg.alloc_aead("rfc7539(chacha20-generic,poly1305-generic)")
        .unwrap();
    reg.alloc_aead("rfc7539esp(chacha20-generic,poly1305-generic)")
        .unwrap();
    for driver in [
        "chacha20-generic",
        "xchacha20-generic",
        "poly1305-generic",
        "xchacha20poly1305-generic",
        "rfc7539(chacha20-generic,poly1305-generic)",
        "rfc7539esp(chacha20-generic,poly1305-generic)",
    ] {
        for seed in 0..64u64 {
            let params = cryptoreg::TestParams {
                mode: cryptoreg::SelftestMode::Full,
                iterations: 1,
                seed: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                replay: true,
                shard: cryptoreg::Shard::WHOLE,
                cpu: None,
            };
            let out = reg.run_selftest(driver, &params).unwrap();
            assert!(out.passed(), "{driver} seed {seed}: {:?}", out.failures);
        }
    }
}
