//! Rules every `gcm(aes)` driver shares (NIST SP 800-38D), so the `gcm_base` template and
//! the stitched SIMD drivers accept and refuse exactly the same requests: a caller never
//! sees a nonce, a tag size or a length accepted on one CPU and refused on another.
//!
//! - **Nonce**: 12 bytes only, the kernel's `ivsize` and the one length SP 800-38D
//!   recommends (§5.2.1.1); J0 = nonce || 0x00000001. Other lengths (J0 derived by GHASH)
//!   are refused by the handle's IV-length check, in every driver.
//! - **Tag sizes** (`set_authsize`): 4, 8 and 12 to 16 bytes (SP 800-38D §5.2.1.2; 4 and
//!   8 only with the limits of its Appendix C, the caller's business), as the kernel's
//!   `crypto_gcm_check_authsize`.
//! - **Lengths**: at most 2^32 - 2 blocks of text (the 32-bit counter must not wrap back
//!   to J0) and at most 2^61 - 1 bytes of AAD (2^64 - 1 bits); a longer request is
//!   [`Error::InvalidLength`] from `start`, before any byte is written.
//! - **Keys**: 16, 24 or 32 bytes (AES-128/192/256).

use cryptoreg_registry::{AeadLens, Error, Result};

/// The one nonce length every `gcm(aes)` driver takes.
pub const GCM_NONCE_LEN: usize = 12;

/// The full tag length (`out_size` of every `gcm(aes)` driver).
pub const GCM_TAG_LEN: usize = 16;

/// AES key lengths GCM accepts.
pub const GCM_KEY_SIZES: [usize; 3] = [16, 24, 32];

/// The most text one request may carry: 2^32 - 2 blocks (counter values 2 ..= 2^32 - 1
/// after J0 = 1), in bytes.
pub const GCM_MAX_TEXT: u64 = ((1u64 << 32) - 2) * 16;

/// The most AAD one request may carry: 2^64 - 1 bits, so 2^61 - 1 whole bytes.
pub const GCM_MAX_AAD: u64 = (1u64 << 61) - 1;

/// Checks a tag size: 4, 8, or 12 ..= 16.
pub fn check_gcm_authsize(driver: &str, authsize: usize) -> Result<()> {
    match authsize {
        4 | 8 | 12..=16 => Ok(()),
        len => Err(Error::InvalidAuthsize {
            driver: driver.to_string(),
            len,
        }),
    }
}

/// Checks a request's lengths against SP 800-38D's limits (see the module docs).
pub fn check_gcm_lens(lens: &AeadLens) -> Result<()> {
    if lens.text as u64 > GCM_MAX_TEXT {
        return Err(Error::InvalidLength {
            len: lens.text,
            reason: "GCM text over 2^32 - 2 blocks (SP 800-38D)",
        });
    }
    if lens.aad as u64 > GCM_MAX_AAD {
        return Err(Error::InvalidLength {
            len: lens.aad,
            reason: "GCM AAD over 2^61 - 1 bytes (SP 800-38D)",
        });
    }
    Ok(())
}

/// The checks of a one-shot request, in one order for every driver (the tag size, the
/// lengths, then the nonce): returns the nonce as the 12 bytes the one-shot entries read
/// `J0` from.
pub fn check_one_shot<'a>(
    driver: &str,
    nonce: &'a [u8],
    lens: &AeadLens,
) -> Result<&'a [u8; GCM_NONCE_LEN]> {
    check_gcm_authsize(driver, lens.authsize)?;
    check_gcm_lens(lens)?;
    nonce.try_into().map_err(|_| Error::InvalidIvLength {
        len: nonce.len(),
        expected: GCM_NONCE_LEN,
    })
}

/// J0 for a 12-byte nonce: `nonce || 00 00 00 01`. The first text block uses J0 + 1; the
/// tag is masked with E(K, J0). `None` for any other nonce length.
pub fn gcm_j0(nonce: &[u8]) -> Option<[u8; 16]> {
    let nonce: &[u8; GCM_NONCE_LEN] = nonce.try_into().ok()?;
    let mut j0 = [0u8; 16];
    j0[..12].copy_from_slice(nonce);
    j0[15] = 1;
    Some(j0)
}

/// The last GHASH block: the AAD and text lengths in bits, 64-bit big-endian each.
pub fn gcm_len_block(aad_bytes: u64, text_bytes: u64) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&(aad_bytes.wrapping_mul(8)).to_be_bytes());
    b[8..].copy_from_slice(&(text_bytes.wrapping_mul(8)).to_be_bytes());
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authsizes_are_the_kernels() {
        let ok: Vec<usize> = (0..=17)
            .filter(|&n| check_gcm_authsize("t", n).is_ok())
            .collect();
        assert_eq!(ok, [4, 8, 12, 13, 14, 15, 16]);
    }

    #[test]
    fn text_limit_is_two_blocks_short_of_the_counter_space() {
        let lens = |text| AeadLens {
            aad: 0,
            text,
            authsize: 16,
        };
        assert!(check_gcm_lens(&lens(GCM_MAX_TEXT as usize)).is_ok());
        assert!(matches!(
            check_gcm_lens(&lens(GCM_MAX_TEXT as usize + 1)),
            Err(Error::InvalidLength { .. })
        ));
    }

    #[test]
    fn j0_and_length_block() {
        assert_eq!(gcm_j0(&[0xab; 12]).unwrap()[12..], [0, 0, 0, 1]);
        assert!(gcm_j0(&[0; 8]).is_none());
        let b = gcm_len_block(20, 60);
        assert_eq!(u64::from_be_bytes(b[..8].try_into().unwrap()), 160);
        assert_eq!(u64::from_be_bytes(b[8..].try_into().unwrap()), 480);
    }
}
