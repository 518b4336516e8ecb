//! `gcm-aes-aesni` (priority 400): AES-GCM (NIST SP 800-38D) on AES-NI and PCLMULQDQ, with
//! AES-CTR and GHASH stitched in one loop over eight blocks.
//!
//! Per eight blocks the loop runs the AES rounds of eight counter blocks and, between
//! rounds, one GHASH multiply each of eight ciphertext blocks by H^8 .. H^1, reducing once
//! per group (the xmm helpers of `ghash-clmulni`). Encryption hashes the *previous* eight
//! ciphertext blocks (kept in registers), decryption the eight it is decrypting (their
//! ciphertext is the input): either way the AES and PCLMULQDQ units work side by side.
//!
//! Rules shared by every `gcm(aes)` driver ([`crate::aes::gcm_rules`]): 12-byte nonce (J0 =
//! nonce || 1), tags of 4, 8, 12..=16 bytes, SP 800-38D length limits checked in `start`,
//! keys of 16/24/32 bytes.
//!
//! One-shot `seal` and `open`, in place or out of place (`seal_to` / `open_to`: the entry
//! reads one buffer and writes the other), run the whole request in one
//! `#[target_feature]` entry call. `open` decrypts and authenticates in the same pass,
//! then compares the tag in constant time and wipes the output if it does not verify: no
//! plaintext is left behind (`open_to`'s source is only read).
//!
//! The entries (`gcm_enc_aesni`, `gcm_dec_aesni`, `gcm_seal_aesni`, `gcm_open_aesni`,
//! `gcm_tag_aesni`; the AAD goes through `ghash-clmulni`'s `ghash_clmulni`) take plain
//! pointers and lengths and contain no panic path and no call (no `memcpy` either: partial
//! blocks move in 8/4/2/1-byte pieces), so that the very functions the driver calls also
//! run under the Bochs emulator (`cargo xtask emu`, driver `aesni`, via
//! [`crate::aes::aesni::raw`]) and pass the machine-code check (`cargo xtask asm`: SSE
//! encoding on xmm only, so they run on AES-NI CPUs without AVX).

use core::arch::x86_64::{__m128i, _mm_and_si128, _mm_set_epi32};

use crate::aead::tag::open_verified;
use cryptoreg_registry::{AeadImpl, AeadLens, AeadState, Error, HostFeatures, InOut, Result};
use zeroize::Zeroize;

use super::cipher::{load, store, xor, Keys, LANES, WIDE};
use crate::aes::gcm_rules::{
    check_gcm_authsize, check_gcm_lens, check_one_shot, gcm_j0, gcm_len_block, GCM_NONCE_LEN,
};
use crate::aes::x86::key_schedule::{expand_into, AesRoundKeys};
use crate::aes::x86::RoundKeyBytes;
use crate::ghash::x86::ghash_clmulni;
use crate::ghash::x86::xmm::{Clmul, HPowers, GROUP};
use crate::x86::inout::RawInOut;
use crate::x86::token::AesNiPclmul;
use crate::x86::vector::{load_lt16, store_lt16};

const DRIVER: &str = "gcm-aes-aesni";

/// The driver: the AES key schedule and the powers of H, both wiped on drop and on a
/// failed `set_key`.
struct GcmAesni {
    /// Proves AES-NI, PCLMULQDQ and SSSE3: what makes the entry calls sound.
    token: AesNiPclmul,
    keys: AesRoundKeys,
    powers: HPowers,
}

// Layout of the per-request state (`AeadState` bytes / lanes).
/// Bytes 0..16: the GHASH accumulator (GHASH byte order).
const Y: usize = 0;
/// Bytes 16..32: J0.
const J0: usize = 16;
/// Lane 4: the next counter value (low 32 bits of the counter block).
const CTR: usize = 4;
/// Lane 5 and 6: AAD and text bytes so far.
const AAD_LEN: usize = 5;
const TEXT_LEN: usize = 6;

/// The per-request values a kernel works with, loaded from and stored to the state.
/// The accumulator copy is wiped on drop.
struct Run {
    y: [u8; 16],
    j0: [u8; 16],
    ctr: u32,
}

