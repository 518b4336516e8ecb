//! The `#[target_feature]` entry functions: one per driver and direction, each a thin
//! shell that instantiates a generic core (inlined into it, so the core is compiled with the
//! entry's features) for the key size in use. They are `#[inline(never)]` so that each is
//! one named symbol in the machine code, which `cargo xtask asm` inspects (ymm only in the
//! avx2 and avx10_256 entries, zmm in the avx10_512 entries, `vzeroupper` before `ret`,
//! no `call`), and which `cargo xtask emu` runs under the Bochs emulator.
//!
//! Arguments are plain pointers, lengths and round-key bytes: the entries allocate nothing,
//! cannot panic and make no calls, so they can run under the emulator. Every entry reads
//! `src` and writes `dst` (one pass for an out-of-place request); in place passes the same
//! pointer twice. The two must be identical or not overlap at all.

use core::arch::x86_64::{
    __m128i, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_loadu_si128, _mm_storeu_si128,
    _mm_xor_si128,
};

use super::ctr::ctr_crypt;
use super::xts::xts_crypt;
use crate::x86::vector::{Evex, Vex, Ymm, Zmm};

pub use crate::aes::x86::RoundKeyBytes;

macro_rules! by_rounds {
    ($rounds:expr, $f:ident :: <$v:ty $(, $extra:tt)*> ($($arg:expr),*)) => {
        match $rounds {
            10 => $f::<$v, 10 $(, $extra)*>($($arg),*),
            12 => $f::<$v, 12 $(, $extra)*>($($arg),*),
            _ => $f::<$v, 14 $(, $extra)*>($($arg),*),
        }
    };
}
pub(super) use by_rounds;

macro_rules! entries {
    ($(
        $(#[$doc:meta])*
        $features:literal, $v:ty, $n:tt =>
            $xts_enc:ident, $xts_dec:ident, $xts_enc_iv:ident, $xts_dec_iv:ident, $ctr:ident;
    )*) => {$(
        $(#[$doc])*
        /// XTS encryption entry (see `xts::xts_crypt` for the semantics of `tweak` and
        /// `len`); `keys` is the data key's encryption schedule of `rounds` (10, 12, 14).
        ///
        /// # Safety
        /// `src` is valid for reads and `dst` for writes of `len` bytes, `src == dst` or
        /// the two do not overlap, and the CPU has the features this function is compiled
        /// for.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub unsafe fn $xts_enc(
            keys: &RoundKeyBytes,
            rounds: usize,
            tweak: &mut [u8; 16],
            src: *const u8,
            dst: *mut u8,
            len: usize,
        ) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe { by_rounds!(rounds, xts_crypt::<$v, false, $n>(keys, None, tweak, src, dst, len)) }
        }

        $(#[$doc])*
        /// XTS decryption entry; `keys` is the data key's `AESDEC` schedule.
        ///
        /// # Safety
        /// As for the encryption entry.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub unsafe fn $xts_dec(
            keys: &RoundKeyBytes,
            rounds: usize,
            tweak: &mut [u8; 16],
            src: *const u8,
            dst: *mut u8,
            len: usize,
        ) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe { by_rounds!(rounds, xts_crypt::<$v, true, $n>(keys, None, tweak, src, dst, len)) }
        }

        $(#[$doc])*
        /// XTS encryption of a whole request from its IV: `tweak` holds the IV, which is
        /// encrypted here with the tweak key's schedule `tweak_keys` (same `rounds`), so
        /// the tweak never leaves its register before the data needs it; otherwise as the
        /// plain encryption entry.
        ///
        /// # Safety
        /// As for the encryption entry.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub unsafe fn $xts_enc_iv(
            keys: &RoundKeyBytes,
            tweak_keys: &RoundKeyBytes,
            rounds: usize,
            tweak: &mut [u8; 16],
            src: *const u8,
            dst: *mut u8,
            len: usize,
        ) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe {
                by_rounds!(rounds, xts_crypt::<$v, false, $n>(keys, Some(tweak_keys), tweak, src, dst, len))
            }
        }

        $(#[$doc])*
        /// XTS decryption of a whole request from its IV (see the encryption one); `keys`
        /// is the data key's `AESDEC` schedule, `tweak_keys` the tweak key's encryption
        /// schedule.
        ///
        /// # Safety
        /// As for the encryption entry.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub unsafe fn $xts_dec_iv(
            keys: &RoundKeyBytes,
            tweak_keys: &RoundKeyBytes,
            rounds: usize,
            tweak: &mut [u8; 16],
            src: *const u8,
            dst: *mut u8,
            len: usize,
        ) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe {
                by_rounds!(rounds, xts_crypt::<$v, true, $n>(keys, Some(tweak_keys), tweak, src, dst, len))
            }
        }

        $(#[$doc])*
        /// CTR entry (either direction; see `ctr::ctr_crypt`): `keys` is the encryption
        /// schedule, `ctr` the big-endian counter block, advanced per block.
        ///
        /// # Safety
        /// As for the XTS entries.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub unsafe fn $ctr(
            keys: &RoundKeyBytes,
            rounds: usize,
            ctr: &mut [u8; 16],
            src: *const u8,
            dst: *mut u8,
            len: usize,
        ) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe { by_rounds!(rounds, ctr_crypt::<$v, $n>(keys, ctr, src, dst, len)) }
        }
    )*};
}

entries! {
    /// `*-vaes-avx2`: ymm registers, VEX encoding.
    "aes,avx2,vaes,vpclmulqdq", Ymm<Vex>, 8 =>
        xts_enc_vaes_avx2, xts_dec_vaes_avx2, xts_enc_iv_vaes_avx2, xts_dec_iv_vaes_avx2,
        ctr_vaes_avx2;
    /// `*-vaes-avx10_256`: ymm registers with AVX-512VL/BW mask registers.
    "aes,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl", Ymm<Evex>, 8 =>
        xts_enc_vaes_avx10_256, xts_dec_vaes_avx10_256, xts_enc_iv_vaes_avx10_256,
        xts_dec_iv_vaes_avx10_256, ctr_vaes_avx10_256;
    /// `*-vaes-avx10_512`: zmm registers.
    "aes,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl", Zmm, 4 =>
        xts_enc_vaes_avx10_512, xts_dec_vaes_avx10_512, xts_enc_iv_vaes_avx10_512,
        xts_dec_iv_vaes_avx10_512, ctr_vaes_avx10_512;
}

/// Encrypts one block with AES-NI (the XTS tweak: the IV under the tweak key).
///
/// # Safety
/// The CPU has AES-NI.
#[inline(never)]
#[target_feature(enable = "aes")]
pub unsafe fn encrypt_block_aesni(keys: &RoundKeyBytes, rounds: usize, block: &mut [u8; 16]) {
    let rounds = rounds.clamp(10, 14);
    // SAFETY: AES-NI is enabled; every pointer is a 16-byte array.
    unsafe {
        let ld = |k: &[u8; 16]| _mm_loadu_si128(k.as_ptr().cast::<__m128i>());
        let mut x = _mm_xor_si128(ld(block), ld(&keys[0]));
        for key in &keys[1..rounds] {
            x = _mm_aesenc_si128(x, ld(key));
        }
        x = _mm_aesenclast_si128(x, ld(&keys[rounds]));
        _mm_storeu_si128(block.as_mut_ptr().cast::<__m128i>(), x);
    }
}
