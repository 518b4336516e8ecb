//! The x86 ChaCha20 and XChaCha20 ladder, four widths from one generic core:
//!
//! | driver | priority | registers | blocks at once |
//! | --- | --- | --- | --- |
//! | `chacha20-ssse3`, `xchacha20-ssse3` | 300 | xmm, SSE encoding (`pshufb` rotates) | 4, then 1 |
//! | `chacha20-avx2`, `xchacha20-avx2` | 400 | ymm, VEX | 8, 4, 2, 1 |
//! | `chacha20-avx512vl`, `xchacha20-avx512vl` | 500 | ymm, EVEX (`vprold`, byte masks) | 8, 4, 2, 1 |
//! | `chacha20-avx512f`, `xchacha20-avx512f` | 600, `uses_zmm` | zmm (tails on EVEX ymm / xmm) | 16, 8, 4, 2, 1 |
//!
//! Layout, as `aes/vaes`: the 32-bit-word vector vocabulary is the shared x86 layer's
//! (`crate::x86::word32::Word32Vec` over `Xmm`, `Ymm<Vex>`, `Ymm<Evex>`, `Zmm`); `core`
//! is the algorithm, written once, `#[inline(always)]` throughout (vertical batches of one
//! block per 32-bit lane, horizontal rows for the last few blocks, the length choosing the
//! kernel as the kernel's glue does); `entry` instantiates it in one `#[target_feature]`
//! function per width. The drivers below are the safe [`SkcipherImpl`] face the registry
//! hands out; each holds the CPU token its constructor got from [`HostFeatures`](cryptoreg_registry::HostFeatures) (so an
//! entry is only reachable where its instructions exist) and its key, wiped on drop.
//!
//! Semantics are the shared rules of [`crate::chacha20`] (the generic drivers'): 32-byte
//! key, 16-byte IV = 32-bit little-endian counter then 96-bit nonce, any length, and a
//! request that would pass block 2^32 of its nonce refused with `InvalidLength` before any
//! byte is written. `xchacha20-*` derive the HChaCha20 subkey (scalar: one block's worth
//! of work per request) and then run the ChaCha20 entry of their width, as the kernel's
//! `xchacha20-simd`; the one-shot calls keep the subkey on the stack, the segment walker
//! gets a boxed per-request cipher.
//!
//! Out-of-place requests (`*_to`) read `src` and write `dst` in one pass, through the same
//! entries; the pointers come from `x86::inout::RawInOut` (identical or disjoint).
//!
//! The `raw` module (hidden from the docs) exposes the entries to the `cryptoreg-emu`
//! crate, which runs the AVX-512 ones under the Bochs emulator (`cargo xtask emu`).

#![allow(unsafe_code)]

pub(crate) mod core;
mod entry;

#[cfg(test)]
mod tests;

use cryptoreg_registry::{check_key_len, ChainState, Error, Result, SkcipherImpl};
use zeroize::{Zeroize, Zeroizing};

use super::{
    blocks_for, check_chacha_request, check_counter_room, hchacha20, iv_counter,
    xchacha_hchacha_nonce, xchacha_inner_iv, xchacha_iv, CHACHA_BLOCK_SIZE, CHACHA_IV_SIZE,
    CHACHA_KEY_SIZE, XCHACHA_IV_SIZE,
};
use crate::x86::inout::RawInOut;
use crate::x86::token::{Avx2, Avx512, Ssse3};

/// The raw entry points, for the emulator crate (`emu/`) and the machine-code check. Not a
/// public API: the registry's drivers are.
#[doc(hidden)]
pub mod raw {
    pub use super::entry::*;
}

