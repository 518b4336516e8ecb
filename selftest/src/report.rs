//! Failure lines and the tally of one driver's test.
//!
//! Every failure is exactly one line, replayable when it came from a randomized case:
//!
//! ```text
//! selftest: skcipher: xts-aes-faulty encryption test failed (wrong result) on "random: len=5326 klen=32"; cfg="outofplace src_divs=[61.2%@+3, 38.8%@+17] dst_divs=[100.0%@+9] key_offset=43 iv_offset=5"; seed=0x1c3f0a9e5b7d2c41
//! ```
//!
//! Shapes of the part after the driver name:
//!
//! * `{op} test failed (wrong result) on "{vector}"`
//! * `{op} test failed (unexpected error {Kind}) on "{vector}"`
//! * `{op} test failed (wrong error {Kind}) on "{vector}"; expected={Kind}`
//! * `{op} unexpectedly succeeded on "{vector}"; expected={Kind}`
//! * `{op} test failed (panicked: {message}) on "{vector}"`
//! * `{op} test failed (output not wiped after BadMessage) on "{vector}"` (AEAD open)
//! * `{op} test failed (output written by a refused request) on "{vector}"` (AEAD open with
//!   a truncated tag)
//!
//! followed by `; cfg="{TestConfig}"` and, for randomized cases, `; seed=0x{16 hex}`, the
//! case seed that `cryptoctl selftest --driver D --seed S` replays. `{op}` is `setkey`,
//! `setauthsize`, `encryption`, `decryption` (ciphers, AEADs), `hash` or `import` (hashes); `{Kind}` is the name of the
//! [`Error`] variant. Problems that are not about one case
//! (no vectors, no reference) read `selftest: {type}: {driver}: {message}`.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use cryptoreg_registry::{AlgType, Error, TestOutcome};

/// The operation a check exercised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    SetKey,
    SetAuthsize,
    Encryption,
    Decryption,
    /// A hash computed under a layout (its finalization is named in the cfg).
    Hash,
    /// A hash `import` of bytes that are not an exported state.
    Import,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::SetKey => "setkey",
            Op::SetAuthsize => "setauthsize",
            Op::Encryption => "encryption",
            Op::Decryption => "decryption",
            Op::Hash => "hash",
            Op::Import => "import",
        }
    }
}

/// What went wrong in one check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Problem {
    WrongResult,
    UnexpectedError(String),
    WrongError {
        actual: String,
        expected: String,
    },
    UnexpectedSuccess {
        expected: String,
    },
    Panicked(String),
    /// A failed AEAD open left bytes other than zeros in an output piece.
    PlaintextLeft,
    /// A request refused before it started (a tag buffer of the wrong length) wrote to its
    /// output anyway.
    OutputWritten,
}

/// The outcome of one operation on the driver under test: its result, or the message of
/// the panic it raised (bad input must be an error value, never a panic, and a panic in
/// one case must still yield that case's replayable line).
pub(crate) type Attempt = Result<Result<Vec<u8>, Error>, String>;

/// Runs one operation of the driver under test, catching a panic.
pub(crate) fn attempt(op: impl FnOnce() -> Result<Vec<u8>, Error>) -> Attempt {
    catch_unwind(AssertUnwindSafe(op)).map_err(|payload| panic_message(payload.as_ref()))
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string payload".to_string())
}

/// Judges an attempt: a panic is always a failure, else [`compare`].
pub(crate) fn judge(expected: &Expected<'_>, actual: &Attempt) -> Option<Problem> {
    match actual {
        Err(message) => Some(Problem::Panicked(message.clone())),
        Ok(result) => compare(expected, result),
    }
}

/// The name of an error's variant (`InvalidLength`), stable across drivers whose messages
/// differ: outcomes are compared by kind, not by text.
pub(crate) fn error_kind(e: &Error) -> String {
    let debug = format!("{e:?}");
    debug
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .unwrap_or_default()
        .to_string()
}

/// What a check expects: these bytes, or a refusal of this error kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expected<'a> {
    Bytes(&'a [u8]),
    Refused(String),
}

