//! The gauge's timed loops (`crate::limits`): each body of `limits::kernels` assembled
//! inside a counted loop, in a function compiled with the features its instructions need.
//! Inline assembly, so that the instruction mix is exactly the one written and counted.

use core::arch::asm;

use crate::limits::kernels::{
    limits_arx, limits_chacha20_zmm, limits_chacha20poly1305_zmm, limits_class, limits_clock,
    limits_ctr_zmm, limits_gcm_zmm, limits_poly1305_ifma, limits_xts_zmm,
};
use crate::limits::Loop;

/// A loop over an AVX-512 body: every zmm register is clobbered.
macro_rules! zmm_loop {
    ($name:ident, $features:literal, $body:expr) => {
        #[target_feature(enable = $features)]
        unsafe fn $name(iterations: u64, scratch: *mut u8) {
            // SAFETY: the caller checked the features; the body reads and writes only the
            // 2 KiB at `scratch` (the caller's, 64-byte aligned) and vector registers it
            // declares clobbered; the counter is at least 1.
            unsafe {
                asm!(
                    // Every body may use `{p}`; this names it for those that do not.
                    "/* scratch: {p} */",
                    "2:",
                    $body,
                    "dec {n}",
                    "jnz 2b",
                    n = inout(reg) iterations => _,
                    p = in(reg) scratch,
                    out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
                    out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
                    out("zmm8") _, out("zmm9") _, out("zmm10") _, out("zmm11") _,
                    out("zmm12") _, out("zmm13") _, out("zmm14") _, out("zmm15") _,
                    out("zmm16") _, out("zmm17") _, out("zmm18") _, out("zmm19") _,
                    out("zmm20") _, out("zmm21") _, out("zmm22") _, out("zmm23") _,
                    out("zmm24") _, out("zmm25") _, out("zmm26") _, out("zmm27") _,
                    out("zmm28") _, out("zmm29") _, out("zmm30") _, out("zmm31") _,
                    options(nostack),
                )
            }
        }
    };
}

/// A loop over a VEX ymm body (registers 0 to 15 only: it runs without AVX-512).
macro_rules! ymm_loop {
    ($name:ident, $features:literal, $body:expr) => {
        #[target_feature(enable = $features)]
        unsafe fn $name(iterations: u64, scratch: *mut u8) {
            // SAFETY: as `zmm_loop`'s, with the 16 ymm registers.
            unsafe {
                asm!(
                    // Every body may use `{p}`; this names it for those that do not.
                    "/* scratch: {p} */",
                    "2:",
                    $body,
                    "dec {n}",
                    "jnz 2b",
                    n = inout(reg) iterations => _,
                    p = in(reg) scratch,
                    out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
                    out("ymm4") _, out("ymm5") _, out("ymm6") _, out("ymm7") _,
                    out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
                    out("ymm12") _, out("ymm13") _, out("ymm14") _, out("ymm15") _,
                    options(nostack),
                )
            }
        }
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
zmm_loop!(xts256_zmm, "avx512f,vaes,vpclmulqdq", limits_xts_zmm!(6));
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
        Loop::Xts256Zmm => zmm && has!("vaes") && has!("vpclmulqdq"),
        Loop::Gcm128Zmm | Loop::Gcm256Zmm => {
            zmm && has!("avx512bw") && has!("vaes") && has!("vpclmulqdq")
        }
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
    };
    // SAFETY: `supported` checked the loop's features; the scratch is 2 KiB, 64-byte
    // aligned (its type); `iterations >= 1`.
    unsafe { f(iterations, scratch.0.as_mut_ptr()) };
    true
}
