//! 32-bit-word vectors for the ARX ciphers (ChaCha20): [`Word32Vec`] over the three
//! widths of the shared layer plus an xmm type, [`Xmm`].
//!
//! [`SimdVec`](super::vector::SimdVec) is 128-bit-lane oriented (AES blocks, carry-less
//! multiplies); ChaCha20 works on 32-bit words instead: it adds, XORs and rotates them,
//! and turns the "vertical" layout (word `i` of block `b` in 32-bit lane `b` of vector
//! `i`) back into bytes with per-128-bit-lane unpacks and a transpose of 128-bit lanes
//! across four vectors. This trait is that vocabulary, written once; the ChaCha20 core
//! (`chacha20/simd/core.rs`) is written over it and instantiated per width.
//!
//! | type | words | rotates | partial vectors | driver |
//! | --- | --- | --- | --- | --- |
//! | [`Xmm<Vex>`] | 4 | `pshufb` (16, 8), shift + or (12, 7) | general-register pieces | `chacha20-ssse3` (SSE encoding), tails of avx2 |
//! | [`Ymm<Vex>`] | 8 | as xmm | general-register pieces | `chacha20-avx2` |
//! | [`Xmm<Evex>`] | 4 | `vprold` | byte masks | tails of avx512vl |
//! | [`Ymm<Evex>`] | 8 | `vprold` | byte masks | `chacha20-avx512vl`, tails of avx512f |
//! | [`Zmm`] | 16 | `vprold` | byte masks | `chacha20-avx512f` |
//!
//! The EVEX types also compute `(x ^ y) <<< k` as `(x <<< k) ^ (y << k) ^ (y >> 32 - k)`
//! ([`Word32Vec::xor_rotl16`] and its siblings: one `vpternlogd` after the shifts), for a
//! kernel bound by the latency of one state's rounds.
//!
//! `Xmm<Vex>` uses nothing above SSSE3, so the same type compiles to legacy SSE code in
//! an `ssse3` entry and to VEX code in an `avx2` entry: the encoding is the entry's
//! target features' choice, the type only decides which instructions exist ("`Vex`" reads
//! as "no AVX-512" here).
//!
//! Same safety contract as [`super::vector`]: every method is `#[inline(always)]` and
//! `unsafe`, callable only from code compiled with the implementor's features (SSSE3 for
//! `Xmm<Vex>`, AVX2 for `Ymm<Vex>`, AVX-512F/BW/VL for the `Evex` types and `Zmm`), and
//! pointers must be valid for the bytes a method documents.

use core::arch::x86_64::*;
use core::marker::PhantomData;

use super::vector::{load_lt16, store_lt16, Evex, SimdVec, Ymm, YmmEncoding, Zmm};

/// A `pshufb` control for both lanes of a ymm (an xmm uses the first 16 bytes), aligned
/// for a whole-vector load.
#[repr(C, align(32))]
struct ShuffleTable([u8; 32]);

/// Repeats a 16-byte per-lane control for both ymm lanes.
const fn two_lanes(lane: [u8; 16]) -> ShuffleTable {
    let mut t = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        t[i] = lane[i % 16];
        i += 1;
    }
    ShuffleTable(t)
}

/// `vpshufb` control rotating every 32-bit word left by 16 bits (per 128-bit lane).
static ROT16: ShuffleTable = two_lanes([2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13]);
/// `vpshufb` control rotating every 32-bit word left by 8 bits.
static ROT8: ShuffleTable = two_lanes([3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14]);

/// An xmm register: one 128-bit lane, encoded as `E` allows (see the module docs).
#[derive(Clone, Copy)]
pub(crate) struct Xmm<E: YmmEncoding>(pub(crate) __m128i, PhantomData<E>);

impl<E: YmmEncoding> Xmm<E> {
    #[inline(always)]
    fn new(v: __m128i) -> Self {
        Xmm(v, PhantomData)
    }
}

/// A vector of 32-bit words in 128-bit lanes. See the module documentation for the safety
/// contract.
pub(crate) trait Word32Vec: Copy {
    /// The next narrower type (`Zmm` -> `Ymm<Evex>` -> `Xmm<Evex>`, `Ymm<Vex>` ->
    /// `Xmm<Vex>`; an xmm type is its own): what a core finishes short requests on.
    type Narrow: Word32Vec;
    /// 128-bit lanes per vector: 1, 2 or 4.
    const LANES: usize;
    /// 32-bit words per vector.
    const WORDS: usize = 4 * Self::LANES;
    /// Bytes per vector.
    const BYTES: usize = 16 * Self::LANES;

