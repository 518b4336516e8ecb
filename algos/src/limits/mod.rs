//! The gauge of the limit (`cargo xtask limits`): how fast this host's vector units let
//! each family's best driver go, so that a driver's speed reads as a fraction of what the
//! hardware allows rather than only against peers.
//!
//! Two kinds of loop are timed (`x86::limits` runs them; they are x86-64 inline assembly,
//! the only kind whose instruction mix is exactly what is written):
//!
//! * **Classes**: one instruction on ten or more independent chains (so that latency never
//!   limits it and nothing spills), giving its throughput in instructions per second:
//!   VAESENC and VPCLMULQDQ on ymm and zmm, the 32-bit add / xor / rotate mix of ChaCha20
//!   and the unpack shuffles of its transposes on ymm and zmm, VPMADD52LUQ on zmm; and
//!   one dependent chain of `vpaddd` (latency one cycle) for the clock under vector load.
//! * **Kernels**: the minimal instruction mix of a family's inner loop, written out
//!   ([`kernels`]), with independent chains where the real kernel has independent data.
//!   Every instruction of the mix is counted: rounds, feed-forward, transposes, counters,
//!   loads and stores, the GHASH multiplies and reduction, the Poly1305 limb splits and
//!   carries. Timing the mix itself spreads it over the ports the way this core does
//!   (VAESENC and VPCLMULQDQ share ports on ymm; zmm ALU work has two ports where ymm has
//!   three), so no port model has to be guessed: the bound is the mix's bytes per second.
//!
//! Derivation of each mix, per iteration (the unit tests count the instructions in the
//! assembly text against these figures):
//!
//! * **CTR, AES-128, zmm** (512 bytes = 8 zmm of 4 blocks): 8 x 10 VAESENC (9 rounds and
//!   the last; the whitening XOR is folded into the counter block's creation), 8 counter
//!   `vpaddd`, 8 loads XORed into the keystream (`vpxord` with a memory operand), 8 stores.
//! * **XTS, AES-256, zmm** (512 bytes): 8 x 14 VAESENC; per zmm the pre-whitening as one
//!   ternary XOR of the loaded data, the tweak and round key 0, the last round's key XORed
//!   with the tweak (the post-whitening folded into VAESENCLAST), the next tweaks (each
//!   lane times a power of x of whole bytes: two byte shifts, one VPCLMULQDQ reducing the
//!   bytes shifted out, one XOR) and the store.
//! * **GCM, AES-128 / AES-256, zmm** (512 bytes): the CTR mix with 10 / 14 rounds, and
//!   GHASH of 8 zmm of ciphertext: per zmm a byte swap (`vpshufb`), four VPCLMULQDQ
//!   (low, high and both middle products) and three ternary XORs accumulating them; per
//!   iteration one reduction, four VPCLMULQDQ and four ternary XORs.
//! * **ChaCha20, zmm** (1024 bytes = 16 blocks, one per 32-bit lane): 10 double rounds of
//!   8 quarter rounds of 12 operations (4 adds, 4 XORs, 4 rotates) = 960, the state
//!   broadcast (16 loads), the counter (1 add), the feed-forward (16 adds), the transpose
//!   of 16 x 16 words (64 shuffles: per pair of state vectors, four unpacks and four
//!   128-bit lane shuffles), 16 loads XORed and 16 stores.
//! * **Poly1305, IFMA, zmm** (128 bytes = 8 blocks, one per 64-bit lane): the message as
//!   two loads, split into three 44-bit limbs (2 two-source permutes, 3 shifts, 3 ands, 1
//!   OR of the 2^128 bit), added to the sum (3 adds), multiplied by `r` with the 5-folded
//!   high limbs (9 products, low and high halves: 18 VPMADD52), the carries (3 shifts, 3
//!   ands, 3 adds, and the top carry times 5: 2 more).
//! * **ChaCha20-Poly1305, zmm + IFMA** (1024 bytes): the ChaCha20 mix and 8 Poly1305
//!   mixes, as the fused driver stitches them.
//!
//! The ratio of a driver's speed to its bound should stay at or below 1.00; above that
//! ([`Ratio::suspect`]) the measurement is wrong (frequency changed between the two, or
//! the mix misses an instruction the driver avoids), and the command flags it.

#[cfg(test)]
mod tests;

