//! The one error type of the crypto API. Bad input is always one of these values, never a
//! panic, so a service can turn it into a protocol error.

use thiserror::Error;

/// Every way a request to the registry or a handle can fail.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    /// The name breaks the name grammar (see [`crate::names`]): a character outside
    /// `[a-z0-9_-]` and `(),`, unbalanced parentheses, more than 128 bytes or nesting
    /// deeper than 16. Refused before any lookup, so no spelling of a name can reach a
    /// different driver than the canonical one, or a new cache entry.
    #[error("invalid algorithm name {name:?}: {reason}")]
    InvalidName {
        /// The name as given, shortened to its first 64 characters when longer.
        name: String,
        /// What is wrong, with the offending character and its byte position.
        reason: String,
    },
    /// No driver, and no template instance, answers to this name.
    #[error("no algorithm or driver named {0:?}")]
    NotFound(String),
    /// A name given to a priority or disable (admin API or configuration) that names no
    /// driver: not a registered driver, and not the driver name of a template instance
    /// that could be built over registered drivers (see the README's configuration
    /// rules). Refused before anything is stored.
    #[error("{name:?} names no driver: {reason}")]
    NotADriver {
        /// The name as given.
        name: String,
        /// What is wrong with it (an unknown leaf, a wrong arity, an algorithm name).
        reason: String,
    },
    /// Drivers exist for the name but every one of them failed its self-test: this is never
    /// a silent fallback to something else.
    #[error("every driver for {name:?} failed its self-test; {driver}: {report}")]
    SelfTestFailed {
        /// What was asked for.
        name: String,
        /// The failed driver with the highest priority.
        driver: String,
        /// Its first failure line.
        report: String,
    },
    /// The driver asked for by name failed its self-test (other drivers of its algorithm
    /// may have passed: ask for the algorithm name to get the best of those).
    #[error("driver {driver:?} failed its self-test: {report}")]
    DriverFailed {
        /// The driver.
        driver: String,
        /// Its first failure line.
        report: String,
    },
    /// The driver exists but is disabled by configuration or at run time.
    #[error("driver {0:?} is disabled")]
    Disabled(String),
    /// The driver needs CPU features this machine (or the simulated identity) lacks.
    #[error("driver {driver:?} cannot run here: missing {missing}")]
    Unsupported {
        /// The driver.
        driver: String,
        /// Space-separated feature names.
        missing: String,
    },
    /// The driver has not passed a self-test yet (self-tests off for it, or simulated CPU).
    #[error("driver {0:?} has not passed its self-test")]
    NotTested(String),
    /// The driver could not be tested because the generic reference its randomized tests
    /// compare with is unavailable (disabled, failed, unsupported). It stays untested —
    /// never resolvable while self-tests are on — and is tested again once the registry
    /// changes (the reference enabled again, a priority changed).
    #[error("driver {driver:?} is untested: its reference {reference:?} is unavailable")]
    ReferenceUnavailable {
        /// The untested driver.
        driver: String,
        /// The reference it needs.
        reference: String,
    },
    /// The name asks for an algorithm of another type (`alloc_skcipher("aes")`). The text
    /// reads `"gcm(aes)" is an AEAD, not an skcipher`; the fields hold the type names
    /// (`aead`, as [`crate::AlgType::name`]).
    #[error("{name:?} is {}, not {}", type_phrase(actual), type_phrase(wanted))]
    WrongType {
        /// What was asked for.
        name: String,
        /// The type the caller wanted.
        wanted: &'static str,
        /// The type it has.
        actual: &'static str,
    },
    /// A key of a length the algorithm does not take. The text names the lengths it takes:
    /// `invalid key length 40 for xts-aes-vaes-avx10_512 (valid: 32, 48, 64)`.
    #[error("invalid key length {len} for {driver} ({valid})")]
    InvalidKeyLength {
        /// The driver.
        driver: String,
        /// The length given.
        len: usize,
        /// The lengths it takes.
        valid: KeyLengths,
    },
    /// A key the algorithm refuses although its length is fine (XTS with equal halves).
    #[error("weak key rejected: {0}")]
    WeakKey(&'static str),
    /// A handle was used before `set_key`.
    #[error("no key set")]
    NoKey,
    /// IV or nonce of the wrong length.
    #[error("invalid IV length {len}, expected {expected}")]
    InvalidIvLength {
        /// The length given.
        len: usize,
        /// The length the algorithm takes.
        expected: usize,
    },
    /// A data length the mode cannot process (XTS under 16 bytes, CBC not a block multiple).
    #[error("invalid data length {len}: {reason}")]
    InvalidLength {
        /// The length given.
        len: usize,
        /// Why it is refused.
        reason: &'static str,
    },
    /// Source and destination lists of an out-of-place request differ in total length.
    #[error("source is {src} bytes but destination is {dst} bytes")]
    LengthMismatch {
        /// Total source bytes.
        src: usize,
        /// Total destination bytes.
        dst: usize,
    },
    /// A tag size the AEAD does not produce (`set_authsize`).
    #[error("invalid authsize {len} for {driver}")]
    InvalidAuthsize {
        /// The driver.
        driver: String,
        /// The size asked for.
        len: usize,
    },
    /// A tag buffer whose length is not the handle's authsize.
    #[error("invalid tag length {len}, expected the authsize {expected}")]
    InvalidTagLength {
        /// The length given.
        len: usize,
        /// The authsize in use.
        expected: usize,
    },
    /// Bytes given to a hash `import` that are not a state exported by this driver.
    #[error("not an exported state of this hash driver: {0}")]
    InvalidHashState(&'static str),
    /// An authentication tag did not verify; the output holds no plaintext.
    #[error("authentication failed (bad message)")]
    BadMessage,
    /// A configuration file or value is wrong.
    #[error("configuration: {0}")]
    Config(String),
    /// A self-test asked to run on a CPU this process may not run on (`cryptoctl
    /// selftest --cpu-id N`). Refused before anything runs.
    #[error("cpu {cpu} is not one this process may run on (its affinity mask: {allowed:?})")]
    InvalidCpu {
        /// The CPU asked for.
        cpu: usize,
        /// The CPUs of the process's affinity mask (empty where the platform has none).
        allowed: Vec<usize>,
    },
    /// A self-test failed while `on_failure = "abort"`.
    #[error("boot aborted: self-test of {driver} failed: {report}")]
    BootAborted {
        /// The failed driver.
        driver: String,
        /// Its first failure line.
        report: String,
    },
}

/// Shorthand used throughout the crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// "an AEAD", "an skcipher", "a cipher", "a hash": a type name of
/// [`crate::AlgType::name`] with its article, for [`Error::WrongType`]'s text.
fn type_phrase(name: &str) -> String {
    match name {
        "aead" => "an AEAD".to_string(),
        "skcipher" => "an skcipher".to_string(),
        other if other.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {other}"),
        other => format!("a {other}"),
    }
}

/// The key lengths a driver takes, in bytes, as [`Error::InvalidKeyLength`] reports them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyLengths {
    /// Exactly these lengths, ascending (`[16, 24, 32]` for AES, `[32, 48, 64]` for
    /// XTS-AES). Empty for an algorithm that takes no key (an unkeyed digest).
    List(Vec<usize>),
    /// Some lengths between these two, inclusive: what the driver's record declares,
    /// reported when a length outside that range is refused before the driver is asked
    /// (the driver names the exact lengths for a length inside it).
    Range {
        /// The shortest.
        min: usize,
        /// The longest.
        max: usize,
    },
}

