//! Known-answer vectors, kept as data files (`selftest/vectors/*.toml`) and embedded in the
//! binary with `include_str!`, keyed by algorithm name.
//!
//! Each file names one algorithm and lists `[[vector]]` records:
//!
//! ```toml
//! algorithm = "xts(aes)"
//!
//! [[vector]]
//! source = "IEEE 1619-2007 Annex B, XTS-AES-128 Vector 2"   # standard and vector number
//! note = "optional free text"
//! key = "1111...2222"          # hex; whitespace (and TOML line continuations) allowed
//! iv = "3333333333000000..."   # hex; omitted or "" when the algorithm takes no IV
//! plaintext = "4444..."
//! ciphertext = "c454..."
//! expect = "ok"                # or "weak_key", "invalid_key_length", "invalid_length"
//! ```
//!
//! AEAD and hash files say so with a top-level `kind` and use their own fields (a file may
//! also name the generic reference when `build_generic_driver_name` cannot derive it, as
//! testmgr's `.generic_driver` does):
//!
//! ```toml
//! algorithm = "gcm(aes)"
//! kind = "aead"                                    # "cipher" (the default), "aead", "hash"
//! generic_driver = "gcm_base(ctr(aes-generic),ghash-generic)"   # optional
//!
//! [[vector]]
//! source = "GCM spec, Test Case 2"
//! key = "00000000000000000000000000000000"
//! nonce = "000000000000000000000000"
//! aad = ""                     # optional, default empty
//! plaintext = "00000000000000000000000000000000"
//! ciphertext = "0388dace60b6a392f328c2b971b2fe78"
//! tag = "ab6e47d42cec13bdf53a67b21257bddf"   # its length is the authsize to test
//! fail = false                 # true: open must fail with BadMessage (plaintext optional)
//! ```
//!
//! ```toml
//! algorithm = "sha256"
//! kind = "hash"
//! [[vector]]
//! source = "FIPS 180-4, one block"
//! key = ""                     # optional: MACs only
//! message = "616263"
//! digest = "ba7816bf..."
//! ```
//!
//! Why data files: the vectors are checked against OpenSSL by
//! `selftest/vectors/check_vectors.py` without touching Rust, and adding an algorithm's
//! vectors does not touch the runner.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::Deserialize;

/// The embedded vector files, as (origin, text).
const EMBEDDED_FILES: &[(&str, &str)] = &[
    ("vectors/aes.toml", include_str!("../vectors/aes.toml")),
    (
        "vectors/ecb_aes.toml",
        include_str!("../vectors/ecb_aes.toml"),
    ),
    (
        "vectors/cbc_aes.toml",
        include_str!("../vectors/cbc_aes.toml"),
    ),
    (
        "vectors/ctr_aes.toml",
        include_str!("../vectors/ctr_aes.toml"),
    ),
    (
        "vectors/xts_aes.toml",
        include_str!("../vectors/xts_aes.toml"),
    ),
    ("vectors/ghash.toml", include_str!("../vectors/ghash.toml")),
    (
        "vectors/gcm_aes.toml",
        include_str!("../vectors/gcm_aes.toml"),
    ),
    (
        "vectors/rfc4106_gcm_aes.toml",
        include_str!("../vectors/rfc4106_gcm_aes.toml"),
    ),
    (
        "vectors/chacha20.toml",
        include_str!("../vectors/chacha20.toml"),
    ),
    (
        "vectors/xchacha20.toml",
        include_str!("../vectors/xchacha20.toml"),
    ),
    (
        "vectors/poly1305.toml",
        include_str!("../vectors/poly1305.toml"),
    ),
    (
        "vectors/rfc7539.toml",
        include_str!("../vectors/rfc7539.toml"),
    ),
    (
        "vectors/rfc7539esp.toml",
        include_str!("../vectors/rfc7539esp.toml"),
    ),
    (
        "vectors/xchacha20poly1305.toml",
        include_str!("../vectors/xchacha20poly1305.toml"),
    ),
];

