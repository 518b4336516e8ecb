//! `TestConfig`: how one test operation lays its data out in memory, in the manner of the
//! kernel's `testvec_config`. The same vector must give the same bytes whatever the layout:
//! in place or out of place, split into up to eight divisions of random proportions, each in
//! its own buffer at its own misalignment, with a misaligned key and IV. Layout bugs (the
//! segment walker, a SIMD kernel that assumes alignment, a tail that straddles two
//! segments) show up only under such layouts, which is why every randomized case draws one
//! and every known answer is run under a few fixed ones.
//!
//! A config prints as one line that names everything it decided, e.g.
//! `outofplace src_divs=[61.2%@+3, 38.8%@+17] dst_divs=[100.0%@+9] key_offset=43 iv_offset=5`.
//! Proportions are in tenths of a percent, so the printed config is exactly the config.
//!
//! "In place over two lists aliasing the same memory", which the kernel also tests, cannot
//! be expressed in safe Rust (a shared and a mutable borrow of the same bytes), and the
//! handle API offers no such entry point, so it is not drawn.

use std::fmt;

use rand::Rng;

/// Proportions are expressed in 1/1000 of the data length (tenths of a percent).
pub const PROPORTION_TOTAL: u32 = 1000;

/// Most divisions a list is split into.
pub const MAX_DIVS: usize = 8;

/// Largest key or IV misalignment drawn.
pub const MAX_KEY_IV_OFFSET: usize = 63;

/// Largest misalignment of a division's buffer (within a 4 KiB page, as in the kernel).
pub const MAX_DIV_OFFSET: usize = 4095;

/// One piece of a source or destination list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Division {
    /// Share of the data length, in 1/[`PROPORTION_TOTAL`].
    pub proportion: u32,
    /// Bytes between the start of this division's own buffer and its data.
    pub offset: usize,
}

/// In place (one list holds the input and receives the output) or out of place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// One list: `encrypt_in_place` / `encrypt_segments`.
    InPlace,
    /// Separate source and destination lists: `encrypt_to`.
    OutOfPlace,
}

/// The memory layout of one test operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestConfig {
    /// In place or out of place.
    pub placement: Placement,
    /// Divisions of the source (for in place: of the one list).
    pub src_divs: Vec<Division>,
    /// Divisions of the destination; empty for in place.
    pub dst_divs: Vec<Division>,
    /// Misalignment of the key buffer.
    pub key_offset: usize,
    /// Misalignment of the IV buffer.
    pub iv_offset: usize,
}

impl TestConfig {
    /// One aligned buffer, in place: the common contiguous path.
    pub fn contiguous() -> TestConfig {
        TestConfig {
            placement: Placement::InPlace,
            src_divs: vec![Division {
                proportion: PROPORTION_TOTAL,
                offset: 0,
            }],
            dst_divs: Vec::new(),
            key_offset: 0,
            iv_offset: 0,
        }
    }

    /// The fixed layouts every known-answer vector runs under: contiguous, an odd
    /// three-way split in place (the pieces straddle blocks for any vector length over a
    /// few bytes), and out of place with source and destination split at different points.
    pub fn known_answer_configs() -> Vec<TestConfig> {
        let d = |proportion, offset| Division { proportion, offset };
        vec![
            TestConfig::contiguous(),
            TestConfig {
                placement: Placement::InPlace,
                src_divs: vec![d(317, 1), d(500, 7), d(183, 13)],
                dst_divs: Vec::new(),
                key_offset: 3,
                iv_offset: 5,
            },
            TestConfig {
                placement: Placement::OutOfPlace,
                src_divs: vec![d(503, 2), d(497, 5)],
                dst_divs: vec![d(111, 3), d(889, 0)],
                key_offset: 1,
                iv_offset: 9,
            },
        ]
    }

    /// Draws a random layout: in place or out of place with even odds; each list split
    /// into 1..=8 divisions (one or two divisions half of the time, since most real
    /// requests are contiguous or split once), each at its own random misalignment; a
    /// misaligned key and IV.
    pub fn generate<R: Rng + ?Sized>(rng: &mut R) -> TestConfig {
        let placement = if rng.gen_bool(0.5) {
            Placement::InPlace
        } else {
            Placement::OutOfPlace
        };
        let src_divs = generate_divisions(rng);
        let dst_divs = match placement {
            Placement::InPlace => Vec::new(),
            Placement::OutOfPlace => generate_divisions(rng),
        };
        TestConfig {
            placement,
            src_divs,
            dst_divs,
            key_offset: rng.gen_range(0..=MAX_KEY_IV_OFFSET),
            iv_offset: rng.gen_range(0..=MAX_KEY_IV_OFFSET),
        }
    }

