//! `gcm-aes-vaes-avx2` (600), `gcm-aes-vaes-avx10_256` (700) and `gcm-aes-vaes-avx10_512`
//! (800, `uses_zmm`): the stitched AES-GCM drivers of algorithm `gcm(aes)`, one generic
//! source (`gcm`) at three widths.
//!
//! Semantics are `gcm_rules`'s, as for every `gcm(aes)` driver: 12-byte nonces, tags of 4,
//! 8 and 12..=16 bytes, SP 800-38D length limits checked in `start` (and in the one-shot
//! calls) before any byte is written, AES-128/192/256 keys.
//!
//! The key schedule holds the AES round keys and the GHASH powers `H^16 .. H^1` (as
//! `H^i * x^-1`, see `ghash::x86::vpclmul_core`), both wiped on drop and on a failed
//! `set_key`. The one-shot [`seal`](AeadImpl::seal) and [`open`](AeadImpl::open) are one
//! entry call each (AAD, text, lengths and tag); `open` decrypts in one pass and wipes the
//! buffer when the tag does not match, so no plaintext is left behind. The streaming calls
//! keep, in the [`AeadState`]: the GHASH accumulator (bytes 0..16), the next counter block
//! (16..32), `E(K, J0)` (32..48) and the length block (48..64).

use crate::aead::tag::open_verified;
use cryptoreg_registry::{AeadImpl, AeadLens, AeadState, Error, InOut, Result};
use zeroize::Zeroize;

use super::entry::encrypt_block_aesni;
use super::gcm_entry::{self, GcmEntry, GcmOneShotEntry, GcmTuning};
use super::Width;
use crate::aes::gcm_rules::{
    check_gcm_authsize, check_gcm_lens, check_one_shot, gcm_j0, gcm_len_block, GCM_NONCE_LEN,
};
use crate::aes::x86::key_schedule::{expand_into, AesRoundKeys};
use crate::ghash::x86::vpclmul_core::{h_times_x_inv, GhashPowers};
use crate::ghash::x86::vpclmul_entry::{self as ghash_entry, GhashEntry};
use crate::x86::inout::RawInOut;

/// Byte ranges of the streaming state.
const ACC: core::ops::Range<usize> = 0..16;
const CTR: core::ops::Range<usize> = 16..32;
const EKJ0: core::ops::Range<usize> = 32..48;
const LENS: core::ops::Range<usize> = 48..64;

/// `gcm-aes-vaes-*`: the AES encryption schedule and the GHASH powers (both wiped on drop).
pub(crate) struct GcmVaes {
    driver: &'static str,
    width: Width,
    keys: AesRoundKeys,
    powers: GhashPowers,
    /// The stitched loop's form for this CPU's vendor ([`GcmTuning`]: what measured
    /// faster on Intel and on AMD cores). Every form gives the same bytes; the tests run
    /// each.
    tuning: GcmTuning,
}

/// The 16-byte field `r` of the state.
fn field(state: &mut AeadState, r: core::ops::Range<usize>) -> &mut [u8; 16] {
    (&mut state.bytes[r]).try_into().expect("16-byte field")
}

impl GcmVaes {
    pub(crate) fn new(driver: &'static str, width: Width) -> GcmVaes {
        GcmVaes {
            driver,
            width,
            keys: AesRoundKeys::empty(),
            powers: GhashPowers::empty(),
            tuning: GcmTuning::native(),
        }
    }

    /// The same driver in the given form (tests run every form on every CPU, whichever
    /// this one picks).
    #[cfg(test)]
    pub(crate) fn with_tuning(mut self, tuning: GcmTuning) -> GcmVaes {
        self.tuning = tuning;
        self
    }

    /// Whether the key material (round keys and GHASH powers) is all wiped.
    #[cfg(test)]
    pub(crate) fn is_wiped(&self) -> bool {
        self.keys.is_wiped() && self.powers.is_zero()
    }

    fn crypt_fn(&self, decrypt: bool) -> GcmEntry {
        match (self.width, decrypt) {
            (Width::Avx2(_), false) => gcm_entry::gcm_enc_vaes_avx2,
            (Width::Avx2(_), true) => gcm_entry::gcm_dec_vaes_avx2,
            (Width::Avx10_256(_), false) => gcm_entry::gcm_enc_vaes_avx10_256,
            (Width::Avx10_256(_), true) => gcm_entry::gcm_dec_vaes_avx10_256,
            (Width::Avx10_512(_), false) => gcm_entry::gcm_enc_vaes_avx10_512,
            (Width::Avx10_512(_), true) => gcm_entry::gcm_dec_vaes_avx10_512,
        }
    }

