//! Fused ChaCha20-Poly1305 (RFC 8439 section 2.8) on x86-64 vector units: three drivers of
//! `rfc7539(chacha20,poly1305)` that encrypt and authenticate in one pass over the data,
//! and the same three for `xchacha20poly1305` (`Alg`).
//!
//! | driver | priority | registers |
//! | --- | --- | --- |
//! | `rfc7539-chacha20-poly1305-avx2`, `xchacha20poly1305-avx2` | 450 | ymm, VEX: ChaCha20 8 blocks; Poly1305 one block at a time in general registers, beside the rounds (`ScalarLanes`) |
//! | `rfc7539-chacha20-poly1305-avx512`, `xchacha20poly1305-avx512` | 650 (`uses_zmm`) | zmm: ChaCha20 16 blocks, Poly1305 8 blocks at once |
//! | `rfc7539-chacha20-poly1305-avx512ifma`, `xchacha20poly1305-avx512ifma` | 660 (`uses_zmm`) | zmm as `-avx512`, Poly1305 in radix 2^44 on `vpmadd52luq/huq` |
//!
//! An `xchacha20poly1305` request (draft-irtf-cfrg-xchacha-03 §2: 24-byte nonce) is an
//! `rfc7539` one under the subkey HChaCha20(key, nonce[0..16]) (the portable rounds, as
//! the `xchacha20-*` drivers) with the nonce `0^4 || nonce[16..24]`: the same entries, so
//! the emulation and machine-code checks of the `rfc7539` drivers cover their vector code.
//! Its streaming state keeps the subkey where `rfc7539` keeps the powers of `r`, so its
//! streaming calls hand the entries no powers: a text call of 16 blocks or more computes
//! them itself (seven multiplies per call, as a one-shot encryption does), and AAD goes
//! through the scalar Poly1305 step. A short request pays for two ChaCha20 blocks one
//! after the other (the subkey, then the one-time key), each a 20-round dependency chain:
//! at 64 bytes about 280 MB/s against `rfc7539`'s 450 (`cryptoctl speed`, this project's
//! VM).
//!
//! A one-shot text of at most `MID_TEXT` (640) bytes to seal, or `MID_OPEN` (959) bytes to
//! open, runs the avx2 entries in the zmm drivers too (measured on Zen 4: the ymm whole
//! seal and whole open take the one-time key from their first batch from 448 bytes on,
//! the zmm ones only from 960, below which the zmm entries compute it alone first).
//! From 960 to 1216 bytes (`RADIX26_TEXTS`: the zmm first batch and a tail of one row)
//! the `-avx512ifma` drivers run `-avx512`'s entries, whose radix-2^26 Poly1305 measured
//! faster there.
//!
//! The text goes through in chunks of one ChaCha20 batch (512 or 1024 bytes): each chunk
//! is encrypted by the ChaCha20 SIMD core (`chacha20::simd`) and its ciphertext absorbed by
//! a Poly1305 vector core (`poly1305::simd`: radix 2^26, or radix 2^44 with AVX-512 IFMA,
//! about half the vector operations per block) while it is in L1, the Poly1305 lane sums
//! staying in registers across chunks. The two are stitched: a chunk's Poly1305 groups
//! run between the quarter rounds of a ChaCha20 batch (the next one when encrypting, the
//! chunk's own when decrypting, whose stores come after its rounds), so the multiply
//! chains' latency hides under the rounds (`fused` explains). `fused` is the generic
//! core, written once over the ChaCha20 vector type and the Poly1305 lane backend
//! (`poly1305::simd::lanes::PolyLanes`); `entry` instantiates it per width and backend.
//! The powers of `r` are kept in radix 2^26 in
//! every driver (the IFMA backend converts the few it uses per pass).
//!
//! Semantics are the `rfc7539` template's: 32-byte key, 12-byte nonce, 16-byte tag only
//! (any other authsize is [`Error::InvalidAuthsize`]); block 0 of the keystream gives the
//! one-time Poly1305 key, the text is encrypted from block 1, and a request whose text
//! would pass block 2^32 - 1 is [`Error::InvalidLength`] from `start` (or the one-shot
//! call) before any byte is written. Lengths pick the kernels inside each driver: short
//! inputs run the scalar Poly1305 step (no powers of `r` are computed for them) and
//! ChaCha20's narrower kernels.
//!
//! The one-shot [`AeadImpl::open`] (and `open_to`, which reads one buffer and writes
//! another with the same kernels) decrypts and authenticates in the same single pass,
//! then compares the tag in constant time; on a mismatch it wipes the whole output before
//! returning [`Error::BadMessage`], so no plaintext escapes; `open_to`'s source is only
//! read.
//!
//! Per-request setup is what a short request pays for, so it runs on the vector units
//! too: keystream block 0 (the one-time key) comes from the width's ChaCha20 entry, not
//! the portable block function. A one-shot text of at most 704 bytes on the zmm drivers,
//! 448 on `-avx2` (with AAD too short for the vector Poly1305 step), takes the short path:
//! the key block and the text's blocks from ONE entry call (1 to 12 blocks: one to five
//! horizontal rows side by side, or a vertical ymm batch), the key block into a stack
//! buffer and the text straight from source to destination, then the scalar Poly1305
//! step. An in-place `open` decrypts into a stack buffer instead and keeps the plaintext
//! there until the tag has matched, so the output only ever holds its old bytes (the
//! ciphertext), the plaintext or zeros; an `open_to` writes its output as the long path
//! does, wiped on a mismatch.
//! The streaming calls keep the per-request state (counter and nonce, the Poly1305 sum,
//! `r`, `s`, the lengths and the powers `r^1..r^8`) in the caller's [`AeadState`], wiped
//! on drop.
//!
//! The `raw` module (hidden from the docs) exposes the entries to the `cryptoreg-emu`
//! crate (`cargo xtask emu`, `cargo xtask asm`).

#![allow(unsafe_code)]

mod entry;
mod fused;

#[cfg(test)]
mod tests;

use cryptoreg_registry::{
    check_key_len, AeadImpl, AeadLens, AeadState, Error, HostFeatures, InOut, Result,
};
use zeroize::{Zeroize, Zeroizing};