    /// Loads `BYTES` bytes (unaligned).
    unsafe fn load(p: *const u8) -> Self;
    /// Stores `BYTES` bytes (unaligned).
    unsafe fn store(self, p: *mut u8);
    /// Loads `n < BYTES` bytes, the rest zero; touches no byte past `n`.
    unsafe fn load_partial(p: *const u8, n: usize) -> Self;
    /// Stores the first `n < BYTES` bytes; touches no byte past `n`.
    unsafe fn store_partial(self, p: *mut u8, n: usize);
    /// `w` in every word.
    unsafe fn splat(w: u32) -> Self;
    /// The four words `row` in every 128-bit lane.
    unsafe fn splat_row(row: &[u32; 4]) -> Self;
    /// Word-wise wrapping addition.
    unsafe fn add32(self, other: Self) -> Self;
    /// Bitwise exclusive or.
    unsafe fn xor(self, other: Self) -> Self;
    /// Rotates every word left by 16.
    unsafe fn rotl16(self) -> Self;
    /// Rotates every word left by 12.
    unsafe fn rotl12(self) -> Self;
    /// Rotates every word left by 8.
    unsafe fn rotl8(self) -> Self;
    /// Rotates every word left by 7.
    unsafe fn rotl7(self) -> Self;
    /// `(self ^ a) <<< 16`, as `(self <<< 16) ^ (a << 16) ^ (a >> 16)` where a three-way
    /// XOR exists (AVX-512: one `vpternlogd`), so that the latency from `a` is a shift and
    /// that XOR rather than an XOR and a rotate (`chacha20::simd::core`'s
    /// `quarter_low_latency` says when that pays); else `xor` then `rotl16`.
    #[inline(always)]
    unsafe fn xor_rotl16(self, a: Self) -> Self {
        // SAFETY: forwarded (same contract).
        unsafe { self.xor(a).rotl16() }
    }
    /// `(self ^ a) <<< 12`, as [`xor_rotl16`](Self::xor_rotl16).
    #[inline(always)]
    unsafe fn xor_rotl12(self, a: Self) -> Self {
        // SAFETY: forwarded (same contract).
        unsafe { self.xor(a).rotl12() }
    }
    /// `(self ^ a) <<< 8`, as [`xor_rotl16`](Self::xor_rotl16).
    #[inline(always)]
    unsafe fn xor_rotl8(self, a: Self) -> Self {
        // SAFETY: forwarded (same contract).
        unsafe { self.xor(a).rotl8() }
    }
    /// `(self ^ a) <<< 7`, as [`xor_rotl16`](Self::xor_rotl16).
    #[inline(always)]
    unsafe fn xor_rotl7(self, a: Self) -> Self {
        // SAFETY: forwarded (same contract).
        unsafe { self.xor(a).rotl7() }
    }
    /// `pshufd`: word `i` of each lane becomes word `(IMM >> 2i) & 3` of the same lane.
    unsafe fn shuffle32<const IMM: i32>(self) -> Self;
    /// Per lane `(a0, b0, a1, b1)` from `a = self` and `b` (`punpckldq`).
    unsafe fn unpacklo32(self, b: Self) -> Self;
    /// Per lane `(a2, b2, a3, b3)` (`punpckhdq`).
    unsafe fn unpackhi32(self, b: Self) -> Self;
    /// Per lane `(a.q0, b.q0)` (`punpcklqdq`).
    unsafe fn unpacklo64(self, b: Self) -> Self;
    /// Per lane `(a.q1, b.q1)` (`punpckhqdq`).
    unsafe fn unpackhi64(self, b: Self) -> Self;
    /// Transposes 128-bit lanes across four vectors so that the output, stored one vector
    /// after the other, is lane 0 of `v[0], v[1], v[2], v[3]`, then lane 1 of the same,
    /// and so on: `LANES` 64-byte units, unit `l` made of lane `l` of each input. (Identity
    /// for xmm; `vperm2i128` for ymm; two rounds of `vshufi32x4` for zmm.)
    unsafe fn lane_transpose(v: [Self; 4]) -> [Self; 4];
}

