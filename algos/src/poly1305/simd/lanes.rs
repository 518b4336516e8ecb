//! [`PolyLanes`]: a Poly1305 core that a caller feeds one group of blocks at a time
//! (start, absorb, fold), so that the fused ChaCha20-Poly1305 core is written once over
//! its Poly1305 backend: the radix-2^26 lanes ([`Lanes26`] on ymm or zmm), the radix-2^44
//! IFMA lanes ([`Lanes44`], zmm), or the scalar step in general registers
//! ([`ScalarLanes`]: one block at a time, beside the vector ChaCha20 rounds).
//!
//! Absorbing a group can also be cut into stages ([`PolyLanes::absorb_stage`]) that the
//! fused core hangs between ChaCha20 quarter rounds: six for the IFMA backend (message
//! limbs, one product column each, the columns combined, the carry pass), one for the
//! radix-2^26 backends.
//!
//! The vector backends take the powers `r^1..r^8` in radix 2^26 (the form the fused
//! drivers keep in their streaming state); the IFMA backend converts the few it needs
//! (`r^8` at the start, all eight at the fold), which costs a few scalar operations per
//! pass. The scalar backend needs none ([`PolyLanes::POWERS`] is false): it multiplies by
//! `r` itself.

use super::ifma::{Lanes44, Part44, STAGES44};
use super::scalar::{fe26_to_fe44, Acc, Fe26, Fe44, R64};
use super::vec26::{Lanes26, PolyVec};
use crate::x86::vector::{SimdVec, Zmm};

/// A Poly1305 lane core (same safety contract as [`SimdVec`]: call only from code compiled
/// with the backend's features).
pub(crate) trait PolyLanes: Sized {
    /// The vector type of the backend: its 64-bit lanes carry one block each, and
    /// the tail of a text is loaded through it.
    type Vec: SimdVec;
    /// Blocks per group (one per 64-bit lane).
    const BLOCKS: usize;
    /// Whether the backend multiplies by the powers of `r` (the vector lanes) or by `r`
    /// alone (the scalar step): a caller computes no powers for the latter.
    const POWERS: bool = true;

    /// Starts a pass with the group of [`BLOCKS`](Self::BLOCKS) blocks at `p`, `acc`
    /// entering lane 0; `pow[k]` is `r^(k+1)`. Reads `pow[BLOCKS - 1]` only: the fused
    /// core starts a pass before it has computed the other powers (and none at all when
    /// [`POWERS`](Self::POWERS) is false: then `r` is what counts).
    ///
    /// # Safety
    /// `p` is readable for `16 * BLOCKS` bytes; the CPU has the backend's features.
    unsafe fn start(acc: &Acc, r: &R64, pow: &[Fe26; 8], p: *const u8) -> Self;

    /// Absorbs `groups` more groups of blocks at `p`. `r` is the key's, for the backend
    /// that multiplies by it ([`ScalarLanes`]): the caller keeps it outside the lanes (see
    /// there why).
    ///
    /// # Safety
    /// `p` is readable for `16 * groups * BLOCKS` bytes; the CPU has the features.
    unsafe fn absorb(&mut self, r: &R64, p: *const u8, groups: usize);

    /// Ends the pass: lane `j` times `r^(n-j)`, the lanes summed, as a running sum.
    ///
    /// # Safety
    /// The CPU has the backend's features.
    unsafe fn fold(self, pow: &[Fe26; 8]) -> Acc;

    /// Pieces one group's absorption is cut into, so that a caller can spread it over
    /// other work ([`absorb_stage`](Self::absorb_stage)).
    const STAGES: usize;
    /// The values carried from one stage to the next.
    type Part;

    /// A fresh [`Part`](Self::Part).
    ///
    /// # Safety
    /// The CPU has the backend's features.
    unsafe fn new_part() -> Self::Part;

    /// Stage `k` (below [`STAGES`](Self::STAGES), a constant after inlining) of absorbing
    /// the group at `p`; the last stage completes it. `r` as for
    /// [`absorb`](Self::absorb).
    ///
    /// # Safety
    /// `p` is readable for `16 * BLOCKS` bytes; the CPU has the backend's features; the
    /// stages of one group run in order, with the same `p` and `part`.
    unsafe fn absorb_stage(&mut self, r: &R64, p: *const u8, k: usize, part: &mut Self::Part);
}

impl<V: PolyVec> PolyLanes for Lanes26<V> {
    type Vec = V;
    const BLOCKS: usize = V::BLOCKS;
    /// One stage: the whole group.
    const STAGES: usize = 1;
    type Part = ();

    #[inline(always)]
    unsafe fn new_part() {}

    #[inline(always)]
    unsafe fn absorb_stage(&mut self, _r: &R64, p: *const u8, _k: usize, _part: &mut ()) {
        // SAFETY: forwarded from this function's contract.
        unsafe { Lanes26::absorb(self, p, 1) }
    }

    #[inline(always)]
    unsafe fn start(acc: &Acc, _r: &R64, pow: &[Fe26; 8], p: *const u8) -> Self {
        // SAFETY: forwarded from this function's contract.
        unsafe { Lanes26::start(acc, pow, p) }
    }

