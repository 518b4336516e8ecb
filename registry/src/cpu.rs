//! The CPU identity: read once from CPUID (x86-64) or the `MIDR_EL1` the kernel exposes
//! (arm64), or built from a named preset so that tests and `cryptoctl --cpu` can ask what
//! would happen on another machine, of either architecture.

use crate::arch::Arch;
use crate::features::{Feature, Features};
use Feature::*;

/// Vendor, family, model, stepping and features of one CPU.
///
/// On arm64 the identity is the `MIDR_EL1` implementer and part number ([`ArmId`]);
/// `family`, `model` and `stepping` are x86 notions and stay 0 there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuInfo {
    /// The architecture: a preset of the other architecture plans its own ladder.
    pub arch: Arch,
    /// CPUID vendor string (`GenuineIntel`, `AuthenticAMD`); on arm64 the implementer's
    /// name (`ARM`, `Apple`), or `unknown` when the kernel does not expose the MIDR (as
    /// under QEMU's user-mode emulator).
    pub vendor: String,
    /// The brand string the CPU reports of itself (x86-64: CPUID leaves
    /// 0x8000_0002..=0x8000_0004, as `lscpu`'s "Model name"), `None` for a preset and on
    /// arm64, where no register holds one (the implementer and part number identify it).
    pub brand: Option<String>,
    /// Display family (base family plus extended family when the base is 0xF).
    pub family: u32,
    /// Display model (extended model folded in for family 6 and 0xF and above).
    pub model: u32,
    /// Stepping.
    pub stepping: u32,
    /// Features usable here (instruction support and OS-enabled register state).
    pub features: Features,
    /// Where this identity came from: `native` or a preset name.
    pub source: String,
    /// arm64 only: implementer and part number, `None` elsewhere or when unknown.
    pub arm: Option<ArmId>,
}

/// An arm64 core's identity from `MIDR_EL1`: the implementer code (bits 31..24: 0x41 Arm,
/// 0x61 Apple) and the primary part number (bits 15..4: 0xd0c Neoverse N1), the values of
/// the kernel's `arch/arm64/include/asm/cputype.h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArmId {
    /// `MIDR_EL1.Implementer`.
    pub implementer: u32,
    /// `MIDR_EL1.PartNum`.
    pub part: u32,
}

impl ArmId {
    /// The implementer's name as `lscpu` prints it, `unknown` for a code not listed.
    pub fn implementer_name(&self) -> &'static str {
        match self.implementer {
            0x41 => "ARM",
            0x42 => "Broadcom",
            0x43 => "Cavium",
            0x46 => "Fujitsu",
            0x48 => "HiSilicon",
            0x4e => "NVIDIA",
            0x50 => "APM",
            0x51 => "Qualcomm",
            0x61 => "Apple",
            0x6d => "Microsoft",
            0xc0 => "Ampere",
            _ => "unknown",
        }
    }
}

/// Splits a `MIDR_EL1` value (as `/sys/devices/system/cpu/cpu0/regs/identification/midr_el1`
/// prints it: `0x00000000410fd0c1`) into implementer and part number; `None` when the text
/// is not a hexadecimal number.
pub fn decode_midr(text: &str) -> Option<ArmId> {
    let t = text.trim();
    let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))?;
    let midr = u64::from_str_radix(hex, 16).ok()?;
    Some(ArmId {
        implementer: ((midr >> 24) & 0xff) as u32,
        part: ((midr >> 4) & 0xfff) as u32,
    })
}

/// The first processor's `CPU implementer` and `CPU part` lines of an arm64
/// `/proc/cpuinfo`; `None` when either is absent (an x86 `/proc/cpuinfo`, or the host's
/// as QEMU's user-mode emulator shows it).
pub fn parse_cpuinfo_midr(text: &str) -> Option<ArmId> {
    let field = |key: &str| {
        text.lines().find_map(|line| {
            let (k, v) = line.split_once(':')?;
            if k.trim() != key {
                return None;
            }
            let v = v.trim();
            u32::from_str_radix(v.strip_prefix("0x").unwrap_or(v), 16).ok()
        })
    };
    Some(ArmId {
        implementer: field("CPU implementer")?,
        part: field("CPU part")?,
    })
}

