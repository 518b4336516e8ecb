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
//! Without AVX-512 (or with `--ymm`) the ymm drivers run against ymm kernels written with
//! VEX instructions only, sixteen registers, so some operands come from memory:
//!
//! * **CTR, AES-128, ymm** (256 bytes = 8 ymm of 2 blocks): the zmm mix at half the width.
//! * **GCM, AES-128 / AES-256, ymm** (256 bytes): the CTR mix (the counters from memory),
//!   stitched with GHASH of 8 ymm, Karatsuba-style as `gcm-aes-vaes-avx2` multiplies on
//!   AMD: per ymm a load, a byte swap (mask from memory), the power loaded once for the
//!   low and high products, the halves' swap and XOR, their product with the power's
//!   precomputed halves (from memory), and three XORs into the sums; per iteration the
//!   Karatsuba correction (2 XORs), two folds (a VPCLMULQDQ, a swap and 2 XORs each) and
//!   the lanes' extract and XOR.
//! * **ChaCha20, ymm** (512 bytes = 8 blocks): 80 quarter rounds of 4 adds, 4 XORs, two
//!   byte-shuffle rotates (masks from memory) and two rotates of two shifts and an OR;
//!   one state vector in memory at a time (2 stores and 2 loads a double round); the
//!   broadcast, counter, feed-forward (from memory), 48 transpose shuffles, XORs, stores.
//! * **ChaCha20-Poly1305, ymm + scalar** (512 bytes): the ChaCha20 mix with 32 Poly1305
//!   blocks in general registers (radix 2^64: the message added with carries, four
//!   widening and two 64-bit multiplies, the carries, the top folded times 5; 37
//!   instructions), four after quarter rounds 0, 2, 4 and 6 of eight double rounds.
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
    /// General-register work (the scalar Poly1305 step): add, add with carry, multiply,
    /// move, and, shift.
    Scalar,
}

/// The classes of one line of Intel-syntax assembly (none for a label or directive).
pub fn classify(line: &str) -> Vec<Class> {
    let line = line.trim();
    let Some(mnemonic) = line.split_whitespace().next() else {
        return Vec::new();
    };
    let operands = line[mnemonic.len()..].trim();
    let memory = operands.contains('[');
    if mnemonic == "vmovdqu64" || mnemonic == "vmovdqu" {
        // A store names memory first; a load second.
        let first = operands.split(',').next().unwrap_or("");
        return match (memory, first.contains('[')) {
            (false, _) => Vec::new(),
            (true, true) => vec![Class::Store],
            (true, false) => vec![Class::Load],
        };
    }
    let op =
        match mnemonic {
            "vaesenc" | "vaesenclast" => Class::Aes,
            "vpclmulqdq" => Class::Clmul,
            "vpmadd52luq" | "vpmadd52huq" => Class::Ifma,
            "vpaddd" | "vpaddq" | "vpxord" | "vpxorq" | "vpxor" | "vprold" | "vpsrlq"
            | "vpsllq" | "vpandq" | "vporq" | "vpternlogd" | "vpternlogq" | "vpslld" | "vpsrld"
            | "vpor" => Class::Alu,
            "vpunpckldq" | "vpunpckhdq" | "vpunpcklqdq" | "vpunpckhqdq" | "vpshufb"
            | "vpermt2q" | "vshufi32x4" | "vpslldq" | "vpsrldq" | "vpshufd" | "vperm2i128"
            | "vextracti128" => Class::Shuffle,
            "vpbroadcastd" => return vec![Class::Load],
            "add" | "adc" | "mul" | "imul" | "mov" | "and" | "shr" => Class::Scalar,
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
    /// A dependent chain of `vpaddd` on ymm (VEX): the clock where there is no AVX-512.
    ClockYmm,
    /// ChaCha20's add / XOR / rotate on ymm without AVX-512 (the rotate as two shifts and
    /// an OR).
    ArxAvx2,
    /// The AES-128-CTR kernel on ymm without AVX-512 (256 bytes).
    Ctr128Ymm,
    /// The AES-128-GCM kernel on ymm without AVX-512 (256 bytes).
    Gcm128Ymm,
    /// The AES-256-GCM kernel on ymm without AVX-512 (256 bytes).
    Gcm256Ymm,
    /// The ChaCha20 kernel on ymm without AVX-512 (512 bytes).
    Chacha20Ymm,
    /// The ChaCha20-Poly1305 kernel on ymm with the scalar Poly1305 step (512 bytes).
    ChaCha20Poly1305Ymm,
}

impl Loop {
    /// The instruction classes, in the order the command prints them.
    pub const CLASSES: [Loop; 10] = [
        Loop::AesZmm,
        Loop::AesYmm,
        Loop::ClmulZmm,
        Loop::ClmulYmm,
        Loop::ArxZmm,
        Loop::ArxYmm,
        Loop::ArxAvx2,
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
            Loop::ClockYmm => "vpaddd ymm, dependent (clock)",
            Loop::ArxAvx2 => "add/xor/shift-rotate ymm",
            Loop::Ctr128Ymm => "AES-128-CTR kernel, ymm",
            Loop::Gcm128Ymm => "AES-128-GCM kernel, ymm",
            Loop::Gcm256Ymm => "AES-256-GCM kernel, ymm",
            Loop::Chacha20Ymm => "ChaCha20 kernel, ymm",
            Loop::ChaCha20Poly1305Ymm => "ChaCha20-Poly1305 kernel, ymm + scalar",
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
            Loop::ClockYmm => limits_clock!("ymm"),
            Loop::ArxAvx2 => limits_arx_avx2!(),
            Loop::Ctr128Ymm => CTR128_YMM,
            Loop::Gcm128Ymm => GCM128_YMM,
            Loop::Gcm256Ymm => GCM256_YMM,
            Loop::Chacha20Ymm => CHACHA20_YMM,
            Loop::ChaCha20Poly1305Ymm => CHACHA20POLY1305_YMM,
        }
    }

    /// Bytes one iteration of a kernel processes (0 for a class loop or the clock).
    pub fn bytes(self) -> usize {
        match self {
            Loop::Ctr128Zmm | Loop::Xts256Zmm | Loop::Gcm128Zmm | Loop::Gcm256Zmm => 512,
            Loop::Chacha20Zmm | Loop::ChaCha20Poly1305Zmm => 1024,
            Loop::Poly1305Ifma | Loop::Ctr128Ymm | Loop::Gcm128Ymm | Loop::Gcm256Ymm => 256,
            Loop::Chacha20Ymm | Loop::ChaCha20Poly1305Ymm => 512,
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

/// The loop bodies (the zmm and the VEX ymm kernels, the class loops, the clock).
pub mod kernels;