    fn one_shot_fn(&self, decrypt: bool) -> GcmOneShotEntry {
        match (self.width, decrypt) {
            (Width::Avx2(_), false) => gcm_entry::gcm_seal_vaes_avx2,
            (Width::Avx2(_), true) => gcm_entry::gcm_open_vaes_avx2,
            (Width::Avx10_256(_), false) => gcm_entry::gcm_seal_vaes_avx10_256,
            (Width::Avx10_256(_), true) => gcm_entry::gcm_open_vaes_avx10_256,
            (Width::Avx10_512(_), false) => gcm_entry::gcm_seal_vaes_avx10_512,
            (Width::Avx10_512(_), true) => gcm_entry::gcm_open_vaes_avx10_512,
        }
    }

    fn ghash_fn(&self) -> GhashEntry {
        match self.width {
            Width::Avx2(_) => ghash_entry::ghash_vpclmulqdq_avx2,
            Width::Avx10_256(_) => ghash_entry::ghash_vpclmulqdq_avx10_256,
            Width::Avx10_512(_) => ghash_entry::ghash_vpclmulqdq_avx512,
        }
    }

    /// GHASH of `data` (zero-padded) into the state's accumulator.
    fn ghash(&self, state: &mut AeadState, data: &[u8]) {
        let f = self.ghash_fn();
        // SAFETY: the token in `self.width` proves AVX2 and VPCLMULQDQ (and AVX-512 for
        // the avx10 widths); `data` is readable for its length.
        unsafe { f(&self.powers, field(state, ACC), data.as_ptr(), data.len()) }
    }

    /// Runs a streaming entry over one run of text.
    fn crypt(&self, decrypt: bool, state: &mut AeadState, data: InOut<'_>) {
        let mut io = RawInOut::from_inout(data);
        let f = self.crypt_fn(decrypt);
        let mut ctr: [u8; 16] = *field(state, CTR);
        let (len, dst) = (io.len(), io.dst());
        // SAFETY: the token in `self.width` proves every feature of the entry; `io`
        // borrows `len` bytes at `src` / `dst`, identical or disjoint.
        unsafe {
            f(
                &self.keys.enc,
                self.keys.rounds,
                &self.powers,
                &mut ctr,
                field(state, ACC),
                io.src(),
                dst,
                len,
                self.tuning,
            )
        };
        *field(state, CTR) = ctr;
        ctr.zeroize();
    }

    /// One entry call for a whole request from `src` into `dst` (the same slice for in
    /// place): the tag (`out.len()` bytes, the authsize) straight into `out`. The nonce
    /// goes to the entry as it is (the entry reads `J0` from it), and `out` is written by
    /// the entry: no `J0` or tag block is built in memory here, which kept store
    /// forwarding from working (see `gcm::j0_of_nonce`). Inlined: called out of line,
    /// the slices went to it repacked on the stack, which `seal` read back 16 bytes at a
    /// time from the caller's 8-byte argument stores (the same missed forwarding, 50
    /// cycles of a 16-byte seal).
    #[inline(always)]
    fn one_shot(
        &self,
        decrypt: bool,
        nonce: &[u8],
        aad: &[u8],
        io: InOut<'_>,
        out: &mut [u8],
    ) -> Result<()> {
        let mut io = RawInOut::from_inout(io);
        let lens = AeadLens {
            aad: aad.len(),
            text: io.len(),
            authsize: out.len(),
        };
        let nonce = check_one_shot(self.driver, nonce, &lens)?;
        let f = self.one_shot_fn(decrypt);
        let (len, dst) = (io.len(), io.dst());
        // SAFETY: the CPU has the entry's features (the width's token, checked when the
        // driver was built); the nonce is 12 bytes, the AAD is valid for its length, `io`
        // holds `len` readable bytes at `src` and writable at `dst` (the same buffer or two
        // that do not overlap), and `out` is writable for its length, which
        // `check_one_shot` bounded by 16.
        unsafe {
            f(
                &self.keys.enc,
                self.keys.rounds,
                &self.powers,
                nonce.as_ptr(),
                aad.as_ptr(),
                aad.len(),
                io.src(),
                dst,
                len,
                out.as_mut_ptr(),
                out.len(),
                self.tuning,
            )
        };
        Ok(())
    }

