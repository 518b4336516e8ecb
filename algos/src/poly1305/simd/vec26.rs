//! The radix-2^26 vector core of `poly1305-avx2` (ymm, 4 blocks at once) and
//! `poly1305-avx512` (zmm, 8 blocks at once), written once over [`PolyVec`].
//!
//! Each 64-bit lane of a vector holds one limb of one block's running sum, so a ymm
//! handles 4 blocks and a zmm 8. For `n` lanes and blocks `m_1 .. m_L` (`L` a multiple of
//! `n`), lane `j` accumulates `m_{j+1}, m_{j+1+n}, ...` as `acc = acc * r^n + m`, and at
//! the end lane `j` is multiplied by `r^(n-j)` and the lanes are summed:
//! `h * r^L + sum m_i r^(L-i+1)`, exactly the serial Poly1305 result. Products come from
//! `vpmuludq` (32 x 32 -> 64 bits), so every limb stays below 2^32 and every sum of five
//! products below 2^64; one lazy carry pass per multiply keeps limbs below 2^27.

use core::arch::x86_64::*;

use super::scalar::{Acc, Fe26, M26};
use crate::x86::vector::{SimdVec, Vex, Ymm, Zmm};

/// The 64-bit-lane operations Poly1305 needs on top of [`SimdVec`] (same safety contract:
/// call only from code compiled with the type's features, pointers valid as documented).
pub(crate) trait PolyVec: SimdVec {
    /// 64-bit lanes per vector: the blocks one vector carries.
    const BLOCKS: usize = 2 * Self::LANES;

    /// `x` in every 64-bit lane.
    unsafe fn splat64(x: u64) -> Self;
    /// Bitwise and.
    unsafe fn and(self, o: Self) -> Self;
    /// Bitwise or.
    unsafe fn or(self, o: Self) -> Self;
    /// `vpmuludq`: the low 32 bits of each 64-bit lane of both, multiplied to 64 bits.
    unsafe fn mul32(self, o: Self) -> Self;
    /// Loads [`BLOCKS`](Self::BLOCKS) 16-byte blocks at `p` (`2 * BYTES` bytes) and
    /// returns their low and high 64-bit halves, block `i` in lane `i`.
    unsafe fn load_blocks(p: *const u8) -> (Self, Self);
    /// The sum of all 64-bit lanes (wrapping).
    unsafe fn hsum(self) -> u64;
}

impl PolyVec for Ymm<Vex> {
    #[inline(always)]
    unsafe fn splat64(x: u64) -> Self {
        // SAFETY: AVX is enabled (module contract).
        Ymm::new(unsafe { _mm256_set1_epi64x(x as i64) })
    }

    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_and_si256(self.0, o.0) })
    }

    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_or_si256(self.0, o.0) })
    }

    #[inline(always)]
    unsafe fn mul32(self, o: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_mul_epu32(self.0, o.0) })
    }

    #[inline(always)]
    unsafe fn load_blocks(p: *const u8) -> (Self, Self) {
        // SAFETY: 64 readable bytes at `p` (caller); AVX2 is enabled.
        unsafe {
            let a = _mm256_loadu_si256(p.cast());
            let b = _mm256_loadu_si256(p.add(32).cast());
            // Per 128-bit lane: [b0, b2 | b1, b3]; the permute puts blocks in order.
            let lo = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_unpacklo_epi64(a, b));
            let hi = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_unpackhi_epi64(a, b));
            (Ymm::new(lo), Ymm::new(hi))
        }
    }

    #[inline(always)]
    unsafe fn hsum(self) -> u64 {
        // SAFETY: AVX2 is enabled (module contract).
        unsafe {
            let x = _mm_add_epi64(
                _mm256_castsi256_si128(self.0),
                _mm256_extracti128_si256::<1>(self.0),
            );
            (_mm_cvtsi128_si64(x) as u64).wrapping_add(_mm_extract_epi64::<1>(x) as u64)
        }
    }
}

impl PolyVec for Zmm {
    #[inline(always)]
    unsafe fn splat64(x: u64) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_set1_epi64(x as i64) })
    }

    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_and_si512(self.0, o.0) })
    }

    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_or_si512(self.0, o.0) })
    }

    #[inline(always)]
    unsafe fn mul32(self, o: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_mul_epu32(self.0, o.0) })
    }

    #[inline(always)]
    unsafe fn load_blocks(p: *const u8) -> (Self, Self) {
        // SAFETY: 128 readable bytes at `p` (caller); AVX-512F is enabled.
        unsafe {
            let a = _mm512_loadu_si512(p.cast());
            let b = _mm512_loadu_si512(p.add(64).cast());
            let even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
            let odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
            (
                Zmm(_mm512_permutex2var_epi64(a, even, b)),
                Zmm(_mm512_permutex2var_epi64(a, odd, b)),
            )
        }
    }

    #[inline(always)]
    unsafe fn hsum(self) -> u64 {
        // SAFETY: AVX-512F is enabled (module contract).
        unsafe { _mm512_reduce_add_epi64(self.0) as u64 }
    }
}

