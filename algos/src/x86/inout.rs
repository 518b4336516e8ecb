//! [`RawInOut`]: one contiguous run of a request as a raw source and destination pointer,
//! the form the SIMD kernels take so that an out-of-place request is one pass over memory
//! (read `src`, write `dst`) instead of a copy followed by an in-place pass.
//!
//! In place is the same pointer twice. Out of place, the source and destination come
//! from a `&[u8]` and a `&mut [u8]` that are alive at the same time, which safe Rust only
//! allows for memory that does not overlap at all: the kernels rely on "identical or
//! disjoint, never partially overlapping" (they read every input byte of a block, and for
//! XTS ciphertext stealing of the last two blocks, before writing its output), and this
//! type is the only way the drivers build their pointers.

use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_storeu_si128};
use core::marker::PhantomData;

use zeroize::Zeroize;

use super::vector::{load_lt16, write_lt8};

/// A run of `len` bytes: read from `src`, written to `dst` (equal for in place, disjoint
/// otherwise). Borrows the caller's buffers for `'a`, so the pointers stay valid and
/// unaliased while it lives.
pub(crate) struct RawInOut<'a> {
    src: *const u8,
    dst: *mut u8,
    len: usize,
    _run: PhantomData<&'a mut [u8]>,
}

impl<'a> RawInOut<'a> {
    /// One buffer read and overwritten.
    #[inline(always)]
    pub(crate) fn in_place(buf: &'a mut [u8]) -> Self {
        let p = buf.as_mut_ptr();
        RawInOut {
            src: p.cast_const(),
            dst: p,
            len: buf.len(),
            _run: PhantomData,
        }
    }

    /// A source and a destination (disjoint, by the borrow rules). The trait contract
    /// says they have the same length; should they not, the run is the shorter of the two
    /// (nothing past either end is ever touched).
    #[inline(always)]
    pub(crate) fn split(src: &'a [u8], dst: &'a mut [u8]) -> Self {
        debug_assert_eq!(src.len(), dst.len(), "src/dst lengths differ");
        RawInOut {
            src: src.as_ptr(),
            dst: dst.as_mut_ptr(),
            len: src.len().min(dst.len()),
            _run: PhantomData,
        }
    }

    /// A run over raw pointers, for the `#[target_feature]` entries that take them.
    ///
    /// # Safety
    /// `src` is valid for reads and `dst` for writes of `len` bytes for `'a`, and the two
    /// are identical or do not overlap.
    #[inline(always)]
    pub(crate) unsafe fn from_raw(src: *const u8, dst: *mut u8, len: usize) -> Self {
        RawInOut {
            src,
            dst,
            len,
            _run: PhantomData,
        }
    }

    /// The run of a driver-interface [`InOut`](cryptoreg_registry::InOut).
    #[inline(always)]
    pub(crate) fn from_inout(io: cryptoreg_registry::InOut<'a>) -> Self {
        match io {
            cryptoreg_registry::InOut::InPlace(buf) => Self::in_place(buf),
            cryptoreg_registry::InOut::Split { src, dst } => Self::split(src, dst),
        }
    }

    /// Length in bytes.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The source pointer, valid for reads of [`len`](Self::len) bytes.
    #[inline(always)]
    pub(crate) fn src(&self) -> *const u8 {
        self.src
    }

    /// The destination pointer, valid for writes of [`len`](Self::len) bytes; equal to
    /// [`src`](Self::src) in place, disjoint from it otherwise.
    #[inline(always)]
    pub(crate) fn dst(&mut self) -> *mut u8 {
        self.dst
    }

    /// The first `n` bytes (clamped to the length).
    #[inline(always)]
    pub(crate) fn prefix(self, n: usize) -> Self {
        self.split_at(n).0
    }

    /// Two runs: the first `mid` bytes (clamped to the length) and the rest.
    #[inline(always)]
    pub(crate) fn split_at(self, mid: usize) -> (Self, Self) {
        let mid = mid.min(self.len);
        let tail = RawInOut {
            // `wrapping_add` keeps this free of `unsafe`; `mid <= len` stays in bounds.
            src: self.src.wrapping_add(mid),
            dst: self.dst.wrapping_add(mid),
            len: self.len - mid,
            _run: PhantomData,
        };
        let head = RawInOut { len: mid, ..self };
        (head, tail)
    }