/// The rotates: `vprold` (AVX-512F, or VL on xmm/ymm) where the type is EVEX-encoded,
/// else `pshufb` for the byte multiples (16, 8) and shift + or for the others (12, 7).
macro_rules! rotates {
    (evex: $wrap:expr, $rol:ident) => {
        #[inline(always)]
        unsafe fn rotl16(self) -> Self {
            // SAFETY: the features of this type are enabled (module contract).
            $wrap(unsafe { $rol::<16>(self.0) })
        }

        #[inline(always)]
        unsafe fn rotl12(self) -> Self {
            // SAFETY: as above.
            $wrap(unsafe { $rol::<12>(self.0) })
        }

        #[inline(always)]
        unsafe fn rotl8(self) -> Self {
            // SAFETY: as above.
            $wrap(unsafe { $rol::<8>(self.0) })
        }

        #[inline(always)]
        unsafe fn rotl7(self) -> Self {
            // SAFETY: as above.
            $wrap(unsafe { $rol::<7>(self.0) })
        }
    };
    ($evex:expr, $wrap:expr, $rol:ident, $rot16b:ident, $rot8b:ident, $slli:ident, $srli:ident,
     $or:ident) => {
        #[inline(always)]
        unsafe fn rotl16(self) -> Self {
            // SAFETY: the features of this type are enabled (module contract).
            $wrap(unsafe {
                if $evex {
                    $rol::<16>(self.0)
                } else {
                    $rot16b(self.0)
                }
            })
        }

        #[inline(always)]
        unsafe fn rotl12(self) -> Self {
            // SAFETY: as above.
            $wrap(unsafe {
                if $evex {
                    $rol::<12>(self.0)
                } else {
                    $or($slli::<12>(self.0), $srli::<20>(self.0))
                }
            })
        }

        #[inline(always)]
        unsafe fn rotl8(self) -> Self {
            // SAFETY: as above.
            $wrap(unsafe {
                if $evex {
                    $rol::<8>(self.0)
                } else {
                    $rot8b(self.0)
                }
            })
        }

        #[inline(always)]
        unsafe fn rotl7(self) -> Self {
            // SAFETY: as above.
            $wrap(unsafe {
                if $evex {
                    $rol::<7>(self.0)
                } else {
                    $or($slli::<7>(self.0), $srli::<25>(self.0))
                }
            })
        }
    };
}

/// The xor-rotates of the EVEX types ([`Word32Vec::xor_rotl16`]): the old value's rotate,
/// the new one's two shifts, one `vpternlogd` (0x96: three-way XOR; the shifted halves
/// have no bit in common, so XOR is OR there). `$evex` false keeps the default form.
macro_rules! xor_rotates {
    ($evex:expr, $wrap:expr, $rol:ident, $slli:ident, $srli:ident, $tern:ident) => {
        xor_rotates!(@one $evex, $wrap, $rol, $slli, $srli, $tern, xor_rotl16, rotl16, 16, 16);
        xor_rotates!(@one $evex, $wrap, $rol, $slli, $srli, $tern, xor_rotl12, rotl12, 12, 20);
        xor_rotates!(@one $evex, $wrap, $rol, $slli, $srli, $tern, xor_rotl8, rotl8, 8, 24);
        xor_rotates!(@one $evex, $wrap, $rol, $slli, $srli, $tern, xor_rotl7, rotl7, 7, 25);
    };
    (@one $evex:expr, $wrap:expr, $rol:ident, $slli:ident, $srli:ident, $tern:ident,
     $name:ident, $plain:ident, $k:literal, $rest:literal) => {
        #[inline(always)]
        unsafe fn $name(self, a: Self) -> Self {
            // SAFETY: the features of this type are enabled (module contract); the EVEX
            // branch only for the EVEX types, which have AVX-512F/VL.
            unsafe {
                if $evex {
                    $wrap($tern::<0x96>($rol::<$k>(self.0), $slli::<$k>(a.0), $srli::<$rest>(a.0)))
                } else {
                    Word32Vec::xor(self, a).$plain()
                }
            }
        }
    };
}

