//! The `gcm_base`, `gcm` and `rfc4106` templates over generic AES (through the `ctr`
//! template) and a test-only GHASH written straight from SP 800-38D Algorithm 1 (bit by
//! bit; not constant time, never registered): the GCM specification's and RFC 4106's
//! known answers (from the self-test data files) through the one-shot, segmented and
//! out-of-place paths of a real handle, the streaming path against the one-shot one, the
//! names and priorities of the instances, and every refusal.

use std::sync::Arc;

use cryptoreg_registry::{
    Aead, AeadImpl, AeadLens, AeadState, AlgDef, AlgType, Child, Ctor, DriverInfo, Error, HashImpl,
    HashState, HostFeatures, Result, Sizes,
};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use zeroize::Zeroizing;

use super::tests::as_child;
use super::{ctr, gcm, rfc4106};
use crate::aes::gcm_rules::GCM_MAX_TEXT;
use crate::aes::AesGeneric;
use crate::testing::vectors as test_vectors;

/// GHASH by SP 800-38D Algorithm 1: `x * y` in GF(2^128) with the bit-reflected
/// convention, one bit at a time. A reference for tests only.
fn gf_mul(x: u128, y: u128) -> u128 {
    let r: u128 = 0xe1 << 120;
    let (mut z, mut v) = (0u128, y);
    for i in 0..128 {
        if (x >> (127 - i)) & 1 == 1 {
            z ^= v;
        }
        v = if v & 1 == 1 { (v >> 1) ^ r } else { v >> 1 };
    }
    z
}

#[derive(Default)]
struct RefGhash {
    h: u128,
}

#[derive(Clone, Default)]
struct RefGhashState {
    h: u128,
    acc: u128,
    buf: [u8; 16],
    used: usize,
}

impl RefGhashState {
    fn block(&mut self, b: &[u8; 16]) {
        self.acc = gf_mul(self.acc ^ u128::from_be_bytes(*b), self.h);
    }
}

impl HashImpl for RefGhash {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        let key: [u8; 16] = key.try_into().map_err(|_| Error::InvalidKeyLength {
            driver: "ghash-ref".into(),
            len: key.len(),
            valid: cryptoreg_registry::KeyLengths::list(&[16]),
        })?;
        self.h = u128::from_be_bytes(key);
        Ok(())
    }

    fn init(&self) -> Box<dyn HashState> {
        Box::new(RefGhashState {
            h: self.h,
            ..RefGhashState::default()
        })
    }
}

impl HashState for RefGhashState {
    fn update(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            let n = (16 - self.used).min(data.len());
            self.buf[self.used..self.used + n].copy_from_slice(&data[..n]);
            self.used += n;
            data = &data[n..];
            if self.used == 16 {
                let b = self.buf;
                self.block(&b);
                self.used = 0;
            }
        }
    }

    fn finalize(mut self: Box<Self>, out: &mut [u8]) {
        if self.used > 0 {
            let mut b = [0u8; 16];
            b[..self.used].copy_from_slice(&self.buf[..self.used]);
            self.block(&b);
        }
        out.copy_from_slice(&self.acc.to_be_bytes()[..out.len()]);
    }

    fn export(&self) -> Zeroizing<Vec<u8>> {
        let mut v = self.acc.to_be_bytes().to_vec();
        v.extend_from_slice(&self.buf);
        v.push(self.used as u8);
        Zeroizing::new(v)
    }

    fn import(&mut self, state: &[u8]) -> Result<()> {
        if state.len() != 33 || state[32] > 15 {
            return Err(Error::InvalidHashState("not a ghash-ref state"));
        }
        self.acc = u128::from_be_bytes(state[..16].try_into().unwrap());
        self.buf.copy_from_slice(&state[16..32]);
        self.used = state[32] as usize;
        Ok(())
    }
}

fn ref_ghash_info(priority: u32) -> DriverInfo {
    AlgDef::new(
        "ghash",
        "ghash-ref",
        priority,
        Ctor::Hash(|_| Ok(Box::new(RefGhash::default()) as Box<dyn HashImpl>)),
    )
    .block_size(16)
    .key_sizes(16, 16)
    .out_size(16)
    .to_info()
}

fn aes_generic_info(priority: u32) -> DriverInfo {
    AlgDef::new(
        "aes",
        "aes-generic",
        priority,
        Ctor::Cipher(|_| Ok(Box::new(AesGeneric::new()))),
    )
    .block_size(16)
    .key_sizes(16, 32)
    .to_info()
}