use crate::chacha20::simd::raw::{KeyedFn, KEYED_MAX_TEXT_AVX2, KEYED_MAX_TEXT_AVX512F};
use crate::chacha20::simd::{write_state, write_state_iv};
use crate::chacha20::{
    check_counter_room, hchacha20_into, init_state, CHACHA_KEY_SIZE, CHACHA_NONCE_SIZE,
    XCHACHA_NONCE_SIZE,
};
use crate::chacha20poly1305::xchacha20poly1305::split_nonce;
use crate::poly1305::simd::scalar::{powers26, Acc, R64};
use crate::poly1305::{POLY1305_KEY_SIZE, POLY1305_TAG_SIZE};
use crate::templates::rfc7539::{check_chachapoly_authsize, tags_equal};
use crate::x86::inout::RawInOut;
use crate::x86::token::{Avx2, Avx512, Avx512Ifma};
use entry::{Powers, RLimbs};
use fused::MIN_VECTOR_BLOCKS;

/// The raw entry points, for the emulator crate (`emu/`) and the machine-code check. Not a
/// public API: the registry's drivers are.
#[doc(hidden)]
pub mod raw {
    pub use super::entry::*;

    /// The per-request values derived natively from key and nonce: the ChaCha20 state at
    /// block 1, `r` as `[r0, r1, s1]`, the powers `r^1..r^8`, `s`.
    pub fn setup(key: &[u8; 32], nonce: &[u8; 12]) -> ([u32; 16], RLimbs, Powers, [u8; 16]) {
        let (s, r, tag_s) = super::derive(key, nonce);
        (s, [r.r0, r.r1, r.s1], super::powers(&r), tag_s)
    }

    /// The shortest text of the avx2 whole-seal entry (`rfc7539_seal_avx2`).
    pub const SEAL_MIN_AVX2: usize =
        super::fused::keyed_min::<crate::x86::vector::Ymm<crate::x86::vector::Vex>>();
    /// The shortest text of the zmm whole-seal entries (`rfc7539_seal_avx512*`).
    pub const SEAL_MIN_ZMM: usize = super::fused::keyed_min::<crate::x86::vector::Zmm>();
    /// The text lengths of the avx2 whole-open entry (`rfc7539_open_avx2`).
    pub const OPEN_AVX2: core::ops::Range<usize> =
        super::fused::keyed_open_range::<crate::x86::vector::Ymm<crate::x86::vector::Vex>>();
    /// The text lengths of the zmm whole-open entries (`rfc7539_open_avx512*`).
    pub const OPEN_ZMM: core::ops::Range<usize> =
        super::fused::keyed_open_range::<crate::x86::vector::Zmm>();

    /// The tag from a Poly1305 sum after AAD and text: the length block, the reduction,
    /// `s`. `r` as [`setup`] gives it and `h` as an entry left it (its top limb at most 4,
    /// the scalar step's bound: another `h` gives a wrong tag, or a debug assertion).
    pub fn finish(r: &RLimbs, s: &[u8; 16], h: [u64; 3], aad: usize, text: usize) -> [u8; 16] {
        let mut r = super::entry::r64(r);
        let t = super::tag(&r, s, crate::poly1305::simd::scalar::Acc { h }, aad, text);
        zeroize::Zeroize::zeroize(&mut r);
        t
    }
}

/// Which entries a driver runs, with the token proving their features.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Width {
    /// `rfc7539-chacha20-poly1305-avx2`, `xchacha20poly1305-avx2`.
    Avx2(Avx2),
    /// `rfc7539-chacha20-poly1305-avx512`, `xchacha20poly1305-avx512`.
    Avx512(Avx512),
    /// `rfc7539-chacha20-poly1305-avx512ifma`, `xchacha20poly1305-avx512ifma`.
    Avx512Ifma(Avx512Ifma),
}

type CryptFn =
    unsafe fn(&mut [u32; 16], &RLimbs, Option<&Powers>, &mut [u64; 3], *const u8, *mut u8, usize);
type AadFn = unsafe fn(&RLimbs, Option<&Powers>, &mut [u64; 3], *const u8, usize);
type WholeFn = unsafe fn(
    &mut [u32; 16],
    &mut RLimbs,
    &mut [u8; 16],
    &mut [u64; 3],
    *const u8,
    usize,
    *const u8,
    *mut u8,
    usize,
);

/// The ChaCha20 keystream entry of a width (`chacha20::simd`): the avx2 driver's ymm
/// one, the avx512 driver's zmm one (whose short tails run on EVEX ymm / xmm).
type KeystreamFn = unsafe fn(&[u32; 16], *const u8, *mut u8, usize);

impl Width {
    /// The width's short-path ChaCha20 entry (`chacha20::simd`): the key block to a
    /// 64-byte buffer, the text's blocks from source to destination, in one kernel call.
    fn keyed(self) -> KeyedFn {
        match self {
            Width::Avx2(_) => crate::chacha20::simd::raw::chacha20_keyed_avx2,
            // The IFMA token's features include the avx512f entry's.
            Width::Avx512(_) | Width::Avx512Ifma(_) => {
                crate::chacha20::simd::raw::chacha20_keyed_avx512f
            }
        }
    }

    fn keystream(self) -> KeystreamFn {
        match self {
            Width::Avx2(_) => crate::chacha20::simd::raw::chacha20_avx2,
            // The IFMA token's features include the avx512f entry's.
            Width::Avx512(_) | Width::Avx512Ifma(_) => crate::chacha20::simd::raw::chacha20_avx512f,
        }
    }

    /// [`derive`] with this width's keystream entry: one horizontal block on xmm instead
    /// of the portable block function (about a quarter of the instructions).
    fn derive(self, key: &[u8; 32], nonce: &[u8; 12]) -> ([u32; 16], R64, [u8; 16]) {
        let mut s = state0(key, nonce);
        let mut block0 = [0u8; 64];
        let p = block0.as_mut_ptr();
        // SAFETY: the token in `self` proves the entry's features; 64 bytes at `p`,
        // read and written in place; block 0 always has counter room.
        unsafe { self.keystream()(&s, p, p, 64) };
        // Block 1 rewritten whole rather than `s[12] = 1`: the text's entry loads the row.
        write_state(&mut s, key, 1, nonce);
        let (r, tag_s) = one_time_key(&block0[..]);
        block0[..].zeroize();
        (s, r, tag_s)
    }

