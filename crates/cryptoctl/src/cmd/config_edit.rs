//! `cryptoctl set-priority | disable | enable`: persistent overrides, written into the
//! configuration file named by `--config`.
//!
//! The file is edited with `toml_edit`, so the operator's comments, ordering and layout
//! survive; missing sections are created. Before anything is written the driver name is
//! checked against a registry booted from the file (self-tests off: only names matter),
//! and the edited text is parsed and booted again, so a file this tool writes is always
//! one the library accepts. Editors hold an exclusive lock on `FILE.lock` from the read
//! to the write and replace the file atomically (see [`locked_file`]), so concurrent
//! edits all land and a reader never sees a partial or empty file; permissions and
//! symlinks are kept.
//!
//! `CRYPTOREG_CONFIG` is deliberately not a target: a tool that edits files should be
//! told which one.

mod locked_file;

use std::path::Path;

use serde::Serialize;
use toml_edit::{value, Array, Decor, DocumentMut, Item, Key, Table, Value};

use cryptoreg::{Config, Registry, SelftestMode};

use crate::cmd::Globals;
use crate::error::CliError;

/// One edit of the configuration file.
#[derive(Debug, Clone)]
pub enum Edit {
    /// `[priority] "DRIVER" = P`.
    SetPriority(String, u32),
    /// Add to `[disable] drivers`.
    Disable(String),
    /// Remove from `[disable] drivers`.
    Enable(String),
}

impl Edit {
    fn driver(&self) -> &str {
        match self {
            Edit::SetPriority(d, _) | Edit::Disable(d) | Edit::Enable(d) => d,
        }
    }

    fn command(&self) -> &'static str {
        match self {
            Edit::SetPriority(..) => "set-priority",
            Edit::Disable(_) => "disable",
            Edit::Enable(_) => "enable",
        }
    }
}

/// What the registry makes of one driver under a configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
struct DriverView {
    priority: u32,
    disabled: bool,
}

#[derive(Serialize)]
struct Change {
    file: String,
    driver: String,
    action: &'static str,
    /// Whether the file changed.
    changed: bool,
    /// The file was created.
    created: bool,
    before: DriverView,
    after: DriverView,
}

/// Runs one configuration edit.
pub fn run(g: &Globals, edit: Edit) -> Result<String, CliError> {
    let path = g.config_path.as_deref().ok_or_else(|| {
        CliError::Usage(format!(
            "{} writes to a configuration file: give it with --config FILE",
            edit.command()
        ))
    })?;
    let origin = path.display().to_string();
    let io_err = |what: &str, e: std::io::Error| CliError::Runtime(format!("{what} {origin}: {e}"));
    let target = locked_file::resolve(path).map_err(|e| io_err("cannot resolve", e))?;
    // Held until the end of this function: the read below and the write are one step.
    let _lock = locked_file::lock(&target).map_err(|e| io_err("cannot lock", e))?;
    let exists = target.exists();
    let text = if exists {
        Config::read_text(&target)?
    } else {
        String::new()
    };
    let before_cfg = Config::parse(&text, &origin)?;
    let driver = edit.driver().to_string();
    let before = view(g, before_cfg, &driver)?;

    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| CliError::Config(format!("{origin}: {e}")))?;
    let changed = apply(&mut doc, &edit)?;
    let new_text = doc.to_string();
    let after_cfg = Config::parse(&new_text, &origin).map_err(|e| {
        CliError::Runtime(format!(
            "internal error: the edited file would not parse: {e}"
        ))
    })?;
    let after = view(g, after_cfg, &driver)?;
    if changed {
        locked_file::replace(&target, &new_text).map_err(|e| io_err("cannot write", e))?;
    }
    let change = Change {
        file: origin,
        driver,
        action: edit.command(),
        changed,
        created: changed && !exists,
        before,
        after,
    };
    if g.json {
        return Globals::to_json(&change);
    }
    Ok(human(&change, &edit, path))
}

/// Boots the configuration with self-tests off and reports the driver's priority and
/// whether it is disabled; an unknown driver is a usage error.
fn view(g: &Globals, mut config: Config, driver: &str) -> Result<DriverView, CliError> {
    config.selftest.mode = SelftestMode::Off;
    let reg = g.boot(config)?;
    find(&reg, driver).ok_or_else(|| unknown_driver(&reg, driver))
}

