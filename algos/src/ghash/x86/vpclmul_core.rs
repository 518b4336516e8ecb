//! The GHASH core over the shared vector layer ([`SimdVec`]), written once for ymm and zmm:
//! precomputed powers of H laid out per lane, `N` vectors (16 blocks) multiplied by their
//! powers with one reduction per 16 blocks, and the two-step carry-less reduction, as the
//! kernel's `aes-gcm-avx10-x86_64.S` does it.
//!
//! # Representation
//! A GHASH block is byte-reflected on load (`vpshufb`), so that its 128-bit little-endian
//! lane value holds the coefficient of x^i at bit 127 - i. A carry-less product of two such
//! values, reduced by Montgomery-style folding (two multiplies by the constant
//! x^63 + x^62 + x^57 in this bit order), is `a * b * x` in GF(2^128): so the key is kept
//! as `H * x^-1`, where `x^-1 = x^127 + x^6 + x + 1`. Multiplying by `x^-1` in this bit
//! order is a left shift by one and, when the shifted-out bit (the x^0 coefficient) was
//! set, an XOR with `0xc2000000_00000000_00000000_00000001` ([`h_times_x_inv`], no branch).
//! Powers `K_i = H^i * x^-1` follow from `K_{i+1} = mul(K_i, K_1)`.
//!
//! # Aggregation
//! With `acc` the running value and 16 blocks `X_0..X_15`, the next value is
//! `(acc ^ X_0) H^16 ^ X_1 H^15 ^ ... ^ X_15 H`: lane `l` of vector `v` holds block
//! `v * LANES + l` and is multiplied by `powers[v * LANES + l] = K_{16 - v*LANES - l}`.
//! The three partial products (low, middle, high) are summed over all vectors, reduced
//! once per lane, and the lanes folded into lane 0. Fewer than 16 blocks (`m`) start at
//! `powers[16 - m]`; the table has four zero entries after `K_1` so that a partial last
//! vector never reads past it (its missing lanes hold zero data).
//!
//! Same safety contract as the vector layer: `#[inline(always)]`, `unsafe`, only inlined
//! into `#[target_feature]` entries that have the vector type's features and VPCLMULQDQ.

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::x86::vector::SimdVec;
use crate::x86::wipe_blocks;

/// The GHASH reduction constant in the reflected bit order: `x^63 + x^62 + x^57` in the
/// high qword (what the folds multiply by) and 1 in the low qword; also the value XORed in
/// by [`h_times_x_inv`].
pub(crate) const GF_POLY_REFLECTED: u128 = 0xc200_0000_0000_0000_0000_0000_0000_0001;

/// Blocks per aggregated multiply (one reduction per this many blocks).
pub(crate) const AGG_BLOCKS: usize = 16;

/// `H^16 .. H^1` (each times `x^-1`, as lane values: little-endian bytes of the reflected
/// integer), then four zero entries; and `H^32 .. H^17` for the stitched GCM loop, which
/// reduces once per 32 blocks. Wiped on drop: these are key-derived (16 bytes a store,
/// `x86::wipe_blocks`).
#[derive(Clone)]
#[repr(C, align(64))]
pub struct GhashPowers {
    /// `p[i] = K_{16 - i}` for `i < 16`; `p[16..]` are zero.
    pub p: [[u8; 16]; AGG_BLOCKS + 4],
    /// `far[i] = K_{32 - i}`.
    pub far: [[u8; 16]; AGG_BLOCKS],
}

impl Zeroize for GhashPowers {
    fn zeroize(&mut self) {
        wipe_blocks(&mut self.p);
        wipe_blocks(&mut self.far);
    }
}

impl Drop for GhashPowers {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for GhashPowers {}

impl GhashPowers {
    /// All zero (no key yet).
    pub const fn empty() -> GhashPowers {
        GhashPowers {
            p: [[0; 16]; AGG_BLOCKS + 4],
            far: [[0; 16]; AGG_BLOCKS],
        }
    }

    /// Whether every entry is zero (wiped).
    pub fn is_zero(&self) -> bool {
        self.p
            .iter()
            .chain(self.far.iter())
            .all(|e| e == &[0u8; 16])
    }
}

impl Default for GhashPowers {
    fn default() -> Self {
        GhashPowers::empty()
    }
}

impl core::fmt::Debug for GhashPowers {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("GhashPowers(..)")
    }
}

/// The hash key `H` (a block: `E(K, 0^128)` for GCM) as `K_1 = H * x^-1` in the reflected
/// lane form, in constant time (a mask, no branch).
pub(crate) fn h_times_x_inv(h: &[u8; 16]) -> u128 {
    let v = u128::from_be_bytes(*h);
    let mask = 0u128.wrapping_sub(v >> 127);
    (v << 1) ^ (mask & GF_POLY_REFLECTED)
}

