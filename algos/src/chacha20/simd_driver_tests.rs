// The ChaCha20 / XChaCha20 SIMD driver tests shared by every architecture's ladder:
// the standards' vectors (RFC 8439, draft-irtf-cfrg-xchacha-03, from the self-test data
// files), differential tests against `chacha20-generic` / `xchacha20-generic` over random
// lengths, counters (near the 32-bit end too), in place and out of place, one-shot and
// streamed in random splits; the block-2^32 refusals; the CPU-token refusal.
//
// Textually included (`include!`) by `chacha20/simd/tests.rs` (x86: ssse3, avx2,
// avx512vl, avx512f) and `chacha20/neon/tests.rs` (neon), after each has defined its
// widths: `Width`, `WIDTHS`, `width_on`, `runnable`, `token_features`, and the driver
// types `ChaCha20Simd` / `XChaCha20Simd`. A plain comment, not `//!`: an included file
// holds items only.

fn chacha(w: Width, key: &[u8]) -> ChaCha20Simd {
    let mut c = ChaCha20Simd::new("chacha20-test", w);
    c.set_key(key).unwrap();
    c
}

fn xchacha(w: Width, key: &[u8]) -> XChaCha20Simd {
    let mut c = XChaCha20Simd::new("xchacha20-test", w);
    c.set_key(key).unwrap();
    c
}

fn generic(key: &[u8]) -> ChaCha20Generic {
    let mut c = ChaCha20Generic::new();
    c.set_key(key).unwrap();
    c
}

fn iv_with(counter: u32, nonce: &[u8; 12]) -> [u8; 16] {
    let mut iv = [0u8; 16];
    iv[..4].copy_from_slice(&counter.to_le_bytes());
    iv[4..].copy_from_slice(nonce);
    iv
}

/// Every ChaCha20 vector of RFC 8439 (`selftest/vectors/chacha20.toml`: 2.3.2, 2.4.2,
/// 2.6.2, A.1, A.2, A.4) and the XChaCha20 one of draft-irtf-cfrg-xchacha-03
/// (`xchacha20.toml`), one-shot in place both ways, out of place, and streamed one block
/// at a time, on every width this CPU runs.
#[test]
fn standard_vectors_every_width() {
    let chacha_ok = test_vectors::ok("chacha20", 14);
    let xchacha_ok = test_vectors::ok("xchacha20", 1);
    for (w, name) in runnable("standard_vectors_every_width") {
        for v in &chacha_ok {
            let what = format!("chacha20-{name}: {}", v.source);
            let c = chacha(w, &v.key);
            let mut buf = v.plaintext.clone();
            c.encrypt(&v.iv, &mut buf).unwrap();
            assert_eq!(buf, v.ciphertext, "{what}: encrypt");
            c.decrypt(&v.iv, &mut buf).unwrap();
            assert_eq!(buf, v.plaintext, "{what}: decrypt");
            let mut out = vec![0u8; v.plaintext.len()];
            c.encrypt_to(&v.iv, &v.plaintext, &mut out).unwrap();
            assert_eq!(out, v.ciphertext, "{what}: encrypt_to");
            let mut state = [0u8; 16];
            c.start(&v.iv, &mut state).unwrap();
            let mut buf = v.plaintext.clone();
            let body = buf.len() - c.tail_len(buf.len()).unwrap();
            let (blocks, tail) = buf.split_at_mut(body);
            for block in blocks.chunks_mut(64) {
                c.encrypt_blocks(&mut state, block);
            }
            c.encrypt_tail(&mut state, tail);
            assert_eq!(buf, v.ciphertext, "{what}: streamed");
        }
        for v in &xchacha_ok {
            let what = format!("xchacha20-{name}: {}", v.source);
            let x = xchacha(w, &v.key);
            let mut buf = v.plaintext.clone();
            x.encrypt(&v.iv, &mut buf).unwrap();
            assert_eq!(buf, v.ciphertext, "{what}: encrypt");
            x.decrypt(&v.iv, &mut buf).unwrap();
            assert_eq!(buf, v.plaintext, "{what}: decrypt");
            let mut out = vec![0u8; v.plaintext.len()];
            x.encrypt_to(&v.iv, &v.plaintext, &mut out).unwrap();
            assert_eq!(out, v.ciphertext, "{what}: encrypt_to");
        }
    }
}

/// Lengths where the glue changes kernels (per width: 1, 2, 4, 8, 16 blocks and their
/// halves; on zmm also 12 and 13, where three horizontal rows give way to a vertical
/// batch), block multiples, and uniform ones up to 5000.
fn random_len(rng: &mut ChaCha20Rng) -> usize {
    const EDGES: [usize; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17];
    match rng.gen_range(0..4) {
        0 => (64 * EDGES[rng.gen_range(0..EDGES.len())] + rng.gen_range(0..3)).saturating_sub(1),
        1 => 64 * rng.gen_range(0..79),
        2 => 64 * EDGES[rng.gen_range(0..EDGES.len())].saturating_sub(1) + rng.gen_range(1..64),
        _ => rng.gen_range(0..5000),
    }
}

