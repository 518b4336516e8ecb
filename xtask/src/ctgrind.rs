//! `cargo xtask ctgrind`: the constant-time check of the generic drivers under Valgrind
//! memcheck (the `cryptoreg-ctgrind` crate says what it runs and how).
//!
//! 1. `cargo build --release -p cryptoreg-ctgrind` (optimized code is what ships, and
//!    what an optimizer may have turned into a branch);
//! 2. the checks under `valgrind --tool=memcheck --error-exitcode=1 --track-origins=yes`
//!    with `ctgrind/valgrind.supp` (the deliberate public verdicts): must exit 0, with
//!    every case ok, no memcheck error, and the binary's own word that it ran under
//!    Valgrind;
//! 3. the negative control (`cryptoreg-ctgrind leaky`, a secret table index and a secret
//!    branch) under the same command: Valgrind must FAIL it with both "Use of
//!    uninitialised value" and "Conditional jump or move depends on uninitialised value",
//!    each pointing at `leaky.rs`. A check that cannot fail proves nothing.

use std::path::Path;
use std::process::{Command, Output};

use crate::emu::target_dir;

/// What memcheck says about a secret branch or conditional move.
const COND_REPORT: &str = "Conditional jump or move depends on uninitialised value";
/// What memcheck says about a secret address (a table index).
const ADDR_REPORT: &str = "Use of uninitialised value of size";

fn valgrind(root: &Path, bin: &Path, args: &[&str]) -> Result<Output, String> {
    Command::new("valgrind")
        .args([
            "--tool=memcheck",
            "--error-exitcode=1",
            "--track-origins=yes",
        ])
        .arg(format!(
            "--suppressions={}",
            root.join("ctgrind/valgrind.supp").display()
        ))
        .arg(bin)
        .args(args)
        .current_dir(root)
        .output()
        .map_err(|e| {
            format!("cannot run valgrind ({e}); install it (Debian: apt-get install valgrind)")
        })
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Builds and runs both; returns the summary line.
pub fn run(root: &Path) -> Result<String, String> {
    crate::cargo(&["build", "--release", "-p", "cryptoreg-ctgrind"])?;
    let bin = target_dir(root).join("release").join("cryptoreg-ctgrind");

    let checks = valgrind(root, &bin, &[])?;
    let (stdout, stderr) = text(&checks);
    print!("{stdout}");
    let clean = stderr.contains("ERROR SUMMARY: 0 errors");
    let ran = stdout.contains("ctgrind: done (under Valgrind: true)");
    if !checks.status.success() || !clean || !ran {
        return Err(format!(
            "ctgrind: the generic drivers are not clean under memcheck ({}):\n{stderr}",
            checks.status
        ));
    }
    let cases = stdout
        .lines()
        .filter(|l| l.starts_with("ctgrind: ok:"))
        .count();
    // "ERROR SUMMARY: 0 errors from 0 contexts (suppressed: N from M)": say how many
    // reports of deliberate public verdicts the suppression file accounted for.
    let suppressed = stderr
        .lines()
        .find_map(|l| l.split("(suppressed: ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or("0")
        .to_string();

    let control = valgrind(root, &bin, &["leaky"])?;
    let (_, stderr) = text(&control);
    // Each report's first frame (the line after the report) must be in the control.
    let flagged = |report: &str| {
        stderr
            .split(report)
            .skip(1)
            .any(|after| after.lines().nth(1).is_some_and(|l| l.contains("leaky.rs")))
    };
    if control.status.code() != Some(1) || !flagged(COND_REPORT) || !flagged(ADDR_REPORT) {
        return Err(format!(
            "ctgrind: the negative control was not caught ({}); the check proves nothing:\n{stderr}",
            control.status
        ));
    }
    Ok(format!(
        "ctgrind: {cases} constant-time cases clean under memcheck ({suppressed} reports of \
         the public verdicts in ctgrind/valgrind.supp suppressed); the negative control \
         (secret table index, secret branch) is caught"
    ))
}
