//! The loop bodies: Intel syntax, with `.rept` / `.irp` (which
//! [`expand`](crate::limits::expand) understands).
//! `{p}` is a pointer to 2 KiB of scratch memory, 64-byte aligned. Every body is a macro,
//! so that `x86::limits` can hand it to `asm!` as a literal and the tests can count it.

/// One ChaCha20 quarter round on registers `$a $b $c $d` of width `$w` (`zmm`, `ymm`).
macro_rules! quarter {
    ($w:literal, $a:literal, $b:literal, $c:literal, $d:literal) => {
        concat!(
            "vpaddd ", $w, $a, ", ", $w, $a, ", ", $w, $b, "\n", "vpxord ", $w, $d, ", ", $w, $d,
            ", ", $w, $a, "\n", "vprold ", $w, $d, ", ", $w, $d, ", 16\n", "vpaddd ", $w, $c, ", ",
            $w, $c, ", ", $w, $d, "\n", "vpxord ", $w, $b, ", ", $w, $b, ", ", $w, $c, "\n",
            "vprold ", $w, $b, ", ", $w, $b, ", 12\n", "vpaddd ", $w, $a, ", ", $w, $a, ", ", $w,
            $b, "\n", "vpxord ", $w, $d, ", ", $w, $d, ", ", $w, $a, "\n", "vprold ", $w, $d, ", ",
            $w, $d, ", 8\n", "vpaddd ", $w, $c, ", ", $w, $c, ", ", $w, $d, "\n", "vpxord ", $w,
            $b, ", ", $w, $b, ", ", $w, $c, "\n", "vprold ", $w, $b, ", ", $w, $b, ", 7\n",
        )
    };
}

/// The vertical ChaCha20 batch on zmm (16 blocks): state broadcast from `{p}`, the
/// counter, 10 double rounds, feed-forward, transpose, XOR with the input, stores.
macro_rules! limits_chacha20_zmm {
    () => {
        concat!(
            ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n",
            "vpbroadcastd zmm\\r, dword ptr [{p} + 4*\\r]\n",
            ".endr\n",
            "vpaddd zmm12, zmm12, zmm31\n",
            ".rept 10\n",
            $crate::limits::kernels::quarter!("zmm", 0, 4, 8, 12),
            $crate::limits::kernels::quarter!("zmm", 1, 5, 9, 13),
            $crate::limits::kernels::quarter!("zmm", 2, 6, 10, 14),
            $crate::limits::kernels::quarter!("zmm", 3, 7, 11, 15),
            $crate::limits::kernels::quarter!("zmm", 0, 5, 10, 15),
            $crate::limits::kernels::quarter!("zmm", 1, 6, 11, 12),
            $crate::limits::kernels::quarter!("zmm", 2, 7, 8, 13),
            $crate::limits::kernels::quarter!("zmm", 3, 4, 9, 14),
            ".endr\n",
            ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n",
            "vpaddd zmm\\r, zmm\\r, zmm30\n",
            ".endr\n",
            ".irp r,0,2,4,6,8,10,12,14\n",
            "vpunpckldq zmm16, zmm\\r, zmm30\n",
            "vpunpckhdq zmm17, zmm\\r, zmm30\n",
            "vpunpcklqdq zmm18, zmm\\r, zmm30\n",
            "vpunpckhqdq zmm19, zmm\\r, zmm30\n",
            "vshufi32x4 zmm20, zmm\\r, zmm30, 0x44\n",
            "vshufi32x4 zmm21, zmm\\r, zmm30, 0xee\n",
            "vshufi32x4 zmm22, zmm\\r, zmm30, 0x88\n",
            "vshufi32x4 zmm23, zmm\\r, zmm30, 0xdd\n",
            ".endr\n",
            ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n",
            "vpxord zmm\\r, zmm\\r, zmmword ptr [{p} + 64*\\r]\n",
            "vmovdqu64 zmmword ptr [{p} + 64*\\r + 1024], zmm\\r\n",
            ".endr\n",
        )
    };
}