/// `gcm_base(ctr(aes-generic),ghash-ref)`, with its children at the given priorities.
fn gcm_info(ctr_prio: u32, ghash_prio: u32) -> DriverInfo {
    let ctr = ctr::create(&[as_child(&aes_generic_info(ctr_prio))]).unwrap();
    gcm::create_base(&[as_child(&ctr), as_child(&ref_ghash_info(ghash_prio))]).unwrap()
}

fn rfc4106_info() -> DriverInfo {
    rfc4106::create(&[as_child(&gcm_info(100, 100))]).unwrap()
}

fn handle(info: DriverInfo) -> Aead {
    cryptoreg_registry::driver::build_aead(Arc::new(info), &HostFeatures::detect()).unwrap()
}

/// Cuts `data` at `cuts` (sorted offsets, clamped) into pieces.
fn pieces<'a>(data: &'a mut [u8], cuts: &[usize]) -> Vec<&'a mut [u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    let mut at = 0;
    for &c in cuts {
        let c = c.clamp(at, at + rest.len());
        let (a, b) = std::mem::take(&mut rest).split_at_mut(c - at);
        out.push(a);
        rest = b;
        at = c;
    }
    out.push(rest);
    out
}

/// Seals and opens every way a caller can: contiguous, AAD and text in odd pieces in
/// place, out of place; all must give `ct`/`tag` and back `pt`.
fn seal_open_every_way(
    h: &Aead,
    what: &str,
    nonce: &[u8],
    aad: &[u8],
    pt: &[u8],
    ct: &[u8],
    tag: &[u8],
) {
    let mut buf = pt.to_vec();
    let mut t = vec![0u8; tag.len()];
    h.seal(nonce, aad, &mut buf, &mut t).unwrap();
    assert_eq!(
        (hex::encode(&buf), hex::encode(&t)),
        (hex::encode(ct), hex::encode(tag)),
        "{what}: seal"
    );
    h.open(nonce, aad, &mut buf, tag).unwrap();
    assert_eq!(buf, pt, "{what}: open");

    let acut = aad.len() / 3;
    let aad_pieces: Vec<&[u8]> = vec![&aad[..acut], &aad[acut..]];
    for cuts in [vec![1, 17], vec![5, 33, 34], vec![16, 32]] {
        let mut buf = pt.to_vec();
        let mut t = vec![0u8; tag.len()];
        h.seal_segments(nonce, &aad_pieces, &mut pieces(&mut buf, &cuts), &mut t)
            .unwrap();
        assert_eq!(
            (&buf[..], &t[..]),
            (ct, tag),
            "{what}: seal_segments {cuts:?}"
        );
        h.open_segments(nonce, &aad_pieces, &mut pieces(&mut buf, &cuts), tag)
            .unwrap();
        assert_eq!(buf, pt, "{what}: open_segments {cuts:?}");

        let mut dst = vec![0u8; pt.len()];
        let mut t = vec![0u8; tag.len()];
        let (s1, s2) = pt.split_at(pt.len() / 2);
        h.seal_to(
            nonce,
            &aad_pieces,
            &[s1, s2],
            &mut pieces(&mut dst, &cuts),
            &mut t,
        )
        .unwrap();
        assert_eq!((&dst[..], &t[..]), (ct, tag), "{what}: seal_to {cuts:?}");
        let mut back = vec![0u8; pt.len()];
        h.open_to(
            nonce,
            &aad_pieces,
            &[&dst],
            &mut pieces(&mut back, &cuts),
            tag,
        )
        .unwrap();
        assert_eq!(back, pt, "{what}: open_to {cuts:?}");
    }
}

/// Opens an inauthentic vector every way: `BadMessage`, nothing but zeros left.
fn refuse_every_way(h: &Aead, what: &str, nonce: &[u8], aad: &[u8], ct: &[u8], tag: &[u8]) {
    let mut buf = ct.to_vec();
    assert!(
        matches!(h.open(nonce, aad, &mut buf, tag), Err(Error::BadMessage)),
        "{what}"
    );
    assert!(buf.iter().all(|&b| b == 0), "{what}: wiped");
    let mut buf = ct.to_vec();
    let r = h.open_segments(nonce, &[aad], &mut pieces(&mut buf, &[3, 20]), tag);
    assert!(matches!(r, Err(Error::BadMessage)), "{what}: segments");
    assert!(buf.iter().all(|&b| b == 0), "{what}: segments wiped");
    let mut dst = vec![0x5cu8; ct.len()];
    let r = h.open_to(nonce, &[aad], &[ct], &mut pieces(&mut dst, &[7]), tag);
    assert!(matches!(r, Err(Error::BadMessage)), "{what}: out of place");
    assert!(dst.iter().all(|&b| b == 0), "{what}: out of place wiped");
}

