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
    /// The name asks for an algorithm of another type (`alloc_skcipher("aes")`).
    #[error("{name:?} is a {actual}, not a {wanted}")]
    WrongType {
        /// What was asked for.
        name: String,
        /// The type the caller wanted.
        wanted: &'static str,
        /// The type it has.
        actual: &'static str,
    },
    /// A key of a length the algorithm does not take.
    #[error("invalid key length {len} for {driver}")]
    InvalidKeyLength {
        /// The driver.
        driver: String,
        /// The length given.
        len: usize,
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
