//! The XTS core (IEEE 1619-2007), written once over [`AesVec`] and instantiated by the
//! entry functions at each width.
//!
//! The main loop keeps `N` vectors of blocks in flight (the entries use 8 ymm = 16 blocks
//! for the ymm drivers, 4 zmm = 16 blocks for avx10_512: enough independent VAES operations
//! to cover their latency). `N` tweak vectors hold the tweaks of those blocks; after each
//! iteration every tweak vector is advanced by x^(N * LANES) with one carry-less multiply
//! (the technique of the kernel's `aes-xts-avx-x86_64.S`). What is left after the main loop
//! goes through a batch of 4 vectors (when `N` is 8), then single vectors, then one
//! masked partial vector (on the narrower [`SimdVec::Half`] type when that holds it), each
//! next tweak vector derived with one more multiply. Short requests never broadcast the
//! whole key schedule: the single-vector paths broadcast each round key as they use it. The last tweak is folded into the last round key
//! (`AESENCLAST(x, k ^ t) = AESENCLAST(x, k) ^ t`), the first one into round key 0.
//!
//! A length that is not a multiple of 16 ends with ciphertext stealing over the last full
//! block and the partial one, through [`AesVec::steal`].
//!
//! The core reads a source and writes a destination (one memory pass for an out-of-place
//! request); in place is the same pointer for both.

use super::rounds::{broadcast_keys, encrypt, AesVec};
use crate::aes::xts_rules::gf128_mul_x_ble;
use crate::x86::vector::SimdVec;

/// Processes `K` whole vectors from `src` into `dst` with the tweak vectors `t`,
/// interleaving the rounds so `K` independent VAES operations are in flight. Round 0 takes
/// `block ^ tweak ^ k[0]` (one three-way XOR), the last round `k[R] ^ tweak`. All loads
/// come before the stores, so `src == dst` (in place) is fine.
#[inline(always)]
unsafe fn batch<V: AesVec, const R: usize, const DEC: bool, const K: usize>(
    k: &[V; 15],
    t: &mut [V; K],
    src: *const u8,
    dst: *mut u8,
    step: u32,
) {
    // SAFETY: `K * V::BYTES` bytes at `src` and `dst` are valid (caller); target features
    // per the module contract of `rounds`.
    unsafe {
        let mut x = [V::zero(); K];
        for j in 0..K {
            x[j] = V::load(src.add(j * V::BYTES)).xor3(t[j], k[0]);
        }
        let mut tn = *t;
        for r in 1..R {
            let key = V::round_key(k, r);
            for xj in x.iter_mut() {
                *xj = if DEC { xj.aesdec(key) } else { xj.aesenc(key) };
            }
            if step != 0 && !V::KEYS_IN_MEMORY && r <= K {
                tn[r - 1] = t[r - 1].mul_x_pow(step);
            }
        }
        for j in 0..K {
            let last = k[R].xor(t[j]);
            x[j] = if DEC {
                x[j].aesdeclast(last)
            } else {
                x[j].aesenclast(last)
            };
            x[j].store(dst.add(j * V::BYTES));
        }
        if step != 0 && V::KEYS_IN_MEMORY {
            for tj in tn.iter_mut() {
                *tj = tj.mul_x_pow(step);
            }
        }
        *t = tn;
    }
}

/// Processes one vector `x` (or one block in lane 0) with the tweaks `t`, broadcasting
/// each round key from the schedule as it goes (no set-up cost for short requests).
#[inline(always)]
unsafe fn crypt1<V: AesVec, const R: usize, const DEC: bool>(
    keys: &[[u8; 16]; 15],
    x: V,
    t: V,
) -> V {
    // SAFETY: target features per the module contract of `rounds`.
    unsafe {
        let mut x = x.xor3(t, V::broadcast(&keys[0]));
        for key in &keys[1..R] {
            let key = V::broadcast(key);
            x = if DEC { x.aesdec(key) } else { x.aesenc(key) };
        }
        let last = V::broadcast(&keys[R]).xor(t);
        if DEC {
            x.aesdeclast(last)
        } else {
            x.aesenclast(last)
        }
    }
}

