//! The x86 vector layer every SIMD core is written over once: a vector of 128-bit lanes
//! ([`SimdVec`]) and its three register types.
//!
//! | type | register | partial vectors | drivers |
//! | --- | --- | --- | --- |
//! | [`Ymm<Vex>`] | ymm, AVX2 (VEX encoding) | 8/4/2/1-byte pieces through general registers | `*-vaes-avx2` |
//! | [`Ymm<Evex>`] | ymm, AVX-512VL/BW (EVEX encoding) | byte-masked loads, stores, blends | `*-vaes-avx10_256` |
//! | [`Zmm`] | zmm, AVX-512F/BW | byte-masked loads, stores, blends | `*-vaes-avx10_512` |
//!
//! Only what is generic lives here: widths, loads and stores (whole, partial, masked, one
//! block), lane access, XOR, byte shuffles, 64-bit lane arithmetic and shifts, and the
//! carry-less multiply that AES-XTS, GHASH and POLYVAL all build on. Algorithm-specific
//! operations (AES rounds, the XTS tweak multiply, CTR lanes) are extension traits next
//! to their algorithm (`aes/vaes/rounds.rs`).
//!
//! # Safety contract
//! Every method is `#[inline(always)]` and `unsafe`: it may only be called from code that
//! is compiled with the implementor's target features enabled (a `#[target_feature]`
//! entry function into which it is inlined, reachable only with a CPU token that proved
//! those features), and pointer arguments must be valid for the bytes the method
//! documents. `Ymm<Vex>` needs AVX2 (and VPCLMULQDQ for [`SimdVec::clmul`]); `Ymm<Evex>`
//! and `Zmm` need AVX-512F/BW/VL on top.

use core::arch::x86_64::*;
use core::marker::PhantomData;

/// Reverses the bytes of each 128-bit lane (little-endian integer <-> big-endian block).
static BSWAP_128: [u8; 16] = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];

/// `[0xff; 32] ++ [0; 32]`: the 32 bytes at `32 - n` are a `vpblendvb` control selecting
/// the first `n` bytes (the AVX2 stand-in for a byte mask register).
static BLEND_FIRST: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 32 {
        t[i] = 0xff;
        i += 1;
    }
    t
};

/// How a [`Ymm`] is encoded, which decides how it handles partial vectors.
pub(crate) trait YmmEncoding: Copy + 'static {
    /// EVEX encoding: AVX-512VL/BW mask registers for partial loads, stores and blends,
    /// `vpternlog` for three-way XOR, 32 vector registers.
    const EVEX: bool;
}

/// VEX encoding, AVX2 only: runs on CPUs without AVX-512 (the `*-vaes-avx2` drivers).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vex;

/// EVEX encoding with AVX-512VL/BW: mask registers on ymm (the `*-vaes-avx10_256`
/// drivers).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Evex;

impl YmmEncoding for Vex {
    const EVEX: bool = false;
}

impl YmmEncoding for Evex {
    const EVEX: bool = true;
}

/// A ymm register: two 128-bit lanes, encoded as `E` says.
#[derive(Clone, Copy)]
pub(crate) struct Ymm<E: YmmEncoding>(pub(crate) __m256i, PhantomData<E>);

impl<E: YmmEncoding> Ymm<E> {
    /// Wraps a raw register (for the algorithm layers' intrinsics).
    #[inline(always)]
    pub(crate) fn new(v: __m256i) -> Self {
        Ymm(v, PhantomData)
    }
}

/// A zmm register: four 128-bit lanes.
#[derive(Clone, Copy)]
pub(crate) struct Zmm(pub(crate) __m512i);

/// A vector of 128-bit lanes. See the module documentation for the safety contract.
pub(crate) trait SimdVec: Copy {
    /// The narrower type short requests and the last blocks use: `Ymm<Evex>` for `Zmm`
    /// (a zmm operation has a longer latency on some CPUs and gains nothing on one or two
    /// blocks), the type itself for ymm.
    type Half: SimdVec;
    /// 128-bit lanes per vector: 2 (ymm) or 4 (zmm).
    const LANES: usize;
    /// Bytes per vector.
    const BYTES: usize = 16 * Self::LANES;
    /// Whether the type is EVEX-encoded, so that its partial loads and stores are masked
    /// (zmm, and ymm with AVX-512VL) rather than done in general-register pieces.
    const EVEX: bool;

