//! `cryptoctl selftest`: the main job of the tool.
//!
//! Without `--driver`: boot exactly as a service would (self-tests run during boot),
//! resolve every algorithm name so the template instances a service would get are built
//! and tested too, and report per driver, then per algorithm name (those only a template
//! serves, such as `rfc4106(gcm(aes))`, included) the driver chosen, its priority and
//! why, in `explain`'s words. A failed driver that the policy excluded is the system
//! working, so the exit status is 0 unless the boot itself fails (`on_failure = "abort"`)
//! or a name is left with no usable driver; failures are printed in their own section
//! with the command that replays each.
//!
//! With `--driver D`: boot in `kat` mode (fast, and the generic references must pass
//! their known answers to serve as references), then run the full test of D alone with
//! the given seed and iteration count. `--seed` taken from a failure line replays exactly
//! that randomized case. Here the question is "does D pass?", so a failure exits 1.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

use cryptoreg::control::Request;
use cryptoreg::{DriverReport, SelftestMode, SelftestReport, Shard, TestParams};

use crate::cmd::choices::{self, Choice};
use crate::cmd::{live, Globals};
use crate::error::CliError;
use crate::table::{Align, Table};

/// `selftest` options.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Test only this driver (boots with known-answer tests only, then runs the full
    /// test of this driver).
    #[arg(long, value_name = "DRIVER")]
    pub driver: Option<String>,
    /// Base seed of the randomized tests, decimal or 0x-hex. With --driver it replays the
    /// one case a failure line printed.
    #[arg(long, value_name = "SEED", value_parser = parse_seed)]
    pub seed: Option<u64>,
    /// Randomized iterations per driver (default: the configuration's fuzz_iterations,
    /// or 1 when replaying a --seed).
    #[arg(long, value_name = "N")]
    pub iterations: Option<u32>,
    /// With --driver: run only on this CPU (pinned there), as a failure line's `on cpu N`
    /// names it. Without it the test runs on every CPU of the process's affinity mask.
    #[arg(long, value_name = "N", requires = "driver")]
    pub cpu_id: Option<usize>,
}

/// Parses a seed as printed in failure lines (`0x1f...`) or as a decimal number.
pub fn parse_seed(s: &str) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    r.map_err(|e| format!("{s:?} is not a decimal or 0x-hex 64-bit number ({e})"))
}

/// Runs `selftest`.
pub fn run(g: &Globals, args: &Args) -> Result<String, CliError> {
    match &args.driver {
        Some(d) => one_driver(g, args, d),
        None => whole_boot(g, args),
    }
}

/// The boot's self-test report and the driver each algorithm name resolves to.
struct BootReport {
    /// Boot (self-tests included) plus the resolution of every name, in milliseconds.
    elapsed_ms: f64,
    /// The boot's own report (its `elapsed_ms` is the boot alone).
    report: SelftestReport,
    /// Algorithm name -> the driver a request gets now, its priority and why; the
    /// template-only names (`rfc4106(gcm(aes))`) included.
    choices: BTreeMap<String, Choice>,
}

/// The JSON shape: the report's fields beside the totals (`boot_ms` is the report's
/// `elapsed_ms`); `chosen` maps each name to its driver (null if none), `errors` says why
/// a name has none, `choices` adds the priority and the reason.
impl Serialize for BootReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Wire<'a> {
            elapsed_ms: f64,
            boot_ms: f64,
            mode: &'a str,
            seed: &'a str,
            drivers: &'a [DriverReport],
            warnings: &'a [String],
            chosen: BTreeMap<&'a str, Option<&'a str>>,
            #[serde(skip_serializing_if = "BTreeMap::is_empty")]
            errors: BTreeMap<&'a str, &'a str>,
            choices: &'a BTreeMap<String, Choice>,
        }
        Wire {
            elapsed_ms: self.elapsed_ms,
            boot_ms: self.report.elapsed_ms,
            mode: self.report.mode,
            seed: &self.report.seed,
            drivers: &self.report.drivers,
            warnings: &self.report.warnings,
            chosen: self
                .choices
                .iter()
                .map(|(n, c)| (n.as_str(), c.driver.as_deref()))
                .collect(),
            errors: self.unusable().collect(),
            choices: &self.choices,
        }
        .serialize(s)
    }
}

