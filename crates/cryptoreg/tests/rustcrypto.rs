//! The RustCrypto adapters (`--features rustcrypto`): the same generic code — written
//! against the `cipher` and `aead` traits only — runs over the RustCrypto crate's type
//! and over the adapter, and the outputs must be equal byte for byte, on random keys,
//! nonces, AAD and lengths, for every driver of the algorithm that passed its self-test
//! (pinned through the adapter's `with_driver`). Tag failures must fail on both, and the
//! adapter must leave no plaintext behind. XChaCha20-Poly1305 and XTS also pass the
//! standards' vectors (`selftest/vectors/`); XTS, which has no RustCrypto trait, is
//! compared with an XTS written out from IEEE 1619 over the `aes` crate and with the
//! registry's `xts(aes-generic)`, and its refusals must write nothing.
//!
//! Inputs come from a seeded RNG; the seed is printed, and `RUSTCRYPTO_SEED=N` replays.

mod common;

use aead::consts::{U12, U16};
use aead::inout::InOutBuf;
use aead::{Aead as _, AeadInOut, KeyInit};
use cipher::{
    Array, Block, BlockCipherDecrypt, BlockCipherEncrypt, KeyIvInit, StreamCipher, StreamCipherSeek,
};
use cryptoreg::rustcrypto;
use cryptoreg::Registry;
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};

