//! VAES + VPCLMULQDQ drivers for XTS and CTR at three vector widths from one generic core,
//! as the kernel's `aes-xts-avx-x86_64.S` / `aes-ctr-avx-x86_64.S` serve AVX2, AVX10/256
//! and AVX10/512 from one macro source.
//!
//! | driver | algorithm | priority | registers |
//! | --- | --- | --- | --- |
//! | `xts-aes-vaes-avx2`, `ctr-aes-vaes-avx2` | `xts(aes)`, `ctr(aes)` | 600 | ymm, VEX |
//! | `xts-aes-vaes-avx10_256`, `ctr-aes-vaes-avx10_256` | | 700 | ymm + AVX-512 masks |
//! | `xts-aes-vaes-avx10_512`, `ctr-aes-vaes-avx10_512` | | 800 (`uses_zmm`) | zmm |
//!
//! Layout: `vector` defines the small vector trait (`vector::AesVec`) and its ymm and zmm
//! implementations; `xts` and `ctr` are the generic cores, `#[inline(always)]` throughout;
//! `entry` instantiates them inside one `#[target_feature]` function per driver and
//! direction (16 blocks in flight: 8 ymm or 4 zmm vectors; the ymm drivers read round keys
//! from memory in the main loop, the zmm driver keeps them in registers). The drivers
//! below are the safe [`SkcipherImpl`] face the registry hands out.
//!
//! Speed is measured, not asserted: `cryptoctl speed 'xts(aes)' --key-bits 256` shows every
//! driver of the ladder side by side (on a Zen 4, avx2 runs XTS at about twice the speed
//! of `xts-aes-aesni` at 4 KiB).
//!
//! Semantics match the AES-NI drivers and the `xts`/`ctr` templates: XTS takes 32-, 48- or
//! 64-byte keys with distinct halves ([`verify_xts_key`]), any length from 16 bytes with
//! ciphertext stealing; CTR treats the IV as a 128-bit big-endian counter, any length.
//!
//! The `raw` module (hidden from the docs) exposes the entry functions and the key schedule
//! to the `cryptoreg-emu` crate, which runs the AVX-512 entries under the Bochs emulator on
//! machines without AVX-512 (`cargo xtask emu`).

#![allow(unsafe_code)]

mod ctr;
mod entry;
mod vector;
mod xts;

#[cfg(test)]
mod tests;

use cryptoreg_registry::{inventory, AlgDef, ChainState, Ctor, Feature, Result, SkcipherImpl};

use zeroize::Zeroize;

use crate::aes::x86_64::key_schedule::{expand_key, AesRoundKeys};
use crate::xts_util::{verify_xts_key, xts_tail_len};

/// The raw entry points, for the emulator test crate (`emu/`) and the machine-code check.
/// Not a public API: the registry's drivers are.
#[doc(hidden)]
pub mod raw {
    pub use super::entry::*;

    /// Expands an AES key (16, 24 or 32 bytes) into `(encryption, AESDEC, rounds)`
    /// schedules as bytes, with the same key schedule the drivers use.
    pub fn expand(key: &[u8]) -> cryptoreg_registry::Result<(RoundKeyBytes, RoundKeyBytes, usize)> {
        let ks = super::expand_key("raw", key)?;
        Ok((ks.enc, ks.dec, ks.rounds))
    }
}

/// Which instantiation a driver runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Width {
    /// `*-vaes-avx2`.
    Avx2,
    /// `*-vaes-avx10_256`.
    Avx10_256,
    /// `*-vaes-avx10_512`.
    Avx10_512,
}

/// The features the avx2 drivers execute: VAES and VPCLMULQDQ on ymm, AVX2, and AES-NI for
/// the key schedule and the tweak.
const REQ_AVX2: &[Feature] = &[
    Feature::Aes,
    Feature::Avx2,
    Feature::Vaes,
    Feature::Vpclmulqdq,
];

/// The avx10 drivers add AVX-512F/BW/VL (mask registers, EVEX, zmm).
const REQ_AVX10: &[Feature] = &[
    Feature::Aes,
    Feature::Avx2,
    Feature::Vaes,
    Feature::Vpclmulqdq,
    Feature::Avx512f,
    Feature::Avx512bw,
    Feature::Avx512vl,
];