/// Encrypts (`DEC = false`) or decrypts `len` bytes from `src` into `dst` with the data-key
/// schedule `keys` (encryption or `AESDEC` schedule to match `DEC`) of `R` rounds, starting
/// from the (already encrypted) tweak `tweak`, with `N` (4 or 8) vectors in flight.
///
/// `len` a multiple of 16: whole blocks, and `tweak` becomes the tweak of the block after
/// them (so a request can be continued). Otherwise `len` must be at least 17 and the last
/// full block and the partial one are finished with ciphertext stealing (the end of the
/// request: `tweak` is then advanced past both). Lengths 1..=15 are left untouched (the
/// drivers refuse them before getting here).
///
/// In place is `src == dst`. Otherwise the two must not overlap at all: every block is
/// read before its output is written, and ciphertext stealing reads the last full block and
/// the partial one before writing either, so identical pointers are safe, but a destination
/// that starts inside the source (or the reverse) would be read after being written.
///
/// # Safety
/// `src` is valid for reads and `dst` for writes of `len` bytes, they are equal or do not
/// overlap, and the CPU has `V`'s features (this function is only inlined into the
/// matching `#[target_feature]` entry).
#[inline(always)]
pub(crate) unsafe fn xts_crypt<V: AesVec, const R: usize, const DEC: bool, const N: usize>(
    keys: &[[u8; 16]; 15],
    tweak_keys: Option<&[[u8; 16]; 15]>,
    tweak: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) where
    V::Half: AesVec,
{
    let tail = len % 16;
    if len < 16 && tail != 0 {
        return;
    }
    let lanes = V::LANES as u32;
    // Blocks for the vector code: all of them, or all but the one that steals.
    let mut blocks = len / 16 - usize::from(tail != 0);
    // SAFETY: every pointer below stays within the first `len` bytes of `src` / `dst` (the
    // loop conditions count the blocks left; `s` and `d` advance together); target
    // features per this function's contract.
    unsafe {
        type H<V> = <V as SimdVec>::Half;
        if blocks <= 1 {
            // One block (16..=31 bytes): lane 0 of the narrow type, the tweak straight
            // from its register (no lane-index multiply, no partial loads or stores).
            let mut t = H::<V>::broadcast(tweak);
            if let Some(tk) = tweak_keys {
                t = encrypt::<H<V>, R>(tk, t);
            }
            let (mut s, mut d) = (src, dst);
            if blocks == 1 {
                crypt1::<H<V>, R, DEC>(keys, H::<V>::load_block(s), t).store_block(d);
                t = t.mul_x_pow(1);
                s = s.add(16);
                d = d.add(16);
            }
            if tail != 0 {
                xts_steal::<H<V>, R, DEC>(keys, t, s, d, tail);
                t = t.mul_x_pow(2);
            }
            *tweak = t.lane(0);
            return;
        }

        // The tweaks of the next vector of blocks.
        let mut t0 = V::broadcast(tweak);
        if let Some(tk) = tweak_keys {
            t0 = encrypt::<V, R>(tk, t0);
        }
        let mut t0 = t0.mul_x_lane_index();
        let (mut s, mut d) = (src, dst);

        if blocks >= 4 * V::LANES {
            // Round keys broadcast once for the batches (N is 4 or 8).
            let k = broadcast_keys::<V, R>(keys);
            if blocks >= N * V::LANES {
                // Each tweak vector straight from t0 (independent multiplies, not a chain).
                let mut t = [t0; N];
                for (j, tj) in t.iter_mut().enumerate().skip(1) {
                    *tj = t0.mul_x_pow(j as u32 * lanes);
                }
                while blocks >= N * V::LANES {
                    batch::<V, R, DEC, N>(&k, &mut t, s, d, N as u32 * lanes);
                    s = s.add(N * V::BYTES);
                    d = d.add(N * V::BYTES);
                    blocks -= N * V::LANES;
                }
                t0 = t[0];
            }
            if N > 4 && blocks >= 4 * V::LANES {
                let t1 = t0.mul_x_pow(lanes);
                let t2 = t1.mul_x_pow(lanes);
                let t3 = t2.mul_x_pow(lanes);
                batch::<V, R, DEC, 4>(&k, &mut [t0, t1, t2, t3], s, d, 0);
                t0 = t3.mul_x_pow(lanes);
                s = s.add(4 * V::BYTES);
                d = d.add(4 * V::BYTES);
                blocks -= 4 * V::LANES;
            }
        }
        while blocks >= V::LANES {
            crypt1::<V, R, DEC>(keys, V::load(s), t0).store(d);
            t0 = t0.mul_x_pow(lanes);
            s = s.add(V::BYTES);
            d = d.add(V::BYTES);
            blocks -= V::LANES;
        }
        // Fewer than LANES blocks left: one (narrower, where that suffices) masked vector.
        if blocks > 0 {
            let n = 16 * blocks;
            if n <= <V::Half as SimdVec>::BYTES {
                crypt_n::<V::Half, R, DEC>(keys, s, d, n, t0.low_half());
            } else {
                crypt_n::<V, R, DEC>(keys, s, d, n, t0);
            }
            s = s.add(n);
            d = d.add(n);
        }
        // The tweak of the block after them is lane `blocks` of t0.
        let next = t0.lane(blocks);

        if tail == 0 {
            *tweak = next;
            return;
        }

        // Ciphertext stealing: the last full block at `s` / `d`, `tail` bytes after it,
        // done on the narrower vector type (lane 0 only).
        xts_steal::<V::Half, R, DEC>(keys, H::<V>::broadcast(&next), s, d, tail);
        let mut after = next;
        gf128_mul_x_ble(&mut after);
        gf128_mul_x_ble(&mut after);
        *tweak = after;
    }
}

