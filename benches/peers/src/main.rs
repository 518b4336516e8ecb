//! # cryptoreg-peers: cryptoreg's AEADs against ring, aws-lc-rs and OpenSSL, in one run
//!
//! `cargo xtask peers [--reps N] [--slice-ms M | --slice-us U] [--fastest] [--suite
//! all|aes-gcm|chacha] [--offset 0..63]` builds this crate in release mode and runs it.
//! For each algorithm family (AES-GCM in [`aes_gcm`], ChaCha20 and ChaCha20-Poly1305 in
//! [`chacha`]) it measures every cryptoreg
//! driver of the algorithm by exact driver name, and the peers, on the same message
//! sizes, every buffer at the same offset from a 64-byte boundary, interleaved
//! round-robin ([`harness`]), and prints the table and the ratios the issues' goals name.
//!
//! The registry boots as a service would (`CRYPTOREG_CONFIG` or the embedded defaults:
//! full self-tests), so only drivers that passed are measured. Not a member of the
//! workspace: the peers are heavy to build and `cargo xtask ci` must not compile them.

mod aes_gcm;
mod chacha;
mod contenders;
mod harness;
mod offsets;
mod report;

use std::process::ExitCode;
use std::time::Duration;

use harness::Settings;

const USAGE: &str = "usage: cryptoreg-peers [--reps N] [--slice-ms M | --slice-us U] [--fastest] \
     [--suite all|aes-gcm|chacha] [--offset 0..63]";

/// Which comparisons to run (`--suite`; all of them by default).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Suite {
    All,
    AesGcm,
    Chacha,
}

fn parse(args: &[String]) -> Result<(Settings, Suite), String> {
    let mut s = Settings {
        reps: 21,
        fastest: false,
        slice: Duration::from_millis(2),
        offset: 0,
    };
    let mut suite = Suite::All;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--suite" {
            suite = match it.next().map(String::as_str) {
                Some("all") => Suite::All,
                Some("aes-gcm") => Suite::AesGcm,
                Some("chacha") => Suite::Chacha,
                _ => return Err(format!("--suite takes all, aes-gcm or chacha\n{USAGE}")),
            };
            continue;
        }
        if a == "--fastest" {
            s.fastest = true;
            continue;
        }
        if a == "--offset" {
            s.offset = it
                .next()
                .and_then(|v| v.parse().ok())
                .filter(|&v: &usize| v < 64)
                .ok_or_else(|| format!("--offset takes 0 to 63\n{USAGE}"))?;
            continue;
        }
        let mut value = |name: &str| -> Result<u64, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .filter(|&v| v > 0)
                .ok_or_else(|| format!("{name} takes a positive number\n{USAGE}"))
        };
        match a.as_str() {
            "--reps" => s.reps = value("--reps")? as usize,
            "--slice-ms" => s.slice = Duration::from_millis(value("--slice-ms")?),
            "--slice-us" => s.slice = Duration::from_micros(value("--slice-us")?),
            _ => return Err(USAGE.to_string()),
        }
    }
    Ok((s, suite))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (settings, suite) = match parse(&args) {
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
        "cryptoreg peers: {} of {} interleaved rounds of ~{} us batches\n",
        if settings.fastest {
            "fastest"
        } else {
            "median"
        },
        settings.reps,
        settings.slice.as_micros()
    );
    if suite != Suite::Chacha {
        print!("{}", aes_gcm::run(&reg, settings));
    }
    if suite == Suite::All {
        println!();
    }
    if suite != Suite::AesGcm {
        print!("{}", chacha::run(&reg, settings));
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn fastest_and_microsecond_slices_parse() {
        let (s, suite) = parse(&args(&[
            "--fastest",
            "--slice-us",
            "50",
            "--suite",
            "chacha",
        ]))
        .expect("parses");
        assert!(s.fastest);
        assert_eq!(s.slice, Duration::from_micros(50));
        assert!(suite == Suite::Chacha);
        let (s, _) = parse(&args(&[])).expect("parses");
        assert!(!s.fastest);
        assert_eq!(s.slice, Duration::from_millis(2));
        assert!(parse(&args(&["--slice-us", "0"])).is_err());
    }
}
