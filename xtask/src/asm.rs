//! `cargo xtask asm`: inspects the machine code of the VAES and ChaCha20 entry functions.
//!
//! Builds the `cryptoreg-emu` cdylib in release mode (it links every entry function of
//! `cryptoreg_algos::aes::vaes::entry`, each `#[inline(never)]`), disassembles it with
//! `objdump -d` (binutils) and checks, per entry:
//!
//! * `*_vaes_avx2`: VAES on ymm registers, no zmm, and not one EVEX-encoded instruction
//!   (first opcode byte 0x62) nor AVX-512 state (mask registers, xmm/ymm16-31), so it runs
//!   on a CPU without AVX-512;
//! * `*_vaes_avx10_256`: VAES on ymm, no zmm, AVX-512 mask registers in use;
//! * `*_vaes_avx10_512`: VAES on zmm;
//! * XTS entries: `vpclmulqdq` at the entry's vector width (the tweak advance); GCM and
//!   GHASH entries (`aes::vaes::gcm_entry`, `ghash::x86::vpclmul_entry`) likewise (the
//!   GHASH multiplies), GCM with `vaesenc` at the width, GHASH without any AES;
//! * no `call` at all (the cores are fully inlined: nothing leaves the hot loop, and
//!   nothing can lose the entry's target features);
//! * every `ret` is preceded by `vzeroupper`, with no branch landing in between;
//! * the SSE entries of `gcm-aes-aesni` (`aes::aesni::gcm`) and `ghash-clmulni`
//!   (`ghash::x86`), kind `Sse`: legacy-encoded `aesenc` (GCM) and `pclmulqdq` on xmm,
//!   and not one VEX- or EVEX-encoded instruction nor a ymm/zmm/mask register, so they
//!   run on an AES-NI CPU without AVX; they dirty no upper state, so no `vzeroupper` is
//!   required of them.
//!
//! And the ChaCha20 entries (`cryptoreg_algos::chacha20::simd::entry`): `chacha20_ssse3`
//! xmm only with neither VEX nor EVEX code (an SSSE3-only CPU runs it), `pshufb` rotates;
//! `chacha20_avx2` ymm, VEX only, `vpshufb` rotates; `chacha20_avx512vl` EVEX ymm with
//! `vprold`, no zmm; `chacha20_avx512f` `vprold` on zmm (the ChaCha20-Poly1305 short
//! path's `chacha20_keyed_avx2` and `chacha20_keyed_avx512f` as the avx2 and avx512f
//! ones); the EVEX ones also `vpternlogd` on ymm (their low-latency rounds for one or two
//! blocks); no `call`, and `vzeroupper` before every `ret` in all but the SSE-only one.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The modules of the entry functions, as demangled by objdump.
const VAES: &str = "cryptoreg_algos::aes::vaes::entry::";
const GCM: &str = "cryptoreg_algos::aes::vaes::gcm_entry::";
const GHASH: &str = "cryptoreg_algos::ghash::x86::vpclmul_entry::";
const AESNI_GCM: &str = "cryptoreg_algos::aes::aesni::gcm::";
const CLMULNI: &str = "cryptoreg_algos::ghash::x86::";

/// Which AES round instruction an entry must use at its width, if any.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Aes {
    Enc,
    Dec,
    None,
}

/// Register width an entry must use.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Avx2,
    Avx10_256,
    Avx10_512,
    /// xmm only, SSE (legacy) encoding: AES-NI + PCLMULQDQ + SSSE3.
    Sse,
}

