//! Structure tests of the modes over a toy cipher (so they do not depend on any AES
//! driver), checked against straightforward one-block-at-a-time reference modes; naming
//! and priorities of the instances; rejections; the split and scattered paths. The
//! standard vectors with real AES are in `kat.rs`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cryptoreg_registry::walk::{walk_in_place, Direction};
use cryptoreg_registry::{
    inventory, AlgDef, AlgType, BlockCipherImpl, Child, Ctor, DriverInfo, Error, Factory,
    HostFeatures, Result, SkcipherImpl, Template,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{cbc, ctr, ecb, xts, Cbc, Ctr, Ecb, Xts};

/// An invertible toy block cipher: key-dependent, with diffusion, so a mode bug (wrong
/// block order, wrong tweak, a skipped xor) changes the output. Not a cipher.
#[derive(Default)]
struct Toy {
    rk: [u8; 16],
}

impl Toy {
    fn enc(&self, b: &mut [u8]) {
        for round in 0..4u8 {
            for (j, x) in b.iter_mut().enumerate() {
                *x ^= self.rk[j].wrapping_add(round);
            }
            for j in 1..16 {
                b[j] = b[j].wrapping_add(b[j - 1]);
            }
            b.rotate_left(5);
        }
    }

    fn dec(&self, b: &mut [u8]) {
        for round in (0..4u8).rev() {
            b.rotate_right(5);
            for j in (1..16).rev() {
                b[j] = b[j].wrapping_sub(b[j - 1]);
            }
            for (j, x) in b.iter_mut().enumerate() {
                *x ^= self.rk[j].wrapping_add(round);
            }
        }
    }
}

impl BlockCipherImpl for Toy {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        cryptoreg_registry::check_key_len("toy", key, &[16, 24, 32])?;
        self.rk = [0; 16];
        for (i, k) in key.iter().enumerate() {
            self.rk[i % 16] ^= k.rotate_left(i as u32 / 16);
        }
        Ok(())
    }

    fn encrypt_blocks(&self, data: &mut [u8]) {
        assert_eq!(data.len() % 16, 0);
        data.chunks_exact_mut(16).for_each(|b| self.enc(b));
    }

    fn decrypt_blocks(&self, data: &mut [u8]) {
        assert_eq!(data.len() % 16, 0);
        data.chunks_exact_mut(16).for_each(|b| self.dec(b));
    }
}

fn toy() -> Box<dyn BlockCipherImpl> {
    Box::new(Toy::default())
}

fn keyed_toy(key: &[u8]) -> Toy {
    let mut t = Toy::default();
    t.set_key(key).unwrap();
    t
}

/// A toy that counts child calls, to check the batching.
struct Counting {
    inner: Toy,
    calls: Arc<AtomicUsize>,
}

impl BlockCipherImpl for Counting {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.inner.set_key(key)
    }
    fn encrypt_blocks(&self, data: &mut [u8]) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.inner.encrypt_blocks(data);
    }
    fn decrypt_blocks(&self, data: &mut [u8]) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.inner.decrypt_blocks(data);
    }
}

// ---- reference modes, one block at a time, straight from SP 800-38A / IEEE 1619 ----

fn ref_cbc_encrypt(c: &Toy, iv: &[u8], data: &mut [u8]) {
    let mut prev: [u8; 16] = iv.try_into().unwrap();
    for b in data.chunks_exact_mut(16) {
        for i in 0..16 {
            b[i] ^= prev[i];
        }
        c.enc(b);
        prev.copy_from_slice(b);
    }
}

fn ref_ctr(c: &Toy, iv: &[u8], data: &mut [u8]) {
    let mut ctr: [u8; 16] = iv.try_into().unwrap();
    for piece in data.chunks_mut(16) {
        let mut ks = ctr;
        c.enc(&mut ks);
        for (d, k) in piece.iter_mut().zip(ks) {
            *d ^= k;
        }
        // Big-endian increment of the whole block with carry.
        for byte in ctr.iter_mut().rev() {
            *byte = byte.wrapping_add(1);
            if *byte != 0 {
                break;
            }
        }
    }
}

fn mul_x(t: &mut [u8; 16]) {
    let carry = t[15] >> 7;
    for i in (1..16).rev() {
        t[i] = (t[i] << 1) | (t[i - 1] >> 7);
    }
    t[0] = (t[0] << 1) ^ (0x87 * carry);
}

