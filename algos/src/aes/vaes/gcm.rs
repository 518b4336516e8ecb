//! The stitched AES-GCM core, written once over [`AesVec`] and the GHASH core
//! (`ghash::vpclmulqdq::core`), for the three VAES widths.
//!
//! The main loop handles 16 blocks per iteration (`N` = 8 ymm or 4 zmm vectors): the AES
//! rounds of the next 16 counter blocks run interleaved with the GHASH multiplies of 16
//! ciphertext blocks (the previous group when encrypting, whose ciphertext was just
//! written; the current group when decrypting, read before it is overwritten), with one
//! reduction per group. The two chains are independent, so the AES and the carry-less
//! multiply units work at the same time. Fewer than 16 blocks go through a short path:
//! the keystream vector by vector (masked or partial on the last one), and one GHASH of
//! the zero-padded tail.
//!
//! Counters: the counter block `J0 + i` is kept as a reflected lane value (the block
//! byte-swapped), so one `vpaddq` steps it. GCM increments only the last 32 bits
//! (`inc32`); with a 12-byte nonce the counter starts at 2 and the SP 800-38D limit of
//! 2^32 - 2 blocks (checked in `start`, `gcm_util::check_gcm_lens`) keeps it below 2^32,
//! so the 64-bit lane addition never carries out of those 32 bits.
//!
//! Same safety contract as the vector layer: `#[inline(always)]`, `unsafe`, only inlined
//! into the `#[target_feature]` entries of `gcm_entry`.

use super::rounds::{broadcast_keys, counter_step, encrypt, lane_counters, AesVec};
use crate::ghash::vpclmulqdq::core::{
    ghash_short, ghash_update, load_acc, mul_acc, power_at, reduce, store_acc, GhashPowers,
    AGG_BLOCKS,
};
use crate::x86::vector::SimdVec;

/// Bytes per main-loop group.
const GROUP: usize = AGG_BLOCKS * 16;

/// One group of 16 blocks: the AES of the `N` counter vectors `ctr, ctr + step, ...`, with
/// (when `G`) the GHASH of the 16 blocks at `gh` (raw ciphertext, `acc` XORed into the
/// first) interleaved round by round; then `dst = src ^ keystream`. Returns the new
/// accumulator (lane 0), or `acc` unchanged without `G`.
///
/// `gh` may equal `src` (decryption: every load of `src` happens before the stores to
/// `dst`, and in place `dst == src` is stored vector by vector after its own load).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn group<V: AesVec, const R: usize, const N: usize, const G: bool>(
    k: &[V; 15],
    powers: &GhashPowers,
    ctr: V,
    step: V,
    acc: V,
    gh: *const u8,
    src: *const u8,
    dst: *mut u8,
) -> V {
    // SAFETY: 256 bytes at `gh`, `src` and `dst` are valid (caller); the power loads stay
    // in the first 16 table entries (`N * LANES == 16`); target features per the module
    // contract.
    unsafe {
        let mut x = [V::zero(); N];
        let mut c = ctr;
        for xj in x.iter_mut() {
            *xj = c.bswap_lanes().xor(k[0]);
            c = c.add_epi64(step);
        }
        let mut sums = (V::zero(), V::zero(), V::zero());
        for r in 1..R {
            let key = V::round_key(k, r);
            for xj in x.iter_mut() {
                *xj = xj.aesenc(key);
            }
            // One GHASH vector per round, in the first N rounds (R - 1 >= 9 > N).
            if G && r <= N {
                let j = r - 1;
                let mut b = V::load(gh.add(j * V::BYTES)).bswap_lanes();
                if j == 0 {
                    b = b.xor(acc);
                }
                mul_acc(&mut sums, b, power_at(powers, j * V::LANES));
            }
        }
        let a = if G { reduce(sums).fold_lanes() } else { acc };
        let last = k[R];
        for (j, xj) in x.iter().enumerate() {
            let off = j * V::BYTES;
            V::load(src.add(off))
                .xor(xj.aesenclast(last))
                .store(dst.add(off));
        }
        a
    }
}

/// GHASH of one group of 16 raw blocks at `p` into `acc`.
#[inline(always)]
unsafe fn ghash_group_at<V: SimdVec, const N: usize>(
    powers: &GhashPowers,
    acc: V,
    p: *const u8,
) -> V {
    // SAFETY: 256 readable bytes at `p` (caller); powers as in `group`.
    unsafe {
        let mut sums = (V::zero(), V::zero(), V::zero());
        for j in 0..N {
            let mut b = V::load(p.add(j * V::BYTES)).bswap_lanes();
            if j == 0 {
                b = b.xor(acc);
            }
            mul_acc(&mut sums, b, power_at(powers, j * V::LANES));
        }
        reduce(sums).fold_lanes()
    }
}

/// The last `0 < len < 256` bytes on the vector type `W`: GHASH of the ciphertext (before
/// decrypting, after encrypting), the keystream from the counter lane value `c`, one
/// vector at a time, the last one partial.
#[inline(always)]
unsafe fn tail<W: AesVec, const R: usize, const DEC: bool>(
    keys: &[[u8; 16]; 15],
    powers: &GhashPowers,
    c: u128,
    acc: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    // SAFETY: `len` bytes at `src` and `dst` are valid, equal or disjoint (caller); every
    // access stays below `len`; target features per the module contract.
    unsafe {
        let mut a = load_acc::<W>(acc);
        if DEC {
            a = ghash_short(powers, a, src, len);
        }
        let step = counter_step::<W>(W::LANES);
        let mut ctr = lane_counters::<W>(c);
        let mut off = 0;
        while off < len {
            let ks = encrypt_lanes::<W, R>(keys, ctr);
            let n = len - off;
            if n >= W::BYTES {
                W::load(src.add(off)).xor(ks).store(dst.add(off));
            } else {
                W::load_partial(src.add(off), n)
                    .xor(ks)
                    .store_partial(dst.add(off), n);
            }
            ctr = ctr.add_epi64(step);
            off += W::BYTES;
        }
        if !DEC {
            a = ghash_short(powers, a, dst, len);
        }
        store_acc(a, acc);
    }
}