/// `(module, function name, kind, AES instruction, vpclmulqdq at the width required)`.
const ENTRIES: &[(&str, &str, Kind, Aes, bool)] = &[
    (VAES, "xts_enc_vaes_avx2", Kind::Avx2, Aes::Enc, true),
    (VAES, "xts_dec_vaes_avx2", Kind::Avx2, Aes::Dec, true),
    (VAES, "xts_enc_iv_vaes_avx2", Kind::Avx2, Aes::Enc, true),
    (VAES, "xts_dec_iv_vaes_avx2", Kind::Avx2, Aes::Dec, true),
    (VAES, "ctr_vaes_avx2", Kind::Avx2, Aes::Enc, false),
    (
        VAES,
        "xts_enc_vaes_avx10_256",
        Kind::Avx10_256,
        Aes::Enc,
        true,
    ),
    (
        VAES,
        "xts_dec_vaes_avx10_256",
        Kind::Avx10_256,
        Aes::Dec,
        true,
    ),
    (
        VAES,
        "xts_enc_iv_vaes_avx10_256",
        Kind::Avx10_256,
        Aes::Enc,
        true,
    ),
    (
        VAES,
        "xts_dec_iv_vaes_avx10_256",
        Kind::Avx10_256,
        Aes::Dec,
        true,
    ),
    (VAES, "ctr_vaes_avx10_256", Kind::Avx10_256, Aes::Enc, false),
    (
        VAES,
        "xts_enc_vaes_avx10_512",
        Kind::Avx10_512,
        Aes::Enc,
        true,
    ),
    (
        VAES,
        "xts_dec_vaes_avx10_512",
        Kind::Avx10_512,
        Aes::Dec,
        true,
    ),
    (
        VAES,
        "xts_enc_iv_vaes_avx10_512",
        Kind::Avx10_512,
        Aes::Enc,
        true,
    ),
    (
        VAES,
        "xts_dec_iv_vaes_avx10_512",
        Kind::Avx10_512,
        Aes::Dec,
        true,
    ),
    (VAES, "ctr_vaes_avx10_512", Kind::Avx10_512, Aes::Enc, false),
    (GCM, "gcm_enc_vaes_avx2", Kind::Avx2, Aes::Enc, true),
    (GCM, "gcm_dec_vaes_avx2", Kind::Avx2, Aes::Enc, true),
    (GCM, "gcm_seal_vaes_avx2", Kind::Avx2, Aes::Enc, true),
    (GCM, "gcm_open_vaes_avx2", Kind::Avx2, Aes::Enc, true),
    (
        GCM,
        "gcm_enc_vaes_avx10_256",
        Kind::Avx10_256,
        Aes::Enc,
        true,
    ),
    (
        GCM,
        "gcm_dec_vaes_avx10_256",
        Kind::Avx10_256,
        Aes::Enc,
        true,
    ),
    (
        GCM,
        "gcm_seal_vaes_avx10_256",
        Kind::Avx10_256,
        Aes::Enc,
        true,
    ),
    (
        GCM,
        "gcm_open_vaes_avx10_256",
        Kind::Avx10_256,
        Aes::Enc,
        true,
    ),
    (
        GCM,
        "gcm_enc_vaes_avx10_512",
        Kind::Avx10_512,
        Aes::Enc,
        true,
    ),
    (
        GCM,
        "gcm_dec_vaes_avx10_512",
        Kind::Avx10_512,
        Aes::Enc,
        true,
    ),
    (
        GCM,
        "gcm_seal_vaes_avx10_512",
        Kind::Avx10_512,
        Aes::Enc,
        true,
    ),
    (
        GCM,
        "gcm_open_vaes_avx10_512",
        Kind::Avx10_512,
        Aes::Enc,
        true,
    ),
    (
        GHASH,
        "ghash_powers_vpclmulqdq",
        Kind::Avx2,
        Aes::None,
        false,
    ),
    (GHASH, "ghash_vpclmulqdq_avx2", Kind::Avx2, Aes::None, true),
    (
        GHASH,
        "ghash_vpclmulqdq_avx10_256",
        Kind::Avx10_256,
        Aes::None,
        true,
    ),
    (
        GHASH,
        "ghash_vpclmulqdq_avx512",
        Kind::Avx10_512,
        Aes::None,
        true,
    ),
    (AESNI_GCM, "gcm_enc_aesni", Kind::Sse, Aes::Enc, true),
    (AESNI_GCM, "gcm_dec_aesni", Kind::Sse, Aes::Enc, true),
    (AESNI_GCM, "gcm_seal_aesni", Kind::Sse, Aes::Enc, true),
    (AESNI_GCM, "gcm_open_aesni", Kind::Sse, Aes::Enc, true),
    (AESNI_GCM, "gcm_tag_aesni", Kind::Sse, Aes::Enc, true),
    (CLMULNI, "ghash_clmulni", Kind::Sse, Aes::None, true),
];

/// One disassembled instruction.
#[derive(Debug, Clone)]
struct Insn {
    addr: u64,
    mnemonic: String,
    operands: String,
    /// EVEX-encoded (AVX-512 encoding, also used for AVX-512VL ymm/xmm forms).
    evex: bool,
    /// VEX-encoded (AVX / AVX2): a CPU with SSSE3 only cannot run it.
    vex: bool,
}

/// Whether an instruction's bytes start (after legacy prefixes) with the EVEX escape 0x62,
/// which in 64-bit mode is nothing else.
fn is_evex(bytes: &str) -> bool {
    const LEGACY: [&str; 11] = [
        "66", "67", "f2", "f3", "f0", "2e", "3e", "26", "36", "64", "65",
    ];
    bytes
        .split_whitespace()
        .find(|b| !LEGACY.contains(b))
        .is_some_and(|b| b == "62")
}

/// Whether an instruction's bytes start (after legacy prefixes) with a VEX escape, 0xc4 or
/// 0xc5 (in 64-bit mode LES / LDS do not exist, so these are always VEX).
fn is_vex(bytes: &str) -> bool {
    const LEGACY: [&str; 11] = [
        "66", "67", "f2", "f3", "f0", "2e", "3e", "26", "36", "64", "65",
    ];
    bytes
        .split_whitespace()
        .find(|b| !LEGACY.contains(b))
        .is_some_and(|b| b == "c4" || b == "c5")
}

/// Splits `objdump -d -C` output (with raw bytes) into functions.
fn parse_functions(text: &str) -> BTreeMap<String, Vec<Insn>> {
    let mut funcs = BTreeMap::new();
    let mut current: Option<(String, Vec<Insn>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_end();
        if let Some(name) = trimmed
            .strip_suffix(">:")
            .and_then(|l| l.split_once(" <"))
            .map(|(_, n)| n)
        {
            if let Some((n, body)) = current.take() {
                funcs.insert(n, body);
            }
            current = Some((name.to_string(), Vec::new()));
            continue;
        }
        let Some((_, body)) = current.as_mut() else {
            continue;
        };
        // "   1fdb0:\tc5 f9 ef c0   \tvpxor  %xmm0,%xmm0,%xmm0"; long instructions continue
        // on lines with bytes only, which carry no instruction and are skipped.
        let Some((addr, rest)) = trimmed.trim_start().split_once(":\t") else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        let Some((bytes, insn)) = rest.split_once('\t') else {
            continue;
        };
        let evex = is_evex(bytes);
        let vex = is_vex(bytes);
        let insn = insn.trim();
        let (mnemonic, operands) = insn.split_once(char::is_whitespace).unwrap_or((insn, ""));
        body.push(Insn {
            addr,
            mnemonic: mnemonic.to_string(),
            operands: operands.trim().to_string(),
            evex,
            vex,
        });
    }
    if let Some((n, body)) = current {
        funcs.insert(n, body);
    }
    funcs
}

