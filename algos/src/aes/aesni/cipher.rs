//! The AES-NI round primitives every driver in this folder shares, and the `aes-aesni`
//! block cipher.
//!
//! The helpers are `#[inline(always)]` and carry no `target_feature` of their own: they are
//! only ever inlined into the `#[target_feature(enable = "aes,sse2")]` entry functions of
//! the drivers, which is where the instructions get their encoding. Calling them from
//! anywhere else would be a bug; they are `pub(crate)` to this folder's drivers only.
//!
//! Eight blocks are kept in flight because `AESENC` has a latency of about four cycles
//! with a throughput of one or two per cycle on current cores: independent blocks fill
//! the pipeline.
//!
//! The mode kernels read a source and write a destination through
//! [`RawInOut`] (bounds-checked block loads and stores), so an out-of-place request is
//! one pass over memory; in place is the same buffer for both.

use core::arch::x86_64::{
    __m128i, _mm_aesdec_si128, _mm_aesdeclast_si128, _mm_aesenc_si128, _mm_aesenclast_si128,
    _mm_loadu_si128, _mm_storeu_si128, _mm_xor_si128,
};

use crate::x86::inout::RawInOut;
use crate::x86::token::AesNi;
use cryptoreg_registry::{BlockCipherImpl, HostFeatures, Result};

pub(crate) use crate::aes::x86::iv16;
use crate::aes::x86::key_schedule::{expand_into, AesRoundKeys};

/// Blocks in flight in the wide loops.
pub(crate) const LANES: usize = 8;

/// Bytes per wide iteration.
pub(crate) const WIDE: usize = LANES * 16;

/// Loads 16 bytes from the start of `src` (which must hold at least 16).
#[inline(always)]
pub(crate) fn load(src: &[u8]) -> __m128i {
    let src: &[u8; 16] = src[..16].try_into().expect("16 bytes");
    // SAFETY: `src` is 16 readable bytes and `loadu` has no alignment requirement; SSE2
    // is part of the x86_64 baseline.
    unsafe { _mm_loadu_si128(src.as_ptr().cast::<__m128i>()) }
}

/// Stores 16 bytes at the start of `dst` (which must hold at least 16).
#[inline(always)]
pub(crate) fn store(dst: &mut [u8], v: __m128i) {
    let dst: &mut [u8; 16] = (&mut dst[..16]).try_into().expect("16 bytes");
    // SAFETY: `dst` is 16 writable bytes and `storeu` has no alignment requirement; SSE2
    // is part of the x86_64 baseline.
    unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast::<__m128i>(), v) }
}

/// XOR of two blocks.
#[inline(always)]
pub(crate) fn xor(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: SSE2 is part of the x86_64 baseline; registers only.
    unsafe { _mm_xor_si128(a, b) }
}

/// A view of a key schedule for one direction: the round keys stay where the driver keeps
/// them and each round loads its key (a load the AES rounds hide; the 8-block loops load
/// each key once for all eight blocks).
///
/// A view rather than a copy: a copy of the 240 bytes into a stack array was a `memcpy`
/// call per request (which the emulator, running the GCM entries, cannot follow) and a
/// copy of key material on the stack that nothing wiped. The schedules the drivers own
/// ([`AesRoundKeys`]) are expanded in place and wiped on re-key and on drop.
#[derive(Clone, Copy)]
pub(crate) struct Keys<'a> {
    k: &'a [[u8; 16]; 15],
    /// 10 ..= 14 (clamped when made), so no round-key index can leave the array.
    rounds: usize,
}