/// One Poly1305 IFMA step on 8 lanes (128 bytes): limbs split, added, multiplied,
/// carried. Accumulator registers `zmm$h0..2`; scratch `zmm24..29`.
macro_rules! poly_ifma {
    ($h0:literal, $h1:literal, $h2:literal, $off:literal) => {
        concat!(
            "vmovdqu64 zmm24, zmmword ptr [{p} + ",
            $off,
            "]\n",
            "vpermt2q zmm24, zmm28, zmmword ptr [{p} + ",
            $off,
            " + 64]\n",
            "vpermt2q zmm25, zmm29, zmm24\n",
            "vpsrlq zmm26, zmm24, 44\n",
            "vpsrlq zmm27, zmm25, 24\n",
            "vpsllq zmm25, zmm25, 20\n",
            "vpandq zmm24, zmm24, zmm29\n",
            "vpandq zmm26, zmm26, zmm29\n",
            "vpandq zmm25, zmm25, zmm29\n",
            "vporq zmm27, zmm27, zmm28\n",
            "vpaddq zmm",
            $h0,
            ", zmm",
            $h0,
            ", zmm24\n",
            "vpaddq zmm",
            $h1,
            ", zmm",
            $h1,
            ", zmm26\n",
            "vpaddq zmm",
            $h2,
            ", zmm",
            $h2,
            ", zmm27\n",
            "vpmadd52luq zmm16, zmm",
            $h0,
            ", zmm30\n",
            "vpmadd52huq zmm17, zmm",
            $h0,
            ", zmm30\n",
            "vpmadd52luq zmm18, zmm",
            $h1,
            ", zmm31\n",
            "vpmadd52huq zmm19, zmm",
            $h1,
            ", zmm31\n",
            "vpmadd52luq zmm20, zmm",
            $h2,
            ", zmm30\n",
            "vpmadd52huq zmm21, zmm",
            $h2,
            ", zmm30\n",
            "vpmadd52luq zmm16, zmm",
            $h1,
            ", zmm30\n",
            "vpmadd52huq zmm17, zmm",
            $h1,
            ", zmm30\n",
            "vpmadd52luq zmm18, zmm",
            $h2,
            ", zmm31\n",
            "vpmadd52huq zmm19, zmm",
            $h2,
            ", zmm31\n",
            "vpmadd52luq zmm20, zmm",
            $h0,
            ", zmm31\n",
            "vpmadd52huq zmm21, zmm",
            $h0,
            ", zmm31\n",
            "vpmadd52luq zmm22, zmm",
            $h2,
            ", zmm30\n",
            "vpmadd52huq zmm23, zmm",
            $h2,
            ", zmm30\n",
            "vpmadd52luq zmm22, zmm",
            $h0,
            ", zmm31\n",
            "vpmadd52huq zmm23, zmm",
            $h1,
            ", zmm31\n",
            "vpmadd52luq zmm16, zmm",
            $h0,
            ", zmm31\n",
            "vpmadd52huq zmm17, zmm",
            $h2,
            ", zmm31\n",
            "vpsrlq zmm24, zmm16, 44\n",
            "vpsrlq zmm25, zmm18, 44\n",
            "vpsrlq zmm26, zmm20, 42\n",
            "vpandq zmm",
            $h0,
            ", zmm16, zmm29\n",
            "vpandq zmm",
            $h1,
            ", zmm18, zmm29\n",
            "vpandq zmm",
            $h2,
            ", zmm20, zmm29\n",
            "vpaddq zmm",
            $h1,
            ", zmm",
            $h1,
            ", zmm24\n",
            "vpaddq zmm",
            $h2,
            ", zmm",
            $h2,
            ", zmm25\n",
            "vpaddq zmm",
            $h0,
            ", zmm",
            $h0,
            ", zmm26\n",
            "vpsllq zmm26, zmm26, 2\n",
            "vpaddq zmm",
            $h0,
            ", zmm",
            $h0,
            ", zmm26\n",
        )
    };
}

/// Poly1305 on IFMA, two independent sums (as `poly1305-avx512ifma` runs them), 256
/// bytes per iteration.
macro_rules! limits_poly1305_ifma {
    () => {
        concat!(
            $crate::limits::kernels::poly_ifma!(0, 1, 2, 0),
            $crate::limits::kernels::poly_ifma!(3, 4, 5, 128)
        )
    };
}

/// ChaCha20-Poly1305 on zmm and IFMA: one ChaCha20 batch (1024 bytes) and the
/// Poly1305 of 1024 bytes (8 IFMA steps, alternating two sums).
macro_rules! limits_chacha20poly1305_zmm {
    () => {
        concat!(
            $crate::limits::kernels::limits_chacha20_zmm!(),
            ".rept 4\n",
            $crate::limits::kernels::poly_ifma!(0, 1, 2, 0),
            $crate::limits::kernels::poly_ifma!(3, 4, 5, 128),
            ".endr\n",
        )
    };
}

