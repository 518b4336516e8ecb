//! The Advanced SIMD layer the arm64 drivers share: 16-byte loads, stores and XOR on
//! `uint8x16_t`, and block access to a request run ([`InOut`]: in place, or a source and
//! a disjoint destination).
//!
//! Advanced SIMD is part of the `aarch64-unknown-linux-gnu` baseline (the target enables
//! `neon`), so these helpers need no `target_feature` of their own; the tokens still
//! declare `neon` so that the registry's mask and reports name it. Everything is
//! `#[inline(always)]`, to be compiled into the drivers' `#[target_feature]` entries.

use core::arch::aarch64::{uint8x16_t, vdupq_n_u8, veorq_u8, vld1q_u8, vst1q_u8};

use cryptoreg_registry::InOut;

/// Loads the first 16 bytes of `src` (which must hold at least 16).
#[inline(always)]
pub(crate) fn load(src: &[u8]) -> uint8x16_t {
    let src: &[u8; 16] = src[..16].try_into().expect("16 bytes");
    // SAFETY: `src` is 16 readable bytes; `ld1` has no alignment requirement; Advanced
    // SIMD is baseline on aarch64.
    unsafe { vld1q_u8(src.as_ptr()) }
}

/// Stores 16 bytes at the start of `dst` (which must hold at least 16).
#[inline(always)]
pub(crate) fn store(dst: &mut [u8], v: uint8x16_t) {
    let dst: &mut [u8; 16] = (&mut dst[..16]).try_into().expect("16 bytes");
    // SAFETY: `dst` is 16 writable bytes; `st1` has no alignment requirement; Advanced
    // SIMD is baseline on aarch64.
    unsafe { vst1q_u8(dst.as_mut_ptr(), v) }
}

/// XOR of two blocks.
#[inline(always)]
pub(crate) fn xor(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    // SAFETY: Advanced SIMD is baseline on aarch64; registers only.
    unsafe { veorq_u8(a, b) }
}

/// An all-zero block.
#[inline(always)]
pub(crate) fn zero() -> uint8x16_t {
    // SAFETY: Advanced SIMD is baseline on aarch64; registers only.
    unsafe { vdupq_n_u8(0) }
}

/// The destination of a run (the buffer itself in place).
#[inline(always)]
pub(crate) fn output<'b>(io: &'b mut InOut<'_>) -> &'b mut [u8] {
    match io {
        InOut::InPlace(b) => b,
        InOut::Split { dst, .. } => dst,
    }
}

/// The input block at `off` of the run.
#[inline(always)]
pub(crate) fn load_at(io: &InOut<'_>, off: usize) -> uint8x16_t {
    load(&io.input()[off..])
}

/// `N` consecutive input blocks from `off`.
#[inline(always)]
pub(crate) fn load_n<const N: usize>(io: &InOut<'_>, off: usize) -> [uint8x16_t; N] {
    let src = &io.input()[off..off + 16 * N];
    core::array::from_fn(|i| load(&src[16 * i..]))
}

/// Stores a block at `off` of the run's destination.
#[inline(always)]
pub(crate) fn store_at(io: &mut InOut<'_>, off: usize, v: uint8x16_t) {
    store(&mut output(io)[off..], v);
}

/// Stores `N` consecutive blocks from `off` of the run's destination.
#[inline(always)]
pub(crate) fn store_n<const N: usize>(io: &mut InOut<'_>, off: usize, b: &[uint8x16_t; N]) {
    let dst = &mut output(io)[off..off + 16 * N];
    for (i, v) in b.iter().enumerate() {
        store(&mut dst[16 * i..], *v);
    }
}

/// Copies `buf.len()` input bytes from `off` into `buf`.
#[inline(always)]
pub(crate) fn read(io: &InOut<'_>, off: usize, buf: &mut [u8]) {
    let n = buf.len();
    buf.copy_from_slice(&io.input()[off..off + n]);
}

/// Writes `buf` to the run's destination at `off`.
#[inline(always)]
pub(crate) fn write(io: &mut InOut<'_>, off: usize, buf: &[u8]) {
    output(io)[off..off + buf.len()].copy_from_slice(buf);
}
