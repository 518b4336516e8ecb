//! The fused ChaCha20-Poly1305 core, written once over a ChaCha20 word vector
//! ([`Word32Vec`]) and a Poly1305 lane backend ([`PolyLanes`]: radix 2^26 on ymm or zmm,
//! or radix 2^44 on IFMA): the text goes through in chunks of one full ChaCha20 batch (8
//! blocks = 512 bytes on ymm, 16 = 1024 bytes on zmm), with the Poly1305 lane
//! accumulators kept in registers from chunk to chunk.
//!
//! The two halves are stitched, as the kernel's and OpenSSL's AES-GCM stitch AES with
//! GHASH: the Poly1305 groups (one block per 64-bit lane) of a chunk are absorbed while a
//! ChaCha20 batch runs, one group per double round, each group cut into the backend's
//! stages ([`PolyLanes::absorb_stage`]), the stages hung evenly after the double round's
//! eight quarter rounds ([`Interleave`]). ChaCha20 is a long stream of add / xor / rotate on two vector ports
//! with plenty of independent work; Poly1305 is a chain of multiply-adds whose latency
//! the rounds now hide. Encryption absorbs a batch's ciphertext during the next batch (the
//! last batch's during the tail's keystream, when a vertical kernel makes it, else after
//! it); decryption absorbs a batch's ciphertext during that same batch, whose stores all
//! come after its rounds, and its tail's during the tail. A full batch with a pass
//! running absorbs its groups through [`Steady`], which tests nothing per quarter round
//! and keeps its values in registers. The powers of `r` are
//! stitched too: an encryption that was not handed them computes them one multiply per
//! double round of its first batch (the one-shot calls hand them over only for a long
//! AAD), off the request's critical path.
//! Measured with `cryptoctl speed` on the AVX-512 IFMA host, seal with `-avx512ifma`:
//! 8 KiB 3523 MB/s one chunk after the other, about 3900 MB/s stitched, about 4100 MB/s
//! with the powers stitched (1420 bytes: about 1950, then 2200 MB/s).
//!
//! A one-shot seal of at least one batch of text goes further ([`seal_keyed`]): the
//! one-time key's block 0 is the first lane of its first batch instead of a horizontal
//! block computed first, whose 20 rounds are one dependency chain (about 11% of a
//! 1420-byte seal, measured by removal); the powers then come by squaring and during the
//! next batch, and the first batch's ciphertext is absorbed from a `carry` offset (15
//! text blocks are not a whole number of 8-block groups). With the tail's horizontal
//! kernel stitched too: 1420 bytes about 2130 -> 2470 MB/s, 8 KiB 3920 -> 4100.
//!
//! A one-shot open of a first batch and a tail ([`open_keyed`]) takes its key the same
//! way; its Poly1305 reads the whole text's ciphertext during the tail's keystream instead
//! (in place, the plaintext waits in a stack buffer until then). And decryption's tail,
//! after whole batches, runs its keystream first, beside the tail's own groups (in place
//! into a stack buffer too). Measured on Zen 4 (`cryptoctl speed`, 13 bytes of AAD, open,
//! two alternating runs, MB/s): `-avx512ifma` at 1024 / 1025 / 1420 / 1983 bytes 1613-1632
//! / 1417-1447 / 1804-1807 / 2158-2169 -> 1855-1890 / 1674-1871 / 1878-2289 / 2590-2650;
//! `-avx2` at 700 bytes 1165-1175 -> 1425-1457.

use crate::chacha20::simd::core::{
    batch_between, chacha20_xor, chacha20_xor_between, key_batch_between, Interleave, DOUBLE_ROUNDS,
};
use crate::poly1305::simd::lanes::PolyLanes;
use crate::poly1305::simd::scalar::{mul26, Acc, Fe26, R64};
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
                let mut lanes = P::start(acc, r, pow, p);
                lanes.absorb(r, p.add(16 * P::BLOCKS), groups - 1);
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

/// Bytes per Poly1305 block, and per lane of a group.
const GROUP_BYTES: usize = 16;

/// The longest vertical ChaCha20 batch (16 zmm blocks): a decryption's in-place tail,
/// shorter than a batch, is decrypted into a stack buffer of this size ([`batches`]).
const MAX_CHUNK: usize = 1024;

