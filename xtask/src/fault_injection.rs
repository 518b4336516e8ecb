//! The fault-injection drivers `xts-aes-faulty` and `gcm-aes-faulty` (priority 10000, wrong
//! on some inputs): the test command proves the self-test gate with them, and proves that
//! no ordinary build can contain them.
//!
//! It is compiled only under the compiler flag `--cfg cryptoreg_fault_injection`, never
//! behind a Cargo feature, because Cargo unifies features across a dependency graph: one
//! crate of a service's build turning a feature on would link the driver into the
//! service. Builds with the flag go to their own target directory
//! (`target/fault-injection`), so that switching the flag does not throw away the normal
//! build's cache.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::{cargo_command, status};

/// The flag that compiles the test-only drivers in.
const CFG: &str = "--cfg cryptoreg_fault_injection";

/// The gate tests, by name: each must be reported `ok` by the flagged test run, so a flag
/// that silently failed to reach the compiler (and compiled them out) fails the command.
const GATE_TESTS: &[&str] = &[
    // crates/cryptoreg/tests/fault_injection.rs
    "faulty_driver_passes_known_answers_but_is_caught_and_never_chosen",
    "faulty_gcm_is_excluded_with_a_replayable_line_on_100_consecutive_seeds",
    "first_use_refuses_the_faulty_driver_before_its_first_use_with_a_replayable_line",
    "a_driver_wrong_on_one_cpu_fails_every_boot_naming_that_cpu",
    // crates/cryptoreg/tests/rescan_fault.rs
    RESCAN_GATE_TEST,
    "a_running_sectord_moves_its_traffic_off_a_driver_that_turned_wrong",
    // crates/cryptoreg/tests/calibration_fault.rs
    "a_slow_driver_at_high_priority_loses_under_calibration_and_wins_without",
    "ten_boots_keep_the_first_of_two_candidates_within_the_margin",
    // crates/cryptoctl/tests/done_when.rs
    "fault_injection_is_caught_excluded_and_replayable",
];

/// The arm64 gate tests, which exist only in an `aarch64` build (`cfg(target_arch)`), in
/// addition to [`GATE_TESTS`]: a run under `qemu-aarch64` (`cargo xtask arm64`) checks
/// these too, with [`gate_tests_ran_for`].
pub const ARM64_GATE_TESTS: &[&str] = &[
    // crates/cryptoreg/tests/fault_injection.rs (`gcm-aes-ce-faulty`)
    "arm64_faulty_gcm_ce_is_excluded_with_a_replayable_line_on_100_consecutive_seeds",
    // crates/cryptoreg/tests/rescan_fault.rs, which the arm64 run runs too
    RESCAN_GATE_TEST,
];

/// The rescan's proof (`ctr-aes-faulty-late` turns wrong while in use and is caught).
const RESCAN_GATE_TEST: &str = "a_driver_that_turns_wrong_while_in_use_is_caught_by_the_rescan";

/// Checks that `output` (a flagged test run's) reports every gate test of `target_arch`
/// as passed: [`GATE_TESTS`] for `"x86_64"`, [`ARM64_GATE_TESTS`] for `"aarch64"` (the
/// arm64 run, `cargo xtask arm64`, runs only the facade's `fault_injection` tests).
pub fn gate_tests_ran_for(output: &str, target_arch: &str) -> Result<(), String> {
    if target_arch != "aarch64" {
        return gate_tests_ran(output);
    }
    let missing: Vec<&str> = ARM64_GATE_TESTS
        .iter()
        .copied()
        .filter(|name| !output.contains(&format!("test {name} ... ok")))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the arm64 fault-injection gate tests did not run and pass under {CFG}: {}",
            missing.join(", ")
        ))
    }
}

/// `target/fault-injection` (under `$CARGO_TARGET_DIR` when set).
fn flagged_target_dir(root: &Path) -> PathBuf {
    crate::emu::target_dir(root).join("fault-injection")
}

