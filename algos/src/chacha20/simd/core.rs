//! The ChaCha20 keystream (RFC 8439 §2.3) written once over [`Word32Vec`] and instantiated
//! per width by `entry`.
//!
//! Two layouts, as the kernel's and OpenSSL's SIMD ChaCha20:
//!
//! * **vertical** ([`vertical`]): one block per 32-bit lane, state word `i` of every block
//!   in vector `i` (16 vectors). A quarter round is then plain word-wise add / xor / rotate
//!   across `V::WORDS` blocks at once (4, 8 or 16), with no shuffles inside the rounds; at
//!   the end, per-lane unpacks (a 4x4 word transpose per 128-bit lane) and
//!   [`Word32Vec::lane_transpose`] turn the columns back into consecutive 64-byte blocks.
//! * **horizontal** ([`horizontal`]): one block per 128-bit lane, its four rows in four
//!   vectors (a, b, c, d); the diagonal round rotates rows a, c, d with `pshufd`. One to
//!   four blocks without a transpose: the kernel's short-request path.
//!
//! [`chacha20_xor`] is the glue: whole vertical batches while the request lasts, then the
//! length picks the narrowest kernel that covers the rest in one call (zmm: 13 to 16 blocks
//! vertical on zmm, 9 to 12 as three horizontal zmm rows side by side, 5 to 8 as two, then
//! 4, 2 or 1 horizontal on zmm, ymm, xmm; ymm: 8 vertical,
//! 4 vertical on xmm, 2 or 1 horizontal; xmm: 4 vertical, then 1 horizontal at a time),
//! as the kernel's `chacha_dosimd` does. The EVEX entries take requests of one or two
//! blocks on one ymm row with low-latency rounds instead ([`chacha20_xor_evex`]). The last
//! partial block goes through the vector layer's partial loads and stores (byte masks with
//! AVX-512, general-register pieces otherwise): nothing past `len` is read or written.
//!
//! Source and destination are equal (in place) or disjoint: every vector of input is
//! loaded right before the output at the same offset is stored, and no two stores overlap.
//!
//! The 32-bit counter (word 12) advances per block and wraps in the lanes of a batch that
//! are not used; that a request never passes block 2^32 is the drivers' check
//! (`check_counter_room`), made before any call into here.

use crate::x86::word32::Word32Vec;