fn ref_xts_encrypt(key: &[u8], iv: &[u8], data: &mut [u8]) {
    let (k1, k2) = key.split_at(key.len() / 2);
    let (c1, c2) = (keyed_toy(k1), keyed_toy(k2));
    let mut t: [u8; 16] = iv.try_into().unwrap();
    c2.enc(&mut t);
    let xex = |b: &mut [u8], t: &[u8; 16]| {
        for i in 0..16 {
            b[i] ^= t[i];
        }
        c1.enc(b);
        for i in 0..16 {
            b[i] ^= t[i];
        }
    };
    let full = data.len() / 16;
    let r = data.len() % 16;
    for j in 0..full {
        xex(&mut data[16 * j..16 * j + 16], &t);
        mul_x(&mut t);
    }
    if r != 0 {
        // Steal: the last full ciphertext block gives its head to the partial block.
        let m = 16 * (full - 1);
        let mut pp = [0u8; 16];
        pp[..r].copy_from_slice(&data[m + 16..]);
        pp[r..].copy_from_slice(&data[m + r..m + 16]);
        let head: Vec<u8> = data[m..m + r].to_vec();
        data[m + 16..].copy_from_slice(&head);
        xex(&mut pp, &t);
        data[m..m + 16].copy_from_slice(&pp);
    }
}

fn pattern(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..len).map(|_| rng.gen()).collect()
}

const KEY32: [u8; 32] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
    27, 28, 29, 30, 31, 32,
];
const IV: [u8; 16] = [
    0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
];

fn keyed(mut m: Box<dyn SkcipherImpl>, key: &[u8]) -> Box<dyn SkcipherImpl> {
    m.set_key(key).unwrap();
    m
}

/// Lengths 0..=100 and a few large ones (crossing the 32-block batch several times).
fn lengths() -> impl Iterator<Item = usize> {
    (0..=100).chain([511, 512, 513, 527, 1024 + 7, 4096, 4111, 16384 + 15])
}

#[test]
fn ecb_matches_reference() {
    let m = keyed(ecb::ecb_over_cipher(toy), &KEY32[..16]);
    let c = keyed_toy(&KEY32[..16]);
    for len in lengths().filter(|l| l % 16 == 0) {
        let pt = pattern(len, len as u64);
        let mut got = pt.clone();
        m.encrypt(&[], &mut got).unwrap();
        let mut want = pt.clone();
        c.encrypt_blocks(&mut want);
        assert_eq!(got, want, "len {len}");
        m.decrypt(&[], &mut got).unwrap();
        assert_eq!(got, pt, "len {len}");
    }
}

#[test]
fn cbc_matches_reference_and_decrypts_in_batches() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut m = Cbc::new(Box::new(Counting {
        inner: Toy::default(),
        calls: Arc::clone(&calls),
    }));
    m.set_key(&KEY32[..24]).unwrap();
    let c = keyed_toy(&KEY32[..24]);
    for len in lengths().filter(|l| l % 16 == 0) {
        let pt = pattern(len, len as u64);
        let mut got = pt.clone();
        m.encrypt(&IV, &mut got).unwrap();
        let mut want = pt.clone();
        ref_cbc_encrypt(&c, &IV, &mut want);
        assert_eq!(got, want, "len {len}");
        calls.store(0, Ordering::Relaxed);
        m.decrypt(&IV, &mut got).unwrap();
        assert_eq!(got, pt, "len {len}");
        assert_eq!(
            calls.load(Ordering::Relaxed),
            len.div_ceil(512),
            "len {len}"
        );
    }
}

#[test]
fn ctr_matches_reference_and_batches() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut m = Ctr::new(Box::new(Counting {
        inner: Toy::default(),
        calls: Arc::clone(&calls),
    }));
    m.set_key(&KEY32).unwrap();
    let c = keyed_toy(&KEY32);
    for len in lengths() {
        let pt = pattern(len, len as u64);
        let mut got = pt.clone();
        calls.store(0, Ordering::Relaxed);
        m.encrypt(&IV, &mut got).unwrap();
        let whole = len / 16 * 16;
        let want_calls = whole.div_ceil(512) + usize::from(len % 16 != 0);
        assert_eq!(calls.load(Ordering::Relaxed), want_calls, "len {len}");
        let mut want = pt.clone();
        ref_ctr(&c, &IV, &mut want);
        assert_eq!(got, want, "len {len}");
        m.decrypt(&IV, &mut got).unwrap();
        assert_eq!(got, pt, "len {len}");
    }
}

