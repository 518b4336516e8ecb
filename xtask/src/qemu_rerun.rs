//! `xtask qemu-run`: the runner `cargo xtask arm64` gives cargo for arm64 binaries. It runs
//! the binary under QEMU's user-mode emulator and runs it again, a bounded number of times,
//! when the emulated process dies of one of the signals QEMU's own thread race produces.
//!
//! Why: QEMU's user mode (7.2 and 10.0.2 alike) races when guest threads start threads. A
//! test binary occasionally dies with SIGBUS, SIGSEGV or SIGABRT inside `std`'s
//! `thread_start`, reading its start record after glibc freed it (the core shows glibc's
//! safe-linked free-list word there). One test at a time (`RUST_TEST_THREADS=1`) made it
//! rare, not gone: the boot's self-test workers and the concurrency tests still start
//! threads, and a CI run of about 130 emulated binaries met it once.
//!
//! What keeps this honest:
//! * Only a death by SIGBUS, SIGSEGV or SIGABRT is run again; a failed test exits with
//!   status 101 and is never rerun, and SIGILL (a SIMD instruction the emulated CPU lacks:
//!   a soundness bug) is never rerun.
//! * The whole binary runs again, so every test in it must pass in one complete run.
//! * Every rerun is printed and appended to a log; [`MAX_RERUNS_PER_BINARY`] per binary and
//!   [`MAX_RERUNS_IN_ALL`] for one `cargo xtask arm64` bound them, so a crash of our own
//!   that repeats fails the run.
//! * Binaries a test starts (`cryptoctl`, the example service) get plain QEMU as their
//!   runner: the test kills and waits for them, which a wrapper would get in the way of.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, ExitCode, ExitStatus, Output};

/// The QEMU command line (`qemu-aarch64 -L / -cpu max`), set by `cargo xtask arm64`.
pub const QEMU_VAR: &str = "XTASK_QEMU_RUNNER";
/// The file every rerun is appended to, set by `cargo xtask arm64`.
pub const LOG_VAR: &str = "XTASK_QEMU_RERUN_LOG";
/// Runs of one binary after its first.
pub const MAX_RERUNS_PER_BINARY: usize = 2;
/// Reruns in one `cargo xtask arm64`, all binaries together.
pub const MAX_RERUNS_IN_ALL: usize = 4;

/// Signals QEMU's thread-start race was seen to end a guest with.
const RACE_SIGNALS: &[(i32, &str)] = &[(6, "SIGABRT"), (7, "SIGBUS"), (11, "SIGSEGV")];

/// The name of `status`'s signal when it is one the race produces.
fn race_signal(status: ExitStatus) -> Option<&'static str> {
    let sig = status.signal()?;
    RACE_SIGNALS
        .iter()
        .find(|(n, _)| *n == sig)
        .map(|(_, name)| *name)
}

/// Reruns recorded so far in `log`.
fn reruns_logged(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// Decides whether the run that ended with `status` is run again; records it when so.
fn may_rerun(status: ExitStatus, what: &str, reruns: usize, log: &Path) -> bool {
    let Some(signal) = race_signal(status) else {
        return false;
    };
    let in_all = reruns_logged(log);
    if reruns >= MAX_RERUNS_PER_BINARY || in_all >= MAX_RERUNS_IN_ALL {
        eprintln!(
            "xtask qemu-run: {what} died of {signal} again; not rerun ({reruns} reruns of it, \
             {in_all} in all): treat as a real crash"
        );
        return false;
    }
    let line = format!(
        "{what}: died of {signal} under QEMU; rerun {}\n",
        reruns + 1
    );
    eprint!("xtask qemu-run: {line}");
    use std::io::Write;
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    true
}

/// The QEMU command for `qemu` (a whitespace-separated command line) running `args`, with
/// `qemu` itself as the runner of anything the binary starts.
fn qemu_command(qemu: &str, args: &[String]) -> Result<Command, String> {
    let mut words = qemu.split_whitespace();
    let program = words.next().ok_or_else(|| format!("{QEMU_VAR} is empty"))?;
    let mut cmd = Command::new(program);
    cmd.args(words)
        .args(args)
        .env(crate::arm64::RUNNER_VAR, qemu)
        .env_remove(QEMU_VAR)
        .env_remove(LOG_VAR);
    Ok(cmd)
}

/// `xtask qemu-run EXE ARGS...`, as cargo calls a runner: stdio inherited, the exit status
/// passed on (128 + the signal for a death by signal, as a shell reports it).
pub fn main(args: &[String]) -> ExitCode {
    let (Ok(qemu), Ok(log)) = (std::env::var(QEMU_VAR), std::env::var(LOG_VAR)) else {
        eprintln!(
            "xtask qemu-run: {QEMU_VAR} and {LOG_VAR} must be set (cargo xtask arm64 sets them)"
        );
        return ExitCode::FAILURE;
    };
    let what = args.first().map(String::as_str).unwrap_or("?").to_string();
    let mut reruns = 0;
    loop {
        let status = match qemu_command(&qemu, args).and_then(|mut c| {
            c.status()
                .map_err(|e| format!("cannot run {qemu} {what}: {e}"))
        }) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("xtask qemu-run: {e}");
                return ExitCode::FAILURE;
            }
        };
        if status.success() {
            return ExitCode::SUCCESS;
        }
        if !may_rerun(status, &what, reruns, Path::new(&log)) {
            let code = status
                .code()
                .or_else(|| status.signal().map(|s| 128 + s))
                .unwrap_or(1);
            return ExitCode::from(u8::try_from(code).unwrap_or(1));
        }
        reruns += 1;
    }
}

/// Runs `make()`'s command to completion with its output captured, rerunning it under the
/// same rules as [`main`]; for the xtask's own QEMU runs (`cryptoctl selftest`).
pub fn output(what: &str, log: &Path, make: impl Fn() -> Command) -> Result<Output, String> {
    let mut reruns = 0;
    loop {
        let out = make()
            .output()
            .map_err(|e| format!("cannot run {what}: {e}"))?;
        if out.status.success() || !may_rerun(out.status, what, reruns, log) {
            return Ok(out);
        }
        reruns += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn died_of(sig: i32) -> ExitStatus {
        ExitStatus::from_raw(sig)
    }

    fn exited(code: i32) -> ExitStatus {
        ExitStatus::from_raw(code << 8)
    }

    #[test]
    fn only_the_race_signals_are_rerun_and_within_bounds() {
        let log = std::env::temp_dir().join(format!("qemu-rerun-test-{}", std::process::id()));
        let _ = std::fs::remove_file(&log);
        // A failed test (101) and an illegal instruction are never rerun.
        assert!(!may_rerun(exited(101), "t", 0, &log));
        assert!(!may_rerun(died_of(4), "t", 0, &log));
        assert!(!may_rerun(died_of(9), "t", 0, &log));
        assert_eq!(reruns_logged(&log), 0);
        // SIGBUS is, until the per-binary bound.
        assert!(may_rerun(died_of(7), "a", 0, &log));
        assert!(may_rerun(died_of(11), "a", 1, &log));
        assert!(!may_rerun(died_of(7), "a", MAX_RERUNS_PER_BINARY, &log));
        // And until the bound for the whole run.
        assert!(may_rerun(died_of(6), "b", 0, &log));
        assert!(may_rerun(died_of(6), "c", 0, &log));
        assert_eq!(reruns_logged(&log), MAX_RERUNS_IN_ALL);
        assert!(!may_rerun(died_of(7), "d", 0, &log));
        let _ = std::fs::remove_file(&log);
    }
}