/// `xts-aes-vaes-*`: the data key's two schedules and the tweak key's encryption schedule,
/// all wiped on drop ([`AesRoundKeys`] is `ZeroizeOnDrop`).
struct XtsVaes {
    driver: &'static str,
    width: Width,
    data: AesRoundKeys,
    tweak: AesRoundKeys,
}

impl XtsVaes {
    fn new(driver: &'static str, width: Width) -> XtsVaes {
        XtsVaes {
            driver,
            width,
            data: AesRoundKeys::empty(),
            tweak: AesRoundKeys::empty(),
        }
    }

    /// Runs the entry of this width over `data` (whole blocks, or a CTS tail).
    fn crypt(&self, decrypt: bool, state: &mut ChainState, data: &mut [u8]) {
        let keys = if decrypt {
            &self.data.dec
        } else {
            &self.data.enc
        };
        let f = match (self.width, decrypt) {
            (Width::Avx2, false) => entry::xts_enc_vaes_avx2,
            (Width::Avx2, true) => entry::xts_dec_vaes_avx2,
            (Width::Avx10_256, false) => entry::xts_enc_vaes_avx10_256,
            (Width::Avx10_256, true) => entry::xts_dec_vaes_avx10_256,
            (Width::Avx10_512, false) => entry::xts_enc_vaes_avx10_512,
            (Width::Avx10_512, true) => entry::xts_dec_vaes_avx10_512,
        };
        // SAFETY: the registry hands this driver out only after checking its `requires`
        // list (which names every feature the entry is compiled for) against the CPU; the
        // pointer and length come from one live mutable slice.
        unsafe { f(keys, self.data.rounds, state, data.as_mut_ptr(), data.len()) }
    }

    /// A whole request from its IV, in one entry call that also encrypts the IV.
    fn crypt_from_iv(&self, decrypt: bool, iv: &[u8], data: &mut [u8]) {
        let keys = if decrypt {
            &self.data.dec
        } else {
            &self.data.enc
        };
        let f = match (self.width, decrypt) {
            (Width::Avx2, false) => entry::xts_enc_iv_vaes_avx2,
            (Width::Avx2, true) => entry::xts_dec_iv_vaes_avx2,
            (Width::Avx10_256, false) => entry::xts_enc_iv_vaes_avx10_256,
            (Width::Avx10_256, true) => entry::xts_dec_iv_vaes_avx10_256,
            (Width::Avx10_512, false) => entry::xts_enc_iv_vaes_avx10_512,
            (Width::Avx10_512, true) => entry::xts_dec_iv_vaes_avx10_512,
        };
        let mut state: ChainState = [0u8; 16];
        state.copy_from_slice(&iv[..16]);
        // SAFETY: as in `crypt`; both schedules have `self.data.rounds` rounds (the two
        // halves of an XTS key have the same size).
        unsafe {
            f(
                keys,
                &self.tweak.enc,
                self.data.rounds,
                &mut state,
                data.as_mut_ptr(),
                data.len(),
            )
        }
        state.zeroize();
    }
}

impl SkcipherImpl for XtsVaes {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        verify_xts_key(self.driver, key)?;
        let (k1, k2) = key.split_at(key.len() / 2);
        self.data = expand_key(self.driver, k1)?;
        self.tweak = expand_key(self.driver, k2)?;
        Ok(())
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        xts_tail_len(total)
    }

    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        state.copy_from_slice(&iv[..16]);
        // SAFETY: AES-NI is in this driver's `requires` list, checked by the registry
        // before the driver is handed out.
        unsafe { entry::encrypt_block_aesni(&self.tweak.enc, self.tweak.rounds, state) };
        Ok(())
    }

    /// `data.len()` is a multiple of 16 (the trait's contract); a stray partial block at
    /// the end would be left untouched rather than stolen from.
    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        let whole = data.len() & !15;
        self.crypt(false, state, &mut data[..whole]);
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        let whole = data.len() & !15;
        self.crypt(true, state, &mut data[..whole]);
    }

    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.crypt(false, state, tail);
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.crypt(true, state, tail);
    }

    /// One entry call over the whole request, IV encryption and ciphertext stealing
    /// included.
    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        xts_tail_len(data.len())?;
        self.crypt_from_iv(false, iv, data);
        Ok(())
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        xts_tail_len(data.len())?;
        self.crypt_from_iv(true, iv, data);
        Ok(())
    }
}