    /// `seal` from `io`'s source into its destination: one entry call (AAD, text, lengths
    /// and the tag, written straight into `tag`).
    #[inline(always)]
    fn seal_into(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>, tag: &mut [u8]) -> Result<()> {
        self.one_shot(false, nonce, aad, io, tag)
    }

    /// `open` into `io`'s destination: the expected tag computed with the decryption,
    /// compared in constant time; on a mismatch the destination is wiped (the source,
    /// when it is another buffer, is only read). A refused request (nonce, tag size,
    /// lengths) touches nothing. Inlined for the reason `one_shot` is.
    #[inline(always)]
    fn open_into(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>, tag: &[u8]) -> Result<()> {
        check_gcm_authsize(self.driver, tag.len())?;
        open_verified(tag, io, |io, mine| {
            self.one_shot(true, nonce, aad, io, mine)
        })
    }
}

/// J0 of a 12-byte nonce, or the IV-length error (the streaming `start`).
fn j0_of(nonce: &[u8]) -> Result<[u8; 16]> {
    let Some(j0) = gcm_j0(nonce) else {
        return Err(Error::InvalidIvLength {
            len: nonce.len(),
            expected: GCM_NONCE_LEN,
        });
    };
    Ok(j0)
}

impl AeadImpl for GcmVaes {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.powers.zeroize();
        // In place into the field (wiped first, and left wiped on error).
        expand_into(self.width.aesni(), self.driver, key, &mut self.keys)?;
        let mut h = [0u8; 16];
        // SAFETY: the width's token implies AES-NI.
        unsafe { encrypt_block_aesni(&self.keys.enc, self.keys.rounds, &mut h) };
        let mut k1 = h_times_x_inv(&h).to_le_bytes();
        // SAFETY: every width's token proves AVX2 and VPCLMULQDQ.
        unsafe { ghash_entry::ghash_powers_vpclmulqdq(&k1, &mut self.powers) };
        h.zeroize();
        k1.zeroize();
        Ok(())
    }

    fn check_authsize(&self, authsize: usize) -> Result<()> {
        check_gcm_authsize(self.driver, authsize)
    }

    fn start(&self, state: &mut AeadState, nonce: &[u8], lens: AeadLens) -> Result<()> {
        check_gcm_lens(&lens)?;
        let j0 = j0_of(nonce)?;
        *field(state, ACC) = [0; 16];
        *field(state, CTR) = u128::from_be_bytes(j0).wrapping_add(1).to_be_bytes();
        let ek = field(state, EKJ0);
        *ek = j0;
        // SAFETY: the width's token implies AES-NI.
        unsafe { encrypt_block_aesni(&self.keys.enc, self.keys.rounds, ek) };
        *field(state, LENS) = gcm_len_block(lens.aad as u64, lens.text as u64);
        Ok(())
    }

    fn absorb_aad(&self, state: &mut AeadState, aad: &[u8]) {
        self.ghash(state, aad);
    }

    fn absorb_aad_tail(&self, state: &mut AeadState, tail: &[u8]) {
        self.ghash(state, tail);
    }

    fn encrypt_chunks(&self, state: &mut AeadState, data: InOut<'_>) {
        self.crypt(false, state, data);
    }

    fn decrypt_chunks(&self, state: &mut AeadState, data: InOut<'_>) {
        self.crypt(true, state, data);
    }

    fn encrypt_tail(&self, state: &mut AeadState, data: InOut<'_>) {
        self.crypt(false, state, data);
    }

    fn decrypt_tail(&self, state: &mut AeadState, data: InOut<'_>) {
        self.crypt(true, state, data);
    }

    fn finish(&self, state: &mut AeadState, tag: &mut [u8]) {
        let lens: [u8; 16] = *field(state, LENS);
        self.ghash(state, &lens);
        let ek: [u8; 16] = *field(state, EKJ0);
        let acc = field(state, ACC);
        for ((t, a), e) in tag.iter_mut().zip(acc.iter()).zip(ek.iter()) {
            *t = a ^ e;
        }
    }

    // `seal`, `open`, `seal_to`, `open_to`: one entry call each, through `seal_into` /
    // `open_into`.
    crate::aead::one_shot::one_shot_methods!();
}