/// 32-bit lane `i` holds `i`: added to a splatted counter, the counters of the blocks of a
/// vertical batch (the first `V::WORDS` words are loaded).
static VERTICAL_STEP: [u32; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// 128-bit lane `l` holds `(l, 0, 0, 0)`: added to the broadcast row `d`, the counters of
/// the blocks of a horizontal batch (the first `V::LANES` lanes are loaded).
static HORIZONTAL_STEP: [u32; 16] = [0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0];

/// Bytes of one ChaCha20 block.
const BLOCK: usize = 64;

/// Double rounds per ChaCha20 block (RFC 8439: 20 rounds): a kernel runs [`Interleave`]
/// work after each quarter round of the first [`Interleave::busy`] of them.
pub(crate) const DOUBLE_ROUNDS: usize = 10;

/// Other work hung between the quarter rounds of a vertical batch (see [`vertical`]).
/// A trait rather than a closure so that it is certain to be inlined into the caller's
/// `#[target_feature]` entry (a closure was not, and its intrinsics became calls).
pub(crate) trait Interleave {
    /// Runs after quarter round `q` (0 to 7, a constant after inlining) of each of the
    /// first [`busy`](Self::busy) double rounds of one kernel call (a horizontal kernel
    /// runs 0 to 3 after its column round, 4 to 7 after its diagonal one), before that
    /// call stores anything: whatever it reads from the call's `src` or `dst` range is
    /// still as the call found it.
    ///
    /// # Safety
    /// Called only from code compiled with the features the implementation uses (the
    /// entries), and by every kernel only in its first `busy()` double rounds (an
    /// implementation may count on that bound); the memory the implementation reads must
    /// be readable for the whole call (the implementation's own invariant: the fused core
    /// reads only ciphertext it queued, which stays valid and, while the call runs,
    /// unchanged).
    unsafe fn after_quarter(&mut self, q: usize);

    /// How many of a kernel call's double rounds, the first ones, run
    /// [`after_quarter`](Self::after_quarter) (read once, before the rounds, at most
    /// [`DOUBLE_ROUNDS`]); the others run bare. Two loops with no test inside, rather
    /// than one whose work asks each quarter round whether anything is left: the fused
    /// core's steady state knows how many groups it absorbs and keeps its values in
    /// registers. Work an implementation does per double round (the fused core's powers
    /// of `r`) happens in those double rounds only.
    #[inline(always)]
    fn busy(&self) -> usize {
        DOUBLE_ROUNDS
    }
}

/// Nothing between the quarter rounds: plain ChaCha20.
impl Interleave for () {
    #[inline(always)]
    unsafe fn after_quarter(&mut self, _q: usize) {}

    #[inline(always)]
    fn busy(&self) -> usize {
        0
    }
}

/// The ChaCha quarter round (RFC 8439 §2.1) on four vectors.
#[inline(always)]
unsafe fn quarter<V: Word32Vec>(a: &mut V, b: &mut V, c: &mut V, d: &mut V) {
    // SAFETY: target features per the module contract of `word32`.
    unsafe {
        *a = a.add32(*b);
        *d = d.xor(*a).rotl16();
        *c = c.add32(*d);
        *b = b.xor(*c).rotl12();
        *a = a.add32(*b);
        *d = d.xor(*a).rotl8();
        *c = c.add32(*d);
        *b = b.xor(*c).rotl7();
    }
}

/// The quarter round on words `a`, `b`, `c`, `d` of a vertical state (constant indices
/// after inlining, so the array stays in registers).
#[inline(always)]
unsafe fn quarter_at<V: Word32Vec>(x: &mut [V; 16], a: usize, b: usize, c: usize, d: usize) {
    let (mut va, mut vb, mut vc, mut vd) = (x[a], x[b], x[c], x[d]);
    // SAFETY: forwarded.
    unsafe { quarter(&mut va, &mut vb, &mut vc, &mut vd) };
    (x[a], x[b], x[c], x[d]) = (va, vb, vc, vd);
}

/// One double round of a vertical state, `between`'s work after each quarter round.
#[inline(always)]
unsafe fn vertical_double_round<V: Word32Vec>(x: &mut [V; 16], between: &mut impl Interleave) {
    // SAFETY: forwarded (the callers' contracts, `vertical`'s for `between`).
    unsafe {
        quarter_at(x, 0, 4, 8, 12);
        between.after_quarter(0);
        quarter_at(x, 1, 5, 9, 13);
        between.after_quarter(1);
        quarter_at(x, 2, 6, 10, 14);
        between.after_quarter(2);
        quarter_at(x, 3, 7, 11, 15);
        between.after_quarter(3);
        quarter_at(x, 0, 5, 10, 15);
        between.after_quarter(4);
        quarter_at(x, 1, 6, 11, 12);
        between.after_quarter(5);
        quarter_at(x, 2, 7, 8, 13);
        between.after_quarter(6);
        quarter_at(x, 3, 4, 9, 14);
        between.after_quarter(7);
    }
}

/// XORs keystream vector `ks` into the input at `off` and stores it at `off` of the
/// output, the part of it before `len` only (all of it when `!PARTIAL`).
#[inline(always)]
unsafe fn xor_out<V: Word32Vec, const PARTIAL: bool>(
    ks: V,
    src: *const u8,
    dst: *mut u8,
    off: usize,
    len: usize,
) {
    // SAFETY: the caller guarantees `len` valid bytes at `src` / `dst` (and, without
    // `PARTIAL`, `off + V::BYTES <= len`); the partial path stays below `len`.
    unsafe {
        if !PARTIAL || off + V::BYTES <= len {
            V::load(src.add(off)).xor(ks).store(dst.add(off));
        } else if off < len {
            let n = len - off;
            V::load_partial(src.add(off), n)
                .xor(ks)
                .store_partial(dst.add(off), n);
        }
    }
}

/// The keystream of `V::WORDS` blocks from block `counter` (the other words from `s`),
/// XORed from `src` into `dst`: all `64 * V::WORDS` bytes, or with `PARTIAL` the first
/// `len` of them. `between` runs after each quarter round of its first
/// [`busy`](Interleave::busy) double rounds, before anything is stored:
/// the fused ChaCha20-Poly1305 core hangs the stages of its Poly1305 groups there, so that
/// their multiply chains run beside the rounds' add / xor / rotate stream instead of after
/// it (everyone else passes `()`, which compiles away).
///
/// With `KEYED`, the batch's first block is not XORed into anything: its keystream is the
/// fused core's one-time Poly1305 key (block 0), and its first `V::BYTES` bytes are
/// returned; the other blocks go to `src` / `dst` from offset 0 (`len` counts only them).
/// Without it, the return value is meaningless.
#[inline(always)]
unsafe fn vertical<V: Word32Vec, const PARTIAL: bool, const KEYED: bool>(
    s: &[u32; 16],
    counter: u32,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    between: &mut impl Interleave,
) -> V {
    // SAFETY: target features per the module contract; `len` (or the whole batch) bytes
    // are valid at `src` / `dst` (caller), and `xor_out` keeps to them; `between` runs
    // under its own contract (the caller's), before the first store of this call.
    unsafe {
        let x = vertical_keystream::<V>(s, counter, between);
        let mut key = x[0];
        for j in 0..4 {
            let r = V::lane_transpose([x[j], x[4 + j], x[8 + j], x[12 + j]]);
            for (m, rm) in r.into_iter().enumerate() {
                let off = vertical_offset::<V>(j, m);
                if !KEYED {
                    xor_out::<V, PARTIAL>(rm, src, dst, off, len);
                } else if off >= BLOCK {
                    xor_out::<V, PARTIAL>(rm, src, dst, off - BLOCK, len);
                } else if off == 0 {
                    key = rm;
                }
            }
        }
        key
    }
}

/// [`vertical`] into any [`Out`] (the part of the batch's keystream it takes).
///
/// # Safety
/// As for [`vertical`], with `out` valid for the batch's keystream.
#[inline(always)]
unsafe fn vertical_out<V: Word32Vec>(s: &[u32; 16], counter: u32, out: &impl Out) {
    // SAFETY: target features per the module contract; `out` keeps to the memory its
    // caller vouched for.
    unsafe {
        let x = vertical_keystream::<V>(s, counter, &mut ());
        for j in 0..4 {
            let r = V::lane_transpose([x[j], x[4 + j], x[8 + j], x[12 + j]]);
            for (m, rm) in r.into_iter().enumerate() {
                out.put(rm, vertical_offset::<V>(j, m));
            }
        }
    }
}

/// Where vector `m` of `lane_transpose`'s output for `j` goes in a vertical batch's
/// keystream: `lane_transpose` yields blocks j, 4 + j, 8 + j, 12 + j (as many as there are
/// lanes) one after the other; vector m of that is at stream position m * BYTES: block 4
/// * (pos / 64) + j, offset pos % 64 in it.
#[inline(always)]
fn vertical_offset<V: Word32Vec>(j: usize, m: usize) -> usize {
    let pos = m * V::BYTES;
    BLOCK * (4 * (pos / BLOCK) + j) + pos % BLOCK
}

/// The rounds of a vertical batch (`between` as in [`vertical`]), the input added, and
/// per 128-bit lane a 4x4 transpose of words 4g..4g+4: afterwards `x[4g + j]` holds, in
/// lane l, words 4g..4g+4 of block 4l + j.
#[inline(always)]
unsafe fn vertical_keystream<V: Word32Vec>(
    s: &[u32; 16],
    counter: u32,
    between: &mut impl Interleave,
) -> [V; 16] {
    // SAFETY: target features per the module contract; `between` under its own contract.
    unsafe {
        let ctr = V::splat(counter).add32(V::load(VERTICAL_STEP.as_ptr().cast()));
        let mut x = [ctr; 16];
        for (xi, si) in x.iter_mut().zip(s) {
            *xi = V::splat(*si);
        }
        x[12] = ctr;
        let busy = between.busy().min(DOUBLE_ROUNDS);
        for _ in 0..busy {
            vertical_double_round(&mut x, between);
        }
        for _ in busy..DOUBLE_ROUNDS {
            vertical_double_round(&mut x, &mut ());
        }
        for (i, xi) in x.iter_mut().enumerate() {
            let input = if i == 12 { ctr } else { V::splat(s[i]) };
            *xi = xi.add32(input);
        }
        for g in 0..4 {
            let (a, b, c, d) = (x[4 * g], x[4 * g + 1], x[4 * g + 2], x[4 * g + 3]);
            let (t0, t1) = (a.unpacklo32(b), c.unpacklo32(d));
            let (t2, t3) = (a.unpackhi32(b), c.unpackhi32(d));
            x[4 * g] = t0.unpacklo64(t1);
            x[4 * g + 1] = t0.unpackhi64(t1);
            x[4 * g + 2] = t2.unpacklo64(t3);
            x[4 * g + 3] = t2.unpackhi64(t3);
        }
        x
    }
}

/// One double round of `ROWS` horizontal states, `between`'s quarters 0 to 3 after the
/// column round and 4 to 7 after the diagonal one.
#[inline(always)]
unsafe fn horizontal_double_round<V: Word32Vec, const ROWS: usize>(
    a: &mut [V; ROWS],
    b: &mut [V; ROWS],
    c: &mut [V; ROWS],
    d: &mut [V; ROWS],
    between: &mut impl Interleave,
) {
    // SAFETY: forwarded (the callers' contracts, `horizontal_rows`'s for `between`).
    unsafe {
        for r in 0..ROWS {
            quarter(&mut a[r], &mut b[r], &mut c[r], &mut d[r]);
        }
        for q in 0..4 {
            between.after_quarter(q);
        }
        // Diagonals into columns, row b staying in place: a right by one word, c left by
        // one, d left by two. Row b is the last one a quarter round writes and the first
        // one the next reads (`a += b`), so shuffling it would put a shuffle on the one
        // dependency chain every round; a, c and d are written earlier and are shuffled
        // while the chain finishes b (one instruction of latency fewer per round: 13 -> 12
        // with `vprold`, 14 -> 13 where rotates by 12 and 7 take two).
        for r in 0..ROWS {
            a[r] = a[r].shuffle32::<0x93>();
            c[r] = c[r].shuffle32::<0x39>();
            d[r] = d[r].shuffle32::<0x4e>();
            quarter(&mut a[r], &mut b[r], &mut c[r], &mut d[r]);
        }
        for q in 4..8 {
            between.after_quarter(q);
        }
        for r in 0..ROWS {
            a[r] = a[r].shuffle32::<0x39>();
            c[r] = c[r].shuffle32::<0x93>();
            d[r] = d[r].shuffle32::<0x4e>();
        }
    }
}

/// The keystream of `V::LANES` blocks from block `counter` in the horizontal layout,
/// XORed from `src` into `dst` over the first `len <= 64 * V::LANES` bytes. `between`
/// runs as in [`vertical`] (in the first [`busy`](Interleave::busy) double rounds), its
/// quarters 0 to 3 after the column round and 4 to 7 after the diagonal one: these rounds
/// are one dependency chain, whose latency the fused core's Poly1305 groups fill.
#[inline(always)]
unsafe fn horizontal<V: Word32Vec>(
    s: &[u32; 16],
    counter: u32,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    between: &mut impl Interleave,
) {
    // SAFETY: forwarded from this function's contract.
    unsafe { horizontal_rows::<V, 1>(s, counter, src, dst, len, between) }
}

/// [`horizontal`] over `ROWS` independent states side by side (`ROWS * V::LANES` blocks,
/// `len <= 64 * ROWS * V::LANES`): one state's rounds are a single dependency chain that
/// leaves the vector ports idle most cycles, so two or three chains cost little more than
/// one. On zmm, 5 to 8 blocks took two rows instead of an 8-lane vertical batch on ymm,
/// and 9 to 12 three rows instead of a masked 16-lane vertical batch (`cryptoctl speed
/// chacha20`, `chacha20-avx512f`, on the Intel VM: 320 bytes 1751 -> 1901 MB/s, 512 bytes
/// 2717 -> 3079); 5 and 6 blocks have since moved to three EVEX ymm rows and 9 and 10 to
/// five, which measured faster on Zen 4 (`chacha20_xor_between`).
/// On ymm, 3 and 4 blocks take two rows and 5 and 6 three, instead of a 4-lane vertical
/// batch on xmm or an 8-lane one on ymm (Zen 4, two alternating runs, MB/s at 130 / 192 /
/// 256 / 384 bytes: `chacha20-avx2` 789 / 1164-1165 / 1541 / 2061-2129 -> 1000-1031 /
/// 1440-1525 / 1922-2004 / 2363-2382, `chacha20-avx512vl` 1025 / 1479-1499 / 1957-1980 /
/// 2904-2950 -> 1284 / 1881-1887 / 2472-2490 / 3174-3193); four rows for 7 and 8 blocks
/// measured slower than the vertical batch (448 bytes 2446-2457 -> 2267-2285).
///
/// # Safety
/// As for [`horizontal`], with `len <= 64 * ROWS * V::LANES` (the keystream of the rows
/// covers no more).
#[inline(always)]
unsafe fn horizontal_rows<V: Word32Vec, const ROWS: usize>(
    s: &[u32; 16],
    counter: u32,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    between: &mut impl Interleave,
) {
    debug_assert!(len <= BLOCK * ROWS * V::LANES);
    // SAFETY: forwarded from this function's contract.
    unsafe { horizontal_rows_out::<V, ROWS>(s, counter, &XorOut { src, dst, len }, between) }
}

/// Where a kernel's keystream goes, one vector at a time at its offset in the keystream
/// (a constant once the kernel's loops are unrolled, so the choice below folds away).
trait Out {
    /// Puts keystream vector `ks`, bytes `off..off + V::BYTES` of the keystream.
    ///
    /// # Safety
    /// The memory behind the sink is valid for what `put` writes (each sink's contract);
    /// the CPU has `V`'s features.
    unsafe fn put<V: Word32Vec>(&self, ks: V, off: usize);
}

/// The keystream XORed from `src` into `dst`, the part before `len` only.
struct XorOut {
    src: *const u8,
    dst: *mut u8,
    len: usize,
}

impl Out for XorOut {
    #[inline(always)]
    unsafe fn put<V: Word32Vec>(&self, ks: V, off: usize) {
        // SAFETY: `len` bytes valid at `src` / `dst` (the kernel's caller); `xor_out`
        // keeps to them.
        unsafe { xor_out::<V, true>(ks, self.src, self.dst, off, self.len) }
    }
}

/// The keystream's first block stored whole at `key` (the one-time Poly1305 key of a
/// ChaCha20-Poly1305 request), the rest XORed from `src` into `dst` (`len` bytes: the
/// keystream's offset 64 is their offset 0).
struct KeyedOut {
    key: *mut u8,
    src: *const u8,
    dst: *mut u8,
    len: usize,
}

impl Out for KeyedOut {
    #[inline(always)]
    unsafe fn put<V: Word32Vec>(&self, ks: V, off: usize) {
        // SAFETY: `key` is writable for 64 bytes and `V::BYTES` divides 64, so a vector
        // that starts in the first block ends in it; `len` bytes valid at `src` / `dst`
        // (the kernel's caller), and `xor_out` keeps to them.
        unsafe {
            if off < BLOCK {
                ks.store(self.key.add(off));
            } else {
                xor_out::<V, true>(ks, self.src, self.dst, off - BLOCK, self.len);
            }
        }
    }
}

/// [`horizontal_rows`] into any [`Out`]: the keystream of `ROWS * V::LANES` blocks from
/// block `counter`.
///
/// # Safety
/// As for [`horizontal_rows`], with `out` valid for the keystream of the rows.
#[inline(always)]
unsafe fn horizontal_rows_out<V: Word32Vec, const ROWS: usize>(
    s: &[u32; 16],
    counter: u32,
    out: &impl Out,
    between: &mut impl Interleave,
) {
    // SAFETY: target features per the module contract; `out` keeps to the memory its
    // caller vouched for.
    unsafe {
        let a0 = V::splat_row(&[s[0], s[1], s[2], s[3]]);
        let b0 = V::splat_row(&[s[4], s[5], s[6], s[7]]);
        let c0 = V::splat_row(&[s[8], s[9], s[10], s[11]]);
        let step = V::load(HORIZONTAL_STEP.as_ptr().cast());
        // A loop rather than `core::array::from_fn`, whose closure LLVM left as a call (out
        // of the entry's target features) in `chacha20_avx512f` once that entry grew
        // (`cargo xtask asm`). The fused entries compiled differently with it and measured
        // level (`-avx512ifma` seal at 256 to 16384 bytes within -1.2% / +2.1%, eight
        // alternating runs).
        let mut d0 = [step; ROWS];
        for (r, d0r) in d0.iter_mut().enumerate() {
            let first = counter.wrapping_add((r * V::LANES) as u32);
            *d0r = V::splat_row(&[first, s[13], s[14], s[15]]).add32(step);
        }
        let (mut a, mut b, mut c, mut d) = ([a0; ROWS], [b0; ROWS], [c0; ROWS], d0);
        let busy = between.busy().min(DOUBLE_ROUNDS);
        for _ in 0..busy {
            horizontal_double_round(&mut a, &mut b, &mut c, &mut d, between);
        }
        for _ in busy..DOUBLE_ROUNDS {
            horizontal_double_round(&mut a, &mut b, &mut c, &mut d, &mut ());
        }
        for r in 0..ROWS {
            let rows = V::lane_transpose([
                a[r].add32(a0),
                b[r].add32(b0),
                c[r].add32(c0),
                d[r].add32(d0[r]),
            ]);
            for (m, rm) in rows.into_iter().enumerate() {
                out.put(rm, (4 * r + m) * V::BYTES);
            }
        }
    }
}

/// [`quarter`] with each `x ^= y; x <<<= k` as [`Word32Vec::xor_rotl16`] and its
/// siblings compute it: the rotate of the old `x` leaves the dependency chain, a shift and
/// a three-way XOR stay on it. On Zen 4 `vprold` takes two cycles and a shift or
/// `vpternlogd` one, so a quarter round's chain drops from 16 cycles to 12, for two more
/// instructions per rotate (four instead of two), which only a lone horizontal row has
/// idle ports for (where `vprold` takes one cycle, on Intel, both chains are 12). Types
/// without AVX-512 keep the XOR and the rotate.
#[inline(always)]
unsafe fn quarter_low_latency<V: Word32Vec>(a: &mut V, b: &mut V, c: &mut V, d: &mut V) {
    // SAFETY: target features per the module contract of `word32`.
    unsafe {
        *a = a.add32(*b);
        *d = d.xor_rotl16(*a);
        *c = c.add32(*d);
        *b = b.xor_rotl12(*c);
        *a = a.add32(*b);
        *d = d.xor_rotl8(*a);
        *c = c.add32(*d);
        *b = b.xor_rotl7(*c);
    }
}

/// One horizontal row (`V::LANES` blocks from block `counter`, all of them put into `out`)
/// on [`quarter_low_latency`], nothing interleaved: the short path's key block with at
/// most one text block, on EVEX ymm (`chacha20_keyed`), and requests of one or two blocks
/// of the EVEX ChaCha20 entries ([`chacha20_xor_evex`]). One state's rounds are a single
/// dependency chain there, the vector ports mostly idle. Zen 4, `cryptoctl speed
/// 'rfc7539(chacha20,poly1305)' --aad 13`, six alternating runs, median of the paired
/// ratios, `-avx512ifma` seal at 16 / 64 bytes: +9.0% / +8.6%. A kernel of its own, which
/// the fused ChaCha20-Poly1305 core does not use: with the same form in the shared
/// kernels' lone rows, the fused entries compiled differently and measured 1-5% slower from
/// 1420 bytes on; and a lone zmm row (3 or 4 blocks) measured 5% slower with it, its
/// 512-bit instructions taking two 256-bit pipes each on Zen 4.
///
/// # Safety
/// As for [`horizontal_rows_out`] with one row and nothing interleaved.
#[inline(always)]
unsafe fn horizontal_row_low_latency<V: Word32Vec>(s: &[u32; 16], counter: u32, out: &impl Out) {
    // SAFETY: target features per the module contract; `out` keeps to the memory its
    // caller vouched for.
    unsafe {
        let a0 = V::splat_row(&[s[0], s[1], s[2], s[3]]);
        let b0 = V::splat_row(&[s[4], s[5], s[6], s[7]]);
        let c0 = V::splat_row(&[s[8], s[9], s[10], s[11]]);
        let step = V::load(HORIZONTAL_STEP.as_ptr().cast());
        let d0 = V::splat_row(&[counter, s[13], s[14], s[15]]).add32(step);
        let (mut a, mut b, mut c, mut d) = (a0, b0, c0, d0);
        for _ in 0..DOUBLE_ROUNDS {
            // Rows a, c and d shuffled, b in place, as `horizontal_double_round` says why.
            quarter_low_latency(&mut a, &mut b, &mut c, &mut d);
            (a, c, d) = (
                a.shuffle32::<0x93>(),
                c.shuffle32::<0x39>(),
                d.shuffle32::<0x4e>(),
            );
            quarter_low_latency(&mut a, &mut b, &mut c, &mut d);
            (a, c, d) = (
                a.shuffle32::<0x39>(),
                c.shuffle32::<0x93>(),
                d.shuffle32::<0x4e>(),
            );
        }
        let rows = V::lane_transpose([a.add32(a0), b.add32(b0), c.add32(c0), d.add32(d0)]);
        for (m, rm) in rows.into_iter().enumerate() {
            out.put(rm, m * V::BYTES);
        }
    }
}

/// One whole vertical batch (`64 * V::WORDS` bytes) of the keystream of state `s` XORed
/// from `src` into `dst`, with `between` run after each quarter round of its first
/// [`busy`](Interleave::busy) double rounds (see [`vertical`]):
/// every read it makes happens before the batch's first store, so it may read `src` even
/// in place. The counter is not written back.
///
/// # Safety
/// As for [`chacha20_xor`] with `len = 64 * V::WORDS`, and [`Interleave::after_quarter`]'s
/// contract for `between`.
#[inline(always)]
pub(crate) unsafe fn batch_between<V: Word32Vec>(
    s: &[u32; 16],
    src: *const u8,
    dst: *mut u8,
    between: &mut impl Interleave,
) {
    // SAFETY: forwarded from this function's contract.
    unsafe { vertical::<V, false, false>(s, s[12], src, dst, BLOCK * V::WORDS, between) };
}

/// Keystream block 0 of state `s` (whose counter word is 0) and blocks 1 to
/// `V::WORDS - 1` in one vertical batch: the latter XORed from `src` into `dst` (their
/// `64 * (V::WORDS - 1)` bytes), the former returned, its first `V::BYTES` bytes (the
/// one-time Poly1305 key is the first 32). The fused ChaCha20-Poly1305 seal derives its
/// key this way instead of with a block of its own ahead of the text, whose rounds are one
/// long dependency chain. `between` runs as for [`batch_between`]. The counter is not
/// written back.
///
/// # Safety
/// As for [`chacha20_xor`] with `len = 64 * (V::WORDS - 1)` and `s[12] == 0`, and
/// [`Interleave::after_quarter`]'s contract for `between`.
#[inline(always)]
pub(crate) unsafe fn key_batch_between<V: Word32Vec>(
    s: &[u32; 16],
    src: *const u8,
    dst: *mut u8,
    between: &mut impl Interleave,
) -> V {
    // SAFETY: forwarded from this function's contract.
    unsafe { vertical::<V, false, true>(s, s[12], src, dst, BLOCK * (V::WORDS - 1), between) }
}

/// XORs the ChaCha20 keystream of state `s` (constants, key, block counter in word 12,
/// nonce) into `len` bytes from `src`, written to `dst`. The counter is not written back:
/// the caller advances it by `ceil(len / 64)`.
///
/// # Safety
/// `src` is valid for reads and `dst` for writes of `len` bytes, equal or disjoint; the
/// CPU has `V`'s features (this is only inlined into the matching `#[target_feature]`
/// entry); `s[12] + ceil(len / 64) <= 2^32` (not needed for memory safety, but past it the
/// keystream would repeat).
#[inline(always)]
pub(crate) unsafe fn chacha20_xor<V: Word32Vec>(
    s: &[u32; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    // SAFETY: forwarded from this function's contract.
    unsafe { chacha20_xor_between::<V>(s, src, dst, len, &mut ()) }
}

/// [`chacha20_xor`] for the EVEX entries (`chacha20-avx512vl`, `chacha20-avx512f`): a
/// request of one or two blocks on one ymm row with the low-latency rounds
/// ([`horizontal_row_low_latency`]; Zen 4, `cryptoctl speed chacha20`, six alternating
/// runs, median of the paired ratios: `chacha20-avx512f` at 64 / 128 bytes +10.3% / +9.8%,
/// `-avx512vl` +9.5% / +11.2%, 5 bytes +4-5%; QUIC's header protection is one such block
/// per packet). Only the plain entries call this: the fused ChaCha20-Poly1305 core keeps
/// [`chacha20_xor`].
///
/// # Safety
/// As for [`chacha20_xor`].
#[inline(always)]
pub(crate) unsafe fn chacha20_xor_evex<V: Word32Vec>(
    s: &[u32; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    type N<V> = <V as Word32Vec>::Narrow;
    // For the EVEX zmm and ymm types (on a VEX type it would be correct, only slower).
    const { assert!(V::LANES >= 2) };
    let out = &XorOut { src, dst, len };
    // SAFETY: the rows cover `ceil(len / 64)` blocks, `XorOut` keeps to the `len` bytes
    // at `src` / `dst`; features per this function's contract (the narrower type's are a
    // subset of `V`'s); the rest is `chacha20_xor`'s contract, this function's.
    unsafe {
        // One block too on a ymm row (the second block's keystream unused): the same
        // one dependency chain, and every path of the entry then ends in `vzeroupper`
        // (`cargo xtask asm`), which an xmm-only path would not.
        match (V::LANES, len.div_ceil(BLOCK)) {
            (4, 1..=2) => horizontal_row_low_latency::<N<V>>(s, s[12], out),
            (2, 1..=2) => horizontal_row_low_latency::<V>(s, s[12], out),
            _ => chacha20_xor::<V>(s, src, dst, len),
        }
    }
}

/// [`chacha20_xor`] with `between` hung between the quarter rounds of the kernel that
/// takes the request's last partial batch, vertical or horizontal (the whole batches
/// before it run without it and have stored by then). The fused ChaCha20-Poly1305 core
/// calls it for a text's tail, shorter than a batch, with the Poly1305 groups still
/// queued.
///
/// # Safety
/// As for [`chacha20_xor`], and [`Interleave::after_quarter`]'s contract for `between`.
#[inline(always)]
pub(crate) unsafe fn chacha20_xor_between<V: Word32Vec>(
    s: &[u32; 16],
    mut src: *const u8,
    mut dst: *mut u8,
    len: usize,
    between: &mut impl Interleave,
) {
    type N<V> = <V as Word32Vec>::Narrow;
    type NN<V> = <N<V> as Word32Vec>::Narrow;
    let mut counter = s[12];
    let mut left = len;
    let batch = BLOCK * V::WORDS;
    // SAFETY: the pointers advance together through the first `len` bytes and every call
    // gets at most the `left` bytes that remain; target features per this function's
    // contract (the narrower types' features are a subset of `V`'s).
    unsafe {
        while left >= batch {
            vertical::<V, false, false>(s, counter, src, dst, batch, &mut ());
            counter = counter.wrapping_add(V::WORDS as u32);
            src = src.add(batch);
            dst = dst.add(batch);
            left -= batch;
        }
        if left == 0 {
            return;
        }
        // Zmm: 5 to 12 blocks as horizontal rows side by side. 5 and 6 blocks as three
        // EVEX ymm rows and 9 and 10 as five: two or three zmm rows measured 13-19% slower
        // there on Zen 4, whose 512-bit instructions take two 256-bit pipes each
        // (`chacha20-avx512f` at 288 / 320 / 384 bytes 2045-2055 / 2276-2289 / 2725-2733 ->
        // 2434-2435 / 2695-2698 / 3206-3210 MB/s, 576 / 640 bytes 3244-3249 / 3553-3590 ->
        // 3732-3759 / 4155-4159; `rfc7539-chacha20-poly1305-avx512ifma` seal with 13 bytes
        // of AAD at 256 / 320 bytes 971-973 / 1121-1123 -> 1068-1071 / 1227-1229, at 512 /
        // 576 bytes, key block and 8 or 9 text blocks on the short path, 1334-1339 /
        // 1380-1404 -> 1395-1438 / 1460-1524, at 1536 bytes, a 9-block tail, 2140-2154 ->
        // 2280-2358; opening 1536 bytes 2284-2313 -> 2245-2284). 7 and 8 blocks stay on
        // two zmm rows: there the 8-lane ymm batch also beat them on Zen 4
        // (`chacha20-avx512vl` 448 / 512 bytes about 3450 / 3930 against 3155 / 3600), but
        // on the Intel VM the zmm rows had beaten it by 13% at 8 blocks. 11 and 12 stay on
        // three zmm rows (six ymm rows would take as many pipe slots). The ymm row forms
        // were not measured on an Intel host, where both forms are latency-bound.
        let blocks = left.div_ceil(BLOCK);
        if V::LANES == 4 {
            match blocks {
                5..=6 => return horizontal_rows::<N<V>, 3>(s, counter, src, dst, left, between),
                7..=8 => return horizontal_rows::<V, 2>(s, counter, src, dst, left, between),
                9..=10 => return horizontal_rows::<N<V>, 5>(s, counter, src, dst, left, between),
                11..=12 => return horizontal_rows::<V, 3>(s, counter, src, dst, left, between),
                _ => {}
            }
        }
        // Ymm: 3 to 6 blocks as two or three rows, instead of a 4-lane vertical batch on
        // xmm or an 8-lane one on ymm (7 and 8 blocks stay vertical: four rows measured
        // slower there).
        if V::LANES == 2 && blocks > 2 && blocks <= 4 {
            horizontal_rows::<V, 2>(s, counter, src, dst, left, between);
            return;
        }
        if V::LANES == 2 && blocks > 4 && blocks <= 6 {
            horizontal_rows::<V, 3>(s, counter, src, dst, left, between);
            return;
        }
        if left > batch / 2 {
            vertical::<V, true, false>(s, counter, src, dst, left, between);
            return;
        }
        if N::<V>::WORDS < V::WORDS && left > BLOCK * N::<V>::WORDS / 2 {
            vertical::<N<V>, true, false>(s, counter, src, dst, left, between);
            return;
        }
        // At most a few blocks: horizontal, the narrowest type whose lanes cover them.
        while left > 0 {
            let blocks = left.div_ceil(BLOCK);
            let lanes = if blocks > N::<V>::LANES {
                V::LANES
            } else if blocks > NN::<V>::LANES {
                N::<V>::LANES
            } else {
                NN::<V>::LANES
            };
            let n = left.min(BLOCK * lanes);
            if lanes == V::LANES {
                horizontal::<V>(s, counter, src, dst, n, between);
            } else if lanes == N::<V>::LANES {
                horizontal::<N<V>>(s, counter, src, dst, n, between);
            } else {
                horizontal::<NN<V>>(s, counter, src, dst, n, between);
            }
            counter = counter.wrapping_add(lanes as u32);
            src = src.add(n);
            dst = dst.add(n);
            left -= n;
        }
    }
}

/// The longest text [`chacha20_keyed`] takes on `V`: on zmm eleven blocks (with the key
/// block, three horizontal zmm rows), on ymm seven (with it, one vertical ymm batch).
pub(crate) const fn keyed_max_text<V: Word32Vec>() -> usize {
    if V::LANES == 4 {
        BLOCK * 11
    } else {
        BLOCK * 7
    }
}

/// A short ChaCha20-Poly1305 request's keystream in one kernel call: block `s[12]` (the
/// one-time Poly1305 key's block 0) stored at `key`, and the blocks after it XORed into
/// `len` bytes from `src`, written to `dst`, the same kernel [`chacha20_xor`] would pick for
/// the key block and the text together, except on zmm for the key block with at most one
/// text block: one EVEX ymm row with the low-latency rounds
/// ([`horizontal_row_low_latency`]). The short path used to run that over a stack
/// buffer holding a zeroed key block and a copy of the text, then copy the text out: on
/// Zen 4 the `memset` and the two `memcpy` calls were 7% of a 512-byte seal. The counter
/// is not written back.
///
/// # Safety
/// `key` is writable for 64 bytes; `src` readable and `dst` writable for `len <=
/// keyed_max_text::<V>()` bytes, equal or disjoint, neither overlapping `key`; the CPU
/// has `V`'s features; `s[12] + 1 + ceil(len / 64) <= 2^32`.
#[inline(always)]
pub(crate) unsafe fn chacha20_keyed<V: Word32Vec>(
    s: &[u32; 16],
    key: *mut u8,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    type N<V> = <V as Word32Vec>::Narrow;
    const { assert!(V::LANES == 4 || V::LANES == 2) };
    debug_assert!(len <= keyed_max_text::<V>());
    let out = &KeyedOut { key, src, dst, len };
    let (c, none) = (s[12], &mut ());
    // SAFETY: every kernel below covers `1 + ceil(len / 64)` blocks, the key block's 64
    // bytes going to `key` and the rest to the `len` bytes at `src` / `dst` (`KeyedOut`);
    // features per this function's contract (the narrower types' are a subset of `V`'s).
    // The last arm of each width also takes lengths past `keyed_max_text`, which the
    // contract rules out (the drivers' short texts are checked against it at compile time).
    unsafe {
        // The same choices as `chacha20_xor_between` for `1 + ceil(len / 64)` blocks, but
        // for one or two on zmm.
        match (V::LANES, 1 + len.div_ceil(BLOCK)) {
            // The key block alone (no text) too on a ymm row, not an xmm one: the
            // same one dependency chain, and the entry's every path then uses ymm or
            // zmm and ends in `vzeroupper` (`cargo xtask asm`). On the low-latency
            // rounds: the zmm entry's ymm rows are EVEX.
            (4, 1..=2) => horizontal_row_low_latency::<N<V>>(s, c, out),
            (4, 3..=4) => horizontal_rows_out::<V, 1>(s, c, out, none),
            (4, 5..=6) => horizontal_rows_out::<N<V>, 3>(s, c, out, none),
            (4, 7..=8) => horizontal_rows_out::<V, 2>(s, c, out, none),
            (4, 9..=10) => horizontal_rows_out::<N<V>, 5>(s, c, out, none),
            (4, _) => horizontal_rows_out::<V, 3>(s, c, out, none),
            (_, 1) => horizontal_rows_out::<N<V>, 1>(s, c, out, none),
            (_, 2) => horizontal_rows_out::<V, 1>(s, c, out, none),
            (_, 3..=4) => horizontal_rows_out::<V, 2>(s, c, out, none),
            (_, 5..=6) => horizontal_rows_out::<V, 3>(s, c, out, none),
            _ => vertical_out::<V>(s, c, out),
        }
    }
}
