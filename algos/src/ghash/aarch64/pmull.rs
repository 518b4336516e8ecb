//! GHASH on PMULL (64x64 carry-less multiply) with aggregated reduction over four
//! blocks: the core `ghash-ce` and `gcm-aes-ce` share.
//!
//! Representation (as `ghash/x86/xmm.rs`): a block is byte-reversed on load, so the
//! register holds it as a big-endian 128-bit integer, GHASH's bit-reflected polynomial,
//! the convention of `ghash-generic`. A product is four PMULLs (schoolbook), kept
//! unreduced ([`Wide`]) so that a group of four blocks multiplied by H^4 .. H^1 is XORed
//! first and reduced once: `Y' = (Y ^ X1)·H^4 ^ X2·H^3 ^ X3·H^2 ^ X4·H`. The reduction is
//! `ghash-generic`'s shift-and-XOR fold, once per group, in general-purpose registers
//! (constant-time: shifts and XORs only).

use core::arch::aarch64::{
    uint8x16_t, vextq_u8, vgetq_lane_u64, vld1q_u8, vmull_p64, vreinterpretq_u64_u8,
    vreinterpretq_u8_p128, vrev64q_u8, vst1q_u8,
};

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::aarch64::neon::{xor, zero};
use crate::ghash::generic::gf128_mul;

/// Blocks per aggregated group.
pub(crate) const GROUP: usize = 4;

/// H^1 ..= H^4 (index 0 is H) in register form (the little-endian bytes of the
/// big-endian value of the GHASH block). Key material: wiped on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct HPowers(pub(crate) [[u8; 16]; GROUP]);

impl HPowers {
    /// The powers of `h` (GHASH byte order), with the portable constant-time multiply.
    pub(crate) fn new(h: &[u8; 16]) -> HPowers {
        let h = u128::from_be_bytes(*h);
        let mut p = h;
        let mut out = [[0u8; 16]; GROUP];
        for slot in out.iter_mut() {
            *slot = p.to_le_bytes();
            p = gf128_mul(p, h);
        }
        HPowers(out)
    }

    /// The all-zero (unkeyed) table.
    pub(crate) const fn empty() -> HPowers {
        HPowers([[0; 16]; GROUP])
    }
}

/// An unreduced 256-bit product (or XOR of products): `hi·x^128 ^ mid·x^64 ^ lo` in
/// register (big-endian integer) terms.
#[derive(Clone, Copy)]
pub(crate) struct Wide {
    lo: uint8x16_t,
    mid: uint8x16_t,
    hi: uint8x16_t,
}

/// Proof that PMULL is enabled where this value is used (made only by the `unsafe`
/// constructor inside `#[target_feature(enable = "aes")]` entries: Rust's `aes` feature
/// on aarch64 covers PMULL).
#[derive(Clone, Copy)]
pub(crate) struct Pmull(());

/// The 128-bit carry-less product of two 64-bit values (`PMULL`).
#[inline]
#[target_feature(enable = "aes")]
fn pmull(x: u64, y: u64) -> uint8x16_t {
    vreinterpretq_u8_p128(vmull_p64(x, y))
}

/// The register as a `u128` (lane 0 low).
#[inline(always)]
fn to_u128(x: uint8x16_t) -> u128 {
    // SAFETY: Advanced SIMD is baseline on aarch64; registers only.
    let (lo, hi) = unsafe {
        let q = vreinterpretq_u64_u8(x);
        (vgetq_lane_u64::<0>(q), vgetq_lane_u64::<1>(q))
    };
    (u128::from(hi) << 64) | u128::from(lo)
}

/// A `u128` as a register (lane 0 low).
#[inline(always)]
fn from_u128(v: u128) -> uint8x16_t {
    let b = v.to_le_bytes();
    // SAFETY: 16 readable bytes; Advanced SIMD is baseline on aarch64.
    unsafe { vld1q_u8(b.as_ptr()) }
}

impl Pmull {
    /// # Safety
    /// Only inside a function compiled with `aes` enabled (PMULL), on a CPU with PMULL.
    #[inline(always)]
    pub(crate) unsafe fn new() -> Pmull {
        Pmull(())
    }