impl<'a> Expected<'a> {
    /// The reference's outcome as an expectation.
    pub fn of(outcome: &'a Result<Vec<u8>, Error>) -> Expected<'a> {
        match outcome {
            Ok(bytes) => Expected::Bytes(bytes),
            Err(e) => Expected::Refused(error_kind(e)),
        }
    }

    /// Success with no output (`set_key`).
    pub fn accepted<'b>() -> Expected<'b> {
        Expected::Bytes(&[])
    }

    /// A refusal of `kind`.
    pub fn refused<'b>(kind: &str) -> Expected<'b> {
        Expected::Refused(kind.to_string())
    }
}

/// Compares an operation's outcome with the expected one: the same bytes, or a refusal
/// of the same kind.
pub(crate) fn compare(expected: &Expected<'_>, actual: &Result<Vec<u8>, Error>) -> Option<Problem> {
    match (expected, actual) {
        (Expected::Bytes(want), Ok(got)) => {
            (*want != got.as_slice()).then_some(Problem::WrongResult)
        }
        (Expected::Bytes(_), Err(e)) => Some(Problem::UnexpectedError(error_kind(e))),
        (Expected::Refused(kind), Ok(_)) => Some(Problem::UnexpectedSuccess {
            expected: kind.clone(),
        }),
        (Expected::Refused(kind), Err(e)) => {
            let actual = error_kind(e);
            (actual != *kind).then(|| Problem::WrongError {
                actual,
                expected: kind.clone(),
            })
        }
    }
}

/// The case a check ran: a description of the vector, the layout, and (randomized cases)
/// the case seed.
pub(crate) struct Case<'a> {
    pub vector: &'a str,
    pub cfg: Option<&'a dyn std::fmt::Display>,
    pub seed: Option<u64>,
}

/// Formats one failure line.
pub(crate) fn failure_line(
    ty: AlgType,
    driver: &str,
    op: Op,
    problem: &Problem,
    case: &Case<'_>,
) -> String {
    let op = op.name();
    let vector = case.vector.replace('"', "'").replace('\n', " ");
    let mut line = match problem {
        Problem::WrongResult => {
            format!("selftest: {ty}: {driver} {op} test failed (wrong result) on \"{vector}\"")
        }
        Problem::UnexpectedError(kind) => {
            format!("selftest: {ty}: {driver} {op} test failed (unexpected error {kind}) on \"{vector}\"")
        }
        Problem::WrongError { actual, expected } => format!(
            "selftest: {ty}: {driver} {op} test failed (wrong error {actual}) on \"{vector}\"; expected={expected}"
        ),
        Problem::Panicked(message) => {
            let message = message.replace(['\n', '"'], " ");
            format!("selftest: {ty}: {driver} {op} test failed (panicked: {message}) on \"{vector}\"")
        }
        Problem::PlaintextLeft => format!(
            "selftest: {ty}: {driver} {op} test failed (output not wiped after BadMessage) on \"{vector}\""
        ),
        Problem::OutputWritten => format!(
            "selftest: {ty}: {driver} {op} test failed (output written by a refused request) on \"{vector}\""
        ),
        Problem::UnexpectedSuccess { expected } => {
            format!("selftest: {ty}: {driver} {op} unexpectedly succeeded on \"{vector}\"; expected={expected}")
        }
    };
    if let Some(cfg) = case.cfg {
        line.push_str(&format!("; cfg=\"{cfg}\""));
    }
    if let Some(seed) = case.seed {
        line.push_str(&format!("; seed={seed:#018x}"));
    }
    line
}

/// A line about the driver as a whole rather than one case.
pub(crate) fn driver_line(ty: AlgType, driver: &str, message: &str) -> String {
    format!("selftest: {ty}: {driver}: {}", message.replace('\n', " "))
}

/// Parses a seed as printed in failure lines (`0x1c3f...`) or in decimal; also accepts the
/// `seed=` prefix, so a line's last field can be pasted as is.
pub fn parse_seed(text: &str) -> Option<u64> {
    let t = text.trim();
    let t = t.strip_prefix("seed=").unwrap_or(t);
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    }
}

/// Checks run and failure lines collected for one driver.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub tests: usize,
    pub failures: Vec<String>,
    /// Set when the randomized tests could not get their generic reference.
    pub reference_unavailable: Option<String>,
}

impl Tally {
    /// Counts one check and records its failure, if any. Returns whether it passed.
    pub fn check(
        &mut self,
        ty: AlgType,
        driver: &str,
        op: Op,
        problem: Option<Problem>,
        case: &Case<'_>,
    ) -> bool {
        self.tests += 1;
        match problem {
            None => true,
            Some(p) => {
                self.failures.push(failure_line(ty, driver, op, &p, case));
                false
            }
        }
    }