/// Whether the operands name a register `%{prefix}N` with N in `range`.
fn uses_reg(operands: &str, prefix: &str, range: std::ops::RangeInclusive<u32>) -> bool {
    let pat = format!("%{prefix}");
    operands.match_indices(&pat).any(|(i, _)| {
        let digits: String = operands[i + pat.len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse::<u32>().is_ok_and(|n| range.contains(&n))
    })
}

/// The address a direct branch goes to (`jne 2a3f0 <...>`).
fn branch_target(insn: &Insn) -> Option<u64> {
    if !insn.mnemonic.starts_with('j') {
        return None;
    }
    let first = insn.operands.split_whitespace().next()?;
    u64::from_str_radix(first, 16).ok()
}

/// `vzeroupper` before every `ret`, with no branch landing between the two (a function
/// that returns with dirty upper ymm/zmm state slows every SSE instruction after it).
fn vzeroupper_problems(body: &[Insn]) -> Vec<String> {
    let mut problems = Vec::new();
    let targets: Vec<u64> = body.iter().filter_map(branch_target).collect();
    let rets: Vec<usize> = (0..body.len())
        .filter(|&i| body[i].mnemonic.starts_with("ret"))
        .collect();
    if rets.is_empty() {
        problems.push("no ret found".to_string());
    }
    for &r in &rets {
        let mut j = r;
        let mut found = None;
        while j > 0 {
            j -= 1;
            let insn = &body[j];
            if insn.mnemonic == "vzeroupper" {
                found = Some(insn.addr);
                break;
            }
            let vector = ["%xmm", "%ymm", "%zmm", "%k"]
                .iter()
                .any(|r| insn.operands.contains(r));
            if vector || insn.mnemonic.starts_with('j') || insn.mnemonic.starts_with("ret") {
                break;
            }
        }
        match found {
            None => problems.push(format!(
                "ret at {:#x} is not preceded by vzeroupper",
                body[r].addr
            )),
            Some(vz) => {
                let ret_addr = body[r].addr;
                if let Some(t) = targets.iter().find(|&&t| t > vz && t <= ret_addr) {
                    problems.push(format!(
                        "a branch to {t:#x} skips the vzeroupper at {vz:#x} before the ret at {ret_addr:#x}"
                    ));
                }
            }
        }
    }

    problems
}

/// Checks one entry; returns a one-line description or the list of problems.
fn check_entry(
    name: &str,
    kind: Kind,
    aes: Aes,
    clmul_needed: bool,
    body: &[Insn],
) -> Result<String, Vec<String>> {
    let mut problems = Vec::new();
    let count = |pred: &dyn Fn(&Insn) -> bool| body.iter().filter(|i| pred(i)).count();
    let any_zmm = count(&|i| i.operands.contains("%zmm"));
    let any_ymm = count(&|i| i.operands.contains("%ymm"));
    let mask_regs = count(&|i| uses_reg(&i.operands, "k", 1..=7));
    let high_ymm =
        count(&|i| uses_reg(&i.operands, "ymm", 16..=31) || uses_reg(&i.operands, "xmm", 16..=31));
    let evex = count(&|i| i.evex);
    let vex = count(&|i| i.vex);
    let sse = kind == Kind::Sse;
    let aes_op = match (aes, sse) {
        (Aes::Dec, false) => "vaesdec",
        (Aes::Enc | Aes::None, false) => "vaesenc",
        (Aes::Dec, true) => "aesdec",
        (Aes::Enc | Aes::None, true) => "aesenc",
    };
    let clmul_op = if sse { "pclmul" } else { "vpclmul" };
    let width_reg = match kind {
        Kind::Avx2 | Kind::Avx10_256 => "%ymm",
        Kind::Avx10_512 => "%zmm",
        Kind::Sse => "%xmm",
    };
    let vaes = count(&|i| i.mnemonic.starts_with(aes_op) && i.operands.contains(width_reg));
    // objdump names PCLMULQDQ by its immediate (`pclmullqhqdq`, ...): match the prefix.
    let clmul = count(&|i| i.mnemonic.starts_with(clmul_op) && i.operands.contains(width_reg));
    let calls = count(&|i| i.mnemonic.starts_with("call"));

    if aes != Aes::None && vaes == 0 {
        problems.push(format!("no {aes_op} on {width_reg} registers"));
    }
    if clmul_needed && clmul == 0 {
        problems.push(format!(
            "no vpclmulqdq on {width_reg} registers (tweak advance / GHASH)"
        ));
    }
    match kind {
        Kind::Avx2 => {
            if any_zmm > 0 {
                problems.push(format!("{any_zmm} instructions use zmm registers"));
            }
            if mask_regs > 0 || high_ymm > 0 || evex > 0 {
                problems.push(format!(
                    "AVX-512 in an AVX2 driver: {evex} EVEX instructions, {mask_regs} mask-register and {high_ymm} xmm/ymm16-31 uses"
                ));
            }
        }
        Kind::Avx10_256 => {
            if any_zmm > 0 {
                problems.push(format!("{any_zmm} instructions use zmm registers"));
            }
            if mask_regs == 0 || evex == 0 {
                problems.push("no AVX-512 mask register / EVEX code (partial blocks)".to_string());
            }
        }
        Kind::Avx10_512 => {
            if any_zmm == 0 {
                problems.push("no zmm register in use".to_string());
            }
        }
        Kind::Sse => {
            if any_zmm > 0 || any_ymm > 0 || mask_regs > 0 || high_ymm > 0 {
                problems.push(format!(
                    "beyond xmm0-15 in an SSE driver: {any_ymm} ymm, {any_zmm} zmm, {mask_regs} mask-register and {high_ymm} xmm16-31 uses"
                ));
            }
            if vex > 0 || evex > 0 {
                problems.push(format!(
                    "AVX encoding in an SSE driver: {vex} VEX and {evex} EVEX instructions"
                ));
            }
        }
    }
    if calls > 0 {
        problems.push(format!(
            "{calls} call instruction(s): the core is not fully inlined"
        ));
    }
    let rets = body
        .iter()
        .filter(|i| i.mnemonic.starts_with("ret"))
        .count();
    if sse {
        // SSE code leaves the upper halves alone: nothing for `vzeroupper` to clear.
        if rets == 0 {
            problems.push("no ret found".to_string());
        }
    } else {
        problems.extend(vzeroupper_problems(body));
    }

    if problems.is_empty() && sse {
        Ok(format!(
            "{name}: {} insns, {vaes} {aes_op} and {clmul} pclmulqdq on xmm, no ymm/zmm, no VEX/EVEX, {rets} ret(s), no call",
            body.len()
        ))
    } else if problems.is_empty() {
        Ok(format!(
            "{name}: {} insns, {vaes} {aes_op} on {width_reg}, {clmul} vpclmulqdq, {any_ymm} ymm / {any_zmm} zmm / {mask_regs} mask uses, {evex} EVEX, {} ret(s) each after vzeroupper, no call",
            body.len(),
            rets
        ))
    } else {
        Err(problems)
    }
}

// --- ChaCha20 entries (issue 9) ------------------------------------------------------

/// The ChaCha20 entry functions, as demangled by objdump.
const CHACHA_PREFIX: &str = "cryptoreg_algos::chacha20::simd::entry::";

/// Register width and encoding a ChaCha20 entry must use.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ChachaKind {
    /// xmm only, legacy SSE encoding (no VEX, no EVEX): runs on an SSSE3-only CPU.
    Ssse3,
    /// ymm, VEX only: no zmm, no EVEX, no mask or xmm/ymm16-31 registers.
    Avx2,
    /// ymm with EVEX (`vprold`), no zmm.
    Avx512Vl,
    /// zmm (`vprold` on zmm).
    Avx512F,
}

