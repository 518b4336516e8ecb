//! The gauge's timed loops (`crate::limits`): each body of `limits::kernels` assembled
//! inside a counted loop, in a function compiled with the features its instructions need.
//! Inline assembly, so that the instruction mix is exactly the one written and counted.

use core::arch::asm;

use crate::limits::kernels::{
    limits_arx, limits_arx_avx2, limits_chacha20_ymm, limits_chacha20_zmm,
    limits_chacha20poly1305_ymm, limits_chacha20poly1305_zmm, limits_class, limits_clock,
    limits_ctr_ymm, limits_ctr_zmm, limits_gcm_ymm, limits_gcm_zmm, limits_poly1305_ifma,
    limits_xts_zmm,
};
use crate::limits::Loop;

/// A counted loop over `$body` in a function compiled with `$features`, clobbering the
/// registers listed (`zmm_loop!`: all 32 zmm; `ymm_loop!`: ymm0 to ymm15, for bodies that
/// run without AVX-512; the ymm ChaCha20-Poly1305 loop also the general registers of its
/// scalar step) and the flags.
macro_rules! timed_loop {
    ($name:ident, $features:literal, $body:expr, [$($reg:tt),*]) => {
        #[target_feature(enable = $features)]
        unsafe fn $name(iterations: u64, scratch: *mut u8) {
            // SAFETY: the caller checked the features; the body reads and writes only the
            // 2 KiB at `scratch` (the caller's, 64-byte aligned) and the registers declared
            // clobbered (and the flags, not declared preserved); the counter is at least 1.
            unsafe {
                asm!(
                    // Every body may use `{p}`; this names it for those that do not.
                    "/* scratch: {p} */",
                    // The loop starts on a 64-byte boundary, wherever the function lands:
                    // the fused ymm kernel measured 20% slower in one build than in the
                    // next when its loop straddled the boundary differently.
                    ".p2align 6",
                    "2:",
                    $body,
                    "dec {n}",
                    "jnz 2b",
                    n = inout(reg) iterations => _,
                    p = in(reg) scratch,
                    $(out($reg) _,)*
                    options(nostack),
                )
            }
        }
    };
}

macro_rules! zmm_loop {
    ($name:ident, $features:literal, $body:expr) => {
        timed_loop!(
            $name,
            $features,
            $body,
            [
                "zmm0", "zmm1", "zmm2", "zmm3", "zmm4", "zmm5", "zmm6", "zmm7", "zmm8", "zmm9",
                "zmm10", "zmm11", "zmm12", "zmm13", "zmm14", "zmm15", "zmm16", "zmm17", "zmm18",
                "zmm19", "zmm20", "zmm21", "zmm22", "zmm23", "zmm24", "zmm25", "zmm26", "zmm27",
                "zmm28", "zmm29", "zmm30", "zmm31"
            ]
        );
    };
}

macro_rules! ymm_loop {
    ($name:ident, $features:literal, $body:expr) => {
        timed_loop!(
            $name,
            $features,
            $body,
            [
                "ymm0", "ymm1", "ymm2", "ymm3", "ymm4", "ymm5", "ymm6", "ymm7", "ymm8", "ymm9",
                "ymm10", "ymm11", "ymm12", "ymm13", "ymm14", "ymm15"
            ]
        );
    };
}

zmm_loop!(clock_zmm, "avx512f", limits_clock!("zmm"));
zmm_loop!(aes_zmm, "avx512f,vaes", limits_class!("vaesenc", "zmm", ""));
ymm_loop!(aes_ymm, "avx2,vaes", limits_class!("vaesenc", "ymm", ""));
zmm_loop!(
    clmul_zmm,
    "avx512f,vpclmulqdq",
    limits_class!("vpclmulqdq", "zmm", ", 0x00")
);
ymm_loop!(
    clmul_ymm,
    "avx2,vpclmulqdq",
    limits_class!("vpclmulqdq", "ymm", ", 0x00")
);
zmm_loop!(arx_zmm, "avx512f", limits_arx!("zmm"));
zmm_loop!(arx_ymm, "avx512f,avx512vl", limits_arx!("ymm"));
zmm_loop!(
    shuffle_zmm,
    "avx512f",
    limits_class!("vpunpckldq", "zmm", "")
);
ymm_loop!(shuffle_ymm, "avx2", limits_class!("vpunpckldq", "ymm", ""));
zmm_loop!(
    ifma_zmm,
    "avx512f,avx512ifma",
    limits_class!("vpmadd52luq", "zmm", "")
);
zmm_loop!(ctr128_zmm, "avx512f,vaes", limits_ctr_zmm!(10));
zmm_loop!(
    xts256_zmm,
    "avx512f,avx512bw,vaes,vpclmulqdq",
    limits_xts_zmm!(6)
);
zmm_loop!(
    gcm128_zmm,
    "avx512f,avx512bw,vaes,vpclmulqdq",
    limits_gcm_zmm!(2)
);
zmm_loop!(
    gcm256_zmm,
    "avx512f,avx512bw,vaes,vpclmulqdq",
    limits_gcm_zmm!(6)
);
zmm_loop!(chacha20_zmm, "avx512f", limits_chacha20_zmm!());
zmm_loop!(poly1305_ifma, "avx512f,avx512ifma", limits_poly1305_ifma!());
zmm_loop!(
    chacha20poly1305_zmm,
    "avx512f,avx512ifma",
    limits_chacha20poly1305_zmm!()
);