impl Run {
    fn load(st: &AeadState) -> Run {
        let mut y = [0u8; 16];
        let mut j0 = [0u8; 16];
        y.copy_from_slice(&st.bytes[Y..Y + 16]);
        j0.copy_from_slice(&st.bytes[J0..J0 + 16]);
        Run {
            y,
            j0,
            ctr: st.lane(CTR) as u32,
        }
    }

    /// The counter block `J0[..12] || ctr` the streaming entries take.
    fn ctr_block(&self) -> [u8; 16] {
        let mut b = self.j0;
        b[12..].copy_from_slice(&self.ctr.to_be_bytes());
        b
    }

    fn save(&self, st: &mut AeadState) {
        st.bytes[Y..Y + 16].copy_from_slice(&self.y);
        st.set_lane(CTR, u64::from(self.ctr));
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        self.y.zeroize();
    }
}

/// The stitched kernels, instantiated inside the entries below (all `inline(always)`).
struct Gcm<'a> {
    k: Keys<'a>,
    c: Clmul,
    powers: &'a HPowers,
    /// The first 12 bytes of J0 as little-endian words, for building counter blocks.
    nonce: [i32; 3],
}

impl<'a> Gcm<'a> {
    /// `j0` supplies the nonce words (its first 12 bytes: J0 or any counter block).
    ///
    /// # Safety
    /// Only inside a function compiled with `aes,pclmulqdq,ssse3,sse2`, on a CPU that has
    /// them.
    #[inline(always)]
    unsafe fn new(
        keys: &'a RoundKeyBytes,
        rounds: usize,
        powers: &'a HPowers,
        j0: &[u8; 16],
    ) -> Gcm<'a> {
        // SAFETY: the caller's contract; `j0` holds 16 readable bytes, of which 12 are read.
        unsafe { Gcm::from_nonce(keys, rounds, powers, j0.as_ptr()) }
    }

    /// As [`Gcm::new`], with the nonce words read from the caller's 12-byte nonce: the
    /// one-shot entries start from it rather than from a `J0` block the driver built in
    /// memory byte by byte (reading that back as one block missed store forwarding on
    /// every request).
    ///
    /// # Safety
    /// As [`Gcm::new`], and 12 readable bytes at `nonce`.
    #[inline(always)]
    unsafe fn from_nonce(
        keys: &'a RoundKeyBytes,
        rounds: usize,
        powers: &'a HPowers,
        nonce: *const u8,
    ) -> Gcm<'a> {
        // SAFETY: 12 readable bytes at `nonce` (caller), read as three unaligned words.
        let word = |i: usize| unsafe { nonce.add(4 * i).cast::<i32>().read_unaligned() };
        Gcm {
            // SAFETY: the caller's contract: AES-NI is enabled here.
            k: unsafe { Keys::enc_bytes(keys, rounds) },
            // SAFETY: the caller's contract: PCLMULQDQ, SSSE3 and SSE2 are enabled here.
            c: unsafe { Clmul::new() },
            powers,
            nonce: [word(0), word(1), word(2)],
        }
    }

    /// The counter block `nonce || ctr` (32-bit big-endian counter).
    #[inline(always)]
    fn ctr_block(&self, ctr: u32) -> __m128i {
        // SAFETY: SSE2 is baseline; registers only.
        unsafe {
            _mm_set_epi32(
                ctr.swap_bytes() as i32,
                self.nonce[2],
                self.nonce[1],
                self.nonce[0],
            )
        }
    }

    /// GHASH over whole blocks (AAD, or the length block).
    #[inline(always)]
    fn hash(&self, y: __m128i, data: &[u8]) -> __m128i {
        self.c.update(self.powers, y, data)
    }

    /// Encrypts the run and hashes its ciphertext. Whole blocks, then (only in the last
    /// call of a request) a partial block, zero-padded for GHASH.
    #[inline(always)]
    fn encrypt(&self, mut y: __m128i, ctr: &mut u32, mut io: RawInOut<'_>) -> __m128i {
        let c = self.c;
        // The previous group's ciphertext in register form, hashed during this group's
        // AES rounds.
        let mut pending: Option<[__m128i; LANES]> = None;
        while io.len() >= WIDE {
            let (mut head, tail) = io.split_at(WIDE);
            let ctrs = core::array::from_fn(|i| self.ctr_block(ctr.wrapping_add(i as u32)));
            let ks = match pending {
                None => self.k.encrypt8(ctrs),
                Some(prev) => {
                    let mut w = c.zero_wide();
                    let ks = self.k.encrypt8_with(ctrs, |r| {
                        if (1..=GROUP).contains(&r) {
                            let i = r - 1;
                            let x = if i == 0 { c.xor(prev[0], y) } else { prev[i] };
                            c.mul_acc_step(&mut w, self.powers, x, i);
                        }
                    });
                    y = c.reduce(w);
                    ks
                }
            };
            let mut d = head.load_blocks::<LANES>(0);
            for (x, s) in d.iter_mut().zip(ks) {
                *x = xor(*x, s);
            }
            head.store_blocks(0, &d);
            pending = Some(d.map(|b| c.bswap(b)));
            *ctr = ctr.wrapping_add(LANES as u32);
            io = tail;
        }
        if let Some(prev) = pending {
            y = c.group_regs(self.powers, y, &prev);
        }
        // Up to seven whole blocks, hashed as one group. (The runs are split off the front
        // and the block counts bounded by construction, so that the entries have no
        // bounds check that could panic: they also run under the emulator.)
        let mut rest = [y; LANES];
        let mut n = 0;
        while io.len() >= 16 {
            let (mut block, tail) = io.split_at(16);
            let out = xor(block.load(0), self.k.encrypt1(self.ctr_block(*ctr)));
            block.store(0, out);
            // Always `Some`: fewer than `WIDE` bytes are left after the wide loop.
            if let Some(slot) = rest.get_mut(n) {
                *slot = c.bswap(out);
            }
            n += 1;
            *ctr = ctr.wrapping_add(1);
            io = tail;
        }
        y = c.group_regs(self.powers, y, &rest[..n.min(LANES)]);
        let partial = io.len();
        if partial > 0 {
            // The keystream's bytes past the end cleared, so that the output block is the
            // ciphertext zero-padded, as GHASH takes it.
            // SAFETY: 16 readable bytes and `partial < 16`; SSE2 is baseline.
            let ks = unsafe {
                _mm_and_si128(
                    self.k.encrypt1(self.ctr_block(*ctr)),
                    load_lt16([0xff; 16].as_ptr(), partial),
                )
            };
            let out = xor(io.load_partial(0, partial), ks);
            io.store_partial(0, partial, out);
            y = c.group_regs(self.powers, y, &[c.bswap(out)]);
            *ctr = ctr.wrapping_add(1);
        }
        y
    }

    /// Hashes the run's ciphertext and decrypts it, in one pass.
    #[inline(always)]
    fn decrypt(&self, mut y: __m128i, ctr: &mut u32, mut io: RawInOut<'_>) -> __m128i {
        let c = self.c;
        while io.len() >= WIDE {
            let (mut head, tail) = io.split_at(WIDE);
            let ctrs = core::array::from_fn(|i| self.ctr_block(ctr.wrapping_add(i as u32)));
            let mut d = head.load_blocks::<LANES>(0);
            let mut x = d.map(|b| c.bswap(b));
            x[0] = c.xor(x[0], y);
            let mut w = c.zero_wide();
            let ks = self.k.encrypt8_with(ctrs, |r| {
                if (1..=GROUP).contains(&r) {
                    c.mul_acc_step(&mut w, self.powers, x[r - 1], r - 1);
                }
            });
            y = c.reduce(w);
            for (b, s) in d.iter_mut().zip(ks) {
                *b = xor(*b, s);
            }
            head.store_blocks(0, &d);
            *ctr = ctr.wrapping_add(LANES as u32);
            io = tail;
        }
        // As in `encrypt`: runs split off the front, counts bounded.
        let mut rest = [y; LANES];
        let mut n = 0;
        while io.len() >= 16 {
            let (mut block, tail) = io.split_at(16);
            let input = block.load(0);
            // Always `Some`: fewer than `WIDE` bytes are left after the wide loop.
            if let Some(slot) = rest.get_mut(n) {
                *slot = c.bswap(input);
            }
            n += 1;
            block.store(0, xor(input, self.k.encrypt1(self.ctr_block(*ctr))));
            *ctr = ctr.wrapping_add(1);
            io = tail;
        }
        y = c.group_regs(self.powers, y, &rest[..n.min(LANES)]);
        let partial = io.len();
        if partial > 0 {
            let input = io.load_partial(0, partial);
            y = c.group_regs(self.powers, y, &[c.bswap(input)]);
            let out = xor(input, self.k.encrypt1(self.ctr_block(*ctr)));
            io.store_partial(0, partial, out);
            *ctr = ctr.wrapping_add(1);
        }
        y
    }

    /// The full 16-byte tag: GHASH of the length block, masked with E(K, J0), where
    /// `J0 = nonce || 1` is built in a register (12-byte nonces only).
    #[inline(always)]
    fn tag_block(&self, y: __m128i, aad_len: u64, text_len: u64) -> __m128i {
        let y = self.hash(y, &gcm_len_block(aad_len, text_len));
        let s = self.k.encrypt1(self.ctr_block(1));
        xor(self.c.bswap(y), s)
    }

    /// [`Gcm::tag_block`] as bytes.
    #[inline(always)]
    fn tag(&self, y: __m128i, aad_len: u64, text_len: u64) -> [u8; 16] {
        let mut tag = [0u8; 16];
        store(&mut tag, self.tag_block(y, aad_len, text_len));
        tag
    }
}

