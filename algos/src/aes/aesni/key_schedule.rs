//! The AES key schedule (FIPS-197 §5.2) for the AES-NI and VAES drivers.
//!
//! The expansion is the word-by-word loop of FIPS-197 for all three key sizes; only
//! `SubWord` uses the CPU: the word is broadcast to all four columns of an xmm register so
//! that `ShiftRows` inside `AESENCLAST` is the identity, leaving `SubBytes` (plus a zero
//! round key). That keeps one code path for 128/192/256-bit keys instead of three
//! `AESKEYGENASSIST` sequences, and it is constant-time: the only branches depend on the
//! word index, never on key bytes. The decryption schedule for `AESDEC` (the "equivalent
//! inverse cipher", FIPS-197 §5.3.5) is derived with `AESIMC`.

use core::arch::x86_64::{
    __m128i, _mm_aesenclast_si128, _mm_aesimc_si128, _mm_cvtsi128_si32, _mm_loadu_si128,
    _mm_set1_epi32, _mm_setzero_si128, _mm_storeu_si128,
};

use crate::x86::token::AesNi;
use cryptoreg_registry::{Error, Result};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Expanded AES round keys in FIPS-197 order, as bytes (load with `_mm_loadu_si128` or a
/// broadcast). Wiped on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct AesRoundKeys {
    /// Encryption round keys; `rounds + 1` of them are used.
    pub(crate) enc: [[u8; 16]; 15],
    /// Decryption round keys for `AESDEC`: `dec[0] = enc[rounds]`,
    /// `dec[i] = InvMixColumns(enc[rounds - i])` for `1..rounds`, `dec[rounds] = enc[0]`.
    pub(crate) dec: [[u8; 16]; 15],
    /// 10, 12 or 14.
    pub(crate) rounds: usize,
}

impl AesRoundKeys {
    /// An all-zero schedule for AES-128 shape, used as the "no key yet" placeholder so a
    /// driver never needs an `Option` on its hot path.
    pub(crate) const fn empty() -> AesRoundKeys {
        AesRoundKeys {
            enc: [[0; 16]; 15],
            dec: [[0; 16]; 15],
            rounds: 10,
        }
    }
}

/// Expands a 16-, 24- or 32-byte AES key; any other length is
/// [`Error::InvalidKeyLength`] naming `driver`.
///
/// The [`AesNi`] token proves the instructions; the VAES drivers pass theirs through
/// [`VaesAvx2::aesni`](crate::x86::token::VaesAvx2::aesni).
pub(crate) fn expand_key(_: AesNi, driver: &str, key: &[u8]) -> Result<AesRoundKeys> {
    let rounds = match key.len() {
        16 => 10,
        24 => 12,
        32 => 14,
        len => {
            return Err(Error::InvalidKeyLength {
                driver: driver.to_string(),
                len,
            })
        }
    };
    let mut keys = AesRoundKeys::empty();
    keys.rounds = rounds;
    // SAFETY: the `AesNi` token proves AES-NI and SSE2.
    unsafe { expand_aesni(key, &mut keys) };
    Ok(keys)
}

/// The FIPS-197 round constants `Rcon[1..=10]` (only the first byte is non-zero).
const RCON: [u8; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

/// `SubWord`: the S-box on each byte of a little-endian word, through `AESENCLAST`.
#[inline(always)]
fn sub_word(w: u32) -> u32 {
    // SAFETY: only reached from `expand_aesni`, whose `target_feature` guarantees AES-NI
    // and SSE2; the intrinsics touch registers only.
    unsafe {
        let x = _mm_set1_epi32(w as i32);
        _mm_cvtsi128_si32(_mm_aesenclast_si128(x, _mm_setzero_si128())) as u32
    }
}

/// Fills `keys.enc` and `keys.dec` (with `keys.rounds` already set) from `key`.
///
/// # Safety
/// The CPU must support AES-NI (and SSE2).
#[target_feature(enable = "aes,sse2")]
unsafe fn expand_aesni(key: &[u8], keys: &mut AesRoundKeys) {
    let nk = key.len() / 4;
    let total = 4 * (keys.rounds + 1);
    let mut w = [0u32; 60];
    for (i, chunk) in key.chunks_exact(4).enumerate() {
        w[i] = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    for i in nk..total {
        let mut t = w[i - 1];
        if i % nk == 0 {
            // RotWord moves byte 1 to position 0: a right rotation of the LE word.
            t = sub_word(t.rotate_right(8)) ^ u32::from(RCON[i / nk - 1]);
        } else if nk > 6 && i % nk == 4 {
            t = sub_word(t);
        }
        w[i] = w[i - nk] ^ t;
    }
    for (r, rk) in keys.enc.iter_mut().take(keys.rounds + 1).enumerate() {
        for c in 0..4 {
            rk[4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c].to_le_bytes());
        }
    }
    w.zeroize();

    let n = keys.rounds;
    keys.dec[0] = keys.enc[n];
    keys.dec[n] = keys.enc[0];
    for i in 1..n {
        // SAFETY: the pointers come from 16-byte arrays (unaligned loads/stores are
        // allowed); AES-NI is enabled for this function.
        unsafe {
            let k = _mm_loadu_si128(keys.enc[n - i].as_ptr().cast::<__m128i>());
            _mm_storeu_si128(
                keys.dec[i].as_mut_ptr().cast::<__m128i>(),
                _mm_aesimc_si128(k),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cryptoreg_registry::HostFeatures;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    #[test]
    fn fips197_appendix_a_last_round_keys() {
        if !std::arch::is_x86_feature_detected!("aes") {
            return;
        }
        // FIPS-197 Appendix A.1, A.2, A.3: the cipher key and the last round key (w[...]).
        let cases = [
            (
                "2b7e151628aed2a6abf7158809cf4f3c",
                "d014f9a8c9ee2589e13f0cc8b6630ca6",
            ),
            (
                "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
                "e98ba06f448c773c8ecc720401002202",
            ),
            (
                "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
                "fe4890d1e6188d0b046df344706c631e",
            ),
        ];
        for (key, last) in cases {
            let ks = expand_key(
                AesNi::new(&HostFeatures::detect(), "t").unwrap(),
                "t",
                &h(key),
            )
            .unwrap();
            assert_eq!(ks.enc[0].to_vec(), h(key)[..16].to_vec());
            assert_eq!(ks.enc[ks.rounds].to_vec(), h(last));
            assert_eq!(ks.dec[0], ks.enc[ks.rounds]);
            assert_eq!(ks.dec[ks.rounds], ks.enc[0]);
        }
        assert!(matches!(
            expand_key(
                AesNi::new(&HostFeatures::detect(), "t").unwrap(),
                "t",
                &[0u8; 20]
            ),
            Err(Error::InvalidKeyLength { len: 20, .. })
        ));
    }
}
