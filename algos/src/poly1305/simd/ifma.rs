//! The radix-2^44 AVX-512 IFMA core of `poly1305-avx512ifma`: 8 blocks at once in zmm
//! lanes, products from `vpmadd52luq` / `vpmadd52huq` (the low and high 52 bits of a
//! 52 x 52-bit product, added to an accumulator), as OpenSSL's `poly1305-x86_64.pl` does
//! on IFMA CPUs (technique only; this code is our own).
//!
//! Limbs are 44, 44 and 42 bits: `h = h0 + h1 2^44 + h2 2^88`. With `2^132 = 4 * 2^130`,
//! `h * r mod p` is
//!
//! ```text
//! d0 = h0 r0 + h1 (20 r2) + h2 (20 r1)
//! d1 = h0 r1 + h1 r0      + h2 (20 r2)
//! d2 = h0 r2 + h1 r1      + h2 r0
//! ```
//!
//! each `d` a low part (sum of low 52 bits) and a high part of weight 2^52 = 2^8 * 2^44,
//! which moves one limb up (shifted left by 8; from `d2` it wraps to `d0` times 20). The
//! lane scheme (lane `j` takes blocks `j, j + 8, ...`, powers `r^8` in the loop and
//! `r^(8-j)` at the end) is the radix-2^26 core's (`vec26`).

use core::arch::x86_64::*;

use super::scalar::{Acc, Fe44, M44};

/// A field element with one zmm per radix-2^44 limb.
type VFe = [__m512i; 3];

/// The low and high halves of column `i` of `h * r` (`s = 20 * r`): the three products of
/// output limb `i`, each half one chain of three multiply-adds.
///
/// Bounds: `h` limbs below 2^46 (a carried product's limbs, below 2^44 + 2^16, plus a
/// message limb or the running sum), `r` limbs below 2^44, `s` below 2^49. Each product
/// is below 2^95, so each low half sum is below 3 * 2^52 and each high half sum below
/// 2^45.
#[inline(always)]
unsafe fn column(h: &VFe, r: &VFe, s: &VFe, i: usize) -> (__m512i, __m512i) {
    // Column i: h0 r_i + h1 (r or s)_{i-1} + h2 (r or s)_{i-2}, indices mod 3, `s` where
    // the product passes 2^130.
    let (x, y, w) = match i {
        0 => (r[0], s[2], s[1]),
        1 => (r[1], r[0], s[2]),
        _ => (r[2], r[1], r[0]),
    };
    // SAFETY: AVX-512F and AVX-512IFMA are enabled in every caller (entry contract).
    unsafe {
        let z = _mm512_setzero_si512();
        let lo = _mm512_madd52lo_epu64(
            _mm512_madd52lo_epu64(_mm512_madd52lo_epu64(z, h[0], x), h[1], y),
            h[2],
            w,
        );
        let hi = _mm512_madd52hi_epu64(
            _mm512_madd52hi_epu64(_mm512_madd52hi_epu64(z, h[0], x), h[1], y),
            h[2],
            w,
        );
        (lo, hi)
    }
}

/// The three columns' halves as limbs below 2^59: high halves move one limb up (times
/// 2^8), and the top one wraps to limb 0 as `5 * 2^10` (`2^52 * 2^88 = 2^130 * 2^10`),
/// by one multiply-add by 5 (exact: the half is below 2^45) and a shift. Written as shifts
/// and adds, LLVM folds that into a 64-bit multiply by 5120, which without AVX-512DQ costs
/// two `vpmuludq` and three more operations.
#[inline(always)]
unsafe fn combine(lo: &VFe, hi: &VFe) -> VFe {
    // SAFETY: AVX-512F and AVX-512IFMA are enabled in every caller.
    unsafe {
        let wrap = _mm512_madd52lo_epu64(_mm512_setzero_si512(), hi[2], _mm512_set1_epi64(5));
        [
            _mm512_add_epi64(lo[0], _mm512_slli_epi64::<10>(wrap)),
            _mm512_add_epi64(lo[1], _mm512_slli_epi64::<8>(hi[0])),
            _mm512_add_epi64(lo[2], _mm512_slli_epi64::<8>(hi[1])),
        ]
    }
}