    /// The longest text this width's short path takes ([`is_short`]).
    fn short_text(self) -> usize {
        match self {
            Width::Avx2(_) => SHORT_TEXT_YMM,
            Width::Avx512(_) | Width::Avx512Ifma(_) => SHORT_TEXT,
        }
    }

    /// The width a one-shot request of `len` text bytes runs on: up to [`MID_TEXT`] a zmm
    /// driver runs the avx2 entries, whose whole seal takes the one-time key from a ymm
    /// batch (from 448 bytes on) where the zmm entries compute it first, alone, and whose
    /// Poly1305 runs in general registers beside the rounds.
    ///
    /// Opening, the bound is [`MID_OPEN`] instead: below it the avx2 whole-open entry
    /// takes the key from its first batch, the zmm ones could not.
    ///
    /// For [`RADIX26_TEXTS`], `-avx512ifma` runs `-avx512`'s entries (Poly1305 in radix
    /// 2^26), which measured faster there.
    fn one_shot_width(self, len: usize, encrypt: bool) -> Width {
        let mid = if encrypt { MID_TEXT } else { MID_OPEN };
        match self {
            Width::Avx512(t) if len <= mid => Width::Avx2(t.avx2()),
            Width::Avx512Ifma(t) if len <= mid => Width::Avx2(t.avx2()),
            Width::Avx512Ifma(t) if RADIX26_TEXTS.contains(&len) => Width::Avx512(t.avx512()),
            w => w,
        }
    }

    /// The whole-seal entry ([`fused::seal_keyed`]) and the shortest text it takes.
    fn seal_entry(self) -> (WholeFn, usize) {
        match self {
            Width::Avx2(_) => (entry::rfc7539_seal_avx2, raw::SEAL_MIN_AVX2),
            Width::Avx512(_) => (entry::rfc7539_seal_avx512, raw::SEAL_MIN_ZMM),
            Width::Avx512Ifma(_) => (entry::rfc7539_seal_avx512ifma, raw::SEAL_MIN_ZMM),
        }
    }

    /// The whole-open entry ([`fused::open_keyed`]) and the text lengths it takes.
    fn open_entry(self) -> (WholeFn, core::ops::Range<usize>) {
        match self {
            Width::Avx2(_) => (entry::rfc7539_open_avx2, raw::OPEN_AVX2),
            Width::Avx512(_) => (entry::rfc7539_open_avx512, raw::OPEN_ZMM),
            Width::Avx512Ifma(_) => (entry::rfc7539_open_avx512ifma, raw::OPEN_ZMM),
        }
    }

    fn entries(self) -> (CryptFn, CryptFn, AadFn) {
        match self {
            Width::Avx2(_) => (
                entry::rfc7539_enc_avx2,
                entry::rfc7539_dec_avx2,
                entry::rfc7539_aad_avx2,
            ),
            Width::Avx512(_) => (
                entry::rfc7539_enc_avx512,
                entry::rfc7539_dec_avx512,
                entry::rfc7539_aad_avx512,
            ),
            Width::Avx512Ifma(_) => (
                entry::rfc7539_enc_avx512ifma,
                entry::rfc7539_dec_avx512ifma,
                entry::rfc7539_aad_avx512ifma,
            ),
        }
    }
}

/// The ChaCha20 state of a request at block 0 (the one-time key's block), each row written
/// by one 16-byte store ([`write_state`] says why).
#[inline(always)]
fn state0(key: &[u8; 32], nonce: &[u8; 12]) -> [u32; 16] {
    let mut s = [0u32; 16];
    write_state(&mut s, key, 0, nonce);
    s
}

/// The clamped `r` and the `s` of the one-time Poly1305 key, from the first 32 bytes of
/// keystream block 0. Inlined, so that a `#[target_feature]` entry that calls it with a
/// fixed-size block keeps no bounds-check call (`cargo xtask asm`).
#[inline(always)]
fn one_time_key(block0: &[u8]) -> (R64, [u8; 16]) {
    let mut rb = [0u8; 16];
    rb.copy_from_slice(&block0[..16]);
    let r = R64::from_key(&rb);
    rb[..].zeroize();
    let mut tag_s = [0u8; 16];
    tag_s.copy_from_slice(&block0[16..POLY1305_KEY_SIZE]);
    (r, tag_s)
}

/// Block 0 of the keystream by the portable block function (the emulator's `raw::setup`,
/// which must not depend on the entries it checks): the ChaCha20 state positioned at
/// block 1, the clamped `r` and `s` of the one-time Poly1305 key.
fn derive(key: &[u8; 32], nonce: &[u8; 12]) -> ([u32; 16], R64, [u8; 16]) {
    let mut iv = [0u8; 16];
    iv[4..].copy_from_slice(nonce);
    let mut s = init_state(key, &iv);
    let mut block0 = crate::chacha20::chacha20_block(&s);
    s[12] = 1;
    let (r, tag_s) = one_time_key(&block0[..]);
    block0[..].zeroize();
    (s, r, tag_s)
}

/// `r^1..r^8` in radix 2^26.
fn powers(r: &R64) -> Powers {
    powers26::<8>(r)
}

/// The tag: the length block absorbed, `h` reduced, `s` added.
fn tag(r: &R64, s: &[u8; 16], mut acc: Acc, aad: usize, text: usize) -> [u8; 16] {
    let mut lens = [0u8; 16];
    lens[..8].copy_from_slice(&(aad as u64).to_le_bytes());
    lens[8..].copy_from_slice(&(text as u64).to_le_bytes());
    acc.blocks(r, &lens, 1);
    let t = acc.tag(s);
    acc.zeroize();
    t
}

/// Whether a request of these lengths is long enough for the vector Poly1305 path (and so
/// for the powers of `r`).
fn wants_powers(aad: usize, text: usize) -> bool {
    aad / 16 >= MIN_VECTOR_BLOCKS || text / 16 >= MIN_VECTOR_BLOCKS
}