impl BootReport {
    /// The names nothing usable serves, with why.
    fn unusable(&self) -> impl Iterator<Item = (&str, &str)> {
        self.choices
            .iter()
            .filter(|(_, c)| c.driver.is_none())
            .map(|(n, c)| (n.as_str(), c.reason.as_str()))
    }
}

/// The boot report of a live process (`--socket`): its boot's self-test report, and the
/// driver each algorithm name resolves to there now.
fn live_report(path: &std::path::Path) -> Result<BootReport, CliError> {
    let start = Instant::now();
    let report: SelftestReport = live::call(path, &Request::new("report"))?;
    let choices = choices::live(path)?;
    Ok(BootReport {
        elapsed_ms: report.elapsed_ms + start.elapsed().as_secs_f64() * 1e3,
        report,
        choices,
    })
}

fn whole_boot(g: &Globals, args: &Args) -> Result<String, CliError> {
    let out = match &g.socket {
        Some(path) => {
            if args.seed.is_some() || args.iterations.is_some() {
                return Err(CliError::Usage(
                    "--seed and --iterations configure a new boot; with --socket, selftest \
                     shows the live process's boot report"
                        .to_string(),
                ));
            }
            live_report(path)?
        }
        None => offline_report(g, args)?,
    };
    let text = if g.json {
        Globals::to_json(&out)?
    } else {
        boot_human(&out)
    };
    finish(text, &out)
}

fn offline_report(g: &Globals, args: &Args) -> Result<BootReport, CliError> {
    let mut config = g.config()?;
    if let Some(seed) = args.seed {
        config.selftest.seed = Some(seed);
    }
    if let Some(n) = args.iterations {
        config.selftest.fuzz_iterations = n;
        config.selftest.check("--iterations")?;
    }
    let start = Instant::now();
    let reg = g.boot(config)?;
    let choices = choices::offline(&reg);
    let elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(BootReport {
        elapsed_ms,
        report: reg.selftest_report(),
        choices,
    })
}

fn finish(text: String, out: &BootReport) -> Result<String, CliError> {
    // An algorithm that ends with no usable driver is a failed boot for this command,
    // even when every failure was excluded as configured: a service asking for it would
    // get nothing.
    let unusable: Vec<&str> = out.unusable().map(|(n, _)| n).collect();
    if !unusable.is_empty() {
        return Err(CliError::Failed {
            output: text,
            message: format!(
                "no usable driver for {} algorithm(s): {}",
                unusable.len(),
                unusable.join(", ")
            ),
        });
    }
    Ok(text)
}

/// The report as `SelftestReport`'s `Display` writes it (summary, warnings, the driver
/// table, failures with their replay commands), then the driver chosen for each name with
/// its priority and the reason `explain` gives, and the total time.
fn boot_human(r: &BootReport) -> String {
    let mut out = r.report.to_string();
    out.push_str("\nchosen: the driver a request for each name gets now, and why\n");
    let mut c = Table::new(&[
        ("", Align::Left),
        ("", Align::Left),
        ("", Align::Left),
        ("", Align::Right),
        ("", Align::Left),
    ]);
    for (name, choice) in &r.choices {
        let (driver, why) = match &choice.driver {
            Some(d) => (d.clone(), choice.reason.clone()),
            None => ("(nothing)".to_string(), choice.reason.clone()),
        };
        let why = if choice.template_only {
            format!("{why}; a template serves this name")
        } else {
            why
        };
        c.row([
            name.clone(),
            "->".to_string(),
            driver,
            choice.priority.map_or(String::new(), |p| p.to_string()),
            why,
        ]);
    }
    out.extend(c.render("  ").lines().skip(1).map(|l| format!("{l}\n")));
    out.push_str(&format!(
        "\n{:.1} ms in all: the boot and the resolution of every name\n",
        r.elapsed_ms
    ));
    out
}

struct DriverRun {
    driver: String,
    /// `passed` or `failed`.
    state: &'static str,
    tests: usize,
    failures: Vec<String>,
    seed: String,
    iterations: u32,
    replay: bool,
    /// The one CPU it ran on (`--cpu-id`), else every CPU of the mask; `None` where it
    /// ran unpinned.
    cpu: Option<usize>,
    /// Where it ran, in words: `on cpu 1`, `on cpus 0, 1`, or empty (unpinned).
    cpus: String,
    elapsed_ms: f64,
}