/// Loads a shuffle control (SSE2) with a volatile read: LLVM cannot see the constant, so
/// it keeps the one `pshufb` per rotate instead of "improving" the 16-bit rotate into a
/// `pshuflw` + `pshufhw` pair and folding the 8-bit one across the preceding XOR (both
/// cost an extra shuffle uop on the busiest port; measured on a Sapphire-Rapids-class
/// machine: the ssse3 and avx2 drivers about 10% faster this way; the avx2 ones now read
/// theirs RIP-relative, [`byte_rotate_ymm`]). The load itself goes to a load port, which
/// the rounds leave idle.
#[inline(always)]
unsafe fn table128(t: &ShuffleTable) -> __m128i {
    // SAFETY: `t` is 32 readable bytes aligned to 32 (`ShuffleTable`), of which the first
    // 16 are read; SSE2 is part of x86_64.
    unsafe { core::ptr::read_volatile(t.0.as_ptr().cast::<__m128i>()) }
}

/// Every 32-bit word of `x` rotated left by 16 bits with `pshufb` ([`table128`]).
#[inline(always)]
unsafe fn rotl16_bytes_xmm(x: __m128i) -> __m128i {
    // SAFETY: SSSE3 or AVX is enabled where this is inlined (the xmm types' contract).
    unsafe { _mm_shuffle_epi8(x, table128(&ROT16)) }
}

/// Every 32-bit word of `x` rotated left by 8 bits with `pshufb` ([`table128`]).
#[inline(always)]
unsafe fn rotl8_bytes_xmm(x: __m128i) -> __m128i {
    // SAFETY: as above.
    unsafe { _mm_shuffle_epi8(x, table128(&ROT8)) }
}

