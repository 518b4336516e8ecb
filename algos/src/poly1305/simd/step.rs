//! The scalar Poly1305 step ([`Acc`]'s one-block `h = (h + m + 2^128) * r`, partially
//! reduced) written as one inline-assembly block, which [`Acc::blocks`] takes for every
//! full block: the fused ymm ChaCha20-Poly1305 core
//! ([`ScalarLanes`](super::lanes::ScalarLanes)), the short requests and the tails all
//! reach it there.
//!
//! Why assembly: there the step runs between ChaCha20 quarter rounds, and LLVM, short of
//! general registers across the rounds, kept `r0`, `r1`, `s1`, the block pointer and `h2`
//! on the stack and reloaded each with its own `mov` in every block (`perf annotate` of
//! `rfc7539_seal_avx2` on Zen 3: a busy double round 340 instructions against the gauge
//! kernel's 280), a loop bound by its instruction count. Here the key's three words are
//! memory operands of the multiplies (`mul qword ptr [r]`: the load is folded into the
//! instruction and no register holds them), the message words memory operands of the
//! adds, and the block is 35 instructions, the gauge kernel's step
//! (`limits::kernels::poly_scalar`) less its two closing moves.
//!
//! The arithmetic is the Rust step's (`Acc::block`), limb for limb (its comments give the
//! bounds that keep every sum inside 128 bits); `tests` below compare the two, and every
//! SIMD Poly1305 and ChaCha20-Poly1305 driver's differential tests run it. Branch-free,
//! and `mul` / `imul` take the same time for every operand on the x86-64 cores we run on.

use super::scalar::{Acc, R64};

