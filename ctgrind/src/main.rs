//! # cryptoreg-ctgrind: the constant-time check
//!
//! The generic drivers promise no secret-dependent branches and no secret-dependent
//! memory indexes. This binary checks that promise with the *ctgrind* technique (Adam
//! Langley, 2010): it marks keys and data as **undefined** with Valgrind's client
//! requests and runs the drivers under memcheck, which reports any conditional jump,
//! conditional move or address that depends on undefined bytes — exactly a timing or
//! cache channel on a secret. Outputs are marked defined again just before they are
//! compared with the expected values.
//!
//! Checked, through the registry by exact driver name (self-tests off: they would only
//! slow Valgrind down and are not what is measured here):
//!
//! * `aes-generic`: key expansion, encryption, decryption; 128-, 192- and 256-bit keys
//!   (FIPS-197 appendix C answers);
//! * `ctr(aes-generic)` and `xts(ecb(aes-generic))`: the templates over it, at lengths
//!   from 0 bytes to a page with partial blocks;
//! * `ghash-generic`: `set_key` with H secret, digests and split updates;
//! * `gcm_base(ctr(aes-generic),ghash-generic)` (what `gcm(aes)` builds over the generic
//!   leaves): seal with key, AAD and text secret, open with the key secret.
//!
//! Usage (what `cargo xtask ctgrind` does, on a release build):
//!
//! ```text
//! valgrind --tool=memcheck --error-exitcode=1 --track-origins=yes \
//!     target/release/cryptoreg-ctgrind            # must pass
//! valgrind ... target/release/cryptoreg-ctgrind leaky   # must FAIL (negative control)
//! ```
//!
//! Without Valgrind the checks refuse to run (they would prove nothing) unless given
//! `--native`, which runs the same cases as a plain smoke test. The client requests are
//! in [`valgrind`], the only `unsafe` code here.
//!
//! Why a crate of its own rather than a binary in `cryptoreg-emu`: that crate is a
//! `cdylib` for the Bochs harness; this one is a plain program with one job, linked
//! against the facade like any user of the registry.

#![deny(unsafe_code)]

mod cases;
mod leaky;
mod secret;
mod valgrind;

use std::process::ExitCode;

use cryptoreg::{Config, Registry};

const USAGE: &str = "usage: cryptoreg-ctgrind [--native | leaky]";

/// Boots the registry with self-tests off.
fn boot() -> Result<Registry, String> {
    let config = Config::parse("[selftest]\nmode = \"off\"\n", "ctgrind")
        .map_err(|e| format!("configuration: {e}"))?;
    cryptoreg::boot(config, None).map_err(|e| format!("boot: {e}"))
}

/// Every case, in order.
fn run_all(reg: &Registry) -> Vec<cases::Outcome> {
    let mut out = cases::aes_generic(reg);
    out.extend(cases::skcipher(reg, "ctr(aes-generic)", &[16, 24, 32]));
    out.extend(cases::skcipher(reg, "xts(ecb(aes-generic))", &[32, 64]));
    out.extend(cases::keyed_hash(reg, "ghash-generic", 16));
    out.extend(cases::aead(
        reg,
        "gcm_base(ctr(aes-generic),ghash-generic)",
        &[16, 32],
        &[16, 4],
    ));
    // The ChaCha20-Poly1305 ladder's portable drivers (issue 9).
    out.extend(cases::skcipher(reg, "chacha20-generic", &[32]));
    out.extend(cases::skcipher(reg, "xchacha20-generic", &[32]));
    out.extend(cases::keyed_hash(reg, "poly1305-generic", 32));
    out.extend(cases::aead(
        reg,
        "rfc7539(chacha20-generic,poly1305-generic)",
        &[32],
        &[16],
    ));
    out.extend(cases::aead(reg, "xchacha20poly1305-generic", &[32], &[16]));
    out
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let on_valgrind = valgrind::running_on_valgrind() > 0;
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["leaky"] => {
            println!("ctgrind: negative control: {}", leaky::leak());
            return ExitCode::SUCCESS;
        }
        [] if !on_valgrind => {
            eprintln!("ctgrind: not running under Valgrind, so nothing would be checked; run `cargo xtask ctgrind` (or pass --native for a smoke run)");
            return ExitCode::from(2);
        }
        [] | ["--native"] => {}
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    }
    let reg = match boot() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ctgrind: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    for outcome in run_all(&reg) {
        match outcome {
            Ok(line) => println!("ctgrind: ok: {line}"),
            Err(e) => {
                failed = true;
                eprintln!("ctgrind: FAILED: {e}");
            }
        }
    }
    println!(
        "ctgrind: {} (under Valgrind: {on_valgrind})",
        if failed { "failed" } else { "done" }
    );
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Natively the client requests are no-ops, so this checks only that every case runs
    /// and computes the right answers; `cargo xtask ctgrind` checks constant time.
    #[test]
    fn every_case_passes_natively() {
        let reg = boot().expect("boots");
        for outcome in run_all(&reg) {
            outcome.expect("case passes");
        }
    }

    #[test]
    fn client_requests_are_no_ops_natively() {
        let data = vec![1u8, 2, 3];
        valgrind::make_undefined(&data);
        valgrind::make_defined(&data);
        assert_eq!(data, [1, 2, 3]);
        assert_eq!(leaky::leak(), leaky::leak());
    }
}
