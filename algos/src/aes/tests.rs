//! Cross-driver tests: standards vectors, AES-NI against the generic cipher, and every
//! mode driver against a per-block reference built on [`AesGeneric`].

use cryptoreg_registry::BlockCipherImpl;

use super::AesGeneric;

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).expect("hex")
}

/// FIPS-197 Appendix C: (key, plaintext, ciphertext) for AES-128, -192, -256.
pub(super) const FIPS197_C: [(&str, &str, &str); 3] = [
    (
        "000102030405060708090a0b0c0d0e0f",
        "00112233445566778899aabbccddeeff",
        "69c4e0d86a7b0430d8cdb78070b4c55a",
    ),
    (
        "000102030405060708090a0b0c0d0e0f1011121314151617",
        "00112233445566778899aabbccddeeff",
        "dda97ca4864cdfe06eaf70a0ec0d7191",
    ),
    (
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "00112233445566778899aabbccddeeff",
        "8ea2b7ca516745bfeafbdc4968cc4b60",
    ),
];

/// Runs FIPS-197 Appendix C through any block cipher, single block and batched.
pub(super) fn check_fips197(cipher: &mut dyn BlockCipherImpl) {
    for (key, pt, ct) in FIPS197_C {
        cipher.set_key(&h(key)).unwrap();
        let mut block = h(pt);
        cipher.encrypt_blocks(&mut block);
        assert_eq!(hex::encode(&block), ct);
        cipher.decrypt_blocks(&mut block);
        assert_eq!(hex::encode(&block), pt);
        // Nine copies: exercises full batches and a partial one.
        let mut many = h(pt).repeat(9);
        cipher.encrypt_blocks(&mut many);
        assert_eq!(many, h(ct).repeat(9));
        cipher.decrypt_blocks(&mut many);
        assert_eq!(many, h(pt).repeat(9));
    }
}

#[test]
fn generic_fips197() {
    check_fips197(&mut AesGeneric::new());
}

#[test]
fn generic_rejects_bad_key_lengths() {
    let mut c = AesGeneric::new();
    for len in [0, 8, 15, 17, 20, 31, 33, 64] {
        assert!(matches!(
            c.set_key(&vec![0u8; len]),
            Err(cryptoreg_registry::Error::InvalidKeyLength { .. })
        ));
    }
}