impl<'a> Keys<'a> {
    /// The encryption schedule.
    ///
    /// # Safety
    /// The CPU must have AES-NI: a `Keys` is the proof the safe round functions below
    /// rely on, so it is only ever made where that is known (the `#[target_feature]`
    /// kernels, whose callers hold an [`AesNi`](crate::x86::token::AesNi) token).
    #[inline(always)]
    pub(crate) unsafe fn enc(ks: &'a AesRoundKeys) -> Keys<'a> {
        // SAFETY: the caller's contract.
        unsafe { Keys::enc_bytes(&ks.enc, ks.rounds) }
    }

    /// The encryption schedule from its bytes and round count (clamped to 10 ..= 14, so
    /// that no index can leave the array: the entries that use this must not panic).
    ///
    /// # Safety
    /// As [`Keys::enc`].
    #[inline(always)]
    pub(crate) unsafe fn enc_bytes(enc: &'a [[u8; 16]; 15], rounds: usize) -> Keys<'a> {
        Keys {
            k: enc,
            rounds: rounds.clamp(10, 14),
        }
    }

    /// The `AESDEC` schedule (equivalent inverse cipher).
    ///
    /// # Safety
    /// As [`Keys::enc`].
    #[inline(always)]
    pub(crate) unsafe fn dec(ks: &'a AesRoundKeys) -> Keys<'a> {
        Keys {
            k: &ks.dec,
            rounds: ks.rounds.clamp(10, 14),
        }
    }

    /// Round key `i` (`i <= rounds`).
    #[inline(always)]
    fn rk(&self, i: usize) -> __m128i {
        load(&self.k[i])
    }

    /// Encrypts one block.
    #[inline(always)]
    pub(crate) fn encrypt1(&self, b: __m128i) -> __m128i {
        let mut b = xor(b, self.rk(0));
        // SAFETY: `self` exists, so AES-NI is present: a `Keys` is only made by the unsafe
        // `Keys::enc`/`Keys::dec`, inside kernels whose callers hold an `AesNi` token.
        unsafe {
            for k in &self.k[1..self.rounds] {
                b = _mm_aesenc_si128(b, load(k));
            }
            _mm_aesenclast_si128(b, self.rk(self.rounds))
        }
    }

    /// Decrypts one block.
    #[inline(always)]
    pub(crate) fn decrypt1(&self, b: __m128i) -> __m128i {
        let mut b = xor(b, self.rk(0));
        // SAFETY: as in `encrypt1`: a `Keys` proves AES-NI.
        unsafe {
            for k in &self.k[1..self.rounds] {
                b = _mm_aesdec_si128(b, load(k));
            }
            _mm_aesdeclast_si128(b, self.rk(self.rounds))
        }
    }

    /// Encrypts [`LANES`] independent blocks, interleaved round by round.
    #[inline(always)]
    pub(crate) fn encrypt8(&self, mut b: [__m128i; LANES]) -> [__m128i; LANES] {
        for x in &mut b {
            *x = xor(*x, self.rk(0));
        }
        // SAFETY: as in `encrypt1`: a `Keys` proves AES-NI.
        unsafe {
            for k in &self.k[1..self.rounds] {
                let k = load(k);
                for x in &mut b {
                    *x = _mm_aesenc_si128(*x, k);
                }
            }
            for x in &mut b {
                *x = _mm_aesenclast_si128(*x, self.rk(self.rounds));
            }
        }
        b
    }

    /// Encrypts [`LANES`] independent blocks as [`encrypt8`](Self::encrypt8), calling
    /// `between(r)` after each middle round `r` (`1..rounds`, so at least 1 ..= 9): the
    /// hook where a stitched kernel issues independent work (GCM's GHASH multiplies) to
    /// fill the AES pipeline's latency.
    #[inline(always)]
    pub(crate) fn encrypt8_with(
        &self,
        mut b: [__m128i; LANES],
        mut between: impl FnMut(usize),
    ) -> [__m128i; LANES] {
        for x in &mut b {
            *x = xor(*x, self.rk(0));
        }
        for r in 1..self.rounds {
            let k = self.rk(r);
            // SAFETY: as in `encrypt1`: a `Keys` proves AES-NI.
            unsafe {
                for x in &mut b {
                    *x = _mm_aesenc_si128(*x, k);
                }
            }
            between(r);
        }
        // SAFETY: as in `encrypt1`: a `Keys` proves AES-NI.
        unsafe {
            for x in &mut b {
                *x = _mm_aesenclast_si128(*x, self.rk(self.rounds));
            }
        }
        b
    }

    /// Decrypts [`LANES`] independent blocks, interleaved round by round.
    #[inline(always)]
    pub(crate) fn decrypt8(&self, mut b: [__m128i; LANES]) -> [__m128i; LANES] {
        for x in &mut b {
            *x = xor(*x, self.rk(0));
        }
        // SAFETY: as in `encrypt1`: a `Keys` proves AES-NI.
        unsafe {
            for k in &self.k[1..self.rounds] {
                let k = load(k);
                for x in &mut b {
                    *x = _mm_aesdec_si128(*x, k);
                }
            }
            for x in &mut b {
                *x = _mm_aesdeclast_si128(*x, self.rk(self.rounds));
            }
        }
        b
    }
}

/// Loads the [`LANES`] input blocks of the [`WIDE`]-byte chunk at `off`.
#[inline(always)]
pub(crate) fn load8(io: &RawInOut<'_>, off: usize) -> [__m128i; LANES] {
    io.load_blocks(off)
}

/// Stores [`LANES`] output blocks into the [`WIDE`]-byte chunk at `off`.
#[inline(always)]
pub(crate) fn store8(io: &mut RawInOut<'_>, off: usize, b: &[__m128i; LANES]) {
    io.store_blocks(off, b);
}

/// ECB over whole blocks (a trailing partial block is left alone), eight at a time:
/// shared by `aes-aesni` and `ecb-aes-aesni`.
///
/// # Safety
/// The CPU must support AES-NI (and SSE2).
#[target_feature(enable = "aes,sse2")]
pub(crate) unsafe fn ecb_encrypt(ks: &AesRoundKeys, mut io: RawInOut<'_>) {
    // SAFETY: this kernel is only called with AES-NI present (its own contract).
    let keys = unsafe { Keys::enc(ks) };
    let (len, mut off) = (io.len(), 0);
    while len - off >= WIDE {
        let b = keys.encrypt8(load8(&io, off));
        store8(&mut io, off, &b);
        off += WIDE;
    }
    while len - off >= 16 {
        io.store(off, keys.encrypt1(io.load(off)));
        off += 16;
    }
}

/// ECB decryption over whole blocks, eight at a time.
///
/// # Safety
/// The CPU must support AES-NI (and SSE2).
#[target_feature(enable = "aes,sse2")]
pub(crate) unsafe fn ecb_decrypt(ks: &AesRoundKeys, mut io: RawInOut<'_>) {
    // SAFETY: this kernel is only called with AES-NI present (its own contract).
    let keys = unsafe { Keys::dec(ks) };
    let (len, mut off) = (io.len(), 0);
    while len - off >= WIDE {
        let b = keys.decrypt8(load8(&io, off));
        store8(&mut io, off, &b);
        off += WIDE;
    }
    while len - off >= 16 {
        io.store(off, keys.decrypt1(io.load(off)));
        off += 16;
    }
}

const DRIVER: &str = "aes-aesni";

/// `aes-aesni`: the single-block cipher on AES-NI, for templates that wrap `aes`.
pub(crate) struct AesAesni {
    /// Proves AES-NI on this CPU: what makes the `unsafe` entry calls sound.
    _token: AesNi,
    keys: AesRoundKeys,
}

impl BlockCipherImpl for AesAesni {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        // In place into the field (wiped first, and left wiped on error).
        expand_into(self._token, DRIVER, key, &mut self.keys)
    }

    fn encrypt_blocks(&self, data: &mut [u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        // SAFETY: `self._token` proves AES-NI and SSE2, which is all the entry
        // functions are compiled for.
        unsafe { ecb_encrypt(&self.keys, RawInOut::in_place(data)) }
    }

    fn decrypt_blocks(&self, data: &mut [u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ecb_decrypt(&self.keys, RawInOut::in_place(data)) }
    }
}

/// Builds an unkeyed `aes-aesni`.
pub(crate) fn new_aes_aesni(host: &HostFeatures) -> Result<Box<dyn BlockCipherImpl>> {
    Ok(Box::new(AesAesni {
        _token: AesNi::new(host, DRIVER)?,
        keys: AesRoundKeys::empty(),
    }))
}