/// What an instruction is counted as (by its mnemonic, see [`classify`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// `vaesenc`, `vaesenclast`.
    Aes,
    /// `vpclmulqdq`.
    Clmul,
    /// `vpmadd52luq`, `vpmadd52huq`.
    Ifma,
    /// Integer vector work on the ALU ports: add, XOR, rotate, shift, and, ternary logic.
    Alu,
    /// Lane shuffles: unpacks, byte shuffles, permutes.
    Shuffle,
    /// A memory read (a broadcast, or an operation with a memory operand: it counts as a
    /// load and as its operation).
    Load,
    /// A memory write.
    Store,
}

/// The classes of one line of Intel-syntax assembly (none for a label or directive).
pub fn classify(line: &str) -> Vec<Class> {
    let line = line.trim();
    let Some(mnemonic) = line.split_whitespace().next() else {
        return Vec::new();
    };
    let operands = line[mnemonic.len()..].trim();
    let memory = operands.contains('[');
    if mnemonic == "vmovdqu64" {
        // A store names memory first; a load second.
        let first = operands.split(',').next().unwrap_or("");
        return match (memory, first.contains('[')) {
            (false, _) => Vec::new(),
            (true, true) => vec![Class::Store],
            (true, false) => vec![Class::Load],
        };
    }
    let op = match mnemonic {
        "vaesenc" | "vaesenclast" => Class::Aes,
        "vpclmulqdq" => Class::Clmul,
        "vpmadd52luq" | "vpmadd52huq" => Class::Ifma,
        "vpaddd" | "vpaddq" | "vpxord" | "vpxorq" | "vpxor" | "vprold" | "vpsrlq" | "vpsllq"
        | "vpandq" | "vporq" | "vpternlogd" | "vpternlogq" => Class::Alu,
        "vpunpckldq" | "vpunpckhdq" | "vpunpcklqdq" | "vpunpckhqdq" | "vpshufb" | "vpermt2q"
        | "vshufi32x4" | "vpslldq" | "vpsrldq" => Class::Shuffle,
        "vpbroadcastd" => return vec![Class::Load],
        _ => return Vec::new(),
    };
    if memory {
        vec![op, Class::Load]
    } else {
        vec![op]
    }
}

/// Expands the `.rept N` / `.irp r,a,b,...` / `.endr` directives of a loop body the way
/// the assembler does (`\r` substituted), for counting.
pub fn expand(body: &str) -> Vec<String> {
    fn block<'a>(lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(line) = lines.next() {
            let t = line.trim();
            if t == ".endr" {
                return out;
            } else if let Some(n) = t.strip_prefix(".rept ") {
                let inner = block(lines);
                // A count that is not a number repeats nothing (the assembler would
                // refuse it; the bodies here are all well formed, which the tests check).
                let n: usize = n.trim().parse().unwrap_or(0);
                for _ in 0..n {
                    out.extend(inner.iter().cloned());
                }
            } else if let Some(spec) = t.strip_prefix(".irp ") {
                let mut parts = spec.split(',');
                let name = format!("\\{}", parts.next().unwrap_or_default().trim());
                let values: Vec<&str> = parts.map(str::trim).collect();
                let inner = block(lines);
                for v in values {
                    out.extend(inner.iter().map(|l| l.replace(&name, v)));
                }
            } else if !t.is_empty() {
                out.push(t.to_string());
            }
        }
        out
    }
    block(&mut body.lines().peekable())
}

/// How many instructions of each class a body executes per iteration.
pub fn count(body: &str) -> std::collections::BTreeMap<Class, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for line in expand(body) {
        for c in classify(&line) {
            *counts.entry(c).or_insert(0) += 1;
        }
    }
    counts
}

/// One timed loop's figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// Iterations run.
    pub iterations: u64,
    /// Wall time, in seconds.
    pub seconds: f64,
}

impl Timing {
    /// Units per second, for `per_iteration` units (instructions, bytes) per iteration.
    pub fn rate(&self, per_iteration: f64) -> f64 {
        if self.seconds <= 0.0 {
            return 0.0;
        }
        self.iterations as f64 * per_iteration / self.seconds
    }
}

/// Cycles per byte at `hz` for `bytes_per_second`.
pub fn cycles_per_byte(hz: f64, bytes_per_second: f64) -> f64 {
    if bytes_per_second <= 0.0 {
        return f64::INFINITY;
    }
    hz / bytes_per_second
}

/// A driver's speed against its bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio(pub f64);

impl Ratio {
    /// `driver / bound` (0 when the bound is unknown).
    pub fn of(driver: f64, bound: f64) -> Ratio {
        Ratio(if bound > 0.0 { driver / bound } else { 0.0 })
    }

    /// Above 1.00 (two decimals): faster than the hardware allows, so the measurement is
    /// wrong.
    pub fn suspect(self) -> bool {
        self.0 >= 1.005
    }
}