/// `ctr-aes-vaes-*`: the encryption schedule (wiped on drop).
struct CtrVaes {
    driver: &'static str,
    width: Width,
    keys: AesRoundKeys,
}

impl CtrVaes {
    fn new(driver: &'static str, width: Width) -> CtrVaes {
        CtrVaes {
            driver,
            width,
            keys: AesRoundKeys::empty(),
        }
    }

    fn crypt(&self, state: &mut ChainState, data: &mut [u8]) {
        let f = match self.width {
            Width::Avx2 => entry::ctr_vaes_avx2,
            Width::Avx10_256 => entry::ctr_vaes_avx10_256,
            Width::Avx10_512 => entry::ctr_vaes_avx10_512,
        };
        // SAFETY: the registry hands this driver out only after checking its `requires`
        // list (which names every feature the entry is compiled for) against the CPU; the
        // pointer and length come from one live mutable slice.
        unsafe {
            f(
                &self.keys.enc,
                self.keys.rounds,
                state,
                data.as_mut_ptr(),
                data.len(),
            )
        }
    }
}

impl SkcipherImpl for CtrVaes {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.keys = expand_key(self.driver, key)?;
        Ok(())
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        Ok(total % 16)
    }

    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        state.copy_from_slice(&iv[..16]);
        Ok(())
    }

    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.crypt(state, data);
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.crypt(state, data);
    }

    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.crypt(state, tail);
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.crypt(state, tail);
    }

    /// One entry call over the whole request.
    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        let mut state = [0u8; 16];
        self.start(iv, &mut state)?;
        self.crypt(&mut state, data);
        state.zeroize();
        Ok(())
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.encrypt(iv, data)
    }
}

macro_rules! register {
    ($($alg:literal, $driver:literal, $prio:expr, $req:expr, $zmm:expr, $block:expr, $min:expr,
       $max:expr, $ctor:expr;)*) => {$(
        inventory::submit! {
            AlgDef {
                name: $alg,
                driver: $driver,
                priority: $prio,
                requires: $req,
                uses_zmm: $zmm,
                block_size: $block,
                min_key: $min,
                max_key: $max,
                iv_size: 16,
                out_size: 0,
                ctor: Ctor::Skcipher($ctor),
            }
        }
    )*};
}

register! {
    "xts(aes)", "xts-aes-vaes-avx2", 600, REQ_AVX2, false, 16, 32, 64,
        || Box::new(XtsVaes::new("xts-aes-vaes-avx2", Width::Avx2));
    "xts(aes)", "xts-aes-vaes-avx10_256", 700, REQ_AVX10, false, 16, 32, 64,
        || Box::new(XtsVaes::new("xts-aes-vaes-avx10_256", Width::Avx10_256));
    "xts(aes)", "xts-aes-vaes-avx10_512", 800, REQ_AVX10, true, 16, 32, 64,
        || Box::new(XtsVaes::new("xts-aes-vaes-avx10_512", Width::Avx10_512));
    "ctr(aes)", "ctr-aes-vaes-avx2", 600, REQ_AVX2, false, 1, 16, 32,
        || Box::new(CtrVaes::new("ctr-aes-vaes-avx2", Width::Avx2));
    "ctr(aes)", "ctr-aes-vaes-avx10_256", 700, REQ_AVX10, false, 1, 16, 32,
        || Box::new(CtrVaes::new("ctr-aes-vaes-avx10_256", Width::Avx10_256));
    "ctr(aes)", "ctr-aes-vaes-avx10_512", 800, REQ_AVX10, true, 1, 16, 32,
        || Box::new(CtrVaes::new("ctr-aes-vaes-avx10_512", Width::Avx10_512));
}