/// The ChaCha20 state of `key`, block `counter` and `nonce` (RFC 8439 §2.3, the words
/// `init_state` computes), written as the entries read it: four 16-byte rows, each by
/// one 16-byte store.
///
/// Why: every entry loads the state a row at a time, 16 bytes per load. Built word by
/// word, a row is stored in pieces (LLVM wrote the counter and nonce row as 4 + 8 + 4
/// bytes), and a load that spans several recent stores cannot take its data from the
/// store buffer: it waits until those stores have retired and reached the cache, that is
/// until every older instruction has retired, the previous request's included. The
/// entries' rounds are one long dependency chain, so on every request that wait came
/// before the chain could start, and nothing overlapped it. Measured on a 16-byte
/// `rfc7539-chacha20-poly1305-avx512ifma` seal in a loop (cycles per seal from the time
/// and a dependent-add clock in the same process): about 475 -> 400 cycles.
///
/// It is assembly because the optimizer, which sees the words, may otherwise split a
/// 16-byte store back into pieces or merge the nonce's loads into wider ones that span
/// the caller's own stores; the nonce is read 4 bytes at a time, which any store that
/// wrote those bytes can forward. SSE2 only (part of x86-64), legacy encoding: every
/// entry ends with `vzeroupper`, so there is no transition to pay.
#[inline(always)]
pub(crate) fn write_state(s: &mut [u32; 16], key: &[u8; 32], counter: u32, nonce: &[u8; 12]) {
    let c = &crate::chacha20::CHACHA_CONSTANTS;
    // SAFETY: the assembly reads 16 bytes at `c` and 32 at `key` (the arrays behind the
    // references), 4 at each of `nonce`, `nonce + 4`, `nonce + 8` (its 12 bytes), and
    // writes the 64 bytes of `s`; unaligned forms throughout; SSE2 is part of x86-64;
    // no stack, no flags.
    unsafe {
        ::core::arch::asm!(
            "movdqu {a}, xmmword ptr [{c}]",
            "movdqu xmmword ptr [{s}], {a}",
            "movdqu {a}, xmmword ptr [{k}]",
            "movdqu xmmword ptr [{s} + 16], {a}",
            "movdqu {a}, xmmword ptr [{k} + 16]",
            "movdqu xmmword ptr [{s} + 32], {a}",
            "movd {a}, {ctr:e}",
            "movd {b}, dword ptr [{n}]",
            "movd {x}, dword ptr [{n} + 4]",
            "movd {y}, dword ptr [{n} + 8]",
            "punpckldq {a}, {b}",
            "punpckldq {x}, {y}",
            "punpcklqdq {a}, {x}",
            "movdqu xmmword ptr [{s} + 48], {a}",
            c = in(reg) c.as_ptr(),
            k = in(reg) key.as_ptr(),
            n = in(reg) nonce.as_ptr(),
            ctr = in(reg) counter,
            s = in(reg) s.as_mut_ptr(),
            a = out(xmm_reg) _,
            b = out(xmm_reg) _,
            x = out(xmm_reg) _,
            y = out(xmm_reg) _,
            options(nostack, preserves_flags),
        );
    }
}

/// [`write_state`] from a 16-byte `chacha20` IV (counter little-endian, then nonce), the
/// form the streaming calls keep: the arguments of `init_state`.
#[inline(always)]
pub(crate) fn write_state_iv(s: &mut [u32; 16], key: &[u8; 32], iv: &[u8; CHACHA_IV_SIZE]) {
    let nonce: &[u8; 12] = iv[4..].try_into().expect("a 16-byte IV");
    write_state(
        s,
        key,
        u32::from_le_bytes([iv[0], iv[1], iv[2], iv[3]]),
        nonce,
    );
}

/// Which entry a driver runs, with the token that proves its features.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Width {
    /// `*-ssse3`.
    Ssse3(Ssse3),
    /// `*-avx2`.
    Avx2(Avx2),
    /// `*-avx512vl`.
    Avx512Vl(Avx512),
    /// `*-avx512f`.
    Avx512F(Avx512),
}

impl Width {
    /// XORs the keystream of `state` into `io` with this width's entry.
    fn xor(self, state: &[u32; 16], mut io: RawInOut<'_>) {
        let f = match self {
            Width::Ssse3(_) => entry::chacha20_ssse3,
            Width::Avx2(_) => entry::chacha20_avx2,
            Width::Avx512Vl(_) => entry::chacha20_avx512vl,
            Width::Avx512F(_) => entry::chacha20_avx512f,
        };
        let (len, dst) = (io.len(), io.dst());
        // SAFETY: the token in `self` proves every feature the entry of that width is
        // compiled for; `io` borrows `len` bytes at `src` / `dst`, identical or disjoint.
        unsafe { f(state, io.src(), dst, len) }
    }
}

