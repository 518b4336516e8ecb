//! The tool's error type and its exit codes.
//!
//! Scripts need to tell "you asked wrongly" (2, like clap's own usage errors) from "the
//! system refused" (1). A bad configuration file is the caller's input, so it is a 2 as
//! well; a boot aborted by a failed self-test is the system speaking, so it is a 1.

use std::fmt;

/// Why a command did not succeed.
#[derive(Debug)]
pub enum CliError {
    /// Bad arguments: unknown driver or name, impossible option combination.
    Usage(String),
    /// A configuration file that cannot be read or does not parse.
    Config(String),
    /// A runtime failure: boot aborted, a driver that cannot run here, an I/O error.
    Runtime(String),
    /// The command produced its report, and the report says the check failed (a
    /// `selftest --driver` run that found failures): print `output`, then `message`.
    Failed {
        /// The normal output of the command.
        output: String,
        /// One line for stderr.
        message: String,
    },
}

impl CliError {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) | CliError::Config(_) => 2,
            CliError::Runtime(_) | CliError::Failed { .. } => 1,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) | CliError::Runtime(m) => f.write_str(m),
            CliError::Config(m) => write!(f, "configuration error: {m}"),
            CliError::Failed { message, .. } => f.write_str(message),
        }
    }
}

impl From<cryptoreg::Error> for CliError {
    /// Errors that can only come from what the user typed (a name that does not exist,
    /// a key size the driver does not take) are usage errors; a configuration error is
    /// a configuration error; everything else is the registry refusing at run time.
    fn from(e: cryptoreg::Error) -> Self {
        use cryptoreg::Error as E;
        match e {
            // `Error::Config`'s own text starts with "configuration: ".
            E::Config(m) => CliError::Config(m),
            E::NotFound(_)
            | E::NotADriver { .. }
            | E::InvalidName { .. }
            | E::WrongType { .. }
            | E::InvalidKeyLength { .. }
            | E::InvalidIvLength { .. } => CliError::Usage(e.to_string()),
            other => CliError::Runtime(other.to_string()),
        }
    }
}

impl From<serde_json::Error> for CliError {
    fn from(e: serde_json::Error) -> Self {
        CliError::Runtime(format!("cannot write JSON: {e}"))
    }
}
