//! The AEAD and hash handles over the toy AEAD and toy MAC: every entry point (contiguous,
//! segmented, out of place), inauthentic inputs, bad input as error values; and the
//! skcipher walker's out-of-place path handing the driver (source, destination) pairs.

mod toy;
mod toy_aead;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cryptoreg_registry::inventory;
use cryptoreg_registry::*;
use toy_aead::*;

inventory::submit! { toyaead_def("toyaead-generic", 100, toyaead_generic) }
inventory::submit! { toyaead_def("toyaead-fast", 300, toyaead_fast) }
inventory::submit! { toymac_def("toymac", "toymac-generic", 100, true, toymac_generic) }
inventory::submit! { toymac_def("toymac", "toymac-fast", 300, true, toymac_fast) }
inventory::submit! { toymac_def("toysum", "toysum-generic", 100, false, toysum_generic) }

fn split<'a>(mut data: &'a mut [u8], cuts: &[usize]) -> Vec<&'a mut [u8]> {
    let mut out = Vec::new();
    for &c in cuts {
        let (a, b) = data.split_at_mut(c.min(data.len()));
        out.push(a);
        data = b;
    }
    out.push(data);
    out
}

fn split_ro<'a>(mut data: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    for &c in cuts {
        let (a, b) = data.split_at(c.min(data.len()));
        out.push(a);
        data = b;
    }
    out.push(data);
    out
}

const CUTS: &[&[usize]] = &[
    &[],
    &[0],
    &[1],
    &[7, 3],
    &[15, 1, 0, 16],
    &[3, 3, 3, 3, 3, 3, 3],
    &[64, 1],
];

#[test]
fn every_aead_entry_point_gives_the_reference_answer() {
    let reg = toy::boot("");
    for driver in ["toyaead-generic", "toyaead-fast"] {
        let mut h = reg.alloc_aead(driver).unwrap();
        let key = [9u8; 32];
        h.set_key(&key).unwrap();
        let nonce = [4u8; 12];
        for (alen, plen) in [
            (0, 0),
            (1, 1),
            (13, 15),
            (16, 16),
            (17, 33),
            (40, 100),
            (3, 257),
        ] {
            let aad: Vec<u8> = (0..alen).map(|i| i as u8 ^ 0x33).collect();
            let pt: Vec<u8> = (0..plen).map(|i| i as u8).collect();
            let (want_ct, want_tag) = toy_seal(&key, &nonce, &aad, &pt);
            let what = format!("{driver} alen={alen} plen={plen}");

            let mut data = pt.clone();
            let mut tag = [0u8; 16];
            h.seal(&nonce, &aad, &mut data, &mut tag).unwrap();
            assert_eq!((&data, tag), (&want_ct, want_tag), "{what} contiguous");
            h.open(&nonce, &aad, &mut data, &tag).unwrap();
            assert_eq!(data, pt, "{what}");

            for cuts in CUTS {
                let aad_pieces = split_ro(&aad, cuts);
                let mut data = pt.clone();
                let mut tag = [0u8; 16];
                h.seal_segments(&nonce, &aad_pieces, &mut split(&mut data, cuts), &mut tag)
                    .unwrap();
                assert_eq!((&data, tag), (&want_ct, want_tag), "{what} {cuts:?}");
                h.open_segments(&nonce, &aad_pieces, &mut split(&mut data, &[5, 11]), &tag)
                    .unwrap();
                assert_eq!(data, pt, "{what} {cuts:?}");

                let src = split_ro(&pt, cuts);
                let mut dst = vec![0xeeu8; plen];
                let mut tag = [0u8; 16];
                h.seal_to(
                    &nonce,
                    &aad_pieces,
                    &src,
                    &mut split(&mut dst, &[plen / 3, 1]),
                    &mut tag,
                )
                .unwrap();
                assert_eq!(
                    (&dst, tag),
                    (&want_ct, want_tag),
                    "{what} {cuts:?} out of place"
                );
                let mut back = vec![0u8; plen];
                h.open_to(
                    &nonce,
                    &[&aad],
                    &split_ro(&dst, &[2]),
                    &mut split(&mut back, cuts),
                    &tag,
                )
                .unwrap();
                assert_eq!(back, pt, "{what} {cuts:?} out of place");
            }
        }
    }
}