/// Which algorithm a driver serves, that is how a request's nonce becomes the ChaCha20 key
/// and 12-byte nonce that the fused core runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Alg {
    /// `rfc7539(chacha20,poly1305)`: the driver's key and the caller's 12-byte nonce.
    Rfc7539,
    /// `xchacha20poly1305` (draft-irtf-cfrg-xchacha-03 §2): the subkey
    /// HChaCha20(key, nonce[0..16]) and the nonce `0^4 || nonce[16..24]`; after that,
    /// exactly an `rfc7539` request (block 0 the one-time key, text from block 1).
    XChaCha,
}

/// `rfc7539-chacha20-poly1305-{avx2,avx512,avx512ifma}` and
/// `xchacha20poly1305-{avx2,avx512,avx512ifma}`: the key (wiped on drop), the width and the
/// algorithm.
pub(crate) struct ChaChaPolySimd {
    driver: &'static str,
    width: Width,
    alg: Alg,
    key: Zeroizing<[u8; CHACHA_KEY_SIZE]>,
    keyed: bool,
}

/// A checked request's ChaCha20 key and 12-byte nonce ([`Alg`]): the driver's key, or the
/// subkey in the caller's wiped buffer ([`ChaChaPolySimd::check`]).
struct Request<'a> {
    key: &'a [u8; CHACHA_KEY_SIZE],
    nonce: [u8; CHACHA_NONCE_SIZE],
}

/// The buffer a request's subkey is derived into: the caller's, wiped on drop, so that
/// the subkey is never moved (a move leaves its old bytes behind). Every request makes
/// one (`rfc7539` leaves it empty), so the drop wipes it as a slice (`zeroize`'s bulk
/// fill: a couple of wide stores) where `Zeroizing<[u8; 32]>` would store byte by byte.
/// The per-request arrays below are wiped as slices for the same reason: on a 16-byte
/// seal the byte-wise wipes were about 150 stores, and the store buffer they filled held
/// back the next request (about 515 -> 480 cycles per 16-byte seal with slice wipes).
struct SubkeyBuf([u8; CHACHA_KEY_SIZE]);

impl Drop for SubkeyBuf {
    fn drop(&mut self) {
        self.0[..].zeroize();
    }
}

/// An empty [`SubkeyBuf`].
fn subkey_buf() -> SubkeyBuf {
    SubkeyBuf([0; CHACHA_KEY_SIZE])
}

// State layout (`AeadState::bytes`): the ChaCha20 counter and nonce, the Poly1305 sum, `r`,
// `s`, the request's lengths, the powers of `r` (as u32: every limb is below 2^27).
const IV: core::ops::Range<usize> = 0..16;
const LANE_H: usize = 2;
const LANE_R: usize = 5;
const S: core::ops::Range<usize> = 64..80;
const LANE_AAD: usize = 10;
const LANE_TEXT: usize = 11;
const POW: usize = 96;
/// `xchacha20poly1305` only: the request's subkey, where `rfc7539` keeps the powers (the
/// state has no room for both; handed no powers, the text entries compute them per call
/// and the AAD entry takes the scalar step).
const SUBKEY: core::ops::Range<usize> = POW..POW + CHACHA_KEY_SIZE;

impl ChaChaPolySimd {
    fn new(driver: &'static str, width: Width) -> ChaChaPolySimd {
        ChaChaPolySimd::with_alg(driver, width, Alg::Rfc7539)
    }

    fn with_alg(driver: &'static str, width: Width, alg: Alg) -> ChaChaPolySimd {
        ChaChaPolySimd {
            driver,
            width,
            alg,
            key: Zeroizing::new([0; CHACHA_KEY_SIZE]),
            keyed: false,
        }
    }