/// `chacha20-{ssse3,avx2,avx512vl,avx512f}`: the key (wiped on drop) and the width.
pub(crate) struct ChaCha20Simd {
    driver: &'static str,
    width: Width,
    key: Zeroizing<[u8; CHACHA_KEY_SIZE]>,
    keyed: bool,
}

impl ChaCha20Simd {
    fn new(driver: &'static str, width: Width) -> ChaCha20Simd {
        ChaCha20Simd {
            driver,
            width,
            key: Zeroizing::new([0; CHACHA_KEY_SIZE]),
            keyed: false,
        }
    }

    /// XORs the keystream at chaining state `iv` (counter || nonce) into `io` and advances
    /// the counter in `iv` by the blocks used (a partial block counts as one).
    fn crypt(&self, iv: &mut ChainState, io: RawInOut<'_>) {
        let blocks = blocks_for(io.len()) as u32;
        let mut s = [0u32; 16];
        write_state_iv(&mut s, &self.key, iv);
        self.width.xor(&s, io);
        iv[..4].copy_from_slice(&s[12].wrapping_add(blocks).to_le_bytes());
        // As slices: `zeroize` fills a slice with a few wide stores, an array word by word.
        s[..].zeroize();
    }

    /// A whole request: the IV and the counter room checked, then one entry call.
    fn one_shot(&self, iv: &[u8], io: RawInOut<'_>) -> Result<()> {
        if !self.keyed {
            return Err(Error::NoKey);
        }
        check_chacha_request(iv, io.len())?;
        let mut state: ChainState = [0; CHACHA_IV_SIZE];
        state.copy_from_slice(iv);
        self.crypt(&mut state, io);
        state[..].zeroize();
        Ok(())
    }
}

impl SkcipherImpl for ChaCha20Simd {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.key.zeroize();
        self.keyed = false;
        check_key_len(self.driver, key, &[CHACHA_KEY_SIZE])?;
        self.key.copy_from_slice(key);
        self.keyed = true;
        Ok(())
    }

    /// One keystream block.
    fn chunk_size(&self) -> usize {
        CHACHA_BLOCK_SIZE
    }

    /// Any length; the partial last block is the tail.
    fn tail_len(&self, total: usize) -> Result<usize> {
        Ok(total % CHACHA_BLOCK_SIZE)
    }

    /// The counter must have room for the whole request.
    fn check_request(&self, iv: &[u8], total: usize) -> Result<()> {
        check_chacha_request(iv, total)
    }

    /// The state is the IV: counter (LE) then nonce.
    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        if !self.keyed {
            return Err(Error::NoKey);
        }
        if iv_counter(iv).is_none() {
            return Err(Error::InvalidIvLength {
                len: iv.len(),
                expected: CHACHA_IV_SIZE,
            });
        }
        state.copy_from_slice(iv);
        Ok(())
    }

    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.crypt(state, RawInOut::in_place(data));
    }

    /// Identical to encryption.
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

    /// One entry call over the whole request.
    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.one_shot(iv, RawInOut::in_place(data))
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.one_shot(iv, RawInOut::in_place(data))
    }

    /// One entry call out of place.
    fn encrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        check_same_len(src, dst)?;
        self.one_shot(iv, RawInOut::split(src, dst))
    }

    fn decrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        self.encrypt_to(iv, src, dst)
    }
}

/// Out-of-place requests need equal lengths (the handle checks first; this keeps the
/// driver safe on its own).
fn check_same_len(src: &[u8], dst: &[u8]) -> Result<()> {
    if src.len() == dst.len() {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            src: src.len(),
            dst: dst.len(),
        })
    }
}

/// `xchacha20-{ssse3,avx2,avx512vl,avx512f}`: HChaCha20 subkey per request, then the
/// ChaCha20 entry of the width.
pub(crate) struct XChaCha20Simd {
    driver: &'static str,
    width: Width,
    key: Zeroizing<[u8; CHACHA_KEY_SIZE]>,
    keyed: bool,
}

/// Why the chunk calls of an `xchacha20` driver are never reached: the walker runs each
/// request on the per-request cipher, and `start` refuses.
const XCHACHA_DIRECT: &str = "xchacha20 runs each request on its per-request cipher";

