//! Portable carry-less multiplies (polynomial products over GF(2)), constant-time.
//!
//! The widths and lane layouts follow QEMU's `crypto/clmul.c`: several narrow products
//! side by side in one `u64` (8x8 -> 16 in the even bytes, 16x16 -> 32 in the even
//! halfwords), one 32x32 -> 64, and one 64x64 -> 128.
//!
//! Constant time: no branch and no memory index depends on an operand. The narrow widths
//! walk the bits of one operand and turn each into an all-ones or all-zeros lane mask by
//! arithmetic (`bit * 0xff..`), so every bit costs the same. The 64-bit product uses the
//! "multiply with holes" technique (as BearSSL's `bmul`): each operand is split into five
//! interleaved combs whose bits are five positions apart, the combs are multiplied with the
//! CPU's integer multiplier (`u64 x u64 -> u128`, one `mul` on x86-64 and `mul`/`umulh` on
//! arm64, whose timing does not depend on the values), and each result keeps only the bit
//! positions of its own comb. A comb holds at most 13 bits, so a sum of coinciding partial
//! products never exceeds 13 < 2^5 and its carries stay inside the four-bit holes that the
//! mask discards.

/// Four 8x8 -> 16 carry-less products, one per 16-bit lane: lane `i` of the result is the
/// product of the low bytes of lane `i` of `n` and `m`. The odd (high) byte of each lane of
/// the inputs is ignored (QEMU's `clmul_8x4_even`).
#[inline]
pub fn clmul_8x4_even(n: u64, m: u64) -> u64 {
    const LANE_LOW_BYTES: u64 = 0x00ff_00ff_00ff_00ff;
    const LANE_BIT0: u64 = 0x0001_0001_0001_0001;
    let mut n = n & LANE_LOW_BYTES;
    let mut m = m & LANE_LOW_BYTES;
    let mut r = 0;
    for _ in 0..8 {
        // All-ones in each lane whose current bit of `n` is set: no branch.
        let mask = (n & LANE_BIT0).wrapping_mul(0xffff);
        r ^= m & mask;
        n >>= 1;
        // The shifted multiplicand stays inside its 16-bit lane (8 + 7 bits).
        m <<= 1;
    }
    r
}

/// Four 8x8 -> 16 products of the odd (high) bytes of each 16-bit lane.
#[inline]
pub fn clmul_8x4_odd(n: u64, m: u64) -> u64 {
    clmul_8x4_even(n >> 8, m >> 8)
}

/// Two 16x16 -> 32 carry-less products, one per 32-bit lane (the low halfword of each lane
/// of the inputs; QEMU's `clmul_16x2_even`).
#[inline]
pub fn clmul_16x2_even(n: u64, m: u64) -> u64 {
    const LANE_LOW_HALVES: u64 = 0x0000_ffff_0000_ffff;
    const LANE_BIT0: u64 = 0x0000_0001_0000_0001;
    let mut n = n & LANE_LOW_HALVES;
    let mut m = m & LANE_LOW_HALVES;
    let mut r = 0;
    for _ in 0..16 {
        let mask = (n & LANE_BIT0).wrapping_mul(0xffff_ffff);
        r ^= m & mask;
        n >>= 1;
        m <<= 1;
    }
    r
}

/// Two 16x16 -> 32 products of the high halfwords of each 32-bit lane.
#[inline]
pub fn clmul_16x2_odd(n: u64, m: u64) -> u64 {
    clmul_16x2_even(n >> 16, m >> 16)
}

/// One 8x8 -> 16 carry-less product.
#[inline]
pub fn clmul8(n: u8, m: u8) -> u16 {
    clmul_8x4_even(u64::from(n), u64::from(m)) as u16
}

/// One 16x16 -> 32 carry-less product.
#[inline]
pub fn clmul16(n: u16, m: u16) -> u32 {
    clmul_16x2_even(u64::from(n), u64::from(m)) as u32
}

/// One 32x32 -> 64 carry-less product (QEMU's `clmul_32`).
#[inline]
pub fn clmul32(n: u32, m: u32) -> u64 {
    let mut n = u64::from(n);
    let m = u64::from(m);
    let mut r = 0;
    for i in 0..32 {
        // `0 - bit` is all ones for a set bit, zero otherwise.
        let mask = 0u64.wrapping_sub(n & 1);
        r ^= (m << i) & mask;
        n >>= 1;
    }
    r
}

/// Bit positions `r, r + 5, r + 10, ...` of a 64-bit word: comb `r` of five.
const fn comb64(r: u32) -> u64 {
    let mut m = 0u64;
    let mut i = r;
    while i < 64 {
        m |= 1 << i;
        i += 5;
    }
    m
}

/// The same combs over 128 bits, for the products.
const fn comb128(r: u32) -> u128 {
    let mut m = 0u128;
    let mut i = r;
    while i < 128 {
        m |= 1 << i;
        i += 5;
    }
    m
}

const COMBS64: [u64; 5] = [comb64(0), comb64(1), comb64(2), comb64(3), comb64(4)];
const COMBS128: [u128; 5] = [comb128(0), comb128(1), comb128(2), comb128(3), comb128(4)];

/// One 64x64 -> 128 carry-less product (QEMU's `clmul_64`), by integer multiplication with
/// holes (see the module docs).
#[inline]
pub fn clmul64(n: u64, m: u64) -> u128 {
    let x = COMBS64.map(|c| u128::from(n & c));
    let y = COMBS64.map(|c| u128::from(m & c));
    let mut r = 0u128;
    for (k, &mask) in COMBS128.iter().enumerate() {
        // Comb k of the product gathers the partial products whose combs sum to k mod 5.
        let mut z = 0u128;
        for (i, &xi) in x.iter().enumerate() {
            z ^= xi.wrapping_mul(y[(k + 5 - i) % 5]);
        }
        r |= z & mask;
    }
    r
}

/// One 128x128 -> 256 carry-less product as (high, low), by Karatsuba over three 64-bit
/// products. Used by `ghash-generic`.
#[inline]
pub fn clmul128(a: u128, b: u128) -> (u128, u128) {
    let (a1, a0) = ((a >> 64) as u64, a as u64);
    let (b1, b0) = ((b >> 64) as u64, b as u64);
    let lo = clmul64(a0, b0);
    let hi = clmul64(a1, b1);
    let mid = clmul64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    (hi ^ (mid >> 64), lo ^ (mid << 64))
}
