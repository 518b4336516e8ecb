//! GHASH on xmm registers with PCLMULQDQ: the multiply, the reduction and the aggregated
//! multi-block update, shared by `ghash-clmulni` and `gcm-aes-aesni`.
//!
//! Everything here is `#[inline(always)]` without a `target_feature` of its own: it is
//! compiled into the callers' `#[target_feature(enable = "pclmulqdq,ssse3,sse2", ...)]`
//! entry functions. The helpers are methods of [`Clmul`], a zero-sized value made only by
//! an `unsafe` constructor inside such entries, so safe code cannot reach the instructions
//! on a CPU without them (the same scheme as the AES-NI `Keys`).
//!
//! Representation: a GHASH block is loaded and byte-reversed (`PSHUFB`), so the register
//! holds the block as a big-endian 128-bit integer: GHASH's bit-reflected polynomial, the
//! same convention as `ghash-generic` (see its module docs for the algebra). A product is
//! four PCLMULQDQs (schoolbook), kept unreduced as a [`Wide`] so that the products of a
//! whole group of blocks with H^n .. H^1 are XORed first and reduced once (aggregated
//! reduction, Intel's GCM white paper): `Y' = (Y ^ X1)·H^n ^ X2·H^(n-1) ^ ... ^ Xn·H`.
//! The reduction is the shift-and-XOR fold of `ghash-generic::gf128_mul`, on 64-bit lanes.

use core::arch::x86_64::{
    __m128i, _mm_clmulepi64_si128, _mm_loadu_si128, _mm_or_si128, _mm_set_epi8, _mm_setzero_si128,
    _mm_shuffle_epi8, _mm_slli_epi64, _mm_slli_si128, _mm_srli_epi64, _mm_srli_si128,
    _mm_storeu_si128, _mm_xor_si128,
};

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::ghash::generic::gf128_mul;

/// Blocks per aggregated group (powers H^1 ..= H^8 are precomputed).
pub const GROUP: usize = 8;

/// H^1 ..= H^8 (index 0 is H), each as the little-endian bytes of the big-endian value
/// of the GHASH block, so that an unaligned load gives the register form directly.
/// Key material: wiped on drop. `repr(transparent)`, so that the emulator crate can pass
/// 128 bytes of its own as a table (`aes::aesni::raw`).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
#[repr(transparent)]
pub struct HPowers(pub(crate) [[u8; 16]; GROUP]);

impl HPowers {
    /// The powers of `h` (GHASH byte order), computed with the portable constant-time
    /// multiply (a key-setup cost of seven multiplies).
    pub fn new(h: &[u8; 16]) -> HPowers {
        let h = u128::from_be_bytes(*h);
        let mut p = h;
        let mut out = [[0u8; 16]; GROUP];
        for slot in out.iter_mut() {
            *slot = p.to_le_bytes();
            p = gf128_mul(p, h);
        }
        HPowers(out)
    }

    /// The table as bytes (H^1 first), for the emulator crate's native side.
    pub fn as_bytes(&self) -> &[[u8; 16]; GROUP] {
        &self.0
    }
}

/// An unreduced 256-bit product (or XOR of products): `hi·x^128 ^ mid·x^64 ^ lo` in
/// register (big-endian integer) terms.
#[derive(Clone, Copy)]
pub(crate) struct Wide {
    lo: __m128i,
    mid: __m128i,
    hi: __m128i,
}

/// Proof that PCLMULQDQ, SSSE3 and SSE2 are enabled where this value is used.
#[derive(Clone, Copy)]
pub(crate) struct Clmul(());

impl Clmul {
    /// # Safety
    /// Only inside a function compiled with (at least) `pclmulqdq,ssse3,sse2` enabled,
    /// on a CPU that has them.
    #[inline(always)]
    pub(crate) unsafe fn new() -> Clmul {
        Clmul(())
    }