/// `(function name, kind)`.
const CHACHA_ENTRIES: &[(&str, ChachaKind)] = &[
    ("chacha20_ssse3", ChachaKind::Ssse3),
    ("chacha20_avx2", ChachaKind::Avx2),
    ("chacha20_avx512vl", ChachaKind::Avx512Vl),
    ("chacha20_avx512f", ChachaKind::Avx512F),
    ("chacha20_keyed_avx2", ChachaKind::Avx2),
    ("chacha20_keyed_avx512f", ChachaKind::Avx512F),
];

/// Checks one ChaCha20 entry: its width and encoding, the rotate instruction of its kind,
/// no `call`, and (except for the SSE-only ssse3 entry, which never dirties upper state)
/// `vzeroupper` before every `ret`.
fn check_chacha_entry(name: &str, kind: ChachaKind, body: &[Insn]) -> Result<String, Vec<String>> {
    let mut problems = Vec::new();
    let count = |pred: &dyn Fn(&Insn) -> bool| body.iter().filter(|i| pred(i)).count();
    let zmm = count(&|i| i.operands.contains("%zmm"));
    let ymm = count(&|i| i.operands.contains("%ymm"));
    let mask_regs = count(&|i| uses_reg(&i.operands, "k", 1..=7));
    let high =
        count(&|i| uses_reg(&i.operands, "ymm", 16..=31) || uses_reg(&i.operands, "xmm", 16..=31));
    let evex = count(&|i| i.evex);
    let vex = count(&|i| i.vex);
    let calls = count(&|i| i.mnemonic.starts_with("call"));
    let (rotate, reg) = match kind {
        ChachaKind::Ssse3 => ("pshufb", "%xmm"),
        ChachaKind::Avx2 => ("vpshufb", "%ymm"),
        ChachaKind::Avx512Vl => ("vprold", "%ymm"),
        ChachaKind::Avx512F => ("vprold", "%zmm"),
    };
    let rotates = count(&|i| i.mnemonic == rotate && i.operands.contains(reg));
    if rotates == 0 {
        problems.push(format!("no {rotate} on {reg} registers"));
    }
    // The EVEX entries run one- and two-block requests (the keyed one: the key block and at
    // most one text block) on the low-latency rounds, whose xor-rotates end in `vpternlogd`.
    let ternlogs = count(&|i| i.mnemonic == "vpternlogd" && i.operands.contains("%ymm"));
    if matches!(kind, ChachaKind::Avx512Vl | ChachaKind::Avx512F) && ternlogs == 0 {
        problems.push("no vpternlogd on ymm: the low-latency rounds are missing".to_string());
    }
    match kind {
        ChachaKind::Ssse3 => {
            if ymm + zmm > 0 || vex + evex > 0 {
                problems.push(format!(
                    "beyond SSSE3: {vex} VEX and {evex} EVEX instructions, {ymm} ymm and {zmm} zmm uses"
                ));
            }
        }
        ChachaKind::Avx2 => {
            if zmm > 0 || evex > 0 || mask_regs > 0 || high > 0 {
                problems.push(format!(
                    "AVX-512 in an AVX2 driver: {evex} EVEX instructions, {zmm} zmm, {mask_regs} mask-register and {high} xmm/ymm16-31 uses"
                ));
            }
        }
        ChachaKind::Avx512Vl => {
            if zmm > 0 {
                problems.push(format!("{zmm} instructions use zmm registers"));
            }
            if ymm == 0 || evex == 0 {
                problems.push("no EVEX-encoded ymm code".to_string());
            }
        }
        ChachaKind::Avx512F => {
            if zmm == 0 {
                problems.push("no zmm register in use".to_string());
            }
        }
    }
    if calls > 0 {
        problems.push(format!(
            "{calls} call instruction(s): the core is not fully inlined"
        ));
    }
    if kind == ChachaKind::Ssse3 {
        if !body.iter().any(|i| i.mnemonic.starts_with("ret")) {
            problems.push("no ret found".to_string());
        }
    } else {
        problems.extend(vzeroupper_problems(body));
    }
    if problems.is_empty() {
        Ok(format!(
            "{name}: {} insns, {rotates} {rotate} on {reg}, {ymm} ymm / {zmm} zmm / {mask_regs} mask uses, {vex} VEX / {evex} EVEX, no call",
            body.len()
        ))
    } else {
        Err(problems)
    }
}

