//! CPU feature names and a small set type. Names are the ones `/proc/cpuinfo`-style tools
//! and `std::is_x86_feature_detected!` use, so configuration (`cpu.disable`) and `explain`
//! speak the operator's language.

use core::fmt;

use crate::arch::Arch;

macro_rules! features {
    ($($variant:ident => $name:literal,)*) => {
        /// One CPU feature a driver may require.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        #[non_exhaustive]
        pub enum Feature { $($variant,)* }

        impl Feature {
            /// Every feature, in bit order.
            pub const ALL: &'static [Feature] = &[$(Feature::$variant,)*];

            /// The lower-case name (`avx512bw`, `vaes`).
            pub const fn name(self) -> &'static str {
                match self { $(Feature::$variant => $name,)* }
            }

            /// Parses a feature name as written in configuration; case-insensitive.
            pub fn from_name(name: &str) -> Option<Feature> {
                let lower = name.to_ascii_lowercase();
                match lower.as_str() { $($name => Some(Feature::$variant),)* _ => None }
            }
        }
    };
}

features! {
    Sse2 => "sse2",
    Sse3 => "sse3",
    Ssse3 => "ssse3",
    Sse41 => "sse4.1",
    Sse42 => "sse4.2",
    Popcnt => "popcnt",
    Aes => "aes",
    Pclmulqdq => "pclmulqdq",
    Avx => "avx",
    Avx2 => "avx2",
    Fma => "fma",
    Bmi1 => "bmi1",
    Bmi2 => "bmi2",
    Adx => "adx",
    Movbe => "movbe",
    Sha => "sha",
    Vaes => "vaes",
    Vpclmulqdq => "vpclmulqdq",
    Gfni => "gfni",
    Avx512f => "avx512f",
    Avx512cd => "avx512cd",
    Avx512dq => "avx512dq",
    Avx512bw => "avx512bw",
    Avx512vl => "avx512vl",
    Avx512ifma => "avx512ifma",
    Avx512vbmi => "avx512vbmi",
    Avx512vbmi2 => "avx512vbmi2",
    Avx512vnni => "avx512vnni",
    Avx512bitalg => "avx512bitalg",
    Avx512vpopcntdq => "avx512vpopcntdq",
    Avx512bf16 => "avx512bf16",
    Avx512fp16 => "avx512fp16",
    // arm64 (`aes` above is shared: the Crypto Extensions AES instructions on arm64).
    Neon => "neon",
    Pmull => "pmull",
}