/// What a vector expects the driver to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    /// Encryption gives the ciphertext and decryption the plaintext.
    #[default]
    Ok,
    /// `set_key` must refuse the key with [`Error::WeakKey`](cryptoreg_registry::Error::WeakKey)
    /// (XTS with equal halves).
    WeakKey,
    /// `set_key` must refuse the key with
    /// [`Error::InvalidKeyLength`](cryptoreg_registry::Error::InvalidKeyLength).
    InvalidKeyLength,
    /// The key is fine but both directions must refuse the data with
    /// [`Error::InvalidLength`](cryptoreg_registry::Error::InvalidLength).
    InvalidLength,
}

impl Expect {
    /// The name of the error variant this expectation stands for, if any (as printed in
    /// failure lines).
    pub fn error_kind(self) -> Option<&'static str> {
        match self {
            Expect::Ok => None,
            Expect::WeakKey => Some("WeakKey"),
            Expect::InvalidKeyLength => Some("InvalidKeyLength"),
            Expect::InvalidLength => Some("InvalidLength"),
        }
    }

    /// Whether the expected refusal happens at `set_key`.
    pub fn rejects_key(self) -> bool {
        matches!(self, Expect::WeakKey | Expect::InvalidKeyLength)
    }
}

/// One decoded known-answer vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vector {
    /// The standard and vector number it comes from.
    pub source: String,
    /// Key bytes.
    pub key: Vec<u8>,
    /// IV bytes (empty when the algorithm takes none).
    pub iv: Vec<u8>,
    /// Plaintext bytes.
    pub plaintext: Vec<u8>,
    /// Ciphertext bytes (same length as the plaintext).
    pub ciphertext: Vec<u8>,
    /// Expected outcome.
    pub expect: Expect,
}

/// A vector file or record that does not parse or is inconsistent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorError {
    /// Where the text came from (a file name).
    pub origin: String,
    /// What is wrong, naming the record.
    pub message: String,
}

impl fmt::Display for VectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.origin, self.message)
    }
}

impl std::error::Error for VectorError {}

/// One decoded AEAD known-answer vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AeadVector {
    /// The standard and vector number it comes from.
    pub source: String,
    /// Key bytes.
    pub key: Vec<u8>,
    /// Nonce bytes.
    pub nonce: Vec<u8>,
    /// Associated data.
    pub aad: Vec<u8>,
    /// Plaintext (may be empty for `fail` vectors that do not know it).
    pub plaintext: Vec<u8>,
    /// Ciphertext, without the tag.
    pub ciphertext: Vec<u8>,
    /// The detached tag; its length is the authsize the vector is run with.
    pub tag: Vec<u8>,
    /// Whether opening must fail with `BadMessage`.
    pub fail: bool,
}

/// One decoded hash known-answer vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashVector {
    /// The standard and vector number it comes from.
    pub source: String,
    /// MAC key; empty for unkeyed digests.
    pub key: Vec<u8>,
    /// The message.
    pub message: Vec<u8>,
    /// The expected digest.
    pub digest: Vec<u8>,
}

