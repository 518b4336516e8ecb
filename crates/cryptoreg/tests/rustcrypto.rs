//! The RustCrypto adapters (`--features rustcrypto`): the same generic code — written
//! against the `cipher` and `aead` traits only — runs over the RustCrypto crate's type
//! and over the adapter, and the outputs must be equal byte for byte, on random keys,
//! nonces, AAD and lengths, for every driver of the algorithm that passed its self-test
//! (pinned through the adapter's `with_driver`). Tag failures must fail on both, and the
//! adapter must leave no plaintext behind.
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
fn aead_user<A: AeadInOut<NonceSize = U12, TagSize = U16>>(
    a: &A,
    nonce: &[u8; 12],
    aad: &[u8],
    msg: &[u8],
) -> AeadRun {
    let n = (*nonce).into();
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
    let mut bad_nonce = *nonce;
    bad_nonce[11] ^= 0x80;
    for (i, (nonce, aad, ct)) in [
        (*nonce, aad, &bad_text),
        (*nonce, aad, &bad_tag),
        (*nonce, &bad_aad[..], &sealed),
        (bad_nonce, aad, &sealed),
    ]
    .into_iter()
    .enumerate()
    {
        let mut buf = ct[..tl].to_vec();
        let tag = Array::try_from(&ct[tl..]).unwrap();
        let r = a.decrypt_inout_detached(&nonce.into(), aad, buf.as_mut_slice().into(), &tag);
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
    ($reg:expr, $rng:expr, $driver:expr, $ours:ty, $theirs:ty, $klen:literal) => {{
        let key: [u8; $klen] = random($rng);
        let ours = <$ours>::with_driver($reg, $driver, &key.into()).unwrap();
        assert_eq!(ours.handle().unwrap().driver_name(), $driver);
        let theirs = <$theirs as KeyInit>::new(&key.into());
        for (len, aad_len) in aead_lengths($rng) {
            let nonce: [u8; 12] = random($rng);
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
