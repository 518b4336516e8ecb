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

use crate::aes::xts_rules::verify_xts_key;
use crate::x86::token::AesNi;
use cryptoreg_registry::{Error, Result};
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::x86::wipe_blocks;

/// Expanded AES round keys in FIPS-197 order, as bytes (load with `_mm_loadu_si128` or a
/// broadcast). Wiped on drop (16 bytes a store, [`wipe_blocks`]).
#[derive(Clone)]
pub(crate) struct AesRoundKeys {
    /// Encryption round keys; `rounds + 1` of them are used.
    pub(crate) enc: [[u8; 16]; 15],
    /// Decryption round keys for `AESDEC`: `dec[0] = enc[rounds]`,
    /// `dec[i] = InvMixColumns(enc[rounds - i])` for `1..rounds`, `dec[rounds] = enc[0]`.
    pub(crate) dec: [[u8; 16]; 15],
    /// 10, 12 or 14.
    pub(crate) rounds: usize,
}

impl Zeroize for AesRoundKeys {
    fn zeroize(&mut self) {
        wipe_blocks(&mut self.enc);
        wipe_blocks(&mut self.dec);
        self.rounds.zeroize();
    }
}

impl Drop for AesRoundKeys {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for AesRoundKeys {}

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

    /// Whether both schedules are all zero in the [`empty`](Self::empty) shape.
    #[cfg(test)]
    pub(crate) fn is_wiped(&self) -> bool {
        self.rounds == 10 && self.enc.iter().chain(&self.dec).all(|rk| rk == &[0u8; 16])
    }

    /// Wipes both schedules and returns to the [`empty`](Self::empty) shape.
    pub(crate) fn clear(&mut self) {
        self.zeroize();
        self.rounds = 10;
    }
}

/// Expands a 16-, 24- or 32-byte AES key into `keys`, in place: the driver passes its own
/// field, so no copy of the schedule is left behind in a stack temporary (as returning an
/// [`AesRoundKeys`] by value and moving it into the field would). The previous schedule is
/// wiped first, so a shorter key leaves none of a longer one's round keys behind.
///
/// Any other length is [`Error::InvalidKeyLength`] naming `driver`, and `keys` is then left
/// wiped (unkeyed): as with the kernel's `setkey`, a failed call leaves no usable key.
///
/// The [`AesNi`] token proves the instructions; the VAES drivers pass theirs through
/// [`VaesAvx2::aesni`](crate::x86::token::VaesAvx2::aesni).
pub(crate) fn expand_into(
    _: AesNi,
    driver: &str,
    key: &[u8],
    keys: &mut AesRoundKeys,
) -> Result<()> {
    keys.clear();
    let rounds = match key.len() {
        16 => 10,
        24 => 12,
        32 => 14,
        len => {
            return Err(Error::InvalidKeyLength {
                driver: driver.to_string(),
                len,
                valid: cryptoreg_registry::KeyLengths::list(&[16, 24, 32]),
            })
        }
    };
    keys.rounds = rounds;
    // SAFETY: the `AesNi` token proves AES-NI and SSE2.
    unsafe { expand_aesni(key, keys) };
    Ok(())
}

/// Expands an XTS key (the data key, then the tweak key; checked by [`verify_xts_key`]:
/// valid double length, differing halves) into the driver's two schedules in place, as
/// [`expand_into`]. On any error both schedules are left wiped.
pub(crate) fn expand_xts_into(
    token: AesNi,
    driver: &str,
    key: &[u8],
    data: &mut AesRoundKeys,
    tweak: &mut AesRoundKeys,
) -> Result<()> {
    let r = verify_xts_key(driver, key).and_then(|()| {
        let (k1, k2) = key.split_at(key.len() / 2);
        expand_into(token, driver, k1, data)?;
        expand_into(token, driver, k2, tweak)
    });
    if r.is_err() {
        data.clear();
        tweak.clear();
    }
    r
}

/// The FIPS-197 round constants `Rcon[1..=10]` (only the first byte is non-zero).
const RCON: [u8; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

/// `SubWord`: the S-box on each byte of a little-endian word, through `AESENCLAST`.
#[inline(always)]
/// # Safety
/// The CPU must have AES-NI (only `expand_aesni`, a `target_feature` kernel, calls it).
unsafe fn sub_word(w: u32) -> u32 {
    // SAFETY: the caller guarantees AES-NI; SSE2 is baseline; registers only.
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
            // SAFETY: this kernel's contract: AES-NI is present.
            t = unsafe { sub_word(t.rotate_right(8)) } ^ u32::from(RCON[i / nk - 1]);
        } else if nk > 6 && i % nk == 4 {
            // SAFETY: as above.
            t = unsafe { sub_word(t) };
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
        let token = AesNi::new(&HostFeatures::detect(), "t").unwrap();
        for (key, last) in cases {
            let mut ks = AesRoundKeys::empty();
            expand_into(token, "t", &h(key), &mut ks).unwrap();
            assert_eq!(ks.enc[0].to_vec(), h(key)[..16].to_vec());
            assert_eq!(ks.enc[ks.rounds].to_vec(), h(last));
            assert_eq!(ks.dec[0], ks.enc[ks.rounds]);
            assert_eq!(ks.dec[ks.rounds], ks.enc[0]);
        }
        let mut ks = AesRoundKeys::empty();
        assert!(matches!(
            expand_into(token, "t", &[0u8; 20], &mut ks),
            Err(Error::InvalidKeyLength { len: 20, .. })
        ));
    }

    /// A failed expansion leaves the schedule wiped, not the previous key's.
    #[test]
    fn failed_expansion_wipes_the_previous_schedule() {
        if !std::arch::is_x86_feature_detected!("aes") {
            return;
        }
        let token = AesNi::new(&HostFeatures::detect(), "t").unwrap();
        for len in [0, 8, 15, 17, 20, 31, 33, 64] {
            let mut ks = AesRoundKeys::empty();
            expand_into(token, "t", &[0x5a; 32], &mut ks).unwrap();
            assert!(!ks.is_wiped());
            assert!(expand_into(token, "t", &vec![0x5a; len], &mut ks).is_err());
            assert!(ks.is_wiped(), "len {len}");
        }
    }

    /// Replacing a 256-bit key with a shorter one leaves none of the old round keys in the
    /// entries the shorter schedule does not use.
    #[test]
    fn a_shorter_key_leaves_no_round_key_of_the_longer_one() {
        if !std::arch::is_x86_feature_detected!("aes") {
            return;
        }
        let token = AesNi::new(&HostFeatures::detect(), "t").unwrap();
        for short in [16, 24] {
            let mut fresh = AesRoundKeys::empty();
            expand_into(token, "t", &vec![0x21; short], &mut fresh).unwrap();
            let mut ks = AesRoundKeys::empty();
            expand_into(token, "t", &[0xa7; 32], &mut ks).unwrap();
            expand_into(token, "t", &vec![0x21; short], &mut ks).unwrap();
            assert_eq!(ks.rounds, fresh.rounds);
            assert_eq!((ks.enc, ks.dec), (fresh.enc, fresh.dec), "key {short}");
            let unused = ks.rounds + 1..15;
            assert!(ks.enc[unused.clone()].iter().all(|rk| rk == &[0u8; 16]));
            assert!(ks.dec[unused].iter().all(|rk| rk == &[0u8; 16]));
        }
    }
}