fn run_vectors(info: DriverInfo, alg: &str, min: usize) {
    let mut h = handle(info);
    let vs = test_vectors::aead(alg, min);
    assert!(
        vs.iter().filter(|v| v.fail).count() >= 3,
        "{alg}: fail vectors"
    );
    for v in &vs {
        h.set_key(&v.key).unwrap();
        h.set_authsize(v.tag.len()).unwrap();
        if v.fail {
            refuse_every_way(&h, &v.source, &v.nonce, &v.aad, &v.ciphertext, &v.tag);
        } else {
            seal_open_every_way(
                &h,
                &v.source,
                &v.nonce,
                &v.aad,
                &v.plaintext,
                &v.ciphertext,
                &v.tag,
            );
        }
    }
}

/// The GCM specification's test cases with 96-bit IVs and the file's inauthentic ones.
#[test]
fn gcm_spec_known_answers() {
    run_vectors(gcm_info(100, 100), "gcm(aes)", 20);
}

/// draft-mcgrew-gcm-test-01 and testmgr.h's RFC 4106 vectors.
#[test]
fn rfc4106_known_answers() {
    run_vectors(rfc4106_info(), "rfc4106(gcm(aes))", 17);
}

/// The streaming calls (state exported between calls) against the one-shot path (one live
/// GHASH state), over random lengths and random chunkings of the AAD and the text.
#[test]
fn streaming_matches_one_shot() {
    let info = gcm_info(100, 100);
    let host = HostFeatures::detect();
    let Factory(make) = factory(&info);
    let mut imp = make(&host).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(4106);
    for _ in 0..200 {
        let klen = [16, 24, 32][rng.gen_range(0..3)];
        let key = random(&mut rng, klen);
        imp.set_key(&key).unwrap();
        let nonce = random(&mut rng, 12);
        let alen = rng.gen_range(0..70);
        let aad = random(&mut rng, alen);
        let plen = rng.gen_range(0..300);
        let pt = random(&mut rng, plen);
        let authsize = [4, 8, 12, 13, 16][rng.gen_range(0..5)];
        let mut ct = pt.clone();
        let mut tag = vec![0u8; authsize];
        imp.seal(&nonce, &aad, &mut ct, &mut tag).unwrap();

        let mut state = AeadState::new();
        let lens = AeadLens {
            aad: aad.len(),
            text: pt.len(),
            authsize,
        };
        imp.start(&mut state, &nonce, lens).unwrap();
        for piece in random_split(&mut rng, &aad, 1) {
            imp.absorb_aad(&mut state, piece);
        }
        imp.absorb_aad_tail(&mut state, &[]);
        let chunk = imp.chunk_size();
        let body = pt.len() - pt.len() % chunk;
        let mut out = vec![0u8; pt.len()];
        let mut at = 0;
        for piece in random_split(&mut rng, &pt[..body], chunk) {
            let dst = &mut out[at..at + piece.len()];
            imp.encrypt_chunks(
                &mut state,
                cryptoreg_registry::InOut::split(piece, dst).unwrap(),
            );
            at += piece.len();
        }
        out[body..].copy_from_slice(&pt[body..]);
        imp.encrypt_tail(
            &mut state,
            cryptoreg_registry::InOut::InPlace(&mut out[body..]),
        );
        let mut tag2 = vec![0u8; authsize];
        imp.finish(&mut state, &mut tag2);
        assert_eq!((&out, &tag2), (&ct, &tag));

        // Decryption by the streaming calls, in place, verifies and gives the text back.
        let mut state = AeadState::new();
        imp.start(&mut state, &nonce, lens).unwrap();
        imp.absorb_aad(&mut state, &aad);
        imp.absorb_aad_tail(&mut state, &[]);
        let mut back = ct.clone();
        let (a, b) = back.split_at_mut(body);
        imp.decrypt_chunks(&mut state, cryptoreg_registry::InOut::InPlace(a));
        imp.decrypt_tail(&mut state, cryptoreg_registry::InOut::InPlace(b));
        imp.verify(&mut state, &tag).unwrap();
        assert_eq!(back, pt);
    }
}

struct Factory(cryptoreg_registry::Builder<dyn AeadImpl>);

fn factory(info: &DriverInfo) -> Factory {
    match info.factory() {
        cryptoreg_registry::Factory::Aead(f) => Factory(Arc::clone(f)),
        _ => panic!("not an AEAD"),
    }
}

