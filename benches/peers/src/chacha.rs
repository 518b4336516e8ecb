//! ChaCha20 and ChaCha20-Poly1305 against the peers, and issue 23's goals for them:
//!
//! * the best `rfc7539(chacha20,poly1305)` seal >= 1.1x the best of ring, aws-lc-rs and
//!   OpenSSL at every size of [`SEAL_SIZES`];
//! * the best `chacha20` driver at 8192 bytes >= 1.05x OpenSSL's `chacha20` (the issue's
//!   other figure for it, a share of the gauge's bound, is `cargo xtask limits`'s);
//! * `rfc7539-chacha20-poly1305-avx2` (the ymm driver a Zen 3 or Alder Lake runs) >= 1.1x
//!   ring at 256, 1420 and 8192 bytes;
//! * every ymm and zmm driver of both keeps 0.97 of its aligned speed at 8192 with its
//!   buffers 16, 32 or 48 bytes past a cache line ([`crate::offsets`]).
//!
//! OpenSSL is the system library through the `openssl` crate (one EVP context per
//! contender, fresh nonce per call, in place). The other OpenSSL figure,
//! `openssl speed -evp chacha20` / `-evp chacha20-poly1305`, is the command line's and is
//! not run here: compare by hand, and keep the faster of the two as the goal's
//! denominator. "Best" is the fastest cryptoreg driver measured at that size, named in
//! the line.

use cryptoreg::Registry;

use crate::aes_gcm::drivers;
use crate::contenders::{
    aws_lc_seal, cryptoreg_encrypt, cryptoreg_seal, openssl_chacha20, openssl_chapoly_seal,
    ring_seal, OPENSSL,
};
use crate::harness::{interleaved, Contender, Settings};
use crate::offsets;
use crate::report::{pick_lines, Goal, Table};

const AEAD: &str = "rfc7539(chacha20,poly1305)";
/// Issue 23's sizes: VPN and QUIC packets and small TLS records up to 16 KiB records.
const SEAL_SIZES: &[usize] = &[16, 64, 256, 512, 1024, 1420, 4096, 8192, 16384];
/// The AAD of a TLS 1.2 record (what `openssl speed -aead` passes per message): every
/// contender seals with it.
const TLS_AAD: [u8; 13] = [0x17; 13];
const CIPHER_SIZE: usize = 8192;
const RING: &str = "ring 0.17";
const AWS_LC: &str = "aws-lc-rs 1";

fn key() -> Vec<u8> {
    (0..32u8).map(|i| i.wrapping_mul(11) ^ 0x5c).collect()
}

/// Seal of every cryptoreg `rfc7539(chacha20,poly1305)` driver, ring, aws-lc-rs and
/// OpenSSL at each size, interleaved per size.
fn seal_table(reg: &Registry, ours: &[String], s: Settings) -> Table {
    let mut names = ours.to_vec();
    names.extend([RING, AWS_LC, OPENSSL].map(String::from));
    let mut table = Table::new(
        "ChaCha20-Poly1305 seal in place, 16-byte tag, 13 bytes of AAD (a TLS 1.2 record's)",
        SEAL_SIZES,
        names,
    );
    let k = key();
    for &size in SEAL_SIZES {
        let mut cs: Vec<Contender<'_>> = ours
            .iter()
            .map(|d| {
                cryptoreg_seal(reg, d, &k, &TLS_AAD, s.msg(size)).expect("a passed driver keys")
            })
            .collect();
        cs.push(ring_seal(
            &ring::aead::CHACHA20_POLY1305,
            &k,
            &TLS_AAD,
            s.msg(size),
        ));
        cs.push(aws_lc_seal(
            &aws_lc_rs::aead::CHACHA20_POLY1305,
            &k,
            &TLS_AAD,
            s.msg(size),
        ));
        cs.push(openssl_chapoly_seal(&k, &TLS_AAD, s.msg(size)));
        for (row, rate) in table.rates.iter_mut().zip(interleaved(&mut cs, size, s)) {
            row.push(rate);
        }
    }
    table
}