#[test]
fn ctr_counter_wraps_as_128_bit_integer() {
    let m = keyed(ctr::ctr_over_cipher(toy), &KEY32[..16]);
    let c = keyed_toy(&KEY32[..16]);
    for iv in [[0xff; 16], {
        let mut v = [0xff; 16];
        v[0] = 0x12;
        v
    }] {
        let mut got = vec![0u8; 40];
        m.encrypt(&iv, &mut got).unwrap();
        let mut want = vec![0u8; 40];
        ref_ctr(&c, &iv, &mut want);
        assert_eq!(got, want);
    }
    // Keystream of ff..ff then 00..00 then 00..01, directly.
    let mut got = vec![0u8; 48];
    m.encrypt(&[0xff; 16], &mut got).unwrap();
    let mut blocks = [[0xffu8; 16], [0; 16], [0; 16]];
    blocks[2][15] = 1;
    for (i, b) in blocks.iter_mut().enumerate() {
        c.enc(b);
        assert_eq!(&got[16 * i..16 * i + 16], b);
    }
}

#[test]
fn xts_matches_reference_with_stealing() {
    let mut key = KEY32;
    key[31] ^= 0x80;
    for key in [&key[..], &pattern(48, 7), &pattern(64, 8)] {
        let m = keyed(xts::xts_over_cipher(toy), key);
        for len in lengths().filter(|&l| l >= 16) {
            let pt = pattern(len, len as u64);
            let mut got = pt.clone();
            m.encrypt(&IV, &mut got).unwrap();
            let mut want = pt.clone();
            ref_xts_encrypt(key, &IV, &mut want);
            assert_eq!(got, want, "len {len}");
            m.decrypt(&IV, &mut got).unwrap();
            assert_eq!(got, pt, "len {len}");
        }
    }
}

/// Feeds a request the way the segment walker may: the body in pieces of whole chunks,
/// each through its own `*_blocks` call, then the tail.
fn split_crypt(
    m: &dyn SkcipherImpl,
    encrypt: bool,
    iv: &[u8],
    data: &mut [u8],
    rng: &mut ChaCha8Rng,
) {
    let tail = m.tail_len(data.len()).unwrap();
    let mut state = [0u8; 16];
    m.start(iv, &mut state).unwrap();
    let body_len = data.len() - tail;
    let (mut body, rest) = data.split_at_mut(body_len);
    while !body.is_empty() {
        let n = 16 * rng.gen_range(1..=body.len() / 16);
        let (piece, more) = body.split_at_mut(n);
        if encrypt {
            m.encrypt_blocks(&mut state, piece);
        } else {
            m.decrypt_blocks(&mut state, piece);
        }
        body = more;
    }
    if encrypt {
        m.encrypt_tail(&mut state, rest);
    } else {
        m.decrypt_tail(&mut state, rest);
    }
}

/// Splits `data` into up to 8 segments at random points.
fn segments(data: &mut [u8], rng: &mut ChaCha8Rng) -> Vec<Vec<u8>> {
    let mut cuts: Vec<usize> = (0..rng.gen_range(0..8))
        .map(|_| rng.gen_range(0..=data.len()))
        .collect();
    cuts.push(0);
    cuts.push(data.len());
    cuts.sort_unstable();
    cuts.windows(2).map(|w| data[w[0]..w[1]].to_vec()).collect()
}

