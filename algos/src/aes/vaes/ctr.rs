//! The CTR core (SP 800-38A §6.5): the counter block is a 128-bit big-endian integer,
//! incremented once per block with the carry running through all 16 bytes, as the kernel's
//! `ctr(aes)` does. Written once over [`AesVec`].
//!
//! The counters are kept little-endian in the lanes so that one `vpaddq` per vector steps
//! them; a byte swap per lane turns them into counter blocks. `vpaddq` does not carry from
//! the low into the high qword, so a request is split where the low 64 bits of the counter
//! wrap (once every 2^64 blocks) and the high half is stepped in between: no carry is ever
//! needed inside a vector.
//!
//! Input is read from a source and output written to a destination (in place: the same
//! pointer), so an out-of-place request costs one pass over memory.
//!
//! The main loop keeps `N` vectors in flight (8 ymm or 4 zmm: 16 blocks), the rest goes
//! through a batch of 4 (when `N` is 8), single vectors, and one masked partial vector.

use super::rounds::{broadcast_keys, counter_step, encrypt, lane_counters, AesVec};
use crate::x86::vector::SimdVec;

/// XORs the keystream of the `K` counter vectors `ctr .. ctr + (K-1) * step` into `K`
/// whole vectors from `src`, into `dst`, the rounds interleaved.
#[inline(always)]
unsafe fn batch<V: AesVec, const R: usize, const K: usize>(
    k: &[V; 15],
    ctr: V,
    step: V,
    src: *const u8,
    dst: *mut u8,
) {
    // SAFETY: `K * V::BYTES` bytes at `src` and `dst` are valid (caller); target features
    // per the module contract of `rounds`.
    unsafe {
        let mut x = [V::zero(); K];
        let mut c = ctr;
        for xj in x.iter_mut() {
            *xj = c.bswap_lanes().xor(k[0]);
            c = c.add_epi64(step);
        }
        for r in 1..R {
            let key = V::round_key(k, r);
            for xj in x.iter_mut() {
                *xj = xj.aesenc(key);
            }
        }
        for (j, xj) in x.iter().enumerate() {
            let off = j * V::BYTES;
            V::load(src.add(off))
                .xor(xj.aesenclast(k[R]))
                .store(dst.add(off));
        }
    }
}

/// The keystream of one counter vector.
#[inline(always)]
unsafe fn keystream<V: AesVec, const R: usize>(keys: &[[u8; 16]; 15], ctr: V) -> V {
    // SAFETY: target features per the caller's contract.
    unsafe {
        let mut x = ctr.bswap_lanes().xor(V::broadcast(&keys[0]));
        for key in &keys[1..R] {
            x = x.aesenc(V::broadcast(key));
        }
        x.aesenclast(V::broadcast(&keys[R]))
    }
}

/// CTR over `len` bytes from `src` into `dst` starting at counter `c`, where the low 64
/// bits of the counter do not wrap before the last block
/// (`blocks(len) <= 2^64 - (c mod 2^64)`).
#[inline(always)]
unsafe fn ctr_segment<V: AesVec, const R: usize, const N: usize>(
    keys: &[[u8; 16]; 15],
    c: u128,
    mut src: *const u8,
    mut dst: *mut u8,
    len: usize,
) where
    V::Half: AesVec,
{
    let mut left = len;
    // SAFETY: all pointers stay within the first `len` bytes of `src` and `dst` (caller:
    // valid for reads / writes; they advance together); target features per the caller's
    // contract.
    unsafe {
        type H<V> = <V as SimdVec>::Half;
        if len <= H::<V>::BYTES {
            // Short requests never touch the wide type.
            ctr_short::<H<V>, R>(keys, lane_counters(c), src, dst, len);
            return;
        }
        // Lane i: the counter plus i in the low qword (no wrap, see above).
        let mut ctr = lane_counters::<V>(c);
        let step = counter_step::<V>(V::LANES);

        if left >= N * V::BYTES {
            let k = broadcast_keys::<V, R>(keys);
            let big_step = counter_step::<V>(N * V::LANES);
            while left >= N * V::BYTES {
                batch::<V, R, N>(&k, ctr, step, src, dst);
                ctr = ctr.add_epi64(big_step);
                src = src.add(N * V::BYTES);
                dst = dst.add(N * V::BYTES);
                left -= N * V::BYTES;
            }
            if N > 4 && left >= 4 * V::BYTES {
                batch::<V, R, 4>(&k, ctr, step, src, dst);
                ctr = ctr.add_epi64(counter_step::<V>(4 * V::LANES));
                src = src.add(4 * V::BYTES);
                dst = dst.add(4 * V::BYTES);
                left -= 4 * V::BYTES;
            }
        }
        while left > <V::Half as SimdVec>::BYTES {
            let ks = keystream::<V, R>(keys, ctr);
            if left >= V::BYTES {
                V::load(src).xor(ks).store(dst);
                ctr = ctr.add_epi64(step);
                src = src.add(V::BYTES);
                dst = dst.add(V::BYTES);
                left -= V::BYTES;
            } else {
                V::load_partial(src, left).xor(ks).store_partial(dst, left);
                return;
            }
        }
        if left > 0 {
            ctr_short::<V::Half, R>(keys, ctr.low_half(), src, dst, left);
        }
    }
}