    /// `N` consecutive input blocks from `off`, with one bounds check for all of them
    /// (the eight-block loops of the AES-NI kernels would otherwise pay eight).
    #[inline(always)]
    pub(crate) fn load_blocks<const N: usize>(&self, off: usize) -> [__m128i; N] {
        assert!(
            off <= self.len && self.len - off >= 16 * N,
            "blocks past the run"
        );
        // SAFETY: `off + 16 * N <= len` bytes at `src` are readable (construction);
        // unaligned loads; SSE2 is part of the x86_64 baseline.
        core::array::from_fn(|i| unsafe { _mm_loadu_si128(self.src.add(off + 16 * i).cast()) })
    }

    /// Writes `N` consecutive output blocks from `off`, with one bounds check.
    #[inline(always)]
    pub(crate) fn store_blocks<const N: usize>(&mut self, off: usize, blocks: &[__m128i; N]) {
        assert!(
            off <= self.len && self.len - off >= 16 * N,
            "blocks past the run"
        );
        for (i, v) in blocks.iter().enumerate() {
            // SAFETY: `off + 16 * N <= len` bytes at `dst` are writable (construction);
            // unaligned stores; SSE2 is part of the x86_64 baseline.
            unsafe { _mm_storeu_si128(self.dst.add(off + 16 * i).cast(), *v) }
        }
    }

    /// The 16 input bytes at `off`. Panics past the end.
    #[inline(always)]
    pub(crate) fn load(&self, off: usize) -> __m128i {
        assert!(
            off <= self.len && self.len - off >= 16,
            "block past the run"
        );
        // SAFETY: `off + 16 <= len` bytes at `src` are readable (construction); unaligned
        // load; SSE2 is part of the x86_64 baseline.
        unsafe { _mm_loadu_si128(self.src.add(off).cast()) }
    }

    /// Writes 16 output bytes at `off`. Panics past the end.
    #[inline(always)]
    pub(crate) fn store(&mut self, off: usize, v: __m128i) {
        assert!(
            off <= self.len && self.len - off >= 16,
            "block past the run"
        );
        // SAFETY: `off + 16 <= len` bytes at `dst` are writable (construction); unaligned
        // store; SSE2 is part of the x86_64 baseline.
        unsafe { _mm_storeu_si128(self.dst.add(off).cast(), v) }
    }

    /// Copies `out.len()` input bytes from `off` into `out`. Panics past the end.
    #[inline(always)]
    pub(crate) fn read(&self, off: usize, out: &mut [u8]) {
        assert!(
            off <= self.len && self.len - off >= out.len(),
            "read past the run"
        );
        // SAFETY: in bounds (checked); `out` is a live `&mut`, so it cannot overlap the
        // source, which this run borrows for its whole life.
        unsafe { core::ptr::copy_nonoverlapping(self.src.add(off), out.as_mut_ptr(), out.len()) }
    }

    /// Copies `bytes` to the output at `off`. Panics past the end.
    #[inline(always)]
    pub(crate) fn write(&mut self, off: usize, bytes: &[u8]) {
        assert!(
            off <= self.len && self.len - off >= bytes.len(),
            "write past the run"
        );
        // SAFETY: in bounds (checked); `bytes` is a live reference, so it cannot overlap
        // the destination, which this run borrows mutably for its whole life.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.dst.add(off), bytes.len()) }
    }

    /// The `n < 16` input bytes at `off` in the low bytes of a block, the rest zero, read
    /// in pieces of 8, 4, 2 and 1 bytes: no `memcpy` call (the entries that use this also
    /// run under the emulator, where libc is not mapped). Panics past the end.
    #[inline(always)]
    pub(crate) fn load_partial(&self, off: usize, n: usize) -> __m128i {
        assert!(
            n < 16 && off <= self.len && self.len - off >= n,
            "partial block past the run"
        );
        // SAFETY: `off + n <= len` bytes at `src` are readable (checked, construction).
        unsafe { load_lt16(self.src.add(off), n) }
    }

    /// Writes the first `n < 16` bytes of `v` at `off`, in pieces as
    /// [`load_partial`](Self::load_partial) (no `memcpy`). Panics past the end.
    #[inline(always)]
    pub(crate) fn store_partial(&mut self, off: usize, n: usize, v: __m128i) {
        assert!(
            n < 16 && off <= self.len && self.len - off >= n,
            "partial block past the run"
        );
        let mut b = [0u8; 16];
        // SAFETY: `b` is 16 writable bytes, unaligned store; SSE2 is baseline.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) };
        let lo = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        let hi = u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]);
        // The output block may be plaintext of a message not yet authenticated.
        b.zeroize();
        // SAFETY: `off + n <= len` bytes at `dst` are writable (checked, construction).
        unsafe {
            let p = self.dst.add(off);
            if n >= 8 {
                p.cast::<u64>().write_unaligned(lo);
                write_lt8(p.add(8), n - 8, hi);
            } else {
                write_lt8(p, n, lo);
            }
        }
    }
}