    /// Draws a layout for a single-block cipher, whose API takes one contiguous buffer:
    /// in place, one division at a random misalignment, misaligned key.
    pub fn generate_single<R: Rng + ?Sized>(rng: &mut R) -> TestConfig {
        TestConfig {
            placement: Placement::InPlace,
            src_divs: vec![Division {
                proportion: PROPORTION_TOTAL,
                offset: generate_offset(rng),
            }],
            dst_divs: Vec::new(),
            key_offset: rng.gen_range(0..=MAX_KEY_IV_OFFSET),
            iv_offset: 0,
        }
    }

    /// Whether this is in place over a single division (served by the contiguous API).
    pub fn is_single_buffer(&self) -> bool {
        self.placement == Placement::InPlace && self.src_divs.len() == 1
    }

    /// Whether the proportions of each list add up to the whole and the lists fit the
    /// placement.
    pub fn is_valid(&self) -> bool {
        let whole = |divs: &[Division]| {
            !divs.is_empty()
                && divs.len() <= MAX_DIVS
                && divs.iter().map(|d| d.proportion).sum::<u32>() == PROPORTION_TOTAL
        };
        whole(&self.src_divs)
            && match self.placement {
                Placement::InPlace => self.dst_divs.is_empty(),
                Placement::OutOfPlace => whole(&self.dst_divs),
            }
    }
}

/// Splits `total` bytes over `divs` by their proportions. The lengths always add up to
/// `total` (cut points are rounded down from the cumulative proportions, and the last
/// one is `total` itself); a division may get zero bytes, which is a legitimate, and
/// interesting, segment.
pub fn split_lengths(total: usize, divs: &[Division]) -> Vec<usize> {
    let mut out = Vec::with_capacity(divs.len());
    let mut cumulative: u64 = 0;
    let mut prev = 0usize;
    for (i, d) in divs.iter().enumerate() {
        cumulative += u64::from(d.proportion);
        let cut = if i + 1 == divs.len() {
            total
        } else {
            let c =
                (total as u128 * u128::from(cumulative) / u128::from(PROPORTION_TOTAL)) as usize;
            c.clamp(prev, total)
        };
        out.push(cut - prev);
        prev = cut;
    }
    out
}

pub(crate) fn generate_offset<R: Rng + ?Sized>(rng: &mut R) -> usize {
    match rng.gen_range(0..4) {
        0 | 1 => rng.gen_range(0..16),
        2 => rng.gen_range(0..64),
        _ => rng.gen_range(0..=MAX_DIV_OFFSET),
    }
}

pub(crate) fn generate_divisions<R: Rng + ?Sized>(rng: &mut R) -> Vec<Division> {
    let n = match rng.gen_range(0..4) {
        0 => 1,
        1 => 2,
        _ => rng.gen_range(1..=MAX_DIVS),
    };
    let mut cuts: Vec<u32> = Vec::with_capacity(n + 1);
    while cuts.len() < n - 1 {
        let c = rng.gen_range(1..PROPORTION_TOTAL);
        if !cuts.contains(&c) {
            cuts.push(c);
        }
    }
    cuts.sort_unstable();
    cuts.push(PROPORTION_TOTAL);
    let mut prev = 0;
    cuts.into_iter()
        .map(|c| {
            let proportion = c - prev;
            prev = c;
            Division {
                proportion,
                offset: generate_offset(rng),
            }
        })
        .collect()
}

pub(crate) fn fmt_divs(f: &mut fmt::Formatter<'_>, name: &str, divs: &[Division]) -> fmt::Result {
    write!(f, " {name}=[")?;
    for (i, d) in divs.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(
            f,
            "{}.{}%@+{}",
            d.proportion / 10,
            d.proportion % 10,
            d.offset
        )?;
    }
    f.write_str("]")
}

impl fmt::Display for TestConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.placement {
            Placement::InPlace => {
                f.write_str("inplace")?;
                fmt_divs(f, "src_divs", &self.src_divs)?;
            }
            Placement::OutOfPlace => {
                f.write_str("outofplace")?;
                fmt_divs(f, "src_divs", &self.src_divs)?;
                fmt_divs(f, "dst_divs", &self.dst_divs)?;
            }
        }
        write!(
            f,
            " key_offset={} iv_offset={}",
            self.key_offset, self.iv_offset
        )
    }
}

