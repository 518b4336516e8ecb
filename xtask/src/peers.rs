//! The standalone benches, each its own workspace so that `cargo xtask ci` never
//! compiles them, built in release mode and run with the caller's arguments:
//!
//! * `cargo xtask peers [ARGS]`: `benches/peers` (cryptoreg's AEADs against ring,
//!   aws-lc-rs and OpenSSL in one interleaved run);
//! * `cargo xtask tls-bench [ARGS]`: `benches/tls` (this TLS provider against rustls's
//!   aws-lc-rs and ring providers, bulk and handshakes);
//! * `cargo xtask limits [ARGS]`: `benches/limits` (the gauge of the limit: instruction
//!   throughputs, each family's bound, its best driver against it).

use std::path::Path;

/// `cargo run --release --manifest-path benches/NAME/Cargo.toml -- ARGS`.
pub fn run_bench(root: &Path, name: &str, args: &[String]) -> Result<(), String> {
    let manifest = root.join("benches").join(name).join("Cargo.toml");
    let manifest = manifest.to_str().ok_or("the workspace path is not UTF-8")?;
    let mut cmd = vec!["run", "--release", "--manifest-path", manifest, "--"];
    cmd.extend(args.iter().map(String::as_str));
    crate::cargo(&cmd)
}