/// E(K, 0^128) = H, in GHASH byte order.
///
/// # Safety
/// The CPU has AES-NI and SSE2.
#[inline(never)]
#[target_feature(enable = "aes,sse2")]
unsafe fn derive_h(ks: &AesRoundKeys) -> [u8; 16] {
    // SAFETY: AES-NI is enabled here and present (this function's contract).
    let k = unsafe { Keys::enc(ks) };
    let mut h = [0u8; 16];
    store(&mut h, k.encrypt1(load(&[0u8; 16])));
    h
}

/// Streaming encryption of `len` bytes (a partial block only at the end of a request):
/// the keystream from the counter block `ctr` (its last four bytes a big-endian counter,
/// advanced), the ciphertext GHASHed into `acc` (GHASH byte order). `keys` is the
/// encryption schedule of `rounds` (10, 12, 14). Plain pointers and lengths, no
/// allocation, no panic, no call: also run under the emulator (`aes::aesni::raw`).
///
/// # Safety
/// `src` is valid for reads and `dst` for writes of `len` bytes, `src == dst` or the two
/// do not overlap; the CPU has AES-NI, PCLMULQDQ, SSSE3 and SSE2.
#[inline(never)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse2")]
#[allow(clippy::too_many_arguments)]
pub unsafe fn gcm_enc_aesni(
    keys: &RoundKeyBytes,
    rounds: usize,
    powers: &HPowers,
    ctr: &mut [u8; 16],
    acc: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    // SAFETY: forwarded from this function's contract.
    unsafe { crypt(keys, rounds, powers, ctr, acc, src, dst, len, true) }
}

