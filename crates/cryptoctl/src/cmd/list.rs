//! `cryptoctl list`: every entry of the registry after boot, as a table, as JSON (the
//! registry's own serializable `ListEntry`s, so the fields never drift from the library)
//! or in the `/proc/crypto` format operators know from the kernel.

use cryptoreg::control::Request;
use cryptoreg::ListEntry;

use crate::cmd::{live, simulated_note, Globals};
use crate::error::CliError;
use crate::table::{Align, Table};

/// Runs `list`.
pub fn run(g: &Globals, proc: bool) -> Result<String, CliError> {
    let (entries, note) = match &g.socket {
        Some(path) => (
            live::call::<Vec<ListEntry>>(path, &Request::new("list"))?,
            String::new(),
        ),
        None => {
            let reg = g.boot(g.config()?)?;
            (reg.list(), simulated_note(&reg))
        }
    };
    if proc {
        return Ok(ListEntry::proc_crypto(&entries));
    }
    if g.json {
        return Globals::to_json(&entries);
    }
    let mut t = Table::new(&[
        ("NAME", Align::Left),
        ("DRIVER", Align::Left),
        ("TYPE", Align::Left),
        ("PRIO", Align::Right),
        ("BASE", Align::Right),
        ("STATE", Align::Left),
        ("ZMM", Align::Left),
        ("REQUIRES", Align::Left),
        ("REFCNT", Align::Right),
        ("NOTE", Align::Left),
    ]);
    for e in &entries {
        let note = if !e.missing.is_empty() {
            format!("missing {}", e.missing.join(" "))
        } else if !e.failures.is_empty() {
            format!("{} failure(s); see `cryptoctl selftest`", e.failures.len())
        } else if e.instance {
            "template instance".to_string()
        } else {
            String::new()
        };
        t.row([
            e.name.clone(),
            e.driver.clone(),
            e.alg_type.to_string(),
            e.priority.to_string(),
            e.base_priority.to_string(),
            e.state.to_string(),
            if e.uses_zmm { "yes" } else { "no" }.to_string(),
            if e.requires.is_empty() {
                "-".to_string()
            } else {
                e.requires.join(" ")
            },
            e.refcnt.to_string(),
            note,
        ]);
    }
    Ok(format!("{note}{}", t.render("")))
}