/// A field element with one limb vector per radix-2^26 limb.
type VFe<V> = [V; 5];

/// Splits the blocks `load_blocks` returned into radix-2^26 limbs, `hibit` (1 << 24 for
/// message blocks) added to the top limb.
#[inline(always)]
unsafe fn limbs<V: PolyVec>(lo: V, hi: V, hibit: V) -> VFe<V> {
    // SAFETY: features per the module contract.
    unsafe {
        let m = V::splat64(M26);
        [
            lo.and(m),
            lo.shr_epi64(26).and(m),
            lo.shr_epi64(52).or(hi.shl_epi64(12)).and(m),
            hi.shr_epi64(14).and(m),
            hi.shr_epi64(40).or(hibit),
        ]
    }
}

/// `h * r` per lane with one lazy carry pass; `r` limbs below 2^27, `s = 5 * r`.
#[inline(always)]
unsafe fn mul_reduce<V: PolyVec>(h: &VFe<V>, r: &VFe<V>, s: &VFe<V>, mask: V) -> VFe<V> {
    // SAFETY: features per the module contract.
    unsafe {
        let m = |a: V, b: V| a.mul32(b);
        let d0 = m(h[0], r[0])
            .add_epi64(m(h[1], s[4]))
            .add_epi64(m(h[2], s[3]))
            .add_epi64(m(h[3], s[2]))
            .add_epi64(m(h[4], s[1]));
        let d1 = m(h[0], r[1])
            .add_epi64(m(h[1], r[0]))
            .add_epi64(m(h[2], s[4]))
            .add_epi64(m(h[3], s[3]))
            .add_epi64(m(h[4], s[2]));
        let d2 = m(h[0], r[2])
            .add_epi64(m(h[1], r[1]))
            .add_epi64(m(h[2], r[0]))
            .add_epi64(m(h[3], s[4]))
            .add_epi64(m(h[4], s[3]));
        let d3 = m(h[0], r[3])
            .add_epi64(m(h[1], r[2]))
            .add_epi64(m(h[2], r[1]))
            .add_epi64(m(h[3], r[0]))
            .add_epi64(m(h[4], s[4]));
        let d4 = m(h[0], r[4])
            .add_epi64(m(h[1], r[3]))
            .add_epi64(m(h[2], r[2]))
            .add_epi64(m(h[3], r[1]))
            .add_epi64(m(h[4], r[0]));
        carry(d0, d1, d2, d3, d4, mask)
    }
}

/// One lazy carry pass, two chains interleaved (0 -> 1 -> 2 -> 3 -> 4 and 3 -> 4 -> 0 -> 1):
/// every limb ends below 2^26 + 2^12. `m` is 2^26 - 1 in every lane, from [`opaque_mask`].
#[inline(always)]
unsafe fn carry<V: PolyVec>(d0: V, d1: V, d2: V, d3: V, d4: V, m: V) -> VFe<V> {
    // SAFETY: features per the module contract.
    unsafe {
        let d1 = d1.add_epi64(d0.shr_epi64(26));
        let d0 = d0.and(m);
        let d4 = d4.add_epi64(d3.shr_epi64(26));
        let d3 = d3.and(m);
        let d2 = d2.add_epi64(d1.shr_epi64(26));
        let d1 = d1.and(m);
        let c = d4.shr_epi64(26);
        let d4 = d4.and(m);
        let d0 = d0.add_epi64(c).add_epi64(c.shl_epi64(2));
        let d3 = d3.add_epi64(d2.shr_epi64(26));
        let d2 = d2.and(m);
        let d1 = d1.add_epi64(d0.shr_epi64(26));
        let d0 = d0.and(m);
        let d4 = d4.add_epi64(d3.shr_epi64(26));
        let d3 = d3.and(m);
        [d0, d1, d2, d3, d4]
    }
}

/// Limb `i` of each power in `pow` (lane `j` gets `pow[j]`), and five times it.
#[inline(always)]
unsafe fn power_vectors<V: PolyVec>(lane_pow: &[Fe26; 8]) -> (VFe<V>, VFe<V>) {
    let mut r = [[0u64; 8]; 5];
    let mut s = [[0u64; 8]; 5];
    for (j, p) in lane_pow.iter().enumerate() {
        for i in 0..5 {
            r[i][j] = p[i];
            s[i][j] = p[i] * 5;
        }
    }
    // SAFETY: each row is 64 bytes, at least `V::BYTES`; features per the contract.
    let out = unsafe {
        (
            core::array::from_fn(|i| V::load(r[i].as_ptr().cast())),
            core::array::from_fn(|i| V::load(s[i].as_ptr().cast())),
        )
    };
    // Key-derived: wipe the stack copies (volatile, so the wipe is not optimised out).
    for row in r.iter_mut().chain(s.iter_mut()) {
        zeroize::Zeroize::zeroize(row);
    }
    out
}

