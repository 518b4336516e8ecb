//! # cryptoreg-selftest
//!
//! The testmgr of cryptoreg: what the registry runs before a driver may be resolved.
//!
//! * **Known answers** ([`vectors`], `kat`): the standards' vectors, kept as data files in
//!   `selftest/vectors/` and keyed by algorithm name — FIPS-197 (`aes`), SP 800-38A
//!   (`ecb(aes)`, `cbc(aes)`, `ctr(aes)`, with RFC 3686's partial-block CTR vectors) and
//!   every IEEE 1619-2007 XTS-AES vector (`xts(aes)`, including ciphertext stealing and
//!   the equal-halves key that must be refused). Each vector runs in both directions,
//!   contiguous, segmented in place and out of place.
//! * **Randomized differential tests** (`random`, mode `full`): every non-generic driver is
//!   compared with the generic reference, found by name through the narrow
//!   [`TestHost`](cryptoreg_registry::TestHost) interface (`build_generic_driver_name`), over cases drawn from a seeded RNG: random keys,
//!   lengths that favour block boundaries, small sizes and ciphertext stealing, and random
//!   memory layouts ([`TestConfig`]).
//! * **AEADs and hashes** (`runner::aead`, `runner::hash`): known answers from
//!   `kind = "aead"` / `kind = "hash"` files, then randomized cases against the generic
//!   reference (a file may name it with `generic_driver`): random authsizes, AAD and text
//!   lengths and layouts ([`AeadConfig`]), inauthentic inputs that must fail with
//!   `BadMessage` and leave zeros; random update splits, `final` / `finup` / `digest` and
//!   export/import between updates ([`HashConfig`]).
//! * **Replayable failures** (`report`): each failing case is one line ending in its case
//!   seed; `TestParams { replay: true, seed, .. }` (`cryptoctl selftest --driver D --seed
//!   S`) runs exactly that case again and prints the same line. A driver that panics on a
//!   case fails with that case's line too (`panicked: ...`), not a bare crash report.
//!
//! The crate knows no concrete driver: it never links `cryptoreg-algos`. An algorithm with
//! no vectors is a failure, never a pass.
//!
//! ```no_run
//! use cryptoreg_registry::{BootOptions, Config, Registry};
//! let registry = Registry::boot(BootOptions {
//!     cpu: None,
//!     config: Config::embedded(),
//!     tester: Some(cryptoreg_selftest::tester()),
//! })?;
//! # Ok::<(), cryptoreg_registry::Error>(())
//! ```

#![forbid(unsafe_code)]
// docs.rs builds with `--cfg docsrs` (see `[package.metadata.docs.rs]`): mark feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod config;
mod exec;
mod kat;
pub mod random;
mod report;
pub mod runner;
mod tester;
pub mod vectors;

pub use config::{Division, Placement, TestConfig};
pub use kat::MAX_FAILING_VECTORS;
pub use random::MAX_FAILING_CASES;
pub use report::parse_seed;
pub use runner::layout::{AeadConfig, Finalization, HashConfig};
pub use tester::{tester, Tester};
pub use vectors::{
    algorithms_with_vectors, AeadVector, Expect, HashVector, Vector, VectorError, VectorSet,
};