/// A counter with room for `len` bytes: random, or right at the end of the 32-bit space.
fn random_counter(rng: &mut ChaCha20Rng, len: usize) -> u32 {
    let blocks = len.div_ceil(64) as u64;
    let last = (1u64 << 32) - blocks; // the largest counter with room
    match rng.gen_range(0..4) {
        0 => last as u32,
        1 => last.saturating_sub(rng.gen_range(0..40)) as u32,
        2 => rng.gen_range(0..4),
        _ => rng.gen_range(0..=last) as u32,
    }
}

/// One-shot, in place and out of place (into a larger buffer whose other bytes must stay
/// untouched), against `chacha20-generic`.
#[test]
fn one_shot_matches_generic() {
    let mut rng = ChaCha20Rng::seed_from_u64(0xC4AC_4A20);
    let widths = runnable("one_shot_matches_generic");
    for i in 0..3000 {
        let len = if i < 400 { i } else { random_len(&mut rng) };
        let key: [u8; 32] = rng.gen();
        let nonce: [u8; 12] = rng.gen();
        let iv = iv_with(random_counter(&mut rng, len), &nonce);
        let plain: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let mut want = plain.clone();
        generic(&key).encrypt(&iv, &mut want).unwrap();
        for &(w, name) in &widths {
            let c = chacha(w, &key);
            let mut got = plain.clone();
            c.encrypt(&iv, &mut got).unwrap();
            assert_eq!(
                got,
                want,
                "{name} in place len={len} iv={}",
                hex::encode(iv)
            );

            let (front, back) = (rng.gen_range(0..70), rng.gen_range(0..70));
            let mut big = vec![0x5au8; front + len + back];
            c.decrypt_to(&iv, &plain, &mut big[front..front + len])
                .unwrap();
            assert_eq!(
                &big[front..front + len],
                &want[..],
                "{name} out of place len={len}"
            );
            assert!(
                big[..front]
                    .iter()
                    .chain(&big[front + len..])
                    .all(|&b| b == 0x5a),
                "{name} wrote outside its output, len={len}"
            );
        }
    }
}

/// Start + whole chunks in random splits + tail (the walker's calls, in place and out of
/// place) against the generic one-shot; the chaining state carries the counter.
#[test]
fn streamed_matches_one_shot() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x0571_3EA3);
    let widths = runnable("streamed_matches_one_shot");
    for _ in 0..600 {
        let len = random_len(&mut rng);
        let key: [u8; 32] = rng.gen();
        let nonce: [u8; 12] = rng.gen();
        let iv = iv_with(random_counter(&mut rng, len), &nonce);
        let plain: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let mut want = plain.clone();
        generic(&key).encrypt(&iv, &mut want).unwrap();
        for &(w, name) in &widths {
            let c = chacha(w, &key);
            c.check_request(&iv, len).unwrap();
            let oop = rng.gen_bool(0.5);
            let tail = c.tail_len(len).unwrap();
            let body = len - tail;
            let mut state = [0u8; 16];
            c.start(&iv, &mut state).unwrap();
            let mut out = if oop { vec![0u8; len] } else { plain.clone() };
            let mut off = 0;
            while off < body {
                let n = 64 * rng.gen_range(1..=(body - off) / 64);
                if oop {
                    c.encrypt_blocks_to(&mut state, &plain[off..off + n], &mut out[off..off + n]);
                } else {
                    c.encrypt_blocks(&mut state, &mut out[off..off + n]);
                }
                off += n;
            }
            if oop {
                c.encrypt_tail_to(&mut state, &plain[body..], &mut out[body..]);
            } else {
                c.encrypt_tail(&mut state, &mut out[body..]);
            }
            assert_eq!(
                out,
                want,
                "{name} streamed oop={oop} len={len} iv={}",
                hex::encode(iv)
            );
        }
    }
}

/// A request that would pass block 2^32 is refused before any byte is written; one that
/// ends exactly at block 2^32 - 1 is accepted.
#[test]
fn refuses_past_block_2_32() {
    let key = [7u8; 32];
    let nonce = [9u8; 12];
    for (w, name) in runnable("refuses_past_block_2_32") {
        let c = chacha(w, &key);
        for len in [1usize, 63, 64, 65, 128, 1000, 4096, 4097] {
            let blocks = len.div_ceil(64) as u64;
            let ok_iv = iv_with(((1u64 << 32) - blocks) as u32, &nonce);
            let mut data = vec![0u8; len];
            c.encrypt(&ok_iv, &mut data).unwrap();
            assert!(
                data.iter().any(|&b| b != 0),
                "{name} len={len}: no keystream"
            );
            if blocks == 1 {
                continue; // no counter is one block short of room
            }
            let bad_iv = iv_with(((1u64 << 32) - blocks + 1) as u32, &nonce);
            let mut data = vec![0u8; len];
            let err = c.encrypt(&bad_iv, &mut data).unwrap_err();
            assert!(
                matches!(err, Error::InvalidLength { .. }),
                "{name} len={len}: {err:?}"
            );
            assert!(
                data.iter().all(|&b| b == 0),
                "{name} len={len}: wrote after refusing"
            );
            let mut out = vec![0u8; len];
            let err = c.encrypt_to(&bad_iv, &data, &mut out).unwrap_err();
            assert!(
                matches!(err, Error::InvalidLength { .. }),
                "{name} len={len}: {err:?}"
            );
            assert!(
                out.iter().all(|&b| b == 0),
                "{name} len={len}: wrote after refusing"
            );
            assert!(c.check_request(&bad_iv, len).is_err(), "{name} len={len}");
            assert!(c.check_request(&ok_iv, len).is_ok(), "{name} len={len}");
        }
        // The last counter value itself: exactly one block, then nothing more.
        let last = iv_with(u32::MAX, &nonce);
        assert!(c.encrypt(&last, &mut [0u8; 64]).is_ok(), "{name}");
        assert!(c.encrypt(&last, &mut [0u8; 65]).is_err(), "{name}");
        assert!(c.encrypt(&last, &mut []).is_ok(), "{name}: empty request");
    }
}