/// AES-CTR on zmm, `$rounds` VAESENC per block (10 for AES-128), 8 zmm (512 bytes).
macro_rules! limits_ctr_zmm {
    ($rounds:literal) => {
        concat!(
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vpaddd zmm\\r, zmm30, zmm31\n",
            ".endr\n",
            ".rept ",
            $rounds,
            "\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vaesenc zmm\\r, zmm\\r, zmm29\n",
            ".endr\n",
            ".endr\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vpxord zmm\\r, zmm\\r, zmmword ptr [{p} + 64*\\r]\n",
            "vmovdqu64 zmmword ptr [{p} + 64*\\r + 512], zmm\\r\n",
            ".endr\n",
        )
    };
}

/// AES-XTS on zmm, 8 + `$rest` VAESENC per block (`$rest` = 6 for AES-256), 8 zmm
/// (512 bytes); one zmm's next tweaks after each of the first 8 rounds, as the driver
/// interleaves them.
macro_rules! limits_xts_zmm {
    ($rest:literal) => {
        concat!(
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vpternlogd zmm\\r, zmm30, zmmword ptr [{p} + 64*\\r], 0x96\n",
            ".endr\n",
            ".irp t,8,9,10,11,12,13,14,15\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vaesenc zmm\\r, zmm\\r, zmm29\n",
            ".endr\n",
            "vpxord zmm16, zmm\\t, zmm28\n",
            "vpslldq zmm17, zmm\\t, 1\n",
            "vpsrldq zmm18, zmm\\t, 15\n",
            "vpclmulqdq zmm19, zmm18, zmm27, 0x00\n",
            "vpxord zmm\\t, zmm17, zmm19\n",
            ".endr\n",
            ".rept ",
            $rest,
            "\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vaesenc zmm\\r, zmm\\r, zmm29\n",
            ".endr\n",
            ".endr\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vmovdqu64 zmmword ptr [{p} + 64*\\r + 512], zmm\\r\n",
            ".endr\n",
        )
    };
}

/// AES-GCM on zmm: the CTR mix with 8 + `$rest` rounds (`$rest` = 2 for AES-128, 6
/// for AES-256), stitched with GHASH of the previous 8 zmm of ciphertext (`zmm8..15`)
/// as the driver stitches them: after each of the first 8 rounds, one zmm's byte swap,
/// four carry-less products and three ternary XORs; one reduction per iteration.
macro_rules! limits_gcm_zmm {
    ($rest:literal) => {
        concat!(
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vpaddd zmm\\r, zmm30, zmm31\n",
            ".endr\n",
            ".irp t,8,9,10,11,12,13,14,15\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vaesenc zmm\\r, zmm\\r, zmm29\n",
            ".endr\n",
            "vpshufb zmm\\t, zmm\\t, zmm28\n",
            "vpclmulqdq zmm16, zmm\\t, zmm27, 0x00\n",
            "vpclmulqdq zmm17, zmm\\t, zmm27, 0x11\n",
            "vpclmulqdq zmm18, zmm\\t, zmm27, 0x01\n",
            "vpclmulqdq zmm19, zmm\\t, zmm27, 0x10\n",
            "vpternlogd zmm20, zmm16, zmm19, 0x96\n",
            "vpternlogd zmm21, zmm17, zmm18, 0x96\n",
            "vpternlogd zmm22, zmm18, zmm19, 0x96\n",
            ".endr\n",
            ".rept ",
            $rest,
            "\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vaesenc zmm\\r, zmm\\r, zmm29\n",
            ".endr\n",
            ".endr\n",
            "vpclmulqdq zmm23, zmm20, zmm26, 0x01\n",
            "vpclmulqdq zmm24, zmm21, zmm26, 0x10\n",
            "vpclmulqdq zmm25, zmm22, zmm26, 0x01\n",
            "vpclmulqdq zmm16, zmm23, zmm26, 0x10\n",
            "vpternlogd zmm20, zmm23, zmm24, 0x96\n",
            "vpternlogd zmm21, zmm25, zmm16, 0x96\n",
            "vpternlogd zmm22, zmm20, zmm21, 0x96\n",
            "vpternlogd zmm23, zmm22, zmm24, 0x96\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vpxord zmm\\r, zmm\\r, zmmword ptr [{p} + 64*\\r]\n",
            "vmovdqu64 zmmword ptr [{p} + 64*\\r + 512], zmm\\r\n",
            ".endr\n",
        )
    };
}