/// A cargo command with the flag added to `RUSTFLAGS` and its own target directory.
/// `CARGO_ENCODED_RUSTFLAGS` would override `RUSTFLAGS`, so it is removed.
fn flagged(root: &Path, args: &[&str]) -> Command {
    let flags = match std::env::var("RUSTFLAGS") {
        Ok(existing) if !existing.trim().is_empty() => format!("{existing} {CFG}"),
        _ => CFG.to_string(),
    };
    let target = flagged_target_dir(root);
    eprintln!(
        "xtask: (RUSTFLAGS=\"{flags}\", CARGO_TARGET_DIR={})",
        target.display()
    );
    let mut cmd = cargo_command(args);
    cmd.env("RUSTFLAGS", flags)
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env("CARGO_TARGET_DIR", target);
    cmd
}

/// Clippy over the whole workspace as the flagged build sees it (the faulty driver and
/// the `#[cfg(cryptoreg_fault_injection)]` tests included).
pub fn clippy(root: &Path) -> Result<(), String> {
    let args = [
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ];
    status(flagged(root, &args), &args)
}

/// Every test of the facade and the tool in the flagged build, which includes the gate
/// tests: the faulty driver passes the known answers, is caught by the randomized tests,
/// excluded, reported with a replayable line that replays.
pub fn test(root: &Path) -> Result<(), String> {
    let args = ["test", "-p", "cryptoreg", "-p", "cryptoctl"];
    // The `sectord` example this `cargo test` builds with the tests (see `main.rs`'s
    // `test`): its integration test runs it instead of building it.
    let sectord = crate::example_built_by(flagged(root, &args), "sectord")?;
    let mut cmd = flagged(root, &args);
    // The gate tests print their counts (caught after how long, how many sectors, how
    // many boots): shown, as the other tests' output is, though they pass.
    cmd.args(["--", "--show-output"]);
    cmd.env("CRYPTOREG_SECTORD_EXAMPLE", sectord);
    cmd.stdout(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| format!("cannot run cargo: {e}"))?;
    // Echo the test harness's output as it comes, keeping it to check the gate tests ran.
    let mut seen = String::new();
    let stdout = child.stdout.take().expect("stdout is piped");
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| format!("reading cargo test output: {e}"))?;
        println!("{line}");
        seen.push_str(&line);
        seen.push('\n');
    }
    let exit = child
        .wait()
        .map_err(|e| format!("waiting for cargo: {e}"))?;
    if !exit.success() {
        return Err(format!("cargo {} failed ({exit})", args.join(" ")));
    }
    gate_tests_ran(&seen)?;
    // What the gate tests that passed assert, with their counts.
    println!(
        "fault-injection gate: xts-aes-faulty and gcm-aes-faulty pass their known answers \
         and are excluded with a replayable line (gcm-aes-faulty on 100 of 100 base seeds); \
         ctr-aes-faulty-cpu fails on the highest-numbered CPU of the mask at every boot \
         and in 100 of 100 gate runs, each line naming that CPU and replaying there; \
         ctr-aes-faulty-late passes the boot, turns wrong while in use and is caught by \
         the background rescan within two periods, excluded, its handles no longer current, \
         and a running sectord moves off xts-aes-faulty-late (its counts are above); \
         calibration: ctr-aes-slow wins the ladder and loses to a measured faster driver, \
         and 10 of 10 boots keep the first of two twins within the margin"
    );
    Ok(())
}

/// Checks that the test output reports every gate test as passed.
fn gate_tests_ran(output: &str) -> Result<(), String> {
    let missing: Vec<&str> = GATE_TESTS
        .iter()
        .copied()
        .filter(|name| !output.contains(&format!("test {name} ... ok")))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the fault-injection gate tests did not run and pass under {CFG}: {}",
            missing.join(", ")
        ))
    }
}