    /// The checks of a request before anything is derived or written, then its ChaCha20
    /// key and nonce ([`Alg`]); an `xchacha20poly1305` subkey is derived into `sub`.
    fn check<'a>(
        &'a self,
        nonce: &[u8],
        text: usize,
        authsize: usize,
        sub: &'a mut SubkeyBuf,
    ) -> Result<Request<'a>> {
        if !self.keyed {
            return Err(Error::NoKey);
        }
        let expected = match self.alg {
            Alg::Rfc7539 => CHACHA_NONCE_SIZE,
            Alg::XChaCha => XCHACHA_NONCE_SIZE,
        };
        if nonce.len() != expected {
            return Err(Error::InvalidIvLength {
                len: nonce.len(),
                expected,
            });
        }
        self.check_authsize(authsize)?;
        check_counter_room(1, text)?;
        let mut inner = [0u8; CHACHA_NONCE_SIZE];
        Ok(match self.alg {
            Alg::Rfc7539 => {
                inner.copy_from_slice(nonce);
                Request {
                    key: &self.key,
                    nonce: inner,
                }
            }
            Alg::XChaCha => {
                let mut n24 = [0u8; XCHACHA_NONCE_SIZE];
                n24.copy_from_slice(nonce);
                let (prefix, inner) = split_nonce(&n24);
                hchacha20_into(&self.key, &prefix, &mut sub.0);
                Request {
                    key: &sub.0,
                    nonce: inner,
                }
            }
        })
    }

    /// The streaming state's `r`, `s`, sum and (when stored) powers.
    fn load(st: &AeadState) -> (RLimbs, [u64; 3]) {
        (
            [st.lane(LANE_R), st.lane(LANE_R + 1), st.lane(LANE_R + 2)],
            [st.lane(LANE_H), st.lane(LANE_H + 1), st.lane(LANE_H + 2)],
        )
    }

    /// The powers `start` stored (`rfc7539`), or `None` (`xchacha20poly1305`, whose state
    /// holds the subkey there: the text entries then compute them, the AAD entry runs the
    /// scalar step).
    fn stored_powers(&self, st: &AeadState) -> Option<Zeroizing<Powers>> {
        (self.alg == Alg::Rfc7539).then(|| Self::load_powers(st))
    }

    fn load_powers(st: &AeadState) -> Zeroizing<Powers> {
        let mut p = Zeroizing::new([[0u64; 5]; 8]);
        for (k, limbs) in p.iter_mut().enumerate() {
            for (i, l) in limbs.iter_mut().enumerate() {
                let at = POW + 4 * (5 * k + i);
                let mut b = [0u8; 4];
                b.copy_from_slice(&st.bytes[at..at + 4]);
                *l = u64::from(u32::from_le_bytes(b));
            }
        }
        p
    }

    fn store_h(st: &mut AeadState, h: &[u64; 3]) {
        for (i, &l) in h.iter().enumerate() {
            st.set_lane(LANE_H + i, l);
        }
    }

    /// One streaming text call: the ChaCha20 state rebuilt from the key and the stored
    /// counter and nonce, the entry over `io`, the counter and sum stored back.
    fn crypt(&self, st: &mut AeadState, io: InOut<'_>, encrypt: bool) {
        let mut io = match io {
            InOut::InPlace(buf) => RawInOut::in_place(buf),
            InOut::Split { src, dst } => {
                let n = src.len().min(dst.len());
                RawInOut::split(&src[..n], &mut dst[..n])
            }
        };
        let len = io.len();
        if len == 0 {
            return;
        }
        let mut iv = [0u8; 16];
        iv.copy_from_slice(&st.bytes[IV]);
        let mut s = [0u32; 16];
        match self.alg {
            Alg::Rfc7539 => write_state_iv(&mut s, &self.key, &iv),
            Alg::XChaCha => {
                let mut sub = subkey_buf();
                sub.0.copy_from_slice(&st.bytes[SUBKEY]);
                write_state_iv(&mut s, &sub.0, &iv);
            }
        }
        let (r, mut h) = Self::load(st);
        let pow = (len / 16 >= MIN_VECTOR_BLOCKS)
            .then(|| self.stored_powers(st))
            .flatten();
        let (enc, dec, _) = self.width.entries();
        let f = if encrypt { enc } else { dec };
        let dst = io.dst();
        // SAFETY: the token in `self.width` proves the entry's features; `io` borrows
        // `len` bytes at `src` / `dst`, identical or disjoint; `start` checked the counter
        // room for the whole text.
        unsafe { f(&mut s, &r, pow.as_deref(), &mut h, io.src(), dst, len) };
        st.bytes[IV.start..IV.start + 4].copy_from_slice(&s[12].to_le_bytes());
        Self::store_h(st, &h);
        s[..].zeroize();
        h.zeroize();
    }

    fn aad(&self, st: &mut AeadState, aad: &[u8]) {
        if aad.is_empty() {
            return;
        }
        let (r, mut h) = Self::load(st);
        let pow = (aad.len() / 16 >= MIN_VECTOR_BLOCKS)
            .then(|| self.stored_powers(st))
            .flatten();
        let (_, _, f) = self.width.entries();
        // SAFETY: the token in `self.width` proves the entry's features; `aad` is readable.
        unsafe { f(&r, pow.as_deref(), &mut h, aad.as_ptr(), aad.len()) };
        Self::store_h(st, &h);
        h.zeroize();
    }

    /// The whole one-shot request from `io`'s source into its destination (one buffer in
    /// place): derive, AAD, one fused pass, tag. `nonce` and the lengths passed
    /// [`check`](Self::check).
    fn one_shot(&self, req: &Request<'_>, aad: &[u8], io: InOut<'_>, encrypt: bool) -> [u8; 16] {
        let (key, nonce) = (req.key, &req.nonce);
        let mut io = RawInOut::from_inout(io);
        let (len, src, dst) = (io.len(), io.src(), io.dst());
        let width = self.width.one_shot_width(len, encrypt);
        let (seal, keyed_min) = width.seal_entry();
        let (open, open_lens) = width.open_entry();
        let keyed = if encrypt {
            (len >= keyed_min).then_some(seal)
        } else {
            open_lens.contains(&len).then_some(open)
        };
        if let Some(whole) = keyed {
            // The key from the first batch (`fused::seal_keyed`, `fused::open_keyed`).
            let mut s = state0(key, nonce);
            let (mut rl, mut tag_s, mut h) = ([0u64; 3], [0u8; 16], [0u64; 3]);
            // SAFETY: the token in `width` (`self.width`'s or one it implies) proves the
            // entry's features; `aad` is readable; `io` holds `len` readable bytes at
            // `src` and writable at `dst` (one buffer, or two that do not overlap), a
            // length the entry takes; the counter room was checked; `s` is at block 0.
            unsafe {
                whole(
                    &mut s,
                    &mut rl,
                    &mut tag_s,
                    &mut h,
                    aad.as_ptr(),
                    aad.len(),
                    src,
                    dst,
                    len,
                )
            };
            let t = raw::finish(&rl, &tag_s, h, aad.len(), len);
            s[..].zeroize();
            rl.zeroize();
            h.zeroize();
            tag_s[..].zeroize();
            return t;
        }
        let (mut s, r, tag_s) = width.derive(key, nonce);
        // Only a long AAD needs the powers before the text: the text's entry computes
        // them itself, an encryption's during its first ChaCha20 batch (`fused`).
        let pow = wants_powers(aad.len(), 0).then(|| Zeroizing::new(powers(&r)));
        let rl = [r.r0, r.r1, r.s1];
        let mut h = [0u64; 3];
        let (enc, dec, absorb) = width.entries();
        let f = if encrypt { enc } else { dec };
        // SAFETY: the token in `width` proves the entries' features; `aad` is
        // readable; `io` holds `len` readable bytes at `src` and writable at `dst` (one
        // buffer, or two that do not overlap); the counter room was checked.
        unsafe {
            if !aad.is_empty() {
                absorb(&rl, pow.as_deref(), &mut h, aad.as_ptr(), aad.len());
            }
            f(&mut s, &rl, pow.as_deref(), &mut h, src, dst, len);
        }
        let t = tag(&r, &tag_s, Acc { h }, aad.len(), len);
        s[..].zeroize();
        t
    }

    /// A short request ([`is_short`]) straight between the caller's buffers: keystream
    /// block 0 (the one-time key) into a stack buffer and the text's blocks from `io`'s
    /// source into its destination in one call of the width's keyed entry, the scalar
    /// Poly1305 step over the AAD and the ciphertext (the destination when encrypting, the
    /// source when decrypting, which must then be another buffer: an in-place open
    /// decrypts into a stack buffer, `open_into`), and the tag.
    fn short(&self, req: &Request<'_>, aad: &[u8], io: InOut<'_>, encrypt: bool) -> [u8; 16] {
        debug_assert!(encrypt || matches!(io, InOut::Split { .. }));
        let mut raw = RawInOut::from_inout(io);
        // SAFETY: `raw` holds `len` readable bytes at `src` and writable (initialized) at
        // `dst`, one buffer or two that do not overlap, borrowed for this call; `len <=
        // self.width.short_text()` (`is_short`, the callers' test); decrypting, the two
        // are distinct buffers (asserted above: the callers' contract).
        unsafe { self.short_raw(req, aad, raw.src(), raw.dst(), raw.len(), encrypt) }
    }

    /// [`short`](Self::short) over raw pointers, for a destination that may be
    /// uninitialized stack memory (the in-place open's plaintext buffer): the entry writes
    /// all `len` bytes at `dst` before anything reads them.
    ///
    /// # Safety
    /// `src` readable for `len <= self.width.short_text()` bytes and `dst` writable for as
    /// many, the same pointer (encrypting only) or not overlapping; the counter room was
    /// checked.
    unsafe fn short_raw(
        &self,
        req: &Request<'_>,
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        encrypt: bool,
    ) -> [u8; 16] {
        let mut s = state0(req.key, &req.nonce);
        let mut key = [0u8; 64];
        // SAFETY: the token in `self.width` proves the entry's features; `key` is 64
        // writable bytes of this frame; `len` bytes at `src` / `dst` per this function's
        // contract, neither overlapping `key`, a length the entry takes (`SHORT_TEXT`,
        // `SHORT_TEXT_YMM` are checked against it below); the counter room (blocks
        // 0..=text's) was checked.
        unsafe { self.width.keyed()(&s, key.as_mut_ptr(), src, dst, len) };
        s[..].zeroize();
        let (r, tag_s) = one_time_key(&key[..32]);
        key[..].zeroize();
        let mut acc = Acc::default();
        absorb_padded(&mut acc, &r, aad);
        let ct = if encrypt { dst.cast_const() } else { src };
        // SAFETY: `len` readable bytes at `ct` (this function's contract), all written by
        // now when they are the destination's; nothing writes them while the slice lives.
        absorb_padded(&mut acc, &r, unsafe {
            core::slice::from_raw_parts(ct, len)
        });
        tag(&r, &tag_s, acc, aad.len(), len)
    }
}

