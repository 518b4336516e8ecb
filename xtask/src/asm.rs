//! `cargo xtask asm`: inspects the machine code of the VAES entry functions.
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
//!   GHASH entries (`aes::vaes::gcm_entry`, `ghash::vpclmulqdq::entry`) likewise (the
//!   GHASH multiplies), GCM with `vaesenc` at the width, GHASH without any AES;
//! * no `call` at all (the cores are fully inlined: nothing leaves the hot loop, and
//!   nothing can lose the entry's target features);
//! * every `ret` is preceded by `vzeroupper`, with no branch landing in between;
//! * the SSE entries of `gcm-aes-aesni` (`aes::aesni::gcm`) and `ghash-clmulni`
//!   (`ghash::clmulni`), kind `Sse`: legacy-encoded `aesenc` (GCM) and `pclmulqdq` on xmm,
//!   and not one VEX- or EVEX-encoded instruction nor a ymm/zmm/mask register, so they
//!   run on an AES-NI CPU without AVX; they dirty no upper state, so no `vzeroupper` is
//!   required of them.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The modules of the entry functions, as demangled by objdump.
const VAES: &str = "cryptoreg_algos::aes::vaes::entry::";
const GCM: &str = "cryptoreg_algos::aes::vaes::gcm_entry::";
const GHASH: &str = "cryptoreg_algos::ghash::vpclmulqdq::entry::";
const AESNI_GCM: &str = "cryptoreg_algos::aes::aesni::gcm::";
const CLMULNI: &str = "cryptoreg_algos::ghash::clmulni::";

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
    /// xmm only, SSE (legacy) encoding: AES-NI + PCLMULQDQ + SSSE3.
    Sse,
    Avx2,
    Avx10_256,
    Avx10_512,
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
    /// VEX-encoded (AVX).
    vex: bool,
}

/// Whether an instruction's bytes start (after legacy prefixes) with the EVEX escape 0x62,
/// which in 64-bit mode is nothing else.
fn is_evex(bytes: &str) -> bool {
    first_opcode_byte(bytes) == Some("62")
}

/// Whether an instruction's bytes start (after legacy prefixes) with a VEX escape, 0xC4
/// or 0xC5, which in 64-bit mode are nothing else (LES/LDS do not exist there).
fn is_vex(bytes: &str) -> bool {
    matches!(first_opcode_byte(bytes), Some("c4" | "c5"))
}