/// A stack buffer that in-place decryption writes plaintext into until the ciphertext has
/// been read ([`batches`], [`open_keyed`]), aligned so that [`move_out`] can wipe it with
/// aligned volatile vector stores.
#[repr(C, align(64))]
struct PlainBuf<const N: usize>([u8; N]);

/// Copies `len` bytes of plaintext from the [`PlainBuf`] at `from` to `to`, a vector at a
/// time (an entry makes no `memcpy` call), then wipes the vectors of the buffer it read
/// with volatile stores, which are never elided although the buffer dies right after.
///
/// # Safety
/// `from` is 64-byte aligned, its first `len` bytes written, and it is writable for `len`
/// rounded up to a multiple of `V::BYTES`; `to` writable for `len` bytes, not overlapping
/// it; the CPU has `V`'s features.
#[inline(always)]
unsafe fn move_out<V: Word32Vec>(from: *mut u8, to: *mut u8, len: usize) {
    const { assert!(core::mem::align_of::<V>() <= 64 && 64 % V::BYTES == 0) };
    // SAFETY: every access stays within the first `len` bytes (reads, and writes at `to`)
    // or the first `len` rounded up to a vector (the wipe, at offsets that are multiples
    // of `V::BYTES` from a 64-byte aligned base, so aligned for `V`); features per the
    // caller.
    unsafe {
        let mut off = 0;
        while off + V::BYTES <= len {
            V::load(from.add(off)).store(to.add(off));
            off += V::BYTES;
        }
        if off < len {
            V::load_partial(from.add(off), len - off).store_partial(to.add(off), len - off);
        }
        let mut off = 0;
        while off < len {
            core::ptr::write_volatile(from.add(off).cast::<V>(), V::splat(0));
            off += V::BYTES;
        }
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }
}

/// The powers `r^1..r^8` of a request: the caller's, or computed here when the caller
/// passed none. Computed here, they cost seven scalar multiplies; the first vertical
/// ChaCha20 batch of an encryption runs one after each of its double rounds (scalar
/// multiplies beside the vector rounds, on other ports), and whatever is left when they
/// are needed is finished then. A pass starts with one power only (`r^BLOCKS`, see
/// [`PolyLanes::start`]); the fold needs all eight. The owner wipes `own`
/// ([`Powers::wipe`]): no `Drop`, so that no unwinding path enters the entries.
struct Powers<'a> {
    given: Option<&'a [Fe26; 8]>,
    /// `own[k]` is `r^(k+1)` when bit `k` of `have` is set (not given).
    own: [Fe26; 8],
    have: u8,
}

/// What a backend that needs no powers of `r` is handed in their place.
static NO_POWERS: [Fe26; 8] = [[0; 5]; 8];

impl<'a> Powers<'a> {
    /// The caller's powers, or `r^1` to start from.
    #[inline(always)]
    fn new(given: Option<&'a [Fe26; 8]>, r: &R64) -> Self {
        let mut own = [[0u64; 5]; 8];
        if given.is_none() {
            own[0] = r.to_fe26();
        }
        Powers {
            given,
            own,
            have: 1,
        }
    }

    /// For a backend that multiplies by `r` alone ([`PolyLanes::POWERS`] false): nothing
    /// to compute, every power handed out is [`NO_POWERS`].
    #[inline(always)]
    fn none() -> Self {
        Powers {
            given: Some(&NO_POWERS),
            own: [[0; 5]; 8],
            have: 0xff,
        }
    }

    /// `r`, `r^2`, `r^4` and `r^8` by three squarings: what a pass needs to start (`r^4` on
    /// ymm, `r^8` on zmm) after three multiplies instead of seven; the rest follow one per
    /// [`step`](Self::step).
    #[inline(always)]
    fn squares(r: &R64) -> Self {
        let mut own = [[0u64; 5]; 8];
        own[0] = r.to_fe26();
        own[1] = mul26(&own[0], &own[0]);
        own[3] = mul26(&own[1], &own[1]);
        own[7] = mul26(&own[3], &own[3]);
        Powers {
            given: None,
            own,
            have: 0b1000_1011,
        }
    }