impl KeyLengths {
    /// Exactly these lengths (sorted and deduplicated here).
    pub fn list(lengths: &[usize]) -> KeyLengths {
        let mut v = lengths.to_vec();
        v.sort_unstable();
        v.dedup();
        KeyLengths::List(v)
    }

    /// Lengths within `min..=max`; one length when the two are equal.
    pub fn range(min: usize, max: usize) -> KeyLengths {
        if min == max {
            KeyLengths::List(vec![min])
        } else {
            KeyLengths::Range { min, max }
        }
    }

    /// The same lengths, each `n` bytes longer (a template that appends a salt or nonce
    /// to its child's key: `rfc4106`).
    pub fn plus(&self, n: usize) -> KeyLengths {
        match self {
            KeyLengths::List(v) => KeyLengths::List(v.iter().map(|l| l + n).collect()),
            KeyLengths::Range { min, max } => KeyLengths::Range {
                min: min + n,
                max: max + n,
            },
        }
    }
}

/// `valid: 32, 48, 64`, `valid: between 16 and 32`, or `takes no key`.
impl std::fmt::Display for KeyLengths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyLengths::List(v) if v.is_empty() => f.write_str("takes no key"),
            KeyLengths::List(v) => {
                f.write_str("valid: ")?;
                for (i, l) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{l}")?;
                }
                Ok(())
            }
            KeyLengths::Range { min, max } => write!(f, "valid: between {min} and {max}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_lengths_read_as_the_valid_ones() {
        assert_eq!(
            KeyLengths::list(&[64, 32, 48, 32]),
            KeyLengths::List(vec![32, 48, 64])
        );
        assert_eq!(KeyLengths::list(&[32, 64]).to_string(), "valid: 32, 64");
        assert_eq!(KeyLengths::list(&[]).to_string(), "takes no key");
        assert_eq!(KeyLengths::range(32, 32), KeyLengths::List(vec![32]));
        assert_eq!(
            KeyLengths::range(16, 32).to_string(),
            "valid: between 16 and 32"
        );
        assert_eq!(
            KeyLengths::list(&[16, 24, 32]).plus(4),
            KeyLengths::List(vec![20, 28, 36])
        );
        let e = Error::InvalidKeyLength {
            driver: "xts-aes-vaes-avx10_512".to_string(),
            len: 40,
            valid: KeyLengths::list(&[32, 48, 64]),
        };
        assert_eq!(
            e.to_string(),
            "invalid key length 40 for xts-aes-vaes-avx10_512 (valid: 32, 48, 64)"
        );
    }

    #[test]
    fn wrong_type_reads_with_articles() {
        let e = |actual, wanted| Error::WrongType {
            name: "x".to_string(),
            wanted,
            actual,
        };
        assert_eq!(
            e("aead", "skcipher").to_string(),
            "\"x\" is an AEAD, not an skcipher"
        );
        assert_eq!(
            e("cipher", "hash").to_string(),
            "\"x\" is a cipher, not a hash"
        );
        assert_eq!(
            e("skcipher", "aead").to_string(),
            "\"x\" is an skcipher, not an AEAD"
        );
    }
}