#[test]
fn authsize_truncates_the_tag_and_is_validated() {
    let reg = toy::boot("");
    let mut h = reg.alloc_aead("toyaead").unwrap();
    h.set_key(&[1; 16]).unwrap();
    assert_eq!(
        (h.authsize(), h.max_authsize(), h.nonce_size()),
        (16, 16, 12)
    );
    for bad in [0, 1, 5, 11, 17, 64] {
        assert!(matches!(
            h.set_authsize(bad),
            Err(Error::InvalidAuthsize { len, .. }) if len == bad
        ));
        assert_eq!(h.authsize(), 16, "a refused size leaves the old one");
    }
    let (ct, full) = toy_seal(&[1; 16], &[2; 12], b"hdr", b"hello world");
    for n in [4, 8, 12, 13, 16] {
        h.set_authsize(n).unwrap();
        let mut data = b"hello world".to_vec();
        let mut tag = vec![0u8; n];
        h.seal(&[2; 12], b"hdr", &mut data, &mut tag).unwrap();
        assert_eq!(
            (data.as_slice(), tag.as_slice()),
            (ct.as_slice(), &full[..n])
        );
        assert_eq!(
            h.seal(&[2; 12], b"hdr", &mut data, &mut vec![0u8; n + 1]),
            Err(Error::InvalidTagLength {
                len: n + 1,
                expected: n
            })
        );
    }
}

#[test]
fn a_failed_open_leaves_no_plaintext_anywhere() {
    let reg = toy::boot("");
    let mut h = reg.alloc_aead("toyaead-fast").unwrap();
    h.set_key(&[3; 32]).unwrap();
    let nonce = [0u8; 12];
    let aad = b"associated data, 33 bytes long!!!".to_vec();
    let pt: Vec<u8> = (0..200u8).collect();
    let (ct, tag) = toy_seal(&[3; 32], &nonce, &aad, &pt);
    for flip in 0..3 {
        let (mut a, mut c, mut t) = (aad.clone(), ct.clone(), tag);
        match flip {
            0 => a[20] ^= 4,
            1 => c[150] ^= 0x80,
            _ => t[15] ^= 1,
        }
        let mut data = c.clone();
        assert_eq!(h.open(&nonce, &a, &mut data, &t), Err(Error::BadMessage));
        assert!(data.iter().all(|&b| b == 0), "contiguous, flip {flip}");

        let mut data = c.clone();
        let r = h.open_segments(
            &nonce,
            &split_ro(&a, &[5]),
            &mut split(&mut data, &[7, 100]),
            &t,
        );
        assert_eq!(r, Err(Error::BadMessage));
        assert!(data.iter().all(|&b| b == 0), "segments, flip {flip}");

        let mut dst = vec![0x55u8; c.len()];
        let r = h.open_to(
            &nonce,
            &[&a],
            &split_ro(&c, &[64]),
            &mut split(&mut dst, &[1, 2]),
            &t,
        );
        assert_eq!(r, Err(Error::BadMessage));
        assert!(dst.iter().all(|&b| b == 0), "out of place, flip {flip}");
    }
}

#[test]
fn bad_aead_input_is_an_error_value() {
    let reg = toy::boot("");
    let mut h = reg.alloc_aead("toyaead").unwrap();
    let mut data = [0u8; 20];
    let mut tag = [0u8; 16];
    assert_eq!(
        h.seal(&[0; 12], b"", &mut data, &mut tag),
        Err(Error::NoKey)
    );
    assert_eq!(h.open(&[0; 12], b"", &mut data, &tag), Err(Error::NoKey));
    assert!(matches!(
        h.set_key(&[1; 15]),
        Err(Error::InvalidKeyLength { len: 15, .. })
    ));
    h.set_key(&[1; 16]).unwrap();
    assert_eq!(
        h.seal(&[0; 8], b"", &mut data, &mut tag),
        Err(Error::InvalidIvLength {
            len: 8,
            expected: 12
        })
    );
    assert_eq!(
        h.open_segments(&[0; 12], &[], &mut [&mut data[..]], &tag[..15]),
        Err(Error::InvalidTagLength {
            len: 15,
            expected: 16
        })
    );
    let src = [0u8; 10];
    let mut dst = [0xaau8; 11];
    assert_eq!(
        h.seal_to(&[0; 12], &[], &[&src], &mut [&mut dst], &mut tag),
        Err(Error::LengthMismatch { src: 10, dst: 11 })
    );
    assert_eq!(dst, [0xaa; 11], "a refused request writes nothing");
    assert_eq!(
        h.open_to(&[0; 12], &[], &[&src], &mut [&mut dst], &tag),
        Err(Error::LengthMismatch { src: 10, dst: 11 })
    );
    assert!(matches!(
        reg.alloc_aead("toymac"),
        Err(Error::WrongType { wanted: "aead", .. })
    ));
}

