//! The `#[target_feature]` entry functions of the Poly1305 SIMD drivers: thin shells that
//! instantiate a vector core (inlined, so it is compiled with the entry's features) and
//! finish the blocks that do not fill a vector with the scalar step. They are
//! `#[inline(never)]` so that each is one named symbol, which `cargo xtask asm` inspects
//! (ymm only in the avx2 entry, zmm in the others, `vpmadd52luq` in the IFMA one,
//! `vzeroupper` before `ret`, no `call`) and `cargo xtask emu` runs under Bochs.
//!
//! Arguments are a running sum, a key and plain pointers: nothing allocates, panics or
//! calls out, so the entries run under the emulator.

use super::ifma::blocks44;
use super::scalar::{Acc, Fe26, Fe44, R64};
use super::vec26::{blocks26, PolyVec};
use crate::x86::vector::{Vex, Ymm, Zmm};

/// A Poly1305 key as the entries use it: the clamped `r` in 64-bit limbs, `r^1 ..= r^8`
/// in radix 2^26 and in radix 2^44, and `s`. Wiped on drop.
#[derive(Clone, Default)]
pub struct Poly1305Key {
    pub(crate) r: R64,
    pub(crate) pow26: [Fe26; 8],
    pub(crate) pow44: [Fe44; 8],
    pub(crate) s: [u8; 16],
}

impl Poly1305Key {
    /// Expands a 32-byte one-time key (`r` then `s`).
    pub fn new(key: &[u8; 32]) -> Poly1305Key {
        let mut rb = [0u8; 16];
        rb.copy_from_slice(&key[..16]);
        let r = R64::from_key(&rb);
        zeroize::Zeroize::zeroize(&mut rb);
        let pow26 = super::scalar::powers26::<8>(&r);
        let pow44 = core::array::from_fn(|k| super::scalar::fe26_to_fe44(&pow26[k]));
        let mut s = [0u8; 16];
        s.copy_from_slice(&key[16..]);
        Poly1305Key { r, pow26, pow44, s }
    }
}

impl zeroize::Zeroize for Poly1305Key {
    fn zeroize(&mut self) {
        self.r.zeroize();
        self.pow26.zeroize();
        self.pow44.zeroize();
        self.s.zeroize();
    }
}

impl Drop for Poly1305Key {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(self);
    }
}

impl zeroize::ZeroizeOnDrop for Poly1305Key {}

/// The radix-2^26 entry body for vector type `V`: whole vectors of blocks, then the rest
/// one block at a time.
#[inline(always)]
unsafe fn blocks_v26<V: PolyVec>(h: &mut [u64; 3], key: &Poly1305Key, p: *const u8, n: usize) {
    let mut acc = Acc { h: *h };
    let groups = n / V::BLOCKS;
    let done = groups * V::BLOCKS;
    if groups > 0 {
        // SAFETY: `16 * n` readable bytes at `p` (caller) cover the groups; features are
        // the caller's promise.
        unsafe { blocks26::<V>(&mut acc, &key.pow26, p, groups) };
    }
    // SAFETY: the remaining `n - done` blocks are inside the caller's `16 * n` bytes.
    let rest = unsafe { core::slice::from_raw_parts(p.add(16 * done), 16 * (n - done)) };
    acc.blocks(&key.r, rest, 1);
    *h = acc.h;
}

/// `poly1305-avx2`: absorbs `n` full 16-byte blocks at `p` into the running sum `h`
/// (radix 2^64, as `Acc`), 4 blocks per ymm step.
///
/// # Safety
/// `p` is readable for `16 * n` bytes and the CPU has AVX2.
#[inline(never)]
#[target_feature(enable = "avx2")]
pub unsafe fn poly1305_blocks_avx2(h: &mut [u64; 3], key: &Poly1305Key, p: *const u8, n: usize) {
    // SAFETY: forwarded from this function's contract; the core is inlined here.
    unsafe { blocks_v26::<Ymm<Vex>>(h, key, p, n) }
}

/// `poly1305-avx512`: as the avx2 entry, 8 blocks per zmm step.
///
/// # Safety
/// `p` is readable for `16 * n` bytes and the CPU has AVX2 and AVX-512F/BW/VL.
#[inline(never)]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
pub unsafe fn poly1305_blocks_avx512(h: &mut [u64; 3], key: &Poly1305Key, p: *const u8, n: usize) {
    // SAFETY: forwarded from this function's contract; the core is inlined here.
    unsafe { blocks_v26::<Zmm>(h, key, p, n) }
}

/// `poly1305-avx512ifma`: as the avx2 entry, 8 blocks per zmm step in radix 2^44 with
/// 52-bit multiply-adds.
///
/// # Safety
/// `p` is readable for `16 * n` bytes and the CPU has AVX2, AVX-512F/BW/VL and
/// AVX-512IFMA.
#[inline(never)]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512ifma")]
pub unsafe fn poly1305_blocks_avx512ifma(
    h: &mut [u64; 3],
    key: &Poly1305Key,
    p: *const u8,
    n: usize,
) {
    let mut acc = Acc { h: *h };
    let groups = n / 8;
    if groups > 0 {
        // SAFETY: `16 * n` readable bytes at `p` (caller) cover the groups; features are
        // the caller's promise.
        unsafe { blocks44(&mut acc, &key.pow44, p, groups) };
    }
    // SAFETY: the remaining blocks are inside the caller's `16 * n` bytes.
    let rest = unsafe { core::slice::from_raw_parts(p.add(128 * groups), 16 * (n - 8 * groups)) };
    acc.blocks(&key.r, rest, 1);
    *h = acc.h;
}