fn find(reg: &Registry, driver: &str) -> Option<DriverView> {
    let look = |reg: &Registry| {
        reg.list()
            .into_iter()
            .find(|e| e.driver == driver)
            .map(|e| DriverView {
                priority: e.priority,
                disabled: e.state == "disabled",
            })
    };
    look(reg).or_else(|| {
        // A template instance (`xts(ecb-aes-aesni)`) exists once something asks for it.
        let _ = reg.resolve(driver);
        look(reg)
    })
}

fn unknown_driver(reg: &Registry, driver: &str) -> CliError {
    let mut known: Vec<String> = reg
        .list()
        .into_iter()
        .filter(|e| !e.instance)
        .map(|e| e.driver)
        .collect();
    known.sort();
    CliError::Usage(format!(
        "unknown driver {driver:?}; registered drivers: {}",
        known.join(", ")
    ))
}

/// Applies the edit to the document; `false` when the file already says so.
fn apply(doc: &mut DocumentMut, edit: &Edit) -> Result<bool, CliError> {
    match edit {
        Edit::SetPriority(driver, p) => {
            let table = section(doc, "priority")?;
            let key = quoted_key(driver);
            let mut new = Value::from(i64::from(*p));
            match table.get_mut(driver) {
                Some(Item::Value(old)) => {
                    if old.as_integer() == Some(i64::from(*p)) {
                        return Ok(false);
                    }
                    // Keep the spacing and any trailing comment of the old value.
                    *new.decor_mut() = old.decor().clone();
                    *old = new;
                }
                _ => {
                    table.insert_formatted(&key, Item::Value(new));
                }
            }
            Ok(true)
        }
        Edit::Disable(driver) => {
            let list = disable_list(doc)?;
            if list.iter().any(|v| v.as_str() == Some(driver)) {
                return Ok(false);
            }
            list.push(driver.as_str());
            Ok(true)
        }
        Edit::Enable(driver) => {
            let list = disable_list(doc)?;
            let before = list.len();
            list.retain(|v| v.as_str() != Some(driver));
            Ok(list.len() != before)
        }
    }
}

/// The top-level table `name`, created (as a `[name]` section) if absent.
fn section<'a>(doc: &'a mut DocumentMut, name: &str) -> Result<&'a mut Table, CliError> {
    let item = doc.entry(name).or_insert_with(|| Item::Table(Table::new()));
    if let Item::Value(Value::InlineTable(t)) = item {
        // `priority = { ... }`: promote to a section so entries can be added one a line.
        *item = Item::Table(std::mem::take(t).into_table());
    }
    item.as_table_mut()
        .ok_or_else(|| CliError::Config(format!("`{name}` is not a table")))
}

/// `[disable] drivers`, created as an empty array if absent.
fn disable_list(doc: &mut DocumentMut) -> Result<&mut Array, CliError> {
    section(doc, "disable")?
        .entry("drivers")
        .or_insert_with(|| value(Array::new()))
        .as_array_mut()
        .ok_or_else(|| CliError::Config("`disable.drivers` is not an array".to_string()))
}

/// `"driver"` as a quoted key, as the shipped configuration writes driver names.
fn quoted_key(driver: &str) -> Key {
    let repr = Value::from(driver).to_string();
    Key::parse(repr.trim())
        .ok()
        .and_then(|mut keys| keys.pop())
        .unwrap_or_else(|| Key::new(driver))
        .with_leaf_decor(Decor::new("", " "))
}