/// `(lo, mi, hi)`: the three partial carry-less products of a lane-wise 128 x 128
/// multiply (schoolbook: four `vpclmulqdq`), to be summed before one reduction.
#[inline(always)]
pub(crate) unsafe fn mul_parts<V: SimdVec>(a: V, b: V) -> (V, V, V) {
    // SAFETY: target features per the module contract.
    unsafe {
        (
            a.clmul::<0x00>(b),
            a.clmul::<0x01>(b).xor(a.clmul::<0x10>(b)),
            a.clmul::<0x11>(b),
        )
    }
}

/// Adds the partial products of `a * b` into the sums.
#[inline(always)]
pub(crate) unsafe fn mul_acc<V: SimdVec>(sums: &mut (V, V, V), a: V, b: V) {
    // SAFETY: target features per the module contract.
    unsafe {
        sums.0 = sums.0.xor(a.clmul::<0x00>(b));
        sums.1 = sums.1.xor3(a.clmul::<0x01>(b), a.clmul::<0x10>(b));
        sums.2 = sums.2.xor(a.clmul::<0x11>(b));
    }
}

/// Reduces summed partial products, lane-wise: fold the low qword of `lo` into `mi`, then
/// the low qword of `mi` into `hi` (each: one multiply by the constant, one qword swap,
/// one three-way XOR). Returns `a * b * x` per lane (see the module docs).
#[inline(always)]
pub(crate) unsafe fn reduce<V: SimdVec>((lo, mi, hi): (V, V, V)) -> V {
    // SAFETY: target features per the module contract; the constant is 16 bytes.
    unsafe {
        let poly = V::broadcast(&GF_POLY_REFLECTED.to_le_bytes());
        let t = lo.clmul::<0x10>(poly);
        let mi = mi.xor3(lo.swap_qwords(), t);
        let t = mi.clmul::<0x10>(poly);
        hi.xor3(mi.swap_qwords(), t)
    }
}

/// One reduced multiply per lane (`a * K` where `K` is a power in key form).
#[inline(always)]
pub(crate) unsafe fn mul<V: SimdVec>(a: V, b: V) -> V {
    // SAFETY: target features per the module contract.
    unsafe { reduce(mul_parts(a, b)) }
}

/// Computes the power tables (`K_1 .. K_32`) from `K_1` (in lane 0 of the computation;
/// the tables are written as bytes).
#[inline(always)]
pub(crate) unsafe fn compute_powers<V: SimdVec>(k1: u128, out: &mut GhashPowers) {
    // SAFETY: target features per the module contract; every table entry is 16 bytes.
    unsafe {
        let k1v = V::load_block(k1.to_le_bytes().as_ptr());
        let mut k = k1v;
        out.p[AGG_BLOCKS - 1] = k.lane(0);
        for i in (0..AGG_BLOCKS - 1).rev() {
            k = mul(k, k1v);
            out.p[i] = k.lane(0);
        }
        out.p[AGG_BLOCKS..].iter_mut().for_each(|e| *e = [0; 16]);
        for i in (0..AGG_BLOCKS).rev() {
            k = mul(k, k1v);
            out.far[i] = k.lane(0);
        }
    }
}

/// The vector of powers from table entry `i` on, without a bounds check (the entries must
/// have no panic path).
///
/// # Safety
/// `i + V::LANES <= 20`; target features per the module contract.
#[inline(always)]
pub(crate) unsafe fn power_at<V: SimdVec>(powers: &GhashPowers, i: usize) -> V {
    // SAFETY: entries `i .. i + LANES` are inside the table (caller).
    unsafe { V::load(powers.p.as_ptr().add(i).cast()) }
}

/// The accumulator block (standard GHASH byte order) as a reflected lane-0 vector.
#[inline(always)]
pub(crate) unsafe fn load_acc<V: SimdVec>(acc: &[u8; 16]) -> V {
    // SAFETY: 16 readable bytes; target features per the module contract.
    unsafe { V::load_block(acc.as_ptr()).bswap_lanes() }
}

/// Stores lane 0 of a reflected accumulator back as a block.
#[inline(always)]
pub(crate) unsafe fn store_acc<V: SimdVec>(a: V, acc: &mut [u8; 16]) {
    // SAFETY: 16 writable bytes; target features per the module contract.
    unsafe { a.bswap_lanes().store_block(acc.as_mut_ptr()) }
}