    #[inline(always)]
    unsafe fn absorb(&mut self, _r: &R64, p: *const u8, groups: usize) {
        // SAFETY: forwarded from this function's contract.
        unsafe { Lanes26::absorb(self, p, groups) }
    }

    #[inline(always)]
    unsafe fn fold(self, pow: &[Fe26; 8]) -> Acc {
        // SAFETY: forwarded from this function's contract.
        unsafe { Lanes26::fold(self, pow) }
    }
}

impl PolyLanes for Lanes44 {
    type Vec = Zmm;
    const BLOCKS: usize = 8;
    const STAGES: usize = STAGES44;
    type Part = Part44;

    #[inline(always)]
    unsafe fn new_part() -> Part44 {
        // SAFETY: forwarded from this function's contract.
        unsafe { Part44::new() }
    }

    #[inline(always)]
    unsafe fn absorb_stage(&mut self, _r: &R64, p: *const u8, k: usize, part: &mut Part44) {
        // SAFETY: forwarded from this function's contract.
        unsafe { Lanes44::absorb_stage(self, p, k, part) }
    }

    #[inline(always)]
    unsafe fn start(acc: &Acc, _r: &R64, pow: &[Fe26; 8], p: *const u8) -> Self {
        let mut r8 = fe26_to_fe44(&pow[7]);
        // SAFETY: forwarded from this function's contract (IFMA's features).
        let lanes = unsafe { Lanes44::start44(acc, &r8, p) };
        zeroize::Zeroize::zeroize(&mut r8);
        lanes
    }

    #[inline(always)]
    unsafe fn absorb(&mut self, _r: &R64, p: *const u8, groups: usize) {
        // SAFETY: forwarded from this function's contract.
        unsafe { Lanes44::absorb(self, p, groups) }
    }

    #[inline(always)]
    unsafe fn fold(self, pow: &[Fe26; 8]) -> Acc {
        let mut pow44: [Fe44; 8] = core::array::from_fn(|k| fe26_to_fe44(&pow[k]));
        // SAFETY: forwarded from this function's contract.
        let acc = unsafe { self.fold44(&pow44) };
        zeroize::Zeroize::zeroize(&mut pow44);
        acc
    }
}

/// Poly1305 in general registers as a [`PolyLanes`] backend: the scalar step (64-bit
/// limbs, `mul` / `adc`, in assembly: [`Acc::blocks`]), one block per stage, so that the fused
/// core hangs one block after every other quarter round of a double round.
/// There its multiply chain runs on the integer ports while the vector ports run the
/// ChaCha20 rounds, and none of the vector work of the lanes (message splitting, the
/// products of five limbs, the carries, the fold) competes with the rounds for the vector
/// ports: what BoringSSL's AVX2 seal does. It suits the ymm core, whose batch of 8 blocks
/// (32 Poly1305 blocks over 10 double rounds) leaves the scalar chain about as long as the
/// rounds; a zmm batch (64 blocks) would wait for it. `V` is the vector type a text's tail
/// is loaded through.
///
/// It holds the sum only; `r` comes from the caller at each step, from memory that is not
/// the lanes'. The step hands the assembly a pointer to `r`, and LLVM then treats the
/// whole object that holds it as possibly read there: with `r` beside the sum, the sum
/// was stored after every block and its top limb reloaded at every double round (on the
/// dependency chain that binds the loop).
pub(crate) struct ScalarLanes<V> {
    acc: Acc,
    _tail: core::marker::PhantomData<V>,
}

impl<V: SimdVec> PolyLanes for ScalarLanes<V> {
    type Vec = V;
    /// Four blocks a group: one group per double round, 8 groups per ymm batch.
    const BLOCKS: usize = 4;
    const POWERS: bool = false;
    /// One block a stage.
    const STAGES: usize = 4;
    type Part = ();

    #[inline(always)]
    unsafe fn new_part() {}

    #[inline(always)]
    unsafe fn start(acc: &Acc, r: &R64, _pow: &[Fe26; 8], p: *const u8) -> Self {
        let mut lanes = ScalarLanes {
            acc: *acc,
            _tail: core::marker::PhantomData,
        };
        // SAFETY: forwarded from this function's contract.
        unsafe { lanes.absorb(r, p, 1) };
        lanes
    }

    #[inline(always)]
    unsafe fn absorb(&mut self, r: &R64, p: *const u8, groups: usize) {
        // SAFETY: `p` is readable for `groups` groups (this function's contract).
        let blocks = unsafe { core::slice::from_raw_parts(p, 16 * Self::BLOCKS * groups) };
        self.acc.blocks(r, blocks, 1);
    }

    #[inline(always)]
    unsafe fn absorb_stage(&mut self, r: &R64, p: *const u8, k: usize, _part: &mut ()) {
        // SAFETY: block `k < BLOCKS` of the group at `p` (this function's contract).
        let block = unsafe { core::slice::from_raw_parts(p.add(16 * k), 16) };
        self.acc.blocks(r, block, 1);
    }

    #[inline(always)]
    unsafe fn fold(self, _pow: &[Fe26; 8]) -> Acc {
        self.acc
    }
}