    pub fn into_outcome(self) -> TestOutcome {
        TestOutcome {
            tests: self.tests,
            failures: self.failures,
            reference_unavailable: self.reference_unavailable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TestConfig;

    fn cfg() -> TestConfig {
        crate::config::example()
    }

    #[test]
    fn the_line_has_the_documented_shape() {
        let c = cfg();
        let line = failure_line(
            AlgType::Skcipher,
            "xts-aes-faulty",
            Op::Encryption,
            &Problem::WrongResult,
            &Case {
                vector: "random: len=5326 klen=32",
                cfg: Some(&c),
                seed: Some(0x1c3f),
            },
        );
        assert_eq!(
            line,
            "selftest: skcipher: xts-aes-faulty encryption test failed (wrong result) on \"random: len=5326 klen=32\"; cfg=\"outofplace src_divs=[61.2%@+3, 38.8%@+17] dst_divs=[100.0%@+9] key_offset=43 iv_offset=5\"; seed=0x0000000000001c3f"
        );
        let line = failure_line(
            AlgType::Skcipher,
            "d",
            Op::Decryption,
            &Problem::UnexpectedSuccess {
                expected: "InvalidLength".into(),
            },
            &Case {
                vector: "a \"quoted\"\nname",
                cfg: None,
                seed: None,
            },
        );
        assert_eq!(
            line,
            "selftest: skcipher: d decryption unexpectedly succeeded on \"a 'quoted' name\"; expected=InvalidLength"
        );
    }

    #[test]
    fn outcomes_compare_by_bytes_and_error_kind() {
        let len_err = |len| Error::InvalidLength {
            len,
            reason: "some driver's wording",
        };
        assert_eq!(compare(&Expected::Bytes(b"ab"), &Ok(b"ab".to_vec())), None);
        assert_eq!(
            compare(&Expected::Bytes(b"ab"), &Ok(b"ac".to_vec())),
            Some(Problem::WrongResult)
        );
        assert_eq!(
            compare(&Expected::Bytes(b"ab"), &Err(len_err(3))),
            Some(Problem::UnexpectedError("InvalidLength".into()))
        );
        assert_eq!(
            compare(&Expected::refused("InvalidLength"), &Err(len_err(9))),
            None
        );
        assert_eq!(
            compare(&Expected::refused("WeakKey"), &Err(len_err(9))),
            Some(Problem::WrongError {
                actual: "InvalidLength".into(),
                expected: "WeakKey".into()
            })
        );
        assert_eq!(
            compare(&Expected::refused("WeakKey"), &Ok(vec![])),
            Some(Problem::UnexpectedSuccess {
                expected: "WeakKey".into()
            })
        );
        assert_eq!(
            Expected::of(&Err(Error::WeakKey("x"))),
            Expected::refused("WeakKey")
        );
        assert_eq!(Expected::of(&Ok(vec![1])), Expected::Bytes(&[1]));
        assert_eq!(error_kind(&Error::WeakKey("x")), "WeakKey");
        assert_eq!(error_kind(&Error::NoKey), "NoKey");
        assert_eq!(error_kind(&Error::NotFound("x".into())), "NotFound");
    }

    #[test]
    fn panics_become_failures() {
        let a = attempt(|| panic!("boom at {}", 7));
        assert_eq!(
            judge(&Expected::accepted(), &a),
            Some(Problem::Panicked("boom at 7".into()))
        );
        let b = attempt(|| Ok(vec![1]));
        assert_eq!(judge(&Expected::Bytes(&[1]), &b), None);
        let line = failure_line(
            AlgType::Cipher,
            "d",
            Op::Encryption,
            &Problem::Panicked("index out of bounds\nat \"x\"".into()),
            &Case {
                vector: "random: len=3 klen=16",
                cfg: None,
                seed: Some(1),
            },
        );
        assert_eq!(
            line,
            "selftest: cipher: d encryption test failed (panicked: index out of bounds at  x ) on \"random: len=3 klen=16\"; seed=0x0000000000000001"
        );
    }

    #[test]
    fn seeds_parse_as_printed() {
        assert_eq!(parse_seed("0x0000000000001c3f"), Some(0x1c3f));
        assert_eq!(parse_seed("seed=0xFFFFFFFFFFFFFFFF"), Some(u64::MAX));
        assert_eq!(parse_seed(" 42 "), Some(42));
        assert_eq!(parse_seed("0x"), None);
        assert_eq!(parse_seed("zz"), None);
    }
}
