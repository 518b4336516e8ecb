//! `cryptoctl list`: every entry of the registry, with the driver each algorithm name
//! resolves to marked, as a table, as JSON (the registry's own serializable `ListEntry`s
//! plus `chosen`, so the fields never drift from the library) or in the `/proc/crypto`
//! format operators know from the kernel.
//!
//! Every architecture's driver records are compiled into every build, so that a plan for
//! another CPU (`--cpu neoverse-n1` on x86-64) shows that machine's ladder. A listing
//! shows the records of the planned CPU's architecture and the portable ones; the other
//! architecture's only with `--all-arch`.
//!
//! The default table fits 100 columns: one heading line per algorithm name, its drivers
//! beneath, best first, with the chosen one starred; a longer note is cut with `...`.
//! `--wide` shows every field on one line per driver.

use std::collections::BTreeMap;

use cryptoreg::control::Request;
use cryptoreg::{Arch, ListEntry};

use crate::cmd::choices::{self, Choice};
use crate::cmd::{live, simulated_note, Globals};
use crate::error::CliError;
use crate::table::{Align, Table};

/// The width the default table keeps to.
pub const COLUMNS: usize = 100;

/// `list` options.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    /// Only algorithm or driver names containing this text (any case); an OpenSSL or
    /// IANA name (`aes-256-gcm`) lists the algorithm it names.
    #[arg(value_name = "FILTER")]
    pub filter: Option<String>,
    /// The /proc/crypto-style listing instead of a table.
    #[arg(long, conflicts_with = "json")]
    pub proc: bool,
    /// Also the records of other architectures than the planned CPU's.
    #[arg(long)]
    pub all_arch: bool,
    /// Every field, one line per driver (wider than 100 columns).
    #[arg(long, conflicts_with_all = ["json", "proc"])]
    pub wide: bool,
}

/// Runs `list`.
pub fn run(g: &Globals, args: &Args) -> Result<String, CliError> {
    let (entries, choices, arch, note) = match &g.socket {
        Some(path) => {
            let choices = choices::live(path)?;
            let entries = live::call::<Vec<ListEntry>>(path, &Request::new("list"))?;
            // A control socket is a local file: the live process runs on this machine.
            (entries, choices, Arch::HOST, String::new())
        }
        None => {
            let reg = g.boot(g.config()?)?;
            // Choosing first builds the instances a request would get, so they are
            // listed too.
            let choices = choices::offline(&reg);
            (
                reg.list(),
                choices,
                Some(reg.cpu().arch),
                simulated_note(&reg),
            )
        }
    };
    let chosen: BTreeMap<&str, &str> = choices
        .iter()
        .filter_map(|(n, c)| Some((n.as_str(), c.driver.as_deref()?)))
        .collect();
    let shown: Vec<&ListEntry> = entries
        .iter()
        .filter(|e| args.all_arch || on_arch(e, arch))
        .filter(|e| matches(e, args.filter.as_deref()))
        .collect();
    let is_chosen = |e: &ListEntry| chosen.get(e.name.as_str()) == Some(&e.driver.as_str());
    if args.proc {
        let owned: Vec<ListEntry> = shown.into_iter().cloned().collect();
        return Ok(ListEntry::proc_crypto(&owned));
    }
    if g.json {
        let mut out = Vec::with_capacity(shown.len());
        for e in shown {
            let mut v = serde_json::to_value(e)?;
            v["chosen"] = serde_json::Value::Bool(is_chosen(e));
            out.push(v);
        }
        return Globals::to_json(&out);
    }
    let table = if args.wide {
        wide(&shown, &is_chosen)
    } else {
        grouped(&shown, &is_chosen, &choices)
    };
    Ok(format!("{}{table}", wrap_note(&note)))
}

