//! The CPU identity: read once from CPUID, or built from a named preset so that tests and
//! `cryptoctl --cpu` can ask what would happen on another machine.

use crate::features::{Feature, Features};
use Feature::*;

/// Vendor, family, model, stepping and features of one CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuInfo {
    /// CPUID vendor string (`GenuineIntel`, `AuthenticAMD`).
    pub vendor: String,
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

/// A named CPU identity for tests and `--cpu`.
struct Preset {
    name: &'static str,
    vendor: &'static str,
    family: u32,
    model: u32,
    stepping: u32,
    features: &'static [&'static [Feature]],
}

const INTEL: &str = "GenuineIntel";
const AMD: &str = "AuthenticAMD";

/// Real signatures: Intel family 6 models from the SDM's model table (and the kernel's
/// `intel-family.h`), AMD family 0x19 from the Zen 3 (Milan) and Zen 4 (Genoa) parts.
/// `generic-x86_64` is a Pentium 4 (Prescott, 64-bit): SSE3 and nothing newer.
const PRESETS: &[Preset] = &[
    Preset {
        name: "generic-x86_64",
        vendor: INTEL,
        family: 0xF,
        model: 0x4,
        stepping: 1,
        features: &[SSE3],
    },
    Preset {
        name: "westmere",
        vendor: INTEL,
        family: 6,
        model: 0x2C,
        stepping: 2,
        features: &[SSE3, NEHALEM, AESNI],
    },
    Preset {
        name: "haswell",
        vendor: INTEL,
        family: 6,
        model: 0x3C,
        stepping: 3,
        features: &[SSE3, NEHALEM, AESNI, HASWELL],
    },
    Preset {
        name: "skylake-x",
        vendor: INTEL,
        family: 6,
        model: 0x55,
        stepping: 4,
        features: &[SSE3, NEHALEM, AESNI, HASWELL, ADX, AVX512_SKX],
    },
    Preset {
        name: "icelake-client",
        vendor: INTEL,
        family: 6,
        model: 0x7E,
        stepping: 5,
        features: &[
            SSE3, NEHALEM, AESNI, HASWELL, ADX, SHA_VAES, GFNI, AVX512_SKX, AVX512_ICL,
        ],
    },
    Preset {
        name: "icelake-server",
        vendor: INTEL,
        family: 6,
        model: 0x6A,
        stepping: 6,
        features: &[
            SSE3, NEHALEM, AESNI, HASWELL, ADX, SHA_VAES, GFNI, AVX512_SKX, AVX512_ICL,
        ],
    },
    Preset {
        name: "tigerlake",
        vendor: INTEL,
        family: 6,
        model: 0x8C,
        stepping: 1,
        features: &[
            SSE3, NEHALEM, AESNI, HASWELL, ADX, SHA_VAES, GFNI, AVX512_SKX, AVX512_ICL,
        ],
    },
    Preset {
        name: "sapphire-rapids",
        vendor: INTEL,
        family: 6,
        model: 0x8F,
        stepping: 8,
        features: &[
            SSE3, NEHALEM, AESNI, HASWELL, ADX, SHA_VAES, GFNI, AVX512_SKX, AVX512_ICL, BF16, FP16,
        ],
    },
    Preset {
        name: "zen3",
        vendor: AMD,
        family: 0x19,
        model: 0x01,
        stepping: 1,
        features: &[SSE3, NEHALEM, AESNI, HASWELL, ADX, SHA_VAES],
    },
    Preset {
        name: "zen4",
        vendor: AMD,
        family: 0x19,
        model: 0x11,
        stepping: 1,
        features: &[
            SSE3, NEHALEM, AESNI, HASWELL, ADX, SHA_VAES, GFNI, AVX512_SKX, AVX512_ICL, BF16,
        ],
    },
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
            vendor: p.vendor.to_string(),
            family: p.family,
            model: p.model,
            stepping: p.stepping,
            features: p.features.iter().flat_map(|g| g.iter().copied()).collect(),
            source: p.name.to_string(),
        })
    }

    /// This machine, read once per call (the registry calls it once at boot).
    pub fn native() -> CpuInfo {
        let (vendor, family, model, stepping) = native_signature();
        CpuInfo {
            vendor,
            family,
            model,
            stepping,
            features: crate::host::HostFeatures::detect().features(),
            source: "native".to_string(),
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

#[cfg(not(target_arch = "x86_64"))]
fn native_signature() -> (String, u32, u32, u32) {
    ("unknown".to_string(), 0, 0, 0)
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

/// Features this arm64 machine can execute, from std's detection (the kernel's hwcaps):
/// `aes` (AESE/AESD/AESMC/AESIMC), `pmull` (PMULL/PMULL2 on 64-bit lanes) and `neon`
/// (Advanced SIMD). Minimal: only what the arm64 drivers need.
#[cfg(target_arch = "aarch64")]
pub(crate) fn native_features() -> Features {
    let mut f = Features::EMPTY;
    let std_checks: &[(Feature, bool)] = &[
        (Aes, std::arch::is_aarch64_feature_detected!("aes")),
        (Pmull, std::arch::is_aarch64_feature_detected!("pmull")),
        (Neon, std::arch::is_aarch64_feature_detected!("neon")),
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
            assert!(cpu.features.has(Sse2), "{name}");
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
    }

    #[test]
    fn masking() {
        let z4 = CpuInfo::preset("zen4")
            .unwrap()
            .without(Features::of(&[Avx512f]));
        assert!(!z4.features.has(Avx512f) && z4.features.has(Avx512bw));
    }
}