fn random(rng: &mut ChaCha8Rng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

/// Splits `data` into pieces whose lengths are multiples of `unit`.
fn random_split<'a>(rng: &mut ChaCha8Rng, mut data: &'a [u8], unit: usize) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    while !data.is_empty() {
        let n = (rng.gen_range(1..=4) * unit).min(data.len());
        out.push(&data[..n]);
        data = &data[n..];
    }
    out
}

/// Names, algorithm name and priority of `gcm_base` instances, as the kernel derives
/// them; the rewrite of `gcm(X)`.
#[test]
fn gcm_base_names_and_priorities() {
    let inst = gcm_info(400, 100);
    assert_eq!(inst.name(), "gcm(aes)");
    assert_eq!(inst.driver(), "gcm_base(ctr(aes-generic),ghash-ref)");
    assert_eq!(inst.base_priority(), 250);
    assert_eq!(inst.alg_type(), AlgType::Aead);
    assert_eq!(
        inst.sizes(),
        Sizes {
            block: 1,
            min_key: 16,
            max_key: 32,
            iv: 12,
            out: 16
        }
    );
    assert_eq!(inst.children(), ["ctr(aes-generic)", "ghash-ref"]);

    let r = rfc4106::create(&[as_child(&inst)]).unwrap();
    assert_eq!(r.name(), "rfc4106(gcm(aes))");
    assert_eq!(r.driver(), "rfc4106(gcm_base(ctr(aes-generic),ghash-ref))");
    assert_eq!(r.base_priority(), 250);
    assert_eq!(
        (r.sizes().min_key, r.sizes().max_key, r.iv_size()),
        (20, 36, 8)
    );

    assert_eq!(gcm::rewrite_gcm(&["aes"]), "gcm_base(ctr(aes),ghash)");
    assert_eq!(
        gcm::rewrite_gcm(&["aes-aesni"]),
        "gcm_base(ctr(aes-aesni),ghash)"
    );
    assert_eq!(
        gcm::rewrite_gcm(&["aes-generic"]),
        "gcm_base(ctr(aes-generic),ghash-generic)"
    );
}

#[test]
fn gcm_base_refuses_children_it_cannot_drive() {
    let ctr = ctr::create(&[as_child(&aes_generic_info(100))]).unwrap();
    let ghash = ref_ghash_info(100);
    let aes = aes_generic_info(100);
    for children in [
        vec![as_child(&ctr)],
        vec![as_child(&ghash), as_child(&ctr)],
        vec![as_child(&aes), as_child(&ghash)],
        vec![as_child(&ctr), as_child(&ctr)],
    ] {
        assert!(gcm::create_base(&children).is_err());
    }
    // An ECB is an skcipher but not a CTR.
    let ecb = super::ecb::create(&[as_child(&aes)]).unwrap();
    let e = gcm::create_base(&[as_child(&ecb), as_child(&ghash)]).unwrap_err();
    assert!(e.to_string().contains("not a ctr("), "{e}");
    // rfc4106 wants a GCM.
    let not_gcm: Child = as_child(&ctr);
    assert!(rfc4106::create(&[not_gcm]).is_err());
}

/// SP 800-38D limits and the shared GCM rules, checked by `start` before any byte moves.
#[test]
fn gcm_refusals() {
    let info = gcm_info(100, 100);
    let mut h = handle(info.clone());
    let Factory(make) = factory(&info);
    let mut imp = make(&HostFeatures::detect()).unwrap();
    for len in [0, 1, 15, 17, 20, 31, 33, 48] {
        assert!(
            matches!(
                imp.set_key(&vec![0; len]),
                Err(Error::InvalidKeyLength { .. })
            ),
            "{len}"
        );
    }
    imp.set_key(&[7; 16]).unwrap();
    let ok: Vec<usize> = (1..=16).filter(|&n| h.set_authsize(n).is_ok()).collect();
    assert_eq!(ok, [4, 8, 12, 13, 14, 15, 16]);
    let lens = |aad: usize, text: usize| AeadLens {
        aad,
        text,
        authsize: 16,
    };
    let mut st = AeadState::new();
    imp.start(&mut st, &[0; 12], lens(0, GCM_MAX_TEXT as usize))
        .unwrap();
    let over = imp.start(&mut st, &[0; 12], lens(0, GCM_MAX_TEXT as usize + 1));
    assert!(matches!(over, Err(Error::InvalidLength { .. })), "{over:?}");
    let over = imp.start(&mut st, &[0; 12], lens(1usize << 61, 0));
    assert!(matches!(over, Err(Error::InvalidLength { .. })), "{over:?}");
    let short = imp.start(&mut st, &[0; 8], lens(0, 0));
    assert!(
        matches!(short, Err(Error::InvalidIvLength { .. })),
        "{short:?}"
    );
    let odd = imp.start(
        &mut st,
        &[0; 12],
        AeadLens {
            authsize: 5,
            ..lens(0, 0)
        },
    );
    assert!(matches!(odd, Err(Error::InvalidAuthsize { .. })), "{odd:?}");
    // A refused open leaves the caller's ciphertext as it was.
    h.set_key(&[7; 16]).unwrap();
    h.set_authsize(16).unwrap();
    let mut buf = [9u8; 20];
    assert!(h.open(&[0; 8], &[], &mut buf, &[0; 16]).is_err());
    assert_eq!(buf, [9u8; 20]);
}

