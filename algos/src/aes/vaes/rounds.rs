//! The AES layer on top of the shared x86 vector layer ([`crate::x86::vector`]): the VAES
//! round instructions ([`AesVec`]), the XTS tweak arithmetic (multiplication by powers of
//! x in GF(2^128), ciphertext stealing) and the CTR counter lanes. The XTS and CTR cores
//! are written once over [`AesVec`]; everything not AES-specific is [`SimdVec`]'s.
//!
//! Same safety contract as the vector layer: every function is `#[inline(always)]` and
//! `unsafe`, only inlined into `#[target_feature]` entries with the type's features (plus
//! VAES and VPCLMULQDQ), pointers valid for the bytes documented.

use core::arch::x86_64::*;

use crate::x86::vector::{SimdVec, Ymm, YmmEncoding, Zmm};

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

/// Lane i holds the 128-bit little-endian integer i (for up to four lanes): added to a
/// broadcast counter it gives consecutive counters.
static LANE_INDEX: [u64; 8] = [0, 0, 1, 0, 2, 0, 3, 0];

/// Per-qword shift counts for [`AesVec::mul_x_lane_index`]: lane i shifts left by i ...
static SEQ_SHL: [u64; 8] = [0, 0, 1, 1, 2, 2, 3, 3];
/// ... and its carries are the top i bits (a count of 64 shifts everything out).
static SEQ_SHR: [u64; 8] = [64, 64, 63, 63, 62, 62, 61, 61];