/// A keyed mode under test: name, instance, IV, and the granule its lengths need.
type ModeCase = (&'static str, Box<dyn SkcipherImpl>, Vec<u8>, usize);

fn all_modes() -> Vec<ModeCase> {
    let mut xts_key = KEY32.to_vec();
    xts_key[0] ^= 0x55;
    vec![
        (
            "ecb",
            keyed(ecb::ecb_over_cipher(toy), &KEY32[..16]),
            vec![],
            16,
        ),
        (
            "cbc",
            keyed(cbc::cbc_over_cipher(toy), &KEY32[..16]),
            IV.to_vec(),
            16,
        ),
        (
            "ctr",
            keyed(ctr::ctr_over_cipher(toy), &KEY32[..16]),
            IV.to_vec(),
            1,
        ),
        (
            "xts",
            keyed(xts::xts_over_cipher(toy), &xts_key),
            IV.to_vec(),
            1,
        ),
    ]
}

#[test]
fn split_and_scattered_paths_equal_one_shot() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed);
    for (name, m, iv, granule) in all_modes() {
        for len in lengths() {
            if len % granule != 0 || (name == "xts" && len < 16) {
                continue;
            }
            let pt = pattern(len, 99 + len as u64);
            let mut one_shot = pt.clone();
            m.encrypt(&iv, &mut one_shot).unwrap();
            for _ in 0..3 {
                let mut split = pt.clone();
                split_crypt(m.as_ref(), true, &iv, &mut split, &mut rng);
                assert_eq!(split, one_shot, "{name} len {len} split encrypt");
                split_crypt(m.as_ref(), false, &iv, &mut split, &mut rng);
                assert_eq!(split, pt, "{name} len {len} split decrypt");

                let mut copy = pt.clone();
                let mut segs = segments(&mut copy, &mut rng);
                let mut refs: Vec<&mut [u8]> = segs.iter_mut().map(|s| &mut s[..]).collect();
                walk_in_place(m.as_ref(), Direction::Encrypt, &iv, &mut refs).unwrap();
                assert_eq!(
                    segs.concat(),
                    one_shot,
                    "{name} len {len} scattered encrypt"
                );
                let mut refs: Vec<&mut [u8]> = segs.iter_mut().map(|s| &mut s[..]).collect();
                walk_in_place(m.as_ref(), Direction::Decrypt, &iv, &mut refs).unwrap();
                assert_eq!(segs.concat(), pt, "{name} len {len} scattered decrypt");
            }
        }
    }
}

#[test]
fn rejections() {
    let invalid_len = |r: Result<()>| matches!(r, Err(Error::InvalidLength { .. }));
    let (mut e, mut c) = (ecb::ecb_over_cipher(toy), cbc::cbc_over_cipher(toy));
    e.set_key(&KEY32[..16]).unwrap();
    c.set_key(&KEY32[..16]).unwrap();
    for len in [1, 15, 17, 31, 33, 100] {
        assert!(invalid_len(e.encrypt(&[], &mut vec![0; len])), "ecb {len}");
        assert!(invalid_len(c.encrypt(&IV, &mut vec![0; len])), "cbc {len}");
        assert!(invalid_len(c.decrypt(&IV, &mut vec![0; len])), "cbc {len}");
    }
    assert!(e.encrypt(&[], &mut []).is_ok());
    assert!(c.encrypt(&IV, &mut []).is_ok());

    let mut x = xts::xts_over_cipher(toy);
    for len in [0, 1, 8, 20, 33, 40, 47, 65, 96] {
        let r = x.set_key(&vec![3; len]);
        assert!(
            matches!(r, Err(Error::InvalidKeyLength { len: l, .. }) if l == len),
            "xts key {len}"
        );
    }
    for len in [32, 48, 64] {
        let mut key = vec![0xa5; len];
        assert!(matches!(x.set_key(&key), Err(Error::WeakKey(_))), "{len}");
        key[len - 1] ^= 1;
        x.set_key(&key).unwrap();
    }
    for len in [0, 1, 15] {
        assert!(invalid_len(x.encrypt(&IV, &mut vec![0; len])), "xts {len}");
        assert!(invalid_len(x.decrypt(&IV, &mut vec![0; len])), "xts {len}");
    }
    let bad_iv = |r: Result<()>| matches!(r, Err(Error::InvalidIvLength { .. }));
    assert!(bad_iv(x.encrypt(&IV[..8], &mut [0; 16])));
    assert!(bad_iv(c.encrypt(&[], &mut [0; 16])));
    let t = ctr::ctr_over_cipher(toy);
    assert!(bad_iv(t.encrypt(&[0; 17], &mut [0; 16])));
    assert!(matches!(
        ecb::ecb_over_cipher(toy).set_key(&[0; 20]),
        Err(Error::InvalidKeyLength { len: 20, .. })
    ));
}

/// The `new` constructors take any boxed cipher; `Xts::new` any pair of ECBs.
#[test]
fn constructors_over_boxed_children() {
    let mut x = Xts::new(
        "xts(test)".to_string(),
        Box::new(Ecb::new(toy())),
        Box::new(Ecb::new(toy())),
    );
    assert_eq!(
        x.set_key(&[1; 20]),
        Err(Error::InvalidKeyLength {
            driver: "xts(test)".to_string(),
            len: 20,
            valid: cryptoreg_registry::KeyLengths::list(&[32, 48, 64]),
        })
    );
    let mut key = KEY32;
    key[17] = 0;
    x.set_key(&key).unwrap();
    let mut data = pattern(50, 1);
    let mut want = data.clone();
    x.encrypt(&IV, &mut data).unwrap();
    ref_xts_encrypt(&key, &IV, &mut want);
    assert_eq!(data, want);
}