/// Absorbs one full 16-byte block at `m` (with the 2^128 bit) into `acc`: the same
/// result as the Rust step (`Acc::block` with the block's two words and `hibit` 1).
///
/// # Safety
/// `m` is readable for 16 bytes.
#[inline(always)]
pub(crate) unsafe fn block(acc: &mut Acc, r: &R64, m: *const u8) {
    // The Rust step's bound (`h2 < 8` after the message's carry and the 2^128 bit).
    debug_assert!(acc.h[2] <= 5);
    let [h0, h1, mut h2] = acc.h;
    let (lo, hi): (u64, u64);
    // SAFETY: the block reads 16 bytes at `m` (readable, this function's contract) and the
    // 24 bytes of `*r` (a live reference to `R64`, whose fields are `r0`, `r1`, `s1` in
    // that order: `#[repr(C)]`), writes no memory, leaves the stack alone; it clobbers
    // rax and rdx, which it names, and the flags (no `preserves_flags`).
    unsafe {
        core::arch::asm!(
            // h += m + 2^128
            "add {h0}, qword ptr [{m}]",
            "adc {h1}, qword ptr [{m} + 8]",
            "adc {h2}, 1",
            // d0 = h0 * r0 + h1 * s1, in lo:hi
            "mov rax, {h0}",
            "mul qword ptr [{r}]",
            "mov {lo}, rax",
            "mov {hi}, rdx",
            "mov rax, {h1}",
            "mul qword ptr [{r} + 16]",
            "add {lo}, rax",
            "adc {hi}, rdx",
            // d1 = h0 * r1 + h1 * r0 + h2 * s1, in h0:h1 (each copied to rax for its last
            // multiply before a `mov` overwrites it)
            "mov rax, {h0}",
            "mul qword ptr [{r} + 8]",
            "mov {h0}, rax",
            "mov rax, {h1}",
            "mov {h1}, rdx",
            "mul qword ptr [{r}]",
            "add {h0}, rax",
            "adc {h1}, rdx",
            "mov rax, {h2}",
            "imul rax, qword ptr [{r} + 16]",
            "add {h0}, rax",
            "adc {h1}, 0",
            // d2 = h2 * r0 (64 bits: h2 < 8, r0 < 2^60); d1 += d0 >> 64; d2 += d1 >> 64
            "imul {h2}, qword ptr [{r}]",
            "add {hi}, {h0}",
            "adc {h2}, {h1}",
            // fold d2's bits from 2^130 up: times 5, into lo:hi; d2 keeps its low two
            "mov rax, {h2}",
            "and rax, -4",
            "mov rdx, {h2}",
            "shr rdx, 2",
            "add rax, rdx",
            "and {h2}, 3",
            "add {lo}, rax",
            "adc {hi}, 0",
            "adc {h2}, 0",
            h0 = inout(reg) h0 => _,
            h1 = inout(reg) h1 => _,
            h2 = inout(reg) h2,
            lo = out(reg) lo,
            hi = out(reg) hi,
            m = in(reg) m,
            r = in(reg) r as *const R64,
            out("rax") _,
            out("rdx") _,
            options(pure, readonly, nostack),
        );
    }
    acc.h = [lo, hi, h2];
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Rust step of one block, `m` with the 2^128 bit.
    fn rust_step(acc: &mut Acc, r: &R64, m: &[u8]) {
        let word = |at: usize| u64::from_le_bytes(m[at..at + 8].try_into().unwrap());
        acc.block(r, [word(0), word(8)], 1);
    }

    /// The assembly step against the Rust one from sums at the bounds a step can see
    /// (`h2` up to 4 on entry, as every step leaves it), with keys whose clamped words are
    /// all ones where the clamp allows, mixed ones, and `r = 1` (whose small products let
    /// the fold's carry run through `h1` into `h2`: `h = [MAX, MAX, 4]`, `m = 0` gives
    /// `[4, 0, 2]`), and messages of all ones, zeros and mixed bytes: every carry of the
    /// adds and of the fold is taken in some case.
    #[test]
    fn matches_the_rust_step() {
        let keys: [[u8; 16]; 4] = [
            [0xff; 16],
            core::array::from_fn(|i| (i * 29 + 3) as u8),
            core::array::from_fn(|i| 0x80 ^ (i * 71) as u8),
            core::array::from_fn(|i| u8::from(i == 0)),
        ];
        let msgs: [[u8; 16]; 3] = [
            [0xff; 16],
            [0; 16],
            core::array::from_fn(|i| 0xf0 - (i * 13) as u8),
        ];
        let sums = [
            [0u64, 0, 0],
            [u64::MAX, u64::MAX, 4],
            [u64::MAX, u64::MAX, 2],
            [0x1234_5678_9abc_def0, u64::MAX, 3],
            [u64::MAX - 4, 0, 1],
        ];
        let mut cases = 0;
        for key in &keys {
            let r = R64::from_key(key);
            for m in &msgs {
                for h in sums {
                    let mut want = Acc::from_limbs(h[0], h[1], h[2]);
                    rust_step(&mut want, &r, m);
                    let mut got = Acc::from_limbs(h[0], h[1], h[2]);
                    // SAFETY: `m` is 16 readable bytes.
                    unsafe { block(&mut got, &r, m.as_ptr()) };
                    assert_eq!(got, want, "key {key:x?} m {m:x?} h {h:x?}");
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 60);
        // The case that carries through every limb of the fold, pinned.
        let r1 = R64::from_key(&core::array::from_fn(|i| u8::from(i == 0)));
        let mut carried = Acc::from_limbs(u64::MAX, u64::MAX, 4);
        // SAFETY: 16 readable bytes.
        unsafe { block(&mut carried, &r1, [0u8; 16].as_ptr()) };
        assert_eq!(carried, Acc::from_limbs(4, 0, 2));
    }

    /// A long chain of steps (the way the fused core runs it) against the Rust step,
    /// block by block, over pseudo-random messages.
    #[test]
    fn chains_match_the_rust_step() {
        let r = R64::from_key(&core::array::from_fn(|i| (i * 37 + 11) as u8));
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let data: Vec<u8> = (0..16 * 1000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let mut want = Acc::default();
        let mut got = Acc::default();
        for m in data.chunks_exact(16) {
            rust_step(&mut want, &r, m);
            // SAFETY: `m` is 16 readable bytes.
            unsafe { block(&mut got, &r, m.as_ptr()) };
            assert_eq!(got, want);
        }
        assert_ne!(got, Acc::default());
    }
}