/// 2^26 - 1 in every lane, read through a volatile load so that the compiler cannot see
/// its value. With the constant, LLVM proves the carried limbs below 2^32 across the
/// loop's phi nodes and drops the operand masks of `vpmuludq`'s IR form; the instruction
/// selector, which sees one loop block at a time, then no longer knows the operands are
/// 32-bit and emits a full 64 x 64-bit multiply (three `vpmuludq`, two shifts, two adds)
/// for each of the 25 products of a step. Hiding the mask keeps one `vpmuludq` each.
#[inline(always)]
unsafe fn opaque_mask<V: PolyVec>() -> V {
    let m = M26;
    // SAFETY: `m` is a live local; features per the module contract.
    unsafe { V::splat64(core::ptr::read_volatile(&m)) }
}

/// The lane accumulators of a vector pass, kept across calls by a caller that interleaves
/// Poly1305 with other work (the fused ChaCha20-Poly1305 entries): the running sums with
/// their latest group of blocks added but not yet multiplied, and `r^n` per lane.
pub(crate) struct Lanes26<V: PolyVec> {
    h: VFe<V>,
    rv: VFe<V>,
    sv: VFe<V>,
    mask: V,
}

impl<V: PolyVec> Lanes26<V> {
    /// Starts a pass with the group of `V::BLOCKS` blocks at `p`, `acc` entering lane 0;
    /// `pow[k]` is `r^(k+1)`.
    ///
    /// # Safety
    /// `p` is readable for `16 * V::BLOCKS` bytes; the CPU has `V`'s features.
    #[inline(always)]
    pub(crate) unsafe fn start(acc: &Acc, pow: &[Fe26; 8], p: *const u8) -> Self {
        // `r^n` in every lane: broadcasts, no stack copy of the powers to build and wipe.
        let rn = &pow[V::BLOCKS - 1];
        // SAFETY: forwarded from this function's contract.
        unsafe {
            let rv: VFe<V> = core::array::from_fn(|i| V::splat64(rn[i]));
            let sv: VFe<V> = core::array::from_fn(|i| V::splat64(rn[i] * 5));
            let (lo, hi) = V::load_blocks(p);
            let mut h = limbs(lo, hi, V::splat64(1 << 24));
            let h26 = acc.to_fe26();
            let mut first = [0u64; 8];
            for (i, limb) in h.iter_mut().enumerate() {
                first[0] = h26[i];
                *limb = limb.add_epi64(V::load(first.as_ptr().cast()));
            }
            Lanes26 {
                h,
                rv,
                sv,
                mask: opaque_mask(),
            }
        }
    }

    /// Absorbs `groups` more groups of `V::BLOCKS` blocks at `p`.
    ///
    /// # Safety
    /// `p` is readable for `16 * groups * V::BLOCKS` bytes; the CPU has `V`'s features.
    #[inline(always)]
    pub(crate) unsafe fn absorb(&mut self, mut p: *const u8, groups: usize) {
        // SAFETY: forwarded from this function's contract.
        unsafe {
            let hibit = V::splat64(1 << 24);
            for _ in 0..groups {
                let (lo, hi) = V::load_blocks(p);
                let m = limbs(lo, hi, hibit);
                let prod = mul_reduce(&self.h, &self.rv, &self.sv, self.mask);
                self.h = core::array::from_fn(|i| prod[i].add_epi64(m[i]));
                p = p.add(2 * V::BYTES);
            }
        }
    }

    /// Ends the pass: lane `j` times `r^(n-j)`, the lanes summed, as a running sum.
    ///
    /// # Safety
    /// The CPU has `V`'s features.
    #[inline(always)]
    pub(crate) unsafe fn fold(self, pow: &[Fe26; 8]) -> Acc {
        let n = V::BLOCKS;
        let lanes: [Fe26; 8] =
            core::array::from_fn(|j| if j < n { pow[n - 1 - j] } else { [0; 5] });
        // SAFETY: forwarded from this function's contract.
        unsafe {
            let (rl, sl) = power_vectors::<V>(&lanes);
            let fin = mul_reduce(&self.h, &rl, &sl, self.mask);
            Acc::from_fe26(core::array::from_fn(|i| fin[i].hsum()))
        }
    }
}

/// Absorbs `groups * V::BLOCKS` full message blocks at `p` into `acc` (`groups >= 1`),
/// `pow[k]` being `r^(k+1)` for `k < V::BLOCKS`.
///
/// # Safety
/// `p` is readable for `16 * groups * V::BLOCKS` bytes; the CPU has `V`'s features.
#[inline(always)]
pub(crate) unsafe fn blocks26<V: PolyVec>(
    acc: &mut Acc,
    pow: &[Fe26; 8],
    p: *const u8,
    groups: usize,
) {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        let mut lanes = Lanes26::<V>::start(acc, pow, p);
        lanes.absorb(p.add(2 * V::BYTES), groups - 1);
        *acc = lanes.fold(pow);
    }
}
