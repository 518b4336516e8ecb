//! VAES + VPCLMULQDQ drivers for XTS, CTR and GCM at three vector widths from one generic
//! core each, as the kernel's `aes-xts-avx-x86_64.S` / `aes-ctr-avx-x86_64.S` /
//! `aes-gcm-avx10-x86_64.S` serve AVX2, AVX10/256 and AVX10/512 from one macro source.
//!
//! | driver | algorithm | priority | registers |
//! | --- | --- | --- | --- |
//! | `xts-aes-vaes-avx2`, `ctr-aes-vaes-avx2`, `gcm-aes-vaes-avx2` | `xts(aes)`, `ctr(aes)`, `gcm(aes)` | 600 | ymm, VEX |
//! | `xts-aes-vaes-avx10_256`, `ctr-aes-vaes-avx10_256`, `gcm-aes-vaes-avx10_256` | | 700 | ymm + AVX-512 masks |
//! | `xts-aes-vaes-avx10_512`, `ctr-aes-vaes-avx10_512`, `gcm-aes-vaes-avx10_512` | | 800 (`uses_zmm`) | zmm |
//!
//! GCM: `gcm` is the stitched core (AES of the next 16 counter blocks interleaved with the
//! GHASH of 16 ciphertext blocks, one reduction per 16 blocks, on the GHASH core of
//! `ghash::vpclmulqdq`), `gcm_entry` its entries (streaming, and fused one-shot seal/open),
//! `gcm_aead` the [`AeadImpl`](cryptoreg_registry::AeadImpl) driver.
//!
//! Layout: the vector types and their generic operations are the shared x86 layer's
//! (`crate::x86::vector`: `Ymm<Vex>`, `Ymm<Evex>`, `Zmm`); `rounds` adds the AES-specific
//! ones on top (`rounds::AesVec`: VAES rounds, the XTS tweak multiply and ciphertext
//! stealing, CTR lanes); `xts` and `ctr` are the generic cores, `#[inline(always)]` throughout;
//! `entry` instantiates them inside one `#[target_feature]` function per driver and
//! direction (16 blocks in flight: 8 ymm or 4 zmm vectors; the ymm drivers read round keys
//! from memory in the main loop, the zmm driver keeps them in registers). The drivers
//! below are the safe [`SkcipherImpl`] face the registry hands out.
//!
//! Out-of-place requests (the walker's `*_to` calls) go to the same entries with a source
//! and a destination pointer, so they cost one pass over memory, like in-place ones; the
//! pointers come from `x86::inout::RawInOut`, identical (in place) or disjoint (out of place).
//!
//! Speed is measured, not asserted: `cryptoctl speed 'xts(aes)' --key-bits 256` shows every
//! driver of the ladder side by side (on a Zen 4, avx2 runs XTS at about twice the speed
//! of `xts-aes-aesni` at 4 KiB).
//!
//! Semantics match the AES-NI drivers and the `xts`/`ctr` templates: XTS takes 32-, 48- or
//! 64-byte keys with distinct halves ([`verify_xts_key`](crate::aes::xts_rules::verify_xts_key)), any length from 16 bytes with
//! ciphertext stealing; CTR treats the IV as a 128-bit big-endian counter, any length.
//!
//! The `raw` module (hidden from the docs) exposes the entry functions and the key schedule
//! to the `cryptoreg-emu` crate, which runs the AVX-512 entries under the Bochs emulator on
//! machines without AVX-512 (`cargo xtask emu`).

#![allow(unsafe_code)]

mod ctr;
mod entry;
mod gcm;
mod gcm_aead;
mod gcm_entry;
mod rounds;
mod xts;

#[cfg(test)]
pub(crate) mod tests;

#[cfg(test)]
mod gcm_tests;

use cryptoreg_registry::{ChainState, Result, SkcipherImpl};

pub(crate) use gcm_aead::GcmVaes;

use zeroize::Zeroize;