fn one_driver(g: &Globals, args: &Args, driver: &str) -> Result<String, CliError> {
    if g.socket.is_some() {
        return Err(CliError::Usage(
            "selftest --driver tests in this process, not in the live one; drop --socket"
                .to_string(),
        ));
    }
    let mut config = g.config()?;
    let iterations = args.iterations.unwrap_or(if args.seed.is_some() {
        1
    } else {
        config.selftest.fuzz_iterations
    });
    config.selftest.mode = SelftestMode::Kat;
    let every_cpu = config.selftest.every_cpu;
    let reg = g.boot(config)?;
    let params = TestParams {
        mode: SelftestMode::Full,
        iterations,
        seed: args.seed.unwrap_or_else(|| reg.seed()),
        replay: args.seed.is_some(),
        shard: Shard::WHOLE,
        cpu: args.cpu_id,
    };
    if !reg.list().iter().any(|e| e.driver == driver) {
        // A template instance (`xts(ecb-aes-aesni)`) exists once something asks for it.
        let _ = reg.resolve(driver);
    }
    let start = Instant::now();
    let outcome = reg.run_selftest(driver, &params)?;
    let run = DriverRun {
        driver: driver.to_string(),
        state: if outcome.passed() { "passed" } else { "failed" },
        tests: outcome.tests,
        failures: outcome.failures,
        seed: format!("{:#x}", params.seed),
        iterations,
        replay: params.replay,
        cpu: params.cpu,
        cpus: where_it_runs(params.cpu, every_cpu),
        elapsed_ms: start.elapsed().as_secs_f64() * 1e3,
    };
    let text = if g.json {
        // The same shape as the whole-boot report, so tools read both alike.
        Globals::to_json(&serde_json::json!({
            "elapsed_ms": run.elapsed_ms,
            "seed": run.seed,
            "iterations": run.iterations,
            "replay": run.replay,
            "cpu_id": run.cpu,
            "drivers": [{
                "driver": run.driver,
                "state": run.state,
                "tests": run.tests,
                "failures": run.failures,
            }],
        }))?
    } else {
        driver_human(&run)
    };
    if run.state == "passed" {
        Ok(text)
    } else {
        Err(CliError::Failed {
            output: text,
            message: format!("{driver} failed its self-test"),
        })
    }
}

/// `on cpu N` for a pinned run, `on cpus 0, 1` for one on every CPU of the mask, empty
/// where the test thread was not pinned.
fn where_it_runs(cpu: Option<usize>, every_cpu: bool) -> String {
    let cpus = cryptoreg::affinity::process_cpus();
    match cpu {
        Some(cpu) => format!("on cpu {cpu}"),
        None if every_cpu && !cpus.is_empty() => {
            let list: Vec<String> = cpus.iter().map(usize::to_string).collect();
            format!("on cpus {}", list.join(", "))
        }
        None => String::new(),
    }
}

fn driver_human(r: &DriverRun) -> String {
    let mut how = if r.replay {
        format!("replay of seed {}", r.seed)
    } else {
        format!("seed {}, {} iterations", r.seed, r.iterations)
    };
    if !r.cpus.is_empty() {
        how.push_str(&format!(", {}", r.cpus));
    }
    let mut out = format!(
        "{}: {} ({} checks, {}; {:.1} ms)\n",
        r.driver, r.state, r.tests, how, r.elapsed_ms
    );
    if r.tests == 0 && r.failures.is_empty() {
        out.push_str("  no checks ran: a driver with no vectors does not count as passed\n");
    }
    for line in &r.failures {
        out.push_str(&format!("  {line}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_parse_in_both_bases() {
        assert_eq!(parse_seed("42"), Ok(42));
        assert_eq!(parse_seed("0x2a"), Ok(42));
        assert_eq!(parse_seed("0XFFFF_FFFF_FFFF_FFFF"), Ok(u64::MAX));
        assert!(parse_seed("0x").is_err());
        assert!(parse_seed("forty-two").is_err());
        assert!(parse_seed("0x1_0000_0000_0000_0000").is_err());
    }
}