/// Streaming decryption: the ciphertext GHASHed into `acc`, then decrypted. As
/// [`gcm_enc_aesni`] otherwise.
///
/// # Safety
/// As [`gcm_enc_aesni`].
#[inline(never)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse2")]
#[allow(clippy::too_many_arguments)]
pub unsafe fn gcm_dec_aesni(
    keys: &RoundKeyBytes,
    rounds: usize,
    powers: &HPowers,
    ctr: &mut [u8; 16],
    acc: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    // SAFETY: forwarded from this function's contract.
    unsafe { crypt(keys, rounds, powers, ctr, acc, src, dst, len, false) }
}

/// The body of the streaming entries (inlined into each).
///
/// # Safety
/// As [`gcm_enc_aesni`], inside a function compiled with its features.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn crypt(
    keys: &RoundKeyBytes,
    rounds: usize,
    powers: &HPowers,
    ctr: &mut [u8; 16],
    acc: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    encrypt: bool,
) {
    // SAFETY: the caller's contract: the features are enabled and present, the pointers
    // valid for `len` bytes, identical or disjoint.
    let (g, io) = unsafe {
        (
            Gcm::new(keys, rounds, powers, ctr),
            RawInOut::from_raw(src, dst, len),
        )
    };
    let mut n = u32::from_be_bytes([ctr[12], ctr[13], ctr[14], ctr[15]]);
    let y = g.c.load_block(acc);
    let y = if encrypt {
        g.encrypt(y, &mut n, io)
    } else {
        g.decrypt(y, &mut n, io)
    };
    g.c.store_raw(acc, g.c.bswap(y));
    ctr[12..].copy_from_slice(&n.to_be_bytes());
}