/// The last `0 < len <= W::BYTES` bytes, from the counter vector `ctr`.
#[inline(always)]
unsafe fn ctr_short<W: AesVec, const R: usize>(
    keys: &[[u8; 16]; 15],
    ctr: W,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    // SAFETY: `len` bytes at `src` and `dst` are valid (caller); target features per the
    // module contract of `rounds`.
    unsafe {
        let ks = keystream::<W, R>(keys, ctr);
        if len == W::BYTES {
            W::load(src).xor(ks).store(dst);
        } else {
            W::load_partial(src, len).xor(ks).store_partial(dst, len);
        }
    }
}

/// Encrypts (= decrypts) `len` bytes from `src` into `dst` with the encryption schedule
/// `keys` of `R` rounds, starting at the big-endian counter block `ctr`, which is advanced
/// by the number of blocks used (a partial last block counts as one); `N` vectors in
/// flight. In place is `src == dst`; otherwise the two must not overlap (each vector is
/// loaded before its output is stored, but never after a later output was).
///
/// # Safety
/// `src` is valid for reads and `dst` for writes of `len` bytes, they are equal or do not
/// overlap, and the CPU has `V`'s features (this function is only inlined into the
/// matching `#[target_feature]` entry).
#[inline(always)]
pub(crate) unsafe fn ctr_crypt<V: AesVec, const R: usize, const N: usize>(
    keys: &[[u8; 16]; 15],
    ctr: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) where
    V::Half: AesVec,
{
    // SAFETY: the segments below partition the first `len` bytes of `src` and `dst`;
    // target features per this function's contract.
    unsafe {
        if len <= 16 {
            // One block: the counter block itself is the cipher input (no byte swap, no
            // lane arithmetic); the increment happens in general registers, off the
            // keystream's path.
            type H<V> = <V as SimdVec>::Half;
            if len > 0 {
                let ks = encrypt::<H<V>, R>(keys, H::<V>::load_block(ctr.as_ptr()));
                if len == 16 {
                    // A whole block: plain 16-byte load and store. A masked store (what
                    // `store_partial` is on avx10) cannot forward its data to a later
                    // load, so a caller reading the block back soon (or encrypting it
                    // again, as a benchmark does) waited for the store to retire.
                    H::<V>::load_block(src).xor(ks).store_block(dst);
                } else {
                    // `len < 16` is under the narrow type's width: one partial vector
                    // (masked on avx10, general-register pieces on avx2).
                    H::<V>::load_partial(src, len)
                        .xor(ks)
                        .store_partial(dst, len);
                }
                *ctr = u128::from_be_bytes(*ctr).wrapping_add(1).to_be_bytes();
            }
            return;
        }
        let mut c = u128::from_be_bytes(*ctr);
        let (mut s, mut d) = (src, dst);
        let mut left = len;
        while left > 0 {
            // Blocks before the low qword wraps: 1 ..= 2^64.
            let until_wrap = u128::from(u64::MAX - c as u64) + 1;
            let seg = if until_wrap * 16 < left as u128 {
                (until_wrap * 16) as usize
            } else {
                left
            };
            ctr_segment::<V, R, N>(keys, c, s, d, seg);
            c = c.wrapping_add(seg.div_ceil(16) as u128);
            s = s.add(seg);
            d = d.add(seg);
            left -= seg;
        }
        *ctr = c.to_be_bytes();
    }
}