/// `vpshufb` of a ymm by a control table read from the table's own address, RIP-relative:
/// a byte rotate of every 32-bit word ([`rotl16_bytes_ymm`], [`rotl8_bytes_ymm`]).
/// Assembly for the same reason [`table128`] reads volatile (LLVM must not see the
/// constant and rewrite the rotate), and because the volatile read of a `static` kept a
/// general register on the table's address (loaded from the GOT) for as long as the rounds
/// ran: two of them in the ymm fused ChaCha20-Poly1305 loop, whose scalar Poly1305 step
/// then kept `r`, its block pointer and top limb on the stack (no longer: the step is
/// assembly now, `poly1305::simd::step`). Zen 3, `cargo xtask limits
/// --fastest`: `chacha20-avx2` 0.95-0.96 -> 1.00 of its bound, the fused seal 0.76-0.77 ->
/// 0.77-0.78.
macro_rules! byte_rotate_ymm {
    ($(#[$doc:meta])* $name:ident, $table:ident) => {
        $(#[$doc])*
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn $name(x: __m256i) -> __m256i {
            let out;
            // SAFETY: reads the 32 bytes of the table (a static, aligned to 32) and nothing
            // else; AVX2 is enabled (this function's features, which its callers have).
            unsafe {
                core::arch::asm!(
                    "vpshufb {o}, {x}, ymmword ptr [rip + {t}]",
                    o = lateout(ymm_reg) out,
                    x = in(ymm_reg) x,
                    t = sym $table,
                    options(pure, readonly, nostack, preserves_flags)
                )
            };
            out
        }
    };
}

byte_rotate_ymm!(
    /// Every 32-bit word of `x` rotated left by 16 bits ([`byte_rotate_ymm`]).
    rotl16_bytes_ymm,
    ROT16
);
byte_rotate_ymm!(
    /// Every 32-bit word of `x` rotated left by 8 bits ([`byte_rotate_ymm`]).
    rotl8_bytes_ymm,
    ROT8
);

impl<E: YmmEncoding> Word32Vec for Xmm<E> {
    type Narrow = Self;
    const LANES: usize = 1;

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: 16 readable bytes at `p` (caller).
        Self::new(unsafe { _mm_loadu_si128(p.cast()) })
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: 16 writable bytes at `p` (caller).
        unsafe { _mm_storeu_si128(p.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Self {
        if E::EVEX {
            let mask = (1u16 << n) - 1;
            // SAFETY: AVX-512BW/VL are enabled for `Xmm<Evex>`; only the first `n < 16`
            // bytes (valid) are read.
            Self::new(unsafe { _mm_maskz_loadu_epi8(mask, p.cast()) })
        } else {
            // SAFETY: `n < 16` readable bytes at `p` (caller).
            Self::new(unsafe { load_lt16(p, n) })
        }
    }

    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        if E::EVEX {
            let mask = (1u16 << n) - 1;
            // SAFETY: as in `load_partial`; only the first `n` bytes are written.
            unsafe { _mm_mask_storeu_epi8(p.cast(), mask, self.0) }
        } else {
            // SAFETY: `n < 16` writable bytes at `p` (caller).
            unsafe { store_lt16(p, n, self.0) }
        }
    }

    #[inline(always)]
    unsafe fn splat(w: u32) -> Self {
        // SAFETY: SSE2 is part of x86_64.
        Self::new(unsafe { _mm_set1_epi32(w as i32) })
    }

    #[inline(always)]
    unsafe fn splat_row(row: &[u32; 4]) -> Self {
        // SAFETY: `row` is 16 readable bytes.
        Self::new(unsafe { _mm_loadu_si128(row.as_ptr().cast()) })
    }

    #[inline(always)]
    unsafe fn add32(self, other: Self) -> Self {
        // SAFETY: SSE2 is part of x86_64.
        Self::new(unsafe { _mm_add_epi32(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: SSE2 is part of x86_64.
        Self::new(unsafe { _mm_xor_si128(self.0, other.0) })
    }

    xor_rotates!(
        E::EVEX,
        Self::new,
        _mm_rol_epi32,
        _mm_slli_epi32,
        _mm_srli_epi32,
        _mm_ternarylogic_epi32
    );

    rotates!(
        E::EVEX,
        Self::new,
        _mm_rol_epi32,
        rotl16_bytes_xmm,
        rotl8_bytes_xmm,
        _mm_slli_epi32,
        _mm_srli_epi32,
        _mm_or_si128
    );

    #[inline(always)]
    unsafe fn shuffle32<const IMM: i32>(self) -> Self {
        // SAFETY: SSE2 is part of x86_64.
        Self::new(unsafe { _mm_shuffle_epi32::<IMM>(self.0) })
    }

    #[inline(always)]
    unsafe fn unpacklo32(self, b: Self) -> Self {
        // SAFETY: SSE2 is part of x86_64.
        Self::new(unsafe { _mm_unpacklo_epi32(self.0, b.0) })
    }

    #[inline(always)]
    unsafe fn unpackhi32(self, b: Self) -> Self {
        // SAFETY: SSE2 is part of x86_64.
        Self::new(unsafe { _mm_unpackhi_epi32(self.0, b.0) })
    }

    #[inline(always)]
    unsafe fn unpacklo64(self, b: Self) -> Self {
        // SAFETY: SSE2 is part of x86_64.
        Self::new(unsafe { _mm_unpacklo_epi64(self.0, b.0) })
    }

    #[inline(always)]
    unsafe fn unpackhi64(self, b: Self) -> Self {
        // SAFETY: SSE2 is part of x86_64.
        Self::new(unsafe { _mm_unpackhi_epi64(self.0, b.0) })
    }

    #[inline(always)]
    unsafe fn lane_transpose(v: [Self; 4]) -> [Self; 4] {
        v
    }
}

impl<E: YmmEncoding> Word32Vec for Ymm<E> {
    type Narrow = Xmm<E>;
    const LANES: usize = 2;

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: forwarded (same contract).
        unsafe { SimdVec::load(p) }
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: forwarded (same contract).
        unsafe { SimdVec::store(self, p) }
    }

    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Self {
        // SAFETY: forwarded (same contract).
        unsafe { SimdVec::load_partial(p, n) }
    }

    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        // SAFETY: forwarded (same contract).
        unsafe { SimdVec::store_partial(self, p, n) }
    }

    #[inline(always)]
    unsafe fn splat(w: u32) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_set1_epi32(w as i32) })
    }

    #[inline(always)]
    unsafe fn splat_row(row: &[u32; 4]) -> Self {
        // SAFETY: `row` is 16 readable bytes; AVX2 is enabled.
        Ymm::new(unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(row.as_ptr().cast())) })
    }

    #[inline(always)]
    unsafe fn add32(self, other: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_add_epi32(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_xor_si256(self.0, other.0) })
    }

    xor_rotates!(
        E::EVEX,
        Ymm::new,
        _mm256_rol_epi32,
        _mm256_slli_epi32,
        _mm256_srli_epi32,
        _mm256_ternarylogic_epi32
    );

    rotates!(
        E::EVEX,
        Ymm::new,
        _mm256_rol_epi32,
        rotl16_bytes_ymm,
        rotl8_bytes_ymm,
        _mm256_slli_epi32,
        _mm256_srli_epi32,
        _mm256_or_si256
    );

    #[inline(always)]
    unsafe fn shuffle32<const IMM: i32>(self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_shuffle_epi32::<IMM>(self.0) })
    }

    #[inline(always)]
    unsafe fn unpacklo32(self, b: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_unpacklo_epi32(self.0, b.0) })
    }

    #[inline(always)]
    unsafe fn unpackhi32(self, b: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_unpackhi_epi32(self.0, b.0) })
    }

    #[inline(always)]
    unsafe fn unpacklo64(self, b: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_unpacklo_epi64(self.0, b.0) })
    }

    #[inline(always)]
    unsafe fn unpackhi64(self, b: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm::new(unsafe { _mm256_unpackhi_epi64(self.0, b.0) })
    }

    #[inline(always)]
    unsafe fn lane_transpose(v: [Self; 4]) -> [Self; 4] {
        // SAFETY: AVX2 is enabled (module contract).
        unsafe {
            // Low lanes of (v0, v1) and (v2, v3): block j; high lanes: block 4 + j.
            [
                Ymm::new(_mm256_permute2x128_si256::<0x20>(v[0].0, v[1].0)),
                Ymm::new(_mm256_permute2x128_si256::<0x20>(v[2].0, v[3].0)),
                Ymm::new(_mm256_permute2x128_si256::<0x31>(v[0].0, v[1].0)),
                Ymm::new(_mm256_permute2x128_si256::<0x31>(v[2].0, v[3].0)),
            ]
        }
    }
}