// --- Poly1305 (issue 9): the poly1305-* SIMD entries ---

/// Which Poly1305 core an entry runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Poly {
    /// Radix 2^26 on `vpmuludq` at the entry's width.
    Vec26,
    /// Radix 2^44 on `vpmadd52luq` / `vpmadd52huq` (zmm).
    Ifma,
    /// The scalar step in general registers (`mul` / `mulx`), beside vector ChaCha20
    /// rounds: no vector multiply at all.
    Scalar,
}

/// The Poly1305 entry functions (and the fused ChaCha20-Poly1305 ones, whose Poly1305
/// half is one of the same cores), as demangled by objdump: `(path, kind, core)`.
/// `Kind::Avx2` = ymm only, VEX only; `Kind::Avx10_512` = zmm.
const POLY1305_ENTRIES: &[(&str, Kind, Poly)] = &[
    (
        "cryptoreg_algos::poly1305::simd::entry::poly1305_blocks_avx2",
        Kind::Avx2,
        Poly::Vec26,
    ),
    (
        "cryptoreg_algos::poly1305::simd::entry::poly1305_blocks_avx512",
        Kind::Avx10_512,
        Poly::Vec26,
    ),
    (
        "cryptoreg_algos::poly1305::simd::entry::poly1305_blocks_avx512ifma",
        Kind::Avx10_512,
        Poly::Ifma,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_enc_avx2",
        Kind::Avx2,
        Poly::Scalar,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_dec_avx2",
        Kind::Avx2,
        Poly::Scalar,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_aad_avx2",
        Kind::Avx2,
        Poly::Scalar,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_enc_avx512",
        Kind::Avx10_512,
        Poly::Vec26,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_dec_avx512",
        Kind::Avx10_512,
        Poly::Vec26,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_aad_avx512",
        Kind::Avx10_512,
        Poly::Vec26,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_enc_avx512ifma",
        Kind::Avx10_512,
        Poly::Ifma,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_dec_avx512ifma",
        Kind::Avx10_512,
        Poly::Ifma,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_aad_avx512ifma",
        Kind::Avx10_512,
        Poly::Ifma,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_seal_avx2",
        Kind::Avx2,
        Poly::Scalar,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_open_avx2",
        Kind::Avx2,
        Poly::Scalar,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_seal_avx512",
        Kind::Avx10_512,
        Poly::Vec26,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_open_avx512",
        Kind::Avx10_512,
        Poly::Vec26,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_seal_avx512ifma",
        Kind::Avx10_512,
        Poly::Ifma,
    ),
    (
        "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_open_avx512ifma",
        Kind::Avx10_512,
        Poly::Ifma,
    ),
];