/// Folds CPUID leaf 1 EAX into (family, model, stepping) the way Intel's SDM and AMD's
/// manuals prescribe.
pub fn decode_signature(eax: u32) -> (u32, u32, u32) {
    let stepping = eax & 0xF;
    let base_model = (eax >> 4) & 0xF;
    let base_family = (eax >> 8) & 0xF;
    let ext_model = (eax >> 16) & 0xF;
    let ext_family = (eax >> 20) & 0xFF;
    let family = if base_family == 0xF {
        base_family + ext_family
    } else {
        base_family
    };
    let model = if base_family == 0x6 || base_family == 0xF {
        (ext_model << 4) | base_model
    } else {
        base_model
    };
    (family, model, stepping)
}

/// Feature groups as CPU generations added them; presets are unions of groups.
const SSE3: &[Feature] = &[Sse2, Sse3];
const NEHALEM: &[Feature] = &[Ssse3, Sse41, Sse42, Popcnt];
const AESNI: &[Feature] = &[Aes, Pclmulqdq];
const HASWELL: &[Feature] = &[Avx, Avx2, Fma, Bmi1, Bmi2, Movbe];
const ADX: &[Feature] = &[Adx];
const SHA_VAES: &[Feature] = &[Sha, Vaes, Vpclmulqdq];
const GFNI: &[Feature] = &[Gfni];
const AVX512_SKX: &[Feature] = &[Avx512f, Avx512cd, Avx512dq, Avx512bw, Avx512vl];
const AVX512_ICL: &[Feature] = &[
    Avx512ifma,
    Avx512vbmi,
    Avx512vbmi2,
    Avx512vnni,
    Avx512bitalg,
    Avx512vpopcntdq,
];
const BF16: &[Feature] = &[Avx512bf16];
const FP16: &[Feature] = &[Avx512fp16];
/// arm64: Advanced SIMD (every ARMv8-A application core).
const ASIMD: &[Feature] = &[Neon];
/// arm64: the Crypto Extensions' AES and 64-bit polynomial multiply (`PMULL`).
const ARM_CE: &[Feature] = &[Aes, Pmull];

/// The feature sets several presets share: a generation and the parts built like it.
const ICE_LAKE: &[&[Feature]] = &[
    SSE3, NEHALEM, AESNI, HASWELL, ADX, SHA_VAES, GFNI, AVX512_SKX, AVX512_ICL,
];
const SAPPHIRE_RAPIDS: &[&[Feature]] = &[
    SSE3, NEHALEM, AESNI, HASWELL, ADX, SHA_VAES, GFNI, AVX512_SKX, AVX512_ICL, BF16, FP16,
];
const ALDER_LAKE: &[&[Feature]] = &[SSE3, NEHALEM, AESNI, HASWELL, ADX, SHA_VAES, GFNI];
const ZEN4: &[&[Feature]] = &[
    SSE3, NEHALEM, AESNI, HASWELL, ADX, SHA_VAES, GFNI, AVX512_SKX, AVX512_ICL, BF16,
];

/// A named CPU identity for tests and `--cpu`.
struct Preset {
    name: &'static str,
    arch: Arch,
    vendor: &'static str,
    family: u32,
    model: u32,
    stepping: u32,
    /// arm64: `(implementer, part)`.
    arm: Option<(u32, u32)>,
    features: &'static [&'static [Feature]],
}

impl Preset {
    /// An x86-64 preset.
    const fn x86(
        name: &'static str,
        vendor: &'static str,
        (family, model, stepping): (u32, u32, u32),
        features: &'static [&'static [Feature]],
    ) -> Preset {
        Preset {
            name,
            arch: Arch::X86_64,
            vendor,
            family,
            model,
            stepping,
            arm: None,
            features,
        }
    }

    /// An arm64 preset: implementer and part number from the kernel's `cputype.h`.
    const fn arm(
        name: &'static str,
        vendor: &'static str,
        (implementer, part): (u32, u32),
        features: &'static [&'static [Feature]],
    ) -> Preset {
        Preset {
            name,
            arch: Arch::Aarch64,
            vendor,
            family: 0,
            model: 0,
            stepping: 0,
            arm: Some((implementer, part)),
            features,
        }
    }
}

const INTEL: &str = "GenuineIntel";
const AMD: &str = "AuthenticAMD";