#[test]
fn every_hash_entry_point_gives_the_reference_answer() {
    let reg = toy::boot("");
    for driver in ["toymac-generic", "toymac-fast"] {
        let mut h = reg.alloc_hash(driver).unwrap();
        assert!(h.is_keyed());
        assert_eq!(h.digest(b"x", &mut [0; 16]), Err(Error::NoKey));
        assert_eq!(h.init().err(), Some(Error::NoKey));
        let key = [5u8; 16];
        h.set_key(&key).unwrap();
        for len in [0usize, 1, 15, 16, 17, 100, 1000] {
            let msg: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let want = toy_mac(&key, &msg);
            let mut out = [0u8; 16];
            h.digest(&msg, &mut out).unwrap();
            assert_eq!(out, want, "{driver} digest {len}");
            for cuts in CUTS {
                let pieces = split_ro(&msg, cuts);
                let mut req = h.init().unwrap();
                for p in &pieces {
                    req.update(p);
                }
                let mut out = [0u8; 16];
                req.finalize(&mut out).unwrap();
                assert_eq!(out, want, "{driver} final {len} {cuts:?}");

                // finup with the last piece, an export/import before every update.
                let mut req = h.init().unwrap();
                let (last, first) = pieces.split_last().unwrap();
                for p in first {
                    let saved = req.export();
                    req = h.import(&saved).unwrap();
                    req.update(p);
                }
                let mut out = [0u8; 16];
                req.finup(last, &mut out).unwrap();
                assert_eq!(out, want, "{driver} finup {len} {cuts:?}");
            }
        }
    }
}

#[test]
fn bad_hash_input_is_an_error_value() {
    let reg = toy::boot("");
    let mut sum = reg.alloc_hash("toysum").unwrap();
    assert!(!sum.is_keyed());
    assert!(matches!(
        sum.set_key(&[1; 16]),
        Err(Error::InvalidKeyLength { .. })
    ));
    assert!(matches!(
        sum.digest(b"abc", &mut [0; 15]),
        Err(Error::InvalidLength { len: 15, .. })
    ));
    let mut out = [0u8; 16];
    sum.digest(b"abc", &mut out).unwrap();
    assert_eq!(out, toy_mac(&[], b"abc"));
    let mut req = sum.init().unwrap();
    req.update(b"ab");
    assert!(matches!(
        req.finalize(&mut [0; 17]),
        Err(Error::InvalidLength { .. })
    ));

    let mut mac = reg.alloc_hash("toymac-generic").unwrap();
    mac.set_key(&[2; 32]).unwrap();
    let mut req = mac.init().unwrap();
    req.update(b"abcde");
    let good = req.export();
    // Another algorithm's export is refused, and so is anything damaged.
    assert_eq!(
        sum.import(&good).err(),
        Some(Error::InvalidHashState("exported by another algorithm"))
    );
    // Another driver of the same algorithm resumes it.
    let mut fast = reg.alloc_hash("toymac-fast").unwrap();
    fast.set_key(&[2; 32]).unwrap();
    let mut out = [0u8; 16];
    fast.import(&good).unwrap().finup(b"fgh", &mut out).unwrap();
    assert_eq!(out, toy_mac(&[2; 32], b"abcdefgh"));
    let mut bad = good.to_vec();
    bad[1] ^= 1;
    for garbage in [&good[..good.len() - 1], &[][..], &bad[..], &[0u8; 13][..]] {
        assert!(mac.import(garbage).is_err(), "{garbage:?}");
    }
    let mut longer = good.to_vec();
    longer.push(0);
    assert!(mac.import(&longer).is_err());
    // The good one resumes.
    let mut out = [0u8; 16];
    mac.import(&good).unwrap().finup(b"fgh", &mut out).unwrap();
    assert_eq!(out, toy_mac(&[2; 32], b"abcdefgh"));
}