/// One ChaCha20 quarter round on ymm registers `$a $b $c $d` without AVX-512 (VEX):
/// rotates by 16 and 8 as byte shuffles (masks at `{p} + 1536` / `+ 1568`), by 12 and 7
/// as two shifts and an OR through `ymm15`.
macro_rules! quarter_avx2 {
    ($a:literal, $b:literal, $c:literal, $d:literal) => {
        concat!(
            "vpaddd ymm",
            $a,
            ", ymm",
            $a,
            ", ymm",
            $b,
            "\n",
            "vpxor ymm",
            $d,
            ", ymm",
            $d,
            ", ymm",
            $a,
            "\n",
            "vpshufb ymm",
            $d,
            ", ymm",
            $d,
            ", ymmword ptr [{p} + 1536]\n",
            "vpaddd ymm",
            $c,
            ", ymm",
            $c,
            ", ymm",
            $d,
            "\n",
            "vpxor ymm",
            $b,
            ", ymm",
            $b,
            ", ymm",
            $c,
            "\n",
            "vpslld ymm15, ymm",
            $b,
            ", 12\n",
            "vpsrld ymm",
            $b,
            ", ymm",
            $b,
            ", 20\n",
            "vpor ymm",
            $b,
            ", ymm",
            $b,
            ", ymm15\n",
            "vpaddd ymm",
            $a,
            ", ymm",
            $a,
            ", ymm",
            $b,
            "\n",
            "vpxor ymm",
            $d,
            ", ymm",
            $d,
            ", ymm",
            $a,
            "\n",
            "vpshufb ymm",
            $d,
            ", ymm",
            $d,
            ", ymmword ptr [{p} + 1568]\n",
            "vpaddd ymm",
            $c,
            ", ymm",
            $c,
            ", ymm",
            $d,
            "\n",
            "vpxor ymm",
            $b,
            ", ymm",
            $b,
            ", ymm",
            $c,
            "\n",
            "vpslld ymm15, ymm",
            $b,
            ", 7\n",
            "vpsrld ymm",
            $b,
            ", ymm",
            $b,
            ", 25\n",
            "vpor ymm",
            $b,
            ", ymm",
            $b,
            ", ymm15\n",
        )
    };
}

/// One pair of state vectors' share of the ymm transpose: two dword unpacks, two
/// qword unpacks, two 128-bit lane permutes, through the free `ymm15` (renamed, so the
/// pairs are independent).
macro_rules! transpose_pair_avx2 {
    ($a:literal, $b:literal) => {
        concat!(
            "vpunpckldq ymm15, ymm",
            $a,
            ", ymm",
            $b,
            "\n",
            "vpunpckhdq ymm",
            $b,
            ", ymm",
            $a,
            ", ymm",
            $b,
            "\n",
            "vpunpcklqdq ymm",
            $a,
            ", ymm15, ymm",
            $b,
            "\n",
            "vpunpckhqdq ymm",
            $b,
            ", ymm15, ymm",
            $b,
            "\n",
            "vperm2i128 ymm15, ymm",
            $a,
            ", ymm",
            $b,
            ", 0x20\n",
            "vperm2i128 ymm",
            $b,
            ", ymm",
            $a,
            ", ymm",
            $b,
            ", 0x31\n",
        )
    };
}

/// One Poly1305 block in general registers, radix 2^64 (as the scalar step of
/// `rfc7539-chacha20-poly1305-avx2` runs beside the rounds): the message at `{p} +
/// $off` added to the sum `r8..r10` with the 2^128 bit; times `r` (`r11`, `r12`, with
/// `s1 = r1 + r1 / 4` in `r13`: the high products folded), four widening multiplies and
/// two 64-bit ones for the small top limb; the bits from 2^130 up folded back times 5.
macro_rules! poly_scalar {
    ($off:literal) => {
        concat!(
            "add r8, qword ptr [{p} + ",
            $off,
            "]\n",
            "adc r9, qword ptr [{p} + ",
            $off,
            " + 8]\n",
            "adc r10, 1\n",
            "mov rax, r8\n",
            "mul r11\n",
            "mov r14, rax\n",
            "mov r15, rdx\n",
            "mov rax, r9\n",
            "mul r13\n",
            "add r14, rax\n",
            "adc r15, rdx\n",
            "mov rax, r8\n",
            "mul r12\n",
            "mov rcx, rax\n",
            "mov r8, rdx\n",
            "mov rax, r9\n",
            "mul r11\n",
            "add rcx, rax\n",
            "adc r8, rdx\n",
            "mov rax, r10\n",
            "imul rax, r13\n",
            "add rcx, rax\n",
            "adc r8, 0\n",
            "imul r10, r11\n",
            "add r15, rcx\n",
            "adc r8, r10\n",
            "mov r10, r8\n",
            "and r10, 3\n",
            "mov rax, r8\n",
            "and rax, -4\n",
            "shr r8, 2\n",
            "add rax, r8\n",
            "add r14, rax\n",
            "adc r15, 0\n",
            "adc r10, 0\n",
            "mov r8, r14\n",
            "mov r9, r15\n",
        )
    };
}