/// `h * r` per lane, then one parallel carry pass. Written for the fewest operations, not
/// the shortest latency (one multiply-add chain per half, no zeroed partials to add): the
/// fused ChaCha20-Poly1305 core runs it between ChaCha20 quarter rounds, where the vector
/// ports are the limit and the chain's latency is hidden. `d0 < 2^54 + 5 * 2^55 < 2^59`
/// and the other limbs are smaller, so no 64-bit lane overflows, and the carried limbs
/// (below 2^44 + 2^16) stay far inside the 52 bits a multiply-add reads.
#[inline(always)]
unsafe fn mul_reduce(h: &VFe, r: &VFe, s: &VFe) -> VFe {
    // SAFETY: AVX-512F and AVX-512IFMA are enabled in every caller (entry contract).
    unsafe {
        let (c0, c1, c2) = (column(h, r, s, 0), column(h, r, s, 1), column(h, r, s, 2));
        let d = combine(&[c0.0, c1.0, c2.0], &[c0.1, c1.1, c2.1]);
        carry(d[0], d[1], d[2])
    }
}

/// One parallel carry pass over limbs below 2^60: each limb keeps its low 44 (top: 42)
/// bits and takes the carry of the one below, the top's excess times 5 into limb 0. The
/// three carries are independent, so the pass adds about three operations of latency to
/// the block loop's chain instead of a serial 0 -> 1 -> 2 -> 0 -> 1 walk. From limbs below
/// 2^59 the limbs end below 2^44 + 2^16 (the top one below 2^42 + 2^17).
#[inline(always)]
unsafe fn carry(d0: __m512i, d1: __m512i, d2: __m512i) -> VFe {
    // SAFETY: AVX-512F is enabled in every caller.
    unsafe {
        let m44 = _mm512_set1_epi64(M44 as i64);
        let m42 = _mm512_set1_epi64(((1u64 << 42) - 1) as i64);
        let c0 = _mm512_srli_epi64::<44>(d0);
        let c1 = _mm512_srli_epi64::<44>(d1);
        let c2 = _mm512_srli_epi64::<42>(d2);
        [
            _mm512_add_epi64(
                _mm512_and_si512(d0, m44),
                _mm512_add_epi64(c2, _mm512_slli_epi64::<2>(c2)),
            ),
            _mm512_add_epi64(_mm512_and_si512(d1, m44), c0),
            _mm512_add_epi64(_mm512_and_si512(d2, m42), c1),
        ]
    }
}

/// Limb-wise `x + y`.
#[inline(always)]
unsafe fn add_limbs(x: VFe, y: VFe) -> VFe {
    // SAFETY: AVX-512F is enabled in every caller.
    core::array::from_fn(|i| unsafe { _mm512_add_epi64(x[i], y[i]) })
}

/// The powers `lane_pow[j]` in lane `j`, per limb, and 20 times them.
#[inline(always)]
unsafe fn power_vectors(lane_pow: &[Fe44; 8]) -> (VFe, VFe) {
    let mut r = [[0u64; 8]; 3];
    let mut s = [[0u64; 8]; 3];
    for (j, p) in lane_pow.iter().enumerate() {
        for i in 0..3 {
            r[i][j] = p[i];
            s[i][j] = p[i] * 20;
        }
    }
    // SAFETY: each row is 64 readable bytes; AVX-512F is enabled in every caller.
    let out = unsafe {
        (
            core::array::from_fn(|i| _mm512_loadu_si512(r[i].as_ptr().cast())),
            core::array::from_fn(|i| _mm512_loadu_si512(s[i].as_ptr().cast())),
        )
    };
    for row in r.iter_mut().chain(s.iter_mut()) {
        zeroize::Zeroize::zeroize(row);
    }
    out
}

/// Loads 8 blocks (128 bytes) as radix-2^44 limbs, block `i` in lane `i`, with the
/// 2^128 bit of each (2^40 in the top limb).
#[inline(always)]
unsafe fn load_limbs(p: *const u8) -> VFe {
    // SAFETY: 128 readable bytes at `p` (caller); AVX-512F is enabled.
    unsafe {
        let a = _mm512_loadu_si512(p.cast());
        let b = _mm512_loadu_si512(p.add(64).cast());
        let lo = _mm512_permutex2var_epi64(a, _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), b);
        let hi = _mm512_permutex2var_epi64(a, _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), b);
        let m44 = _mm512_set1_epi64(M44 as i64);
        [
            _mm512_and_si512(lo, m44),
            _mm512_and_si512(
                _mm512_or_si512(_mm512_srli_epi64::<44>(lo), _mm512_slli_epi64::<20>(hi)),
                m44,
            ),
            _mm512_or_si512(_mm512_srli_epi64::<24>(hi), _mm512_set1_epi64(1 << 40)),
        ]
    }
}