/// The keystream of one vector of counter lane values.
#[inline(always)]
unsafe fn encrypt_lanes<W: AesVec, const R: usize>(keys: &[[u8; 16]; 15], ctr: W) -> W {
    // SAFETY: target features per the module contract.
    unsafe { encrypt::<W, R>(keys, ctr.bswap_lanes()) }
}

/// Encrypts (`DEC = false`) or decrypts `len` bytes from `src` into `dst` with the
/// encryption schedule `keys` of `R` rounds, GHASHing the ciphertext into `acc` (a block
/// in standard byte order) with `powers`, from the counter block `ctr` (advanced by the
/// blocks used; a partial last block counts as one and is zero-padded for GHASH). A
/// partial block is only allowed at the end of the request (the streaming contract).
///
/// # Safety
/// `src` is valid for reads and `dst` for writes of `len` bytes, equal or disjoint;
/// `N * V::LANES == 16`; target features per the module contract.
#[inline(always)]
pub(crate) unsafe fn gcm_crypt<V: AesVec, const R: usize, const N: usize, const DEC: bool>(
    keys: &[[u8; 16]; 15],
    powers: &GhashPowers,
    ctr: &mut [u8; 16],
    acc: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) where
    V::Half: AesVec,
{
    // SAFETY: the pointers advance together through the `len` valid bytes; target
    // features per this function's contract.
    unsafe {
        let mut c = u128::from_be_bytes(*ctr);
        let (mut s, mut d, mut left) = (src, dst, len);
        if left >= GROUP {
            let k = broadcast_keys::<V, R>(keys);
            let step = counter_step::<V>(V::LANES);
            let big = counter_step::<V>(AGG_BLOCKS);
            let mut ctrv = lane_counters::<V>(c);
            let mut a = load_acc::<V>(acc);
            let groups = left / GROUP;
            if DEC {
                while left >= GROUP {
                    a = group::<V, R, N, true>(&k, powers, ctrv, step, a, s, s, d);
                    ctrv = ctrv.add_epi64(big);
                    s = s.add(GROUP);
                    d = d.add(GROUP);
                    left -= GROUP;
                }
            } else {
                a = group::<V, R, N, false>(&k, powers, ctrv, step, a, s, s, d);
                let mut prev = d.cast_const();
                ctrv = ctrv.add_epi64(big);
                s = s.add(GROUP);
                d = d.add(GROUP);
                left -= GROUP;
                while left >= GROUP {
                    a = group::<V, R, N, true>(&k, powers, ctrv, step, a, prev, s, d);
                    prev = d.cast_const();
                    ctrv = ctrv.add_epi64(big);
                    s = s.add(GROUP);
                    d = d.add(GROUP);
                    left -= GROUP;
                }
                a = ghash_group_at::<V, N>(powers, a, prev);
            }
            store_acc(a, acc);
            c = c.wrapping_add((groups * AGG_BLOCKS) as u128);
        }
        if left > 0 {
            if left <= <V::Half as SimdVec>::BYTES {
                tail::<V::Half, R, DEC>(keys, powers, c, acc, s, d, left);
            } else {
                tail::<V, R, DEC>(keys, powers, c, acc, s, d, left);
            }
            c = c.wrapping_add(left.div_ceil(16) as u128);
        }
        *ctr = c.to_be_bytes();
    }
}

/// One whole GCM request (the fused `seal` / `open`): GHASH of the AAD, the text from
/// counter `J0 + 1`, the length block, and the full 16-byte tag `E(K, J0) ^ GHASH` into
/// `tag` (the caller truncates, and compares when decrypting).
///
/// # Safety
/// `aad` is valid for reads of `aad_len` bytes; `src`/`dst` as for [`gcm_crypt`]; target
/// features per the module contract.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gcm_one_shot<V: AesVec, const R: usize, const N: usize, const DEC: bool>(
    keys: &[[u8; 16]; 15],
    powers: &GhashPowers,
    j0: &[u8; 16],
    aad: *const u8,
    aad_len: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tag: &mut [u8; 16],
) where
    V::Half: AesVec,
{
    // SAFETY: forwarded from this function's contract.
    unsafe {
        type H<V> = <V as SimdVec>::Half;
        let mut acc = [0u8; 16];
        ghash_update::<V, N>(powers, &mut acc, aad, aad_len);
        let mut ctr = u128::from_be_bytes(*j0).wrapping_add(1).to_be_bytes();
        gcm_crypt::<V, R, N, DEC>(keys, powers, &mut ctr, &mut acc, src, dst, len);
        let lens = crate::gcm_util::gcm_len_block(aad_len as u64, len as u64);
        let a = ghash_short::<H<V>>(powers, load_acc(&acc), lens.as_ptr(), 16);
        let ek = encrypt::<H<V>, R>(keys, H::<V>::load_block(j0.as_ptr()));
        a.bswap_lanes().xor(ek).store_block(tag.as_mut_ptr());
    }
}