/// A fixed out-of-place layout whose printed name the tests of this crate know.
#[cfg(test)]
pub(crate) fn example() -> TestConfig {
    TestConfig {
        placement: Placement::OutOfPlace,
        src_divs: vec![
            Division {
                proportion: 612,
                offset: 3,
            },
            Division {
                proportion: 388,
                offset: 17,
            },
        ],
        dst_divs: vec![Division {
            proportion: 1000,
            offset: 9,
        }],
        key_offset: 43,
        iv_offset: 5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn generation_is_deterministic_for_a_seed() {
        for seed in 0..50u64 {
            let a = TestConfig::generate(&mut ChaCha8Rng::seed_from_u64(seed));
            let b = TestConfig::generate(&mut ChaCha8Rng::seed_from_u64(seed));
            assert_eq!(a, b);
            assert_eq!(a.to_string(), b.to_string());
        }
        let a = TestConfig::generate(&mut ChaCha8Rng::seed_from_u64(1));
        let differs =
            (2..20u64).any(|s| TestConfig::generate(&mut ChaCha8Rng::seed_from_u64(s)) != a);
        assert!(differs);
    }

    #[test]
    fn generated_configs_are_valid_and_varied() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (mut inplace, mut max_divs, mut big_offset) = (0, 0, false);
        for _ in 0..2000 {
            let c = TestConfig::generate(&mut rng);
            assert!(c.is_valid(), "{c}");
            assert!(c.key_offset <= MAX_KEY_IV_OFFSET && c.iv_offset <= MAX_KEY_IV_OFFSET);
            for d in c.src_divs.iter().chain(&c.dst_divs) {
                assert!(d.proportion > 0 && d.offset <= MAX_DIV_OFFSET);
                big_offset |= d.offset >= 64;
            }
            inplace += usize::from(c.placement == Placement::InPlace);
            max_divs = max_divs.max(c.src_divs.len());
            let single = TestConfig::generate_single(&mut rng);
            assert!(single.is_valid() && single.is_single_buffer());
        }
        assert!((800..1200).contains(&inplace), "{inplace}");
        assert_eq!(max_divs, MAX_DIVS);
        assert!(big_offset);
    }

    #[test]
    fn divisions_sum_to_the_length() {
        let mut rng = ChaCha8Rng::seed_from_u64(99);
        for _ in 0..2000 {
            let c = TestConfig::generate(&mut rng);
            let total = rng.gen_range(0..20_000usize);
            for divs in [&c.src_divs, &c.dst_divs] {
                if divs.is_empty() {
                    continue;
                }
                let lens = split_lengths(total, divs);
                assert_eq!(lens.len(), divs.len());
                assert_eq!(lens.iter().sum::<usize>(), total, "{c} len={total}");
            }
        }
        let d = |p| Division {
            proportion: p,
            offset: 0,
        };
        assert_eq!(split_lengths(17, &[d(317), d(500), d(183)]), [5, 8, 4]);
        assert_eq!(split_lengths(0, &[d(500), d(500)]), [0, 0]);
        assert_eq!(split_lengths(1000, &[d(1), d(999)]), [1, 999]);
    }

    #[test]
    fn printable_names_look_right() {
        let c = example();
        assert_eq!(
            c.to_string(),
            "outofplace src_divs=[61.2%@+3, 38.8%@+17] dst_divs=[100.0%@+9] key_offset=43 iv_offset=5"
        );
        assert_eq!(
            TestConfig::contiguous().to_string(),
            "inplace src_divs=[100.0%@+0] key_offset=0 iv_offset=0"
        );
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..200 {
            let s = TestConfig::generate(&mut rng).to_string();
            assert!(s.starts_with("inplace src_divs=[") || s.starts_with("outofplace src_divs=["));
            assert_eq!(s.contains("dst_divs="), s.starts_with("outofplace"), "{s}");
            assert!(!s.contains('\n') && !s.contains('"'), "{s}");
            assert!(
                s.contains(" key_offset=") && s.contains(" iv_offset="),
                "{s}"
            );
        }
    }

    #[test]
    fn known_answer_configs_are_valid() {
        let cfgs = TestConfig::known_answer_configs();
        assert!(cfgs.iter().all(TestConfig::is_valid));
        assert!(cfgs[0].is_single_buffer());
        assert!(cfgs.iter().any(|c| c.placement == Placement::OutOfPlace));
        assert!(cfgs.iter().any(|c| c.src_divs.len() > 2));
    }
}