use crate::aes::x86::iv16;
use crate::aes::x86::key_schedule::{expand_into, expand_xts_into, AesRoundKeys};
use crate::aes::xts_rules::xts_tail_len;
use crate::x86::inout::RawInOut;
use crate::x86::token::{AesNi, VaesAvx10, VaesAvx2};

/// The raw entry points, for the emulator test crate (`emu/`) and the machine-code check.
/// Not a public API: the registry's drivers are.
#[doc(hidden)]
pub mod raw {
    pub use super::entry::*;
    pub use super::gcm_entry::*;
    pub use crate::ghash::x86::vpclmul_core::GhashPowers;
    pub use crate::ghash::x86::vpclmul_entry::*;

    /// `H * x^-1` in the GHASH core's lane form (see `ghash::x86::vpclmul_core`), for
    /// [`ghash_powers_vpclmulqdq`].
    pub fn ghash_key(h: &[u8; 16]) -> [u8; 16] {
        crate::ghash::x86::vpclmul_core::h_times_x_inv(h).to_le_bytes()
    }

    /// Expands an AES key (16, 24 or 32 bytes) into `(encryption, AESDEC, rounds)`
    /// schedules as bytes, with the same key schedule the drivers use.
    pub fn expand(key: &[u8]) -> cryptoreg_registry::Result<(RoundKeyBytes, RoundKeyBytes, usize)> {
        let token =
            crate::x86::token::AesNi::new(&cryptoreg_registry::HostFeatures::detect(), "raw")?;
        let mut ks = super::AesRoundKeys::empty();
        super::expand_into(token, "raw", key, &mut ks)?;
        // The caller asked for the bytes; `ks` itself is wiped on drop.
        Ok((ks.enc, ks.dec, ks.rounds))
    }
}

/// Which instantiation a driver runs, with the token that proves its features.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Width {
    /// `*-vaes-avx2`.
    Avx2(VaesAvx2),
    /// `*-vaes-avx10_256`.
    Avx10_256(VaesAvx10),
    /// `*-vaes-avx10_512`.
    Avx10_512(VaesAvx10),
}

impl Width {
    /// The AES-NI token the key schedule and the first tweak need.
    fn aesni(self) -> AesNi {
        match self {
            Width::Avx2(t) => t.aesni(),
            Width::Avx10_256(t) | Width::Avx10_512(t) => t.aesni(),
        }
    }
}

/// `xts-aes-vaes-*`: the data key's two schedules and the tweak key's encryption schedule,
/// all wiped on drop ([`AesRoundKeys`] is `ZeroizeOnDrop`).
pub(crate) struct XtsVaes {
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

    /// Runs the entry of this width over `io` (whole blocks, or a CTS tail).
    fn crypt(&self, decrypt: bool, state: &mut ChainState, mut io: RawInOut<'_>) {
        let keys = if decrypt {
            &self.data.dec
        } else {
            &self.data.enc
        };
        let f = match (self.width, decrypt) {
            (Width::Avx2(_), false) => entry::xts_enc_vaes_avx2,
            (Width::Avx2(_), true) => entry::xts_dec_vaes_avx2,
            (Width::Avx10_256(_), false) => entry::xts_enc_vaes_avx10_256,
            (Width::Avx10_256(_), true) => entry::xts_dec_vaes_avx10_256,
            (Width::Avx10_512(_), false) => entry::xts_enc_vaes_avx10_512,
            (Width::Avx10_512(_), true) => entry::xts_dec_vaes_avx10_512,
        };
        let (len, dst) = (io.len(), io.dst());
        // SAFETY: the token in `self.width` proves every feature the entry of that width
        // is compiled for; `io` borrows `len` bytes at `src` / `dst`, identical or
        // disjoint.
        unsafe { f(keys, self.data.rounds, state, io.src(), dst, len) }
    }