/// One double round of [`limits_chacha20_ymm`] (the spilled vector's trips included),
/// with `$s0` to `$s3` after its quarter rounds 0, 2, 4 and 6 (a bare one for `""`).
macro_rules! double_round_avx2 {
    ("") => {
        $crate::limits::kernels::double_round_avx2!(["", "", "", ""])
    };
    ([$s0:expr, $s1:expr, $s2:expr, $s3:expr $(,)?]) => {
        concat!(
            $crate::limits::kernels::quarter_avx2!(0, 4, 8, 12),
            $s0,
            $crate::limits::kernels::quarter_avx2!(1, 5, 9, 13),
            $crate::limits::kernels::quarter_avx2!(2, 6, 10, 14),
            $s1,
            "vmovdqu ymmword ptr [{p} + 1664], ymm14\n",
            "vmovdqu ymm14, ymmword ptr [{p} + 1696]\n",
            $crate::limits::kernels::quarter_avx2!(3, 7, 11, 14),
            $crate::limits::kernels::quarter_avx2!(0, 5, 10, 14),
            $s2,
            "vmovdqu ymmword ptr [{p} + 1696], ymm14\n",
            "vmovdqu ymm14, ymmword ptr [{p} + 1664]\n",
            $crate::limits::kernels::quarter_avx2!(1, 6, 11, 12),
            $crate::limits::kernels::quarter_avx2!(2, 7, 8, 13),
            $s3,
            $crate::limits::kernels::quarter_avx2!(3, 4, 9, 14),
        )
    };
}

/// The last pair's share of the ymm transpose ([`transpose_pair_avx2`]): word 14 in
/// `ymm14` and word 15 in its slot at `{p} + 1696`, read as a memory operand by the two
/// instructions that take it; `ymm15` and `ymm13` (whose pair is done) are the
/// temporaries (only the mix counts, not the values).
macro_rules! transpose_last_pair_avx2 {
    () => {
        concat!(
            "vpunpckldq ymm15, ymm14, ymmword ptr [{p} + 1696]\n",
            "vpunpckhdq ymm13, ymm14, ymmword ptr [{p} + 1696]\n",
            "vpunpcklqdq ymm14, ymm15, ymm13\n",
            "vpunpckhqdq ymm13, ymm15, ymm13\n",
            "vperm2i128 ymm15, ymm14, ymm13, 0x20\n",
            "vperm2i128 ymm13, ymm14, ymm13, 0x31\n",
        )
    };
}

/// The vertical ChaCha20 batch on ymm without AVX-512 (8 blocks, 512 bytes): sixteen
/// state vectors and a temporary need seventeen of the sixteen registers, so one state
/// vector lives in memory at a time, as in every AVX2 ChaCha20 (word 15 in the column
/// round's first three quarter rounds and the diagonal round's last three, word 14 in
/// between): two stores and two loads a double round. The state broadcast from
/// `{p} + 1600`, the counters, 10 double rounds, the feed-forward (splatted state at
/// `{p} + 1024`), the transpose, XOR with the input at `{p}`, stores at `{p} + 512`.
macro_rules! limits_chacha20_ymm {
    () => {
        $crate::limits::kernels::limits_chacha20_ymm!(".rept 2\n", "", "", "", "", "")
    };
    // `$rounds` opens a repeat of the double rounds: each double round (five in a row)
    // with one of `$w0` to `$w4` hung after its quarter rounds.
    ($rounds:literal, $w0:tt, $w1:tt, $w2:tt, $w3:tt, $w4:tt) => {
        concat!(
            ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n",
            "vpbroadcastd ymm\\r, dword ptr [{p} + 1600 + 4*\\r]\n",
            ".endr\n",
            "vmovdqu ymmword ptr [{p} + 1696], ymm15\n",
            "vpaddd ymm12, ymm12, ymmword ptr [{p} + 1728]\n",
            $rounds,
            $crate::limits::kernels::double_round_avx2!($w0),
            $crate::limits::kernels::double_round_avx2!($w1),
            $crate::limits::kernels::double_round_avx2!($w2),
            $crate::limits::kernels::double_round_avx2!($w3),
            $crate::limits::kernels::double_round_avx2!($w4),
            ".endr\n",
            ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14\n",
            "vpaddd ymm\\r, ymm\\r, ymmword ptr [{p} + 1024 + 32*\\r]\n",
            ".endr\n",
            "vmovdqu ymm15, ymmword ptr [{p} + 1696]\n",
            "vpaddd ymm15, ymm15, ymmword ptr [{p} + 1504]\n",
            "vmovdqu ymmword ptr [{p} + 1696], ymm15\n",
            $crate::limits::kernels::transpose_pair_avx2!(0, 1),
            $crate::limits::kernels::transpose_pair_avx2!(2, 3),
            $crate::limits::kernels::transpose_pair_avx2!(4, 5),
            $crate::limits::kernels::transpose_pair_avx2!(6, 7),
            $crate::limits::kernels::transpose_pair_avx2!(8, 9),
            $crate::limits::kernels::transpose_pair_avx2!(10, 11),
            $crate::limits::kernels::transpose_pair_avx2!(12, 13),
            $crate::limits::kernels::transpose_last_pair_avx2!(),
            "vmovdqu ymm15, ymmword ptr [{p} + 1696]\n",
            ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n",
            "vpxor ymm\\r, ymm\\r, ymmword ptr [{p} + 32*\\r]\n",
            "vmovdqu ymmword ptr [{p} + 32*\\r + 512], ymm\\r\n",
            ".endr\n",
        )
    };
}

