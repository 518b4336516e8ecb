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
    cmd.extend(bench_args(args).iter().map(String::as_str));
    crate::cargo(&cmd)
}

/// The bench's own arguments: `args` without a leading `--`, so that `cargo xtask
/// tls-bench -- --rounds 15` (the form cargo users type to pass arguments through) and
/// `cargo xtask tls-bench --rounds 15` both reach the bench as `--rounds 15` (a `--` passed
/// on made the bench refuse its arguments).
fn bench_args(args: &[String]) -> &[String] {
    match args.split_first() {
        Some((first, rest)) if first == "--" => rest,
        _ => args,
    }
}

#[cfg(test)]
mod tests {
    use super::bench_args;

    #[test]
    fn a_leading_double_dash_is_dropped_and_nothing_else() {
        let with = ["--", "--rounds", "15"].map(String::from);
        let without = ["--rounds", "15"].map(String::from);
        assert_eq!(bench_args(&with), &without[..]);
        assert_eq!(bench_args(&without), &without[..]);
        let later = ["--rounds", "--", "15"].map(String::from);
        assert_eq!(bench_args(&later), &later[..]);
        assert!(bench_args(&[]).is_empty());
    }
}