/// Every cryptoreg `chacha20` driver and OpenSSL's `chacha20`, 8192 bytes in place.
fn cipher_table(reg: &Registry, ours: &[String], s: Settings) -> Table {
    let mut names = ours.to_vec();
    names.push(OPENSSL.to_string());
    let mut table = Table::new("ChaCha20 encrypt in place", &[CIPHER_SIZE], names);
    let k = key();
    let mut cs: Vec<Contender<'_>> = ours
        .iter()
        .map(|d| cryptoreg_encrypt(reg, d, &k, s.msg(CIPHER_SIZE)).expect("a passed driver keys"))
        .collect();
    cs.push(openssl_chacha20(&k, s.msg(CIPHER_SIZE)));
    for (row, rate) in table
        .rates
        .iter_mut()
        .zip(interleaved(&mut cs, CIPHER_SIZE, s))
    {
        row.push(rate);
    }
    table
}

fn pair(t: &Table, name: &str, size: usize) -> Option<(String, f64)> {
    t.rate(name, size).map(|r| (name.to_string(), r))
}

fn best(t: &Table, ours: &[String], size: usize) -> Option<(String, f64)> {
    t.best_of(ours, size).map(|(n, r)| (n.to_string(), r))
}

fn goals(seal: &Table, aead: &[String], cipher: &Table, chacha: &[String]) -> Vec<Goal> {
    let goal = |what: String, num, den, min| Goal {
        what,
        num,
        den,
        min,
    };
    let peers = [RING, AWS_LC, OPENSSL].map(String::from);
    let mut goals: Vec<Goal> = SEAL_SIZES
        .iter()
        .map(|&size| {
            goal(
                format!("rfc7539 seal best / best peer at {size}"),
                best(seal, aead, size),
                best(seal, &peers, size),
                1.1,
            )
        })
        .collect();
    goals.push(goal(
        format!("chacha20 best / OpenSSL at {CIPHER_SIZE}"),
        best(cipher, chacha, CIPHER_SIZE),
        pair(cipher, OPENSSL, CIPHER_SIZE),
        1.05,
    ));
    for size in [256, 1420, 8192] {
        goals.push(goal(
            format!("rfc7539-chacha20-poly1305-avx2 / ring at {size}"),
            pair(seal, "rfc7539-chacha20-poly1305-avx2", size),
            pair(seal, RING, size),
            1.1,
        ));
    }
    goals
}

