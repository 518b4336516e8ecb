//! `cryptoctl cpu`: the CPU identity the registry plans for, as the policy sees it —
//! vendor, family/model/stepping after the CPUID extension arithmetic, features (after
//! `cpu.disable` masks), and which `cpu-models.toml` rows match, with the consequence.
//! When `--cpu` names a preset, the host's own features are shown too, since only those
//! drivers are ever executed.

use serde::Serialize;

use cryptoreg::{ModelRow, ZMM_DEMOTED_PRIORITY};

use crate::cmd::Globals;
use crate::error::CliError;
use crate::table::{Align, Table};

#[derive(Serialize)]
struct CpuReport {
    vendor: String,
    family: u32,
    family_hex: String,
    model: u32,
    model_hex: String,
    stepping: u32,
    features: Vec<&'static str>,
    /// `native` or the preset name.
    source: String,
    simulated: bool,
    /// What this machine can execute; only when simulated.
    #[serde(skip_serializing_if = "Option::is_none")]
    host_features: Option<Vec<&'static str>>,
    /// Features masked off by the configuration's `cpu.disable`.
    masked: Vec<String>,
    /// Matching `cpu-models.toml` rows.
    policy: Vec<ModelRow>,
    /// What the matching rows do, in words; null when none matches.
    consequence: Option<String>,
    /// The zmm drivers the policy demotes on this CPU.
    demoted: Vec<String>,
}

/// Runs `cpu`.
pub fn run(g: &Globals) -> Result<String, CliError> {
    let reg = g.boot_untested()?;
    let cpu = reg.cpu();
    let policy = reg.policy_matches().to_vec();
    let demoted: Vec<String> = if policy.is_empty() {
        Vec::new()
    } else {
        reg.list()
            .into_iter()
            .filter(|e| e.uses_zmm && !e.instance)
            .map(|e| e.driver)
            .collect()
    };
    let consequence = (!policy.is_empty()).then(|| {
        format!(
            "zmm drivers demoted to priority {ZMM_DEMOTED_PRIORITY} (registered, tested, \
             reachable by driver name; a priority override restores them)"
        )
    });
    let report = CpuReport {
        vendor: cpu.vendor.clone(),
        family: cpu.family,
        family_hex: format!("{:#x}", cpu.family),
        model: cpu.model,
        model_hex: format!("{:#x}", cpu.model),
        stepping: cpu.stepping,
        features: cpu.features.names(),
        source: cpu.source.clone(),
        simulated: reg.is_simulated(),
        host_features: reg.is_simulated().then(|| reg.host_features().names()),
        masked: reg.config().cpu.disable.clone(),
        policy,
        consequence,
        demoted,
    };
    if g.json {
        return Globals::to_json(&report);
    }
    Ok(human(&report))
}

fn human(r: &CpuReport) -> String {
    let mut t = Table::new(&[("", Align::Left), ("", Align::Left)]);
    let source = if r.simulated {
        format!("preset {} (simulated)", r.source)
    } else {
        "native (CPUID of this machine)".to_string()
    };
    t.row(["vendor".to_string(), r.vendor.clone()]);
    t.row([
        "family".to_string(),
        format!("{} ({})", r.family_hex, r.family),
    ]);
    t.row([
        "model".to_string(),
        format!("{} ({})", r.model_hex, r.model),
    ]);
    t.row(["stepping".to_string(), r.stepping.to_string()]);
    t.row(["source".to_string(), source]);
    t.row(["features".to_string(), r.features.join(" ")]);
    if let Some(host) = &r.host_features {
        t.row(["host".to_string(), host.join(" ")]);
    }
    if !r.masked.is_empty() {
        t.row(["masked".to_string(), r.masked.join(" ")]);
    }
    if r.policy.is_empty() {
        t.row([
            "policy",
            "no cpu-models.toml row matches: base priorities apply",
        ]);
    } else {
        for row in &r.policy {
            let models: Vec<String> = row.models.iter().map(|m| format!("{m:#x}")).collect();
            t.row([
                "policy".to_string(),
                format!(
                    "{} ({} family {:#x}, models {}): {}",
                    row.name,
                    row.vendor,
                    row.family,
                    models.join(" "),
                    r.consequence.as_deref().unwrap_or_default()
                ),
            ]);
        }
        if !r.demoted.is_empty() {
            t.row(["demoted".to_string(), r.demoted.join(" ")]);
        }
    }
    // Both header cells are empty, so the first rendered line is blank: drop it.
    t.render("")
        .lines()
        .skip(1)
        .map(|l| format!("{l}\n"))
        .collect()
}