/// The bound on bytes per second of an `ops`-instruction-per-`bytes` kernel of a single
/// class running at `per_second` instructions per second (the AES ceiling: VAESENC alone).
pub fn ceiling(per_second: f64, ops: f64, bytes: f64) -> f64 {
    if ops <= 0.0 {
        return 0.0;
    }
    per_second * bytes / ops
}

/// The median of `v` (sorted in place); 0 for none.
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The gauge's timed loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Loop {
    /// A dependent chain of `vpaddd` on zmm: the clock under vector load.
    Clock,
    /// VAESENC on zmm.
    AesZmm,
    /// VAESENC on ymm.
    AesYmm,
    /// VPCLMULQDQ on zmm.
    ClmulZmm,
    /// VPCLMULQDQ on ymm.
    ClmulYmm,
    /// ChaCha20's add / XOR / rotate on zmm.
    ArxZmm,
    /// ChaCha20's add / XOR / rotate on ymm (EVEX: the rotate is AVX-512VL's).
    ArxYmm,
    /// The unpack shuffle of ChaCha20's transposes on zmm.
    ShuffleZmm,
    /// The same on ymm.
    ShuffleYmm,
    /// VPMADD52LUQ on zmm.
    IfmaZmm,
    /// The AES-128-CTR kernel on zmm (512 bytes per iteration).
    Ctr128Zmm,
    /// The AES-256-XTS kernel on zmm (512 bytes).
    Xts256Zmm,
    /// The AES-128-GCM kernel on zmm (512 bytes).
    Gcm128Zmm,
    /// The AES-256-GCM kernel on zmm (512 bytes).
    Gcm256Zmm,
    /// The ChaCha20 kernel on zmm (1024 bytes).
    Chacha20Zmm,
    /// The Poly1305 kernel on IFMA (256 bytes: two sums of 128).
    Poly1305Ifma,
    /// The fused ChaCha20-Poly1305 kernel on zmm and IFMA (1024 bytes).
    ChaCha20Poly1305Zmm,
}

impl Loop {
    /// The instruction classes, in the order the command prints them.
    pub const CLASSES: [Loop; 9] = [
        Loop::AesZmm,
        Loop::AesYmm,
        Loop::ClmulZmm,
        Loop::ClmulYmm,
        Loop::ArxZmm,
        Loop::ArxYmm,
        Loop::ShuffleZmm,
        Loop::ShuffleYmm,
        Loop::IfmaZmm,
    ];

    /// What the command prints for it.
    pub fn label(self) -> &'static str {
        match self {
            Loop::Clock => "vpaddd zmm, dependent (clock)",
            Loop::AesZmm => "VAESENC zmm",
            Loop::AesYmm => "VAESENC ymm",
            Loop::ClmulZmm => "VPCLMULQDQ zmm",
            Loop::ClmulYmm => "VPCLMULQDQ ymm",
            Loop::ArxZmm => "add/xor/rotate zmm",
            Loop::ArxYmm => "add/xor/rotate ymm",
            Loop::ShuffleZmm => "vpunpckldq zmm",
            Loop::ShuffleYmm => "vpunpckldq ymm",
            Loop::IfmaZmm => "VPMADD52LUQ zmm",
            Loop::Ctr128Zmm => "AES-128-CTR kernel, zmm",
            Loop::Xts256Zmm => "AES-256-XTS kernel, zmm",
            Loop::Gcm128Zmm => "AES-128-GCM kernel, zmm",
            Loop::Gcm256Zmm => "AES-256-GCM kernel, zmm",
            Loop::Chacha20Zmm => "ChaCha20 kernel, zmm",
            Loop::Poly1305Ifma => "Poly1305 kernel, IFMA",
            Loop::ChaCha20Poly1305Zmm => "ChaCha20-Poly1305 kernel, zmm + IFMA",
        }
    }

    /// The loop's body (see [`kernels`]).
    pub fn body(self) -> &'static str {
        use kernels::*;
        match self {
            Loop::Clock => limits_clock!("zmm"),
            Loop::AesZmm => limits_class!("vaesenc", "zmm", ""),
            Loop::AesYmm => limits_class!("vaesenc", "ymm", ""),
            Loop::ClmulZmm => limits_class!("vpclmulqdq", "zmm", ", 0x00"),
            Loop::ClmulYmm => limits_class!("vpclmulqdq", "ymm", ", 0x00"),
            Loop::ArxZmm => limits_arx!("zmm"),
            Loop::ArxYmm => limits_arx!("ymm"),
            Loop::ShuffleZmm => limits_class!("vpunpckldq", "zmm", ""),
            Loop::ShuffleYmm => limits_class!("vpunpckldq", "ymm", ""),
            Loop::IfmaZmm => limits_class!("vpmadd52luq", "zmm", ""),
            Loop::Ctr128Zmm => CTR128_ZMM,
            Loop::Xts256Zmm => XTS256_ZMM,
            Loop::Gcm128Zmm => GCM128_ZMM,
            Loop::Gcm256Zmm => GCM256_ZMM,
            Loop::Chacha20Zmm => CHACHA20_ZMM,
            Loop::Poly1305Ifma => POLY1305_IFMA,
            Loop::ChaCha20Poly1305Zmm => CHACHA20POLY1305_ZMM,
        }
    }

    /// Bytes one iteration of a kernel processes (0 for a class loop or the clock).
    pub fn bytes(self) -> usize {
        match self {
            Loop::Ctr128Zmm | Loop::Xts256Zmm | Loop::Gcm128Zmm | Loop::Gcm256Zmm => 512,
            Loop::Chacha20Zmm | Loop::ChaCha20Poly1305Zmm => 1024,
            Loop::Poly1305Ifma => 256,
            _ => 0,
        }
    }

    /// Instructions one iteration executes (all of them, every class).
    pub fn instructions(self) -> usize {
        expand(self.body())
            .iter()
            .filter(|l| !classify(l).is_empty())
            .count()
    }
}