// ---- template records: names, priorities, sizes ----

/// A registered-looking description, as the registry would hold it (`'static` names:
/// records are static, so the test leaks a few bytes per fake).
fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn fake_cipher(name: &str, driver: &str, priority: u32, block: usize) -> DriverInfo {
    AlgDef::new(
        leak(name),
        leak(driver),
        priority,
        Ctor::Cipher(|_| Ok(toy())),
    )
    .block_size(block)
    .key_sizes(16, 32)
    .to_info()
}

fn fake_ecb_with_block(name: &str, driver: &str, priority: u32, block: usize) -> DriverInfo {
    AlgDef::new(
        leak(name),
        leak(driver),
        priority,
        Ctor::Skcipher(|_| Ok(ecb::ecb_over_cipher(toy))),
    )
    .block_size(block)
    .key_sizes(16, 32)
    .to_info()
}

fn fake_ecb(name: &str, driver: &str, priority: u32) -> DriverInfo {
    fake_ecb_with_block(name, driver, priority, 16)
}

/// A resolved child at its base priority, as the registry hands children to `create`.
pub(super) fn as_child(info: &DriverInfo) -> Child {
    Child::new(Arc::new(info.clone()), info.base_priority())
}

#[test]
fn templates_are_registered() {
    let mut names: Vec<&str> = inventory::iter::<Template>
        .into_iter()
        .map(|t| t.name)
        .filter(|n| ["ecb", "cbc", "ctr", "xts"].contains(n))
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["cbc", "ctr", "ecb", "xts"]);
    for t in inventory::iter::<Template> {
        match t.name {
            "ecb" | "cbc" | "ctr" => {
                assert_eq!(t.child_types, &[AlgType::Cipher]);
                assert_eq!((t.child_request)("aes"), "aes");
                assert_eq!((t.child_request)("aes-aesni"), "aes-aesni");
            }
            "xts" => assert_eq!(t.child_types, &[AlgType::Skcipher]),
            _ => {}
        }
    }
}

#[test]
fn cipher_mode_names_and_sizes() {
    for (prio, driver) in [(100, "aes-generic"), (300, "aes-aesni"), (1, "aes-demoted")] {
        let child = fake_cipher("aes", driver, prio, 16);
        for (tmpl, create, iv, block) in [
            (
                "ecb",
                ecb::create as fn(&[Child]) -> Result<DriverInfo>,
                0,
                16,
            ),
            ("cbc", cbc::create, 16, 16),
            ("ctr", ctr::create, 16, 1),
        ] {
            let inst = create(&[as_child(&child)]).unwrap();
            assert_eq!(inst.name(), format!("{tmpl}(aes)"));
            assert_eq!(inst.driver(), format!("{tmpl}({driver})"));
            assert_eq!(inst.base_priority(), prio);
            assert_eq!((inst.sizes().min_key, inst.sizes().max_key), (16, 32));
            assert_eq!(
                (inst.iv_size(), inst.block_size(), inst.out_size()),
                (iv, block, 0)
            );
            assert_eq!(inst.alg_type(), AlgType::Skcipher);
            let Factory::Skcipher(f) = &inst.factory() else {
                panic!("not an skcipher")
            };
            let mut a = f(&HostFeatures::detect()).unwrap();
            a.set_key(&KEY32[..16]).unwrap();
            let mut data = pattern(32, 3);
            let orig = data.clone();
            a.encrypt(&IV[..iv], &mut data).unwrap();
            assert_ne!(data, orig);
            a.decrypt(&IV[..iv], &mut data).unwrap();
            assert_eq!(data, orig);
        }
    }
}

#[test]
fn xts_child_request() {
    assert_eq!(xts::child_request("aes"), "ecb(aes)");
    assert_eq!(xts::child_request("aes-generic"), "ecb(aes-generic)");
    assert_eq!(xts::child_request("aes-aesni"), "ecb(aes-aesni)");
    assert_eq!(xts::child_request("ecb(aes)"), "ecb(aes)");
    assert_eq!(xts::child_request("ecb(aes-generic)"), "ecb(aes-generic)");
    assert_eq!(xts::child_request("ecb-aes-aesni"), "ecb-aes-aesni");
    assert_eq!(xts::child_request("ecbx"), "ecb(ecbx)");
}