/// The full 16-byte tag of a request whose AAD and text were absorbed into `acc` (GHASH
/// byte order): GHASH of the length block, masked with E(K, J0). Only the first 12 bytes
/// of `j0` are read: J0 is those (the nonce) then `00 00 00 01`, the only J0 of a 12-byte
/// nonce. As [`gcm_enc_aesni`] for the rest.
///
/// # Safety
/// The CPU has AES-NI, PCLMULQDQ, SSSE3 and SSE2.
#[inline(never)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse2")]
#[allow(clippy::too_many_arguments)]
pub unsafe fn gcm_tag_aesni(
    keys: &RoundKeyBytes,
    rounds: usize,
    powers: &HPowers,
    j0: &[u8; 16],
    acc: &[u8; 16],
    aad_len: u64,
    text_len: u64,
    tag: &mut [u8; 16],
) {
    // SAFETY: compiled with the features `Gcm` needs, present per this function's contract.
    let g = unsafe { Gcm::new(keys, rounds, powers, j0) };
    *tag = g.tag(g.c.load_block(acc), aad_len, text_len);
}

/// A whole encryption (the one-shot `seal`): AAD, text from `J0 + 1` (`J0` = the 12-byte
/// `nonce` then `00 00 00 01`) from `src` into `dst`, lengths, and the first `tag_len`
/// bytes of the tag into `tag`. As [`gcm_enc_aesni`] otherwise.
///
/// # Safety
/// `nonce` is valid for reads of 12 bytes, `aad` of `aad_len` bytes, `tag` for writes of
/// `tag_len <= 16` bytes; otherwise as [`gcm_enc_aesni`].
#[inline(never)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse2")]
#[allow(clippy::too_many_arguments)]
pub unsafe fn gcm_seal_aesni(
    keys: &RoundKeyBytes,
    rounds: usize,
    powers: &HPowers,
    nonce: *const u8,
    aad: *const u8,
    aad_len: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tag: *mut u8,
    tag_len: usize,
) {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        one_shot(
            keys, rounds, powers, nonce, aad, aad_len, src, dst, len, tag, tag_len, true,
        )
    }
}

/// A whole decryption (the one-shot `open`): decrypts into `dst` and writes the first
/// `tag_len` bytes of the expected tag into `tag`; the caller compares them and wipes `dst`
/// on a mismatch.
///
/// # Safety
/// As [`gcm_seal_aesni`].
#[inline(never)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse2")]
#[allow(clippy::too_many_arguments)]
pub unsafe fn gcm_open_aesni(
    keys: &RoundKeyBytes,
    rounds: usize,
    powers: &HPowers,
    nonce: *const u8,
    aad: *const u8,
    aad_len: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tag: *mut u8,
    tag_len: usize,
) {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        one_shot(
            keys, rounds, powers, nonce, aad, aad_len, src, dst, len, tag, tag_len, false,
        )
    }
}

/// The body of the one-shot entries (inlined into each).
///
/// # Safety
/// As [`gcm_seal_aesni`], inside a function compiled with its features.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn one_shot(
    keys: &RoundKeyBytes,
    rounds: usize,
    powers: &HPowers,
    nonce: *const u8,
    aad: *const u8,
    aad_len: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tag: *mut u8,
    tag_len: usize,
    encrypt: bool,
) {
    // SAFETY: the caller's contract: the features are enabled and present, `nonce` valid
    // for 12 bytes, `aad` for `aad_len` bytes, `src`/`dst` for `len`, identical or
    // disjoint.
    let (g, whole_aad, io) = unsafe {
        (
            Gcm::from_nonce(keys, rounds, powers, nonce),
            core::slice::from_raw_parts(aad, aad_len - aad_len % 16),
            RawInOut::from_raw(src, dst, len),
        )
    };
    let c = g.c;
    let mut y = g.hash(c.zero(), whole_aad);
    let rest = aad_len % 16;
    if rest > 0 {
        // SAFETY: the last `rest < 16` AAD bytes are readable (contract); zero-padded.
        let last = unsafe { load_lt16(aad.add(aad_len - rest), rest) };
        y = c.group_regs(powers, y, &[c.bswap(last)]);
    }
    let mut ctr = 2u32;
    y = if encrypt {
        g.encrypt(y, &mut ctr, io)
    } else {
        g.decrypt(y, &mut ctr, io)
    };
    let t = g.tag_block(y, aad_len as u64, len as u64);
    // SAFETY: `tag_len <= 16` writable bytes at `tag` (contract; clamped anyway).
    unsafe {
        if tag_len >= 16 {
            tag.cast::<__m128i>().write_unaligned(t);
        } else {
            store_lt16(tag, tag_len, t);
        }
    }
}