    /// One more power, if any is missing: the lowest, `r^(k+1) = r^k * r` (`r^k` is there,
    /// being below the lowest missing one).
    #[inline(always)]
    fn step(&mut self) {
        // `r^1` is always there (`have & 1`), so `k >= 1`; `k == 8` once all are there.
        // `get` rather than indexing: no panicking path in the entries (`cargo xtask asm`).
        let k = self.have.trailing_ones() as usize;
        if self.given.is_some() || k == 0 {
            return;
        }
        let (Some(&prev), r) = (self.own.get(k - 1), self.own[0]) else {
            return;
        };
        if let Some(slot) = self.own.get_mut(k) {
            *slot = mul26(&prev, &r);
            self.have |= 1 << k;
        }
    }

    /// The powers with at least `r^(k+1)` among them (the others maybe not yet computed).
    #[inline(always)]
    fn with(&mut self, k: usize) -> &[Fe26; 8] {
        if let Some(p) = self.given {
            return p;
        }
        while self.have & (1 << k) == 0 {
            self.step();
        }
        &self.own
    }

    /// All eight.
    #[inline(always)]
    fn all(&mut self) -> &[Fe26; 8] {
        if let Some(p) = self.given {
            return p;
        }
        while self.have != 0xff {
            self.step();
        }
        &self.own
    }

    /// Wipes the powers computed here: the last use (the flags stay, so a later `all`
    /// would hand out zeros; every caller wipes right after its fold).
    #[inline(always)]
    fn wipe(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.own);
    }
}

/// The Poly1305 side of the fused loop: the powers, the lanes (once a pass has started),
/// the whole groups of ciphertext queued for them, and the values between the stages of
/// the group being absorbed. As an [`Interleave`], it runs the stages of a queued group
/// spread evenly over a double round's eight quarter rounds (after quarter round `k * 8 /
/// STAGES` for stage `k`), one group per double round, testing per quarter round whether
/// a pass runs and anything is left, and steps one missing power per double round. It
/// serves the kernels of a text's tail and a full batch with no pass running yet (an
/// encryption's first, which only steps the powers); a full batch with a pass running goes
/// through [`Steady`] ([`Stitch::batch`]).
struct Stitch<'a, P: PolyLanes> {
    pow: Powers<'a>,
    /// `r`, for a backend that multiplies by it alone and for the AAD.
    r: R64,
    lanes: Option<P>,
    /// Next queued group.
    at: *const u8,
    /// Queued groups left.
    queued: usize,
    part: P::Part,
}

impl<'a, P: PolyLanes> Stitch<'a, P> {
    /// No pass, nothing queued.
    ///
    /// # Safety
    /// The CPU has `P`'s features.
    #[inline(always)]
    unsafe fn new(pow: Powers<'a>, r: &R64) -> Self {
        Stitch {
            pow,
            r: *r,
            lanes: None,
            at: core::ptr::null(),
            queued: 0,
            // SAFETY: forwarded from this function's contract.
            part: unsafe { P::new_part() },
        }
    }

    /// The Poly1305 side of a whole request once [`key_batch`] has given `r`: `r^2`,
    /// `r^4`, `r^8` by squaring when the backend uses powers (a pass starts with `r^8`,
    /// the rest follow during the next batch), nothing queued.
    ///
    /// # Safety
    /// The CPU has `P`'s features.
    #[inline(always)]
    unsafe fn keyed(r: &R64) -> Self {
        let pow = if P::POWERS {
            Powers::squares(r)
        } else {
            Powers::none()
        };
        // SAFETY: forwarded from this function's contract.
        unsafe { Stitch::new(pow, r) }
    }

    /// The sum after `aad_len` bytes of AAD at `aad` (the vector path for a long one, with
    /// all the powers computed now).
    ///
    /// # Safety
    /// `aad` readable for `aad_len` bytes; the CPU has `P`'s features.
    #[inline(always)]
    unsafe fn aad(&mut self, aad: *const u8, aad_len: usize) -> Acc {
        let mut acc = Acc::default();
        let long = aad_len / GROUP_BYTES >= MIN_VECTOR_BLOCKS;
        // SAFETY: forwarded from this function's contract.
        unsafe {
            absorb_padded::<P>(
                &mut acc,
                &self.r,
                long.then(|| self.pow.all()),
                aad,
                aad_len,
            )
        };
        acc
    }