fn human(c: &Change, edit: &Edit, path: &Path) -> String {
    let file = path.display();
    let d = &c.driver;
    if !c.changed {
        return match edit {
            Edit::SetPriority(_, p) => {
                format!("{file}: [priority] {d:?} is already {p}; nothing changed\n")
            }
            Edit::Disable(_) => format!("{file}: {d} is already disabled; nothing changed\n"),
            Edit::Enable(_) if c.after.disabled => {
                format!("{file}: {d} is not in [disable] drivers, yet stays disabled\n")
            }
            Edit::Enable(_) => format!("{file}: {d} is not disabled; nothing changed\n"),
        };
    }
    let created = if c.created { " (created)" } else { "" };
    match edit {
        Edit::SetPriority(_, p) => format!(
            "{file}{created}: [priority] {d:?} = {p}\n{d}: effective priority {} -> {}\n",
            c.before.priority, c.after.priority
        ),
        Edit::Disable(_) => format!(
            "{file}{created}: added {d:?} to [disable] drivers\n{d}: disabled (not resolved, even by driver name)\n"
        ),
        Edit::Enable(_) => format!(
            "{file}: removed {d:?} from [disable] drivers\n{d}: {}\n",
            if c.after.disabled { "still disabled" } else { "enabled" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(text: &str, e: Edit) -> (bool, String) {
        let mut doc: DocumentMut = text.parse().unwrap();
        let changed = apply(&mut doc, &e).unwrap();
        (changed, doc.to_string())
    }

    #[test]
    fn priority_is_added_keeping_comments() {
        let text = "# top\n[selftest]\nmode = \"kat\" # fast\n\n[priority]\n# \"x\" = 1\n";
        let (changed, out) = edit(text, Edit::SetPriority("xts-aes-aesni".into(), 50));
        assert!(changed);
        assert!(
            out.starts_with("# top\n[selftest]\nmode = \"kat\" # fast\n"),
            "{out}"
        );
        assert!(out.contains("# \"x\" = 1\n"), "{out}");
        assert!(out.contains("\n\"xts-aes-aesni\" = 50\n"), "{out}");
        let c = Config::parse(&out, "t").unwrap();
        assert_eq!(c.priority["xts-aes-aesni"], 50);
    }

    #[test]
    fn priority_is_replaced_in_place() {
        let text = "[priority]\n\"a\" = 5 # keep\n\"b\" = 6\n";
        let (changed, out) = edit(text, Edit::SetPriority("a".into(), 7));
        assert!(changed);
        assert_eq!(out, "[priority]\n\"a\" = 7 # keep\n\"b\" = 6\n");
        let (changed, _) = edit(&out, Edit::SetPriority("a".into(), 7));
        assert!(!changed);
    }

    #[test]
    fn sections_are_created() {
        let (_, out) = edit("", Edit::SetPriority("xts(ecb-aes-aesni)".into(), 9));
        assert_eq!(
            Config::parse(&out, "t").unwrap().priority["xts(ecb-aes-aesni)"],
            9
        );
        let (_, out) = edit("", Edit::Disable("aes-aesni".into()));
        assert_eq!(
            Config::parse(&out, "t").unwrap().disable.drivers,
            vec!["aes-aesni"]
        );
    }

    #[test]
    fn inline_priority_table_is_promoted() {
        let (_, out) = edit(
            "priority = { \"a\" = 1 }\n",
            Edit::SetPriority("b".into(), 2),
        );
        let c = Config::parse(&out, "t").unwrap();
        assert_eq!((c.priority["a"], c.priority["b"]), (1, 2));
    }

    #[test]
    fn disable_and_enable_round_trip() {
        let text = "[disable]\ndrivers = [\"a\"] # ops ticket 12\n";
        let (changed, out) = edit(text, Edit::Disable("b".into()));
        assert!(changed);
        assert_eq!(out, "[disable]\ndrivers = [\"a\", \"b\"] # ops ticket 12\n");
        assert!(!edit(&out, Edit::Disable("b".into())).0);
        let (changed, out) = edit(&out, Edit::Enable("a".into()));
        assert!(changed);
        assert_eq!(Config::parse(&out, "t").unwrap().disable.drivers, vec!["b"]);
        assert!(out.ends_with("# ops ticket 12\n"), "{out}");
        assert!(!edit(&out, Edit::Enable("zzz".into())).0);
    }

    #[test]
    fn wrong_shapes_are_config_errors() {
        let mut doc: DocumentMut = "priority = 3\n".parse().unwrap();
        assert!(matches!(
            apply(&mut doc, &Edit::SetPriority("a".into(), 1)),
            Err(CliError::Config(_))
        ));
        let mut doc: DocumentMut = "[disable]\ndrivers = 3\n".parse().unwrap();
        assert!(matches!(
            apply(&mut doc, &Edit::Disable("a".into())),
            Err(CliError::Config(_))
        ));
    }
}
