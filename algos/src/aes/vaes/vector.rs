//! The small vector abstraction the XTS and CTR cores are written over.
//!
//! A vector holds [`AesVec::LANES`] AES blocks side by side (128-bit lanes): two for a
//! ymm register, four for a zmm register. Every operation works lane by lane, as VAES and
//! VPCLMULQDQ do. Three instantiations exist:
//!
//! | type | register | partial blocks / ciphertext stealing |
//! | --- | --- | --- |
//! | [`Ymm<false>`] (`*-vaes-avx2`) | ymm | 8/4/2/1-byte pieces through general registers; CTS by an overlapping load + `vpshufb` + `vpblendvb` |
//! | [`Ymm<true>`] (`*-vaes-avx10_256`) | ymm | AVX-512VL/BW byte-masked loads, stores and blends |
//! | [`Zmm`] (`*-vaes-avx10_512`) | zmm | AVX-512BW byte-masked loads, stores and blends |
//!
//! Every method is `#[inline(always)]` and `unsafe`: it may only be called from code that is
//! compiled with the implementor's target features enabled (the `#[target_feature]`
//! entry functions in `entry.rs`), and pointer arguments must be valid for the number of
//! bytes the method documents.

use core::arch::x86_64::*;

/// `[0x80; 16] ++ [0, 1, ..., 15] ++ [0x80; 16]`: 16-byte windows of this table are the
/// `vpshufb` controls that move the stolen bytes of ciphertext stealing into place
/// (a control byte with its top bit set selects zero and, in `vpblendvb`, the other input).
static CTS_SHUFFLE: [u8; 48] = {
    let mut t = [0x80u8; 48];
    let mut i = 0;
    while i < 16 {
        t[16 + i] = i as u8;
        i += 1;
    }
    t
};

/// Reverses the bytes of each 128-bit lane: little-endian counter <-> big-endian block.
static BSWAP_128: [u8; 16] = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];

/// Lane i holds the 128-bit little-endian integer i (for up to four lanes): added to a
/// broadcast counter it gives consecutive counters.
pub(crate) static LANE_INDEX: [u64; 8] = [0, 0, 1, 0, 2, 0, 3, 0];

/// Per-qword shift counts for [`AesVec::mul_x_lane_index`]: lane i shifts left by i ...
static SEQ_SHL: [u64; 8] = [0, 0, 1, 1, 2, 2, 3, 3];
/// ... and its carries are the top i bits (a count of 64 shifts everything out).
static SEQ_SHR: [u64; 8] = [64, 64, 63, 63, 62, 62, 61, 61];