    /// Queues `groups` whole groups of ciphertext at `ct` (the queue is empty: every
    /// caller queues once per batch), starting the pass with the first of them (`acc`
    /// entering lane 0) when none is running yet.
    ///
    /// # Safety
    /// `ct` is readable for `groups >= 1` whole groups; the CPU has `P`'s features.
    #[inline(always)]
    unsafe fn queue(&mut self, acc: &Acc, ct: *const u8, groups: usize) {
        // Empty by construction; were it not, absorbing the rest first keeps the tag right.
        // SAFETY: forwarded from this function's contract (the queued text is unchanged).
        unsafe { self.drain() };
        (self.at, self.queued) = (ct, groups);
        if self.lanes.is_none() {
            // SAFETY: forwarded from this function's contract.
            unsafe {
                self.lanes = Some(P::start(acc, &self.r, self.pow.with(P::BLOCKS - 1), ct));
                self.at = ct.add(GROUP_BYTES * P::BLOCKS);
            }
            self.queued = groups.saturating_sub(1);
        }
    }

    /// Absorbs what is still queued, in a row.
    ///
    /// # Safety
    /// The CPU has `P`'s features; the queued ciphertext is still readable and unchanged.
    #[inline(always)]
    unsafe fn drain(&mut self) {
        if let (Some(l), true) = (self.lanes.as_mut(), self.queued > 0) {
            // SAFETY: forwarded from this function's contract.
            unsafe { l.absorb(&self.r, self.at, self.queued) };
            self.queued = 0;
        }
    }
}

/// The stage of a group that runs after quarter round `q` (a constant after inlining),
/// the `STAGES` stages spread evenly over a double round's eight quarter rounds (stage `k`
/// after quarter round `k * 8 / STAGES`); `None` after the others. For the IFMA backend's
/// six stages that is after quarter rounds 0, 1, 2, 4, 5 and 6; the earlier form (a step
/// of `8 / STAGES`, which rounds down to 1) put them after 0 to 5 and left the double
/// round's last two quarter rounds bare. Zen 4, `cryptoctl speed
/// 'rfc7539(chacha20,poly1305)' --driver rfc7539-chacha20-poly1305-avx512ifma --aad 13`,
/// seal, twelve alternating runs of the two builds, median of the per-run ratios: 1420 /
/// 4096 / 8192 / 16384 bytes +2.2% / +5.4% / +2.1% / +0.7% (faster in 7 or 8 runs of 12;
/// best three MB/s 2172-2202 / 2911-2959 / 3333-3375 / 3606-3624 -> 2228-2300 /
/// 3032-3096 / 3403-3498 / 3658-3687); open level. The radix-2^26 backend (one stage) and
/// the scalar one (four: after 0, 2, 4, 6) are placed as before.
/// Steps one missing power of `r` after quarter round 7 of a double round (the fused
/// loops' pace), for a backend that uses powers. A backend without them never needs one
/// stepped (`Powers::none` has them all): the test is left out at compile time, not made
/// at run time.
#[inline(always)]
fn step_power<P: PolyLanes>(pow: &mut Powers<'_>, q: usize) {
    if P::POWERS && q == 7 {
        pow.step();
    }
}

#[inline(always)]
fn stage_after<P: PolyLanes>(q: usize) -> Option<usize> {
    (0..P::STAGES).find(|&k| k * 8 / P::STAGES == q)
}

impl<P: PolyLanes> Interleave for Stitch<'_, P> {
    #[inline(always)]
    unsafe fn after_quarter(&mut self, q: usize) {
        step_power::<P>(&mut self.pow, q);
        let Some(k) = stage_after::<P>(q) else {
            return;
        };
        if self.queued == 0 {
            return;
        }
        if let Some(l) = self.lanes.as_mut() {
            // SAFETY: the queue names whole groups of readable ciphertext (`queue`), read
            // before the batch stores anything (`Interleave`); the stages of a group run
            // in order (`q` counts up within each double round).
            unsafe { l.absorb_stage(&self.r, self.at, k, &mut self.part) };
            if k == P::STAGES - 1 {
                // SAFETY: at most one past the end of the queued groups.
                self.at = unsafe { self.at.add(GROUP_BYTES * P::BLOCKS) };
                self.queued -= 1;
            }
        }
    }
}