// ---------------------------------------------------------------------------------------
// The skcipher walker hands out-of-place runs over as (source, destination) pairs.

static PAIR_CALLS: AtomicUsize = AtomicUsize::new(0);

/// A position-keyed XOR stream (16-byte chunks, partial tail) whose `*_to` methods write
/// the destination straight from the source and count their calls.
struct PairStream {
    key: u8,
}

impl PairStream {
    fn byte(&self, state: &mut ChainState) -> u8 {
        let p = u64::from_le_bytes(state[..8].try_into().unwrap());
        state[..8].copy_from_slice(&(p + 1).to_le_bytes());
        (p as u8).wrapping_mul(31) ^ self.key ^ state[8]
    }
    fn run(&self, state: &mut ChainState, data: &mut [u8]) {
        for b in data {
            *b ^= self.byte(state);
        }
    }
    fn run_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        PAIR_CALLS.fetch_add(1, Ordering::Relaxed);
        assert_eq!(src.len(), dst.len());
        for (d, s) in dst.iter_mut().zip(src) {
            *d = s ^ self.byte(state);
        }
    }
}

impl SkcipherImpl for PairStream {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.key = key[0];
        Ok(())
    }
    fn tail_len(&self, total: usize) -> Result<usize> {
        Ok(total % 16)
    }
    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        state.fill(0);
        state[8] = iv[0];
        Ok(())
    }
    fn encrypt_blocks(&self, s: &mut ChainState, d: &mut [u8]) {
        assert_eq!(d.len() % 16, 0);
        self.run(s, d)
    }
    fn decrypt_blocks(&self, s: &mut ChainState, d: &mut [u8]) {
        self.run(s, d)
    }
    fn encrypt_tail(&self, s: &mut ChainState, d: &mut [u8]) {
        assert!(d.len() < 16);
        self.run(s, d)
    }
    fn decrypt_tail(&self, s: &mut ChainState, d: &mut [u8]) {
        self.run(s, d)
    }
    fn encrypt_blocks_to(&self, s: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        assert_eq!(src.len() % 16, 0);
        self.run_to(s, src, dst)
    }
    fn decrypt_blocks_to(&self, s: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.run_to(s, src, dst)
    }
    fn encrypt_tail_to(&self, s: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.run_to(s, src, dst)
    }
    fn decrypt_tail_to(&self, s: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.run_to(s, src, dst)
    }
}

#[test]
fn out_of_place_skcipher_walks_source_destination_pairs() {
    let info = AlgDef::new(
        "pairstream",
        "pairstream-generic",
        100,
        Ctor::Skcipher(|_| Ok(Box::new(PairStream { key: 0 }))),
    )
    .key_sizes(1, 1)
    .iv_size(1)
    .to_info();
    let mut h = driver::build_skcipher(Arc::new(info), &HostFeatures::detect()).unwrap();
    h.set_key(&[0x5a]).unwrap();
    for len in [0usize, 1, 15, 16, 17, 47, 48, 100, 300] {
        let plain: Vec<u8> = (0..len).map(|i| (i * 3) as u8).collect();
        let mut want = plain.clone();
        h.encrypt_in_place(&[7], &mut want).unwrap();
        for cuts in CUTS {
            let before = PAIR_CALLS.load(Ordering::Relaxed);
            let src = split_ro(&plain, cuts);
            let mut dst = vec![0u8; len];
            h.encrypt_to(&[7], &src, &mut split(&mut dst, &[len / 2, 3]))
                .unwrap();
            assert_eq!(dst, want, "len {len} cuts {cuts:?}");
            if len >= 48 {
                assert!(
                    PAIR_CALLS.load(Ordering::Relaxed) > before,
                    "contiguous runs go to the *_to methods"
                );
            }
            let mut back = vec![0u8; len];
            h.decrypt_to(&[7], &split_ro(&dst, &[1]), &mut split(&mut back, cuts))
                .unwrap();
            assert_eq!(back, plain);
        }
    }
}
