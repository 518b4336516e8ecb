//! Rules every XTS driver shares (IEEE 1619-2007, NIST SP 800-38E), so the template and
//! the SIMD drivers refuse exactly the same inputs.

use cryptoreg_registry::{check_key_len, Error, Result};

/// XTS-AES key sizes: two AES-128 or two AES-256 keys (IEEE 1619 has no AES-192 XTS; the
/// kernel accepts it, and so do we: 48 bytes).
pub const XTS_KEY_SIZES: [usize; 3] = [32, 48, 64];

/// Checks an XTS key: a valid double length, and (as FIPS 140 requires, SP 800-38E) the
/// data key and tweak key must differ. The comparison is constant-time in the key bytes.
pub fn verify_xts_key(driver: &str, key: &[u8]) -> Result<()> {
    check_key_len(driver, key, &XTS_KEY_SIZES)?;
    let (k1, k2) = key.split_at(key.len() / 2);
    let diff = k1.iter().zip(k2).fold(0u8, |acc, (a, b)| acc | (a ^ b));
    if diff == 0 {
        return Err(Error::WeakKey("XTS data key and tweak key are equal"));
    }
    Ok(())
}

/// The tail an XTS request hands over in one piece: nothing when the length is a multiple
/// of 16, else the last full block and the partial one (ciphertext stealing). Lengths
/// under one block are refused.
pub fn xts_tail_len(total: usize) -> Result<usize> {
    if total < 16 {
        return Err(Error::InvalidLength {
            len: total,
            reason: "XTS needs at least one 16-byte block",
        });
    }
    Ok(match total % 16 {
        0 => 0,
        r => 16 + r,
    })
}

/// Multiplies a tweak by x in GF(2^128) with the IEEE 1619 little-endian convention
/// (the kernel's `gf128mul_x_ble`). Constant-time: the reduction is a mask, not a branch.
#[inline(always)]
pub fn gf128_mul_x_ble(t: &mut [u8; 16]) {
    let lo = u64::from_le_bytes(t[..8].try_into().expect("8 bytes"));
    let hi = u64::from_le_bytes(t[8..].try_into().expect("8 bytes"));
    let carry = 0u64.wrapping_sub(hi >> 63) & 0x87;
    let new_hi = (hi << 1) | (lo >> 63);
    let new_lo = (lo << 1) ^ carry;
    t[..8].copy_from_slice(&new_lo.to_le_bytes());
    t[8..].copy_from_slice(&new_hi.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_rules() {
        let mut key = [7u8; 64];
        assert_eq!(
            verify_xts_key("x", &key),
            Err(Error::WeakKey("XTS data key and tweak key are equal"))
        );
        key[63] = 8;
        assert!(verify_xts_key("x", &key).is_ok());
        assert!(matches!(
            verify_xts_key("x", &key[..40]),
            Err(Error::InvalidKeyLength { .. })
        ));
    }

    #[test]
    fn tails() {
        assert!(xts_tail_len(15).is_err());
        assert_eq!(xts_tail_len(16).unwrap(), 0);
        assert_eq!(xts_tail_len(17).unwrap(), 17);
        assert_eq!(xts_tail_len(4111).unwrap(), 31);
    }

    #[test]
    fn doubling_reduces() {
        let mut t = [0u8; 16];
        t[15] = 0x80;
        gf128_mul_x_ble(&mut t);
        let mut want = [0u8; 16];
        want[0] = 0x87;
        assert_eq!(t, want);
        let mut t = [0u8; 16];
        t[7] = 0x80;
        gf128_mul_x_ble(&mut t);
        let mut want = [0u8; 16];
        want[8] = 1;
        assert_eq!(t, want);
    }
}