/// Checks one Poly1305 entry: the multiplies of its core (`vpmuludq` at the entry's
/// width, one per product: at least the 25 of a step; `vpmadd52luq` and `vpmadd52huq` for
/// IFMA; 64-bit `mul` / `mulx` and no vector multiply for the scalar core), no zmm / EVEX
/// / AVX-512 state in an avx2 entry, no `call`, `vzeroupper` before every `ret` (but in a
/// scalar-core entry that uses no ymm or zmm register: the AAD entry, whose few vector
/// instructions are on xmm; code that never names a ymm or zmm register cannot leave
/// their upper halves dirty, and LLVM then emits no `vzeroupper`, rightly).
fn check_poly1305_entry(
    name: &str,
    kind: Kind,
    core: Poly,
    body: &[Insn],
) -> Result<String, Vec<String>> {
    let mut problems = Vec::new();
    let count = |pred: &dyn Fn(&Insn) -> bool| body.iter().filter(|i| pred(i)).count();
    let width_reg = if kind == Kind::Avx10_512 {
        "%zmm"
    } else {
        "%ymm"
    };
    let on_width =
        |m: &str| count(&|i| i.mnemonic.starts_with(m) && i.operands.contains(width_reg));
    let (muls, mul_name) = match core {
        Poly::Ifma => {
            let lo = on_width("vpmadd52luq");
            let hi = on_width("vpmadd52huq");
            if lo == 0 || hi == 0 {
                problems.push(format!(
                    "{lo} vpmadd52luq / {hi} vpmadd52huq on {width_reg}: IFMA not in use"
                ));
            }
            // The radix-2^26 core (25 `vpmuludq` a step) must not be what runs in an IFMA
            // entry; a few come from scaling the powers (`20 * r`) and are fine.
            let mul32 = on_width("vpmuludq");
            if mul32 >= 25 {
                problems.push(format!(
                    "{mul32} vpmuludq on {width_reg} in an IFMA entry: the radix-2^26 core is in use"
                ));
            }
            (lo + hi, "vpmadd52l/huq")
        }
        Poly::Vec26 => {
            let n = on_width("vpmuludq");
            if n < 25 {
                problems.push(format!(
                    "{n} vpmuludq on {width_reg}: the 25 products of a step are not vectorised"
                ));
            }
            (n, "vpmuludq")
        }
        Poly::Scalar => {
            // `mul` / `mulx` with 64-bit operands (`mulq`, or `%r` registers).
            let wide = count(&|i| {
                (i.mnemonic == "mulq" || i.mnemonic.starts_with("mulx"))
                    || (i.mnemonic == "mul" && i.operands.contains("%r"))
            });
            let vector =
                count(&|i| i.mnemonic.starts_with("vpmul") || i.mnemonic.starts_with("vpmadd52"));
            if wide < 3 {
                problems.push(format!(
                    "{wide} 64-bit mul / mulx: the scalar Poly1305 step is not there"
                ));
            }
            if vector > 0 {
                problems.push(format!(
                    "{vector} vector multiplies in a scalar-Poly1305 entry: a vector core is in use"
                ));
            }
            (wide, "mul/mulx")
        }
    };
    let any_zmm = count(&|i| i.operands.contains("%zmm"));
    let mask_regs = count(&|i| uses_reg(&i.operands, "k", 1..=7));
    let high =
        count(&|i| uses_reg(&i.operands, "ymm", 16..=31) || uses_reg(&i.operands, "xmm", 16..=31));
    let evex = count(&|i| i.evex);
    if kind == Kind::Avx2 && (any_zmm > 0 || mask_regs > 0 || high > 0 || evex > 0) {
        problems.push(format!(
            "AVX-512 in an AVX2 entry: {any_zmm} zmm, {evex} EVEX, {mask_regs} mask-register, {high} xmm/ymm16-31 uses"
        ));
    }
    if kind == Kind::Avx10_512 && any_zmm == 0 {
        problems.push("no zmm register in use".to_string());
    }
    let calls = count(&|i| i.mnemonic.starts_with("call"));
    if calls > 0 {
        problems.push(format!(
            "{calls} call instruction(s): the core is not fully inlined"
        ));
    }
    let rets = body
        .iter()
        .filter(|i| i.mnemonic.starts_with("ret"))
        .count();
    let any_wide = count(&|i| ["%ymm", "%zmm"].iter().any(|r| i.operands.contains(r)));
    let rets_end = if core != Poly::Scalar || any_wide > 0 {
        problems.extend(vzeroupper_problems(body));
        "each after vzeroupper"
    } else {
        "(no ymm or zmm register in use)"
    };
    if problems.is_empty() {
        Ok(format!(
            "{name}: {} insns, {muls} {mul_name}, {any_zmm} zmm / {evex} EVEX, {rets} ret(s) {rets_end}, no call",
            body.len()
        ))
    } else {
        Err(problems)
    }
}

/// Runs [`check_poly1305_entry`] over [`POLY1305_ENTRIES`], appending failures.
fn check_poly1305(funcs: &BTreeMap<String, Vec<Insn>>, lib: &Path, failures: &mut Vec<String>) {
    for &(path, kind, core) in POLY1305_ENTRIES {
        let name = path.rsplit("::").next().unwrap_or(path);
        let Some(body) = funcs.get(path) else {
            failures.push(format!("{name}: not found in {}", lib.display()));
            continue;
        };
        match check_poly1305_entry(name, kind, core, body) {
            Ok(line) => println!("asm: ok   {line}"),
            Err(problems) => {
                for p in problems {
                    println!("asm: FAIL {name}: {p}");
                    failures.push(format!("{name}: {p}"));
                }
            }
        }
    }
}

// --- end Poly1305 ---

