//! `cargo xtask peers [ARGS]`: builds the standalone `benches/peers` crate in release mode
//! and runs it (cryptoreg's AEADs against ring and aws-lc-rs in one interleaved run).
//! It is its own workspace, so `cargo xtask ci` never compiles the peers.

use std::path::Path;

pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let manifest = root.join("benches/peers/Cargo.toml");
    let manifest = manifest.to_str().ok_or("the workspace path is not UTF-8")?;
    let mut cmd = vec!["run", "--release", "--manifest-path", manifest, "--"];
    cmd.extend(args.iter().map(String::as_str));
    crate::cargo(&cmd)
}

/// `cargo xtask tls-bench [ARGS]`: the standalone `benches/tls` crate (this TLS provider
/// against rustls's aws-lc-rs and ring providers, bulk and handshakes), in release mode.
pub fn tls_bench(root: &Path, args: &[String]) -> Result<(), String> {
    let manifest = root.join("benches/tls/Cargo.toml");
    let manifest = manifest.to_str().ok_or("the workspace path is not UTF-8")?;
    let mut cmd = vec!["run", "--release", "--manifest-path", manifest, "--"];
    cmd.extend(args.iter().map(String::as_str));
    crate::cargo(&cmd)
}

/// `cargo xtask limits [ARGS]`: the standalone `benches/limits` crate (the gauge of the
/// limit: instruction throughputs, each family's bound, its best driver against it), in
/// release mode. Outside the test command, like the peers.
pub fn limits(root: &Path, args: &[String]) -> Result<(), String> {
    let manifest = root.join("benches/limits/Cargo.toml");
    let manifest = manifest.to_str().ok_or("the workspace path is not UTF-8")?;
    let mut cmd = vec!["run", "--release", "--manifest-path", manifest, "--"];
    cmd.extend(args.iter().map(String::as_str));
    crate::cargo(&cmd)
}