impl<P: PolyLanes> Stitch<'_, P> {
    /// One full vertical batch (`s`'s keystream from `src` into `dst`) absorbing what is
    /// queued: in the steady state (a pass running, at most one group per double round
    /// queued) through [`Steady`]; else with the queue's own tests ([`Interleave`] above).
    /// (An IFMA form that gave half of a full batch's 64 queued blocks to the scalar step
    /// measured 2-4% faster at 4 and 8 KiB on Zen 4 but 1-3% slower at 16 and 64 KiB there,
    /// and on Sapphire Rapids 5-8% slower at 4 KiB, 7-14% at 8 KiB and 12-18% at 16 and
    /// 64 KiB: removed; see the README.)
    ///
    /// # Safety
    /// As [`batch_between`]'s, with the queued ciphertext readable and unchanged until the
    /// batch's stores; the CPU has `V`'s and `P`'s features.
    #[inline(always)]
    unsafe fn batch<V: Word32Vec>(&mut self, s: &[u32; 16], src: *const u8, dst: *mut u8) {
        match self.lanes.take() {
            Some(lanes) if self.queued <= DOUBLE_ROUNDS => {
                let mut steady = Steady {
                    lanes,
                    pow: &mut self.pow,
                    r: &self.r,
                    at: self.at,
                    groups: self.queued,
                    // SAFETY: features per the caller.
                    part: unsafe { P::new_part() },
                };
                // SAFETY: forwarded from this function's contract.
                unsafe { batch_between::<V>(s, src, dst, &mut steady) };
                self.lanes = Some(steady.lanes);
                (self.at, self.queued) = (steady.at, 0);
            }
            lanes => {
                self.lanes = lanes;
                // SAFETY: forwarded from this function's contract.
                unsafe { batch_between::<V>(s, src, dst, self) };
            }
        }
    }
}

/// The steady state of the fused loop as an [`Interleave`]: a running pass absorbing
/// `groups` queued groups in a vertical batch's first `groups` double rounds
/// ([`Interleave::busy`]), one group per double round, its stages spread as [`Stitch`]
/// spreads them (stage `k` after quarter round `k * 8 / STAGES`), and one missing power of
/// `r` per busy double round (the powers not stepped by the time they are needed are
/// computed then: [`Powers::with`], [`Powers::all`]). Unlike [`Stitch`] it asks nothing
/// per quarter round (is a pass running, is anything left) and holds the lanes and the
/// values between stages by value, so they stay in registers: on Zen 4 the queue's tests
/// and the stage values it stored and reloaded were a fifth of the instructions of a
/// double round. It relies on the kernel calling it in the first `busy()` double rounds
/// only, which every kernel honours ([`Interleave::after_quarter`]).
struct Steady<'s, 'a, P: PolyLanes> {
    lanes: P,
    pow: &'s mut Powers<'a>,
    /// `r`, the [`Stitch`]'s (borrowed, not beside the lanes:
    /// [`ScalarLanes`](crate::poly1305::simd::lanes::ScalarLanes) says why).
    r: &'s R64,
    /// The next queued group (one past the last once all are absorbed).
    at: *const u8,
    /// Queued groups: as many double rounds run the stages.
    groups: usize,
    part: P::Part,
}

impl<P: PolyLanes> Interleave for Steady<'_, '_, P> {
    #[inline(always)]
    unsafe fn after_quarter(&mut self, q: usize) {
        step_power::<P>(self.pow, q);
        let Some(k) = stage_after::<P>(q) else {
            return;
        };
        // SAFETY: this runs in the first `groups` double rounds only (`busy`, which every
        // kernel honours), one group each, so the stages read within the queued groups
        // (`at` ends one past the last), which are readable and unchanged until the
        // batch's stores (`Stitch::batch`); the stages of a group run in order.
        unsafe {
            self.lanes.absorb_stage(self.r, self.at, k, &mut self.part);
            if k == P::STAGES - 1 {
                self.at = self.at.add(GROUP_BYTES * P::BLOCKS);
            }
        }
    }

    #[inline(always)]
    fn busy(&self) -> usize {
        self.groups
    }
}