impl Word32Vec for Zmm {
    type Narrow = Ymm<Evex>;
    const LANES: usize = 4;

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: forwarded (same contract).
        unsafe { SimdVec::load(p) }
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: forwarded (same contract).
        unsafe { SimdVec::store(self, p) }
    }

    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Self {
        // SAFETY: forwarded (same contract).
        unsafe { SimdVec::load_partial(p, n) }
    }

    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        // SAFETY: forwarded (same contract).
        unsafe { SimdVec::store_partial(self, p, n) }
    }

    #[inline(always)]
    unsafe fn splat(w: u32) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_set1_epi32(w as i32) })
    }

    #[inline(always)]
    unsafe fn splat_row(row: &[u32; 4]) -> Self {
        // SAFETY: `row` is 16 readable bytes; AVX-512F is enabled.
        Zmm(unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(row.as_ptr().cast())) })
    }

    #[inline(always)]
    unsafe fn add32(self, other: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_add_epi32(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_xor_si512(self.0, other.0) })
    }

    rotates!(evex: Zmm, _mm512_rol_epi32);

    xor_rotates!(
        true,
        Zmm,
        _mm512_rol_epi32,
        _mm512_slli_epi32,
        _mm512_srli_epi32,
        _mm512_ternarylogic_epi32
    );

    #[inline(always)]
    unsafe fn shuffle32<const IMM: i32>(self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_shuffle_epi32::<IMM>(self.0) })
    }

    #[inline(always)]
    unsafe fn unpacklo32(self, b: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_unpacklo_epi32(self.0, b.0) })
    }

    #[inline(always)]
    unsafe fn unpackhi32(self, b: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_unpackhi_epi32(self.0, b.0) })
    }

    #[inline(always)]
    unsafe fn unpacklo64(self, b: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_unpacklo_epi64(self.0, b.0) })
    }

    #[inline(always)]
    unsafe fn unpackhi64(self, b: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_unpackhi_epi64(self.0, b.0) })
    }

    #[inline(always)]
    unsafe fn lane_transpose(v: [Self; 4]) -> [Self; 4] {
        // SAFETY: AVX-512F is enabled (module contract).
        unsafe {
            // (v0.l0, v0.l1, v1.l0, v1.l1) and (v0.l2, v0.l3, v1.l2, v1.l3), same for v2/v3 ...
            let a = _mm512_shuffle_i32x4::<0x44>(v[0].0, v[1].0);
            let b = _mm512_shuffle_i32x4::<0xee>(v[0].0, v[1].0);
            let c = _mm512_shuffle_i32x4::<0x44>(v[2].0, v[3].0);
            let d = _mm512_shuffle_i32x4::<0xee>(v[2].0, v[3].0);
            // ... then the even and the odd lanes of each pair: unit l = lane l of v0..v3.
            [
                Zmm(_mm512_shuffle_i32x4::<0x88>(a, c)),
                Zmm(_mm512_shuffle_i32x4::<0xdd>(a, c)),
                Zmm(_mm512_shuffle_i32x4::<0x88>(b, d)),
                Zmm(_mm512_shuffle_i32x4::<0xdd>(b, d)),
            ]
        }
    }
}