/// The simulated-CPU note wrapped at [`COLUMNS`] on spaces, continuation lines indented
/// under the `# `, so the whole listing keeps to the width.
fn wrap_note(note: &str) -> String {
    let mut out = String::new();
    for line in note.lines() {
        let mut current = String::new();
        for word in line.split(' ') {
            if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > COLUMNS {
                out.push_str(&current);
                out.push('\n');
                current = String::from("#  ");
            }
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(word);
        }
        out.push_str(&current);
        out.push('\n');
    }
    out
}

/// Whether a record belongs to the planned architecture (portable records belong to all).
fn on_arch(e: &ListEntry, arch: Option<Arch>) -> bool {
    match (&e.arch, arch) {
        (None, _) => true,
        (Some(a), Some(planned)) => a == planned.name(),
        (Some(_), None) => false,
    }
}

/// Whether an entry passes the name filter: a case-insensitive substring of its algorithm
/// or driver name, or the algorithm a common name stands for.
fn matches(e: &ListEntry, filter: Option<&str>) -> bool {
    let Some(f) = filter else { return true };
    let f_low = f.to_ascii_lowercase();
    if e.name.to_ascii_lowercase().contains(&f_low)
        || e.driver.to_ascii_lowercase().contains(&f_low)
    {
        return true;
    }
    cryptoreg::lookup_common(f).is_some_and(|(alg, _)| alg == e.name)
}

/// What the NOTE column says about an entry.
fn note(e: &ListEntry) -> String {
    let mut parts = Vec::new();
    if e.instance {
        parts.push("instance".to_string());
    }
    // A demotion matters for a driver that could run; `--wide` shows both priorities.
    if e.priority != e.base_priority && e.missing.is_empty() {
        parts.push(format!("base {}", e.base_priority));
    }
    if !e.failures.is_empty() {
        parts.push(format!(
            "{} failure(s): cryptoctl selftest",
            e.failures.len()
        ));
    }
    if !e.missing.is_empty() {
        parts.push(missing_note(&e.missing));
    }
    parts.join("; ")
}

/// The longest "missing ..." note that fits beside the longest driver names at 100
/// columns.
const MISSING_NOTE_WIDTH: usize = 19;

/// "missing F1 F2 ...", with as many feature names as fit in [`MISSING_NOTE_WIDTH`] (at
/// least one) and a count of the rest; `explain` and `--wide` name them all.
fn missing_note(missing: &[&str]) -> String {
    let mut note = String::from("missing");
    for (i, f) in missing.iter().enumerate() {
        let left = missing.len() - i - 1;
        let tail = if left > 0 {
            format!(" +{left}")
        } else {
            String::new()
        };
        if i > 0 && note.len() + 1 + f.len() + tail.len() > MISSING_NOTE_WIDTH {
            note.push_str(&format!(" +{}", missing.len() - i));
            break;
        }
        note.push(' ');
        note.push_str(f);
    }
    note
}

/// One heading per algorithm name, its drivers beneath with the chosen one starred.
fn grouped(
    entries: &[&ListEntry],
    is_chosen: &dyn Fn(&ListEntry) -> bool,
    choices: &BTreeMap<String, Choice>,
) -> String {
    let mut t = Table::new(&[
        ("", Align::Left),
        ("DRIVER", Align::Left),
        ("PRIO", Align::Right),
        ("STATE", Align::Left),
        ("REFS", Align::Right),
        ("NOTE", Align::Left),
    ]);
    let mut headings: Vec<(usize, String)> = Vec::new();
    let mut last: Option<&str> = None;
    for (row, e) in entries.iter().enumerate() {
        if last != Some(e.name.as_str()) {
            let nothing = choices
                .get(&e.name)
                .filter(|c| c.driver.is_none())
                .map_or(String::new(), |_| ": nothing usable".to_string());
            headings.push((row, format!("{} ({}){nothing}", e.name, e.alg_type)));
            last = Some(e.name.as_str());
        }
        t.row([
            if is_chosen(e) { "*" } else { "" }.to_string(),
            e.driver.clone(),
            e.priority.to_string(),
            e.state.to_string(),
            e.refcnt.to_string(),
            note(e),
        ]);
    }
    let rendered = t.render("");
    let mut lines = rendered.lines();
    let mut out = String::new();
    if let Some(header) = lines.next() {
        out.push_str(&fit(header));
    }
    let mut next_heading = headings.iter().peekable();
    for (row, line) in lines.enumerate() {
        if let Some((_, h)) = next_heading.next_if(|(r, _)| *r == row) {
            out.push_str(&fit(h));
        }
        out.push_str(&fit(line));
    }
    if entries.is_empty() {
        out.push_str("(no entry matches)\n");
    }
    out
}

