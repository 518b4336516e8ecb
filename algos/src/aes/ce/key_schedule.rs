//! The AES key schedule (FIPS-197 §5.2) on the Crypto Extensions, for `aes-ce`, the
//! `*-aes-ce` mode drivers and `gcm-aes-ce`.
//!
//! As on x86 (`aes/x86/key_schedule.rs`), one word-by-word loop serves all three key
//! sizes and only `SubWord` uses the CPU: the word is broadcast to the four columns, so
//! that `ShiftRows` inside `AESE` (with an all-zero round key) is the identity and only
//! `SubBytes` remains. Constant-time: the branches depend on the word index only. The
//! decryption schedule for `AESD` + `AESIMC` (the equivalent inverse cipher, FIPS-197
//! §5.3.5) is the reversed encryption schedule with `InvMixColumns` (`AESIMC`) applied to
//! the middle round keys, as the kernel's `ce_aes_expandkey` (arch/arm64/crypto/
//! aes-ce-glue.c) builds it.

use core::arch::aarch64::{
    vaeseq_u8, vaesimcq_u8, vdupq_n_u32, vdupq_n_u8, vgetq_lane_u32, vld1q_u8,
    vreinterpretq_u32_u8, vreinterpretq_u8_u32, vst1q_u8,
};

use crate::aarch64::token::AesCe;
use crate::aes::xts_rules::verify_xts_key;
use cryptoreg_registry::{Error, Result};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Expanded AES round keys in FIPS-197 byte order. Wiped on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct CeRoundKeys {
    /// Encryption round keys; `rounds + 1` of them are used.
    pub(crate) enc: [[u8; 16]; 15],
    /// Decryption round keys for `AESD`/`AESIMC`: `dec[0] = enc[rounds]`,
    /// `dec[i] = InvMixColumns(enc[rounds - i])` for `1..rounds`, `dec[rounds] = enc[0]`.
    pub(crate) dec: [[u8; 16]; 15],
    /// 10, 12 or 14.
    pub(crate) rounds: usize,
}

impl CeRoundKeys {
    /// The unkeyed placeholder (all zero, AES-128 shape).
    pub(crate) const fn empty() -> CeRoundKeys {
        CeRoundKeys {
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

    /// Wipes both schedules and returns to the empty shape.
    pub(crate) fn clear(&mut self) {
        self.zeroize();
        self.rounds = 10;
    }
}

/// Expands a 16-, 24- or 32-byte key into `keys` in place (the previous schedule wiped
/// first; left wiped on error, [`Error::InvalidKeyLength`] naming `driver`).
pub(crate) fn expand_into(
    _: AesCe,
    driver: &str,
    key: &[u8],
    keys: &mut CeRoundKeys,
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
    // SAFETY: the `AesCe` token proves the AES instructions and Advanced SIMD.
    unsafe { expand_ce(key, keys) };
    Ok(())
}

/// Expands an XTS key (data key, then tweak key; [`verify_xts_key`]) into two schedules
/// in place; on any error both are left wiped.
pub(crate) fn expand_xts_into(
    token: AesCe,
    driver: &str,
    key: &[u8],
    data: &mut CeRoundKeys,
    tweak: &mut CeRoundKeys,
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

/// The FIPS-197 round constants `Rcon[1..=10]`.
const RCON: [u8; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

/// `SubWord` through `AESE` on a broadcast word with a zero round key (only
/// `expand_ce`, an `aes` kernel, calls it).
#[inline]
#[target_feature(enable = "aes")]
fn sub_word(w: u32) -> u32 {
    let x = vreinterpretq_u8_u32(vdupq_n_u32(w));
    vgetq_lane_u32::<0>(vreinterpretq_u32_u8(vaeseq_u8(x, vdupq_n_u8(0))))
}

/// Fills `keys.enc` and `keys.dec` (with `keys.rounds` already set) from `key`.
///
/// # Safety
/// The CPU must have the AES instructions.
#[target_feature(enable = "aes")]
unsafe fn expand_ce(key: &[u8], keys: &mut CeRoundKeys) {
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
        // SAFETY: 16-byte arrays (no alignment needed); AES is enabled for this function.
        unsafe {
            let k = vld1q_u8(keys.enc[n - i].as_ptr());
            vst1q_u8(keys.dec[i].as_mut_ptr(), vaesimcq_u8(k));
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

    fn token() -> Option<AesCe> {
        AesCe::new(&HostFeatures::detect(), "t").ok()
    }

    #[test]
    fn fips197_appendix_a_last_round_keys() {
        let Some(token) = token() else { return };
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
            let mut ks = CeRoundKeys::empty();
            expand_into(token, "t", &h(key), &mut ks).unwrap();
            assert_eq!(ks.enc[0].to_vec(), h(key)[..16].to_vec());
            assert_eq!(ks.enc[ks.rounds].to_vec(), h(last));
            assert_eq!(ks.dec[0], ks.enc[ks.rounds]);
            assert_eq!(ks.dec[ks.rounds], ks.enc[0]);
        }
    }

    #[test]
    fn failed_expansion_wipes_the_previous_schedule() {
        let Some(token) = token() else { return };
        for len in [0, 8, 15, 17, 20, 31, 33, 64] {
            let mut ks = CeRoundKeys::empty();
            expand_into(token, "t", &[0x5a; 32], &mut ks).unwrap();
            assert!(!ks.is_wiped());
            assert!(expand_into(token, "t", &vec![0x5a; len], &mut ks).is_err());
            assert!(ks.is_wiped(), "len {len}");
        }
    }
}
