//! The subcommands, one module each, and what they share: the global options and the
//! one way of booting a registry from them.

pub mod calibrate;
mod choices;
mod common_name;
pub mod config_edit;
pub mod cpu;
pub mod explain;
pub mod list;
pub mod live;
pub mod rescan;
pub mod selftest;
pub mod speed;
mod speed_plot;

use std::path::PathBuf;

use cryptoreg::{Config, CpuInfo, Registry, SelftestMode};

use crate::error::CliError;

/// The options every subcommand takes.
#[derive(Debug, Clone, Default)]
pub struct Globals {
    /// `--config FILE`.
    pub config_path: Option<PathBuf>,
    /// `--cpu PRESET` (validated by clap against `CpuInfo::preset_names()`).
    pub cpu: Option<String>,
    /// `--json`.
    pub json: bool,
    /// `--socket PATH`: talk to a live process instead of booting a registry.
    pub socket: Option<PathBuf>,
}

impl Globals {
    /// The configuration: `--config`, else `CRYPTOREG_CONFIG`, else the embedded file.
    pub fn config(&self) -> Result<Config, CliError> {
        Ok(Config::load(self.config_path.as_deref())?)
    }

    /// The CPU identity to plan for; `None` is this machine.
    pub fn cpu_info(&self) -> Result<Option<CpuInfo>, CliError> {
        match self.cpu.as_deref() {
            None | Some("native") => Ok(None),
            Some(name) => CpuInfo::preset(name).map(Some).ok_or_else(|| {
                CliError::Usage(format!(
                    "unknown CPU preset {name:?}; known: {}",
                    CpuInfo::preset_names().join(", ")
                ))
            }),
        }
    }

    /// Boots a registry with `config` on the `--cpu` identity, through the facade's
    /// `cryptoreg::boot`, exactly as a service would.
    pub fn boot(&self, config: Config) -> Result<Registry, CliError> {
        Ok(cryptoreg::boot(config, self.cpu_info()?)?)
    }

    /// Boots with the configuration but self-tests off: for commands that show names,
    /// features and priorities, never states.
    pub fn boot_untested(&self) -> Result<Registry, CliError> {
        let mut config = self.config()?;
        config.selftest.mode = SelftestMode::Off;
        self.boot(config)
    }

    /// Pretty JSON with a final newline.
    pub fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, CliError> {
        let mut s = serde_json::to_string_pretty(value)?;
        s.push('\n');
        Ok(s)
    }
}

/// A line that says which CPU the output is about, for human output on a simulated
/// identity (where the answers differ from what this machine would do).
pub fn simulated_note(reg: &Registry) -> String {
    if !reg.is_simulated() {
        return String::new();
    }
    let lacks = reg.cpu().features.minus(reg.host_features());
    let mut s = format!("# simulated CPU: {}", reg.cpu().source);
    if !lacks.is_empty() {
        s.push_str(&format!(
            " (drivers needing {lacks} are planned for, never run on this host)"
        ));
    }
    s.push('\n');
    s
}