/// Bad key and IV lengths are errors; an unkeyed driver refuses.
#[test]
fn bad_input_is_an_error() {
    for (w, name) in runnable("bad_input_is_an_error") {
        let mut c = ChaCha20Simd::new("chacha20-test", w);
        assert!(
            matches!(c.encrypt(&[0; 16], &mut [0; 10]), Err(Error::NoKey)),
            "{name}"
        );
        assert!(
            matches!(c.set_key(&[0; 16]), Err(Error::InvalidKeyLength { .. })),
            "{name}"
        );
        c.set_key(&[1; 32]).unwrap();
        assert!(
            matches!(
                c.encrypt(&[0; 12], &mut [0; 10]),
                Err(Error::InvalidIvLength { .. })
            ),
            "{name}"
        );
        assert!(matches!(
            c.encrypt_to(&[0; 16], &[0; 10], &mut [0; 11]),
            Err(Error::LengthMismatch { .. })
        ));
        let x = xchacha(w, &[1; 32]);
        assert!(
            matches!(
                x.encrypt(&[0; 16], &mut [0; 10]),
                Err(Error::InvalidIvLength { .. })
            ),
            "{name}"
        );
    }
}

/// XChaCha20 one-shot (in place, out of place) and through the per-request cipher the
/// walker uses, against `xchacha20-generic`.
#[test]
fn xchacha_matches_generic() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x03C4_AC4A);
    let widths = runnable("xchacha_matches_generic");
    for _ in 0..400 {
        let len = random_len(&mut rng);
        let key: [u8; 32] = rng.gen();
        let mut iv: [u8; 32] = rng.gen();
        if rng.gen_bool(0.5) {
            // Counter right at the end of the 32-bit space (IV[24..28]).
            let c = random_counter(&mut rng, len);
            iv[24..28].copy_from_slice(&c.to_le_bytes());
        }
        let plain: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let mut g = XChaCha20Generic::new();
        g.set_key(&key).unwrap();
        let mut want = plain.clone();
        g.encrypt(&iv, &mut want).unwrap();
        for &(w, name) in &widths {
            let x = xchacha(w, &key);
            let mut got = plain.clone();
            x.encrypt(&iv, &mut got).unwrap();
            assert_eq!(got, want, "x{name} in place len={len}");
            let mut out = vec![0u8; len];
            x.decrypt_to(&iv, &plain, &mut out).unwrap();
            assert_eq!(out, want, "x{name} out of place len={len}");
            let (inner, inner_iv) = x.per_request_cipher(&iv).unwrap().unwrap();
            let mut got = plain.clone();
            inner.encrypt(&inner_iv, &mut got).unwrap();
            assert_eq!(got, want, "x{name} per-request cipher len={len}");
        }
    }
}

/// XChaCha20 refuses past block 2^32 too (counter in IV[24..28]).
#[test]
fn xchacha_refuses_past_block_2_32() {
    for (w, name) in runnable("xchacha_refuses_past_block_2_32") {
        let x = xchacha(w, &[3; 32]);
        let mut iv = [0u8; 32];
        iv[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
        let mut data = [0u8; 65];
        assert!(
            matches!(x.encrypt(&iv, &mut data), Err(Error::InvalidLength { .. })),
            "x{name}"
        );
        assert!(
            data.iter().all(|&b| b == 0),
            "x{name}: wrote after refusing"
        );
        assert!(x.encrypt(&iv, &mut data[..64]).is_ok(), "x{name}");
    }
}

/// Each width's constructor refuses when any one feature of its token is masked.
#[test]
fn tokens_refuse_a_masked_feature_each() {
    let host = HostFeatures::detect();
    for name in WIDTHS {
        let features: &[Feature] = token_features(name);
        for &f in features {
            let masked = host.without(Features::of(&[f]));
            let refused = width_on(&masked, name);
            assert!(
                matches!(refused, Err(Error::Unsupported { ref missing, .. }) if missing.contains(f.name())),
                "{name} with {f} masked: {refused:?}"
            );
        }
    }
}
