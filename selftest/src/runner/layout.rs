//! Layouts of AEAD and hash test operations, printed into failure lines like
//! [`TestConfig`]: what the AEAD adds (how the AAD is divided) and what a hash computation
//! does (how the message is divided into updates, where the running state is exported and
//! imported into a fresh request, and how it ends: `final`, `finup` or `digest`), after the
//! kernel's `testvec_config` for AEADs and hashes.

use std::fmt;

use rand::Rng;

use crate::config::{
    fmt_divs, generate_divisions, generate_offset, Division, TestConfig, MAX_KEY_IV_OFFSET,
    PROPORTION_TOTAL,
};

fn d(proportion: u32, offset: usize) -> Division {
    Division { proportion, offset }
}

/// The layout of one AEAD operation: the text as a [`TestConfig`] (its `iv_offset` is the
/// nonce's misalignment) plus the division of the AAD into pieces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AeadConfig {
    /// Text placement and divisions, key and nonce misalignment.
    pub text: TestConfig,
    /// Divisions of the AAD.
    pub aad_divs: Vec<Division>,
}

impl AeadConfig {
    /// One contiguous AAD and text, in place: the one-shot `seal`/`open` path.
    pub fn contiguous() -> AeadConfig {
        AeadConfig {
            text: TestConfig::contiguous(),
            aad_divs: vec![d(PROPORTION_TOTAL, 0)],
        }
    }

    /// The fixed layouts every known answer runs under: contiguous; text split in place
    /// with the AAD split off any block boundary; out of place with a two-piece AAD.
    pub fn known_answer_configs() -> Vec<AeadConfig> {
        let mut kat = TestConfig::known_answer_configs().into_iter();
        let first = kat.next().unwrap_or_else(TestConfig::contiguous);
        let mut out = vec![AeadConfig {
            text: first,
            aad_divs: vec![d(PROPORTION_TOTAL, 0)],
        }];
        let aad_splits = [vec![d(317, 1), d(683, 5)], vec![d(500, 3), d(500, 0)]];
        for (text, aad_divs) in kat.zip(aad_splits) {
            out.push(AeadConfig { text, aad_divs });
        }
        out
    }

    /// Draws a layout: a random [`TestConfig`] for the text and 1..=8 AAD divisions.
    pub fn generate<R: Rng + ?Sized>(rng: &mut R) -> AeadConfig {
        AeadConfig {
            text: TestConfig::generate(rng),
            aad_divs: generate_divisions(rng),
        }
    }
}

impl fmt::Display for AeadConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.text)?;
        fmt_divs(f, "aad_divs", &self.aad_divs)
    }
}

/// How a hash computation ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finalization {
    /// `init`, an `update` per division, `final`.
    Final,
    /// `init`, an `update` per division but the last, `finup` with the last.
    Finup,
    /// One `digest` call over the whole message in one (misaligned) buffer.
    Digest,
}

impl Finalization {
    fn name(self) -> &'static str {
        match self {
            Finalization::Final => "final",
            Finalization::Finup => "finup",
            Finalization::Digest => "digest",
        }
    }
}

/// The layout of one hash computation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashConfig {
    /// How the computation ends.
    pub finalization: Finalization,
    /// Divisions of the message, each its own buffer at its own misalignment; one
    /// `update` (or the `finup`) each.
    pub divs: Vec<Division>,
    /// `reimport[i]`: before division `i` is absorbed, export the running state and
    /// continue in a fresh request imported from it. Same length as `divs`.
    pub reimport: Vec<bool>,
    /// Misalignment of the key buffer.
    pub key_offset: usize,
}

impl HashConfig {
    /// The fixed layouts every known answer runs under: one `digest`; three updates with
    /// an export/import between the first two, then `final`; two pieces with `finup`.
    pub fn known_answer_configs() -> Vec<HashConfig> {
        vec![
            HashConfig {
                finalization: Finalization::Digest,
                divs: vec![d(PROPORTION_TOTAL, 0)],
                reimport: vec![false],
                key_offset: 0,
            },
            HashConfig {
                finalization: Finalization::Final,
                divs: vec![d(317, 1), d(500, 7), d(183, 13)],
                reimport: vec![false, true, false],
                key_offset: 3,
            },
            HashConfig {
                finalization: Finalization::Finup,
                divs: vec![d(503, 2), d(497, 5)],
                reimport: vec![false, true],
                key_offset: 1,
            },
        ]
    }

    /// Draws a layout: `final` or `finup` with 1..=8 divisions (a quarter of them preceded
    /// by an export/import) or, one time in five, a single `digest`.
    pub fn generate<R: Rng + ?Sized>(rng: &mut R) -> HashConfig {
        let finalization = match rng.gen_range(0..5) {
            0 => Finalization::Digest,
            1 | 2 => Finalization::Final,
            _ => Finalization::Finup,
        };
        let divs = if finalization == Finalization::Digest {
            vec![d(PROPORTION_TOTAL, generate_offset(rng))]
        } else {
            generate_divisions(rng)
        };
        let reimport = divs
            .iter()
            .map(|_| finalization != Finalization::Digest && rng.gen_bool(0.25))
            .collect();
        HashConfig {
            finalization,
            divs,
            reimport,
            key_offset: rng.gen_range(0..=MAX_KEY_IV_OFFSET),
        }
    }
}

impl fmt::Display for HashConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} divs=[", self.finalization.name())?;
        for (i, dv) in self.divs.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if self.reimport.get(i).copied().unwrap_or(false) {
                f.write_str("reimport ")?;
            }
            write!(
                f,
                "{}.{}%@+{}",
                dv.proportion / 10,
                dv.proportion % 10,
                dv.offset
            )?;
        }
        write!(f, "] key_offset={}", self.key_offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn layouts_print_everything_they_decided() {
        let k = HashConfig::known_answer_configs();
        assert_eq!(
            k[1].to_string(),
            "final divs=[31.7%@+1, reimport 50.0%@+7, 18.3%@+13] key_offset=3"
        );
        let a = AeadConfig::known_answer_configs();
        assert_eq!(a.len(), 3);
        assert_eq!(
            a[0].to_string(),
            "inplace src_divs=[100.0%@+0] key_offset=0 iv_offset=0 aad_divs=[100.0%@+0]"
        );
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for _ in 0..500 {
            let h = HashConfig::generate(&mut rng);
            assert_eq!(h.divs.len(), h.reimport.len());
            assert_eq!(
                h.divs.iter().map(|d| d.proportion).sum::<u32>(),
                PROPORTION_TOTAL
            );
            let c = AeadConfig::generate(&mut rng);
            assert!(c.text.is_valid() && !c.aad_divs.is_empty());
        }
    }
}
