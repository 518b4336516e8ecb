//! `cryptoctl explain NAME`: the registry's `Explanation` — which driver a request for
//! NAME gets now and every other candidate's verdict — because operators need the *why*
//! (demoted on this CPU model, missing a feature, failed its self-test, disabled).

use cryptoreg::control::Request;
use cryptoreg::Explanation;

use crate::cmd::{common_name, live, simulated_note, Globals};
use crate::error::CliError;
use crate::table::{Align, Table};

/// Runs `explain`.
///
/// A name nothing answers to is a usage error (exit 2). A name whose candidates are all
/// refused is still explained (exit 0): the explanation is the answer asked for.
///
/// OpenSSL's and IANA's common names (`aes-256-gcm`) are explained as the registry's
/// algorithm they name, with a line saying so; an unknown name's error suggests the
/// nearest known names.
pub fn run(g: &Globals, typed: &str) -> Result<String, CliError> {
    let mapped = common_name::map(typed);
    let name = mapped.name.as_str();
    let (ex, note, local) = match &g.socket {
        Some(path) => (
            live::call::<Explanation>(path, &Request::new("explain").name(name))?,
            String::new(),
            None,
        ),
        None => {
            let reg = g.boot(g.config()?)?;
            (reg.explain(name), simulated_note(&reg), Some(reg))
        }
    };
    if ex.chosen.is_none() && ex.candidates.is_empty() {
        let message = ex
            .error
            .unwrap_or_else(|| format!("no algorithm or driver named {name:?}"));
        // Live: the names come from this build's registry (the same drivers), booted
        // untested; if even that fails, the usage error stands without suggestions.
        let reg = match local {
            Some(reg) => Some(reg),
            None => g.boot_untested().ok(),
        };
        return Err(CliError::Usage(match reg {
            Some(reg) => common_name::with_suggestions(message, typed, &reg),
            None => message,
        }));
    }
    if g.json {
        return Globals::to_json(&ex);
    }
    let mut out = note;
    out.push_str(mapped.note.as_deref().unwrap_or(""));
    match (&ex.chosen, &ex.error) {
        (Some(d), _) => out.push_str(&format!("{} -> {d}\n", ex.name)),
        (None, Some(err)) => out.push_str(&format!("{} -> (nothing): {err}\n", ex.name)),
        (None, None) => out.push_str(&format!("{} -> (nothing)\n", ex.name)),
    }
    // With `[selection] calibrate`, the measured MB/s per calibration size.
    let measured = ex.candidates.iter().any(|c| !c.mbps.is_empty());
    let mut columns = vec![
        ("DRIVER", Align::Left),
        ("PRIO", Align::Right),
        ("BASE", Align::Right),
        ("STATE", Align::Left),
    ];
    if measured {
        columns.push(("MB/S", Align::Right));
    }
    columns.push(("VERDICT", Align::Left));
    let mut t = Table::new(&columns);
    for c in &ex.candidates {
        let mut row = vec![
            c.driver.clone(),
            c.priority.to_string(),
            c.base_priority.to_string(),
            c.state.to_string(),
        ];
        if measured {
            let figures: Vec<String> = c.mbps.iter().map(|m| format!("{m:.0}")).collect();
            row.push(figures.join("/"));
        }
        row.push(c.verdict.clone());
        t.row(row);
    }
    out.push_str(&t.render("  "));
    Ok(out)
}