/// ChaCha20-Poly1305 on ymm without AVX-512: the ChaCha20 batch
/// ([`limits_chacha20_ymm`], 512 bytes) with the Poly1305 of 512 bytes of ciphertext in
/// general registers ([`poly_scalar`]) beside it, as `rfc7539-chacha20-poly1305-avx2`
/// (and BoringSSL's AVX2 seal) runs it: the scalar chain, one dependent multiply after
/// another, on the integer ports while the rounds keep the vector ones busy. Four
/// blocks in a double round, after its quarter rounds 0, 2, 4 and 6, in eight of the
/// ten (the driver runs its eight busy ones first; here each run of five ends with a
/// bare one, so that the two-run repeat covers it). Spreading the 32 blocks over all
/// forty slots (every fifth empty) read 515 to 634 cycles per 512 bytes on Zen 3
/// depending on the code's placement, four per double round 571-576 in every build
/// (minimum of 1000 runs each; ChaCha20 alone 507).
macro_rules! limits_chacha20poly1305_ymm {
    () => {
        $crate::limits::kernels::limits_chacha20_ymm!(
            ".rept 2\n",
            [
                $crate::limits::kernels::poly_scalar!("512"),
                $crate::limits::kernels::poly_scalar!("528"),
                $crate::limits::kernels::poly_scalar!("544"),
                $crate::limits::kernels::poly_scalar!("560"),
            ],
            [
                $crate::limits::kernels::poly_scalar!("576"),
                $crate::limits::kernels::poly_scalar!("592"),
                $crate::limits::kernels::poly_scalar!("608"),
                $crate::limits::kernels::poly_scalar!("624"),
            ],
            [
                $crate::limits::kernels::poly_scalar!("640"),
                $crate::limits::kernels::poly_scalar!("656"),
                $crate::limits::kernels::poly_scalar!("672"),
                $crate::limits::kernels::poly_scalar!("688"),
            ],
            [
                $crate::limits::kernels::poly_scalar!("704"),
                $crate::limits::kernels::poly_scalar!("720"),
                $crate::limits::kernels::poly_scalar!("736"),
                $crate::limits::kernels::poly_scalar!("752"),
            ],
            ""
        )
    };
}

/// AES-CTR on ymm without AVX-512, `$rounds` VAESENC per block, 8 ymm (256 bytes):
/// the zmm mix ([`limits_ctr_zmm`]) at half the width.
macro_rules! limits_ctr_ymm {
    ($rounds:literal) => {
        concat!(
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vpaddd ymm\\r, ymm14, ymm15\n",
            ".endr\n",
            ".rept ",
            $rounds,
            "\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vaesenc ymm\\r, ymm\\r, ymm13\n",
            ".endr\n",
            ".endr\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vpxor ymm\\r, ymm\\r, ymmword ptr [{p} + 32*\\r]\n",
            "vmovdqu ymmword ptr [{p} + 32*\\r + 256], ymm\\r\n",
            ".endr\n",
        )
    };
}