/// Real signatures: Intel family 6 models from the SDM's model table (and the kernel's
/// `arch/x86/include/asm/intel-family.h`: `INTEL_ALDERLAKE` 0x97, `INTEL_EMERALDRAPIDS_X`
/// 0xCF, `INTEL_GRANITERAPIDS_X` 0xAD, `INTEL_ARROWLAKE` 0xC6), AMD family 0x19 from the
/// Zen 3 (Milan) and Zen 4 (Genoa) parts and family 0x1A model 0x02 from Zen 5 EPYC 9005
/// (Turin; AMD's revision guide for family 1Ah models 00h-0Fh, inside the kernel's Zen 5
/// model ranges in `arch/x86/kernel/cpu/amd.c`), the server part with the full 512-bit
/// datapath.
/// `generic-x86_64` is a Pentium 4 (Prescott, 64-bit): SSE3 and nothing newer. The arm64
/// cores carry `MIDR_EL1` implementer and part numbers from the kernel's
/// `arch/arm64/include/asm/cputype.h`.
const PRESETS: &[Preset] = &[
    Preset::x86("generic-x86_64", INTEL, (0xF, 0x4, 1), &[SSE3]),
    Preset::x86("westmere", INTEL, (6, 0x2C, 2), &[SSE3, NEHALEM, AESNI]),
    Preset::x86(
        "haswell",
        INTEL,
        (6, 0x3C, 3),
        &[SSE3, NEHALEM, AESNI, HASWELL],
    ),
    Preset::x86(
        "skylake-x",
        INTEL,
        (6, 0x55, 4),
        &[SSE3, NEHALEM, AESNI, HASWELL, ADX, AVX512_SKX],
    ),
    Preset::x86("icelake-client", INTEL, (6, 0x7E, 5), ICE_LAKE),
    Preset::x86("icelake-server", INTEL, (6, 0x6A, 6), ICE_LAKE),
    Preset::x86("tigerlake", INTEL, (6, 0x8C, 1), ICE_LAKE),
    Preset::x86("sapphire-rapids", INTEL, (6, 0x8F, 8), SAPPHIRE_RAPIDS),
    Preset::x86("emerald-rapids", INTEL, (6, 0xCF, 2), SAPPHIRE_RAPIDS),
    Preset::x86("granite-rapids", INTEL, (6, 0xAD, 1), SAPPHIRE_RAPIDS),
    // The hybrid client parts: VAES and VPCLMULQDQ on ymm, no AVX-512 (the E-cores have
    // none, so it is fused off on the P-cores too): the `-avx2` drivers.
    Preset::x86("alder-lake", INTEL, (6, 0x97, 2), ALDER_LAKE),
    Preset::x86("arrow-lake", INTEL, (6, 0xC6, 2), ALDER_LAKE),
    Preset::x86(
        "zen3",
        AMD,
        (0x19, 0x01, 1),
        &[SSE3, NEHALEM, AESNI, HASWELL, ADX, SHA_VAES],
    ),
    Preset::x86("zen4", AMD, (0x19, 0x11, 1), ZEN4),
    // Zen 5 adds no feature the drivers look at (VP2INTERSECT, AVX-VNNI are not modelled).
    Preset::x86("zen5", AMD, (0x1A, 0x02, 1), ZEN4),
    // arm64. Neoverse N1 (Graviton2, Ampere Altra): the Crypto Extensions.
    Preset::arm("neoverse-n1", "ARM", (0x41, 0xd0c), &[ASIMD, ARM_CE]),
    // Neoverse V1 (Graviton3) and V2 (Graviton4, Grace): the Crypto Extensions too, and
    // SVE, which no driver uses, so they choose the `-ce` drivers.
    Preset::arm("neoverse-v1", "ARM", (0x41, 0xd40), &[ASIMD, ARM_CE]),
    Preset::arm("neoverse-v2", "ARM", (0x41, 0xd4f), &[ASIMD, ARM_CE]),
    // Cortex-A72 as in a Raspberry Pi 4: the BCM2711 SoC was licensed without the
    // optional Crypto Extensions, so NEON only (the portable and NEON drivers serve).
    Preset::arm("cortex-a72", "ARM", (0x41, 0xd08), &[ASIMD]),
    // Apple M1 performance core (Firestorm, `APPLE_CPU_PART_M1_FIRESTORM`).
    Preset::arm("apple-m1", "Apple", (0x61, 0x023), &[ASIMD, ARM_CE]),
];