/// The XTS reduction polynomial x^128 = x^7 + x^2 + x + 1, as the low qword of a lane.
static GF_POLY_XTS: [u8; 16] = [0x87, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

/// `(v << 8m, v >> (128 - 8m))` per 128-bit lane for `m = $m` in 1..=7 (a constant after
/// inlining, so the match folds away): the byte shifts of [`AesVec::mul_x_pow`] for a
/// whole number of bytes, with the immediates the instructions need.
macro_rules! byte_shifts {
    ($m:expr, $v:expr) => {
        match $m {
            1 => ($v.bslli::<1>(), $v.bsrli::<15>()),
            2 => ($v.bslli::<2>(), $v.bsrli::<14>()),
            3 => ($v.bslli::<3>(), $v.bsrli::<13>()),
            4 => ($v.bslli::<4>(), $v.bsrli::<12>()),
            5 => ($v.bslli::<5>(), $v.bsrli::<11>()),
            6 => ($v.bslli::<6>(), $v.bsrli::<10>()),
            _ => ($v.bslli::<7>(), $v.bsrli::<9>()),
        }
    };
}

/// A vector of AES blocks: the VAES rounds and the XTS tweak arithmetic. Every
/// implementor's narrower type ([`SimdVec::Half`]) is one too, so the cores can finish
/// short requests on it; they say so with a `V::Half: AesVec` bound (a supertrait bound
/// on the associated type would be a cycle for `Ymm`, whose half is itself).
pub(crate) trait AesVec: SimdVec {
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
    #[inline(always)]
    unsafe fn mul_x_pow(self, s: u32) -> Self {
        // SAFETY: target features per the module contract; the polynomial is 16 bytes.
        unsafe {
            let poly = Self::broadcast(&GF_POLY_XTS);
            if s.is_multiple_of(8) {
                // Whole bytes: the lane shifted left by s/8 bytes, the s/8 bytes shifted
                // out (moved to the bottom of the lane) reduced with one multiply.
                let (shifted, out) = byte_shifts!(s / 8, self);
                return shifted.xor(out.clmul::<0x00>(poly));
            }
            let carries = self.shr_epi64(64 - s);
            let reduced = carries.clmul::<0x01>(poly);
            self.shl_epi64(s).xor3(carries.bslli::<8>(), reduced)
        }
    }

    /// Lane i times x^i: from a broadcast tweak T, the tweaks T, T*x, T*x^2, ... of
    /// consecutive blocks.
    #[inline(always)]
    unsafe fn mul_x_lane_index(self) -> Self {
        // SAFETY: target features per the module contract; the tables are 64 readable
        // bytes, of which `BYTES` (32 or 64) are loaded.
        unsafe {
            let poly = Self::broadcast(&GF_POLY_XTS);
            let carries = self.shrv_epi64(Self::load(SEQ_SHR.as_ptr().cast()));
            let reduced = carries.clmul::<0x01>(poly);
            let shifted = self.shlv_epi64(Self::load(SEQ_SHL.as_ptr().cast()));
            shifted.xor3(carries.bslli::<8>(), reduced)
        }
    }

    /// Ciphertext stealing. `src` and `dst` point at the last full block of the input and
    /// of the output, `r` (1..=15) bytes of a partial block follow each. `cc` holds (in
    /// lane 0) the last full input block already processed with its tweak. Writes
    /// `cc[..r]` as the partial output block at `dst + 16` (an implementation may also
    /// scribble over `dst + r .. dst + 16`, which the caller overwrites next) and returns,
    /// in lane 0, the partial input block padded with `cc[r..]`: the block to process with
    /// the other tweak and store at `dst`.
    ///
    /// `src` and `dst` are the same pointer (in place) or do not overlap: every input
    /// byte is read before the first output byte is written.
    unsafe fn steal(cc: Self, src: *const u8, dst: *mut u8, r: usize) -> Self;
}

/// [`AesVec::steal`] with masked accesses. The returned block is computed *before* the
/// masked store: with the store first, rustc 1.95's LLVM forwarded the stored bytes into
/// the earlier masked load of the same bytes (a miscompile seen in testing, in place), so
/// keep this order.
#[inline(always)]
unsafe fn steal_masked<V: SimdVec>(cc: V, src: *const u8, dst: *mut u8, r: usize) -> V {
    // SAFETY: `16 + r` bytes at `src` and `dst` are valid (caller); only the `r` bytes
    // after the full block are accessed; target features per the module contract.
    unsafe {
        let pp = cc.merge_partial(src.add(16), r);
        cc.store_partial(dst.add(16), r);
        pp
    }
}

impl<E: YmmEncoding> AesVec for Ymm<E> {
    const KEYS_IN_MEMORY: bool = true;

    #[inline(always)]
    unsafe fn aesenc(self, key: Self) -> Self {
        // SAFETY: VAES is enabled (module contract).
        Ymm::new(unsafe { _mm256_aesenc_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn aesenclast(self, key: Self) -> Self {
        // SAFETY: VAES is enabled (module contract).
        Ymm::new(unsafe { _mm256_aesenclast_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn aesdec(self, key: Self) -> Self {
        // SAFETY: VAES is enabled (module contract).
        Ymm::new(unsafe { _mm256_aesdec_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn aesdeclast(self, key: Self) -> Self {
        // SAFETY: VAES is enabled (module contract).
        Ymm::new(unsafe { _mm256_aesdeclast_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn steal(cc: Self, src: *const u8, dst: *mut u8, r: usize) -> Self {
        if E::EVEX {
            // SAFETY: forwarded from this function's contract.
            return unsafe { steal_masked(cc, src, dst, r) };
        }
        // Without masks: one overlapping 16-byte load ending at the partial block, a
        // `vpshufb` + `vpblendvb` to assemble the padded block, one overlapping store.
        // SAFETY: `16 + r` bytes at `src` and `dst` are valid (caller), so the 16 bytes at
        // `src + r` and `dst + r` are; the table windows start at 32 - r (17..=31) and r
        // (1..=15), inside 48 bytes. The load from `src` happens before the store to
        // `dst` (the same bytes in place).
        unsafe {
            let cc = _mm256_castsi256_si128(cc.0);
            let last16 = _mm_loadu_si128(src.add(r).cast());
            let to_front = _mm_loadu_si128(CTS_SHUFFLE.as_ptr().add(32 - r).cast());
            let to_back = _mm_loadu_si128(CTS_SHUFFLE.as_ptr().add(r).cast());
            // Partial input bytes to the front, padded with the end of `cc`.
            let pp = _mm_blendv_epi8(_mm_shuffle_epi8(last16, to_front), cc, to_front);
            // `cc[..r]` lands at dst + 16 .. dst + 16 + r; dst + r .. dst + 16 gets zeros
            // that the caller overwrites with the final full block.
            _mm_storeu_si128(dst.add(r).cast(), _mm_shuffle_epi8(cc, to_back));
            Ymm::new(_mm256_zextsi128_si256(pp))
        }
    }
}

impl AesVec for Zmm {
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
    unsafe fn steal(cc: Self, src: *const u8, dst: *mut u8, r: usize) -> Self {
        // SAFETY: forwarded from this function's contract.
        unsafe { steal_masked(cc, src, dst, r) }
    }
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

/// The round keys of `keys` broadcast to every lane, once per request for the batched
/// loops (only the first `R + 1` are set).
///
/// # Safety
/// Target features per the module contract.
#[inline(always)]
pub(crate) unsafe fn broadcast_keys<V: AesVec, const R: usize>(keys: &[[u8; 16]; 15]) -> [V; 15] {
    // SAFETY: target features per this function's contract.
    unsafe {
        let mut k = [V::zero(); 15];
        for (dst, src) in k.iter_mut().zip(keys.iter()).take(R + 1) {
            *dst = V::broadcast(src);
        }
        k
    }
}

/// CTR lanes: lane i holds the little-endian 128-bit counter `c + i`, computed in the low
/// qword only (the CTR core splits requests where the low qword would wrap).
///
/// # Safety
/// Target features per the module contract.
#[inline(always)]
pub(crate) unsafe fn lane_counters<V: SimdVec>(c: u128) -> V {
    // SAFETY: the lane-index table holds 64 bytes, `V::BYTES <= 64` are loaded.
    unsafe { V::broadcast(&c.to_le_bytes()).add_epi64(V::load(LANE_INDEX.as_ptr().cast())) }
}

/// The per-lane counter increment that advances lane counters by `blocks` blocks.
///
/// # Safety
/// Target features per the module contract.
#[inline(always)]
pub(crate) unsafe fn counter_step<V: SimdVec>(blocks: usize) -> V {
    // SAFETY: target features per this function's contract.
    unsafe { V::broadcast(&(blocks as u128).to_le_bytes()) }
}