    /// A whole request from its IV, in one entry call that also encrypts the IV.
    fn crypt_from_iv(&self, decrypt: bool, iv: &[u8], mut io: RawInOut<'_>) -> Result<()> {
        let keys = if decrypt {
            &self.data.dec
        } else {
            &self.data.enc
        };
        let f = match (self.width, decrypt) {
            (Width::Avx2(_), false) => entry::xts_enc_iv_vaes_avx2,
            (Width::Avx2(_), true) => entry::xts_dec_iv_vaes_avx2,
            (Width::Avx10_256(_), false) => entry::xts_enc_iv_vaes_avx10_256,
            (Width::Avx10_256(_), true) => entry::xts_dec_iv_vaes_avx10_256,
            (Width::Avx10_512(_), false) => entry::xts_enc_iv_vaes_avx10_512,
            (Width::Avx10_512(_), true) => entry::xts_dec_iv_vaes_avx10_512,
        };
        let mut state: ChainState = iv16(iv)?;
        let (len, dst) = (io.len(), io.dst());
        // SAFETY: as in `crypt`; both schedules have `self.data.rounds` rounds (the two
        // halves of an XTS key have the same size).
        unsafe {
            f(
                keys,
                &self.tweak.enc,
                self.data.rounds,
                &mut state,
                io.src(),
                dst,
                len,
            )
        }
        state.zeroize();
        Ok(())
    }
}

impl SkcipherImpl for XtsVaes {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        // In place into the fields (wiped first, and both left wiped on any error).
        let token = self.width.aesni();
        expand_xts_into(token, self.driver, key, &mut self.data, &mut self.tweak)
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        xts_tail_len(total)
    }

    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        *state = iv16(iv)?;
        // SAFETY: the token in `self.width` proves AES-NI.
        unsafe { entry::encrypt_block_aesni(&self.tweak.enc, self.tweak.rounds, state) };
        Ok(())
    }

    /// `data.len()` is a multiple of 16 (the trait's contract); a stray partial block at
    /// the end would be left untouched rather than stolen from.
    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        let whole = data.len() & !15;
        self.crypt(false, state, RawInOut::in_place(data).prefix(whole));
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        let whole = data.len() & !15;
        self.crypt(true, state, RawInOut::in_place(data).prefix(whole));
    }

    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.crypt(false, state, RawInOut::in_place(tail));
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.crypt(true, state, RawInOut::in_place(tail));
    }

    /// Reads `src` and writes `dst` in one pass (no copy first).
    fn encrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        let whole = src.len() & !15;
        self.crypt(false, state, RawInOut::split(src, dst).prefix(whole));
    }

    fn decrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        let whole = src.len() & !15;
        self.crypt(true, state, RawInOut::split(src, dst).prefix(whole));
    }

    /// Ciphertext stealing out of place: the entry reads both input blocks before it
    /// writes either output block.
    fn encrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.crypt(false, state, RawInOut::split(src, dst));
    }

    fn decrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.crypt(true, state, RawInOut::split(src, dst));
    }

    /// One entry call over the whole request, IV encryption and ciphertext stealing
    /// included.
    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        xts_tail_len(data.len())?;
        self.crypt_from_iv(false, iv, RawInOut::in_place(data))
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        xts_tail_len(data.len())?;
        self.crypt_from_iv(true, iv, RawInOut::in_place(data))
    }

    /// One entry call out of place, as `encrypt` in place.
    fn encrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        xts_tail_len(src.len())?;
        check_same_len(src, dst)?;
        self.crypt_from_iv(false, iv, RawInOut::split(src, dst))
    }

    fn decrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        xts_tail_len(src.len())?;
        check_same_len(src, dst)?;
        self.crypt_from_iv(true, iv, RawInOut::split(src, dst))
    }
}

/// Out-of-place requests need equal lengths (the handle checks first; this keeps the
/// driver safe on its own).
fn check_same_len(src: &[u8], dst: &[u8]) -> Result<()> {
    if src.len() == dst.len() {
        Ok(())
    } else {
        Err(cryptoreg_registry::Error::LengthMismatch {
            src: src.len(),
            dst: dst.len(),
        })
    }
}

/// `ctr-aes-vaes-*`: the encryption schedule (wiped on drop).
pub(crate) struct CtrVaes {
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

