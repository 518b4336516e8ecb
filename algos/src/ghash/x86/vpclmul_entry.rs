//! The `#[target_feature]` entries of the GHASH core: one per width, `#[inline(never)]` so
//! each is one named symbol for `cargo xtask asm` (ymm only in the avx2 and avx10_256
//! entries, zmm in the avx512 one, `vzeroupper` before `ret`, no `call`) and for
//! `cargo xtask emu`. Plain pointers and lengths in: no allocation, no panic, no call.
//!
//! The `gcm-aes-vaes-*` drivers use these too, for the AAD and the length block of a
//! streaming request (`ghash_vpclmulqdq_avx10_256` is the EVEX ymm form of their
//! avx10_256 width).

use super::vpclmul_core::{compute_powers, ghash_update, GhashPowers};
use crate::x86::vector::{Evex, Vex, Ymm, Zmm};

/// Computes the power table `K_16 .. K_1` from `k1` (`H * x^-1` as reflected lane bytes,
/// see `core::h_times_x_inv`). One entry for every width: it works on one lane.
///
/// # Safety
/// The CPU has AVX2 and VPCLMULQDQ.
#[inline(never)]
#[target_feature(enable = "avx2,vpclmulqdq")]
pub unsafe fn ghash_powers_vpclmulqdq(k1: &[u8; 16], out: &mut GhashPowers) {
    // SAFETY: the features are enabled; the core is inlined here.
    unsafe { compute_powers::<Ymm<Vex>>(u128::from_le_bytes(*k1), out) }
}

/// The GHASH entries' type: powers, accumulator, data, len.
pub type GhashEntry = unsafe fn(&GhashPowers, &mut [u8; 16], *const u8, usize);

macro_rules! entries {
    ($($(#[$doc:meta])* $features:literal, $v:ty, $n:tt => $name:ident;)*) => {$(
        $(#[$doc])*
        /// GHASH of `len` bytes at `data` (the last block zero-padded if partial) into
        /// `acc`, a block in standard byte order, with the key's power table.
        ///
        /// # Safety
        /// `data` is valid for reads of `len` bytes and the CPU has the features this
        /// function is compiled for.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub unsafe fn $name(powers: &GhashPowers, acc: &mut [u8; 16], data: *const u8, len: usize) {
            // SAFETY: forwarded from this function's contract; the core is inlined here.
            unsafe { ghash_update::<$v, $n>(powers, acc, data, len) }
        }
    )*};
}

entries! {
    /// `ghash-vpclmulqdq-avx2`: ymm, VEX encoding.
    "avx2,vpclmulqdq", Ymm<Vex>, 8 => ghash_vpclmulqdq_avx2;
    /// ymm with EVEX encoding (the `gcm-aes-vaes-avx10_256` driver's AAD).
    "avx2,vpclmulqdq,avx512f,avx512bw,avx512vl", Ymm<Evex>, 8 => ghash_vpclmulqdq_avx10_256;
    /// `ghash-vpclmulqdq-avx512`: zmm.
    "avx2,vpclmulqdq,avx512f,avx512bw,avx512vl", Zmm, 4 => ghash_vpclmulqdq_avx512;
}