#[test]
fn rfc4106_refusals() {
    let mut h = handle(rfc4106_info());
    for len in [16, 19, 24, 32, 33, 37] {
        assert!(
            matches!(
                h.set_key(&vec![1; len]),
                Err(Error::InvalidKeyLength { .. })
            ),
            "{len}"
        );
    }
    for len in [20, 28, 36] {
        h.set_key(&vec![1; len]).unwrap();
    }
    let ok: Vec<usize> = (1..=16).filter(|&n| h.set_authsize(n).is_ok()).collect();
    assert_eq!(ok, [8, 12, 16]);
    h.set_authsize(16).unwrap();
    assert_eq!(h.nonce_size(), 8);
    for aad in [0, 4, 7, 9, 16, 20] {
        let mut buf = [3u8; 10];
        let mut tag = [0u8; 16];
        let r = h.seal(&[0; 8], &vec![0; aad], &mut buf, &mut tag);
        assert!(
            matches!(r, Err(Error::InvalidLength { .. })),
            "aad {aad}: {r:?}"
        );
        assert_eq!(buf, [3u8; 10]);
        let r = h.seal_segments(
            &[0; 8],
            &[&vec![0; aad], &[]],
            &mut [&mut buf[..]],
            &mut tag,
        );
        assert!(
            matches!(r, Err(Error::InvalidLength { .. })),
            "aad {aad} segments: {r:?}"
        );
    }
    for aad in [8, 12] {
        let mut buf = [3u8; 10];
        let mut tag = [0u8; 16];
        h.seal(&[0; 8], &vec![0; aad], &mut buf, &mut tag).unwrap();
        h.open(&[0; 8], &vec![0; aad], &mut buf, &tag).unwrap();
        assert_eq!(buf, [3u8; 10]);
    }
}

/// `gf_mul` itself, on the nettle/SP 800-38D identities: 1 (the bit-reflected
/// `80..00`) is the unit, and `x * x^127` reduces with the GCM polynomial.
#[test]
fn reference_ghash_multiplies_right() {
    let one = 1u128 << 127;
    let m = 0x0011_2233_4455_6677_89ab_cdef_0123_4567u128;
    assert_eq!(gf_mul(m, one), m);
    assert_eq!(gf_mul(one, m), m);
    // x (0x40..00) times the message, as nettle's test_ghash_internal has it.
    assert_eq!(
        gf_mul(m, 1u128 << 126),
        0xe108_9119_a22a_b33b_c4d5_e6f7_8091_a2b3
    );
}

fn registered(driver: &str) -> DriverInfo {
    cryptoreg_registry::inventory::iter::<AlgDef>
        .into_iter()
        .find(|d| d.driver() == driver)
        .unwrap_or_else(|| panic!("{driver} is not registered"))
        .to_info()
}

/// The reference the self-tests use, `gcm_base(ctr(aes-generic),ghash-generic)` over the
/// registered records, on every known answer.
#[test]
fn over_the_registered_generic_drivers() {
    let ctr = ctr::create(&[as_child(&registered("aes-generic"))]).unwrap();
    let inst = gcm::create_base(&[as_child(&ctr), as_child(&registered("ghash-generic"))]).unwrap();
    assert_eq!(inst.driver(), "gcm_base(ctr(aes-generic),ghash-generic)");
    assert_eq!(inst.base_priority(), 100);
    run_vectors(inst.clone(), "gcm(aes)", 20);
    run_vectors(
        rfc4106::create(&[as_child(&inst)]).unwrap(),
        "rfc4106(gcm(aes))",
        17,
    );
}