/// Which record shape a vector file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    /// Block ciphers and skciphers: key, iv, plaintext, ciphertext, expect.
    #[default]
    Cipher,
    /// AEADs: key, nonce, aad, plaintext, ciphertext, tag, fail.
    Aead,
    /// Hashes: key, message, digest.
    Hash,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    algorithm: String,
    #[serde(default)]
    kind: Kind,
    #[serde(default)]
    generic_driver: Option<String>,
    #[serde(rename = "vector", default)]
    vectors: Vec<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAead {
    source: String,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
    key: String,
    nonce: String,
    #[serde(default)]
    aad: String,
    #[serde(default)]
    plaintext: String,
    ciphertext: String,
    tag: String,
    #[serde(default)]
    fail: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHash {
    source: String,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
    #[serde(default)]
    key: String,
    message: String,
    digest: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVector {
    source: String,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
    key: String,
    #[serde(default)]
    iv: String,
    plaintext: String,
    ciphertext: String,
    #[serde(default)]
    expect: Expect,
}

/// Vectors keyed by algorithm name.
#[derive(Debug, Clone, Default)]
pub struct VectorSet {
    by_algorithm: BTreeMap<String, Vec<Vector>>,
    aead: BTreeMap<String, Vec<AeadVector>>,
    hash: BTreeMap<String, Vec<HashVector>>,
    generic_driver: BTreeMap<String, String>,
}

static EMBEDDED: OnceLock<Arc<VectorSet>> = OnceLock::new();

fn embedded_ref() -> &'static Arc<VectorSet> {
    EMBEDDED.get_or_init(|| {
        let mut set = VectorSet::default();
        for (origin, text) in EMBEDDED_FILES {
            // The files are compiled in and checked by this crate's unit tests, so a
            // failure here is a build defect, not bad input.
            let parsed = VectorSet::parse(text, origin)
                .unwrap_or_else(|e| panic!("embedded vector file is invalid: {e}"));
            set.merge(parsed);
        }
        Arc::new(set)
    })
}

impl VectorSet {
    /// The vectors shipped in `selftest/vectors/`, parsed once per process.
    pub fn embedded() -> Arc<VectorSet> {
        Arc::clone(embedded_ref())
    }

    /// Parses one vector file. `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<VectorSet, VectorError> {
        let err = |message: String| VectorError {
            origin: origin.to_string(),
            message,
        };
        let raw: RawFile = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        if raw.algorithm.trim().is_empty() {
            return Err(err("empty algorithm name".to_string()));
        }
        if raw.vectors.is_empty() {
            return Err(err(format!("no vectors for {}", raw.algorithm)));
        }
        let mut set = VectorSet::default();
        if let Some(g) = raw.generic_driver {
            if g.trim().is_empty() {
                return Err(err("empty generic_driver".to_string()));
            }
            set.generic_driver.insert(raw.algorithm.clone(), g);
        }
        for (i, value) in raw.vectors.into_iter().enumerate() {
            let name = |source: &str| format!("vector {} ({source:?})", i + 1);
            let shape = |e: toml::de::Error| err(format!("vector {}: {e}", i + 1));
            match raw.kind {
                Kind::Cipher => {
                    let rv: RawVector = value.try_into().map_err(shape)?;
                    let name = name(&rv.source);
                    let v = decode_cipher(rv, &name).map_err(err)?;
                    set.by_algorithm
                        .entry(raw.algorithm.clone())
                        .or_default()
                        .push(v);
                }
                Kind::Aead => {
                    let rv: RawAead = value.try_into().map_err(shape)?;
                    let name = name(&rv.source);
                    let v = decode_aead(rv, &name).map_err(err)?;
                    set.aead.entry(raw.algorithm.clone()).or_default().push(v);
                }
                Kind::Hash => {
                    let rv: RawHash = value.try_into().map_err(shape)?;
                    let name = name(&rv.source);
                    let v = decode_hash(rv, &name).map_err(err)?;
                    set.hash.entry(raw.algorithm.clone()).or_default().push(v);
                }
            }
        }
        Ok(set)
    }

    /// Adds another set's vectors (appended after existing ones of the same algorithm; a
    /// `generic_driver` of `other` replaces this set's).
    pub fn merge(&mut self, other: VectorSet) {
        for (alg, vs) in other.by_algorithm {
            self.by_algorithm.entry(alg).or_default().extend(vs);
        }
        for (alg, vs) in other.aead {
            self.aead.entry(alg).or_default().extend(vs);
        }
        for (alg, vs) in other.hash {
            self.hash.entry(alg).or_default().extend(vs);
        }
        self.generic_driver.extend(other.generic_driver);
    }

    /// The cipher/skcipher vectors of an algorithm name, if any.
    pub fn get(&self, algorithm: &str) -> Option<&[Vector]> {
        self.by_algorithm
            .get(algorithm)
            .map(Vec::as_slice)
            .filter(|v| !v.is_empty())
    }

    /// The AEAD vectors of an algorithm name, if any.
    pub fn get_aead(&self, algorithm: &str) -> Option<&[AeadVector]> {
        self.aead
            .get(algorithm)
            .map(Vec::as_slice)
            .filter(|v| !v.is_empty())
    }

    /// The hash vectors of an algorithm name, if any.
    pub fn get_hash(&self, algorithm: &str) -> Option<&[HashVector]> {
        self.hash
            .get(algorithm)
            .map(Vec::as_slice)
            .filter(|v| !v.is_empty())
    }

    /// The generic reference a vector file names for its algorithm, if it names one.
    pub fn generic_driver(&self, algorithm: &str) -> Option<&str> {
        self.generic_driver.get(algorithm).map(String::as_str)
    }

    /// Algorithm names with at least one vector of any kind, sorted.
    pub fn algorithms(&self) -> impl Iterator<Item = &str> {
        let mut names: Vec<&str> = self
            .by_algorithm
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, _)| k.as_str())
            .chain(self.aead.keys().map(String::as_str))
            .chain(self.hash.keys().map(String::as_str))
            .collect();
        names.sort_unstable();
        names.dedup();
        names.into_iter()
    }

    /// Total number of vectors.
    pub fn len(&self) -> usize {
        self.by_algorithm.values().map(Vec::len).sum::<usize>()
            + self.aead.values().map(Vec::len).sum::<usize>()
            + self.hash.values().map(Vec::len).sum::<usize>()
    }

    /// Whether the set holds no vector.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn decode_cipher(rv: RawVector, name: &str) -> Result<Vector, String> {
    let field = |what: &str, s: &str| decode_hex(s).map_err(|e| format!("{name}: {what}: {e}"));
    let v = Vector {
        key: field("key", &rv.key)?,
        iv: field("iv", &rv.iv)?,
        plaintext: field("plaintext", &rv.plaintext)?,
        ciphertext: field("ciphertext", &rv.ciphertext)?,
        source: rv.source,
        expect: rv.expect,
    };
    if v.source.trim().is_empty() {
        return Err(format!("{name}: empty source"));
    }
    if v.plaintext.len() != v.ciphertext.len() {
        return Err(format!(
            "{name}: plaintext is {} bytes but ciphertext is {}",
            v.plaintext.len(),
            v.ciphertext.len()
        ));
    }
    Ok(v)
}