/// The first byte after the legacy prefixes (a REX prefix cannot precede VEX/EVEX).
fn first_opcode_byte(bytes: &str) -> Option<&str> {
    const LEGACY: [&str; 11] = [
        "66", "67", "f2", "f3", "f0", "2e", "3e", "26", "36", "64", "65",
    ];
    bytes.split_whitespace().find(|b| !LEGACY.contains(b))
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
        let (evex, vex) = (is_evex(bytes), is_vex(bytes));
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
        Kind::Sse => "%xmm",
        Kind::Avx2 | Kind::Avx10_256 => "%ymm",
        Kind::Avx10_512 => "%zmm",
    };
    // objdump names PCLMULQDQ by its immediate (`pclmullqhqdq`, ...): match the prefix.
    let vaes = count(&|i| i.mnemonic.starts_with(aes_op) && i.operands.contains(width_reg));
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
    }
    if calls > 0 {
        problems.push(format!(
            "{calls} call instruction(s): the core is not fully inlined"
        ));
    }

    // vzeroupper before every ret, with no branch landing between the two.
    let targets: Vec<u64> = body.iter().filter_map(branch_target).collect();
    let rets: Vec<usize> = (0..body.len())
        .filter(|&i| body[i].mnemonic.starts_with("ret"))
        .collect();
    if rets.is_empty() {
        problems.push("no ret found".to_string());
    }
    // SSE code leaves the upper halves alone: nothing for `vzeroupper` to clear.
    for &r in rets.iter().filter(|_| !sse) {
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

    if problems.is_empty() && sse {
        Ok(format!(
            "{name}: {} insns, {vaes} {aes_op} and {clmul} pclmulqdq on xmm, no ymm/zmm, no VEX/EVEX, {} ret(s), no call",
            body.len(),
            rets.len()
        ))
    } else if problems.is_empty() {
        Ok(format!(
            "{name}: {} insns, {vaes} {aes_op} on {width_reg}, {clmul} vpclmulqdq, {any_ymm} ymm / {any_zmm} zmm / {mask_regs} mask uses, {evex} EVEX, {} ret(s) each after vzeroupper, no call",
            body.len(),
            rets.len()
        ))
    } else {
        Err(problems)
    }
}

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
    if failures.is_empty() {
        Ok(format!(
            "asm: {} entry functions checked (XTS, CTR, GCM, GHASH; ymm in avx2/avx10_256, zmm in avx10_512, vzeroupper before every ret; xmm and SSE encoding only in the aesni/clmulni ones; no call)",
            ENTRIES.len()
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

    const SSE_SAMPLE: &str = "\
0000000000003000 <cryptoreg_algos::ghash::clmulni::ghash_clmulni>:
    3000:\t66 0f 3a 44 c1 00 \tpclmullqlqdq %xmm1,%xmm0
    3006:\t66 0f 38 dc c1 \taesenc %xmm1,%xmm0
    300b:\tc3 \tret
";

    #[test]
    fn sse_entries_must_stay_legacy_encoded_on_xmm() {
        let funcs = parse_functions(SSE_SAMPLE);
        let body = &funcs["cryptoreg_algos::ghash::clmulni::ghash_clmulni"];
        assert!(check_entry("x", Kind::Sse, Aes::Enc, true, body).is_ok());
        // The same operation VEX-encoded (AVX) would fault on an AES-NI CPU without AVX.
        let vex = SSE_SAMPLE.replace(
            "66 0f 3a 44 c1 00 \tpclmullqlqdq %xmm1,%xmm0",
            "c4 e3 79 44 c1 00 \tvpclmullqlqdq %xmm1,%xmm0,%xmm0",
        );
        let funcs = parse_functions(&vex);
        let body = &funcs["cryptoreg_algos::ghash::clmulni::ghash_clmulni"];
        let errs = check_entry("x", Kind::Sse, Aes::Enc, true, body).unwrap_err();
        assert!(errs.iter().any(|e| e.contains("VEX")), "{errs:?}");
        assert!(errs.iter().any(|e| e.contains("pclmulqdq")), "{errs:?}");
        let ymm = SSE_SAMPLE.replace("aesenc %xmm1,%xmm0", "aesenc %ymm1,%ymm0");
        let funcs = parse_functions(&ymm);
        let body = &funcs["cryptoreg_algos::ghash::clmulni::ghash_clmulni"];
        let errs = check_entry("x", Kind::Sse, Aes::Enc, true, body).unwrap_err();
        assert!(errs.iter().any(|e| e.contains("ymm")), "{errs:?}");
        assert!(errs.iter().any(|e| e.contains("no aesenc")), "{errs:?}");
    }

    #[test]
    fn evex_detection() {
        assert!(is_evex("62 f2 6d 48 dc d1"));
        assert!(is_evex("66 62 f2 6d 48 dc d1"));
        assert!(!is_evex("c4 e2 7d 18 00"));
        assert!(!is_evex("48 89 e5"));
        assert!(is_vex("c4 e2 7d 18 00"));
        assert!(is_vex("c5 f8 77"));
        assert!(!is_vex("66 0f 38 dc c1"));
        let funcs = parse_functions(SAMPLE);
        let body = &funcs["cryptoreg_algos::aes::vaes::entry::xts_enc_vaes_avx10_512"];
        assert_eq!(body.iter().filter(|i| i.evex).count(), 2);
    }

    #[test]
    fn register_numbers() {
        assert!(uses_reg("%ymm17,%ymm1", "ymm", 16..=31));
        assert!(!uses_reg("%ymm1,%ymm2", "ymm", 16..=31));
        assert!(uses_reg("%zmm1,0x10(%rsi){%k1}", "k", 1..=7));
    }
}
