//! The `#[target_feature]` entries of the fused ChaCha20-Poly1305 drivers: thin shells
//! around the generic core ([`fused`](super::fused)), one per width / Poly1305 backend and
//! direction plus one for the AAD, `#[inline(never)]` so that each is one named symbol for
//! `cargo xtask asm` (ymm / VEX only in avx2, zmm in avx512 and avx512ifma, `vpmadd52luq` in
//! avx512ifma, `vzeroupper` before `ret`, no `call`) and `cargo xtask emu`; and one
//! whole-seal entry per width that derives the one-time key in its first batch
//! ([`seal_keyed`]).
//!
//! Arguments are plain arrays and pointers: the ChaCha20 state words, the clamped `r` as
//! `[r0, r1, r1 + r1 / 4]` (64-bit limbs), the powers `r^1..r^8` in radix 2^26 (or
//! `None`: the AAD entry then takes the scalar step; the text entries compute the powers
//! themselves when the text is long enough for the vector path, else take the scalar
//! step), the Poly1305 sum as three 64-bit limbs.

use super::fused::{absorb_padded, crypt, open_keyed, seal_keyed};
use crate::poly1305::simd::ifma::Lanes44;
use crate::poly1305::simd::lanes::ScalarLanes;
use crate::poly1305::simd::scalar::{Acc, R64};
use crate::poly1305::simd::vec26::Lanes26;
use crate::x86::vector::{Vex, Ymm, Zmm};

/// `r` as the entries take it: `[r0, r1, s1]`.
pub type RLimbs = [u64; 3];
/// `r^1..r^8` in radix 2^26.
pub type Powers = [[u64; 5]; 8];

/// `r` as the entries take it, back in the form the Poly1305 code uses.
pub(crate) fn r64(r: &RLimbs) -> R64 {
    R64 {
        r0: r[0],
        r1: r[1],
        s1: r[2],
    }
}