/// Where the ciphertext starts: the output when encrypting, the input when decrypting.
fn ct_start(src: *const u8, dst: *mut u8, encrypt: bool) -> *const u8 {
    if encrypt {
        dst.cast_const()
    } else {
        src
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
/// bytes to all but the last. `pow` are `r^1..r^8`, or `None`: then, if the text is long
/// enough for the vector Poly1305 path, they are computed here (during the first batch
/// when encrypting), else the scalar step absorbs it.
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
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    let mut acc = Acc { h: *h };
    // SAFETY: forwarded from this function's contract.
    unsafe {
        if pow.is_none() && len / GROUP_BYTES < MIN_VECTOR_BLOCKS {
            // Too short for the vector Poly1305 path: ChaCha20, then the scalar step.
            if ENCRYPT {
                chacha20_xor::<V>(s, src, dst, len);
            }
            absorb_padded::<P>(&mut acc, r, None, ct_start(src, dst, ENCRYPT), len);
            if !ENCRYPT {
                chacha20_xor::<V>(s, src, dst, len);
            }
            s[12] = s[12].wrapping_add(len.div_ceil(64) as u32);
        } else {
            let pow = if P::POWERS {
                Powers::new(pow, r)
            } else {
                Powers::none()
            };
            let mut st = Stitch::<P>::new(pow, r);
            batches::<V, P, ENCRYPT>(&mut st, &mut acc, r, s, src, dst, len, 0);
        }
    }
    *h = acc.h;
}

/// The text of [`crypt`] or [`seal_keyed`] from where `s`, `src` and `dst` stand: whole
/// batches, then the tail, with `st` absorbing the ciphertext; the last `carry` bytes of
/// ciphertext before `src` / `dst` are written but not yet queued (fewer than a group:
/// after [`seal_keyed`]'s first batch). Advances the counter in `s[12]`.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes, equal or disjoint, the `carry`
/// bytes of ciphertext before them readable; the CPU has `V`'s and `P`'s features; the
/// counter has room for `len` bytes.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn batches<V: Word32Vec, P: PolyLanes, const ENCRYPT: bool>(
    st: &mut Stitch<'_, P>,
    acc: &mut Acc,
    r: &R64,
    s: &mut [u32; 16],
    mut src: *const u8,
    mut dst: *mut u8,
    len: usize,
    carry: usize,
) {
    // One full vertical ChaCha20 batch: 16 words per block, one block per 32-bit lane.
    let chunk = 16 * V::BYTES;
    let group = GROUP_BYTES * P::BLOCKS;
    let groups = chunk / group;
    // One group per double round, one stage per quarter round: a batch absorbs all it
    // was queued.
    // And `Powers` keeps `r^BLOCKS` in a byte of flags.
    const {
        assert!(16 * V::BYTES / GROUP_BYTES / P::BLOCKS <= DOUBLE_ROUNDS && P::STAGES <= 8);
        assert!(P::BLOCKS <= 8);
        assert!(16 * V::BYTES <= MAX_CHUNK);
    }
    // Only an encryption's first batch leaves ciphertext unqueued.
    debug_assert!(ENCRYPT || carry == 0);
    let mut left = len;
    // SAFETY: `src` / `dst` advance together through the caller's `len` bytes and every
    // call gets at most the bytes left; the queue starts `carry` bytes before them
    // (readable, the caller's promise); features per the caller; the counter room is the
    // caller's promise.
    unsafe {
        while left >= chunk {
            if !ENCRYPT {
                // Decryption authenticates the chunk it decrypts: the batch reads all
                // of it before it stores anything.
                st.queue(acc, src.sub(carry), groups);
            }
            st.batch::<V>(s, src, dst);
            if ENCRYPT {
                // The batch's ciphertext goes with the next batch (or the tail's).
                st.queue(acc, dst.sub(carry), groups);
            }
            s[12] = s[12].wrapping_add((chunk / 64) as u32);
            src = src.add(chunk);
            dst = dst.add(chunk);
            left -= chunk;
        }
        if ENCRYPT && left > 0 {
            // The tail's keystream with the last batch's groups (whatever its kernel
            // leaves is drained below).
            chacha20_xor_between::<V>(s, src, dst, left, st);
        }
        // Decryption: the tail's plaintext goes to a stack buffer when in place (copied
        // out below, once the Poly1305 side has read the tail's ciphertext), so that its
        // keystream can run first, beside the tail's Poly1305 groups and the fold.
        let mut plain = core::mem::MaybeUninit::<PlainBuf<MAX_CHUNK>>::uninit();
        let in_place = core::ptr::eq(src, dst.cast_const());
        if !ENCRYPT && left > 0 {
            if left >= group {
                st.queue(acc, src, left / group);
            }
            let out = if in_place {
                plain.as_mut_ptr().cast::<u8>()
            } else {
                dst
            };
            chacha20_xor_between::<V>(s, src, out, left, st);
        }
        st.drain();
        // The tail's whole vector groups continue the running lanes (one fold per
        // request, not one per pass); what is left goes through the scalar step.
        let ct = ct_start(src, dst, ENCRYPT).sub(carry);
        let rest = left + carry;
        let done = group * (rest / group);
        // Decryption queued the tail's whole groups above.
        let queued = if ENCRYPT { 0 } else { done };
        match st.lanes.take() {
            Some(mut l) => {
                l.absorb(r, ct.add(queued), (done - queued) / group);
                *acc = l.fold(st.pow.all());
                absorb_padded::<P>(acc, r, None, ct.add(done), rest - done);
            }
            None => absorb_padded::<P>(acc, r, Some(st.pow.all()), ct, rest),
        }
        st.pow.wipe();
        if !ENCRYPT && left > 0 && in_place {
            move_out::<V>(plain.as_mut_ptr().cast::<u8>(), dst, left);
        }
        s[12] = s[12].wrapping_add(left.div_ceil(64) as u32);
    }
}

