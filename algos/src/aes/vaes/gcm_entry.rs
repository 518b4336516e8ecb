//! The `#[target_feature]` entries of the stitched GCM core (`gcm`), one per width and
//! operation, as `entry` has them for XTS and CTR: `#[inline(never)]` named symbols for
//! `cargo xtask asm` and `cargo xtask emu`, plain pointers and lengths in, no allocation,
//! no panic, no call. `src` and `dst` are identical (in place) or disjoint.

use super::entry::{by_rounds, RoundKeyBytes};
pub use super::gcm::GcmTuning;
use super::gcm::{gcm_crypt, gcm_one_shot};
use crate::ghash::x86::vpclmul_core::GhashPowers;
use crate::x86::vector::{Evex, Vex, Ymm, Zmm};

/// The streaming entries' type: keys, rounds, powers, counter, accumulator, src, dst, len,
/// and the loop's form for this CPU ([`GcmTuning`]).
pub type GcmEntry = unsafe fn(
    &RoundKeyBytes,
    usize,
    &GhashPowers,
    &mut [u8; 16],
    &mut [u8; 16],
    *const u8,
    *mut u8,
    usize,
    GcmTuning,
);

/// The one-shot entries' type: keys, rounds, powers, 12-byte nonce, AAD, AAD length, src,
/// dst, len, tag, tag length, and the loop's form as for [`GcmEntry`].
pub type GcmOneShotEntry = unsafe fn(
    &RoundKeyBytes,
    usize,
    &GhashPowers,
    *const u8,
    *const u8,
    usize,
    *const u8,
    *mut u8,
    usize,
    *mut u8,
    usize,
    GcmTuning,
);

macro_rules! entries {
    ($(
        $(#[$doc:meta])*
        $features:literal, $v:ty, $n:tt => $enc:ident, $dec:ident, $seal:ident, $open:ident;
    )*) => {$(
        $(#[$doc])*
        /// Streaming encryption of `len` bytes (a partial block only at the end of the
        /// request): the keystream from the counter block `ctr` (advanced), the ciphertext
        /// GHASHed into `acc`. `keys` is the encryption schedule of `rounds` (10, 12, 14).
        /// `tuning`: the loop's form for this CPU ([`GcmTuning`]).
        ///
        /// # Safety
        /// `src` is valid for reads and `dst` for writes of `len` bytes, `src == dst` or
        /// the two do not overlap, and the CPU has the features this function is compiled
        /// for.
        #[inline(never)]
        #[target_feature(enable = $features)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $enc(
            keys: &RoundKeyBytes,
            rounds: usize,
            powers: &GhashPowers,
            ctr: &mut [u8; 16],
            acc: &mut [u8; 16],
            src: *const u8,
            dst: *mut u8,
            len: usize,
            tuning: GcmTuning,
        ) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe {
                by_rounds!(rounds, gcm_crypt::<$v, $n, false>(keys, powers, ctr, acc, src, dst, len, tuning))
            }
        }

        $(#[$doc])*
        /// Streaming decryption: the ciphertext GHASHed into `acc`, then decrypted. As the
        /// encryption entry otherwise.
        ///
        /// # Safety
        /// As for the encryption entry.
        #[inline(never)]
        #[target_feature(enable = $features)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $dec(
            keys: &RoundKeyBytes,
            rounds: usize,
            powers: &GhashPowers,
            ctr: &mut [u8; 16],
            acc: &mut [u8; 16],
            src: *const u8,
            dst: *mut u8,
            len: usize,
            tuning: GcmTuning,
        ) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe {
                by_rounds!(rounds, gcm_crypt::<$v, $n, true>(keys, powers, ctr, acc, src, dst, len, tuning))
            }
        }

        $(#[$doc])*
        /// A whole encryption (the fused `seal`): AAD, text from `J0 + 1` (`J0` = the
        /// 12-byte `nonce` then `00 00 00 01`), lengths, and the first `tag_len` bytes of
        /// the tag into `tag`.
        ///
        /// # Safety
        /// `nonce` is valid for reads of 12 bytes, `aad` of `aad_len` bytes, `tag` for
        /// writes of `tag_len <= 16` bytes; otherwise as the encryption entry.
        #[inline(never)]
        #[target_feature(enable = $features)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $seal(
            keys: &RoundKeyBytes,
            rounds: usize,
            powers: &GhashPowers,
            nonce: *const u8,
            aad: *const u8,
            aad_len: usize,
            src: *const u8,
            dst: *mut u8,
            len: usize,
            tag: *mut u8,
            tag_len: usize,
            tuning: GcmTuning,
        ) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe {
                by_rounds!(rounds, gcm_one_shot::<$v, $n, false>(
                    keys, powers, nonce, aad, aad_len, src, dst, len, tag, tag_len, tuning
                ))
            }
        }

        $(#[$doc])*
        /// A whole decryption (the fused `open`): decrypts into `dst` and writes the first
        /// `tag_len` bytes of the expected tag into `tag`; the caller compares them and
        /// wipes `dst` on a mismatch.
        ///
        /// # Safety
        /// As for the seal entry.
        #[inline(never)]
        #[target_feature(enable = $features)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $open(
            keys: &RoundKeyBytes,
            rounds: usize,
            powers: &GhashPowers,
            nonce: *const u8,
            aad: *const u8,
            aad_len: usize,
            src: *const u8,
            dst: *mut u8,
            len: usize,
            tag: *mut u8,
            tag_len: usize,
            tuning: GcmTuning,
        ) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe {
                by_rounds!(rounds, gcm_one_shot::<$v, $n, true>(
                    keys, powers, nonce, aad, aad_len, src, dst, len, tag, tag_len, tuning
                ))
            }
        }
    )*};
}

entries! {
    /// `gcm-aes-vaes-avx2`: ymm registers, VEX encoding.
    "aes,avx2,vaes,vpclmulqdq", Ymm<Vex>, 8 =>
        gcm_enc_vaes_avx2, gcm_dec_vaes_avx2, gcm_seal_vaes_avx2, gcm_open_vaes_avx2;
    /// `gcm-aes-vaes-avx10_256`: ymm registers with AVX-512VL/BW mask registers.
    "aes,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl", Ymm<Evex>, 8 =>
        gcm_enc_vaes_avx10_256, gcm_dec_vaes_avx10_256, gcm_seal_vaes_avx10_256,
        gcm_open_vaes_avx10_256;
    /// `gcm-aes-vaes-avx10_512`: zmm registers.
    "aes,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl", Zmm, 4 =>
        gcm_enc_vaes_avx10_512, gcm_dec_vaes_avx10_512, gcm_seal_vaes_avx10_512,
        gcm_open_vaes_avx10_512;
}
