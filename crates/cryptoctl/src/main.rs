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

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every registered driver with its priority and self-test state.
    List {
        /// The /proc/crypto-style listing instead of a table.
        #[arg(long, conflicts_with = "json")]
        proc: bool,
    },
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
}

fn run(cli: Cli) -> Result<String, CliError> {
    let g = Globals {
        config_path: cli.config,
        cpu: cli.cpu,
        json: cli.json,
    };
    match cli.command {
        Command::List { proc } => cmd::list::run(&g, proc),
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
