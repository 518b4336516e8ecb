//! `cryptoctl explain NAME`: the registry's `Explanation` — which driver a request for
//! NAME gets now and every other candidate's verdict — because operators need the *why*
//! (demoted on this CPU model, missing a feature, failed its self-test, disabled).

use cryptoreg::control::Request;
use cryptoreg::Explanation;

use crate::cmd::{live, simulated_note, Globals};
use crate::error::CliError;
use crate::table::{Align, Table};

/// Runs `explain`.
///
/// A name nothing answers to is a usage error (exit 2). A name whose candidates are all
/// refused is still explained (exit 0): the explanation is the answer asked for.
pub fn run(g: &Globals, name: &str) -> Result<String, CliError> {
    let (ex, note) = match &g.socket {
        Some(path) => (
            live::call::<Explanation>(path, &Request::new("explain").name(name))?,
            String::new(),
        ),
        None => {
            let reg = g.boot(g.config()?)?;
            (reg.explain(name), simulated_note(&reg))
        }
    };
    if ex.chosen.is_none() && ex.candidates.is_empty() {
        return Err(CliError::Usage(ex.error.unwrap_or_else(|| {
            format!("no algorithm or driver named {name:?}")
        })));
    }
    if g.json {
        return Globals::to_json(&ex);
    }
    let mut out = note;
    match (&ex.chosen, &ex.error) {
        (Some(d), _) => out.push_str(&format!("{} -> {d}\n", ex.name)),
        (None, Some(err)) => out.push_str(&format!("{} -> (nothing): {err}\n", ex.name)),
        (None, None) => out.push_str(&format!("{} -> (nothing)\n", ex.name)),
    }
    let mut t = Table::new(&[
        ("DRIVER", Align::Left),
        ("PRIO", Align::Right),
        ("BASE", Align::Right),
        ("STATE", Align::Left),
        ("VERDICT", Align::Left),
    ]);
    for c in &ex.candidates {
        t.row([
            c.driver.clone(),
            c.priority.to_string(),
            c.base_priority.to_string(),
            c.state.to_string(),
            c.verdict.clone(),
        ]);
    }
    out.push_str(&t.render("  "));
    Ok(out)
}
