//! `--socket PATH`: the same commands against a live process's control socket
//! (`cryptoreg::control`). The socket answers with the registry's own data types
//! (`ListEntry`, `Explanation`, ...), which the commands render exactly as offline.
//! Changes (`set-priority`, `clear-priority`, `disable`, `enable`, `reload`) go to the
//! live registry instead of the `--config` file.

use std::path::Path;

use cryptoreg::control::{Client, Request};
use cryptoreg::{Change, DriverStatsReport};
use serde::de::DeserializeOwned;

use crate::cmd::Globals;
use crate::error::CliError;
use crate::table::{Align, Table};

/// Sends one request and decodes its result. A refusal by the server (unknown driver,
/// permission denied) and a socket that cannot be reached are runtime failures (exit 1).
pub fn call<T: DeserializeOwned>(path: &Path, req: &Request) -> Result<T, CliError> {
    let mut client = Client::connect(path).map_err(|e| CliError::Runtime(strip(e)))?;
    let value = client.call(req).map_err(|e| CliError::Runtime(strip(e)))?;
    serde_json::from_value(value).map_err(|e| {
        CliError::Runtime(format!(
            "{}: unexpected answer to {}: {e}",
            path.display(),
            req.op
        ))
    })
}

/// The server's message without the registry's "configuration:" framing.
fn strip(e: cryptoreg::Error) -> String {
    match e {
        cryptoreg::Error::Config(m) => m,
        other => other.to_string(),
    }
}

/// `set-priority`, `clear-priority`, `disable`, `enable` on the live registry.
pub fn change(g: &Globals, path: &Path, req: Request) -> Result<String, CliError> {
    let c: Change = call(path, &req)?;
    if g.json {
        return Globals::to_json(&c);
    }
    Ok(format!("{c}\n"))
}

/// `reload [--config FILE]`: the live process re-reads its configuration file (or the
/// one given) and applies what can change while running.
pub fn reload(g: &Globals, path: &Path) -> Result<String, CliError> {
    let mut req = Request::new("reload");
    if let Some(p) = &g.config_path {
        let abs = std::fs::canonicalize(p)
            .map_err(|e| CliError::Config(format!("{}: {e}", p.display())))?;
        req = req.path(abs);
    }
    let changes: Vec<Change> = call(path, &req)?;
    if g.json {
        return Globals::to_json(&changes);
    }
    if changes.is_empty() {
        return Ok("reload: nothing changed\n".to_string());
    }
    Ok(changes.iter().map(|c| format!("{c}\n")).collect())
}

/// Renders `stats` (the same for a live process and an offline boot).
pub fn render_stats(g: &Globals, stats: &[DriverStatsReport]) -> Result<String, CliError> {
    if g.json {
        return Globals::to_json(stats);
    }
    let mut t = Table::new(&[
        ("DRIVER", Align::Left),
        ("NAME", Align::Left),
        ("STATE", Align::Left),
        ("ALLOCS", Align::Right),
        ("REFCNT", Align::Right),
        ("REQUESTS", Align::Right),
        ("BYTES", Align::Right),
        ("SELFTEST_MS", Align::Right),
        ("RESCANS", Align::Right),
    ]);
    for s in stats {
        t.row([
            s.driver.clone(),
            s.name.clone(),
            s.state.clone(),
            s.allocations.to_string(),
            s.refcnt.to_string(),
            s.requests.to_string(),
            s.bytes.to_string(),
            format!("{:.1}", s.selftest_ms),
            match s.rescan_failures {
                0 => s.rescans.to_string(),
                f => format!("{} ({f} failed)", s.rescans),
            },
        ]);
    }
    Ok(t.render(""))
}

/// `stats`: per-driver counters of the live process (`--socket`), or of a fresh boot.
pub fn stats(g: &Globals) -> Result<String, CliError> {
    let stats: Vec<DriverStatsReport> = match &g.socket {
        Some(p) => call(p, &Request::new("stats"))?,
        None => g.boot(g.config()?)?.stats(),
    };
    render_stats(g, &stats)
}