/// Before timing anything: the registry's choice, ring and OpenSSL (as the contenders
/// call it) seal one 1000-byte message with the same key, nonce and AAD to the same
/// ciphertext and tag, and OpenSSL's `chacha20` matches the registry's. A peer called
/// wrongly (a nonce not reset, a counter off by one) would otherwise be timed silently.
fn peers_agree(reg: &Registry) -> Result<(), String> {
    use openssl::cipher::Cipher;
    use openssl::cipher_ctx::CipherCtx;
    let k = key();
    let nonce = [7u8; 12];
    let aad = [0xa5u8; 12];
    let msg: Vec<u8> = (0..1000u32).map(|i| (i * 13) as u8).collect();
    let e = |e: cryptoreg::Error| e.to_string();

    let mut h = reg.alloc_aead(AEAD).map_err(e)?;
    h.set_key(&k).map_err(e)?;
    h.set_authsize(16).map_err(e)?;
    let mut ours = msg.clone();
    let mut tag = [0u8; 16];
    h.seal(&nonce, &aad, &mut ours, &mut tag).map_err(e)?;
    ours.extend_from_slice(&tag);

    let ring_key = ring::aead::LessSafeKey::new(
        ring::aead::UnboundKey::new(&ring::aead::CHACHA20_POLY1305, &k)
            .map_err(|e| e.to_string())?,
    );
    let mut theirs = msg.clone();
    ring_key
        .seal_in_place_append_tag(
            ring::aead::Nonce::assume_unique_for_key(nonce),
            ring::aead::Aad::from(aad),
            &mut theirs,
        )
        .map_err(|e| e.to_string())?;
    if ours != theirs {
        return Err(format!("{} and ring disagree", h.driver_name()));
    }

    let ssl = |e: openssl::error::ErrorStack| e.to_string();
    let mut ctx = CipherCtx::new().map_err(ssl)?;
    ctx.encrypt_init(Some(Cipher::chacha20_poly1305()), Some(&k), None)
        .map_err(ssl)?;
    // Twice on one context, as the contender does, so a state carried over shows.
    for _ in 0..2 {
        ctx.encrypt_init(None, None, Some(&nonce)).map_err(ssl)?;
        ctx.cipher_update(&aad, None).map_err(ssl)?;
        let mut buf = msg.clone();
        let len = buf.len();
        ctx.cipher_update_inplace(&mut buf, len).map_err(ssl)?;
        ctx.cipher_final(&mut []).map_err(ssl)?;
        let mut t = [0u8; 16];
        ctx.tag(&mut t).map_err(ssl)?;
        buf.extend_from_slice(&t);
        if buf != ours {
            return Err("OpenSSL's ChaCha20-Poly1305 disagrees".to_string());
        }
    }

    let mut iv = [0u8; 16];
    iv[0] = 1;
    iv[4..].copy_from_slice(&nonce[..12]);
    let mut c = reg.alloc_skcipher("chacha20").map_err(e)?;
    c.set_key(&k).map_err(e)?;
    let mut ours = msg.clone();
    c.encrypt_in_place(&iv, &mut ours).map_err(e)?;
    let mut ctx = CipherCtx::new().map_err(ssl)?;
    ctx.encrypt_init(Some(Cipher::chacha20()), Some(&k), Some(&iv))
        .map_err(ssl)?;
    let mut theirs = msg;
    let len = theirs.len();
    ctx.cipher_update_inplace(&mut theirs, len).map_err(ssl)?;
    if ours != theirs {
        return Err(format!(
            "{} and OpenSSL's chacha20 disagree",
            c.driver_name()
        ));
    }
    Ok(())
}

/// The whole ChaCha comparison; returns the text to print.
pub fn run(reg: &Registry, s: Settings) -> String {
    let aead = drivers(reg, AEAD);
    let chacha = drivers(reg, "chacha20");
    if aead.is_empty() || chacha.is_empty() {
        return format!(
            "{AEAD} or chacha20: no cryptoreg driver passed its self-tests; nothing to compare\n"
        );
    }
    if let Err(why) = peers_agree(reg) {
        return format!("ChaCha peers: the contenders do not compute the same thing: {why}\n");
    }
    let mut out = String::new();
    for name in [AEAD, "chacha20"] {
        if let Ok(chosen) = reg.resolve(name) {
            out += &format!("{name}: the registry picks {}\n", chosen.driver());
        }
    }
    out.push('\n');
    let seal = seal_table(reg, &aead, s);
    out += &seal.render();
    out.push('\n');
    if let Ok(chosen) = reg.resolve(AEAD) {
        out += &pick_lines(&seal, chosen.driver(), &aead);
        out.push('\n');
    }
    let cipher = cipher_table(reg, &chacha, s);
    out += &cipher.render();
    out.push('\n');
    let k = key();
    let vector_aead = offsets::vector_drivers(&aead);
    let by_offset = offsets::table("ChaCha20-Poly1305 seal", &vector_aead, s, |d, m| {
        cryptoreg_seal(reg, d, &k, &TLS_AAD, m).expect("a passed driver keys")
    });
    out += &by_offset.render();
    out.push('\n');
    let vector_cipher = offsets::vector_drivers(&chacha);
    let cipher_by_offset = offsets::table("ChaCha20 encrypt", &vector_cipher, s, |d, m| {
        cryptoreg_encrypt(reg, d, &k, m).expect("a passed driver keys")
    });
    out += &cipher_by_offset.render();
    out.push('\n');
    out += "goals (issue 23):\n";
    let mut all = goals(&seal, &aead, &cipher, &chacha);
    all.extend(offsets::goals(&by_offset, &vector_aead));
    all.extend(offsets::goals(&cipher_by_offset, &vector_cipher));
    for g in all {
        out += &format!("  {}\n", g.render());
    }
    out
}