/// Processes `n <= W::BYTES` bytes (whole blocks) from `src` into `dst` with the tweaks `t`.
#[inline(always)]
unsafe fn crypt_n<W: AesVec, const R: usize, const DEC: bool>(
    keys: &[[u8; 16]; 15],
    src: *const u8,
    dst: *mut u8,
    n: usize,
    t: W,
) {
    // SAFETY: `n` bytes at `src` and `dst` are valid (caller); target features per the
    // module contract of `rounds`.
    unsafe {
        if n == W::BYTES {
            crypt1::<W, R, DEC>(keys, W::load(src), t).store(dst);
        } else {
            crypt1::<W, R, DEC>(keys, W::load_partial(src, n), t).store_partial(dst, n);
        }
    }
}

/// Ciphertext stealing over the last full block at `src` and the `tail` (1..=15) bytes
/// after it, into `dst`; lane 0 of `t_this` is the tweak of that full block. Both input
/// blocks are read (the full one here, the partial one in [`AesVec::steal`]) before the
/// first output byte is written, so in place (`src == dst`) is fine.
#[inline(always)]
unsafe fn xts_steal<W: AesVec, const R: usize, const DEC: bool>(
    keys: &[[u8; 16]; 15],
    t_this: W,
    src: *const u8,
    dst: *mut u8,
    tail: usize,
) {
    // SAFETY: `16 + tail` bytes at `src` and `dst` are valid (caller); target features per
    // the module contract of `rounds`.
    unsafe {
        let t_after = t_this.mul_x_pow(1);
        // Encryption processes the full block with its own tweak first and the padded
        // partial block with the following one; decryption the other way round.
        let (ta, tb) = if DEC {
            (t_after, t_this)
        } else {
            (t_this, t_after)
        };
        let cc = crypt1::<W, R, DEC>(keys, W::load_block(src), ta);
        let pp = W::steal(cc, src, dst, tail);
        crypt1::<W, R, DEC>(keys, pp, tb).store_block(dst);
    }
}