impl GcmAesni {
    /// Absorbs whole AAD blocks, counting `counted` AAD bytes (less than `aad.len()` for
    /// the zero-padded last block).
    fn run_aad(&self, st: &mut AeadState, aad: &[u8], counted: usize) {
        let mut run = Run::load(st);
        // SAFETY: `self.token` proves PCLMULQDQ, SSSE3 and SSE2; `aad` is a live slice.
        unsafe { ghash_clmulni(&self.powers, &mut run.y, aad.as_ptr(), aad.len()) };
        run.save(st);
        st.set_lane(AAD_LEN, st.lane(AAD_LEN) + counted as u64);
    }

    fn run_text(&self, st: &mut AeadState, data: InOut<'_>, encrypt: bool) {
        let len = data.len() as u64;
        let mut run = Run::load(st);
        let mut ctr = run.ctr_block();
        let mut io = RawInOut::from_inout(data);
        let entry = if encrypt {
            gcm_enc_aesni
        } else {
            gcm_dec_aesni
        };
        let (src, dst) = (io.src(), io.dst());
        // SAFETY: `self.token` proves AES-NI, PCLMULQDQ, SSSE3 and SSE2; `io` borrows `len`
        // bytes at `src` and `dst`, identical or disjoint.
        unsafe {
            entry(
                &self.keys.enc,
                self.keys.rounds,
                &self.powers,
                &mut ctr,
                &mut run.y,
                src,
                dst,
                io.len(),
            )
        };
        run.ctr = u32::from_be_bytes([ctr[12], ctr[13], ctr[14], ctr[15]]);
        run.save(st);
        st.set_lane(TEXT_LEN, st.lane(TEXT_LEN) + len);
    }

    /// Checks what the handle checks too (a driver is also reachable directly): the
    /// nonce, the authsize, the lengths. Returns J0.
    fn check_request(&self, nonce: &[u8], lens: &AeadLens) -> Result<[u8; 16]> {
        check_gcm_authsize(DRIVER, lens.authsize)?;
        check_gcm_lens(lens)?;
        let Some(j0) = gcm_j0(nonce) else {
            return Err(Error::InvalidIvLength {
                len: nonce.len(),
                expected: GCM_NONCE_LEN,
            });
        };
        Ok(j0)
    }

    /// One entry call for a whole request, from `io`'s source into its destination (the
    /// same buffer in place), the tag (`out.len()` bytes, the authsize) written by the
    /// entry straight into `out`; the entry reads the nonce itself (see
    /// [`Gcm::from_nonce`]). Inlined, as `GcmVaes::one_shot` is: called out of line, its
    /// slices went to it repacked on the stack and were read back whole, which store
    /// forwarding cannot serve (12% of a 64-byte `open_to`).
    #[inline(always)]
    fn one_shot(
        &self,
        nonce: &[u8],
        aad: &[u8],
        io: InOut<'_>,
        out: &mut [u8],
        encrypt: bool,
    ) -> Result<()> {
        let mut io = RawInOut::from_inout(io);
        let lens = AeadLens {
            aad: aad.len(),
            text: io.len(),
            authsize: out.len(),
        };
        let nonce = check_one_shot(DRIVER, nonce, &lens)?;
        let entry = if encrypt {
            gcm_seal_aesni
        } else {
            gcm_open_aesni
        };
        let (len, dst) = (io.len(), io.dst());
        // SAFETY: `self.token` proves AES-NI, PCLMULQDQ, SSSE3 and SSE2; the nonce is 12
        // bytes; `aad` is a live slice; `io` holds `len` readable bytes at its source and
        // writable at `dst` (one buffer, or two that do not overlap); `out` is writable for
        // its length, at most 16 (`check_one_shot`).
        unsafe {
            entry(
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
            )
        };
        Ok(())
    }

    /// `seal` from `io`'s source into its destination: one entry call.
    #[inline(always)]
    fn seal_into(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>, tag: &mut [u8]) -> Result<()> {
        self.one_shot(nonce, aad, io, tag, true)
    }