/// Stages of [`Lanes44::absorb_stage`].
pub(crate) const STAGES44: usize = 6;

/// The values between the stages of one group: the message limbs and the product's
/// column halves (then the combined limbs, in `lo`).
pub(crate) struct Part44 {
    m: VFe,
    lo: VFe,
    hi: VFe,
}

impl Part44 {
    /// All zero (every field is written by a stage before a later one reads it).
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[inline(always)]
    pub(crate) unsafe fn new() -> Part44 {
        // SAFETY: forwarded from this function's contract.
        let z = unsafe { _mm512_setzero_si512() };
        Part44 {
            m: [z; 3],
            lo: [z; 3],
            hi: [z; 3],
        }
    }
}

/// The lane accumulators of an IFMA pass, kept across calls by a caller that interleaves
/// Poly1305 with other work (the fused `rfc7539-chacha20-poly1305-avx512ifma` entries):
/// the running sums with their latest group of 8 blocks added but not yet multiplied, and
/// `r^8` (and `20 r^8`) in every lane.
pub(crate) struct Lanes44 {
    h: VFe,
    rv: VFe,
    sv: VFe,
}

impl Lanes44 {
    /// Starts a pass with the 8 blocks at `p`, `acc` entering lane 0; `r8` is `r^8`.
    ///
    /// # Safety
    /// `p` is readable for 128 bytes; the CPU has AVX-512F and AVX-512IFMA.
    #[inline(always)]
    pub(crate) unsafe fn start44(acc: &Acc, r8: &Fe44, p: *const u8) -> Self {
        // SAFETY: forwarded from this function's contract.
        unsafe {
            // Broadcasts: no stack copy of the powers to build and wipe.
            let rv: VFe = core::array::from_fn(|i| _mm512_set1_epi64(r8[i] as i64));
            let sv: VFe = core::array::from_fn(|i| _mm512_set1_epi64((r8[i] * 20) as i64));
            let mut h = load_limbs(p);
            let h44 = acc.to_fe44();
            for (i, limb) in h.iter_mut().enumerate() {
                // The running sum enters lane 0 only.
                *limb = _mm512_add_epi64(*limb, _mm512_maskz_set1_epi64(1, h44[i] as i64));
            }
            Lanes44 { h, rv, sv }
        }
    }

    /// Stage `k` (0 to [`STAGES44`] - 1, a constant after inlining) of absorbing the group
    /// of 8 blocks at `p`: the message limbs, one column of the product each, the columns
    /// combined, the carry pass with the message added. The fused core runs the stages
    /// spread over a ChaCha20 double round, after quarter rounds 0, 1, 2, 4, 5 and 6;
    /// `part` carries the values between stages.
    ///
    /// # Safety
    /// `p` is readable for 128 bytes; the CPU has AVX-512F and AVX-512IFMA; the stages of
    /// one group run in order, with the same `p` and `part`.
    #[inline(always)]
    pub(crate) unsafe fn absorb_stage(&mut self, p: *const u8, k: usize, part: &mut Part44) {
        // SAFETY: forwarded from this function's contract.
        unsafe {
            match k {
                0 => part.m = load_limbs(p),
                1..=3 => {
                    (part.lo[k - 1], part.hi[k - 1]) = column(&self.h, &self.rv, &self.sv, k - 1)
                }
                4 => part.lo = combine(&part.lo, &part.hi),
                _ => {
                    let prod = carry(part.lo[0], part.lo[1], part.lo[2]);
                    self.h = core::array::from_fn(|i| _mm512_add_epi64(prod[i], part.m[i]));
                }
            }
        }
    }

    /// Absorbs `groups` more groups of 8 blocks at `p`.
    ///
    /// # Safety
    /// `p` is readable for `128 * groups` bytes; the CPU has AVX-512F and AVX-512IFMA.
    #[inline(always)]
    pub(crate) unsafe fn absorb(&mut self, mut p: *const u8, groups: usize) {
        // SAFETY: forwarded from this function's contract.
        unsafe {
            // The stages in a row: the same code the fused core spreads out.
            let mut part = Part44::new();
            for _ in 0..groups {
                for k in 0..STAGES44 {
                    self.absorb_stage(p, k, &mut part);
                }
                p = p.add(128);
            }
        }
    }