#[cfg(test)]
mod tests {
    //! The xor-rotates of every type against the scalar `(x ^ y).rotate_left(k)`: only
    //! some of them run in a driver today (the EVEX ymm ones), so a wrong intrinsic or
    //! shift count in another would pass the drivers' tests.

    use super::*;
    use crate::x86::vector::Vex;

    /// Checks `xor_rotl16/12/8/7` of `V` over random words (64 bytes of each operand, as
    /// many vectors as fit).
    ///
    /// # Safety
    /// The CPU has `V`'s features (the callers' `target_feature`).
    #[inline(always)]
    unsafe fn check<V: Word32Vec>(name: &str, x: &[u32; 16], y: &[u32; 16]) {
        for k in [16, 12, 8, 7] {
            let mut got = [0u32; 16];
            for off in (0..16).step_by(V::WORDS) {
                // SAFETY: `V::WORDS` words from `off` lie within each 16-word array; no
                // closure or call, so everything stays in the caller's features.
                unsafe {
                    let a = V::load(x[off..].as_ptr().cast());
                    let b = V::load(y[off..].as_ptr().cast());
                    let r = match k {
                        16 => a.xor_rotl16(b),
                        12 => a.xor_rotl12(b),
                        8 => a.xor_rotl8(b),
                        _ => a.xor_rotl7(b),
                    };
                    r.store(got[off..].as_mut_ptr().cast());
                }
            }
            for i in 0..16 {
                assert_eq!(
                    got[i],
                    (x[i] ^ y[i]).rotate_left(k),
                    "{name} xor_rotl{k} word {i}"
                );
            }
        }
    }

    #[target_feature(enable = "ssse3")]
    unsafe fn check_ssse3(x: &[u32; 16], y: &[u32; 16]) {
        // SAFETY: SSSE3 enabled here.
        unsafe { check::<Xmm<Vex>>("Xmm<Vex>", x, y) }
    }

    #[target_feature(enable = "avx,avx2")]
    unsafe fn check_avx2(x: &[u32; 16], y: &[u32; 16]) {
        // SAFETY: AVX2 enabled here.
        unsafe { check::<Ymm<Vex>>("Ymm<Vex>", x, y) }
    }

    #[target_feature(enable = "avx,avx2,avx512f,avx512bw,avx512vl")]
    unsafe fn check_avx512(x: &[u32; 16], y: &[u32; 16]) {
        // SAFETY: AVX-512F/BW/VL enabled here.
        unsafe {
            check::<Xmm<Evex>>("Xmm<Evex>", x, y);
            check::<Ymm<Evex>>("Ymm<Evex>", x, y);
            check::<Zmm>("Zmm", x, y);
        }
    }

    #[test]
    fn xor_rotates_are_xor_then_rotate_on_every_type() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u32
        };
        let mut ran = Vec::new();
        for _ in 0..64 {
            let x: [u32; 16] = core::array::from_fn(|_| next());
            let y: [u32; 16] = core::array::from_fn(|_| next());
            if std::is_x86_feature_detected!("ssse3") {
                // SAFETY: SSSE3 detected.
                unsafe { check_ssse3(&x, &y) };
                ran.push("ssse3");
            }
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 detected.
                unsafe { check_avx2(&x, &y) };
                ran.push("avx2");
            }
            if std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512bw")
                && std::is_x86_feature_detected!("avx512vl")
            {
                // SAFETY: AVX-512F/BW/VL detected.
                unsafe { check_avx512(&x, &y) };
                ran.push("avx512");
            }
        }
        ran.sort();
        ran.dedup();
        eprintln!("xor-rotates checked on {ran:?} (the others need features this CPU lacks)");
    }
}