/// The 2 KiB, cache-line aligned, that the kernels load from and store to.
#[repr(C, align(64))]
pub struct Scratch(pub [u8; 2048]);

impl Default for Scratch {
    fn default() -> Self {
        Scratch([0x5c; 2048])
    }
}

/// Times `l` over `iterations` iterations; `None` where it cannot run (another
/// architecture, or this CPU lacks its features).
pub fn time(l: Loop, iterations: u64, scratch: &mut Scratch) -> Option<Timing> {
    let start = std::time::Instant::now();
    #[cfg(target_arch = "x86_64")]
    let ran = crate::x86::limits::run(l, iterations, scratch);
    #[cfg(not(target_arch = "x86_64"))]
    let ran = {
        let _ = (l, iterations, scratch);
        false
    };
    let seconds = start.elapsed().as_secs_f64();
    ran.then_some(Timing {
        iterations,
        seconds,
    })
}

/// Whether `l` can run here.
pub fn supported(l: Loop) -> bool {
    #[cfg(target_arch = "x86_64")]
    return crate::x86::limits::supported(l);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = l;
        false
    }
}

/// The loop bodies: Intel syntax, with `.rept` / `.irp` (which [`expand`] understands).
/// `{p}` is a pointer to 2 KiB of scratch memory, 64-byte aligned. Every body is a macro,
/// so that `x86::limits` can hand it to `asm!` as a literal and the tests can count it.
pub mod kernels {
    /// One ChaCha20 quarter round on registers `$a $b $c $d` of width `$w` (`zmm`, `ymm`).
    macro_rules! quarter {
        ($w:literal, $a:literal, $b:literal, $c:literal, $d:literal) => {
            concat!(
                "vpaddd ", $w, $a, ", ", $w, $a, ", ", $w, $b, "\n", "vpxord ", $w, $d, ", ", $w,
                $d, ", ", $w, $a, "\n", "vprold ", $w, $d, ", ", $w, $d, ", 16\n", "vpaddd ", $w,
                $c, ", ", $w, $c, ", ", $w, $d, "\n", "vpxord ", $w, $b, ", ", $w, $b, ", ", $w,
                $c, "\n", "vprold ", $w, $b, ", ", $w, $b, ", 12\n", "vpaddd ", $w, $a, ", ", $w,
                $a, ", ", $w, $b, "\n", "vpxord ", $w, $d, ", ", $w, $d, ", ", $w, $a, "\n",
                "vprold ", $w, $d, ", ", $w, $d, ", 8\n", "vpaddd ", $w, $c, ", ", $w, $c, ", ",
                $w, $d, "\n", "vpxord ", $w, $b, ", ", $w, $b, ", ", $w, $c, "\n", "vprold ", $w,
                $b, ", ", $w, $b, ", 7\n",
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
        limits_arx, limits_chacha20_zmm, limits_chacha20poly1305_zmm, limits_class, limits_clock,
        limits_ctr_zmm, limits_gcm_zmm, limits_poly1305_ifma, limits_xts_zmm, poly_ifma, quarter,
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
}