/// The longest text of the zmm drivers' short path: key block and text together fill at
/// most the twelve blocks of three horizontal zmm rows side by side (the ChaCha20 core's
/// 9-to-12 block kernel; one state's rounds are one dependency chain, so a third row costs
/// little more time than two). Measured on Zen 4 with `cryptoctl speed` and 13 bytes of
/// AAD, three alternating runs of a build with this limit at 512 and one at 704, MB/s,
/// `-avx512ifma` at 576 / 640 / 704 bytes: seal 1346-1353 / 1378-1397 / 1288-1344 ->
/// 1404-1405 / 1487-1491 / 1563, open 1240-1308 / 1320-1380 / 1431-1448 -> 1327-1334 /
/// 1414-1421 / 1486-1498; and a build at 448 against one at 512: 480 / 512 bytes seal
/// 1214-1230 / 1260-1276 -> 1290-1301 / 1333-1344, open 1064-1078 / 1220-1236 ->
/// 1215-1233 / 1260-1271. (Earlier, against the entries before the whole seal and open,
/// three rows had gained nothing measurable; the limit was 448.)
const SHORT_TEXT: usize = 704;

/// The longest text of the avx2 driver's short path: key block and text fill at most one
/// vertical ymm batch of eight blocks. Measured with `cryptoctl speed` and 13 bytes of AAD,
/// seal, MB/s at 256 / 448 bytes, three alternating runs of a build with this limit at 192
/// and one at 448: 284–394 / 579–763 -> 536–609 / 849–884. At 512 (nine blocks) it
/// measured about 10% slower than the whole seal (1134-1150 against 1262-1276 MB/s).
const SHORT_TEXT_YMM: usize = 448;

// `short`'s keyed entries take these texts.
const _: () = assert!(
    SHORT_TEXT.is_multiple_of(64)
        && SHORT_TEXT_YMM.is_multiple_of(64)
        && SHORT_TEXT <= KEYED_MAX_TEXT_AVX512F
        && SHORT_TEXT_YMM <= KEYED_MAX_TEXT_AVX2
);

/// The longest one-shot text for which the zmm drivers run the avx2 entries
/// ([`Width::one_shot_width`]). Measured on Zen 4 (`cryptoctl speed`, 13 bytes of AAD, three
/// alternating runs, MB/s, `-avx512ifma` on its own entries -> on the avx2 ones): seal at
/// 512 / 640 / 768 / 896 bytes 1096-1148 -> 1238-1258, 1302-1326 -> 1295-1306, 1408-1527 ->
/// 1417-1447, 1543-1688 -> 1540-1573; open 1003-1022 -> 1209-1335, 1118-1175 -> 1242-1286,
/// 1361-1372 -> 1195-1234, 1490-1513 -> 1272-1361. From 768 bytes on the zmm rows win.
/// (Measured before the zmm short path reached 704 bytes: with AAD shorter than 256 bytes
/// texts up to 704 now take the short path, so this bound and [`MID_OPEN`] below 705 bytes
/// apply to requests with a long AAD only.)
const MID_TEXT: usize = 640;

/// The longest one-shot text that the zmm drivers open with the avx2 entries: one below
/// the shortest text of the zmm whole-open entry (`raw::OPEN_ZMM`), which takes the
/// one-time key from its first batch; the avx2 one does so from 448 bytes. Measured on Zen
/// 4 (`cryptoctl speed`, 13 bytes of AAD, open, three runs, MB/s, `-avx512ifma` on its own
/// entries against `-avx2`): 641 / 768 / 896 / 959 bytes 1088-1092 / 1301-1314 / 1458-1463
/// / 1487-1506 against 1341-1377 / 1505-1521 / 1637-1653 / 1631-1709; at 960 the zmm
/// whole open wins, 1823-1848 against 1577-1639.
const MID_OPEN: usize = raw::OPEN_ZMM.start - 1;