fn rng(test: &str) -> StdRng {
    let seed = std::env::var("RUSTCRYPTO_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::thread_rng().gen());
    eprintln!("{test}: RUSTCRYPTO_SEED={seed}");
    StdRng::seed_from_u64(seed)
}

fn random<const N: usize>(rng: &mut StdRng) -> [u8; N] {
    let mut a = [0u8; N];
    rng.fill_bytes(&mut a);
    a
}

fn random_vec(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill_bytes(&mut v);
    v
}

/// Every driver of `alg` that passed its self-test, after resolving `alg` (so its best
/// template instance is built too). Fails if there is none.
fn passed_drivers(reg: &Registry, alg: &str) -> Vec<String> {
    reg.resolve(alg).expect("algorithm resolves");
    let drivers: Vec<String> = reg
        .list()
        .into_iter()
        .filter(|e| e.name == alg && e.state == "passed")
        .map(|e| e.driver)
        .collect();
    assert!(!drivers.is_empty(), "no passed driver of {alg}");
    drivers
}

// ---------------------------------------------------------------- block ciphers

/// Generic user code over the block-cipher traits: encrypts `data` (whole blocks) in
/// every way the traits offer — one block in place, one block to another buffer, all
/// blocks in place (which goes through the parallel path), blocks buffer to buffer —
/// checks they agree with each other, then decrypts back. Returns the ciphertext.
fn block_user<C: BlockCipherEncrypt + BlockCipherDecrypt>(c: &C, data: &[u8]) -> Vec<u8> {
    let blocks: Vec<Block<C>> = data
        .chunks_exact(16)
        .map(|b| Array::try_from(b).unwrap())
        .collect();
    let mut in_place = blocks.clone();
    c.encrypt_blocks(&mut in_place);
    let mut b2b = vec![Block::<C>::default(); blocks.len()];
    c.encrypt_blocks_b2b(&blocks, &mut b2b).unwrap();
    assert_eq!(in_place, b2b);
    for (i, b) in blocks.iter().enumerate() {
        let mut one = b.clone();
        c.encrypt_block(&mut one);
        assert_eq!(one, in_place[i]);
        let mut out = Block::<C>::default();
        c.encrypt_block_b2b(b, &mut out);
        assert_eq!(out, in_place[i]);
    }
    let mut back = in_place.clone();
    c.decrypt_blocks(&mut back);
    assert_eq!(back, blocks);
    let mut back_b2b = vec![Block::<C>::default(); blocks.len()];
    c.decrypt_blocks_b2b(&in_place, &mut back_b2b).unwrap();
    assert_eq!(back_b2b, blocks);
    in_place.iter().flat_map(|b| b.iter().copied()).collect()
}

macro_rules! block_case {
    ($reg:expr, $rng:expr, $driver:expr, $ours:ty, $theirs:ty, $klen:literal) => {{
        let key: [u8; $klen] = random($rng);
        let ours = <$ours>::with_driver($reg, $driver, &key.into()).unwrap();
        assert_eq!(ours.handle().driver_name(), $driver);
        let theirs = <$theirs as KeyInit>::new(&key.into());
        for blocks in [1usize, 2, 7, 8, 9, 16, 17, 33] {
            let data = random_vec($rng, blocks * 16);
            assert_eq!(
                block_user(&ours, &data),
                block_user(&theirs, &data),
                "{} key {}, {blocks} blocks",
                $driver,
                hex::encode(key)
            );
        }
    }};
}

#[test]
fn aes_block_adapter_matches_the_aes_crate_on_every_driver() {
    let reg = common::boot("", None);
    let rng = &mut rng("aes");
    for driver in passed_drivers(&reg, "aes") {
        for _ in 0..4 {
            block_case!(&reg, rng, &driver, rustcrypto::Aes128, aes::Aes128, 16);
            block_case!(&reg, rng, &driver, rustcrypto::Aes192, aes::Aes192, 24);
            block_case!(&reg, rng, &driver, rustcrypto::Aes256, aes::Aes256, 32);
        }
    }
}

// ---------------------------------------------------------------- ctr(aes)

/// Generic user code over the stream-cipher traits: applies the keystream to `data` in
/// the given piece sizes (in place and buffer to buffer alternately), reading the
/// position as it goes; then seeks to each of `seeks` and writes 40 keystream bytes
/// there. Returns everything it produced.
fn stream_user<C: StreamCipher + StreamCipherSeek>(
    c: &mut C,
    data: &[u8],
    pieces: &[usize],
    seeks: &[u64],
) -> Vec<u8> {
    let mut out = data.to_vec();
    let mut at = 0;
    let mut i = 0;
    while at < out.len() {
        let n = pieces[i % pieces.len()].min(out.len() - at);
        assert_eq!(c.current_pos::<u64>(), at as u64);
        if i % 2 == 0 {
            c.try_apply_keystream(&mut out[at..at + n]).unwrap();
        } else {
            let src = data[at..at + n].to_vec();
            c.apply_keystream_b2b(&src, &mut out[at..at + n]);
        }
        at += n;
        i += 1;
    }
    assert_eq!(c.current_pos::<u128>(), data.len() as u128);
    for &pos in seeks {
        c.seek(pos);
        assert_eq!(c.current_pos::<u64>(), pos);
        let mut ks = [0u8; 40];
        c.write_keystream(&mut ks);
        out.extend_from_slice(&ks);
        assert_eq!(c.current_pos::<u64>(), pos + 40);
    }
    out
}

macro_rules! ctr_case {
    ($reg:expr, $rng:expr, $driver:expr, $iv:expr, $ours:ty, $theirs:ty, $klen:literal) => {{
        let key: [u8; $klen] = random($rng);
        let iv: [u8; 16] = $iv;
        let len = $rng.gen_range(0..3000);
        let data = random_vec($rng, len);
        let pieces: Vec<usize> = (0..5).map(|_| $rng.gen_range(1..100)).collect();
        let seeks: Vec<u64> = (0..4).map(|_| $rng.gen_range(0..5000)).collect();
        let mut ours = <$ours>::with_driver($reg, $driver, &key.into(), &iv.into()).unwrap();
        assert_eq!(ours.handle().driver_name(), $driver);
        let mut theirs = <$theirs as KeyIvInit>::new(&key.into(), &iv.into());
        assert_eq!(
            stream_user(&mut ours, &data, &pieces, &seeks),
            stream_user(&mut theirs, &data, &pieces, &seeks),
            "{} key {} iv {} len {len} pieces {pieces:?} seeks {seeks:?}",
            $driver,
            hex::encode(key),
            hex::encode(iv)
        );
    }};
}

type TheirCtr<C> = ctr::Ctr128BE<C>;

#[test]
fn ctr_adapter_matches_ctr128be_on_every_driver_including_the_counter_wrap() {
    let reg = common::boot("", None);
    let rng = &mut rng("ctr");
    for driver in passed_drivers(&reg, "ctr(aes)") {
        for round in 0..6 {
            let iv = if round % 2 == 0 {
                random(rng)
            } else {
                // A counter a few blocks from 2^128, so the data crosses the wrap.
                let mut iv = [0xff; 16];
                iv[15] = 0xff - rng.gen_range(0..8u8);
                iv
            };
            ctr_case!(
                &reg,
                rng,
                &driver,
                iv,
                rustcrypto::Aes128Ctr,
                TheirCtr<aes::Aes128>,
                16
            );
            ctr_case!(
                &reg,
                rng,
                &driver,
                iv,
                rustcrypto::Aes192Ctr,
                TheirCtr<aes::Aes192>,
                24
            );
            ctr_case!(
                &reg,
                rng,
                &driver,
                iv,
                rustcrypto::Aes256Ctr,
                TheirCtr<aes::Aes256>,
                32
            );
        }
    }
}

// ---------------------------------------------------------------- AEADs

/// What generic AEAD user code observed for one message.
#[derive(Debug, PartialEq)]
struct AeadRun {
    /// `Aead::encrypt`: ciphertext with the tag appended.
    sealed: Vec<u8>,
    /// `encrypt_inout_detached` out of place: ciphertext and tag.
    detached: (Vec<u8>, Vec<u8>),
    /// `Aead::decrypt` of `sealed`.
    opened: Vec<u8>,
    /// Whether each tampered variant (a flipped bit in the text, in the tag, in the AAD,
    /// in the nonce) was refused.
    refused: [bool; 4],
}

/// Generic user code over `AeadInOut` (and the `Aead` it implies). Also checks, through
/// the trait, that a refused in-place decryption leaves no plaintext in the buffer.
fn aead_user<A: AeadInOut<TagSize = U16>>(a: &A, nonce: &[u8], aad: &[u8], msg: &[u8]) -> AeadRun {
    let n = Array::try_from(nonce).expect("nonce of the cipher's size");
    let sealed = a
        .encrypt(&n, aead::Payload { msg, aad })
        .expect("seal succeeds");
    let mut out = vec![0u8; msg.len()];
    let tag = a
        .encrypt_inout_detached(&n, aad, InOutBuf::new(msg, &mut out).unwrap())
        .expect("detached seal succeeds");
    let opened = a
        .decrypt(&n, aead::Payload { msg: &sealed, aad })
        .expect("open succeeds");

    let tl = sealed.len() - 16;
    let mut refused = [false; 4];
    let mut bad_text = sealed.clone();
    if tl > 0 {
        bad_text[tl / 2] ^= 0x20;
    } else {
        bad_text[0] ^= 0x20; // empty text: the tag is all there is
    }
    let mut bad_tag = sealed.clone();
    bad_tag[tl + 15] ^= 0x01;
    let mut bad_aad = aad.to_vec();
    bad_aad.push(0);
    let mut bad_nonce = nonce.to_vec();
    *bad_nonce.last_mut().unwrap() ^= 0x80;
    for (i, (nonce, aad, ct)) in [
        (nonce, aad, &bad_text),
        (nonce, aad, &bad_tag),
        (nonce, &bad_aad[..], &sealed),
        (&bad_nonce[..], aad, &sealed),
    ]
    .into_iter()
    .enumerate()
    {
        let mut buf = ct[..tl].to_vec();
        let tag = Array::try_from(&ct[tl..]).unwrap();
        let nonce = Array::try_from(nonce).unwrap();
        let r = a.decrypt_inout_detached(&nonce, aad, buf.as_mut_slice().into(), &tag);
        refused[i] = r.is_err();
        // (From 8 bytes up, so a wiped or ciphertext buffer equal to random plaintext
        // by chance cannot fail the test.)
        if r.is_err() && msg.len() >= 8 {
            assert_ne!(buf, msg, "a refused open left the plaintext in the buffer");
        }
    }
    AeadRun {
        sealed,
        detached: (out, tag.to_vec()),
        opened,
        refused,
    }
}

fn aead_lengths(rng: &mut StdRng) -> Vec<(usize, usize)> {
    let mut v: Vec<(usize, usize)> = [0, 1, 15, 16, 17, 64, 255, 256, 1000, 4099]
        .into_iter()
        .map(|len| (len, rng.gen_range(0..40)))
        .collect();
    v.push((rng.gen_range(0..600), 0));
    v
}

macro_rules! aead_case {
    ($reg:expr, $rng:expr, $driver:expr, $ours:ty, $theirs:ty, $klen:literal) => {
        aead_case!($reg, $rng, $driver, $ours, $theirs, $klen, 12)
    };
    ($reg:expr, $rng:expr, $driver:expr, $ours:ty, $theirs:ty, $klen:literal, $nlen:literal) => {{
        let key: [u8; $klen] = random($rng);
        let ours = <$ours>::with_driver($reg, $driver, &key.into()).unwrap();
        assert_eq!(ours.handle().unwrap().driver_name(), $driver);
        let theirs = <$theirs as KeyInit>::new(&key.into());
        for (len, aad_len) in aead_lengths($rng) {
            let nonce: [u8; $nlen] = random($rng);
            let aad = random_vec($rng, aad_len);
            let msg = random_vec($rng, len);
            let mine = aead_user(&ours, &nonce, &aad, &msg);
            let reference = aead_user(&theirs, &nonce, &aad, &msg);
            assert_eq!(
                mine,
                reference,
                "{} key {} nonce {} aad {} len {len}",
                $driver,
                hex::encode(key),
                hex::encode(nonce),
                hex::encode(&aad)
            );
            assert_eq!(mine.opened, msg);
            assert_eq!(mine.refused, [true; 4]);
        }
    }};
}

#[test]
fn gcm_adapters_match_aes_gcm_on_every_driver() {
    let reg = common::boot("", None);
    let rng = &mut rng("gcm");
    for driver in passed_drivers(&reg, "gcm(aes)") {
        aead_case!(
            &reg,
            rng,
            &driver,
            rustcrypto::Aes128Gcm,
            aes_gcm::Aes128Gcm,
            16
        );
        aead_case!(
            &reg,
            rng,
            &driver,
            rustcrypto::Aes256Gcm,
            aes_gcm::Aes256Gcm,
            32
        );
    }
}

#[test]
fn chacha20poly1305_adapter_matches_the_chacha20poly1305_crate_on_every_driver() {
    let reg = common::boot("", None);
    let rng = &mut rng("chacha20poly1305");
    for driver in passed_drivers(&reg, "rfc7539(chacha20,poly1305)") {
        aead_case!(
            &reg,
            rng,
            &driver,
            rustcrypto::ChaCha20Poly1305,
            chacha20poly1305::ChaCha20Poly1305,
            32
        );
    }
}

#[test]
fn xchacha20poly1305_adapter_matches_the_chacha20poly1305_crate_on_every_driver() {
    let reg = common::boot("", None);
    let rng = &mut rng("xchacha20poly1305");
    for driver in passed_drivers(&reg, "xchacha20poly1305") {
        aead_case!(
            &reg,
            rng,
            &driver,
            rustcrypto::XChaCha20Poly1305,
            chacha20poly1305::XChaCha20Poly1305,
            32,
            24
        );
    }
}

/// draft-irtf-cfrg-xchacha-03 A.3.1 (and the project's other `xchacha20poly1305` known
/// answers: the same with a tag bit flipped, and a long one computed with OpenSSL), read
/// from `selftest/vectors/xchacha20poly1305.toml`, through the adapter on every driver
/// and through RustCrypto's type, which checks the vectors are what RustCrypto computes.
#[test]
fn xchacha20poly1305_adapter_passes_the_draft_vectors_on_every_driver() {
    let reg = common::boot("", None);
    let set = cryptoreg_selftest::VectorSet::embedded();
    let vectors = set.get_aead("xchacha20poly1305").expect("vectors");
    assert!(vectors
        .iter()
        .any(|v| v.source.contains("A.3.1") && !v.fail));
    for driver in passed_drivers(&reg, "xchacha20poly1305") {
        for v in vectors {
            let key = Array::try_from(&v.key[..]).unwrap();
            let nonce = rustcrypto::XNonce::try_from(&v.nonce[..]).unwrap();
            let tag = Array::try_from(&v.tag[..]).unwrap();
            let ours = rustcrypto::XChaCha20Poly1305::with_driver(&reg, &driver, &key).unwrap();
            let theirs = chacha20poly1305::XChaCha20Poly1305::new(&key);
            let what = format!("{driver}: {}", v.source);
            let mut mine = v.ciphertext.clone();
            let r = ours.decrypt_inout_detached(&nonce, &v.aad, mine.as_mut_slice().into(), &tag);
            let mut reference = v.ciphertext.clone();
            let r_ref = theirs.decrypt_inout_detached(
                &nonce,
                &v.aad,
                reference.as_mut_slice().into(),
                &tag,
            );
            if v.fail {
                assert_eq!(r, Err(aead::Error), "{what}");
                assert_eq!(r_ref, Err(aead::Error), "chacha20poly1305: {what}");
                assert_ne!(mine, v.plaintext, "{what}: plaintext left behind");
                continue;
            }
            assert_eq!(r, Ok(()), "{what}");
            assert_eq!(mine, v.plaintext, "{what}");
            assert_eq!(r_ref, Ok(()), "chacha20poly1305: {what}");
            assert_eq!(reference, v.plaintext, "chacha20poly1305: {what}");
            let mut buf = v.plaintext.clone();
            let got = ours
                .encrypt_inout_detached(&nonce, &v.aad, buf.as_mut_slice().into())
                .unwrap();
            assert_eq!(buf, v.ciphertext, "{what}");
            assert_eq!(got, tag, "{what}");
        }
    }
}

// ---------------------------------------------------------------- xts(aes)

/// Multiplies an XTS tweak by x (IEEE 1619-2007 §5.2: little-endian, reduction 0x87).
fn times_x(t: [u8; 16]) -> [u8; 16] {
    let v = u128::from_le_bytes(t);
    ((v << 1) ^ if v >> 127 == 1 { 0x87 } else { 0 }).to_le_bytes()
}

fn xor(a: [u8; 16], b: [u8; 16]) -> [u8; 16] {
    std::array::from_fn(|i| a[i] ^ b[i])
}

/// XTS-AES written out from IEEE 1619-2007 §5.3-5.4 (with ciphertext stealing) over the
/// `aes` crate's block cipher: the independent reference for random data. Its own
/// correctness is checked against the standard's vectors below.
fn reference_xts<C>(key: &[u8], tweak: [u8; 16], data: &[u8], encrypt: bool) -> Vec<u8>
where
    C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt + cipher::BlockSizeUser<BlockSize = U16>,
{
    let (k1, k2) = key.split_at(key.len() / 2);
    let data_key = C::new_from_slice(k1).unwrap();
    let tweak_key = C::new_from_slice(k2).unwrap();
    let block = |b: [u8; 16], t: [u8; 16], enc: bool| -> [u8; 16] {
        let mut x: Block<C> = xor(b, t).into();
        if enc {
            data_key.encrypt_block(&mut x);
        } else {
            data_key.decrypt_block(&mut x);
        }
        xor(x.into(), t)
    };
    let at = |i: usize| -> [u8; 16] { data[16 * i..16 * i + 16].try_into().unwrap() };
    assert!(data.len() >= 16);
    let (m, r) = (data.len() / 16, data.len() % 16);
    let mut t: Block<C> = tweak.into();
    tweak_key.encrypt_block(&mut t);
    let mut tweaks = vec![<[u8; 16]>::from(t)];
    for i in 0..m {
        tweaks.push(times_x(tweaks[i]));
    }
    let mut out = Vec::with_capacity(data.len());
    let whole = if r == 0 { m } else { m - 1 };
    for (i, &t) in tweaks.iter().enumerate().take(whole) {
        out.extend_from_slice(&block(at(i), t, encrypt));
    }
    if r != 0 {
        // Stealing: the last whole block runs under the tweak of its position when
        // encrypting and of the next one when decrypting, and the other way round for the
        // block made of the tail and the stolen bytes.
        let (first, second) = if encrypt {
            (tweaks[m - 1], tweaks[m])
        } else {
            (tweaks[m], tweaks[m - 1])
        };
        let cc = block(at(m - 1), first, encrypt);
        let mut pp = cc;
        pp[..r].copy_from_slice(&data[16 * m..]);
        out.extend_from_slice(&block(pp, second, encrypt));
        out.extend_from_slice(&cc[..r]);
    }
    out
}

/// One XTS adapter, either key size, as the tests drive it.
enum Xts {
    A128(rustcrypto::Aes128Xts),
    A256(rustcrypto::Aes256Xts),
}

impl Xts {
    fn new(reg: &Registry, driver: &str, key: &[u8]) -> cryptoreg::Result<Xts> {
        Ok(match key.len() {
            32 => Xts::A128(rustcrypto::Aes128Xts::with_driver(
                reg,
                driver,
                &key.try_into().unwrap(),
            )?),
            64 => Xts::A256(rustcrypto::Aes256Xts::with_driver(
                reg,
                driver,
                &key.try_into().unwrap(),
            )?),
            n => panic!("no XTS adapter for a {n}-byte key"),
        })
    }

    fn driver(&self) -> &str {
        match self {
            Xts::A128(x) => x.handle().driver_name(),
            Xts::A256(x) => x.handle().driver_name(),
        }
    }

    fn sector(&self, enc: bool, buf: &mut [u8], tweak: [u8; 16]) -> cryptoreg::Result<()> {
        match (self, enc) {
            (Xts::A128(x), true) => x.encrypt_sector(buf, tweak),
            (Xts::A128(x), false) => x.decrypt_sector(buf, tweak),
            (Xts::A256(x), true) => x.encrypt_sector(buf, tweak),
            (Xts::A256(x), false) => x.decrypt_sector(buf, tweak),
        }
    }

    fn area(&self, enc: bool, buf: &mut [u8], size: usize, first: u128) -> cryptoreg::Result<()> {
        match (self, enc) {
            (Xts::A128(x), true) => x.encrypt_area(buf, size, first),
            (Xts::A128(x), false) => x.decrypt_area(buf, size, first),
            (Xts::A256(x), true) => x.encrypt_area(buf, size, first),
            (Xts::A256(x), false) => x.decrypt_area(buf, size, first),
        }
    }
}

fn reference(key: &[u8], tweak: [u8; 16], data: &[u8], enc: bool) -> Vec<u8> {
    match key.len() {
        32 => reference_xts::<aes::Aes128>(key, tweak, data, enc),
        64 => reference_xts::<aes::Aes256>(key, tweak, data, enc),
        n => panic!("no reference for a {n}-byte key"),
    }
}

fn random_xts_key(rng: &mut StdRng, len: usize) -> Vec<u8> {
    loop {
        let k = random_vec(rng, len);
        if k[..len / 2] != k[len / 2..] {
            return k;
        }
    }
}

/// IEEE 1619-2007 Annex B (vectors 1-19, `selftest/vectors/xts_aes.toml`), through the
/// adapters on every driver and through the reference: vector 1's equal halves are a
/// `WeakKey` error, every other vector encrypts to the standard's ciphertext and back.
#[test]
fn xts_adapters_pass_the_ieee_1619_vectors_on_every_driver() {
    let reg = common::boot("", None);
    let set = cryptoreg_selftest::VectorSet::embedded();
    let vectors = set.get("xts(aes)").expect("vectors");
    let ieee: Vec<_> = vectors
        .iter()
        .filter(|v| v.source.starts_with("IEEE 1619") && matches!(v.key.len(), 32 | 64))
        .collect();
    assert!(ieee.len() >= 19, "{} IEEE 1619 vectors", ieee.len());
    for v in &ieee {
        if v.expect == cryptoreg_selftest::Expect::Ok {
            let tweak: [u8; 16] = v.iv[..].try_into().unwrap();
            assert_eq!(
                reference(&v.key, tweak, &v.plaintext, true),
                v.ciphertext,
                "reference: {}",
                v.source
            );
        }
    }
    for driver in passed_drivers(&reg, "xts(aes)") {
        for v in &ieee {
            let what = format!("{driver}: {}", v.source);
            let xts = Xts::new(&reg, &driver, &v.key);
            match v.expect {
                cryptoreg_selftest::Expect::WeakKey => {
                    assert!(
                        matches!(xts, Err(cryptoreg::Error::WeakKey(_))),
                        "{what}: equal halves accepted"
                    );
                    continue;
                }
                cryptoreg_selftest::Expect::Ok => {}
                e => panic!("{what}: unexpected expectation {e:?}"),
            }
            let xts = xts.unwrap();
            assert_eq!(xts.driver(), driver);
            let tweak: [u8; 16] = v.iv[..].try_into().unwrap();
            let mut buf = v.plaintext.clone();
            xts.sector(true, &mut buf, tweak).unwrap();
            assert_eq!(buf, v.ciphertext, "{what}");
            xts.sector(false, &mut buf, tweak).unwrap();
            assert_eq!(buf, v.plaintext, "{what}");
        }
    }
}

/// Random keys, tweaks and lengths (whole blocks and ciphertext stealing), on every
/// driver: the adapter's sector equals the reference's and the registry's generic
/// template instance `xts(aes-generic)`, and decrypts back.
#[test]
fn xts_adapters_match_the_reference_and_the_generic_driver_on_random_data() {
    let reg = common::boot("", None);
    let rng = &mut rng("xts");
    for driver in passed_drivers(&reg, "xts(aes)") {
        for round in 0..24 {
            let klen = if round % 2 == 0 { 32 } else { 64 };
            let key = random_xts_key(rng, klen);
            let tweak: [u8; 16] = random(rng);
            let len = match round % 4 {
                0 => 16 * rng.gen_range(1..300),
                _ => rng.gen_range(16..5000),
            };
            let data = random_vec(rng, len);
            let what = format!(
                "{driver} key {} tweak {} len {len}",
                hex::encode(&key),
                hex::encode(tweak)
            );
            let xts = Xts::new(&reg, &driver, &key).unwrap();
            let mut ours = data.clone();
            xts.sector(true, &mut ours, tweak).unwrap();
            assert_eq!(ours, reference(&key, tweak, &data, true), "{what}");
            let mut generic = reg.alloc_skcipher("xts(aes-generic)").unwrap();
            generic.set_key(&key).unwrap();
            let mut theirs = data.clone();
            generic.encrypt_in_place(&tweak, &mut theirs).unwrap();
            assert_eq!(ours, theirs, "{what}: xts(aes-generic)");
            assert_eq!(reference(&key, tweak, &ours, false), data, "{what}");
            xts.sector(false, &mut ours, tweak).unwrap();
            assert_eq!(ours, data, "{what}");
        }
    }
}

/// The area functions are the sector calls, one per `sector_size` bytes (the last may be
/// short), sector `n` under the tweak `n` as 16 bytes little-endian — dm-crypt's `plain64`
/// IV: the sector number as a little-endian u64, then zeros.
#[test]
fn xts_area_is_the_sector_calls_with_plain64_tweaks() {
    let reg = common::boot("", None);
    let rng = &mut rng("xts-area");
    assert_eq!(
        rustcrypto::sector_tweak(0x0102_0304_0506_0708),
        [8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    for round in 0..12 {
        let klen = if round % 2 == 0 { 32 } else { 64 };
        let key = random_xts_key(rng, klen);
        let xts = Xts::new(&reg, "xts(aes)", &key).unwrap();
        let size = [16, 33, 512, 520, 4096][round % 5];
        let sectors = rng.gen_range(0..6);
        // Every third area ends in a short sector (of at least a block).
        let tail = if round % 3 == 0 && size > 16 {
            rng.gen_range(16..size)
        } else {
            0
        };
        let data = random_vec(rng, size * sectors + tail);
        let count = data.len().div_ceil(size) as u128;
        let first: u128 = match round % 4 {
            0 => rng.gen::<u64>().into(),
            // The last sector is numbered 2^128 - 1.
            1 => u128::MAX - count.saturating_sub(1),
            _ => rng.gen_range(0..1000),
        };
        let what = format!(
            "key {} size {size} len {} first {first}",
            hex::encode(&key),
            data.len()
        );
        let mut area = data.clone();
        xts.area(true, &mut area, size, first).unwrap();
        let mut by_sector = data.clone();
        let mut want = Vec::new();
        for (i, chunk) in by_sector.chunks_mut(size).enumerate() {
            let n = first + i as u128;
            let mut tweak = [0u8; 16];
            for (b, byte) in tweak.iter_mut().enumerate() {
                *byte = (n >> (8 * b)) as u8;
            }
            want.extend(reference(&key, tweak, chunk, true));
            xts.sector(true, chunk, tweak).unwrap();
        }
        assert_eq!(area, by_sector, "{what}");
        assert_eq!(area, want, "{what}");
        xts.area(false, &mut area, size, first).unwrap();
        assert_eq!(area, data, "{what}");
    }
}

/// Every refusal is an error value and leaves the buffer as it was: short sectors, a
/// sector size under 16, an area whose last sector is under 16 bytes, sector numbers
/// past 2^128 - 1; equal key halves and another algorithm's driver at construction.
#[test]
fn xts_refusals_are_errors_that_write_nothing() {
    let reg = common::boot("", None);
    let rng = &mut rng("xts-refusals");
    let key: [u8; 32] = random_xts_key(rng, 32).try_into().unwrap();
    let xts = rustcrypto::Aes128Xts::with_registry(&reg, &key.into()).unwrap();
    let unchanged = |f: &dyn Fn(&mut [u8]) -> cryptoreg::Result<()>, len: usize, what: &str| {
        let data = vec![0x5a; len];
        let mut buf = data.clone();
        let r = f(&mut buf);
        assert!(
            matches!(r, Err(cryptoreg::Error::InvalidLength { .. })),
            "{what}: {r:?}"
        );
        assert_eq!(buf, data, "{what}: a refused call wrote");
    };
    for len in 0..16 {
        unchanged(&|b| xts.encrypt_sector(b, [1; 16]), len, "short sector");
        unchanged(&|b| xts.decrypt_sector(b, [1; 16]), len, "short sector");
    }
    for size in [0, 1, 15] {
        unchanged(&|b| xts.encrypt_area(b, size, 0), 64, "small sector size");
        unchanged(&|b| xts.decrypt_area(b, size, 0), 64, "small sector size");
    }
    for tail in 1..16 {
        unchanged(
            &|b| xts.encrypt_area(b, 512, 7),
            1024 + tail,
            "short last sector",
        );
        unchanged(
            &|b| xts.decrypt_area(b, 512, 7),
            1024 + tail,
            "short last sector",
        );
    }
    unchanged(
        &|b| xts.encrypt_area(b, 512, u128::MAX),
        1024,
        "sector numbers overflow",
    );
    unchanged(
        &|b| xts.encrypt_area(b, 16, u128::MAX - 2),
        64,
        "sector numbers overflow",
    );
    // Right at the end of the numbers is fine (and does not overflow computing the next).
    let mut buf = vec![0x5a; 1024];
    xts.encrypt_area(&mut buf, 512, u128::MAX - 1).unwrap();
    xts.decrypt_area(&mut buf, 512, u128::MAX - 1).unwrap();
    assert_eq!(buf, vec![0x5a; 1024]);
    // An empty area is zero sectors.
    xts.encrypt_area(&mut [], 512, u128::MAX).unwrap();

    let mut equal = [7u8; 64];
    assert!(matches!(
        rustcrypto::Aes256Xts::with_registry(&reg, &equal.into()),
        Err(cryptoreg::Error::WeakKey(_))
    ));
    equal[63] = 8;
    assert!(rustcrypto::Aes256Xts::with_registry(&reg, &equal.into()).is_ok());
    assert!(rustcrypto::Aes128Xts::with_driver(&reg, "ctr(aes)", &key.into()).is_err());
    assert!(rustcrypto::Aes128Xts::with_driver(&reg, "gcm(aes)", &key.into()).is_err());
    let dbg = format!("{xts:?}");
    assert!(dbg.contains(xts.handle().driver_name()) && !dbg.contains(&hex::encode(key)));
}

// ---------------------------------------------------------------- names

/// `cryptoreg::rustcrypto::{Key, Nonce, Tag, XNonce}` are the types `aes_gcm` and
/// `chacha20poly1305` export under those names, so imports carry over.
#[test]
fn the_type_names_are_the_rustcrypto_crates() {
    fn same<T>(_: T, _: T) {}
    use aead::consts::U24;
    let key = [3u8; 32];
    let ours: rustcrypto::Key<rustcrypto::Aes256Gcm> = key.into();
    let theirs: aes_gcm::Key<aes_gcm::Aes256Gcm> = key.into();
    same(ours, theirs);
    same(
        rustcrypto::Nonce::<U12>::default(),
        aes_gcm::Nonce::<U12>::default(),
    );
    // (A defaulted parameter applies in a type, not an expression.)
    let tag: rustcrypto::Tag = Default::default();
    let _: aes_gcm::Tag = tag;
    same(
        rustcrypto::XNonce::default(),
        chacha20poly1305::XNonce::default(),
    );
    same(
        rustcrypto::Nonce::<U24>::default(),
        rustcrypto::XNonce::default(),
    );
    // The key type of an AEAD works for RustCrypto's and the adapter alike.
    let a = rustcrypto::Aes256Gcm::new(&ours);
    let b = aes_gcm::Aes256Gcm::new(&ours);
    let nonce = rustcrypto::Nonce::from([9u8; 12]);
    assert_eq!(
        a.encrypt(&nonce, &b"same"[..]).unwrap(),
        b.encrypt(&nonce, &b"same"[..]).unwrap()
    );
    let xts_key: rustcrypto::Key<rustcrypto::Aes256Xts> = [1u8; 64].into();
    assert_eq!(xts_key.len(), 64);
}

/// With `getrandom`, keys and nonces are generated as in `aes-gcm`'s documentation, and
/// are random (two draws differ).
#[cfg(feature = "getrandom")]
#[test]
fn getrandom_generates_keys_and_nonces() {
    use rustcrypto::{Aes256Gcm, Generate, Key, Nonce};
    let key = Key::<Aes256Gcm>::generate();
    assert_ne!(key, Key::<Aes256Gcm>::generate());
    let nonce: Nonce<U12> = Nonce::generate();
    assert_ne!(nonce, Nonce::<U12>::generate());
    let ours = Aes256Gcm::new(&key);
    let theirs = aes_gcm::Aes256Gcm::new(&key);
    assert_eq!(
        aead_user(&ours, &nonce, b"", b"generated"),
        aead_user(&theirs, &nonce, b"", b"generated")
    );
    let xnonce = rustcrypto::XNonce::generate();
    let xkey = Key::<rustcrypto::XChaCha20Poly1305>::generate();
    let ours = rustcrypto::XChaCha20Poly1305::new(&xkey);
    let theirs = chacha20poly1305::XChaCha20Poly1305::new(&xkey);
    assert_eq!(
        aead_user(&ours, &xnonce, b"x", b"generated"),
        aead_user(&theirs, &xnonce, b"x", b"generated")
    );
}

// ---------------------------------------------------------------- constructors

/// The one-line switch: `KeyInit::new` / `KeyIvInit::new` over the process default
/// registry give the default registry's best driver and the same output as RustCrypto.
#[test]
fn the_default_constructors_use_the_process_registry() {
    let rng = &mut rng("default");
    let key: [u8; 32] = random(rng);
    let nonce: [u8; 12] = random(rng);
    let msg = random_vec(rng, 100);
    let best = cryptoreg::registry().unwrap().resolve("gcm(aes)").unwrap();

    let ours = rustcrypto::Aes256Gcm::new(&key.into());
    assert_eq!(ours.handle().unwrap().driver_name(), best.driver());
    let theirs = aes_gcm::Aes256Gcm::new(&key.into());
    assert_eq!(
        aead_user(&ours, &nonce, b"", &msg),
        aead_user(&theirs, &nonce, b"", &msg)
    );

    let k16: [u8; 16] = random(rng);
    let ours = rustcrypto::Aes128::new(&k16.into());
    let theirs = aes::Aes128::new(&k16.into());
    let data = random_vec(rng, 64);
    assert_eq!(block_user(&ours, &data), block_user(&theirs, &data));

    let iv: [u8; 16] = random(rng);
    let mut ours = rustcrypto::Aes128Ctr::new(&k16.into(), &iv.into());
    let mut theirs = ctr::Ctr128BE::<aes::Aes128>::new(&k16.into(), &iv.into());
    assert_eq!(
        stream_user(&mut ours, &msg, &[7, 16, 33], &[3, 1000]),
        stream_user(&mut theirs, &msg, &[7, 16, 33], &[3, 1000])
    );

    let ours = rustcrypto::ChaCha20Poly1305::new(&key.into());
    let theirs = chacha20poly1305::ChaCha20Poly1305::new(&key.into());
    assert_eq!(
        aead_user(&ours, &nonce, b"x", &msg),
        aead_user(&theirs, &nonce, b"x", &msg)
    );
}

/// A driver name of another algorithm is refused with an error, not used.
#[test]
fn with_driver_refuses_a_driver_of_another_algorithm() {
    let reg = common::boot("", None);
    let key = [1u8; 16];
    assert!(rustcrypto::Aes128Gcm::with_driver(&reg, "rfc4106(gcm(aes))", &key.into()).is_err());
    assert!(rustcrypto::Aes128Gcm::with_driver(&reg, "ctr(aes)", &key.into()).is_err());
    assert!(rustcrypto::Aes128::with_driver(&reg, "ctr(aes)", &key.into()).is_err());
    assert!(
        rustcrypto::Aes128Ctr::with_driver(&reg, "xts(aes)", &key.into(), &[0u8; 16].into())
            .is_err()
    );
    assert!(rustcrypto::Aes128Gcm::with_driver(&reg, "gcm(aes)", &key.into()).is_ok());
}

/// With every driver of the algorithm disabled, `with_registry` returns the registry's
/// error (no panic, no fallback to a disabled driver).
#[test]
fn an_algorithm_with_every_driver_disabled_is_an_error() {
    let reg = common::boot("", None);
    for d in passed_drivers(&reg, "rfc7539(chacha20,poly1305)") {
        reg.disable(&d).unwrap();
    }
    for d in reg.list() {
        if d.name == "rfc7539(chacha20,poly1305)" && d.state != "disabled" {
            let _ = reg.disable(&d.driver);
        }
    }
    let r = rustcrypto::ChaCha20Poly1305::with_registry(&reg, &[0u8; 32].into());
    assert!(r.is_err(), "{r:?}");
}