fn decode_aead(rv: RawAead, name: &str) -> Result<AeadVector, String> {
    let field = |what: &str, s: &str| decode_hex(s).map_err(|e| format!("{name}: {what}: {e}"));
    let v = AeadVector {
        key: field("key", &rv.key)?,
        nonce: field("nonce", &rv.nonce)?,
        aad: field("aad", &rv.aad)?,
        plaintext: field("plaintext", &rv.plaintext)?,
        ciphertext: field("ciphertext", &rv.ciphertext)?,
        tag: field("tag", &rv.tag)?,
        source: rv.source,
        fail: rv.fail,
    };
    if v.source.trim().is_empty() {
        return Err(format!("{name}: empty source"));
    }
    if v.tag.is_empty() {
        return Err(format!("{name}: empty tag"));
    }
    if !v.fail && v.plaintext.len() != v.ciphertext.len() {
        return Err(format!(
            "{name}: plaintext is {} bytes but ciphertext is {}",
            v.plaintext.len(),
            v.ciphertext.len()
        ));
    }
    Ok(v)
}

fn decode_hash(rv: RawHash, name: &str) -> Result<HashVector, String> {
    let field = |what: &str, s: &str| decode_hex(s).map_err(|e| format!("{name}: {what}: {e}"));
    let v = HashVector {
        key: field("key", &rv.key)?,
        message: field("message", &rv.message)?,
        digest: field("digest", &rv.digest)?,
        source: rv.source,
    };
    if v.source.trim().is_empty() {
        return Err(format!("{name}: empty source"));
    }
    if v.digest.is_empty() {
        return Err(format!("{name}: empty digest"));
    }
    Ok(v)
}