#[test]
fn xts_names_and_sizes() {
    let generic_ecb =
        ecb::create(&[as_child(&fake_cipher("aes", "aes-generic", 100, 16))]).unwrap();
    for (child, driver, prio) in [
        (generic_ecb, "xts(ecb(aes-generic))", 100),
        (
            fake_ecb("ecb(aes)", "ecb-aes-aesni", 400),
            "xts(ecb-aes-aesni)",
            400,
        ),
    ] {
        let inst = xts::create(&[as_child(&child)]).unwrap();
        assert_eq!(inst.name(), "xts(aes)");
        assert_eq!(inst.driver(), driver);
        assert_eq!(inst.base_priority(), prio);
        assert_eq!((inst.sizes().min_key, inst.sizes().max_key), (32, 64));
        assert_eq!(
            (inst.iv_size(), inst.block_size(), inst.out_size()),
            (16, 16, 0)
        );
        let Factory::Skcipher(f) = &inst.factory() else {
            panic!("not an skcipher")
        };
        let mut a = f(&HostFeatures::detect()).unwrap();
        assert_eq!(
            a.set_key(&[9; 32]),
            Err(Error::WeakKey("XTS data key and tweak key are equal"))
        );
        assert!(matches!(
            a.set_key(&[9; 33]),
            Err(Error::InvalidKeyLength { driver: d, len: 33, .. }) if d == driver
        ));
        let mut key = KEY32;
        key[3] = 0;
        a.set_key(&key).unwrap();
        let mut data = pattern(77, 4);
        let mut want = data.clone();
        a.encrypt(&IV, &mut data).unwrap();
        ref_xts_encrypt(&key, &IV, &mut want);
        assert_eq!(data, want);
    }
}

#[test]
fn instances_refuse_unfit_children() {
    let not_found = |r: Result<DriverInfo>| matches!(r, Err(Error::NotFound(_)));
    // Not a 16-byte block cipher.
    let des = fake_cipher("des", "des-generic", 100, 8);
    assert!(not_found(ecb::create(&[as_child(&des)])));
    assert!(not_found(cbc::create(&[as_child(&des)])));
    assert!(not_found(ctr::create(&[as_child(&des)])));
    let des_ecb = fake_ecb_with_block("ecb(des)", "ecb-des-generic", 100, 8);
    assert!(not_found(xts::create(&[as_child(&des_ecb)])));
    // XTS over something that is not an ECB.
    let cbc_child = cbc::create(&[as_child(&fake_cipher("aes", "aes-generic", 100, 16))]).unwrap();
    assert!(not_found(xts::create(&[as_child(&cbc_child)])));
    // Wrong types and counts.
    let aes = fake_cipher("aes", "aes-generic", 100, 16);
    assert!(matches!(
        xts::create(&[as_child(&aes)]),
        Err(Error::WrongType { .. })
    ));
    let skc = fake_ecb("ecb(aes)", "ecb-aes-aesni", 400);
    assert!(matches!(
        ecb::create(&[as_child(&skc)]),
        Err(Error::WrongType { .. })
    ));
    assert!(not_found(cbc::create(&[])));
    assert!(not_found(ctr::create(&[as_child(&aes), as_child(&aes)])));
}

/// Each handle gets fresh child instances: keying one instance leaves another unkeyed
/// one with its own schedule.
#[test]
fn instances_do_not_share_keys() {
    let inst = cbc::create(&[as_child(&fake_cipher("aes", "aes-generic", 100, 16))]).unwrap();
    let Factory::Skcipher(f) = &inst.factory() else {
        panic!("not an skcipher")
    };
    let host = HostFeatures::detect();
    let (mut a, mut b) = (f(&host).unwrap(), f(&host).unwrap());
    a.set_key(&KEY32[..16]).unwrap();
    b.set_key(&KEY32[16..]).unwrap();
    let mut x = vec![0u8; 32];
    let mut y = vec![0u8; 32];
    a.encrypt(&IV, &mut x).unwrap();
    b.encrypt(&IV, &mut y).unwrap();
    assert_ne!(x, y);
}