/// One whole-request entry (`rfc7539_seal_*`, `rfc7539_open_*`): the request's state at
/// block 0, `r`, `s` and the sum written for the caller's tag, around the fused core
/// `$core` ([`seal_keyed`] or [`open_keyed`]).
macro_rules! whole_entry {
    ($(#[$doc:meta])* $features:literal, $name:ident, $core:ident::<$v:ty, $p:ty>) => {
        $(#[$doc])*
        #[inline(never)]
        #[target_feature(enable = $features)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name(
            s: &mut [u32; 16],
            r: &mut RLimbs,
            tag_s: &mut [u8; 16],
            h: &mut [u64; 3],
            aad: *const u8,
            aad_len: usize,
            src: *const u8,
            dst: *mut u8,
            len: usize,
        ) {
            let mut r64 = R64::default();
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe { $core::<$v, $p>(s, &mut r64, tag_s, h, aad, aad_len, src, dst, len) };
            *r = [r64.r0, r64.r1, r64.s1];
            zeroize::Zeroize::zeroize(&mut r64);
        }
    };
}

macro_rules! entries {
    ($($(#[$doc:meta])* $features:literal, $v:ty, $p:ty => $enc:ident, $dec:ident, $aad:ident,
        $seal:ident, $open:ident;)*) => {$(
        $(#[$doc])*
        /// Encrypts `len` bytes from `src` into `dst` and absorbs the ciphertext (the last
        /// partial block zero-padded) into `h`; advances the counter in `s[12]`.
        ///
        /// # Safety
        /// `src` readable and `dst` writable for `len` bytes, equal or disjoint; the CPU
        /// has this function's features; `s[12] + ceil(len / 64) <= 2^32`.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub unsafe fn $enc(
            s: &mut [u32; 16],
            r: &RLimbs,
            pow: Option<&Powers>,
            h: &mut [u64; 3],
            src: *const u8,
            dst: *mut u8,
            len: usize,
        ) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe { crypt::<$v, $p, true>(s, &r64(r), pow, h, src, dst, len) }
        }

        $(#[$doc])*
        /// Absorbs the ciphertext `src` (`len` bytes, the last partial block zero-padded)
        /// into `h` and decrypts it into `dst`; advances the counter in `s[12]`.
        ///
        /// # Safety
        /// As for the encryption entry.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub unsafe fn $dec(
            s: &mut [u32; 16],
            r: &RLimbs,
            pow: Option<&Powers>,
            h: &mut [u64; 3],
            src: *const u8,
            dst: *mut u8,
            len: usize,
        ) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe { crypt::<$v, $p, false>(s, &r64(r), pow, h, src, dst, len) }
        }

        $(#[$doc])*
        /// Absorbs `len` bytes of AAD at `p` (the last partial block zero-padded) into `h`.
        ///
        /// # Safety
        /// `p` readable for `len` bytes; the CPU has this function's features.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub unsafe fn $aad(
            r: &RLimbs,
            pow: Option<&Powers>,
            h: &mut [u64; 3],
            p: *const u8,
            len: usize,
        ) {
            let mut acc = Acc { h: *h };
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe { absorb_padded::<$p>(&mut acc, &r64(r), pow, p, len) };
            *h = acc.h;
        }

        whole_entry! {
            $(#[$doc])*
            /// A whole seal from the request's state at block 0 (`s[12] == 0`): the one-time
            /// key from the first batch, the AAD (`aad_len` bytes at `aad`), `len` bytes from
            /// `src` encrypted into `dst` (at least `raw::SEAL_MIN_AVX2` or `SEAL_MIN_ZMM` for
            /// the width) and absorbed. Writes `r`, the key's `s` half and the sum `h` for the
            /// tag; advances the counter in `s[12]`.
            ///
            /// # Safety
            /// `aad` readable for `aad_len` bytes; `src` readable and `dst` writable for `len`
            /// bytes, equal or disjoint, `len` at least the width's minimum; the CPU has this
            /// function's features; `1 + ceil(len / 64) <= 2^32`.
            $features, $seal, seal_keyed::<$v, $p>
        }

        whole_entry! {
            $(#[$doc])*
            /// A whole open from the request's state at block 0 (`s[12] == 0`), as the
            /// whole-seal entry: the one-time key from the first batch, the AAD, `len` bytes
            /// of ciphertext from `src` absorbed and decrypted into `dst` (within
            /// `raw::OPEN_AVX2` or `OPEN_ZMM` for the width: a first batch and a tail). Writes
            /// `r`, `s` and `h` for the tag (the caller compares it and wipes `dst` on a
            /// mismatch); advances the counter in `s[12]`.
            ///
            /// # Safety
            /// As for the whole-seal entry, with `len` in the width's range.
            $features, $open, open_keyed::<$v, $p>
        }
    )*};
}

entries! {
    /// `rfc7539-chacha20-poly1305-avx2`: ymm, VEX encoding.
    "avx,avx2", Ymm<Vex>, ScalarLanes<Ymm<Vex>> => rfc7539_enc_avx2, rfc7539_dec_avx2,
        rfc7539_aad_avx2, rfc7539_seal_avx2, rfc7539_open_avx2;
    /// `rfc7539-chacha20-poly1305-avx512`: zmm, Poly1305 in radix 2^26.
    "avx,avx2,avx512f,avx512bw,avx512vl", Zmm, Lanes26<Zmm> => rfc7539_enc_avx512,
        rfc7539_dec_avx512, rfc7539_aad_avx512, rfc7539_seal_avx512, rfc7539_open_avx512;
    /// `rfc7539-chacha20-poly1305-avx512ifma`: zmm, Poly1305 in radix 2^44 on the 52-bit
    /// multiply-adds.
    "avx,avx2,avx512f,avx512bw,avx512vl,avx512ifma", Zmm, Lanes44 => rfc7539_enc_avx512ifma,
        rfc7539_dec_avx512ifma, rfc7539_aad_avx512ifma, rfc7539_seal_avx512ifma,
        rfc7539_open_avx512ifma;
}