    fn crypt(&self, state: &mut ChainState, mut io: RawInOut<'_>) {
        let f = match self.width {
            Width::Avx2(_) => entry::ctr_vaes_avx2,
            Width::Avx10_256(_) => entry::ctr_vaes_avx10_256,
            Width::Avx10_512(_) => entry::ctr_vaes_avx10_512,
        };
        let (len, dst) = (io.len(), io.dst());
        // SAFETY: the token in `self.width` proves every feature the entry of that width
        // is compiled for; `io` borrows `len` bytes at `src` / `dst`, identical or
        // disjoint.
        unsafe { f(&self.keys.enc, self.keys.rounds, state, io.src(), dst, len) }
    }
}

impl SkcipherImpl for CtrVaes {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        // In place into the field (wiped first, and left wiped on error).
        expand_into(self.width.aesni(), self.driver, key, &mut self.keys)
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        Ok(total % 16)
    }

    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        *state = iv16(iv)?;
        Ok(())
    }

    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.crypt(state, RawInOut::in_place(data));
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.crypt(state, RawInOut::in_place(data));
    }

    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.crypt(state, RawInOut::in_place(tail));
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.crypt(state, RawInOut::in_place(tail));
    }

    /// Reads `src` and writes `dst` in one pass (no copy first).
    fn encrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.crypt(state, RawInOut::split(src, dst));
    }

    fn decrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.crypt(state, RawInOut::split(src, dst));
    }

    fn encrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.crypt(state, RawInOut::split(src, dst));
    }

    fn decrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.crypt(state, RawInOut::split(src, dst));
    }

    /// One entry call over the whole request. The counter block is not wiped afterwards:
    /// it is the caller's IV plus a block count, public in every protocol that uses CTR
    /// (as in `ctr-aes-aesni`). The wipe's byte stores, after the entry's counter update,
    /// sat on the path of the next request: 16-byte requests on Zen 4 (`cryptoctl speed
    /// 'ctr(aes)'`, three alternating runs) 1500-1600 MB/s with it, 2230-2420 without.
    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        let mut state = iv16(iv)?;
        self.crypt(&mut state, RawInOut::in_place(data));
        Ok(())
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.encrypt(iv, data)
    }

    /// One entry call out of place.
    fn encrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        check_same_len(src, dst)?;
        let mut state = iv16(iv)?;
        self.crypt(&mut state, RawInOut::split(src, dst));
        Ok(())
    }

    fn decrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        self.encrypt_to(iv, src, dst)
    }
}

// Constructors only: the records (names, priorities, sizes, features) are in
// `crate::records::x86_64`, compiled on every architecture.
crate::x86::width_ctors! {
    SkcipherImpl:
    new_xts_vaes_avx2 = "xts-aes-vaes-avx2", Avx2(VaesAvx2), XtsVaes;
    new_xts_vaes_avx10_256 = "xts-aes-vaes-avx10_256", Avx10_256(VaesAvx10), XtsVaes;
    new_xts_vaes_avx10_512 = "xts-aes-vaes-avx10_512", Avx10_512(VaesAvx10), XtsVaes;
    new_ctr_vaes_avx2 = "ctr-aes-vaes-avx2", Avx2(VaesAvx2), CtrVaes;
    new_ctr_vaes_avx10_256 = "ctr-aes-vaes-avx10_256", Avx10_256(VaesAvx10), CtrVaes;
    new_ctr_vaes_avx10_512 = "ctr-aes-vaes-avx10_512", Avx10_512(VaesAvx10), CtrVaes;
}

crate::x86::width_ctors! {
    AeadImpl:
    new_gcm_vaes_avx2 = "gcm-aes-vaes-avx2", Avx2(VaesAvx2), GcmVaes;
    new_gcm_vaes_avx10_256 = "gcm-aes-vaes-avx10_256", Avx10_256(VaesAvx10), GcmVaes;
    new_gcm_vaes_avx10_512 = "gcm-aes-vaes-avx10_512", Avx10_512(VaesAvx10), GcmVaes;
}