    /// All-zero vector.
    unsafe fn zero() -> Self;
    /// The first [`Half::LANES`](SimdVec::LANES) lanes.
    unsafe fn low_half(self) -> Self::Half;
    /// Loads `BYTES` bytes (unaligned).
    unsafe fn load(p: *const u8) -> Self;
    /// Stores `BYTES` bytes (unaligned).
    unsafe fn store(self, p: *mut u8);
    /// Loads `n < BYTES` bytes; the rest of the vector is zero. Touches no byte past `n`.
    unsafe fn load_partial(p: *const u8, n: usize) -> Self;
    /// Stores the first `n < BYTES` bytes. Touches no byte past `n`.
    unsafe fn store_partial(self, p: *mut u8, n: usize);
    /// The first `n < BYTES` bytes from `p`, the rest from `self` (a merge-masked load).
    /// Touches no byte past `n`.
    unsafe fn merge_partial(self, p: *const u8, n: usize) -> Self;
    /// Loads one 16-byte block into lane 0 (other lanes zero).
    unsafe fn load_block(p: *const u8) -> Self;
    /// Stores lane 0.
    unsafe fn store_block(self, p: *mut u8);
    /// Lane `i < LANES` as bytes, without a round trip through memory (a wide store
    /// followed by a narrow load at an offset can miss store forwarding).
    unsafe fn lane(self, i: usize) -> [u8; 16];
    /// One 16-byte value in every lane.
    unsafe fn broadcast(block: &[u8; 16]) -> Self;
    /// Bitwise exclusive or.
    unsafe fn xor(self, other: Self) -> Self;
    /// `self ^ a ^ b` (one `vpternlog` with EVEX).
    unsafe fn xor3(self, a: Self, b: Self) -> Self;
    /// `vpshufb`: byte `i` of each lane becomes byte `ctl[i] & 15` of the same lane, or
    /// zero when `ctl[i]` has its top bit set.
    unsafe fn shuffle_bytes(self, ctl: Self) -> Self;
    /// Reverses the bytes of each lane.
    #[inline(always)]
    unsafe fn bswap_lanes(self) -> Self {
        // SAFETY: target features per the module contract; the table is 16 bytes.
        unsafe { self.shuffle_bytes(Self::broadcast(&BSWAP_128)) }
    }
    /// Adds 64-bit integers lane-wise (wrapping).
    unsafe fn add_epi64(self, other: Self) -> Self;
    /// Shifts every 64-bit integer left by `s` (0..=64; a constant after inlining folds
    /// into an immediate).
    unsafe fn shl_epi64(self, s: u32) -> Self;
    /// Shifts every 64-bit integer right (logical) by `s` (0..=64).
    unsafe fn shr_epi64(self, s: u32) -> Self;
    /// Shifts each 64-bit integer left by the matching integer of `counts`.
    unsafe fn shlv_epi64(self, counts: Self) -> Self;
    /// Shifts each 64-bit integer right (logical) by the matching integer of `counts`.
    unsafe fn shrv_epi64(self, counts: Self) -> Self;
    /// Shifts each lane left by `N` bytes (`vpslldq`).
    unsafe fn bslli<const N: i32>(self) -> Self;
    /// Shifts each lane right by `N` bytes (`vpsrldq`).
    unsafe fn bsrli<const N: i32>(self) -> Self;
    /// `vpclmulqdq`: per lane, the 128-bit carry-less product of one qword of `self` (the
    /// low one if bit 0 of `IMM` is clear, else the high one) and one of `other` (bit 4).
    unsafe fn clmul<const IMM: i32>(self, other: Self) -> Self;
    /// Swaps the two 64-bit halves of each lane (`vpshufd $0x4e`): the folding step of the
    /// GHASH reduction.
    unsafe fn swap_qwords(self) -> Self;
    /// Lane 0 holds the XOR of all lanes, the other lanes are zero: the horizontal sum
    /// that ends an aggregated GHASH multiply.
    unsafe fn fold_lanes(self) -> Self;
}