/// One ymm of GHASH, Karatsuba-style, on ymm without AVX-512 (as `gcm-aes-vaes-avx2`
/// multiplies on AMD, and BoringSSL's AVX2 code everywhere): the ciphertext vector `$t`
/// loaded from `{p} + 512` and byte-swapped (the mask at `{p} + 1568`), the power from
/// `{p} + 768` loaded into `ymm9` for its low and high products, the product of the
/// vector's XORed halves with the power's (precomputed, at `{p} + 1024`), each XORed
/// into its sum (`ymm10..12`). Both products from a memory operand each instead of one
/// load measured slower on Zen 3 (89 against 83 cycles per 256 bytes of AES-128-GCM,
/// the minimum of 1000 runs each).
macro_rules! ghash_kara_ymm {
    ($t:literal) => {
        concat!(
            "vmovdqu ymm13, ymmword ptr [{p} + 512 + 32*",
            $t,
            "]\n",
            "vpshufb ymm13, ymm13, ymmword ptr [{p} + 1568]\n",
            "vmovdqu ymm9, ymmword ptr [{p} + 768 + 32*",
            $t,
            "]\n",
            "vpclmulqdq ymm14, ymm13, ymm9, 0x00\n",
            "vpxor ymm10, ymm10, ymm14\n",
            "vpclmulqdq ymm14, ymm13, ymm9, 0x11\n",
            "vpxor ymm12, ymm12, ymm14\n",
            "vpshufd ymm15, ymm13, 0x4e\n",
            "vpxor ymm15, ymm15, ymm13\n",
            "vpclmulqdq ymm14, ymm15, ymmword ptr [{p} + 1024 + 32*",
            $t,
            "], 0x00\n",
            "vpxor ymm11, ymm11, ymm14\n",
        )
    };
}

/// AES-GCM on ymm without AVX-512 (`gcm-aes-vaes-avx2`'s group of 16 blocks, 256
/// bytes): the CTR mix with 8 + `$rest` rounds (the counters from a base and steps at
/// `{p} + 1280`), stitched with GHASH of the previous group's 8 ymm of ciphertext:
/// after each of the first 8 rounds one vector ([`ghash_kara_ymm`]; the first one
/// XORs in the running hash, `ymm14`, and its products start the sums); then one
/// reduction (the Karatsuba middle sum corrected, the low half folded into the middle
/// and the middle into the high with one VPCLMULQDQ each by the constant at `{p} +
/// 1536`) and the two lanes' sums XORed together into the running hash.
macro_rules! limits_gcm_ymm {
    ($rest:literal) => {
        concat!(
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vpaddd ymm\\r, ymm13, ymmword ptr [{p} + 1280 + 32*\\r]\n",
            ".endr\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vaesenc ymm\\r, ymm\\r, ymm8\n",
            ".endr\n",
            "vmovdqu ymm13, ymmword ptr [{p} + 512]\n",
            "vpshufb ymm13, ymm13, ymmword ptr [{p} + 1568]\n",
            "vpxor ymm13, ymm13, ymm14\n",
            "vmovdqu ymm9, ymmword ptr [{p} + 768]\n",
            "vpclmulqdq ymm10, ymm13, ymm9, 0x00\n",
            "vpclmulqdq ymm12, ymm13, ymm9, 0x11\n",
            "vpshufd ymm15, ymm13, 0x4e\n",
            "vpxor ymm15, ymm15, ymm13\n",
            "vpclmulqdq ymm11, ymm15, ymmword ptr [{p} + 1024], 0x00\n",
            ".irp t,1,2,3,4,5,6,7\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vaesenc ymm\\r, ymm\\r, ymm8\n",
            ".endr\n",
            $crate::limits::kernels::ghash_kara_ymm!("\\t"),
            ".endr\n",
            ".rept ",
            $rest,
            "\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vaesenc ymm\\r, ymm\\r, ymm8\n",
            ".endr\n",
            ".endr\n",
            "vpxor ymm14, ymm10, ymm12\n",
            "vpxor ymm11, ymm11, ymm14\n",
            "vpclmulqdq ymm14, ymm10, ymmword ptr [{p} + 1536], 0x10\n",
            "vpshufd ymm10, ymm10, 0x4e\n",
            "vpxor ymm11, ymm11, ymm10\n",
            "vpxor ymm11, ymm11, ymm14\n",
            "vpclmulqdq ymm14, ymm11, ymmword ptr [{p} + 1536], 0x10\n",
            "vpshufd ymm11, ymm11, 0x4e\n",
            "vpxor ymm12, ymm12, ymm11\n",
            "vpxor ymm12, ymm12, ymm14\n",
            "vextracti128 xmm14, ymm12, 1\n",
            "vpxor xmm14, xmm14, xmm12\n",
            ".irp r,0,1,2,3,4,5,6,7\n",
            "vpxor ymm\\r, ymm\\r, ymmword ptr [{p} + 32*\\r]\n",
            "vmovdqu ymmword ptr [{p} + 32*\\r + 256], ymm\\r\n",
            ".endr\n",
        )
    };
}

