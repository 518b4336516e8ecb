//! The 64x64 -> 128 carry-less multiply on PCLMULQDQ, behind the [`Pclmul`] token.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    _mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_cvtsi64_si128, _mm_unpackhi_epi64,
};

use crate::x86::token::Pclmul;

/// One PCLMULQDQ product. Taking the token proves the instruction exists on this CPU.
#[inline]
pub(crate) fn clmul64(_proof: Pclmul, n: u64, m: u64) -> u128 {
    // SAFETY: holding a `Pclmul` token proves PCLMULQDQ and SSE2 on this CPU.
    unsafe { clmul64_entry(n, m) }
}

/// # Safety
/// The CPU has PCLMULQDQ and SSE2.
#[inline(never)]
#[target_feature(enable = "pclmulqdq,sse2")]
unsafe fn clmul64_entry(n: u64, m: u64) -> u128 {
    let a = _mm_cvtsi64_si128(n as i64);
    let b = _mm_cvtsi64_si128(m as i64);
    let p = _mm_clmulepi64_si128::<0x00>(a, b);
    let lo = _mm_cvtsi128_si64(p) as u64;
    let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(p, p)) as u64;
    (u128::from(hi) << 64) | u128::from(lo)
}
