//! The fused ChaCha20-Poly1305 core, written once over a ChaCha20 word vector
//! ([`Word32Vec`]) and a Poly1305 lane backend ([`PolyLanes`]: radix 2^26 on ymm or zmm,
//! or radix 2^44 on IFMA): the text goes through in chunks of one full ChaCha20 batch (8
//! blocks = 512 bytes on ymm, 16 = 1024 bytes on zmm), each chunk encrypted and then
//! authenticated (or authenticated and then decrypted) while it is still in L1, with the
//! Poly1305 lane accumulators kept in registers from chunk to chunk.

use crate::chacha20::simd::core::chacha20_xor;
use crate::poly1305::simd::lanes::PolyLanes;
use crate::poly1305::simd::scalar::{Acc, Fe26, R64};
use crate::x86::vector::SimdVec;
use crate::x86::word32::Word32Vec;

/// The fewest whole Poly1305 blocks a vector pass is started for (as `poly1305-*`'s
/// drivers): fewer go through the scalar step.
pub(crate) const MIN_VECTOR_BLOCKS: usize = 16;

/// Absorbs `len` bytes at `p` into `acc` as AEAD data: whole blocks, then the last partial
/// block padded with zeros (RFC 8439 `pad16`), every block with the 2^128 bit. `pow` are
/// `r^1..r^8` when the caller computed them (the vector path needs them), else `None`.
///
/// # Safety
/// `p` is readable for `len` bytes; the CPU has `P`'s features.
#[inline(always)]
pub(crate) unsafe fn absorb_padded<P: PolyLanes>(
    acc: &mut Acc,
    r: &R64,
    pow: Option<&[Fe26; 8]>,
    p: *const u8,
    len: usize,
) {
    let whole = len / 16;
    let mut done = 0;
    // SAFETY: every access stays within the `len` bytes at `p` (caller); features per the
    // caller.
    unsafe {
        if let Some(pow) = pow {
            if whole >= MIN_VECTOR_BLOCKS {
                let groups = whole / P::BLOCKS;
                let mut lanes = P::start(acc, pow, p);
                lanes.absorb(p.add(16 * P::BLOCKS), groups - 1);
                *acc = lanes.fold(pow);
                done = groups * P::BLOCKS;
            }
        }
        acc.blocks(
            r,
            core::slice::from_raw_parts(p.add(16 * done), 16 * (whole - done)),
            1,
        );
        absorb_tail::<P::Vec>(acc, r, p.add(16 * whole), len % 16);
    }
}

/// Absorbs `n < 16` bytes at `p` zero-padded to one block (nothing when `n == 0`), with
/// a masked / piecewise load rather than a `memcpy` call.
///
/// # Safety
/// `p` is readable for `n` bytes; the CPU has `V`'s features.
#[inline(always)]
unsafe fn absorb_tail<V: SimdVec>(acc: &mut Acc, r: &R64, p: *const u8, n: usize) {
    if n == 0 {
        return;
    }
    let mut block = [0u8; 16];
    // SAFETY: `n < 16 < V::BYTES` readable bytes at `p`; `block` is 16 writable bytes.
    unsafe { V::load_partial(p, n).store_block(block.as_mut_ptr()) };
    acc.blocks(r, &block, 1);
    zeroize::Zeroize::zeroize(&mut block);
}

/// Encrypts (`ENCRYPT`) or decrypts `len` bytes from `src` into `dst` with the ChaCha20
/// state `s` (its block counter in word 12 advanced by `ceil(len / 64)` on return), and
/// absorbs the ciphertext into the Poly1305 sum `h` (radix 2^64), the last partial block
/// zero-padded. A caller that splits one text over several calls passes multiples of 64
/// bytes to all but the last. `pow` as for [`absorb_padded`].
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes, equal or disjoint; the CPU has `V`'s
/// and `P`'s features; `s[12] + ceil(len / 64) <= 2^32` (checked by the driver at `start`).
#[inline(always)]
pub(crate) unsafe fn crypt<V: Word32Vec, P: PolyLanes, const ENCRYPT: bool>(
    s: &mut [u32; 16],
    r: &R64,
    pow: Option<&[Fe26; 8]>,
    h: &mut [u64; 3],
    mut src: *const u8,
    mut dst: *mut u8,
    len: usize,
) {
    // One full vertical ChaCha20 batch: 16 words per block, one block per 32-bit lane.
    let chunk = 16 * V::BYTES;
    let groups = chunk / 16 / P::BLOCKS;
    let mut acc = Acc { h: *h };
    let mut left = len;
    // SAFETY: `src` / `dst` advance together through the caller's `len` bytes and every
    // call gets at most the bytes left; features per the caller; the counter room is the
    // caller's promise.
    unsafe {
        // The ciphertext of the request's last `left` bytes once the tail is encrypted
        // (or before it is decrypted), and how much of it is still to absorb.
        let tail = if let Some(pow) = pow {
            let mut lanes: Option<P> = None;
            while left >= chunk {
                if ENCRYPT {
                    chacha20_xor::<V>(s, src, dst, chunk);
                }
                let ct = if ENCRYPT { dst.cast_const() } else { src };
                match lanes.as_mut() {
                    Some(l) => l.absorb(ct, groups),
                    None => {
                        let mut l = P::start(&acc, pow, ct);
                        l.absorb(ct.add(16 * P::BLOCKS), groups - 1);
                        lanes = Some(l);
                    }
                }
                if !ENCRYPT {
                    chacha20_xor::<V>(s, src, dst, chunk);
                }
                s[12] = s[12].wrapping_add((chunk / 64) as u32);
                src = src.add(chunk);
                dst = dst.add(chunk);
                left -= chunk;
            }
            if ENCRYPT && left > 0 {
                chacha20_xor::<V>(s, src, dst, left);
            }
            let ct = if ENCRYPT { dst.cast_const() } else { src };
            // The tail's whole vector groups continue the running lanes (one fold per
            // request, not one per pass).
            match lanes {
                Some(mut l) => {
                    let done = 16 * P::BLOCKS * (left / (16 * P::BLOCKS));
                    l.absorb(ct, done / (16 * P::BLOCKS));
                    acc = l.fold(pow);
                    (ct.add(done), left - done)
                }
                None => (ct, left),
            }
        } else if ENCRYPT && left > 0 {
            chacha20_xor::<V>(s, src, dst, left);
            (dst.cast_const(), left)
        } else {
            (src, left)
        };
        if left > 0 {
            absorb_padded::<P>(&mut acc, r, pow, tail.0, tail.1);
            if !ENCRYPT {
                chacha20_xor::<V>(s, src, dst, left);
            }
            s[12] = s[12].wrapping_add(left.div_ceil(64) as u32);
        }
    }
    *h = acc.h;
}