impl XChaCha20Simd {
    fn new(driver: &'static str, width: Width) -> XChaCha20Simd {
        XChaCha20Simd {
            driver,
            width,
            key: Zeroizing::new([0; CHACHA_KEY_SIZE]),
            keyed: false,
        }
    }

    /// The `chacha20` cipher of this width keyed with the request's subkey, and its IV.
    fn inner(&self, iv: &[u8]) -> Result<(ChaCha20Simd, ChainState)> {
        if !self.keyed {
            return Err(Error::NoKey);
        }
        let iv: &[u8; XCHACHA_IV_SIZE] = xchacha_iv(iv)?;
        let mut c = ChaCha20Simd::new(self.driver, self.width);
        *c.key = hchacha20(&self.key, &xchacha_hchacha_nonce(iv));
        c.keyed = true;
        Ok((c, xchacha_inner_iv(iv)))
    }

    /// A whole request on the stack: subkey, counter room, one entry call.
    fn one_shot(&self, iv: &[u8], io: RawInOut<'_>) -> Result<()> {
        let (c, mut state) = self.inner(iv)?;
        let counter = u32::from_le_bytes([state[0], state[1], state[2], state[3]]);
        let r = check_counter_room(counter, io.len());
        if r.is_ok() {
            c.crypt(&mut state, io);
        }
        state[..].zeroize();
        r
    }
}

impl SkcipherImpl for XChaCha20Simd {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.key.zeroize();
        self.keyed = false;
        check_key_len(self.driver, key, &[CHACHA_KEY_SIZE])?;
        self.key.copy_from_slice(key);
        self.keyed = true;
        Ok(())
    }

    fn chunk_size(&self) -> usize {
        CHACHA_BLOCK_SIZE
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        Ok(total % CHACHA_BLOCK_SIZE)
    }

    /// The walker's path: a boxed `chacha20` cipher of this width with the subkey.
    fn per_request_cipher(&self, iv: &[u8]) -> Result<Option<(Box<dyn SkcipherImpl>, ChainState)>> {
        let (c, iv) = self.inner(iv)?;
        Ok(Some((Box::new(c), iv)))
    }

    /// Refused: a 16-byte chain state cannot carry the subkey (see
    /// [`SkcipherImpl::per_request_cipher`]).
    fn start(&self, _iv: &[u8], _state: &mut ChainState) -> Result<()> {
        Err(Error::InvalidLength {
            len: 0,
            reason: XCHACHA_DIRECT,
        })
    }

    /// Never reached (`start` refuses); wipes rather than leave plaintext behind.
    fn encrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        data.zeroize();
    }

    fn decrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        data.zeroize();
    }

    fn encrypt_tail(&self, _state: &mut ChainState, tail: &mut [u8]) {
        tail.zeroize();
    }

    fn decrypt_tail(&self, _state: &mut ChainState, tail: &mut [u8]) {
        tail.zeroize();
    }

    /// Subkey and one entry call, nothing on the heap.
    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.one_shot(iv, RawInOut::in_place(data))
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.one_shot(iv, RawInOut::in_place(data))
    }

    fn encrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        check_same_len(src, dst)?;
        self.one_shot(iv, RawInOut::split(src, dst))
    }

    fn decrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        self.encrypt_to(iv, src, dst)
    }
}

// Constructors only: the records are in `crate::records::x86_64`.
crate::x86::width_ctors! {
    SkcipherImpl:
    new_chacha20_ssse3 = "chacha20-ssse3", Ssse3(Ssse3), ChaCha20Simd;
    new_chacha20_avx2 = "chacha20-avx2", Avx2(Avx2), ChaCha20Simd;
    new_chacha20_avx512vl = "chacha20-avx512vl", Avx512Vl(Avx512), ChaCha20Simd;
    new_chacha20_avx512f = "chacha20-avx512f", Avx512F(Avx512), ChaCha20Simd;
    new_xchacha20_ssse3 = "xchacha20-ssse3", Ssse3(Ssse3), XChaCha20Simd;
    new_xchacha20_avx2 = "xchacha20-avx2", Avx2(Avx2), XChaCha20Simd;
    new_xchacha20_avx512vl = "xchacha20-avx512vl", Avx512Vl(Avx512), XChaCha20Simd;
    new_xchacha20_avx512f = "xchacha20-avx512f", Avx512F(Avx512), XChaCha20Simd;
}