ymm_loop!(clock_ymm, "avx2", limits_clock!("ymm"));
ymm_loop!(arx_avx2, "avx2", limits_arx_avx2!());
ymm_loop!(ctr128_ymm, "avx2,vaes", limits_ctr_ymm!(10));
ymm_loop!(gcm128_ymm, "avx2,vaes,vpclmulqdq", limits_gcm_ymm!(2));
ymm_loop!(gcm256_ymm, "avx2,vaes,vpclmulqdq", limits_gcm_ymm!(6));
ymm_loop!(chacha20_ymm, "avx2", limits_chacha20_ymm!());
// The scalar Poly1305 step's general registers too (`{p}` and the counter take two of
// the others).
timed_loop!(
    chacha20poly1305_ymm,
    "avx2",
    limits_chacha20poly1305_ymm!(),
    [
        "ymm0", "ymm1", "ymm2", "ymm3", "ymm4", "ymm5", "ymm6", "ymm7", "ymm8", "ymm9", "ymm10",
        "ymm11", "ymm12", "ymm13", "ymm14", "ymm15", "rax", "rcx", "rdx", "r8", "r9", "r10", "r11",
        "r12", "r13", "r14", "r15"
    ]
);

/// Whether this CPU runs `l`'s instructions.
pub(crate) fn supported(l: Loop) -> bool {
    use std::arch::is_x86_feature_detected as has;
    let zmm = has!("avx512f");
    match l {
        Loop::Clock | Loop::ArxZmm | Loop::ShuffleZmm | Loop::Chacha20Zmm => zmm,
        Loop::AesZmm | Loop::Ctr128Zmm => zmm && has!("vaes"),
        Loop::AesYmm => has!("avx2") && has!("vaes"),
        Loop::ClmulZmm => zmm && has!("vpclmulqdq"),
        Loop::ClmulYmm => has!("avx2") && has!("vpclmulqdq"),
        Loop::ArxYmm => zmm && has!("avx512vl"),
        Loop::ShuffleYmm => has!("avx2"),
        Loop::IfmaZmm | Loop::Poly1305Ifma | Loop::ChaCha20Poly1305Zmm => zmm && has!("avx512ifma"),
        // The tweak's byte shifts on zmm are AVX-512BW's.
        Loop::Xts256Zmm => zmm && has!("avx512bw") && has!("vaes") && has!("vpclmulqdq"),
        Loop::Gcm128Zmm | Loop::Gcm256Zmm => {
            zmm && has!("avx512bw") && has!("vaes") && has!("vpclmulqdq")
        }
        Loop::ClockYmm | Loop::ArxAvx2 | Loop::Chacha20Ymm | Loop::ChaCha20Poly1305Ymm => {
            has!("avx2")
        }
        Loop::Ctr128Ymm => has!("avx2") && has!("vaes"),
        Loop::Gcm128Ymm | Loop::Gcm256Ymm => has!("avx2") && has!("vaes") && has!("vpclmulqdq"),
    }
}

/// Runs `l` for `iterations` (at least 1) over `scratch` (2 KiB, 64-byte aligned);
/// `false` when this CPU lacks its features (nothing ran).
pub(crate) fn run(l: Loop, iterations: u64, scratch: &mut crate::limits::Scratch) -> bool {
    if !supported(l) || iterations == 0 {
        return false;
    }
    let f: unsafe fn(u64, *mut u8) = match l {
        Loop::Clock => clock_zmm,
        Loop::AesZmm => aes_zmm,
        Loop::AesYmm => aes_ymm,
        Loop::ClmulZmm => clmul_zmm,
        Loop::ClmulYmm => clmul_ymm,
        Loop::ArxZmm => arx_zmm,
        Loop::ArxYmm => arx_ymm,
        Loop::ShuffleZmm => shuffle_zmm,
        Loop::ShuffleYmm => shuffle_ymm,
        Loop::IfmaZmm => ifma_zmm,
        Loop::Ctr128Zmm => ctr128_zmm,
        Loop::Xts256Zmm => xts256_zmm,
        Loop::Gcm128Zmm => gcm128_zmm,
        Loop::Gcm256Zmm => gcm256_zmm,
        Loop::Chacha20Zmm => chacha20_zmm,
        Loop::Poly1305Ifma => poly1305_ifma,
        Loop::ChaCha20Poly1305Zmm => chacha20poly1305_zmm,
        Loop::ClockYmm => clock_ymm,
        Loop::ArxAvx2 => arx_avx2,
        Loop::Ctr128Ymm => ctr128_ymm,
        Loop::Gcm128Ymm => gcm128_ymm,
        Loop::Gcm256Ymm => gcm256_ymm,
        Loop::Chacha20Ymm => chacha20_ymm,
        Loop::ChaCha20Poly1305Ymm => chacha20poly1305_ymm,
    };
    // SAFETY: `supported` checked the loop's features; the scratch is 2 KiB, 64-byte
    // aligned (its type); `iterations >= 1`.
    unsafe { f(iterations, scratch.0.as_mut_ptr()) };
    true
}
