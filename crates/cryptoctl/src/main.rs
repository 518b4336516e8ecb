//! `cryptoctl`: the operator's view of a cryptoreg registry.
//!
//! Every subcommand boots a registry the way a service would (`--config FILE`, else
//! `CRYPTOREG_CONFIG`, else the embedded defaults; `--cpu PRESET` to plan for another CPU)
//! and then shows one aspect of it: what is registered (`list`), why a name resolves the
//! way it does (`explain`), what the self-tests found (`selftest`), what the CPU looks
//! like to the policy (`cpu`), how fast each driver of an algorithm is (`speed`). The
//! configuration editors (`set-priority`, `disable`, `enable`) write overrides into the
//! file given with `--config`; the runtime API for the same thing is the library's
//! `Registry::set_priority`.
//!
//! With `--socket PATH`, `list`, `explain`, `selftest` (the boot report), `stats`,
//! `set-priority`, `clear-priority`, `disable`, `enable` and `reload` run against a live
//! process's control socket (`cryptoreg::control`) instead: the same text and JSON
//! output as offline, and changes go to the live registry, not to a file.
//!
//! Output is for people by default and JSON with `--json`. Exit codes: 0 success, 1 a
//! runtime failure (boot aborted by a failed self-test, a driver that cannot run here),
//! 2 a usage or configuration error (bad flag, unknown preset or driver, bad config file).

mod cmd;
mod error;
mod table;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::PossibleValuesParser;
use clap::{Parser, Subcommand};

use crate::cmd::Globals;
use crate::error::CliError;

#[derive(Parser)]
#[command(
    name = "cryptoctl",
    version,
    about = "Inspect, test and tune a cryptoreg crypto registry",
    long_about = None
)]
struct Cli {
    /// Configuration file (else $CRYPTOREG_CONFIG, else the embedded defaults). The
    /// configuration editors write to this file.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Plan for a named CPU instead of this one (simulated: drivers this host cannot run
    /// are shown as they would be chosen, never executed).
    #[arg(long, global = true, value_name = "PRESET",
          value_parser = PossibleValuesParser::new(cryptoreg::CpuInfo::preset_names()))]
    cpu: Option<String>,

    /// Machine-readable JSON instead of text.
    #[arg(long, global = true)]
    json: bool,

    /// Run the command against a live process's control socket (`list`, `explain`,
    /// `selftest`, `stats`, `set-priority`, `clear-priority`, `disable`, `enable`,
    /// `reload`).
    #[arg(long, global = true, value_name = "PATH")]
    socket: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every registered driver with its priority and self-test state.
    List(cmd::list::Args),
    /// Which driver a name resolves to, and why each candidate was or was not chosen.
    Explain {
        /// Algorithm name (`xts(aes)`) or driver name (`xts-aes-aesni`).
        name: String,
    },
    /// Boot with self-tests and print the report, or test one driver (`--driver`).
    Selftest(cmd::selftest::Args),
    /// The CPU identity, its features and the CPU-model policy rows that match it.
    Cpu,
    /// Encryption throughput of every driver of an algorithm, tcrypt-style.
    Speed(cmd::speed::Args),
    /// Write a priority override for a driver into the --config file.
    SetPriority {
        /// Driver name.
        driver: String,
        /// New priority.
        priority: u32,
    },
    /// Add a driver to `[disable] drivers` in the --config file.
    Disable {
        /// Driver name.
        driver: String,
    },
    /// Remove a driver from `[disable] drivers` in the --config file.
    Enable {
        /// Driver name.
        driver: String,
    },
    /// Per-driver counters: allocations, live handles, requests, bytes, self-test time.
    Stats,
    /// Remove a runtime priority override in the live process (needs --socket).
    ClearPriority {
        /// Driver name.
        driver: String,
    },
    /// Make the live process re-read its configuration file, or the --config file given,
    /// and apply what can change while running (needs --socket).
    Reload,
    /// Re-test the drivers in use now, on every CPU in turn, and print what was tested
    /// where: in the live process with --socket (needs its user or root), else in a fresh
    /// boot with every algorithm resolved once.
    Rescan,
    /// Time the passed drivers of an algorithm (or of every one) here, as `[selection]
    /// calibrate` would, and show what it would choose; changes nothing.
    Calibrate {
        /// Algorithm name (`gcm(aes)`) or a common name (`aes-128-gcm`); all when absent.
        name: Option<String>,
    },
}

fn run(cli: Cli) -> Result<String, CliError> {
    let g = Globals {
        config_path: cli.config,
        cpu: cli.cpu,
        json: cli.json,
        socket: cli.socket,
    };
    if let Some(path) = g.socket.clone() {
        use cryptoreg::control::Request;
        match &cli.command {
            Command::SetPriority { driver, priority } => {
                let req = Request::new("set-priority")
                    .driver(driver)
                    .priority(*priority);
                return cmd::live::change(&g, &path, req);
            }
            Command::Disable { driver } => {
                return cmd::live::change(&g, &path, Request::new("disable").driver(driver))
            }
            Command::Enable { driver } => {
                return cmd::live::change(&g, &path, Request::new("enable").driver(driver))
            }
            Command::ClearPriority { driver } => {
                let req = Request::new("clear-priority").driver(driver);
                return cmd::live::change(&g, &path, req);
            }
            Command::Reload => return cmd::live::reload(&g, &path),
            Command::Cpu | Command::Speed(_) | Command::Calibrate { .. } => {
                return Err(CliError::Usage(
                    "cpu, speed and calibrate describe this process and machine; drop --socket"
                        .to_string(),
                ))
            }
            _ => {}
        }
    }
    match cli.command {
        Command::List(args) => cmd::list::run(&g, &args),
        Command::Explain { name } => cmd::explain::run(&g, &name),
        Command::Selftest(args) => cmd::selftest::run(&g, &args),
        Command::Cpu => cmd::cpu::run(&g),
        Command::Speed(args) => cmd::speed::run(&g, &args),
        Command::SetPriority { driver, priority } => {
            cmd::config_edit::run(&g, cmd::config_edit::Edit::SetPriority(driver, priority))
        }
        Command::Disable { driver } => {
            cmd::config_edit::run(&g, cmd::config_edit::Edit::Disable(driver))
        }
        Command::Enable { driver } => {
            cmd::config_edit::run(&g, cmd::config_edit::Edit::Enable(driver))
        }
        Command::Stats => cmd::live::stats(&g),
        Command::Rescan => cmd::rescan::run(&g),
        Command::Calibrate { name } => cmd::calibrate::run(&g, name.as_deref()),
        Command::ClearPriority { .. } | Command::Reload => Err(CliError::Usage(
            "clear-priority and reload change a live process: give --socket PATH".to_string(),
        )),
    }
}

/// Writes the command's output in one go. A closed pipe (`cryptoctl list | head`) is not
/// an error worth a message.
fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(text) => {
            emit(&text);
            ExitCode::SUCCESS
        }
        Err(CliError::Failed { output, message }) => {
            emit(&output);
            eprintln!("cryptoctl: {message}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("cryptoctl: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