/// The fewest text bytes [`seal_keyed`] takes: what its first batch encrypts.
pub(crate) const fn keyed_min<V: Word32Vec>() -> usize {
    64 * (V::WORDS - 1)
}

/// The first vertical batch of a whole request ([`seal_keyed`], [`open_keyed`]) from block
/// 0: `src` XORed into `out` for text blocks 1 to `V::WORDS - 1`, the counter left at block
/// `V::WORDS`; returns `r` out of block 0 and writes its `s` into `tag_s` (the key block
/// wiped).
///
/// # Safety
/// `s` is at block 0; `src` readable and `out` writable for `keyed_min::<V>()` bytes,
/// equal or disjoint; the CPU has `V`'s features.
#[inline(always)]
unsafe fn key_batch<V: Word32Vec>(
    s: &mut [u32; 16],
    tag_s: &mut [u8; 16],
    src: *const u8,
    out: *mut u8,
) -> R64 {
    // The key is the first 32 bytes of the returned vector.
    const { assert!(V::BYTES >= 32 && V::BYTES <= 64) };
    let mut key = [0u8; 64];
    // SAFETY: forwarded from this function's contract; `key` has room for a vector.
    unsafe { key_batch_between::<V>(s, src, out, &mut ()).store(key.as_mut_ptr()) };
    s[12] = V::WORDS as u32;
    let r;
    (r, *tag_s) = super::one_time_key(&key);
    zeroize::Zeroize::zeroize(&mut key);
    r
}

/// The end of a whole request: `r` and the sum handed to the caller (for its tag), the
/// local copies wiped.
#[inline(always)]
fn hand_over(mut r: R64, mut acc: Acc, r_out: &mut R64, h: &mut [u64; 3]) {
    *r_out = r;
    *h = acc.h;
    zeroize::Zeroize::zeroize(&mut r);
    zeroize::Zeroize::zeroize(&mut acc);
}

/// A whole seal from block 0: the one-time Poly1305 key comes out of the first vertical
/// batch together with text blocks 1 to `V::WORDS - 1` ([`key_batch_between`]), rather
/// than from a block of its own computed before anything else (one horizontal block whose
/// 20 rounds are a single dependency chain: about a tenth of a 1420-byte seal). Then `r`
/// and `s` out of the key, `r^2`, `r^4`, `r^8` by squaring (a pass starts with `r^8`), the
/// AAD, the first batch's whole groups queued, and the rest as [`crypt`] does it, the
/// missing powers computed during the next batch. Writes `r` (`[r0, r1, s1]` limbs), `s`
/// and the sum `h` after AAD and text, for the caller's tag.
///
/// # Safety
/// `s` is the request's state at block 0 (`s[12] == 0`); `aad` readable for `aad_len`
/// bytes; `src` readable and `dst` writable for `len >= keyed_min::<V>()` bytes, equal or
/// disjoint; the CPU has `V`'s and `P`'s features; `1 + ceil(len / 64) <= 2^32`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn seal_keyed<V: Word32Vec, P: PolyLanes>(
    s: &mut [u32; 16],
    r_out: &mut R64,
    tag_s: &mut [u8; 16],
    h: &mut [u64; 3],
    aad: *const u8,
    aad_len: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    let first = keyed_min::<V>();
    let group = GROUP_BYTES * P::BLOCKS;
    // The first batch's text holds at least one group to start the pass with.
    const { assert!(keyed_min::<V>() >= GROUP_BYTES * P::BLOCKS) };
    debug_assert!(s[12] == 0 && len >= first);
    // SAFETY: the first batch's `first <= len` bytes at `src` / `dst` (the caller's
    // promise), then the rest from there with the first batch's last `first % group`
    // bytes of ciphertext before it (written by that batch, readable); features, counter
    // room and the AAD per the caller.
    unsafe {
        let r = key_batch::<V>(s, tag_s, src, dst);
        let mut st = Stitch::<P>::keyed(&r);
        let mut acc = st.aad(aad, aad_len);
        st.queue(&acc, dst, first / group);
        batches::<V, P, true>(
            &mut st,
            &mut acc,
            &r,
            s,
            src.add(first),
            dst.add(first),
            len - first,
            first % group,
        );
        hand_over(r, acc, r_out, h);
    }
}

