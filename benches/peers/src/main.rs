//! # cryptoreg-peers: cryptoreg's AEADs against ring and aws-lc-rs, in one run
//!
//! `cargo xtask peers [--reps N] [--slice-ms M]` builds this crate in release mode and
//! runs it. For each algorithm (today AES-GCM; ChaCha20-Poly1305 joins in issue 9, as
//! one more module like [`aes_gcm`]) it measures every cryptoreg driver of the algorithm
//! by exact driver name, and the peers, on the same message sizes, interleaved
//! round-robin ([`harness`]), and prints the table and the ratios the goals name.
//!
//! The registry boots as a service would (`CRYPTOREG_CONFIG` or the embedded defaults:
//! full self-tests), so only drivers that passed are measured. Not a member of the
//! workspace: the peers are heavy to build and `cargo xtask ci` must not compile them.

mod aes_gcm;
mod contenders;
mod harness;
mod report;

use std::process::ExitCode;
use std::time::Duration;

use harness::Settings;

const USAGE: &str = "usage: cryptoreg-peers [--reps N] [--slice-ms M]";

fn parse(args: &[String]) -> Result<Settings, String> {
    let mut s = Settings {
        reps: 21,
        slice: Duration::from_millis(2),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .filter(|&v| v > 0)
                .ok_or_else(|| format!("{name} takes a positive number\n{USAGE}"))
        };
        match a.as_str() {
            "--reps" => s.reps = value("--reps")? as usize,
            "--slice-ms" => s.slice = Duration::from_millis(value("--slice-ms")?),
            _ => return Err(USAGE.to_string()),
        }
    }
    Ok(s)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let settings = match parse(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if cfg!(debug_assertions) {
        eprintln!("peers: note: unoptimized build; run `cargo xtask peers` for real figures");
    }
    let reg = match cryptoreg::Config::load(None).and_then(|c| cryptoreg::boot(c, None)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("peers: boot: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "cryptoreg peers: median of {} interleaved rounds of ~{} ms batches\n",
        settings.reps,
        settings.slice.as_millis()
    );
    print!("{}", aes_gcm::run(&reg, settings));
    ExitCode::SUCCESS
}