/// The ChaCha20 ALU mix on ymm without AVX-512 (add, XOR, and a rotate as two shifts
/// and an OR through `ymm12` / `ymm13`) on ten independent chains.
macro_rules! limits_arx_avx2 {
    () => {
        concat!(
            ".irp r,0,1,2,3,4,5,6,7,8,9\n",
            "vpaddd ymm\\r, ymm\\r, ymm15\n",
            "vpxor ymm\\r, ymm\\r, ymm14\n",
            "vpslld ymm12, ymm\\r, 7\n",
            "vpsrld ymm\\r, ymm\\r, 25\n",
            "vpor ymm\\r, ymm\\r, ymm12\n",
            ".endr\n",
        )
    };
}

/// One instruction on twelve independent chains: `$op` is the mnemonic with its width,
/// e.g. `("vaesenc", "zmm")`; `$extra` the trailing operand text (an immediate).
macro_rules! limits_class {
    ($op:literal, $w:literal, $extra:literal) => {
        concat!(
            ".irp r,0,1,2,3,4,5,6,7,8,9,10,11\n",
            $op,
            " ",
            $w,
            "\\r, ",
            $w,
            "\\r, ",
            $w,
            "15",
            $extra,
            "\n",
            ".endr\n",
        )
    };
}

/// The ChaCha20 ALU mix (add, XOR, rotate, in the rounds' proportion) on twelve
/// independent chains.
macro_rules! limits_arx {
    ($w:literal) => {
        concat!(
            ".irp r,0,1,2,3,4,5,6,7,8,9,10,11\n",
            "vpaddd ",
            $w,
            "\\r, ",
            $w,
            "\\r, ",
            $w,
            "15\n",
            "vpxord ",
            $w,
            "\\r, ",
            $w,
            "\\r, ",
            $w,
            "14\n",
            "vprold ",
            $w,
            "\\r, ",
            $w,
            "\\r, 7\n",
            ".endr\n",
        )
    };
}

/// The clock: a dependent chain of `vpaddd` on `$w` registers (one cycle each).
macro_rules! limits_clock {
    ($w:literal) => {
        concat!(
            ".rept 64\n",
            "vpaddd ",
            $w,
            "0, ",
            $w,
            "0, ",
            $w,
            "15\n",
            ".endr\n",
        )
    };
}

// The x86 loops (`x86::limits`) import these by path; elsewhere only the texts
// below use them.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_imports))]
pub(crate) use {
    double_round_avx2, ghash_kara_ymm, limits_arx, limits_arx_avx2, limits_chacha20_ymm,
    limits_chacha20_zmm, limits_chacha20poly1305_ymm, limits_chacha20poly1305_zmm, limits_class,
    limits_clock, limits_ctr_ymm, limits_ctr_zmm, limits_gcm_ymm, limits_gcm_zmm,
    limits_poly1305_ifma, limits_xts_zmm, poly_ifma, poly_scalar, quarter, quarter_avx2,
    transpose_last_pair_avx2, transpose_pair_avx2,
};

/// The bodies as text, for counting (the same macros `x86::limits` assembles).
pub const CHACHA20_ZMM: &str = limits_chacha20_zmm!();
/// Poly1305 on IFMA, two sums (`limits_poly1305_ifma!`).
pub const POLY1305_IFMA: &str = limits_poly1305_ifma!();
/// ChaCha20-Poly1305 (`limits_chacha20poly1305_zmm!`).
pub const CHACHA20POLY1305_ZMM: &str = limits_chacha20poly1305_zmm!();
/// AES-128-CTR.
pub const CTR128_ZMM: &str = limits_ctr_zmm!(10);
/// AES-256-XTS.
pub const XTS256_ZMM: &str = limits_xts_zmm!(6);
/// AES-128-GCM.
pub const GCM128_ZMM: &str = limits_gcm_zmm!(2);
/// AES-256-GCM.
pub const GCM256_ZMM: &str = limits_gcm_zmm!(6);
/// ChaCha20 on ymm without AVX-512 (`limits_chacha20_ymm!`).
pub const CHACHA20_YMM: &str = limits_chacha20_ymm!();
/// ChaCha20-Poly1305 on ymm with the scalar Poly1305 step
/// (`limits_chacha20poly1305_ymm!`).
pub const CHACHA20POLY1305_YMM: &str = limits_chacha20poly1305_ymm!();
/// AES-128-CTR on ymm.
pub const CTR128_YMM: &str = limits_ctr_ymm!(10);
/// AES-128-GCM on ymm.
pub const GCM128_YMM: &str = limits_gcm_ymm!(2);
/// AES-256-GCM on ymm.
pub const GCM256_YMM: &str = limits_gcm_ymm!(6);