/// The text lengths [`open_keyed`] takes: from one first batch up to (not including) one
/// batch more, a first batch and a tail.
pub(crate) const fn keyed_open_range<V: Word32Vec>() -> core::ops::Range<usize> {
    keyed_min::<V>()..keyed_min::<V>() + 64 * V::WORDS
}

/// A whole open from block 0, the counterpart of [`seal_keyed`] for a first batch and a
/// tail ([`keyed_open_range`]): the one-time key out of the first vertical batch, which
/// decrypts text blocks 1 to `V::WORDS - 1` beside it, instead of a block of its own whose
/// 20 rounds are one dependency chain computed before anything else. The Poly1305 side
/// cannot read that batch's ciphertext during the batch (`r` comes out of it), so the
/// whole text's groups are queued after it and absorbed during the tail's keystream (the
/// rest drained after), whose kernel is a dependency chain with room beside it. In place,
/// both parts are decrypted into a stack buffer and copied over the ciphertext at the end,
/// once every byte of it has been read (the buffer is wiped); out of place straight into
/// `dst`. Writes `r`, `s` and the sum `h` after AAD and text, for the caller's tag.
///
/// # Safety
/// `s` is the request's state at block 0 (`s[12] == 0`); `aad` readable for `aad_len`
/// bytes; `src` readable and `dst` writable for `len` bytes (within
/// [`keyed_open_range`]), equal or disjoint; the CPU has `V`'s and `P`'s features;
/// `1 + ceil(len / 64) <= 2^32`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn open_keyed<V: Word32Vec, P: PolyLanes>(
    s: &mut [u32; 16],
    r_out: &mut R64,
    tag_s: &mut [u8; 16],
    h: &mut [u64; 3],
    aad: *const u8,
    aad_len: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    let first = keyed_min::<V>();
    let group = GROUP_BYTES * P::BLOCKS;
    const {
        assert!(keyed_min::<V>() >= GROUP_BYTES * P::BLOCKS);
        assert!(keyed_open_range::<V>().end <= 2 * MAX_CHUNK);
    }
    debug_assert!(s[12] == 0 && keyed_open_range::<V>().contains(&len));
    let mut plain = core::mem::MaybeUninit::<PlainBuf<{ 2 * MAX_CHUNK }>>::uninit();
    let in_place = core::ptr::eq(src, dst.cast_const());
    let out = if in_place {
        plain.as_mut_ptr().cast::<u8>()
    } else {
        dst
    };
    // SAFETY: `first <= len < 2 * MAX_CHUNK` bytes at `src` / `dst` / `out` (the caller's
    // promise, the buffer's size); `src` is only read until the copy at the end, which
    // comes after every Poly1305 read; features, counter room and the AAD per the caller.
    unsafe {
        let r = key_batch::<V>(s, tag_s, src, out);
        let mut st = Stitch::<P>::keyed(&r);
        let mut acc = st.aad(aad, aad_len);
        let groups = len / group;
        st.queue(&acc, src, groups);
        let left = len - first;
        if left > 0 {
            chacha20_xor_between::<V>(s, src.add(first), out.add(first), left, &mut st);
        }
        st.drain();
        if let Some(l) = st.lanes.take() {
            acc = l.fold(st.pow.all());
        }
        st.pow.wipe();
        let done = groups * group;
        absorb_padded::<P>(&mut acc, &r, None, src.add(done), len - done);
        if in_place {
            move_out::<V>(out, dst, len);
        }
        s[12] = s[12].wrapping_add(left.div_ceil(64) as u32);
        hand_over(r, acc, r_out, h);
    }
}