impl CpuInfo {
    /// Names accepted by [`CpuInfo::preset`], `native` first.
    pub fn preset_names() -> Vec<&'static str> {
        std::iter::once("native")
            .chain(PRESETS.iter().map(|p| p.name))
            .collect()
    }

    /// A named identity; `native` reads this machine.
    pub fn preset(name: &str) -> Option<CpuInfo> {
        if name == "native" {
            return Some(CpuInfo::native());
        }
        PRESETS.iter().find(|p| p.name == name).map(|p| CpuInfo {
            arch: p.arch,
            vendor: p.vendor.to_string(),
            brand: None,
            family: p.family,
            model: p.model,
            stepping: p.stepping,
            features: p.features.iter().flat_map(|g| g.iter().copied()).collect(),
            source: p.name.to_string(),
            arm: p.arm.map(|(implementer, part)| ArmId { implementer, part }),
        })
    }

    /// This machine, read once per call (the registry calls it once at boot).
    pub fn native() -> CpuInfo {
        let (vendor, family, model, stepping) = native_signature();
        let arm = native_arm_id();
        CpuInfo {
            // A build for an architecture without drivers plans as x86-64 would: only the
            // portable drivers (no requirements) are supported there either way.
            arch: Arch::HOST.unwrap_or(Arch::X86_64),
            vendor: match arm {
                Some(id) => id.implementer_name().to_string(),
                None => vendor,
            },
            brand: native_brand(),
            family,
            model,
            stepping,
            features: crate::host::HostFeatures::detect().features(),
            source: "native".to_string(),
            arm,
        }
    }

    /// The same identity with some features masked off (`cpu.disable` in configuration).
    pub fn without(mut self, masked: Features) -> CpuInfo {
        self.features = self.features.minus(masked);
        self
    }
}

#[cfg(target_arch = "x86_64")]
fn native_signature() -> (String, u32, u32, u32) {
    use std::arch::x86_64::__cpuid;
    let leaf0 = __cpuid(0);
    let mut vendor = Vec::with_capacity(12);
    for reg in [leaf0.ebx, leaf0.edx, leaf0.ecx] {
        vendor.extend_from_slice(&reg.to_le_bytes());
    }
    let (family, model, stepping) = decode_signature(__cpuid(1).eax);
    (
        String::from_utf8_lossy(&vendor).into_owned(),
        family,
        model,
        stepping,
    )
}

/// CPUID's brand string, without the padding (NULs, and the leading spaces some Intel
/// parts put there); `None` when the extended leaves stop short of it.
#[cfg(target_arch = "x86_64")]
fn native_brand() -> Option<String> {
    use std::arch::x86_64::__cpuid;
    if __cpuid(0x8000_0000).eax < 0x8000_0004 {
        return None;
    }
    let mut bytes = Vec::with_capacity(48);
    for leaf in 0x8000_0002u32..=0x8000_0004 {
        let r = __cpuid(leaf);
        for reg in [r.eax, r.ebx, r.ecx, r.edx] {
            bytes.extend_from_slice(&reg.to_le_bytes());
        }
    }
    // A C string, as the kernel reads it: whatever follows the first NUL is not part of it.
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let text = String::from_utf8_lossy(&bytes[..end]);
    let brand = text.trim();
    (!brand.is_empty()).then(|| brand.to_string())
}

#[cfg(not(target_arch = "x86_64"))]
fn native_brand() -> Option<String> {
    None
}

#[cfg(not(target_arch = "x86_64"))]
fn native_signature() -> (String, u32, u32, u32) {
    ("unknown".to_string(), 0, 0, 0)
}

/// arm64: implementer and part number of the first CPU, from the kernel's
/// `midr_el1` file or else `/proc/cpuinfo`; `None` when neither says (QEMU's user-mode
/// emulator shows the host's files).
#[cfg(target_arch = "aarch64")]
fn native_arm_id() -> Option<ArmId> {
    std::fs::read_to_string("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1")
        .ok()
        .and_then(|t| decode_midr(&t))
        .or_else(|| {
            std::fs::read_to_string("/proc/cpuinfo")
                .ok()
                .and_then(|t| parse_cpuinfo_midr(&t))
        })
}

#[cfg(not(target_arch = "aarch64"))]
fn native_arm_id() -> Option<ArmId> {
    None
}