impl Feature {
    /// The architecture whose instructions this feature names, `None` for a name two
    /// architectures share (`aes`: AES-NI on x86-64, the Crypto Extensions on arm64).
    ///
    /// A driver record's `requires` names at least one feature of its own architecture
    /// (x86-64 records `sse2` or `avx2` beside `aes`, arm64 records `neon`), so that no
    /// CPU of the other architecture can ever satisfy it.
    pub const fn arch(self) -> Option<Arch> {
        match self {
            Feature::Aes => None,
            Feature::Neon | Feature::Pmull => Some(Arch::Aarch64),
            _ => Some(Arch::X86_64),
        }
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of [`Feature`]s, as a bit mask.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Features(u64);

impl Features {
    /// The empty set.
    pub const EMPTY: Features = Features(0);

    /// The set of the given features.
    pub const fn of(list: &[Feature]) -> Features {
        let mut bits = 0u64;
        let mut i = 0;
        while i < list.len() {
            bits |= 1 << list[i] as u8;
            i += 1;
        }
        Features(bits)
    }

    /// Whether `f` is in the set.
    pub const fn has(self, f: Feature) -> bool {
        self.0 & (1 << f as u8) != 0
    }

    /// Adds `f`.
    pub fn insert(&mut self, f: Feature) {
        self.0 |= 1 << f as u8;
    }

    /// Removes `f`.
    pub fn remove(&mut self, f: Feature) {
        self.0 &= !(1 << f as u8);
    }

    /// The union.
    pub const fn union(self, other: Features) -> Features {
        Features(self.0 | other.0)
    }

    /// Members of `self` that `other` lacks.
    pub const fn minus(self, other: Features) -> Features {
        Features(self.0 & !other.0)
    }

    /// Members of both.
    pub const fn intersect(self, other: Features) -> Features {
        Features(self.0 & other.0)
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The members, in bit order.
    pub fn iter(self) -> impl Iterator<Item = Feature> {
        Feature::ALL.iter().copied().filter(move |f| self.has(*f))
    }

    /// The architectures whose own features (see [`Feature::arch`]) are members.
    pub fn arches(self) -> Vec<Arch> {
        let mut v: Vec<Arch> = self.iter().filter_map(Feature::arch).collect();
        v.sort();
        v.dedup();
        v
    }

    /// The member names.
    pub fn names(self) -> Vec<&'static str> {
        self.iter().map(Feature::name).collect()
    }
}

impl fmt::Debug for Features {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl fmt::Display for Features {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names().join(" "))
    }
}

impl FromIterator<Feature> for Features {
    fn from_iter<I: IntoIterator<Item = Feature>>(iter: I) -> Self {
        let mut s = Features::EMPTY;
        for f in iter {
            s.insert(f);
        }
        s
    }
}

/// What each feature is built on, as the CPU defines them: a CPU (or a hypervisor's
/// CPUID) without a feature has none of the features built on it, so masking one masks
/// those too ([`Features::with_dependents`]). x86-64 only; `aes` is built on `sse2` there
/// (its instructions work on xmm registers) and on nothing on arm64.
const BUILT_ON: &[(Feature, &[Feature])] = {
    use Feature::*;
    &[
        (Sse3, &[Sse2]),
        (Ssse3, &[Sse3]),
        (Sse41, &[Ssse3]),
        (Sse42, &[Sse41]),
        (Pclmulqdq, &[Sse2]),
        (Sha, &[Sse2]),
        (Gfni, &[Sse2]),
        (Avx, &[Sse42]),
        (Avx2, &[Avx]),
        (Fma, &[Avx]),
        (Vaes, &[Avx, Aes]),
        (Vpclmulqdq, &[Avx, Pclmulqdq]),
        (Avx512f, &[Avx2, Fma]),
        (Avx512cd, &[Avx512f]),
        (Avx512dq, &[Avx512f]),
        (Avx512bw, &[Avx512f]),
        (Avx512vl, &[Avx512f]),
        (Avx512ifma, &[Avx512f]),
        (Avx512vbmi, &[Avx512f]),
        (Avx512vbmi2, &[Avx512f]),
        (Avx512vnni, &[Avx512f]),
        (Avx512bitalg, &[Avx512f]),
        (Avx512vpopcntdq, &[Avx512f]),
        (Avx512bf16, &[Avx512f]),
        (Avx512fp16, &[Avx512f]),
    ]
};

impl Features {
    /// The set and every feature built, directly or not, on one of its members (on
    /// x86-64: `sse2` brings every SIMD feature, `avx2` brings VAES and AVX-512, `avx512f`
    /// every AVX-512 extension). A configuration's `[cpu] disable` masks this closure,
    /// as a CPU without a feature has nothing built on it.
    pub fn with_dependents(self) -> Features {
        let mut out = self;
        if cfg!(target_arch = "x86_64") && out.has(Feature::Sse2) {
            out.insert(Feature::Aes);
        }
        loop {
            let before = out;
            for &(f, on) in BUILT_ON {
                if on.iter().any(|&d| out.has(d)) {
                    out.insert(f);
                }
            }
            if out == before {
                return out;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_masked_feature_takes_what_is_built_on_it() {
        let sse2 = Features::of(&[Feature::Sse2]).with_dependents();
        for f in [
            Feature::Ssse3,
            Feature::Pclmulqdq,
            Feature::Avx2,
            Feature::Vaes,
            Feature::Avx512f,
            Feature::Avx512ifma,
        ] {
            assert!(sse2.has(f), "{f}");
        }
        assert_eq!(sse2.has(Feature::Aes), cfg!(target_arch = "x86_64"));
        for f in [
            Feature::Bmi2,
            Feature::Adx,
            Feature::Popcnt,
            Feature::Neon,
            Feature::Pmull,
        ] {
            assert!(!sse2.has(f), "{f}");
        }
        let avx512 = Features::of(&[Feature::Avx512f]).with_dependents();
        assert!(avx512.has(Feature::Avx512vl) && avx512.has(Feature::Avx512ifma));
        assert!(!avx512.has(Feature::Vaes) && !avx512.has(Feature::Avx2));
        let aes = Features::of(&[Feature::Aes]).with_dependents();
        assert!(aes.has(Feature::Vaes) && !aes.has(Feature::Vpclmulqdq));
        let arm = Features::of(&[Feature::Pmull]).with_dependents();
        assert_eq!(arm, Features::of(&[Feature::Pmull]));
    }

    #[test]
    fn names_round_trip() {
        for &f in Feature::ALL {
            assert_eq!(Feature::from_name(f.name()), Some(f));
        }
        assert_eq!(Feature::from_name("AVX512F"), Some(Feature::Avx512f));
        assert_eq!(Feature::from_name("nope"), None);
    }

    #[test]
    fn set_operations() {
        let a = Features::of(&[Feature::Aes, Feature::Avx2]);
        let b = Features::of(&[Feature::Aes]);
        assert!(a.has(Feature::Avx2));
        assert_eq!(a.minus(b).names(), vec!["avx2"]);
        assert!(b.minus(a).is_empty());
        assert_eq!(a.to_string(), "aes avx2");
    }

    #[test]
    fn features_belong_to_one_architecture_but_aes() {
        assert_eq!(Feature::Aes.arch(), None);
        assert_eq!(Feature::Sse2.arch(), Some(Arch::X86_64));
        assert_eq!(Feature::Avx512fp16.arch(), Some(Arch::X86_64));
        assert_eq!(Feature::Neon.arch(), Some(Arch::Aarch64));
        assert_eq!(Feature::Pmull.arch(), Some(Arch::Aarch64));
        assert_eq!(Features::of(&[Feature::Aes]).arches(), vec![]);
        assert_eq!(
            Features::of(&[Feature::Aes, Feature::Neon, Feature::Sse2]).arches(),
            vec![Arch::X86_64, Arch::Aarch64]
        );
    }
}