/// Reads `n < 8` bytes at `p` into the low bytes of a `u64` (little-endian), in pieces of
/// 4, 2 and 1 bytes: no loop, no `memcpy`, no store-forwarding stall.
#[inline(always)]
unsafe fn read_lt8(p: *const u8, n: usize) -> u64 {
    let mut v = 0u64;
    let mut off = 0usize;
    if n & 4 != 0 {
        // SAFETY: `off + 4 <= n` (here; likewise for the pieces below), and `n` bytes
        // at `p` are readable (caller).
        v = u64::from(unsafe { p.cast::<u32>().read_unaligned() });
        off = 4;
    }
    if n & 2 != 0 {
        // SAFETY: see above.
        let w = unsafe { p.add(off).cast::<u16>().read_unaligned() };
        v |= u64::from(w) << (8 * off);
        off += 2;
    }
    if n & 1 != 0 {
        // SAFETY: see above.
        let b = unsafe { p.add(off).read() };
        v |= u64::from(b) << (8 * off);
    }
    v
}

/// Writes the low `n < 8` bytes of `v` (little-endian) to `p`, in pieces of 4, 2 and 1.
#[inline(always)]
pub(crate) unsafe fn write_lt8(p: *mut u8, n: usize, mut v: u64) {
    let mut off = 0usize;
    if n & 4 != 0 {
        // SAFETY: `off + 4 <= n`; `n` bytes at `p` are writable (caller).
        unsafe { p.cast::<u32>().write_unaligned(v as u32) };
        v >>= 32;
        off = 4;
    }
    if n & 2 != 0 {
        // SAFETY: `off + 2 <= n`, as above.
        unsafe { p.add(off).cast::<u16>().write_unaligned(v as u16) };
        v >>= 16;
        off += 2;
    }
    if n & 1 != 0 {
        // SAFETY: `off + 1 <= n`, as above.
        unsafe { p.add(off).write(v as u8) };
    }
}

/// Loads `n < 16` bytes at `p` into an xmm register (the rest zero), through general
/// registers. SSE2 only (the SSSE3 ChaCha20 driver's partial blocks use it too).
#[inline(always)]
pub(crate) unsafe fn load_lt16(p: *const u8, n: usize) -> __m128i {
    // SAFETY: `n` bytes at `p` are readable (caller); the pieces stay below `n`; SSE2 is
    // part of x86_64.
    unsafe {
        let (lo, hi) = if n >= 8 {
            (p.cast::<u64>().read_unaligned(), read_lt8(p.add(8), n - 8))
        } else {
            (read_lt8(p, n), 0)
        };
        _mm_set_epi64x(hi as i64, lo as i64)
    }
}

/// Stores the first `n < 16` bytes of `v` at `p`, through general registers. SSE2 only.
#[inline(always)]
pub(crate) unsafe fn store_lt16(p: *mut u8, n: usize, v: __m128i) {
    // SAFETY: `n` bytes at `p` are writable (caller); the pieces stay below `n`; SSE2 is
    // part of x86_64 (the high qword comes down with `punpckhqdq`, not SSE4.1's `pextrq`,
    // so an SSSE3-only entry can use this).
    unsafe {
        let lo = _mm_cvtsi128_si64(v) as u64;
        let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)) as u64;
        if n >= 8 {
            p.cast::<u64>().write_unaligned(lo);
            write_lt8(p.add(8), n - 8, hi);
        } else {
            write_lt8(p, n, lo);
        }
    }
}

