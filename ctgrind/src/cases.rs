//! The constant-time cases: each drives a generic driver through the registry with its
//! key and its data secret (undefined to memcheck), then declassifies the outputs and
//! checks them, so a case that silently did nothing cannot pass.
//!
//! Nonces, IVs, lengths and tag sizes are public, as they are on the wire.

use cryptoreg::{Error, Registry};

use crate::secret::{bytes, classify, declassify};

/// One case's outcome: a line for the log, or what went wrong.
pub type Outcome = Result<String, String>;

/// The message lengths: empty, sub-block, one block, a full four-block batch of
/// `aes-generic`, odd tails, and a page.
const LENGTHS: &[usize] = &[0, 1, 15, 16, 17, 64, 100, 4096 + 5];

fn err(what: &str, e: Error) -> String {
    format!("{what}: {e}")
}

/// `aes-generic`: key expansion, encryption and decryption with 128-, 192- and 256-bit
/// keys, on five blocks (one full bitsliced batch and a padded partial one), checked
/// against FIPS-197 appendix C.
pub fn aes_generic(reg: &Registry) -> Vec<Outcome> {
    // FIPS-197 C.1-C.3: key 00 01 02 .., plaintext 00 11 22 .. ff.
    const EXPECTED: [(usize, &str); 3] = [
        (16, "69c4e0d86a7b0430d8cdb78070b4c55a"),
        (24, "dda97ca4864cdfe06eaf70a0ec0d7191"),
        (32, "8ea2b7ca516745bfeafc49904b496089"),
    ];
    EXPECTED
        .iter()
        .map(|&(klen, expected)| {
            let what = format!("aes-generic {}-bit key", klen * 8);
            let mut c = reg.alloc_cipher("aes-generic").map_err(|e| err(&what, e))?;
            c.set_key(&classify((0..klen as u8).collect()))
                .map_err(|e| err(&what, e))?;
            let block: Vec<u8> = (0..16u8).map(|i| i * 0x11).collect();
            let plain = block.repeat(5);
            let mut data = classify(plain.clone());
            c.encrypt_blocks(&mut data).map_err(|e| err(&what, e))?;
            let hex: String = declassify(&data[64..])
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            if hex != expected || declassify(&data).chunks(16).any(|b| b != &data[64..]) {
                return Err(format!("{what}: ciphertext {hex}, expected {expected}"));
            }
            let mut data = classify(data);
            c.decrypt_blocks(&mut data).map_err(|e| err(&what, e))?;
            if declassify(&data) != plain {
                return Err(format!("{what}: decryption does not invert encryption"));
            }
            Ok(format!("{what}: expand, encrypt, decrypt"))
        })
        .collect()
}

/// A skcipher instance over `aes-generic` (`ctr(aes-generic)`, `xts(ecb(aes-generic))`):
/// encryption and decryption of every length the mode takes, secret key and text.
pub fn skcipher(reg: &Registry, driver: &str, key_lens: &[usize]) -> Vec<Outcome> {
    key_lens
        .iter()
        .map(|&klen| {
            let what = format!("{driver} {}-byte key", klen);
            let mut s = reg.alloc_skcipher(driver).map_err(|e| err(&what, e))?;
            let mut key = bytes(klen as u64, klen);
            key[0] = 0; // distinct halves for XTS, whatever the filler
            key[klen / 2] = 1;
            s.set_key(&classify(key)).map_err(|e| err(&what, e))?;
            let iv = bytes(7, s.iv_size());
            let mut done = Vec::new();
            for &len in LENGTHS {
                let plain = bytes(len as u64 + 100, len);
                let mut data = classify(plain.clone());
                if s.encrypt_in_place(&iv, &mut data).is_err() {
                    continue; // a length the mode refuses (XTS under one block)
                }
                if len >= 16 && declassify(&data) == plain {
                    return Err(format!("{what}: {len} bytes came out unencrypted"));
                }
                let mut data = classify(data);
                s.decrypt_in_place(&iv, &mut data)
                    .map_err(|e| err(&what, e))?;
                if declassify(&data) != plain {
                    return Err(format!("{what}: {len} bytes do not round-trip"));
                }
                done.push(len);
            }
            Ok(format!("{what}: encrypt, decrypt at lengths {done:?}"))
        })
        .collect()
}

/// A keyed hash (`ghash-generic` with H secret, `poly1305-generic` with the one-time key
/// secret): one-shot digests and split updates of secret data at every length; the two
/// ways must agree.
pub fn keyed_hash(reg: &Registry, what: &str, key_len: usize) -> Vec<Outcome> {
    let run = || -> Outcome {
        let mut h = reg.alloc_hash(what).map_err(|e| err(what, e))?;
        h.set_key(&classify(bytes(key_len as u64, key_len)))
            .map_err(|e| err(what, e))?;
        for &len in LENGTHS {
            let data = classify(bytes(len as u64 + 200, len));
            let mut one_shot = vec![0u8; h.digest_size()];
            h.digest(&data, &mut one_shot).map_err(|e| err(what, e))?;
            let mut split = vec![0u8; h.digest_size()];
            let mut r = h.init().map_err(|e| err(what, e))?;
            let (a, b) = data.split_at(len / 3);
            r.update(a);
            r.update(b);
            r.finalize(&mut split).map_err(|e| err(what, e))?;
            if declassify(&one_shot) != declassify(&split) {
                return Err(format!(
                    "{what}: digest and split updates differ at {len} bytes"
                ));
            }
        }
        Ok(format!(
            "{what}: set_key, digest, update, final at lengths {LENGTHS:?}"
        ))
    };
    vec![run()]
}

/// An AEAD over generic leaves (`gcm_base(ctr(aes-generic),ghash-generic)`,
/// `rfc7539(chacha20-generic,poly1305-generic)`, `xchacha20poly1305-generic`): seal with
/// the key, the AAD and the plaintext secret; open of the (public) ciphertext and tag with
/// the key secret. Each of `authsizes`, AAD of 0, 13 and 16 bytes.
pub fn aead(reg: &Registry, driver: &str, key_lens: &[usize], authsizes: &[usize]) -> Vec<Outcome> {
    key_lens
        .iter()
        .map(|&klen| {
            let what = format!("{driver} {}-bit key", klen * 8);
            let mut a = reg.alloc_aead(driver).map_err(|e| err(&what, e))?;
            a.set_key(&classify(bytes(klen as u64 + 300, klen)))
                .map_err(|e| err(&what, e))?;
            let nonce = bytes(12, a.nonce_size());
            for &authsize in authsizes {
                a.set_authsize(authsize).map_err(|e| err(&what, e))?;
                for (i, &len) in LENGTHS.iter().enumerate() {
                    let aad = classify(bytes(len as u64, [0, 13, 16][i % 3]));
                    let plain = bytes(len as u64 + 400, len);
                    let mut data = classify(plain.clone());
                    let mut tag = vec![0u8; authsize];
                    a.seal(&nonce, &aad, &mut data, &mut tag)
                        .map_err(|e| err(&what, e))?;
                    declassify(&data);
                    declassify(&tag);
                    declassify(&aad);
                    if len >= 16 && data == plain {
                        return Err(format!("{what}: {len} bytes came out unencrypted"));
                    }
                    a.open(&nonce, &aad, &mut data, &tag)
                        .map_err(|e| err(&what, e))?;
                    if declassify(&data) != plain {
                        return Err(format!("{what}: {len} bytes do not round-trip"));
                    }
                }
            }
            Ok(format!(
                "{what}: seal, open at lengths {LENGTHS:?}, tags of {authsizes:?} bytes"
            ))
        })
        .collect()
}