/// Algorithm names that have embedded known-answer vectors (for listings and the CLI).
pub fn algorithms_with_vectors() -> Vec<&'static str> {
    let set: &'static VectorSet = embedded_ref();
    set.algorithms().collect()
}

/// Hex with any whitespace in it (so long values can be wrapped).
fn decode_hex(s: &str) -> Result<Vec<u8>, hex::FromHexError> {
    let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    hex::decode(compact)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expected_key_lens(alg: &str) -> &'static [usize] {
        match alg {
            "xts(aes)" => &[32, 48, 64],
            "chacha20" | "xchacha20" => &[32],
            _ => &[16, 24, 32],
        }
    }

    #[test]
    fn every_embedded_file_parses_on_its_own() {
        for (origin, text) in EMBEDDED_FILES {
            let set = VectorSet::parse(text, origin).unwrap();
            assert!(!set.is_empty(), "{origin}");
            assert_eq!(
                set.algorithms().count(),
                1,
                "{origin}: one algorithm per file"
            );
        }
    }

    #[test]
    fn embedded_vectors_are_consistent() {
        let set = VectorSet::embedded();
        assert_eq!(
            set.algorithms().collect::<Vec<_>>(),
            [
                "aes",
                "cbc(aes)",
                "chacha20",
                "ctr(aes)",
                "ecb(aes)",
                "gcm(aes)",
                "ghash",
                "poly1305",
                "rfc4106(gcm(aes))",
                "rfc7539(chacha20,poly1305)",
                "rfc7539esp(chacha20,poly1305)",
                "xchacha20",
                "xchacha20poly1305",
                "xts(aes)"
            ]
        );
        for v in set.get_hash("ghash").unwrap() {
            // GHASH: the key is H, the digest the 16-byte accumulator.
            assert_eq!((v.key.len(), v.digest.len()), (16, 16), "{}", v.source);
        }
        for alg in set.algorithms().filter(|a| set.get(a).is_some()) {
            for v in set.get(alg).unwrap() {
                let what = format!("{alg}: {}", v.source);
                assert!(expected_key_lens(alg).contains(&v.key.len()), "{what}: key");
                assert_eq!(v.plaintext.len(), v.ciphertext.len(), "{what}");
                match alg {
                    "aes" | "ecb(aes)" => {
                        assert!(v.iv.is_empty(), "{what}: iv");
                        assert!(
                            !v.plaintext.is_empty() && v.plaintext.len() % 16 == 0,
                            "{what}"
                        );
                    }
                    "cbc(aes)" => {
                        assert_eq!(v.iv.len(), 16, "{what}: iv");
                        assert!(v.plaintext.len() % 16 == 0, "{what}");
                    }
                    "ctr(aes)" | "chacha20" => assert_eq!(v.iv.len(), 16, "{what}: iv"),
                    "xchacha20" => assert_eq!(v.iv.len(), 32, "{what}: iv"),
                    "xts(aes)" => {
                        assert_eq!(v.iv.len(), 16, "{what}: iv");
                        assert!(v.plaintext.len() >= 16, "{what}");
                        let (k1, k2) = v.key.split_at(v.key.len() / 2);
                        // Equal halves are exactly the vectors that expect refusal.
                        assert_eq!(k1 == k2, v.expect == Expect::WeakKey, "{what}");
                    }
                    other => panic!("unexpected algorithm {other}"),
                }
                if alg != "xts(aes)" {
                    assert_eq!(v.expect, Expect::Ok, "{what}");
                }
            }
        }
    }

    #[test]
    fn aead_vectors_are_consistent() {
        let set = VectorSet::embedded();
        for (alg, key_lens, nonce, tags, aads) in [
            (
                "gcm(aes)",
                &[16, 24, 32][..],
                12,
                &[4, 8, 12, 13, 14, 15, 16][..],
                None,
            ),
            (
                "rfc4106(gcm(aes))",
                &[20, 28, 36][..],
                8,
                &[8, 12, 16][..],
                Some(&[8, 12][..]),
            ),
        ] {
            let vs = set.get_aead(alg).unwrap();
            assert_eq!(
                set.generic_driver(alg),
                Some(match alg {
                    "gcm(aes)" => "gcm_base(ctr(aes-generic),ghash-generic)",
                    _ => "rfc4106(gcm_base(ctr(aes-generic),ghash-generic))",
                })
            );
            for v in vs {
                let what = format!("{alg}: {}", v.source);
                assert!(key_lens.contains(&v.key.len()), "{what}: key");
                assert_eq!(v.nonce.len(), nonce, "{what}: nonce");
                assert!(tags.contains(&v.tag.len()), "{what}: tag");
                if let Some(aads) = aads {
                    assert!(aads.contains(&v.aad.len()), "{what}: aad");
                }
                if !v.fail {
                    assert_eq!(v.plaintext.len(), v.ciphertext.len(), "{what}");
                }
            }
            // Some inauthentic vectors, and some tags shorter than 16 bytes.
            assert!(vs.iter().filter(|v| v.fail).count() >= 3, "{alg}");
            assert!(vs.iter().any(|v| !v.fail && v.tag.len() < 16), "{alg}");
        }
    }

    #[test]
    fn chacha_poly_vectors_are_consistent() {
        let set = VectorSet::embedded();
        for v in set.get_hash("poly1305").unwrap() {
            assert_eq!((v.key.len(), v.digest.len()), (32, 16), "{}", v.source);
        }
        for (alg, key, nonce) in [
            ("rfc7539(chacha20,poly1305)", 32, 12),
            ("rfc7539esp(chacha20,poly1305)", 36, 8),
            ("xchacha20poly1305", 32, 24),
        ] {
            let vs = set.get_aead(alg).unwrap();
            assert!(
                vs.iter().any(|v| v.fail) && vs.iter().any(|v| !v.fail),
                "{alg}"
            );
            for v in vs {
                let what = format!("{alg}: {}", v.source);
                assert_eq!((v.key.len(), v.nonce.len()), (key, nonce), "{what}");
                assert_eq!(v.tag.len(), 16, "{what}");
                if alg.starts_with("rfc7539esp") {
                    assert!(v.aad.len() == 8 || v.aad.len() == 12, "{what}: ESP AAD");
                }
            }
        }
    }

    #[test]
    fn the_standards_are_all_there() {
        let set = VectorSet::embedded();
        let sources = |alg: &str| -> Vec<String> {
            set.get(alg)
                .unwrap()
                .iter()
                .map(|v| v.source.clone())
                .collect()
        };
        assert_eq!(sources("aes").len(), 3);
        for (alg, appendix) in [
            ("ecb(aes)", "F.1"),
            ("cbc(aes)", "F.2"),
            ("ctr(aes)", "F.5"),
        ] {
            let s = sources(alg).join("|");
            for n in 1..=6 {
                assert!(
                    s.contains(&format!("{appendix}.{n} ")),
                    "{alg}: {appendix}.{n}"
                );
            }
        }
        let xts = sources("xts(aes)");
        for n in 1..=19 {
            let want = format!("Vector {n}");
            assert!(xts.iter().any(|s| s.ends_with(&want)), "IEEE 1619 {want}");
        }
        // Ciphertext stealing (15-18) and XTS-AES-256 (10-14) are present with their sizes.
        let xts_vecs = set.get("xts(aes)").unwrap();
        let by = |n: u32| {
            xts_vecs
                .iter()
                .find(|v| v.source.ends_with(&format!("Vector {n}")))
                .unwrap()
        };
        for (n, len) in [(15, 17), (16, 18), (17, 19), (18, 20)] {
            assert_eq!(by(n).plaintext.len(), len);
        }
        for n in 10..=14 {
            assert_eq!(by(n).key.len(), 64);
        }
        assert_eq!(by(1).expect, Expect::WeakKey);
        // Data unit sequence numbers are little-endian: vector 15's is 0x123456789a.
        assert_eq!(by(15).iv[..6], [0x9a, 0x78, 0x56, 0x34, 0x12, 0x00]);
        // GHASH: the kernel's six testmgr.h vectors and GHASH(H, A, C) of GCM spec cases.
        let ghash: Vec<&str> = set
            .get_hash("ghash")
            .unwrap()
            .iter()
            .map(|v| v.source.as_str())
            .collect();
        for n in 1..=6 {
            let want = format!("Linux testmgr.h ghash_tv_template {n}");
            assert!(ghash.contains(&want.as_str()), "{want}");
        }
        assert!(ghash.iter().filter(|s| s.starts_with("GCM spec")).count() >= 4);

        // The GCM specification's cases with 96-bit IVs (the others are refused by design).
        let gcm: Vec<&str> = set
            .get_aead("gcm(aes)")
            .unwrap()
            .iter()
            .map(|v| v.source.as_str())
            .collect();
        for n in [1, 2, 3, 4, 7, 8, 9, 10, 13, 14, 15, 16] {
            let want = format!("Test Case {n} (AES-");
            assert!(gcm.iter().any(|s| s.contains(&want)), "GCM spec case {n}");
        }
        for n in [5, 6, 11, 12, 17, 18] {
            let unwanted = format!("Test Case {n} ");
            assert!(!gcm.iter().any(|s| s.contains(&unwanted)), "case {n}");
        }
        let esp = set.get_aead("rfc4106(gcm(aes))").unwrap();
        let draft = esp
            .iter()
            .filter(|v| v.source.starts_with("draft-mcgrew-gcm-test-01") && !v.fail)
            .count();
        let kernel = esp
            .iter()
            .filter(|v| {
                v.source
                    .starts_with("Linux testmgr.h aes_gcm_rfc4106_tv_template")
            })
            .count();
        assert!(draft >= 5 && kernel >= 7, "{draft} {kernel}");

        // RFC 8439: every ChaCha20 vector, 2.5.2 and all of A.3 for Poly1305, both AEAD
        // vectors; draft-irtf-cfrg-xchacha-03 A.3.1 and A.3.2; RFC 7634 Appendix A.
        let chacha = sources("chacha20").join("|");
        for want in [
            "2.3.2",
            "2.4.2",
            "2.6.2",
            "A.1 Test Vector #1 ",
            "A.1 Test Vector #2 ",
            "A.1 Test Vector #3 ",
            "A.1 Test Vector #4 ",
            "A.1 Test Vector #5 ",
            "A.2 Test Vector #1 ",
            "A.2 Test Vector #2 ",
            "A.2 Test Vector #3 ",
            "A.4 Test Vector #1 ",
            "A.4 Test Vector #2 ",
            "A.4 Test Vector #3 ",
        ] {
            assert!(
                chacha.contains(&format!("RFC 8439 {want}")),
                "chacha20: {want}"
            );
        }
        let poly: Vec<String> = set
            .get_hash("poly1305")
            .unwrap()
            .iter()
            .map(|v| v.source.clone())
            .collect();
        assert!(poly.iter().any(|s| s == "RFC 8439 2.5.2"));
        for n in 1..=11 {
            let want = format!("RFC 8439 A.3 Test Vector #{n}");
            assert!(
                poly.iter()
                    .any(|s| s == &want || s.starts_with(&format!("{want} "))),
                "poly1305: {want}"
            );
        }
        let aead = |alg: &str| -> Vec<String> {
            set.get_aead(alg)
                .unwrap()
                .iter()
                .filter(|v| !v.fail)
                .map(|v| v.source.clone())
                .collect()
        };
        assert_eq!(
            aead("rfc7539(chacha20,poly1305)"),
            ["RFC 8439 2.8.2", "RFC 8439 A.5"]
        );
        // The draft's one AEAD vector, and a long one computed with OpenSSL (the file says
        // how) that reaches past the SIMD drivers' short path.
        let xchacha = aead("xchacha20poly1305");
        assert_eq!(xchacha.len(), 2, "{xchacha:?}");
        assert_eq!(xchacha[0], "draft-irtf-cfrg-xchacha-03 A.3.1");
        assert!(xchacha[1].starts_with("computed: "), "{xchacha:?}");
        // RFC 7634 Appendix A (the ESP packet trace: 8-byte AAD = SPI || sequence number)
        // beside RFC 8439's two AEAD vectors in ESP form.
        let esp = aead("rfc7539esp(chacha20,poly1305)");
        assert_eq!(esp.len(), 3, "{esp:?}");
        assert!(esp.iter().any(|s| s == "RFC 7634 Appendix A (ESP example)"));
        let rfc7634 = set
            .get_aead("rfc7539esp(chacha20,poly1305)")
            .unwrap()
            .iter()
            .find(|v| v.source == "RFC 7634 Appendix A (ESP example)")
            .unwrap();
        assert_eq!(rfc7634.aad, [1, 2, 3, 4, 0, 0, 0, 5]);
        assert_eq!(rfc7634.plaintext.len(), 88);
        assert!(sources("xchacha20")[0].starts_with("draft-irtf-cfrg-xchacha-03 A.3.2"));
    }

    #[test]
    fn algorithms_with_vectors_lists_the_embedded_names() {
        let names = algorithms_with_vectors();
        assert!(names.contains(&"xts(aes)") && names.contains(&"aes"));
    }

    #[test]
    fn bad_files_are_errors_that_name_the_record() {
        let e = VectorSet::parse(
            "algorithm = \"x\"\n[[vector]]\nsource = \"s\"\nkey = \"zz\"\nplaintext = \"\"\nciphertext = \"\"\n",
            "t.toml",
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("t.toml") && e.message.contains("key"),
            "{e}"
        );
        let e = VectorSet::parse(
            "algorithm = \"x\"\n[[vector]]\nsource = \"s\"\nkey = \"00\"\nplaintext = \"00\"\nciphertext = \"\"\n",
            "t",
        )
        .unwrap_err();
        assert!(e.message.contains("plaintext is 1 bytes"), "{e}");
        let e = VectorSet::parse(
            "algorithm = \"x\"\n[[vector]]\nsource = \"s\"\nkey = \"00\"\nplaintext = \"\"\nciphertext = \"\"\nbogus = 1\n",
            "t",
        )
        .unwrap_err();
        assert!(e.message.contains("bogus"), "{e}");
        assert!(VectorSet::parse("algorithm = \"x\"\n", "t").is_err());
        let e = VectorSet::parse(
            "algorithm = \"x\"\n[[vector]]\nsource = \"s\"\nkey = \"00\"\nplaintext = \"\"\nciphertext = \"\"\nexpect = \"maybe\"\n",
            "t",
        );
        assert!(e.is_err());
    }

    #[test]
    fn hex_may_be_wrapped() {
        let set = VectorSet::parse(
            "algorithm = \"x\"\n[[vector]]\nsource = \"s\"\nkey = \"00 01\\n02\"\nplaintext = \"\"\"\\\n   aa\\\n   bb\\\n   \"\"\"\nciphertext = \"ccdd\"\n",
            "t",
        )
        .unwrap();
        let v = &set.get("x").unwrap()[0];
        assert_eq!(v.key, [0, 1, 2]);
        assert_eq!(v.plaintext, [0xaa, 0xbb]);
    }
}