    /// `open` into `io`'s destination: decrypts and computes the expected tag in one pass,
    /// compares in constant time, and wipes the destination on a mismatch. A refused
    /// request (nonce, tag size, lengths) touches nothing. Inlined for the reason
    /// `one_shot` is.
    #[inline(always)]
    fn open_into(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>, tag: &[u8]) -> Result<()> {
        check_gcm_authsize(DRIVER, tag.len())?;
        open_verified(tag, io, |io, mine| {
            self.one_shot(nonce, aad, io, mine, false)
        })
    }
}

impl AeadImpl for GcmAesni {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.powers.zeroize();
        expand_into(self.token.aesni(), DRIVER, key, &mut self.keys)?;
        // SAFETY: the token proves AES-NI and SSE2.
        let mut h = unsafe { derive_h(&self.keys) };
        self.powers = HPowers::new(&h);
        h.zeroize();
        Ok(())
    }

    fn check_authsize(&self, authsize: usize) -> Result<()> {
        check_gcm_authsize(DRIVER, authsize)
    }

    fn chunk_size(&self) -> usize {
        16
    }

    fn start(&self, st: &mut AeadState, nonce: &[u8], lens: AeadLens) -> Result<()> {
        let j0 = self.check_request(nonce, &lens)?;
        st.bytes[Y..Y + 16].fill(0);
        st.bytes[J0..J0 + 16].copy_from_slice(&j0);
        st.set_lane(CTR, 2);
        st.set_lane(AAD_LEN, 0);
        st.set_lane(TEXT_LEN, 0);
        Ok(())
    }

    fn absorb_aad(&self, st: &mut AeadState, aad: &[u8]) {
        // Whole blocks (the walker's contract); a partial end would be a caller bug and
        // is padded rather than dropped.
        self.absorb_aad_tail(st, aad);
    }

    fn absorb_aad_tail(&self, st: &mut AeadState, tail: &[u8]) {
        let whole = tail.len() - tail.len() % 16;
        if whole > 0 {
            self.run_aad(st, &tail[..whole], whole);
        }
        let rest = &tail[whole..];
        if !rest.is_empty() {
            let mut block = [0u8; 16];
            block[..rest.len()].copy_from_slice(rest);
            self.run_aad(st, &block, rest.len());
            block.zeroize();
        }
    }

    fn encrypt_chunks(&self, st: &mut AeadState, data: InOut<'_>) {
        self.run_text(st, data, true);
    }

    fn decrypt_chunks(&self, st: &mut AeadState, data: InOut<'_>) {
        self.run_text(st, data, false);
    }

    fn encrypt_tail(&self, st: &mut AeadState, data: InOut<'_>) {
        self.run_text(st, data, true);
    }

    fn decrypt_tail(&self, st: &mut AeadState, data: InOut<'_>) {
        self.run_text(st, data, false);
    }

    fn finish(&self, st: &mut AeadState, tag: &mut [u8]) {
        let run = Run::load(st);
        let mut full = [0u8; 16];
        // SAFETY: `self.token` proves AES-NI, PCLMULQDQ, SSSE3 and SSE2.
        unsafe {
            gcm_tag_aesni(
                &self.keys.enc,
                self.keys.rounds,
                &self.powers,
                &run.j0,
                &run.y,
                st.lane(AAD_LEN),
                st.lane(TEXT_LEN),
                &mut full,
            )
        };
        let n = tag.len().min(16);
        tag[..n].copy_from_slice(&full[..n]);
        full.zeroize();
    }

    // `seal`, `open`, `seal_to`, `open_to`: one entry call each, through `seal_into` /
    // `open_into`.
    crate::aead::one_shot::one_shot_methods!();
}

/// Builds an unkeyed `gcm-aes-aesni`, or refuses without AES-NI/PCLMULQDQ/SSSE3.
pub(crate) fn new_gcm(host: &HostFeatures) -> Result<Box<dyn AeadImpl>> {
    Ok(Box::new(GcmAesni {
        token: AesNiPclmul::new(host, DRIVER)?,
        keys: AesRoundKeys::empty(),
        powers: HPowers([[0; 16]; GROUP]),
    }))
}

#[cfg(test)]
#[path = "gcm_tests.rs"]
mod tests;