/// The power vectors for a full group of 16 blocks, one per vector of `V`.
#[inline(always)]
pub(crate) unsafe fn group_powers<V: SimdVec, const N: usize>(powers: &GhashPowers) -> [V; N] {
    // SAFETY: `N * V::LANES == 16` (caller), so every load stays in the first 16 entries.
    unsafe {
        let mut k = [V::zero(); N];
        for (v, kv) in k.iter_mut().enumerate() {
            *kv = power_at(powers, v * V::LANES);
        }
        k
    }
}

/// The GHASH of 16 byte-reflected blocks in `x` (`N` vectors), the accumulator `acc`
/// (lane 0) XORed into the first: returns the new accumulator in lane 0.
#[inline(always)]
pub(crate) unsafe fn ghash_group<V: SimdVec, const N: usize>(k: &[V; N], acc: V, x: &[V; N]) -> V {
    // SAFETY: target features per the module contract.
    unsafe {
        let mut sums = mul_parts(x[0].xor(acc), k[0]);
        for v in 1..N {
            mul_acc(&mut sums, x[v], k[v]);
        }
        reduce(sums).fold_lanes()
    }
}

/// GHASH of `len < 16 * 16` bytes at `p` (the last block zero-padded if partial) into the
/// accumulator (lane 0), with one reduction.
#[inline(always)]
pub(crate) unsafe fn ghash_short<V: SimdVec>(
    powers: &GhashPowers,
    acc: V,
    p: *const u8,
    len: usize,
) -> V {
    if len == 0 {
        return acc;
    }
    // SAFETY: `len` bytes at `p` are readable (caller); vector `v` covers bytes
    // `v * BYTES ..`, loaded whole or partially (zero-filled, nothing past `len` read);
    // its powers stay inside the table (see below).
    unsafe {
        let m = len.div_ceil(16);
        let first = AGG_BLOCKS - m;
        let vectors = len.div_ceil(V::BYTES);
        let mut sums = (V::zero(), V::zero(), V::zero());
        for v in 0..vectors {
            let off = v * V::BYTES;
            let x = if len - off >= V::BYTES {
                V::load(p.add(off))
            } else if len - off == 16 {
                // One whole block: a plain load, which a plain store of it just before
                // (the ciphertext of a short seal) can forward to; a masked one cannot.
                V::load_block(p.add(off))
            } else {
                V::load_partial(p.add(off), len - off)
            };
            let mut x = x.bswap_lanes();
            if v == 0 {
                x = x.xor(acc);
            }
            // Entry `first + v * LANES` plus `LANES` entries: the last vector starts at a
            // block `< m`, so at most at entry 15, and reads at most 4 entries: < 20.
            let k = power_at(powers, first + v * V::LANES);
            mul_acc(&mut sums, x, k);
        }
        reduce(sums).fold_lanes()
    }
}

/// GHASH of `len` bytes at `p` (the last block zero-padded if partial) into `acc` (a block
/// in standard byte order): groups of 16 blocks in `N` vectors, then one short group.
///
/// # Safety
/// `len` bytes at `p` are readable; `N * V::LANES == 16`; target features per the module
/// contract.
#[inline(always)]
pub(crate) unsafe fn ghash_update<V: SimdVec, const N: usize>(
    powers: &GhashPowers,
    acc: &mut [u8; 16],
    mut p: *const u8,
    len: usize,
) {
    // SAFETY: `p` advances through the `len` readable bytes; target features per this
    // function's contract (`V::Half` needs a subset of `V`'s).
    unsafe {
        if len <= <V::Half as SimdVec>::BYTES {
            // Short input (a typical AAD, a length block): the narrow type, no zmm.
            let a = ghash_short::<V::Half>(powers, load_acc(acc), p, len);
            store_acc(a, acc);
            return;
        }
        let mut a = load_acc::<V>(acc);
        let mut left = len;
        if left >= AGG_BLOCKS * 16 {
            let k = group_powers::<V, N>(powers);
            while left >= AGG_BLOCKS * 16 {
                // (A loop, not `array::from_fn`: its closure became a call, which loses
                // the entry's target features.)
                let mut x = [V::zero(); N];
                for (v, xv) in x.iter_mut().enumerate() {
                    *xv = V::load(p.add(v * V::BYTES)).bswap_lanes();
                }
                a = ghash_group(&k, a, &x);
                p = p.add(AGG_BLOCKS * 16);
                left -= AGG_BLOCKS * 16;
            }
        }
        a = ghash_short(powers, a, p, left);
        store_acc(a, acc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 16-byte-store wipe reaches every byte of both tables.
    #[test]
    fn zeroize_wipes_every_power() {
        let mut t = GhashPowers::empty();
        for (i, b) in t.p.iter_mut().chain(t.far.iter_mut()).enumerate() {
            *b = [i as u8 | 0x80; 16];
        }
        assert!(!t.is_zero());
        t.zeroize();
        assert!(t.is_zero());
    }
}