impl<E: YmmEncoding> SimdVec for Ymm<E> {
    type Half = Self;
    const LANES: usize = 2;
    const EVEX: bool = E::EVEX;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: AVX is enabled in every caller (module contract).
        Ymm::new(unsafe { _mm256_setzero_si256() })
    }

    #[inline(always)]
    unsafe fn low_half(self) -> Self {
        self
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 32 readable bytes at `p`; unaligned load.
        Ymm::new(unsafe { _mm256_loadu_si256(p.cast()) })
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: the caller guarantees 32 writable bytes at `p`; unaligned store.
        unsafe { _mm256_storeu_si256(p.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Self {
        if E::EVEX {
            let mask = (1u32 << n) - 1;
            // SAFETY: AVX-512BW/VL are enabled for `Ymm<Evex>` (module contract);
            // masked-off bytes are not accessed, the first `n` are valid.
            Ymm::new(unsafe { _mm256_maskz_loadu_epi8(mask, p.cast()) })
        } else {
            // SAFETY: `n < 32` bytes are readable at `p` (caller): a full 16-byte half
            // and a partial one, or a partial low half.
            unsafe {
                if n >= 16 {
                    let lo = _mm_loadu_si128(p.cast());
                    let hi = load_lt16(p.add(16), n - 16);
                    Ymm::new(_mm256_set_m128i(hi, lo))
                } else {
                    Ymm::new(_mm256_zextsi128_si256(load_lt16(p, n)))
                }
            }
        }
    }

    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        if E::EVEX {
            let mask = (1u32 << n) - 1;
            // SAFETY: as in `load_partial`; only the first `n` bytes are written.
            unsafe { _mm256_mask_storeu_epi8(p.cast(), mask, self.0) }
        } else {
            // SAFETY: `n < 32` bytes are writable at `p` (caller), split as in
            // `load_partial`.
            unsafe {
                let lo = _mm256_castsi256_si128(self.0);
                if n >= 16 {
                    _mm_storeu_si128(p.cast(), lo);
                    store_lt16(p.add(16), n - 16, _mm256_extracti128_si256::<1>(self.0));
                } else {
                    store_lt16(p, n, lo);
                }
            }
        }
    }

    #[inline(always)]
    unsafe fn merge_partial(self, p: *const u8, n: usize) -> Self {
        if E::EVEX {
            let mask = (1u32 << n) - 1;
            // SAFETY: as in `load_partial`; masked-off bytes are not accessed.
            Ymm::new(unsafe { _mm256_mask_loadu_epi8(self.0, mask, p.cast()) })
        } else {
            // SAFETY: `n < 32` readable bytes at `p` (caller); the control window starts
            // at `32 - n` (1..=32) and spans 32 of the table's 64 bytes; AVX2 is enabled.
            unsafe {
                let loaded = Self::load_partial(p, n);
                let ctl = _mm256_loadu_si256(BLEND_FIRST.as_ptr().add(32 - n).cast());
                Ymm::new(_mm256_blendv_epi8(self.0, loaded.0, ctl))
            }
        }
    }

    #[inline(always)]
    unsafe fn load_block(p: *const u8) -> Self {
        // SAFETY: 16 readable bytes at `p` (caller).
        Ymm::new(unsafe { _mm256_zextsi128_si256(_mm_loadu_si128(p.cast())) })
    }

    #[inline(always)]
    unsafe fn store_block(self, p: *mut u8) {
        // SAFETY: 16 writable bytes at `p` (caller).
        unsafe { _mm_storeu_si128(p.cast(), _mm256_castsi256_si128(self.0)) }
    }

    #[inline(always)]
    unsafe fn lane(self, i: usize) -> [u8; 16] {
        let mut out = [0u8; 16];
        // SAFETY: AVX2 is enabled (module contract); `out` is 16 writable bytes.
        unsafe {
            let x = if i & 1 == 0 {
                _mm256_castsi256_si128(self.0)
            } else {
                _mm256_extracti128_si256::<1>(self.0)
            };
            _mm_storeu_si128(out.as_mut_ptr().cast(), x);
        }
        out
    }

    #[inline(always)]
    unsafe fn broadcast(block: &[u8; 16]) -> Self {
        // SAFETY: `block` is 16 readable bytes; AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(block.as_ptr().cast())) })
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_xor_si256(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn xor3(self, a: Self, b: Self) -> Self {
        if E::EVEX {
            // SAFETY: AVX-512F/VL are enabled for `Ymm<Evex>` (module contract).
            Ymm::new(unsafe { _mm256_ternarylogic_epi64::<0x96>(self.0, a.0, b.0) })
        } else {
            // SAFETY: AVX2 is enabled (module contract).
            Ymm::new(unsafe { _mm256_xor_si256(_mm256_xor_si256(self.0, a.0), b.0) })
        }
    }

    #[inline(always)]
    unsafe fn shuffle_bytes(self, ctl: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_shuffle_epi8(self.0, ctl.0) })
    }

    #[inline(always)]
    unsafe fn add_epi64(self, other: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_add_epi64(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn shl_epi64(self, s: u32) -> Self {
        // SAFETY: AVX2 is enabled (module contract); counts over 63 give zero.
        Ymm::new(unsafe { _mm256_sll_epi64(self.0, _mm_cvtsi32_si128(s as i32)) })
    }

    #[inline(always)]
    unsafe fn shr_epi64(self, s: u32) -> Self {
        // SAFETY: AVX2 is enabled (module contract); counts over 63 give zero.
        Ymm::new(unsafe { _mm256_srl_epi64(self.0, _mm_cvtsi32_si128(s as i32)) })
    }

    #[inline(always)]
    unsafe fn shlv_epi64(self, counts: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_sllv_epi64(self.0, counts.0) })
    }

    #[inline(always)]
    unsafe fn shrv_epi64(self, counts: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_srlv_epi64(self.0, counts.0) })
    }

    #[inline(always)]
    unsafe fn bslli<const N: i32>(self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_bslli_epi128::<N>(self.0) })
    }

    #[inline(always)]
    unsafe fn bsrli<const N: i32>(self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_bsrli_epi128::<N>(self.0) })
    }

    #[inline(always)]
    unsafe fn clmul<const IMM: i32>(self, other: Self) -> Self {
        // SAFETY: VPCLMULQDQ and AVX are enabled (module contract).
        Ymm::new(unsafe { _mm256_clmulepi64_epi128::<IMM>(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn swap_qwords(self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_shuffle_epi32::<0x4e>(self.0) })
    }

    #[inline(always)]
    unsafe fn fold_lanes(self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        unsafe {
            let lo = _mm256_castsi256_si128(self.0);
            let hi = _mm256_extracti128_si256::<1>(self.0);
            Ymm::new(_mm256_zextsi128_si256(_mm_xor_si128(lo, hi)))
        }
    }
}

impl SimdVec for Zmm {
    type Half = Ymm<Evex>;
    const LANES: usize = 4;
    const EVEX: bool = true;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_setzero_si512() })
    }

    #[inline(always)]
    unsafe fn low_half(self) -> Ymm<Evex> {
        // SAFETY: AVX-512F is enabled (module contract).
        Ymm::new(unsafe { _mm512_castsi512_si256(self.0) })
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: 64 readable bytes at `p` (caller); unaligned load.
        Zmm(unsafe { _mm512_loadu_si512(p.cast()) })
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: 64 writable bytes at `p` (caller); unaligned store.
        unsafe { _mm512_storeu_si512(p.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Self {
        let mask = (1u64 << n) - 1;
        // SAFETY: AVX-512BW is enabled; only the first `n < 64` bytes (valid) are read.
        Zmm(unsafe { _mm512_maskz_loadu_epi8(mask, p.cast()) })
    }

    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        let mask = (1u64 << n) - 1;
        // SAFETY: AVX-512BW is enabled; only the first `n < 64` bytes (valid) are written.
        unsafe { _mm512_mask_storeu_epi8(p.cast(), mask, self.0) }
    }

    #[inline(always)]
    unsafe fn merge_partial(self, p: *const u8, n: usize) -> Self {
        let mask = (1u64 << n) - 1;
        // SAFETY: AVX-512BW is enabled; only the first `n < 64` bytes (valid) are read.
        Zmm(unsafe { _mm512_mask_loadu_epi8(self.0, mask, p.cast()) })
    }

    #[inline(always)]
    unsafe fn load_block(p: *const u8) -> Self {
        // SAFETY: 16 readable bytes at `p` (caller).
        Zmm(unsafe { _mm512_zextsi128_si512(_mm_loadu_si128(p.cast())) })
    }

    #[inline(always)]
    unsafe fn store_block(self, p: *mut u8) {
        // SAFETY: 16 writable bytes at `p` (caller).
        unsafe { _mm_storeu_si128(p.cast(), _mm512_castsi512_si128(self.0)) }
    }

    #[inline(always)]
    unsafe fn lane(self, i: usize) -> [u8; 16] {
        let mut out = [0u8; 16];
        // SAFETY: AVX-512F is enabled (module contract); `out` is 16 writable bytes.
        unsafe {
            let x = match i & 3 {
                0 => _mm512_castsi512_si128(self.0),
                1 => _mm512_extracti32x4_epi32::<1>(self.0),
                2 => _mm512_extracti32x4_epi32::<2>(self.0),
                _ => _mm512_extracti32x4_epi32::<3>(self.0),
            };
            _mm_storeu_si128(out.as_mut_ptr().cast(), x);
        }
        out
    }

    #[inline(always)]
    unsafe fn broadcast(block: &[u8; 16]) -> Self {
        // SAFETY: `block` is 16 readable bytes; AVX-512F is enabled.
        Zmm(unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(block.as_ptr().cast())) })
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_xor_si512(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn xor3(self, a: Self, b: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_ternarylogic_epi64::<0x96>(self.0, a.0, b.0) })
    }

    #[inline(always)]
    unsafe fn shuffle_bytes(self, ctl: Self) -> Self {
        // SAFETY: AVX-512BW is enabled (module contract).
        Zmm(unsafe { _mm512_shuffle_epi8(self.0, ctl.0) })
    }

    #[inline(always)]
    unsafe fn add_epi64(self, other: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_add_epi64(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn shl_epi64(self, s: u32) -> Self {
        // SAFETY: AVX-512F is enabled (module contract); counts over 63 give zero.
        Zmm(unsafe { _mm512_sll_epi64(self.0, _mm_cvtsi32_si128(s as i32)) })
    }

    #[inline(always)]
    unsafe fn shr_epi64(self, s: u32) -> Self {
        // SAFETY: AVX-512F is enabled (module contract); counts over 63 give zero.
        Zmm(unsafe { _mm512_srl_epi64(self.0, _mm_cvtsi32_si128(s as i32)) })
    }

    #[inline(always)]
    unsafe fn shlv_epi64(self, counts: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_sllv_epi64(self.0, counts.0) })
    }

    #[inline(always)]
    unsafe fn shrv_epi64(self, counts: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_srlv_epi64(self.0, counts.0) })
    }

    #[inline(always)]
    unsafe fn bslli<const N: i32>(self) -> Self {
        // SAFETY: AVX-512BW is enabled (module contract).
        Zmm(unsafe { _mm512_bslli_epi128::<N>(self.0) })
    }

    #[inline(always)]
    unsafe fn bsrli<const N: i32>(self) -> Self {
        // SAFETY: AVX-512BW is enabled (module contract).
        Zmm(unsafe { _mm512_bsrli_epi128::<N>(self.0) })
    }

    #[inline(always)]
    unsafe fn clmul<const IMM: i32>(self, other: Self) -> Self {
        // SAFETY: VPCLMULQDQ and AVX-512F are enabled (module contract).
        Zmm(unsafe { _mm512_clmulepi64_epi128::<IMM>(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn swap_qwords(self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_shuffle_epi32::<0x4e>(self.0) })
    }

    #[inline(always)]
    unsafe fn fold_lanes(self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        unsafe {
            let y = _mm256_xor_si256(
                _mm512_castsi512_si256(self.0),
                _mm512_extracti64x4_epi64::<1>(self.0),
            );
            let x = _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y));
            Zmm(_mm512_zextsi128_si512(x))
        }
    }
}