/// Runs the check; `Ok` carries the summary line.
pub fn run(root: &Path) -> Result<String, String> {
    let lib = crate::emu::build_cdylib(root)?;
    let out = Command::new("objdump")
        .args(["-d", "-C", "--insn-width=15"])
        .arg(&lib)
        .output()
        .map_err(|e| format!("cannot run objdump (install binutils): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "objdump -d {} failed: {}",
            lib.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let funcs = parse_functions(&String::from_utf8_lossy(&out.stdout));
    let mut failures = Vec::new();
    for &(module, name, kind, aes, clmul) in ENTRIES {
        let full = format!("{module}{name}");
        let Some(body) = funcs.get(&full) else {
            failures.push(format!("{name}: not found in {}", lib.display()));
            continue;
        };
        match check_entry(name, kind, aes, clmul, body) {
            Ok(line) => println!("asm: ok   {line}"),
            Err(problems) => {
                for p in problems {
                    println!("asm: FAIL {name}: {p}");
                    failures.push(format!("{name}: {p}"));
                }
            }
        }
    }
    for &(name, kind) in CHACHA_ENTRIES {
        let full = format!("{CHACHA_PREFIX}{name}");
        let Some(body) = funcs.get(&full) else {
            failures.push(format!("{name}: not found in {}", lib.display()));
            continue;
        };
        match check_chacha_entry(name, kind, body) {
            Ok(line) => println!("asm: ok   {line}"),
            Err(problems) => {
                for p in problems {
                    println!("asm: FAIL {name}: {p}");
                    failures.push(format!("{name}: {p}"));
                }
            }
        }
    }
    check_poly1305(&funcs, &lib, &mut failures);
    if failures.is_empty() {
        Ok(format!(
            "asm: {} entry functions checked (XTS, CTR, GCM, GHASH: ymm in avx2/avx10_256, zmm in avx10_512, vzeroupper before every ret, no call; aesni/clmulni: xmm and SSE encoding only; chacha20: SSE-only ssse3, VEX-only avx2, EVEX ymm avx512vl, zmm avx512f; poly1305: vpmuludq on ymm / zmm, IFMA, scalar beside ymm ChaCha20)",
            ENTRIES.len() + CHACHA_ENTRIES.len() + POLY1305_ENTRIES.len()
        ))
    } else {
        Err(format!(
            "machine-code check failed: {}",
            failures.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
0000000000001000 <cryptoreg_algos::aes::vaes::entry::xts_enc_vaes_avx10_512>:
    1000:\tc5 f9 ef c0 \tvpxor  %xmm0,%xmm0,%xmm0
    1004:\t62 f2 6d 48 dc d1 \tvaesenc %zmm1,%zmm2,%zmm2
    100a:\t62 f3 5d 48 44 eb 01 \tvpclmulqdq $0x1,%zmm3,%zmm4,%zmm5
    1010:\t75 f2 \tjne    1004 <cryptoreg_algos::aes::vaes::entry::xts_enc_vaes_avx10_512+0x4>
    1012:\tc5 f8 77 \tvzeroupper
    1015:\t5b \tpop    %rbx
    1016:\tc3 \tret

0000000000002000 <other>:
    2000:\tc3 \tret
";

    #[test]
    fn accepts_a_good_entry_and_rejects_calls_and_missing_vzeroupper() {
        let funcs = parse_functions(SAMPLE);
        let body = &funcs["cryptoreg_algos::aes::vaes::entry::xts_enc_vaes_avx10_512"];
        assert_eq!(body.len(), 7);
        assert!(check_entry("x", Kind::Avx10_512, Aes::Enc, true, body).is_ok());
        assert!(check_entry("x", Kind::Avx2, Aes::Enc, true, body).is_err());

        let mut bad = body.clone();
        bad.remove(4); // vzeroupper
        let errs = check_entry("x", Kind::Avx10_512, Aes::Enc, true, &bad).unwrap_err();
        assert!(errs.iter().any(|e| e.contains("vzeroupper")), "{errs:?}");

        let mut bad = body.clone();
        bad.insert(
            2,
            Insn {
                addr: 0x1008,
                mnemonic: "call".into(),
                operands: "3000 <memcpy>".into(),
                evex: false,
                vex: false,
            },
        );
        let errs = check_entry("x", Kind::Avx10_512, Aes::Enc, true, &bad).unwrap_err();
        assert!(errs.iter().any(|e| e.contains("call")), "{errs:?}");

        let mut bad = body.clone();
        bad[3].operands = "1015 <x+0x15>".into(); // lands between vzeroupper and ret
        let errs = check_entry("x", Kind::Avx10_512, Aes::Enc, true, &bad).unwrap_err();
        assert!(errs.iter().any(|e| e.contains("skips")), "{errs:?}");
    }

    #[test]
    fn evex_detection() {
        assert!(is_evex("62 f2 6d 48 dc d1"));
        assert!(is_evex("66 62 f2 6d 48 dc d1"));
        assert!(!is_evex("c4 e2 7d 18 00"));
        assert!(!is_evex("48 89 e5"));
        let funcs = parse_functions(SAMPLE);
        let body = &funcs["cryptoreg_algos::aes::vaes::entry::xts_enc_vaes_avx10_512"];
        assert_eq!(body.iter().filter(|i| i.evex).count(), 2);
    }

    const CHACHA_SAMPLE: &str = "\
0000000000003000 <cryptoreg_algos::chacha20::simd::entry::chacha20_ssse3>:
    3000:\t66 0f fe c1 \tpaddd  %xmm1,%xmm0
    3004:\t66 0f 38 00 c2 \tpshufb %xmm2,%xmm0
    3009:\tc3 \tret

0000000000004000 <cryptoreg_algos::chacha20::simd::entry::chacha20_avx512f>:
    4000:\t62 f1 75 48 72 c8 10 \tvprold $0x10,%zmm0,%zmm1
    4007:\t62 f3 75 28 25 c2 96 \tvpternlogd $0x96,%ymm2,%ymm1,%ymm0
    400e:\tc5 f8 77 \tvzeroupper
    4011:\tc3 \tret
";

    #[test]
    fn chacha_entries_by_kind() {
        let funcs = parse_functions(CHACHA_SAMPLE);
        let sse = &funcs["cryptoreg_algos::chacha20::simd::entry::chacha20_ssse3"];
        assert!(check_chacha_entry("s", ChachaKind::Ssse3, sse).is_ok());
        // The same code is not an AVX2 entry (no vpshufb on ymm, no vzeroupper).
        assert!(check_chacha_entry("s", ChachaKind::Avx2, sse).is_err());
        // One VEX instruction disqualifies the ssse3 entry.
        let mut bad = sse.clone();
        bad[0].vex = true;
        let errs = check_chacha_entry("s", ChachaKind::Ssse3, &bad).unwrap_err();
        assert!(errs.iter().any(|e| e.contains("beyond SSSE3")), "{errs:?}");

        let zmm = &funcs["cryptoreg_algos::chacha20::simd::entry::chacha20_avx512f"];
        assert!(zmm[0].evex && zmm[1].evex && zmm[2].vex);
        assert!(check_chacha_entry("z", ChachaKind::Avx512F, zmm).is_ok());
        let errs = check_chacha_entry("z", ChachaKind::Avx512Vl, zmm).unwrap_err();
        assert!(errs.iter().any(|e| e.contains("zmm")), "{errs:?}");
        let mut bad = zmm.clone();
        bad.remove(2); // vzeroupper
        assert!(check_chacha_entry("z", ChachaKind::Avx512F, &bad).is_err());
        // Without the low-latency rounds' `vpternlogd` an EVEX entry fails.
        let mut bad = zmm.clone();
        bad.remove(1);
        let errs = check_chacha_entry("z", ChachaKind::Avx512F, &bad).unwrap_err();
        assert!(errs.iter().any(|e| e.contains("low-latency")), "{errs:?}");
    }

    #[test]
    fn register_numbers() {
        assert!(uses_reg("%ymm17,%ymm1", "ymm", 16..=31));
        assert!(!uses_reg("%ymm1,%ymm2", "ymm", 16..=31));
        assert!(uses_reg("%zmm1,0x10(%rsi){%k1}", "k", 1..=7));
    }

    const SSE_SAMPLE: &str = "\
0000000000003000 <cryptoreg_algos::ghash::x86::ghash_clmulni>:
    3000:\t66 0f 3a 44 c1 00 \tpclmullqlqdq %xmm1,%xmm0
    3006:\t66 0f 38 dc c1 \taesenc %xmm1,%xmm0
    300b:\tc3 \tret
";

    #[test]
    fn sse_entries_must_stay_legacy_encoded_on_xmm() {
        let name = "cryptoreg_algos::ghash::x86::ghash_clmulni";
        let funcs = parse_functions(SSE_SAMPLE);
        assert!(check_entry("x", Kind::Sse, Aes::Enc, true, &funcs[name]).is_ok());
        // The same operation VEX-encoded (AVX) would fault on an AES-NI CPU without AVX.
        let vex = SSE_SAMPLE.replace(
            "66 0f 3a 44 c1 00 \tpclmullqlqdq %xmm1,%xmm0",
            "c4 e3 79 44 c1 00 \tvpclmullqlqdq %xmm1,%xmm0,%xmm0",
        );
        let funcs = parse_functions(&vex);
        let errs = check_entry("x", Kind::Sse, Aes::Enc, true, &funcs[name]).unwrap_err();
        assert!(errs.iter().any(|e| e.contains("VEX")), "{errs:?}");
        assert!(errs.iter().any(|e| e.contains("pclmulqdq")), "{errs:?}");
        let ymm = SSE_SAMPLE.replace("aesenc %xmm1,%xmm0", "aesenc %ymm1,%ymm0");
        let funcs = parse_functions(&ymm);
        let errs = check_entry("x", Kind::Sse, Aes::Enc, true, &funcs[name]).unwrap_err();
        assert!(errs.iter().any(|e| e.contains("ymm")), "{errs:?}");
        assert!(errs.iter().any(|e| e.contains("no aesenc")), "{errs:?}");
    }

    const SCALAR_AAD_SAMPLE: &str = "\
0000000000004000 <cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_aad_avx2>:
    4000:\tc5 fa 6f 07 \tvmovdqu (%rdi),%xmm0
    4004:\t49 f7 20 \tmulq   (%r8)
    4007:\t49 f7 60 10 \tmulq   0x10(%r8)
    400b:\t49 f7 60 08 \tmulq   0x8(%r8)
    400f:\tc3 \tret
";

    /// A scalar-core entry whose only vector instructions are VEX xmm moves (which clear
    /// the upper halves) needs no `vzeroupper`; one ymm use and it does.
    #[test]
    fn scalar_poly1305_entries_need_vzeroupper_only_after_ymm_or_zmm() {
        let name = "cryptoreg_algos::chacha20poly1305::simd::entry::rfc7539_aad_avx2";
        let funcs = parse_functions(SCALAR_AAD_SAMPLE);
        assert_eq!(funcs[name].len(), 5);
        let ok = check_poly1305_entry("x", Kind::Avx2, Poly::Scalar, &funcs[name]).unwrap();
        assert!(ok.contains("no ymm or zmm"), "{ok}");
        let ymm = SCALAR_AAD_SAMPLE.replace("vmovdqu (%rdi),%xmm0", "vmovdqu (%rdi),%ymm0");
        let funcs = parse_functions(&ymm);
        let errs = check_poly1305_entry("x", Kind::Avx2, Poly::Scalar, &funcs[name]).unwrap_err();
        assert!(errs.iter().any(|e| e.contains("vzeroupper")), "{errs:?}");
    }
}
