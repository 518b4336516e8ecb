//! The `#[target_feature]` entry functions: one per driver width, each a thin shell that
//! instantiates the generic core ([`chacha20_xor`], or for the EVEX ones
//! [`chacha20_xor_evex`], inlined into it, so it is compiled with the entry's features),
//! and the two keyed entries of the ChaCha20-Poly1305 short path
//! ([`chacha20_keyed`]: the key block apart, then the text). `#[inline(never)]` keeps
//! each one named symbol in the machine code, which `cargo xtask asm` inspects (xmm and no
//! VEX in ssse3, ymm in avx2 without EVEX, ymm with EVEX in avx512vl, zmm in avx512f;
//! `vzeroupper` before `ret`, no `call`) and `cargo xtask emu` runs under the Bochs
//! emulator.
//!
//! Arguments are the 16 state words, plain pointers and a length: the entries allocate
//! nothing, cannot panic and make no calls. `src` and `dst` are equal (in place) or
//! disjoint (out of place: one pass over memory).

use super::core::{chacha20_keyed, chacha20_xor, chacha20_xor_evex, keyed_max_text};
use crate::x86::vector::{Evex, Vex, Ymm, Zmm};
use crate::x86::word32::Xmm;

macro_rules! entries {
    ($($(#[$doc:meta])* $features:literal, $v:ty => $name:ident, $core:ident;)*) => {$(
        $(#[$doc])*
        /// XORs the ChaCha20 keystream of `state` (constants, key, block counter in word
        /// 12, nonce; the counter is not written back) into `len` bytes from `src`, into
        /// `dst`.
        ///
        /// # Safety
        /// `src` is valid for reads and `dst` for writes of `len` bytes, `src == dst` or
        /// the two do not overlap, and the CPU has the features this function is compiled
        /// for.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub unsafe fn $name(state: &[u32; 16], src: *const u8, dst: *mut u8, len: usize) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe { $core::<$v>(state, src, dst, len) }
        }
    )*};
}

entries! {
    /// `chacha20-ssse3`: xmm, legacy SSE encoding, 4 blocks vertical.
    "ssse3", Xmm<Vex> => chacha20_ssse3, chacha20_xor;
    /// `chacha20-avx2`: ymm, VEX encoding, 8 blocks vertical.
    "avx2", Ymm<Vex> => chacha20_avx2, chacha20_xor;
    /// `chacha20-avx512vl`: ymm, EVEX encoding (`vprold`, 32 registers, byte masks).
    "avx2,avx512f,avx512bw,avx512vl", Ymm<Evex> => chacha20_avx512vl, chacha20_xor_evex;
    /// `chacha20-avx512f`: zmm, 16 blocks vertical.
    "avx2,avx512f,avx512bw,avx512vl", Zmm => chacha20_avx512f, chacha20_xor_evex;
}

/// A keyed entry: state, the 64-byte key block buffer, source, destination, text length.
pub type KeyedFn = unsafe fn(&[u32; 16], *mut u8, *const u8, *mut u8, usize);

/// The longest text [`chacha20_keyed_avx2`] takes.
pub const KEYED_MAX_TEXT_AVX2: usize = keyed_max_text::<Ymm<Vex>>();

/// The longest text [`chacha20_keyed_avx512f`] takes.
pub const KEYED_MAX_TEXT_AVX512F: usize = keyed_max_text::<Zmm>();

macro_rules! keyed_entries {
    ($($(#[$doc:meta])* $features:literal, $v:ty => $name:ident;)*) => {$(
        $(#[$doc])*
        /// The keystream of a short ChaCha20-Poly1305 request in one kernel call: block
        /// `state[12]` (the one-time key's block) stored at `key`, the blocks after it XORed
        /// into `len` bytes from `src`, into `dst` (`core::chacha20_keyed`). The counter is
        /// not written back.
        ///
        /// # Safety
        /// `key` is writable for 64 bytes; `src` is valid for reads and `dst` for writes of
        /// `len` bytes, at most `KEYED_MAX_TEXT_*` of the width, `src == dst` or the
        /// two do not overlap, neither overlapping `key`; the CPU has the features this
        /// function is compiled for.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub unsafe fn $name(
            state: &[u32; 16],
            key: *mut u8,
            src: *const u8,
            dst: *mut u8,
            len: usize,
        ) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe { chacha20_keyed::<$v>(state, key, src, dst, len) }
        }
    )*};
}

keyed_entries! {
    /// The short path of `rfc7539-chacha20-poly1305-avx2`: ymm, VEX encoding.
    "avx2", Ymm<Vex> => chacha20_keyed_avx2;
    /// The short path of `rfc7539-chacha20-poly1305-avx512` and `-avx512ifma`: zmm (and
    /// EVEX ymm / xmm rows).
    "avx2,avx512f,avx512bw,avx512vl", Zmm => chacha20_keyed_avx512f;
}