/// The one-shot texts for which the `-avx512ifma` drivers (`rfc7539-chacha20-poly1305-`
/// and `xchacha20poly1305-avx512ifma`, one code path) run the radix-2^26 entries of
/// `-avx512` instead of their own ([`Width::one_shot_width`]): the zmm whole seal or
/// open's first batch (`raw::SEAL_MIN_ZMM`, 960 bytes) and a tail of at most four blocks,
/// one horizontal row, whose single dependency chain the Poly1305 groups queued from the
/// first batch run beside. There the IFMA lanes measured slower on Zen 4 (`cryptoctl speed
/// 'rfc7539(chacha20,poly1305)' --driver rfc7539-chacha20-poly1305-avx512ifma --aad 13`,
/// seven alternating runs of a build without and one with this bound, best three MB/s):
/// seal at 1024 / 1088 / 1152 / 1216 bytes 1789-1810 / 1830-1857 / 1909-1937 / 1952-1988
/// -> 1924-1936 / 2003-2021 / 2070-2092 / 2127-2140, open 1786-1797 / 1838-1847 /
/// 1940-1956 / 1989-1992 -> 1916-1956 / 1995-2001 / 2078-2081 / 2126-2134; at 960 seal
/// level (1897-1920 against 1901-1910), open 1831-1839 -> 1887-1889. With the bound at
/// 1344, the five-block tails of 1217 / 1248 bytes measured level and 1280 bytes 2-3%
/// slower on the radix-2^26 entries, so it stops at 1216. (Below 960 a seal keeps its own
/// entries, an open the avx2 ones: [`MID_OPEN`].) Measured for `rfc7539` only; the
/// `xchacha20poly1305` requests run the same entries after their subkey. Not gated by
/// vendor: on the Intel (Emerald Rapids) VM the two `rfc7539` drivers sealed 1024 bytes
/// level (`cargo xtask peers --suite chacha`, 2133 against 2120 MB/s, the README's table,
/// measured before this bound, when `-avx512ifma` ran its own entries there).
const RADIX26_TEXTS: core::ops::RangeInclusive<usize> =
    raw::SEAL_MIN_ZMM..=raw::SEAL_MIN_ZMM + 4 * 64;

// The in-place open's buffer holds any short text.
const _: () = assert!(SHORT_TEXT_YMM <= SHORT_TEXT);

/// Whether a request takes the short path: a text of at most [`Width::short_text`] bytes (its
/// Poly1305 is the scalar step whatever its length) and AAD too short for the vector
/// Poly1305 step (which the short path does not run).
fn is_short(width: Width, aad: usize, text: usize) -> bool {
    text <= width.short_text() && !wants_powers(aad, 0)
}

/// Absorbs `data` into `acc` with the scalar step, the last partial block zero-padded
/// (RFC 8439 `pad16`).
fn absorb_padded(acc: &mut Acc, r: &R64, data: &[u8]) {
    let whole = data.len() - data.len() % 16;
    acc.blocks(r, &data[..whole], 1);
    acc.padded_block(r, &data[whole..]);
}

impl AeadImpl for ChaChaPolySimd {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.keyed = false;
        self.key.zeroize();
        check_key_len(self.driver, key, &[CHACHA_KEY_SIZE])?;
        self.key.copy_from_slice(key);
        self.keyed = true;
        Ok(())
    }

    fn check_authsize(&self, authsize: usize) -> Result<()> {
        check_chachapoly_authsize(self.driver, authsize)
    }

    fn chunk_size(&self) -> usize {
        64
    }

    fn aad_chunk_size(&self) -> usize {
        16
    }

    fn start(&self, st: &mut AeadState, nonce: &[u8], lens: AeadLens) -> Result<()> {
        let mut sub = subkey_buf();
        let req = self.check(nonce, lens.text, lens.authsize, &mut sub)?;
        let (mut s, r, tag_s) = self.width.derive(req.key, &req.nonce);
        st.bytes[IV.start..IV.start + 4].copy_from_slice(&s[12].to_le_bytes());
        st.bytes[IV.start + 4..IV.end].copy_from_slice(&req.nonce);
        Self::store_h(st, &[0; 3]);
        for (i, l) in [r.r0, r.r1, r.s1].into_iter().enumerate() {
            st.set_lane(LANE_R + i, l);
        }
        st.bytes[S].copy_from_slice(&tag_s);
        st.set_lane(LANE_AAD, lens.aad as u64);
        st.set_lane(LANE_TEXT, lens.text as u64);
        if self.alg == Alg::XChaCha {
            st.bytes[SUBKEY].copy_from_slice(req.key);
            s.zeroize();
            return Ok(());
        }
        let mut pow = Zeroizing::new(if wants_powers(lens.aad, lens.text) {
            powers(&r)
        } else {
            [[0; 5]; 8]
        });
        for (k, limbs) in pow.iter().enumerate() {
            for (i, &l) in limbs.iter().enumerate() {
                let at = POW + 4 * (5 * k + i);
                st.bytes[at..at + 4].copy_from_slice(&(l as u32).to_le_bytes());
            }
        }
        pow.zeroize();
        s.zeroize();
        Ok(())
    }

    fn absorb_aad(&self, st: &mut AeadState, aad: &[u8]) {
        self.aad(st, aad);
    }

    fn absorb_aad_tail(&self, st: &mut AeadState, tail: &[u8]) {
        self.aad(st, tail);
    }

    fn encrypt_chunks(&self, st: &mut AeadState, data: InOut<'_>) {
        self.crypt(st, data, true);
    }

    fn decrypt_chunks(&self, st: &mut AeadState, data: InOut<'_>) {
        self.crypt(st, data, false);
    }

    fn encrypt_tail(&self, st: &mut AeadState, data: InOut<'_>) {
        self.crypt(st, data, true);
    }

    fn decrypt_tail(&self, st: &mut AeadState, data: InOut<'_>) {
        self.crypt(st, data, false);
    }

    fn finish(&self, st: &mut AeadState, out: &mut [u8]) {
        let (r, h) = Self::load(st);
        let r = R64 {
            r0: r[0],
            r1: r[1],
            s1: r[2],
        };
        let mut s = [0u8; 16];
        s.copy_from_slice(&st.bytes[S]);
        let mut t = tag(
            &r,
            &s,
            Acc { h },
            st.lane(LANE_AAD) as usize,
            st.lane(LANE_TEXT) as usize,
        );
        let n = out.len().min(16);
        out[..n].copy_from_slice(&t[..n]);
        t.zeroize();
        s.zeroize();
    }

    // `seal`, `open`, `seal_to`, `open_to`: through `seal_into` / `open_into`.
    crate::aead::one_shot::one_shot_methods!();
}

