//! The CPU-model policy: on models that downclock under zmm load, every `uses_zmm` driver
//! is demoted to priority 1 instead of being removed.

use serde::{Deserialize, Serialize};

use crate::cpu::CpuInfo;
use crate::error::{Error, Result};

/// The shipped table, embedded. The file is a copy, inside this crate so that it packages,
/// of the workspace's `configs/cpu-models.toml`; `cargo xtask ci` checks that the two are
/// identical.
pub const CPU_MODELS: &str = include_str!("../configs/cpu-models.toml");

/// Priority given to zmm drivers on a listed model.
pub const ZMM_DEMOTED_PRIORITY: u32 = 1;

/// One row of `cpu-models.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelRow {
    /// Human name (`Ice Lake server`).
    pub name: String,
    /// CPUID vendor string.
    pub vendor: String,
    /// Display family.
    pub family: u32,
    /// Display models.
    pub models: Vec<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    zmm_downclock: Vec<ModelRow>,
}

/// The parsed table.
#[derive(Debug, Clone)]
pub struct CpuPolicy {
    rows: Vec<ModelRow>,
}

impl CpuPolicy {
    /// Parses a table.
    pub fn parse(text: &str) -> Result<CpuPolicy> {
        let t: Table =
            toml::from_str(text).map_err(|e| Error::Config(format!("cpu-models.toml: {e}")))?;
        Ok(CpuPolicy {
            rows: t.zmm_downclock,
        })
    }

    /// The embedded table.
    pub fn embedded() -> CpuPolicy {
        CpuPolicy::parse(CPU_MODELS).expect("embedded cpu-models.toml parses (checked by a test)")
    }

    /// All rows.
    pub fn rows(&self) -> &[ModelRow] {
        &self.rows
    }

    /// The rows that match `cpu`.
    pub fn matches(&self, cpu: &CpuInfo) -> Vec<ModelRow> {
        self.rows
            .iter()
            .filter(|r| {
                r.vendor == cpu.vendor && r.family == cpu.family && r.models.contains(&cpu.model)
            })
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matched(preset: &str) -> Vec<String> {
        let cpu = CpuInfo::preset(preset).unwrap();
        CpuPolicy::embedded()
            .matches(&cpu)
            .into_iter()
            .map(|r| r.name)
            .collect()
    }

    #[test]
    fn downclocking_models_match() {
        assert_eq!(matched("skylake-x"), vec!["Skylake-X"]);
        assert_eq!(matched("icelake-server"), vec!["Ice Lake server"]);
        assert_eq!(matched("icelake-client"), vec!["Ice Lake client"]);
        assert_eq!(matched("tigerlake"), vec!["Tiger Lake"]);
    }

    #[test]
    fn others_do_not() {
        for p in [
            "sapphire-rapids",
            "emerald-rapids",
            "granite-rapids",
            "alder-lake",
            "arrow-lake",
            "zen3",
            "zen4",
            "zen5",
            "haswell",
            "westmere",
            "generic-x86_64",
        ] {
            assert!(matched(p).is_empty(), "{p}");
        }
    }
}