/// A line cut to [`COLUMNS`], ending in `...` where it was cut, with its newline.
fn fit(line: &str) -> String {
    if line.chars().count() <= COLUMNS {
        return format!("{line}\n");
    }
    let kept: String = line.chars().take(COLUMNS - 3).collect();
    format!("{}...\n", kept.trim_end())
}

/// Every field, one line per driver.
fn wide(entries: &[&ListEntry], is_chosen: &dyn Fn(&ListEntry) -> bool) -> String {
    let mut t = Table::new(&[
        ("", Align::Left),
        ("NAME", Align::Left),
        ("DRIVER", Align::Left),
        ("TYPE", Align::Left),
        ("PRIO", Align::Right),
        ("BASE", Align::Right),
        ("STATE", Align::Left),
        ("ZMM", Align::Left),
        ("ARCH", Align::Left),
        ("REQUIRES", Align::Left),
        ("REFCNT", Align::Right),
        ("NOTE", Align::Left),
    ]);
    for e in entries {
        t.row([
            if is_chosen(e) { "*" } else { "" }.to_string(),
            e.name.clone(),
            e.driver.clone(),
            e.alg_type.to_string(),
            e.priority.to_string(),
            e.base_priority.to_string(),
            e.state.to_string(),
            if e.uses_zmm { "yes" } else { "no" }.to_string(),
            e.arch.clone().unwrap_or_else(|| "any".to_string()),
            if e.requires.is_empty() {
                "-".to_string()
            } else {
                e.requires.join(" ")
            },
            e.refcnt.to_string(),
            note(e),
        ]);
    }
    t.render("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_to_the_width() {
        let long = "x".repeat(COLUMNS + 20);
        let cut = fit(&long);
        assert_eq!(cut.trim_end_matches('\n').chars().count(), COLUMNS);
        assert!(cut.ends_with("...\n"));
        assert_eq!(fit("short"), "short\n");
    }

    #[test]
    fn the_simulated_note_wraps_at_the_width() {
        let long = format!(
            "# simulated CPU: westmere (drivers needing {} are planned for)\n",
            "sse4.2 ".repeat(20).trim_end()
        );
        let wrapped = wrap_note(&long);
        assert!(wrapped.lines().count() > 1, "{wrapped}");
        for line in wrapped.lines() {
            assert!(line.chars().count() <= COLUMNS, "{line:?}");
            assert!(line.starts_with('#'), "{line:?}");
        }
        let words = |s: &str| {
            s.split_whitespace()
                .filter(|w| *w != "#")
                .map(String::from)
                .collect::<Vec<_>>()
        };
        assert_eq!(words(&wrapped), words(&long));
        assert_eq!(wrap_note("# short\n"), "# short\n");
        assert_eq!(wrap_note(""), "");
    }

    #[test]
    fn missing_features_are_counted_past_the_width() {
        assert_eq!(missing_note(&["neon"]), "missing neon");
        assert_eq!(missing_note(&["neon", "pmull"]), "missing neon pmull");
        assert_eq!(missing_note(&["vaes", "vpclmulqdq"]), "missing vaes +1");
        assert_eq!(
            missing_note(&["vpclmulqdq", "avx512f"]),
            "missing vpclmulqdq +1"
        );
        assert_eq!(
            missing_note(&["avx", "avx2", "avx512f", "avx512vl"]),
            "missing avx avx2 +2"
        );
    }
}