/// The XTS reduction polynomial x^128 = x^7 + x^2 + x + 1, as the low qword of a lane.
static GF_POLY_XTS: [u8; 16] = [0x87, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

/// A vector of AES blocks. See the module documentation for the safety contract.
pub(crate) trait AesVec: Copy {
    /// The vector type short requests and the last blocks use: `Ymm<true>` for `Zmm`
    /// (a zmm operation has a longer latency on some CPUs and gains nothing on one or two
    /// blocks), the type itself for ymm.
    type Half: AesVec;
    /// Blocks per vector: 2 (ymm) or 4 (zmm).
    const LANES: usize;
    /// Bytes per vector.
    const BYTES: usize = 16 * Self::LANES;
    /// Whether the main loops should read round keys from memory in every round instead
    /// of keeping them in registers. The ymm drivers keep 8 vectors of blocks and 8 of
    /// tweaks in flight; with 15 round keys on top, the compiler serialized the blocks to
    /// save registers (measured: about 40% slower), so they load keys (cheap: the load
    /// ports are idle) and keep the blocks interleaved.
    const KEYS_IN_MEMORY: bool = false;

    /// Round key `r` of the broadcast schedule `k`, from memory or a register (see
    /// [`KEYS_IN_MEMORY`](Self::KEYS_IN_MEMORY)).
    #[inline(always)]
    unsafe fn round_key(k: &[Self; 15], r: usize) -> Self {
        if Self::KEYS_IN_MEMORY {
            // SAFETY: `&k[r]` is a valid, aligned reference; the volatile read only keeps
            // the compiler from hoisting the load into a register for the whole loop.
            unsafe { core::ptr::read_volatile(&k[r]) }
        } else {
            k[r]
        }
    }

    /// All-zero vector.
    unsafe fn zero() -> Self;
    /// The first [`Half::LANES`](AesVec::LANES) lanes.
    unsafe fn low_half(self) -> Self::Half;
    /// Loads `BYTES` bytes.
    unsafe fn load(p: *const u8) -> Self;
    /// Stores `BYTES` bytes.
    unsafe fn store(self, p: *mut u8);
    /// Loads `n < BYTES` bytes; the rest of the vector is zero. Touches no byte past `n`.
    unsafe fn load_partial(p: *const u8, n: usize) -> Self;
    /// Stores the first `n < BYTES` bytes. Touches no byte past `n`.
    unsafe fn store_partial(self, p: *mut u8, n: usize);
    /// Loads one block into lane 0 (other lanes zero).
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
    /// `self ^ a ^ b` (one `vpternlog` on AVX-512).
    unsafe fn xor3(self, a: Self, b: Self) -> Self;
    /// One AES encryption round (`VAESENC`) per lane.
    unsafe fn aesenc(self, key: Self) -> Self;
    /// The last AES encryption round (`VAESENCLAST`).
    unsafe fn aesenclast(self, key: Self) -> Self;
    /// One AES decryption round (`VAESDEC`, equivalent inverse cipher).
    unsafe fn aesdec(self, key: Self) -> Self;
    /// The last AES decryption round (`VAESDECLAST`).
    unsafe fn aesdeclast(self, key: Self) -> Self;
    /// Each lane (an XTS tweak, little-endian 128-bit) times x^s in GF(2^128), for
    /// `1 <= s <= 56`: the bits shifted out of the low qword move into the high qword,
    /// those shifted out of the high qword are reduced with one carry-less multiply by the
    /// XTS polynomial (s + 7 bits, so the product stays in the low qword). Callers pass a
    /// constant, which the shifts fold into immediates; a multiple of 8 takes the shorter
    /// whole-byte form (a byte shift of the lane, and the bytes shifted out reduced: three
    /// operations instead of five).
    unsafe fn mul_x_pow(self, s: u32) -> Self;
    /// Lane i times x^i: from a broadcast tweak T, the tweaks T, T*x, T*x^2, ... of
    /// consecutive blocks.
    unsafe fn mul_x_lane_index(self) -> Self;
    /// Reverses the bytes of each lane.
    unsafe fn bswap_lanes(self) -> Self;
    /// Adds 64-bit integers lane-wise (wrapping).
    unsafe fn add_epi64(self, other: Self) -> Self;
    /// Ciphertext stealing. `p` points at the last full block, `r` (1..=15) bytes of a
    /// partial block follow it. `cc` holds (in lane 0) the last full block already
    /// processed with its tweak. Writes `cc[..r]` as the partial output block at `p + 16`
    /// (the generic version may also scribble over `p + r .. p + 16`, which the caller
    /// overwrites next) and returns, in lane 0, the partial input block padded with
    /// `cc[r..]`: the block to process with the other tweak and store at `p`.
    ///
    /// The masked implementations compute the returned block *before* the masked store:
    /// with the store first, rustc 1.95's LLVM forwarded the stored bytes into the earlier
    /// masked load of the same bytes (a miscompile seen in testing), so keep this order.
    unsafe fn steal(cc: Self, p: *mut u8, r: usize) -> Self;
}

/// One AES encryption of every lane of `x` with the schedule `keys` of `R` rounds, each
/// round key broadcast as it is used: the XTS tweak (the IV under the tweak key) and the
/// one-block CTR keystream.
///
/// # Safety
/// Target features per the module contract.
#[inline(always)]
pub(crate) unsafe fn encrypt<W: AesVec, const R: usize>(keys: &[[u8; 16]; 15], x: W) -> W {
    // SAFETY: target features per this function's contract.
    unsafe {
        let mut x = x.xor(W::broadcast(&keys[0]));
        for key in &keys[1..R] {
            x = x.aesenc(W::broadcast(key));
        }
        x.aesenclast(W::broadcast(&keys[R]))
    }
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
unsafe fn write_lt8(p: *mut u8, n: usize, mut v: u64) {
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
/// registers.
#[inline(always)]
unsafe fn load_lt16(p: *const u8, n: usize) -> __m128i {
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

/// Stores the first `n < 16` bytes of `v` at `p`, through general registers.
#[inline(always)]
unsafe fn store_lt16(p: *mut u8, n: usize, v: __m128i) {
    // SAFETY: `n` bytes at `p` are writable (caller); the pieces stay below `n`; SSE2 is
    // part of x86_64 (and SSE4.1's `pextrq` is implied by AVX2 in every caller).
    unsafe {
        let lo = _mm_cvtsi128_si64(v) as u64;
        let hi = _mm_extract_epi64::<1>(v) as u64;
        if n >= 8 {
            p.cast::<u64>().write_unaligned(lo);
            write_lt8(p.add(8), n - 8, hi);
        } else {
            write_lt8(p, n, lo);
        }
    }
}

/// `(v << 8m, v >> (128 - 8m))` per 128-bit lane for `m = $m` in 1..=7 (a constant after
/// inlining, so the match folds away): the byte shifts of [`AesVec::mul_x_pow`] for a
/// whole number of bytes, with the immediates the intrinsics need.
macro_rules! byte_shifts {
    ($m:expr, $v:expr, $shl:ident, $shr:ident) => {
        match $m {
            1 => ($shl::<1>($v), $shr::<15>($v)),
            2 => ($shl::<2>($v), $shr::<14>($v)),
            3 => ($shl::<3>($v), $shr::<13>($v)),
            4 => ($shl::<4>($v), $shr::<12>($v)),
            5 => ($shl::<5>($v), $shr::<11>($v)),
            6 => ($shl::<6>($v), $shr::<10>($v)),
            _ => ($shl::<7>($v), $shr::<9>($v)),
        }
    };
}

/// A ymm register of two blocks. `VL = false`: AVX2 only (`*-vaes-avx2`); `VL = true`:
/// AVX-512VL/BW mask registers are used for partial vectors (`*-vaes-avx10_256`).
#[derive(Clone, Copy)]
pub(crate) struct Ymm<const VL: bool>(__m256i);

/// A zmm register of four blocks (`*-vaes-avx10_512`).
#[derive(Clone, Copy)]
pub(crate) struct Zmm(__m512i);

impl<const VL: bool> AesVec for Ymm<VL> {
    type Half = Self;
    const LANES: usize = 2;
    const KEYS_IN_MEMORY: bool = true;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: AVX is enabled in every caller (module contract).
        Ymm(unsafe { _mm256_setzero_si256() })
    }

    #[inline(always)]
    unsafe fn low_half(self) -> Self {
        self
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 32 readable bytes at `p`; unaligned load.
        Ymm(unsafe { _mm256_loadu_si256(p.cast()) })
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: the caller guarantees 32 writable bytes at `p`; unaligned store.
        unsafe { _mm256_storeu_si256(p.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Self {
        if VL {
            let mask = (1u32 << n) - 1;
            // SAFETY: AVX-512BW/VL are enabled in the avx10 entries (the only users of
            // `Ymm<true>`); masked-off bytes are not accessed, the first `n` are valid.
            Ymm(unsafe { _mm256_maskz_loadu_epi8(mask, p.cast()) })
        } else {
            // SAFETY: `n < 32` bytes are readable at `p` (caller): a full 16-byte half
            // and a partial one, or a partial low half.
            unsafe {
                if n >= 16 {
                    let lo = _mm_loadu_si128(p.cast());
                    let hi = load_lt16(p.add(16), n - 16);
                    Ymm(_mm256_set_m128i(hi, lo))
                } else {
                    Ymm(_mm256_zextsi128_si256(load_lt16(p, n)))
                }
            }
        }
    }

    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        if VL {
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
    unsafe fn load_block(p: *const u8) -> Self {
        // SAFETY: 16 readable bytes at `p` (caller).
        Ymm(unsafe { _mm256_zextsi128_si256(_mm_loadu_si128(p.cast())) })
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
        Ymm(unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(block.as_ptr().cast())) })
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm(unsafe { _mm256_xor_si256(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn xor3(self, a: Self, b: Self) -> Self {
        if VL {
            // SAFETY: AVX-512F/VL are enabled for `Ymm<true>` (module contract).
            Ymm(unsafe { _mm256_ternarylogic_epi64::<0x96>(self.0, a.0, b.0) })
        } else {
            // SAFETY: AVX2 is enabled (module contract).
            Ymm(unsafe { _mm256_xor_si256(_mm256_xor_si256(self.0, a.0), b.0) })
        }
    }

    #[inline(always)]
    unsafe fn aesenc(self, key: Self) -> Self {
        // SAFETY: VAES is enabled (module contract).
        Ymm(unsafe { _mm256_aesenc_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn aesenclast(self, key: Self) -> Self {
        // SAFETY: VAES is enabled (module contract).
        Ymm(unsafe { _mm256_aesenclast_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn aesdec(self, key: Self) -> Self {
        // SAFETY: VAES is enabled (module contract).
        Ymm(unsafe { _mm256_aesdec_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn aesdeclast(self, key: Self) -> Self {
        // SAFETY: VAES is enabled (module contract).
        Ymm(unsafe { _mm256_aesdeclast_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn mul_x_pow(self, s: u32) -> Self {
        // SAFETY: AVX2 and VPCLMULQDQ are enabled (module contract); the polynomial
        // constant is 16 readable bytes.
        unsafe {
            let poly = _mm256_broadcastsi128_si256(_mm_loadu_si128(GF_POLY_XTS.as_ptr().cast()));
            if s.is_multiple_of(8) {
                // Whole bytes: the lane shifted left by s/8 bytes, the s/8 bytes shifted
                // out (moved to the bottom of the lane) reduced with one multiply.
                let (shifted, out) =
                    byte_shifts!(s / 8, self.0, _mm256_bslli_epi128, _mm256_bsrli_epi128);
                let reduced = _mm256_clmulepi64_epi128::<0x00>(out, poly);
                return Ymm(_mm256_xor_si256(shifted, reduced));
            }
            let carries = _mm256_srl_epi64(self.0, _mm_cvtsi32_si128(64 - s as i32));
            let reduced = _mm256_clmulepi64_epi128::<0x01>(carries, poly);
            let shifted = _mm256_sll_epi64(self.0, _mm_cvtsi32_si128(s as i32));
            Ymm(shifted).xor3(Ymm(_mm256_bslli_epi128::<8>(carries)), Ymm(reduced))
        }
    }

    #[inline(always)]
    unsafe fn mul_x_lane_index(self) -> Self {
        // SAFETY: AVX2 and VPCLMULQDQ are enabled (module contract); the tables are 64
        // readable bytes, of which 32 are loaded.
        unsafe {
            let poly = _mm256_broadcastsi128_si256(_mm_loadu_si128(GF_POLY_XTS.as_ptr().cast()));
            let shr = _mm256_loadu_si256(SEQ_SHR.as_ptr().cast());
            let shl = _mm256_loadu_si256(SEQ_SHL.as_ptr().cast());
            let carries = _mm256_srlv_epi64(self.0, shr);
            let reduced = _mm256_clmulepi64_epi128::<0x01>(carries, poly);
            let shifted = _mm256_sllv_epi64(self.0, shl);
            Ymm(shifted).xor3(Ymm(_mm256_bslli_epi128::<8>(carries)), Ymm(reduced))
        }
    }

    #[inline(always)]
    unsafe fn bswap_lanes(self) -> Self {
        // SAFETY: AVX2 is enabled; the table is 16 readable bytes.
        unsafe {
            let ctl = _mm256_broadcastsi128_si256(_mm_loadu_si128(BSWAP_128.as_ptr().cast()));
            Ymm(_mm256_shuffle_epi8(self.0, ctl))
        }
    }

    #[inline(always)]
    unsafe fn add_epi64(self, other: Self) -> Self {
        // SAFETY: AVX2 is enabled (module contract).
        Ymm(unsafe { _mm256_add_epi64(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn steal(cc: Self, p: *mut u8, r: usize) -> Self {
        if VL {
            let mask = (1u32 << r) - 1;
            // SAFETY: AVX-512BW/VL are enabled for `Ymm<true>`; only the `r` bytes at
            // `p + 16` (valid per the caller) are read and written.
            unsafe {
                let tail = _mm256_maskz_loadu_epi8(mask, p.add(16).cast());
                let pp = _mm256_mask_blend_epi8(mask, cc.0, tail);
                _mm256_mask_storeu_epi8(p.add(16).cast(), mask, cc.0);
                Ymm(pp)
            }
        } else {
            // SAFETY: `p .. p + 16 + r` is valid (caller), so the 16 bytes at `p + r` are;
            // the table windows start at 32 - r (17..=31) and r (1..=15), inside 48 bytes.
            // The store at `p + r` happens after the load of the same bytes.
            unsafe {
                let cc = _mm256_castsi256_si128(cc.0);
                let last16 = _mm_loadu_si128(p.add(r).cast());
                let to_front = _mm_loadu_si128(CTS_SHUFFLE.as_ptr().add(32 - r).cast());
                let to_back = _mm_loadu_si128(CTS_SHUFFLE.as_ptr().add(r).cast());
                // Partial input bytes to the front, padded with the end of `cc`.
                let pp = _mm_blendv_epi8(_mm_shuffle_epi8(last16, to_front), cc, to_front);
                // `cc[..r]` lands at p + 16 .. p + 16 + r; p + r .. p + 16 gets zeros that
                // the caller overwrites with the final full block.
                _mm_storeu_si128(p.add(r).cast(), _mm_shuffle_epi8(cc, to_back));
                Ymm(_mm256_zextsi128_si256(pp))
            }
        }
    }
}

impl AesVec for Zmm {
    type Half = Ymm<true>;
    const LANES: usize = 4;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_setzero_si512() })
    }

    #[inline(always)]
    unsafe fn low_half(self) -> Ymm<true> {
        // SAFETY: AVX-512F is enabled (module contract).
        Ymm(unsafe { _mm512_castsi512_si256(self.0) })
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
    unsafe fn aesenc(self, key: Self) -> Self {
        // SAFETY: VAES and AVX-512F are enabled (module contract).
        Zmm(unsafe { _mm512_aesenc_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn aesenclast(self, key: Self) -> Self {
        // SAFETY: VAES and AVX-512F are enabled (module contract).
        Zmm(unsafe { _mm512_aesenclast_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn aesdec(self, key: Self) -> Self {
        // SAFETY: VAES and AVX-512F are enabled (module contract).
        Zmm(unsafe { _mm512_aesdec_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn aesdeclast(self, key: Self) -> Self {
        // SAFETY: VAES and AVX-512F are enabled (module contract).
        Zmm(unsafe { _mm512_aesdeclast_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn mul_x_pow(self, s: u32) -> Self {
        // SAFETY: AVX-512F/BW and VPCLMULQDQ are enabled (module contract); the polynomial
        // constant is 16 readable bytes.
        unsafe {
            let poly = _mm512_broadcast_i32x4(_mm_loadu_si128(GF_POLY_XTS.as_ptr().cast()));
            if s.is_multiple_of(8) {
                // Whole bytes, as for `Ymm`.
                let (shifted, out) =
                    byte_shifts!(s / 8, self.0, _mm512_bslli_epi128, _mm512_bsrli_epi128);
                let reduced = _mm512_clmulepi64_epi128::<0x00>(out, poly);
                return Zmm(_mm512_xor_si512(shifted, reduced));
            }
            let carries = _mm512_srl_epi64(self.0, _mm_cvtsi32_si128(64 - s as i32));
            let reduced = _mm512_clmulepi64_epi128::<0x01>(carries, poly);
            let shifted = _mm512_sll_epi64(self.0, _mm_cvtsi32_si128(s as i32));
            Zmm(_mm512_ternarylogic_epi64::<0x96>(
                shifted,
                _mm512_bslli_epi128::<8>(carries),
                reduced,
            ))
        }
    }

    #[inline(always)]
    unsafe fn mul_x_lane_index(self) -> Self {
        // SAFETY: AVX-512F and VPCLMULQDQ are enabled (module contract); the tables are
        // 64 readable bytes.
        unsafe {
            let poly = _mm512_broadcast_i32x4(_mm_loadu_si128(GF_POLY_XTS.as_ptr().cast()));
            let shr = _mm512_loadu_si512(SEQ_SHR.as_ptr().cast());
            let shl = _mm512_loadu_si512(SEQ_SHL.as_ptr().cast());
            let carries = _mm512_srlv_epi64(self.0, shr);
            let reduced = _mm512_clmulepi64_epi128::<0x01>(carries, poly);
            let shifted = _mm512_sllv_epi64(self.0, shl);
            Zmm(_mm512_ternarylogic_epi64::<0x96>(
                shifted,
                _mm512_bslli_epi128::<8>(carries),
                reduced,
            ))
        }
    }

    #[inline(always)]
    unsafe fn bswap_lanes(self) -> Self {
        // SAFETY: AVX-512F/BW are enabled; the table is 16 readable bytes.
        unsafe {
            let ctl = _mm512_broadcast_i32x4(_mm_loadu_si128(BSWAP_128.as_ptr().cast()));
            Zmm(_mm512_shuffle_epi8(self.0, ctl))
        }
    }

    #[inline(always)]
    unsafe fn add_epi64(self, other: Self) -> Self {
        // SAFETY: AVX-512F is enabled (module contract).
        Zmm(unsafe { _mm512_add_epi64(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn steal(cc: Self, p: *mut u8, r: usize) -> Self {
        let mask = (1u64 << r) - 1;
        // SAFETY: AVX-512BW is enabled; only the `r` bytes at `p + 16` (valid per the
        // caller) are read and written.
        unsafe {
            let tail = _mm512_maskz_loadu_epi8(mask, p.add(16).cast());
            let pp = _mm512_mask_blend_epi8(mask, cc.0, tail);
            _mm512_mask_storeu_epi8(p.add(16).cast(), mask, cc.0);
            Zmm(pp)
        }
    }
}
