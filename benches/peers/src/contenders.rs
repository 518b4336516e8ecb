//! The contenders of a comparison: a cryptoreg driver by exact name, ring, aws-lc-rs and
//! (for ChaCha20) the system OpenSSL. Every AEAD seals in place with a 16-byte tag, a
//! 12-byte nonce and the same AAD, the way a protocol (TLS, ESP) calls them. ring and
//! aws-lc-rs are written per AEAD, not per cipher, so ChaCha20-Poly1305 needs only their
//! algorithm values.

use std::hint::black_box;

use cryptoreg::Registry;

use crate::harness::{Contender, Msg};

/// A handle on a cryptoreg AEAD driver (by exact driver name, which the registry honours
/// whatever its priority), keyed, with a 16-byte tag, and an all-zero nonce of its size.
fn keyed_aead(
    reg: &Registry,
    driver: &str,
    key: &[u8],
) -> cryptoreg::Result<(cryptoreg::Aead, Vec<u8>)> {
    let mut h = reg.alloc_aead(driver)?;
    h.set_key(key)?;
    h.set_authsize(16)?;
    let nonce = vec![0u8; h.nonce_size()];
    Ok((h, nonce))
}

/// A cryptoreg AEAD driver sealing a message in place.
pub fn cryptoreg_seal<'a>(
    reg: &Registry,
    driver: &str,
    key: &[u8],
    aad: &'a [u8],
    msg: Msg,
) -> cryptoreg::Result<Contender<'a>> {
    let (h, nonce) = keyed_aead(reg, driver, key)?;
    let mut buf = msg.buffer(0x5a);
    let mut tag = [0u8; 16];
    Ok(Contender::new(driver, move |n| {
        for _ in 0..n {
            h.seal(&nonce, aad, black_box(&mut buf[..]), black_box(&mut tag))
                .expect("seals");
        }
    }))
}

/// A cryptoreg driver opening a sealed message out of place (`open_to`, so the
/// ciphertext and tag stay valid for the next call), into a second buffer at the same
/// offset. Named `"{driver} open"`.
pub fn cryptoreg_open<'a>(
    reg: &Registry,
    driver: &str,
    key: &[u8],
    aad: &'a [u8],
    msg: Msg,
) -> cryptoreg::Result<Contender<'a>> {
    let (h, nonce) = keyed_aead(reg, driver, key)?;
    let mut sealed = msg.buffer(0x5a);
    let mut tag = [0u8; 16];
    h.seal(&nonce, aad, &mut sealed[..], &mut tag)?;
    let mut out = msg.buffer(0);
    Ok(Contender::new(format!("{driver} open"), move |n| {
        for _ in 0..n {
            h.open_to(
                &nonce,
                &[aad],
                &[black_box(&sealed[..])],
                &mut [black_box(&mut out[..])],
                black_box(&tag),
            )
            .expect("opens");
        }
    }))
}

/// Same shape for ring and aws-lc-rs, whose `aead` modules share one API.
macro_rules! peer_seal {
    ($fn_name:ident, $krate:ident, $label:literal) => {
        /// `LessSafeKey::seal_in_place_separate_tag` of the peer, on the message.
        pub fn $fn_name<'a>(
            alg: &'static $krate::aead::Algorithm,
            key: &[u8],
            aad: &'a [u8],
            msg: Msg,
        ) -> Contender<'a> {
            use $krate::aead::{Aad, LessSafeKey, Nonce, UnboundKey};
            let key = LessSafeKey::new(UnboundKey::new(alg, key).expect("valid key"));
            let mut buf = msg.buffer(0x5a);
            Contender::new($label, move |n| {
                for _ in 0..n {
                    let tag = key
                        .seal_in_place_separate_tag(
                            Nonce::assume_unique_for_key([0u8; 12]),
                            Aad::from(aad),
                            black_box(&mut buf[..]),
                        )
                        .expect("seals");
                    let _ = black_box(tag);
                }
            })
        }
    };
}

peer_seal!(ring_seal, ring, "ring 0.17");
peer_seal!(aws_lc_seal, aws_lc_rs, "aws-lc-rs 1");

/// A cryptoreg skcipher by exact driver name, encrypting the message in place.
pub fn cryptoreg_encrypt<'a>(
    reg: &Registry,
    driver: &str,
    key: &[u8],
    msg: Msg,
) -> cryptoreg::Result<Contender<'a>> {
    let mut h = reg.alloc_skcipher(driver)?;
    h.set_key(key)?;
    let iv = vec![0u8; h.iv_size()];
    let mut buf = msg.buffer(0x5a);
    Ok(Contender::new(driver, move |n| {
        for _ in 0..n {
            h.encrypt_in_place(&iv, black_box(&mut buf[..]))
                .expect("encrypts");
        }
    }))
}

/// The system OpenSSL's ChaCha20-Poly1305 through the `openssl` crate's EVP context, as
/// a TLS stack calls it: the context keeps the key, every seal sets a fresh nonce, feeds
/// the AAD, encrypts in place and reads the 16-byte tag.
pub fn openssl_chapoly_seal<'a>(key: &[u8], aad: &'a [u8], msg: Msg) -> Contender<'a> {
    use openssl::cipher::Cipher;
    use openssl::cipher_ctx::CipherCtx;
    let mut ctx = CipherCtx::new().expect("EVP context");
    ctx.encrypt_init(Some(Cipher::chacha20_poly1305()), Some(key), None)
        .expect("valid key");
    let nonce = [0u8; 12];
    let mut buf = msg.buffer(0x5a);
    let mut tag = [0u8; 16];
    Contender::new(OPENSSL, move |n| {
        for _ in 0..n {
            ctx.encrypt_init(None, None, Some(&nonce)).expect("nonce");
            if !aad.is_empty() {
                ctx.cipher_update(aad, None).expect("aad");
            }
            let len = buf.len();
            ctx.cipher_update_inplace(black_box(&mut buf[..]), len)
                .expect("encrypts");
            ctx.cipher_final(&mut []).expect("finishes");
            ctx.tag(black_box(&mut tag)).expect("tag");
        }
    })
}

/// The system OpenSSL's plain `chacha20` (EVP_chacha20: 16-byte IV = 32-bit little-endian
/// counter then the 96-bit nonce, cryptoreg's `chacha20` layout) on the message in place.
pub fn openssl_chacha20<'a>(key: &[u8], msg: Msg) -> Contender<'a> {
    use openssl::cipher::Cipher;
    use openssl::cipher_ctx::CipherCtx;
    let mut ctx = CipherCtx::new().expect("EVP context");
    ctx.encrypt_init(Some(Cipher::chacha20()), Some(key), None)
        .expect("valid key");
    let iv = [0u8; 16];
    let mut buf = msg.buffer(0x5a);
    Contender::new(OPENSSL, move |n| {
        for _ in 0..n {
            ctx.encrypt_init(None, None, Some(&iv)).expect("iv");
            let len = buf.len();
            ctx.cipher_update_inplace(black_box(&mut buf[..]), len)
                .expect("encrypts");
        }
    })
}

/// The label of the OpenSSL contenders (the `openssl` crate over the system library).
pub const OPENSSL: &str = "OpenSSL (openssl crate)";