    /// Reverses the 16 bytes of `x`: GHASH byte order <-> register form.
    #[inline(always)]
    pub(crate) fn bswap(self, x: __m128i) -> __m128i {
        // SAFETY: `self` proves SSSE3 (PSHUFB); registers only.
        unsafe {
            let rev = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            _mm_shuffle_epi8(x, rev)
        }
    }

    /// Loads 16 bytes in GHASH order as a register-form value.
    #[inline(always)]
    pub(crate) fn load_block(self, b: &[u8; 16]) -> __m128i {
        // SAFETY: 16 readable bytes, unaligned load; SSE2 is baseline.
        self.bswap(unsafe { _mm_loadu_si128(b.as_ptr().cast()) })
    }

    /// Loads a precomputed power (already in register form).
    #[inline(always)]
    pub(crate) fn load_power(self, p: &[u8; 16]) -> __m128i {
        // SAFETY: 16 readable bytes, unaligned load; SSE2 is baseline.
        unsafe { _mm_loadu_si128(p.as_ptr().cast()) }
    }

    /// Stores a register-form value as is (for state kept between calls).
    #[inline(always)]
    pub(crate) fn store_raw(self, b: &mut [u8; 16], x: __m128i) {
        // SAFETY: 16 writable bytes, unaligned store; SSE2 is baseline.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x) }
    }

    /// An all-zero register.
    #[inline(always)]
    pub(crate) fn zero(self) -> __m128i {
        // SAFETY: SSE2 is baseline; registers only.
        unsafe { _mm_setzero_si128() }
    }

    /// An all-zero accumulator of products.
    #[inline(always)]
    pub(crate) fn zero_wide(self) -> Wide {
        // SAFETY: SSE2 is baseline; registers only.
        let z = unsafe { _mm_setzero_si128() };
        Wide {
            lo: z,
            mid: z,
            hi: z,
        }
    }

    /// `w ^= a · b` (carry-less, 256 bits, unreduced).
    #[inline(always)]
    pub(crate) fn mul_acc(self, w: &mut Wide, a: __m128i, b: __m128i) {
        // SAFETY: `self` proves PCLMULQDQ; registers only.
        unsafe {
            w.lo = _mm_xor_si128(w.lo, _mm_clmulepi64_si128::<0x00>(a, b));
            w.hi = _mm_xor_si128(w.hi, _mm_clmulepi64_si128::<0x11>(a, b));
            w.mid = _mm_xor_si128(w.mid, _mm_clmulepi64_si128::<0x01>(a, b));
            w.mid = _mm_xor_si128(w.mid, _mm_clmulepi64_si128::<0x10>(a, b));
        }
    }

    /// Reduces a 256-bit product of two register-form values to their GHASH product.
    #[inline(always)]
    pub(crate) fn reduce(self, w: Wide) -> __m128i {
        // SAFETY: SSE2 is baseline; registers only.
        unsafe {
            // The 256-bit product as (high, low).
            let p_hi = _mm_xor_si128(w.hi, _mm_srli_si128::<8>(w.mid));
            let p_lo = _mm_xor_si128(w.lo, _mm_slli_si128::<8>(w.mid));
            // Shift the 256 bits left by one (reflected product of 255 bits -> 256).
            let high = _mm_or_si128(shl1(p_hi), _mm_srli_si128::<8>(_mm_srli_epi64::<63>(p_lo)));
            let low = shl1(p_lo);
            // Fold `low` (x^128 .. x^255) with x^128 = 1 + x + x^2 + x^7: first the bits
            // that the right shifts push past x^127 (only the low lane moves up).
            let spill = _mm_slli_si128::<8>(_mm_xor_si128(
                _mm_xor_si128(_mm_slli_epi64::<63>(low), _mm_slli_epi64::<62>(low)),
                _mm_slli_epi64::<57>(low),
            ));
            let t = _mm_xor_si128(low, spill);
            let folded = _mm_xor_si128(
                _mm_xor_si128(t, shr::<1, 63>(t)),
                _mm_xor_si128(shr::<2, 62>(t), shr::<7, 57>(t)),
            );
            _mm_xor_si128(high, folded)
        }
    }