impl ChaChaPolySimd {
    /// `seal` from `io`'s source into its destination (in place: one buffer): one fused
    /// pass over the request (no streaming state); short requests take the short path
    /// (module docs).
    #[inline(always)]
    fn seal_into(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>, tag: &mut [u8]) -> Result<()> {
        self.check_authsize(tag.len())?;
        let len = io.len();
        let mut sub = subkey_buf();
        let req = self.check(nonce, len, POLY1305_TAG_SIZE, &mut sub)?;
        let mut t = if is_short(self.width, aad.len(), len) {
            self.short(&req, aad, io, true)
        } else {
            self.one_shot(&req, aad, io, true)
        };
        tag.copy_from_slice(&t);
        t[..].zeroize();
        Ok(())
    }

    /// `open` from `io`'s source into its destination: one fused pass (authenticate and
    /// decrypt each chunk; short requests: the short path, plaintext copied out only
    /// after the check), then the tag compared in constant time; on a mismatch the
    /// destination is wiped before the error returns (the source, when it is another
    /// buffer, is only read). A refused request (bad nonce, authsize or length) touches
    /// nothing.
    #[inline(always)]
    fn open_into(&self, nonce: &[u8], aad: &[u8], mut io: InOut<'_>, tag: &[u8]) -> Result<()> {
        self.check_authsize(tag.len())?;
        let len = io.len();
        let mut sub = subkey_buf();
        let req = self.check(nonce, len, POLY1305_TAG_SIZE, &mut sub)?;
        let short = is_short(self.width, aad.len(), len);
        let ok = if short && matches!(io, InOut::Split { .. }) {
            let mut t = self.short(&req, aad, io.reborrow(), false);
            let ok = tags_equal(&t, tag);
            t[..].zeroize();
            ok
        } else if short {
            // In place: decrypted into a stack buffer (never initialized: the entry writes
            // every byte the slice below covers), copied out only if the tag matches, and
            // wiped there.
            let mut buf = core::mem::MaybeUninit::<[u8; SHORT_TEXT]>::uninit();
            let p = buf.as_mut_ptr().cast::<u8>();
            let text = io.input();
            // SAFETY: `text` is `len <= self.width.short_text() <= SHORT_TEXT` readable
            // bytes; `p` is `SHORT_TEXT` writable bytes of this frame, not overlapping it.
            let mut t = unsafe { self.short_raw(&req, aad, text.as_ptr(), p, len, false) };
            // SAFETY: the entry wrote all `len` bytes at `p`; only this slice refers to them.
            let plain = unsafe { core::slice::from_raw_parts_mut(p, len) };
            let ok = tags_equal(&t, tag);
            t[..].zeroize();
            if ok {
                io.output().copy_from_slice(plain);
            }
            plain.zeroize();
            ok
        } else {
            let mut t = self.one_shot(&req, aad, io.reborrow(), false);
            let ok = tags_equal(&t, tag);
            t[..].zeroize();
            ok
        };
        if ok {
            Ok(())
        } else {
            io.output().zeroize();
            Err(Error::BadMessage)
        }
    }
}

// Constructors only: the records are in `crate::records::x86_64`.
crate::x86::width_ctors! {
    AeadImpl:
    new_avx2 = "rfc7539-chacha20-poly1305-avx2", Avx2(Avx2), ChaChaPolySimd;
    new_avx512 = "rfc7539-chacha20-poly1305-avx512", Avx512(Avx512), ChaChaPolySimd;
    new_avx512ifma = "rfc7539-chacha20-poly1305-avx512ifma", Avx512Ifma(Avx512Ifma), ChaChaPolySimd;
}

/// `xchacha20poly1305-{avx2,avx512,avx512ifma}`: the same entries and widths as the
/// `rfc7539` drivers above, with [`Alg::XChaCha`] (the subkey and inner nonce per request).
/// The records are in `crate::records::x86_64`.
fn xchacha(driver: &'static str, width: Result<Width>) -> Result<Box<dyn AeadImpl>> {
    Ok(Box::new(ChaChaPolySimd::with_alg(
        driver,
        width?,
        Alg::XChaCha,
    )))
}

/// Builds `xchacha20poly1305-avx2`, or refuses without its features.
pub(crate) fn new_xchacha_avx2(host: &HostFeatures) -> Result<Box<dyn AeadImpl>> {
    const D: &str = "xchacha20poly1305-avx2";
    xchacha(D, Avx2::new(host, D).map(Width::Avx2))
}

/// Builds `xchacha20poly1305-avx512`, or refuses without its features.
pub(crate) fn new_xchacha_avx512(host: &HostFeatures) -> Result<Box<dyn AeadImpl>> {
    const D: &str = "xchacha20poly1305-avx512";
    xchacha(D, Avx512::new(host, D).map(Width::Avx512))
}

/// Builds `xchacha20poly1305-avx512ifma`, or refuses without its features.
pub(crate) fn new_xchacha_avx512ifma(host: &HostFeatures) -> Result<Box<dyn AeadImpl>> {
    const D: &str = "xchacha20poly1305-avx512ifma";
    xchacha(D, Avx512Ifma::new(host, D).map(Width::Avx512Ifma))
}