    /// [`absorb`](Self::absorb) as two independent chains, for the standalone Poly1305
    /// driver: one running sum takes the groups at even positions (the sum so far is
    /// position 0), the other those at odd positions, each multiplied by `r^16` per step;
    /// at the end the one that took the second-to-last group is multiplied by `r^8` and
    /// added to the other, which leaves exactly what `absorb` leaves. One group's multiply
    /// is a dependency chain (three multiply-adds per column, the wrap, the carry pass)
    /// longer than its vector-port work, so a single chain waits on itself: about 40
    /// cycles per group measured, where two chains keep the ports busy (`cryptoctl speed
    /// poly1305 --driver poly1305-avx512ifma`, builds interleaved: 8 KiB 12.0 -> 16.4 GB/s,
    /// 64 KiB 13.3 -> 19.3 GB/s, 1 KiB 6.8 -> 7.4). The fused ChaCha20-Poly1305 core hides
    /// the same latency under its ChaCha20 rounds and keeps `absorb`.
    ///
    /// Bounds: `r^16` is a carried product of `r^8` with itself (limbs below
    /// `2^44 + 2^16`, so `20 r^16` below 2^49, as `column` requires), and the final sum
    /// adds two carried products and a message, below 2^46 per limb.
    ///
    /// # Safety
    /// `p` is readable for `128 * groups` bytes; the CPU has AVX-512F and AVX-512IFMA.
    #[inline(always)]
    pub(crate) unsafe fn absorb_two_chains(&mut self, p: *const u8, groups: usize) {
        // SAFETY: forwarded from this function's contract; every load stays in the
        // `128 * groups` bytes at `p`.
        unsafe {
            if groups < 2 {
                self.absorb(p, groups);
                return;
            }
            let r16 = mul_reduce(&self.rv, &self.rv, &self.sv);
            let s16: VFe = core::array::from_fn(|i| {
                _mm512_add_epi64(
                    _mm512_slli_epi64::<4>(r16[i]),
                    _mm512_slli_epi64::<2>(r16[i]),
                )
            });
            // Positions: the running sum 0, the groups at `p` 1, 2, ..., `groups`.
            let mut even = self.h;
            let mut odd = load_limbs(p);
            let mut q = p.add(128);
            let mut left = groups - 1;
            while left >= 2 {
                let (me, mo) = (load_limbs(q), load_limbs(q.add(128)));
                even = add_limbs(mul_reduce(&even, &r16, &s16), me);
                odd = add_limbs(mul_reduce(&odd, &r16, &s16), mo);
                q = q.add(256);
                left -= 2;
            }
            self.h = if left == 1 {
                // The last group (an even position) goes to `even`; `odd` holds the one
                // before it.
                even = add_limbs(mul_reduce(&even, &r16, &s16), load_limbs(q));
                add_limbs(even, mul_reduce(&odd, &self.rv, &self.sv))
            } else {
                add_limbs(mul_reduce(&even, &self.rv, &self.sv), odd)
            };
        }
    }

    /// Ends the pass: lane `j` times `r^(8-j)` (`pow[k]` is `r^(k+1)`), the lanes summed,
    /// as a running sum.
    ///
    /// # Safety
    /// The CPU has AVX-512F and AVX-512IFMA.
    #[inline(always)]
    pub(crate) unsafe fn fold44(self, pow: &[Fe44; 8]) -> Acc {
        let lanes: [Fe44; 8] = core::array::from_fn(|j| pow[7 - j]);
        // SAFETY: forwarded from this function's contract.
        unsafe {
            let (rl, sl) = power_vectors(&lanes);
            let fin = mul_reduce(&self.h, &rl, &sl);
            Acc::from_fe44(core::array::from_fn(|i| {
                _mm512_reduce_add_epi64(fin[i]) as u64
            }))
        }
    }
}

/// Absorbs `groups * 8` full message blocks at `p` into `acc` (`groups >= 1`), `pow[k]`
/// being `r^(k+1)` in radix 2^44.
///
/// # Safety
/// `p` is readable for `128 * groups` bytes; the CPU has AVX-512F and AVX-512IFMA.
#[inline(always)]
pub(crate) unsafe fn blocks44(acc: &mut Acc, pow: &[Fe44; 8], p: *const u8, groups: usize) {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        let mut lanes = Lanes44::start44(acc, &pow[7], p);
        lanes.absorb_two_chains(p.add(128), groups - 1);
        *acc = lanes.fold44(pow);
    }
}