    /// The aggregated update over whole blocks of `data` (GHASH byte order):
    /// `y = (...((y ^ X1)·H ^ X2)·H ...)·H`, eight blocks per reduction.
    #[inline(always)]
    pub(crate) fn update(self, powers: &HPowers, mut y: __m128i, data: &[u8]) -> __m128i {
        let mut groups = data.chunks_exact(16 * GROUP);
        for group in &mut groups {
            y = self.group(powers, y, group);
        }
        let rest = groups.remainder();
        let rest = &rest[..rest.len() - rest.len() % 16];
        if !rest.is_empty() {
            y = self.group(powers, y, rest);
        }
        y
    }

    /// One group of `n <= 8` whole blocks (GHASH byte order), one reduction.
    #[inline(always)]
    fn group(self, powers: &HPowers, y: __m128i, blocks: &[u8]) -> __m128i {
        let mut xs = [y; GROUP];
        let mut n = 0;
        for (x, b) in xs.iter_mut().zip(blocks.chunks_exact(16)) {
            *x = self.load_block(b.try_into().unwrap_or(&[0; 16]));
            n += 1;
        }
        self.group_regs(powers, y, &xs[..n.min(GROUP)])
    }

    /// One group of `n = xs.len() <= 8` register-form blocks, one reduction:
    /// `(y ^ x1)·H^n ^ x2·H^(n-1) ^ ... ^ xn·H`.
    #[inline(always)]
    pub(crate) fn group_regs(self, powers: &HPowers, y: __m128i, xs: &[__m128i]) -> __m128i {
        let n = xs.len().min(GROUP);
        if n == 0 {
            return y;
        }
        let mut w = self.zero_wide();
        // x1 with H^n, ..., xn with H^1 (indexes bounded by construction: no panic path).
        for (i, (&x, p)) in xs[..n].iter().zip(powers.0[..n].iter().rev()).enumerate() {
            let x = if i == 0 { self.xor(x, y) } else { x };
            self.mul_acc(&mut w, x, self.load_power(p));
        }
        self.reduce(w)
    }

    /// `w ^= x · H^(8 - i)`: step `i` (0 ..= 7) of an eight-block group, for stitched
    /// loops that issue one multiply at a time (`x` of step 0 already XORed with the
    /// accumulator).
    #[inline(always)]
    pub(crate) fn mul_acc_step(self, w: &mut Wide, powers: &HPowers, x: __m128i, i: usize) {
        // `i < GROUP` (a power of two): the mask only keeps the index provably in bounds.
        let k = (GROUP - 1).wrapping_sub(i) & (GROUP - 1);
        self.mul_acc(w, x, self.load_power(&powers.0[k]));
    }

    /// XOR of two registers.
    #[inline(always)]
    pub(crate) fn xor(self, a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2 is baseline; registers only.
        unsafe { _mm_xor_si128(a, b) }
    }
}

/// Shift a 128-bit value left by one bit.
#[inline(always)]
fn shl1(x: __m128i) -> __m128i {
    // SAFETY: SSE2 is baseline on x86-64; registers only.
    unsafe {
        _mm_or_si128(
            _mm_slli_epi64::<1>(x),
            _mm_slli_si128::<8>(_mm_srli_epi64::<63>(x)),
        )
    }
}

/// Shift a 128-bit value right by `K` bits (`KC = 64 - K`, as const generics cannot
/// compute it).
#[inline(always)]
fn shr<const K: i32, const KC: i32>(x: __m128i) -> __m128i {
    // SAFETY: SSE2 is baseline on x86-64; registers only.
    unsafe {
        _mm_or_si128(
            _mm_srli_epi64::<K>(x),
            _mm_srli_si128::<8>(_mm_slli_epi64::<KC>(x)),
        )
    }
}
