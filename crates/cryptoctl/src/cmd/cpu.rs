//! `cryptoctl cpu`: the CPU identity the registry plans for, as the policy sees it —
//! architecture, vendor, brand string, family/model/stepping after the CPUID extension arithmetic (on
//! arm64 instead: the `MIDR_EL1` implementer and part number, "unknown" where the kernel
//! does not expose them, as under QEMU's user-mode emulator), features (after
//! `cpu.disable` masks), and which `cpu-models.toml` rows match, with the consequence.
//! When `--cpu` names a preset, the host's own features are shown too, since only those
//! drivers are ever executed.

use serde::Serialize;

use cryptoreg::{Arch, ModelRow, ZMM_DEMOTED_PRIORITY};

use crate::cmd::Globals;
use crate::error::CliError;
use crate::table::{Align, Table};

#[derive(Serialize)]
struct CpuReport {
    /// `x86_64` or `aarch64`.
    arch: &'static str,
    vendor: String,
    /// The CPU's brand string (x86-64 CPUID); null for a preset and on arm64.
    brand: Option<String>,
    family: u32,
    family_hex: String,
    model: u32,
    model_hex: String,
    stepping: u32,
    /// arm64: `MIDR_EL1` implementer code (`0x41`), null when unknown; absent on x86-64.
    #[serde(skip_serializing_if = "Option::is_none")]
    implementer: Option<Option<String>>,
    /// arm64: `MIDR_EL1` part number (`0xd0c`), null when unknown; absent on x86-64.
    #[serde(skip_serializing_if = "Option::is_none")]
    part: Option<Option<String>>,
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
    let is_arm = cpu.arch == Arch::Aarch64;
    let report = CpuReport {
        arch: cpu.arch.name(),
        vendor: cpu.vendor.clone(),
        brand: cpu.brand.clone(),
        family: cpu.family,
        family_hex: format!("{:#x}", cpu.family),
        model: cpu.model,
        model_hex: format!("{:#x}", cpu.model),
        stepping: cpu.stepping,
        implementer: is_arm.then(|| cpu.arm.map(|id| format!("{:#x}", id.implementer))),
        part: is_arm.then(|| cpu.arm.map(|id| format!("{:#05x}", id.part))),
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
        match r.arch {
            "aarch64" => "native (MIDR and HWCAP of this machine)".to_string(),
            _ => "native (CPUID of this machine)".to_string(),
        }
    };
    t.row(["arch".to_string(), r.arch.to_string()]);
    t.row(["vendor".to_string(), r.vendor.clone()]);
    if let Some(brand) = &r.brand {
        t.row(["brand".to_string(), brand.clone()]);
    }
    match (&r.implementer, &r.part) {
        (Some(implementer), Some(part)) => {
            let or_unknown = |v: &Option<String>| v.clone().unwrap_or("unknown".to_string());
            t.row(["implementer".to_string(), or_unknown(implementer)]);
            t.row(["part".to_string(), or_unknown(part)]);
        }
        _ => {
            t.row([
                "family".to_string(),
                format!("{} ({})", r.family_hex, r.family),
            ]);
            t.row([
                "model".to_string(),
                format!("{} ({})", r.model_hex, r.model),
            ]);
            t.row(["stepping".to_string(), r.stepping.to_string()]);
        }
    }
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