    /// Reverses the 16 bytes: GHASH byte order <-> register form.
    #[inline(always)]
    pub(crate) fn bswap(self, x: uint8x16_t) -> uint8x16_t {
        // SAFETY: Advanced SIMD is baseline on aarch64; registers only.
        unsafe {
            let r = vrev64q_u8(x);
            vextq_u8::<8>(r, r)
        }
    }

    /// Loads 16 bytes in GHASH order as a register-form value.
    #[inline(always)]
    pub(crate) fn load_block(self, b: &[u8]) -> uint8x16_t {
        self.bswap(crate::aarch64::neon::load(b))
    }

    /// Stores a register-form value in GHASH byte order.
    #[inline(always)]
    pub(crate) fn store_block(self, b: &mut [u8; 16], x: uint8x16_t) {
        // SAFETY: 16 writable bytes; Advanced SIMD is baseline on aarch64.
        unsafe { vst1q_u8(b.as_mut_ptr(), self.bswap(x)) }
    }

    /// An all-zero accumulator of products.
    #[inline(always)]
    pub(crate) fn zero_wide(self) -> Wide {
        let z = zero();
        Wide {
            lo: z,
            mid: z,
            hi: z,
        }
    }

    /// `w ^= a · b` (carry-less, 256 bits, unreduced).
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn mul_acc(self, w: &mut Wide, a: uint8x16_t, b: uint8x16_t) {
        let (qa, qb) = (vreinterpretq_u64_u8(a), vreinterpretq_u64_u8(b));
        let (a0, a1) = (vgetq_lane_u64::<0>(qa), vgetq_lane_u64::<1>(qa));
        let (b0, b1) = (vgetq_lane_u64::<0>(qb), vgetq_lane_u64::<1>(qb));
        w.lo = xor(w.lo, pmull(a0, b0));
        w.hi = xor(w.hi, pmull(a1, b1));
        w.mid = xor(w.mid, xor(pmull(a0, b1), pmull(a1, b0)));
    }

    /// Reduces a 256-bit product of register-form values to their GHASH product
    /// (`ghash-generic`'s fold).
    #[inline(always)]
    pub(crate) fn reduce(self, w: Wide) -> uint8x16_t {
        let (lo, mid, hi) = (to_u128(w.lo), to_u128(w.mid), to_u128(w.hi));
        let p_hi = hi ^ (mid >> 64);
        let p_lo = lo ^ (mid << 64);
        let high = (p_hi << 1) | (p_lo >> 127);
        let low = p_lo << 1;
        let spill = (low << 127) ^ (low << 126) ^ (low << 121);
        let t = low ^ spill;
        from_u128(high ^ t ^ (t >> 1) ^ (t >> 2) ^ (t >> 7))
    }

    /// `(y ^ x1)·H^n ^ x2·H^(n-1) ^ ... ^ xn·H` for `n = xs.len() <= 4` register-form
    /// blocks, one reduction.
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn group_regs(
        self,
        powers: &HPowers,
        y: uint8x16_t,
        xs: &[uint8x16_t],
    ) -> uint8x16_t {
        let n = xs.len().min(GROUP);
        if n == 0 {
            return y;
        }
        let mut w = self.zero_wide();
        for (i, (&x, p)) in xs[..n].iter().zip(powers.0[..n].iter().rev()).enumerate() {
            let x = if i == 0 { xor(x, y) } else { x };
            self.mul_acc(&mut w, x, crate::aarch64::neon::load(p));
        }
        self.reduce(w)
    }

    /// The aggregated update over the whole blocks of `data` (GHASH byte order).
    #[inline]
    #[target_feature(enable = "aes")]
    pub(crate) fn update(self, powers: &HPowers, mut y: uint8x16_t, data: &[u8]) -> uint8x16_t {
        let mut groups = data.chunks_exact(16 * GROUP);
        for g in &mut groups {
            let xs: [uint8x16_t; GROUP] = core::array::from_fn(|i| self.load_block(&g[16 * i..]));
            y = self.group_regs(powers, y, &xs);
        }
        let rest = groups.remainder();
        let n = rest.len() / 16;
        if n > 0 {
            let mut xs = [y; GROUP];
            for (i, x) in xs.iter_mut().enumerate().take(n) {
                *x = self.load_block(&rest[16 * i..]);
            }
            y = self.group_regs(powers, y, &xs[..n]);
        }
        y
    }
}