/// Builds `cryptoctl` with `--all-features` and no flag (in `target/all-features`, with
/// `RUSTFLAGS` cleared) and checks that `cryptoctl list --json` shows the real drivers and
/// no faulty one: what any service's build would get, whatever features its graph turns on.
pub fn all_features_build_ships_no_faulty_driver(root: &Path) -> Result<String, String> {
    let target = crate::emu::target_dir(root).join("all-features");
    let args = ["build", "-p", "cryptoctl", "--all-features"];
    let mut cmd = cargo_command(&args);
    cmd.env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env("CARGO_TARGET_DIR", &target);
    status(cmd, &args)?;

    // Self-tests off: the listing is of registered drivers, and a debug build's full
    // self-test would only cost time.
    let config = target.join("selftest-off.toml");
    std::fs::write(&config, "[selftest]\nmode = \"off\"\n")
        .map_err(|e| format!("writing {}: {e}", config.display()))?;
    let exe = target
        .join("debug")
        .join(format!("cryptoctl{}", std::env::consts::EXE_SUFFIX));
    let out = Command::new(&exe)
        .args(["list", "--json", "--config"])
        .arg(&config)
        .env_remove("CRYPTOREG_CONFIG")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} list --json failed ({}): {}",
            exe.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let drivers = listed_drivers(&String::from_utf8_lossy(&out.stdout))?;
    check_listing(&drivers)?;
    Ok(format!(
        "cryptoctl --all-features (no cfg) registers {} drivers, none faulty",
        drivers.len()
    ))
}

/// The `driver` field of every entry of `cryptoctl list --json`.
fn listed_drivers(json: &str) -> Result<Vec<String>, String> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("cryptoctl list --json: {e}"))?;
    let entries = v.as_array().ok_or("cryptoctl list --json: not an array")?;
    entries
        .iter()
        .map(|e| {
            e["driver"]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("cryptoctl list --json: entry without a driver: {e}"))
        })
        .collect()
}

/// Drivers that every build registers: a listing without them is not a real listing.
fn expected_drivers() -> Vec<&'static str> {
    let mut want = vec!["aes-generic"];
    if cfg!(target_arch = "x86_64") {
        want.extend(["aes-aesni", "xts-aes-aesni", "xts-aes-vaes-avx10_512"]);
    }
    want
}

/// No driver name contains `faulty`, and the expected real drivers are there.
fn check_listing(drivers: &[String]) -> Result<(), String> {
    let faulty: Vec<&String> = drivers.iter().filter(|d| d.contains("faulty")).collect();
    if !faulty.is_empty() {
        return Err(format!(
            "a build without --cfg cryptoreg_fault_injection registers {faulty:?}"
        ));
    }
    let missing: Vec<&str> = expected_drivers()
        .into_iter()
        .filter(|want| !drivers.iter().any(|d| d == want))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "cryptoctl list --json lacks {missing:?} (listed: {drivers:?})"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_listing_with_a_faulty_driver_or_without_the_real_ones_is_rejected() {
        let mut good = names(&expected_drivers());
        good.push("ctr-aes-aesni".to_string());
        assert_eq!(check_listing(&good), Ok(()));

        let mut bad = good.clone();
        bad.push("xts-aes-faulty".to_string());
        assert!(check_listing(&bad).unwrap_err().contains("xts-aes-faulty"));

        assert!(check_listing(&names(&["ctr-aes-aesni"]))
            .unwrap_err()
            .contains("aes-generic"));
    }

    #[test]
    fn drivers_are_read_from_the_json_listing() {
        let json = r#"[{"name": "aes", "driver": "aes-generic", "priority": 100},
                       {"name": "xts(aes)", "driver": "xts-aes-faulty"}]"#;
        assert_eq!(
            listed_drivers(json).unwrap(),
            names(&["aes-generic", "xts-aes-faulty"])
        );
        assert!(listed_drivers(r#"{"driver": "x"}"#).is_err());
        assert!(listed_drivers(r#"[{"name": "aes"}]"#).is_err());
    }

    #[test]
    fn the_gate_tests_must_each_report_ok() {
        let all: String = GATE_TESTS
            .iter()
            .map(|t| format!("test {t} ... ok\n"))
            .collect();
        assert_eq!(gate_tests_ran(&all), Ok(()));
        let one_ignored = all.replacen(" ... ok", " ... ignored", 1);
        assert!(gate_tests_ran(&one_ignored).is_err());
        assert!(gate_tests_ran("test result: ok. 0 passed; 0 failed").is_err());
    }
}