/// Features this machine can execute.
///
/// `cpufeatures` serves the common flags. VAES and VPCLMULQDQ come from std's detection:
/// `cpufeatures` 0.2/0.3 reports them only when the OS enables zmm state, but VEX-encoded
/// 256-bit VAES needs only the CPUID bit and ymm state (Intel SDM), which is exactly
/// what a Zen 3 has.
#[cfg(target_arch = "x86_64")]
pub(crate) fn native_features() -> Features {
    cpufeatures::new!(cpu_aes, "aes");
    cpufeatures::new!(cpu_pclmul, "pclmulqdq");
    cpufeatures::new!(cpu_avx2, "avx2");
    cpufeatures::new!(cpu_sha, "sha");
    let mut f = Features::EMPTY;
    let std_checks: &[(Feature, bool)] = &[
        (Sse2, std::arch::is_x86_feature_detected!("sse2")),
        (Sse3, std::arch::is_x86_feature_detected!("sse3")),
        (Ssse3, std::arch::is_x86_feature_detected!("ssse3")),
        (Sse41, std::arch::is_x86_feature_detected!("sse4.1")),
        (Sse42, std::arch::is_x86_feature_detected!("sse4.2")),
        (Popcnt, std::arch::is_x86_feature_detected!("popcnt")),
        (Aes, cpu_aes::get()),
        (Pclmulqdq, cpu_pclmul::get()),
        (Avx, std::arch::is_x86_feature_detected!("avx")),
        (Avx2, cpu_avx2::get()),
        (Fma, std::arch::is_x86_feature_detected!("fma")),
        (Bmi1, std::arch::is_x86_feature_detected!("bmi1")),
        (Bmi2, std::arch::is_x86_feature_detected!("bmi2")),
        (Adx, std::arch::is_x86_feature_detected!("adx")),
        (Movbe, std::arch::is_x86_feature_detected!("movbe")),
        (Sha, cpu_sha::get()),
        (Vaes, std::arch::is_x86_feature_detected!("vaes")),
        (
            Vpclmulqdq,
            std::arch::is_x86_feature_detected!("vpclmulqdq"),
        ),
        (Gfni, std::arch::is_x86_feature_detected!("gfni")),
        (Avx512f, std::arch::is_x86_feature_detected!("avx512f")),
        (Avx512cd, std::arch::is_x86_feature_detected!("avx512cd")),
        (Avx512dq, std::arch::is_x86_feature_detected!("avx512dq")),
        (Avx512bw, std::arch::is_x86_feature_detected!("avx512bw")),
        (Avx512vl, std::arch::is_x86_feature_detected!("avx512vl")),
        (
            Avx512ifma,
            std::arch::is_x86_feature_detected!("avx512ifma"),
        ),
        (
            Avx512vbmi,
            std::arch::is_x86_feature_detected!("avx512vbmi"),
        ),
        (
            Avx512vbmi2,
            std::arch::is_x86_feature_detected!("avx512vbmi2"),
        ),
        (
            Avx512vnni,
            std::arch::is_x86_feature_detected!("avx512vnni"),
        ),
        (
            Avx512bitalg,
            std::arch::is_x86_feature_detected!("avx512bitalg"),
        ),
        (
            Avx512vpopcntdq,
            std::arch::is_x86_feature_detected!("avx512vpopcntdq"),
        ),
        (
            Avx512bf16,
            std::arch::is_x86_feature_detected!("avx512bf16"),
        ),
        (
            Avx512fp16,
            std::arch::is_x86_feature_detected!("avx512fp16"),
        ),
    ];
    for &(feat, present) in std_checks {
        if present {
            f.insert(feat);
        }
    }
    f
}

