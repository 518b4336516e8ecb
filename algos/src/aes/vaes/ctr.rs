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
//! The main loop keeps `N` vectors in flight (8 ymm or 4 zmm: 16 blocks), the rest goes
//! through a batch of 4 (when `N` is 8), single vectors, and one masked partial vector.

use super::vector::{encrypt, AesVec, LANE_INDEX};

/// XORs the keystream of the `K` counter vectors `ctr .. ctr + (K-1) * step` into `K`
/// whole vectors at `p`, the rounds interleaved.
#[inline(always)]
unsafe fn batch<V: AesVec, const R: usize, const K: usize>(
    k: &[V; 15],
    ctr: V,
    step: V,
    p: *mut u8,
) {
    // SAFETY: `K * V::BYTES` bytes at `p` are valid (caller); target features per the
    // module contract of `vector`.
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
            let q = p.add(j * V::BYTES);
            V::load(q).xor(xj.aesenclast(k[R])).store(q);
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

/// CTR over `len` bytes at `p` starting at counter `c`, where the low 64 bits of the counter
/// do not wrap before the last block (`blocks(len) <= 2^64 - (c mod 2^64)`).
#[inline(always)]
unsafe fn ctr_segment<V: AesVec, const R: usize, const N: usize>(
    keys: &[[u8; 16]; 15],
    c: u128,
    mut p: *mut u8,
    len: usize,
) {
    let mut left = len;
    // SAFETY: all pointers stay within `p .. p + len` (caller: valid for reads and
    // writes); the lane-index table holds 64 bytes; target features per the caller's
    // contract.
    unsafe {
        type H<V> = <V as AesVec>::Half;
        if len <= H::<V>::BYTES {
            // Short requests never touch the wide type.
            let ctr = H::<V>::broadcast(&c.to_le_bytes())
                .add_epi64(H::<V>::load(LANE_INDEX.as_ptr().cast()));
            ctr_short::<H<V>, R>(keys, ctr, p, len);
            return;
        }
        // Lane i: the counter plus i in the low qword (no wrap, see above).
        let mut ctr = V::broadcast(&c.to_le_bytes()).add_epi64(V::load(LANE_INDEX.as_ptr().cast()));
        let step = V::broadcast(&(V::LANES as u128).to_le_bytes());

        if left >= N * V::BYTES {
            let mut k = [V::zero(); 15];
            for (dst, src) in k.iter_mut().zip(keys.iter()).take(R + 1) {
                *dst = V::broadcast(src);
            }
            let big_step = V::broadcast(&((N * V::LANES) as u128).to_le_bytes());
            while left >= N * V::BYTES {
                batch::<V, R, N>(&k, ctr, step, p);
                ctr = ctr.add_epi64(big_step);
                p = p.add(N * V::BYTES);
                left -= N * V::BYTES;
            }
            if N > 4 && left >= 4 * V::BYTES {
                batch::<V, R, 4>(&k, ctr, step, p);
                ctr = ctr.add_epi64(V::broadcast(&((4 * V::LANES) as u128).to_le_bytes()));
                p = p.add(4 * V::BYTES);
                left -= 4 * V::BYTES;
            }
        }
        while left > <V::Half as AesVec>::BYTES {
            let ks = keystream::<V, R>(keys, ctr);
            if left >= V::BYTES {
                V::load(p).xor(ks).store(p);
                ctr = ctr.add_epi64(step);
                p = p.add(V::BYTES);
                left -= V::BYTES;
            } else {
                V::load_partial(p, left).xor(ks).store_partial(p, left);
                return;
            }
        }
        if left > 0 {
            ctr_short::<V::Half, R>(keys, ctr.low_half(), p, left);
        }
    }
}

/// The last `0 < len <= W::BYTES` bytes, from the counter vector `ctr`.
#[inline(always)]
unsafe fn ctr_short<W: AesVec, const R: usize>(
    keys: &[[u8; 16]; 15],
    ctr: W,
    p: *mut u8,
    len: usize,
) {
    // SAFETY: `len` bytes at `p` are valid (caller); target features per the module
    // contract of `vector`.
    unsafe {
        let ks = keystream::<W, R>(keys, ctr);
        if len == W::BYTES {
            W::load(p).xor(ks).store(p);
        } else {
            W::load_partial(p, len).xor(ks).store_partial(p, len);
        }
    }
}

/// Encrypts (= decrypts) `len` bytes at `data` in place with the encryption schedule `keys`
/// of `R` rounds, starting at the big-endian counter block `ctr`, which is advanced by the
/// number of blocks used (a partial last block counts as one); `N` vectors in flight.
///
/// # Safety
/// `data` is valid for reads and writes of `len` bytes, and the CPU has `V`'s features
/// (this function is only inlined into the matching `#[target_feature]` entry).
#[inline(always)]
pub(crate) unsafe fn ctr_crypt<V: AesVec, const R: usize, const N: usize>(
    keys: &[[u8; 16]; 15],
    ctr: &mut [u8; 16],
    data: *mut u8,
    len: usize,
) {
    // SAFETY: the segments below partition `data .. data + len`; target features per this
    // function's contract.
    unsafe {
        if len <= 16 {
            // One block: the counter block itself is the cipher input (no byte swap, no
            // lane arithmetic); the increment happens in general registers, off the
            // keystream's path.
            type H<V> = <V as AesVec>::Half;
            if len > 0 {
                let ks = encrypt::<H<V>, R>(keys, H::<V>::load_block(ctr.as_ptr()));
                // `len <= 16` is under the narrow type's width: one partial vector (masked
                // on avx10, general-register pieces on avx2).
                H::<V>::load_partial(data, len)
                    .xor(ks)
                    .store_partial(data, len);
                *ctr = u128::from_be_bytes(*ctr).wrapping_add(1).to_be_bytes();
            }
            return;
        }
        let mut c = u128::from_be_bytes(*ctr);
        let mut p = data;
        let mut left = len;
        while left > 0 {
            // Blocks before the low qword wraps: 1 ..= 2^64.
            let until_wrap = u128::from(u64::MAX - c as u64) + 1;
            let seg = if until_wrap * 16 < left as u128 {
                (until_wrap * 16) as usize
            } else {
                left
            };
            ctr_segment::<V, R, N>(keys, c, p, seg);
            c = c.wrapping_add(seg.div_ceil(16) as u128);
            p = p.add(seg);
            left -= seg;
        }
        *ctr = c.to_be_bytes();
    }
}