/// Features this machine can execute: std's detection (`HWCAP` on Linux). `aes` and
/// `pmull` are the Crypto Extensions, `neon` Advanced SIMD.
#[cfg(target_arch = "aarch64")]
pub(crate) fn native_features() -> Features {
    let mut f = Features::EMPTY;
    let std_checks: &[(Feature, bool)] = &[
        (Neon, std::arch::is_aarch64_feature_detected!("neon")),
        (Aes, std::arch::is_aarch64_feature_detected!("aes")),
        (Pmull, std::arch::is_aarch64_feature_detected!("pmull")),
    ];
    for &(feat, present) in std_checks {
        if present {
            f.insert(feat);
        }
    }
    f
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) fn native_features() -> Features {
    Features::EMPTY
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_arithmetic() {
        // Zen 3 Milan: family 0xF + ext 0xA = 0x19, model 0x01.
        assert_eq!(decode_signature(0x00A0_0F11), (0x19, 0x01, 1));
        // Ice Lake server: family 6, ext model 6, model 0xA.
        assert_eq!(decode_signature(0x0006_06A6), (6, 0x6A, 6));
        // Skylake-X: 0x50654.
        assert_eq!(decode_signature(0x0005_0654), (6, 0x55, 4));
        // Family 5 ignores the extended model field.
        assert_eq!(decode_signature(0x0001_0543), (5, 0x4, 3));
    }

    #[test]
    fn presets_exist_and_differ() {
        for name in CpuInfo::preset_names() {
            let cpu = CpuInfo::preset(name).unwrap();
            // Every preset's features are of its own architecture only.
            assert_eq!(cpu.features.arches(), vec![cpu.arch], "{name}");
            match cpu.arch {
                Arch::X86_64 => assert!(cpu.features.has(Sse2), "{name}"),
                // A preset names its core; the native identity may be unknown (QEMU).
                Arch::Aarch64 => assert!(
                    cpu.features.has(Neon) && (cpu.arm.is_some() || name == "native"),
                    "{name}"
                ),
            }
        }
        let z3 = CpuInfo::preset("zen3").unwrap();
        assert!(z3.features.has(Vaes) && !z3.features.has(Avx512f));
        let g = CpuInfo::preset("generic-x86_64").unwrap();
        assert!(!g.features.has(Aes) && !g.features.has(Ssse3));
        let skx = CpuInfo::preset("skylake-x").unwrap();
        assert_eq!(
            (skx.vendor.as_str(), skx.family, skx.model),
            ("GenuineIntel", 6, 0x55)
        );
        assert!(CpuInfo::preset("pentium").is_none());
        let n1 = CpuInfo::preset("neoverse-n1").unwrap();
        assert_eq!(n1.arch, Arch::Aarch64);
        assert_eq!(n1.features, Features::of(&[Neon, Aes, Pmull]));
        assert_eq!(
            n1.arm,
            Some(ArmId {
                implementer: 0x41,
                part: 0xd0c
            })
        );
        let a72 = CpuInfo::preset("cortex-a72").unwrap();
        assert_eq!(a72.features, Features::of(&[Neon]));
        let m1 = CpuInfo::preset("apple-m1").unwrap();
        assert_eq!(
            (m1.vendor.as_str(), m1.arm.unwrap().implementer_name()),
            ("Apple", "Apple")
        );
        assert_eq!(m1.features, Features::of(&[Neon, Aes, Pmull]));
    }

    #[test]
    fn midr_and_cpuinfo_decode() {
        // Neoverse N1 r3p1, as the kernel's sysfs file prints it.
        let n1 = ArmId {
            implementer: 0x41,
            part: 0xd0c,
        };
        assert_eq!(decode_midr("0x00000000413fd0c1\n"), Some(n1));
        assert_eq!(decode_midr("unknown"), None);
        assert_eq!(decode_midr(""), None);
        let cpuinfo = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd aes pmull\n\
                       CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\n\
                       CPU part\t: 0xd0c\nCPU revision\t: 1\n";
        assert_eq!(parse_cpuinfo_midr(cpuinfo), Some(n1));
        // An x86 /proc/cpuinfo (what QEMU's user-mode emulator shows): no identity.
        assert_eq!(
            parse_cpuinfo_midr("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"),
            None
        );
        assert_eq!(n1.implementer_name(), "ARM");
        assert_eq!(
            ArmId {
                implementer: 0x99,
                part: 1
            }
            .implementer_name(),
            "unknown"
        );
    }

    #[test]
    fn native_identity_is_of_this_architecture() {
        let cpu = CpuInfo::native();
        assert_eq!(Some(cpu.arch), Arch::HOST);
        assert!(cpu.features.arches().iter().all(|&a| a == cpu.arch));
        if cfg!(target_arch = "x86_64") {
            assert!(cpu.features.has(Sse2) && cpu.arm.is_none());
        }
        if cfg!(target_arch = "aarch64") {
            // Every ARMv8-A Linux userland has Advanced SIMD; the identity may be
            // unknown (QEMU user mode), in which case the vendor says so.
            assert!(cpu.features.has(Neon));
            if cpu.arm.is_none() {
                assert_eq!(cpu.vendor, "unknown");
            }
        }
    }

    #[test]
    fn masking() {
        let z4 = CpuInfo::preset("zen4")
            .unwrap()
            .without(Features::of(&[Avx512f]));
        assert!(!z4.features.has(Avx512f) && z4.features.has(Avx512bw));
    }
}
