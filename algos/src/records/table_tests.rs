//! The driver table of the crate docs (`lib.rs`, "Drivers") against the registered
//! records: one row per record of every architecture (the records register everywhere),
//! with its priority and its required CPU features, and a file that exists. A driver
//! added, renamed, re-prioritised or moved without its row fails here.

use std::collections::BTreeMap;
use std::path::Path;

use cryptoreg_registry::{inventory, AlgDef};

/// One row: file, priority, CPU features (sorted names).
type Row = (String, u32, Vec<String>);

/// The rows of the table in `lib.rs`'s docs, by driver name.
fn table() -> BTreeMap<String, Row> {
    let mut rows = BTreeMap::new();
    for line in include_str!("../lib.rs").lines() {
        let Some(row) = line.strip_prefix("//! | `") else {
            continue;
        };
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert!(cells.len() >= 4, "bad driver row: {line}");
        let driver = cells[0].trim_end_matches('`').to_string();
        let file = cells[1].trim_matches('`').to_string();
        let priority = cells[2]
            .parse()
            .unwrap_or_else(|_| panic!("priority: {line}"));
        let mut features: Vec<String> = if cells[3] == "—" {
            Vec::new()
        } else {
            cells[3]
                .split(',')
                .map(|f| f.trim().trim_matches('`').to_string())
                .collect()
        };
        features.sort();
        let dup = rows.insert(driver.clone(), (file, priority, features));
        assert!(dup.is_none(), "{driver}: two rows");
    }
    rows
}

/// The registered records, by driver name (the fault-injection build's test-only
/// `-faulty` driver is no shipped driver and has no row).
fn registered() -> BTreeMap<String, (u32, Vec<String>)> {
    inventory::iter::<AlgDef>
        .into_iter()
        .filter(|d| !d.driver().ends_with("-faulty"))
        .map(|d| {
            let mut f: Vec<String> = d
                .required_features()
                .iter()
                .map(|f| f.name().to_string())
                .collect();
            f.sort();
            (d.driver().to_string(), (d.priority(), f))
        })
        .collect()
}

#[test]
fn the_driver_table_matches_the_records() {
    let (table, records) = (table(), registered());
    let mut wrong = Vec::new();
    for (driver, (priority, features)) in &records {
        match table.get(driver) {
            Some((_, p, f)) if p == priority && f == features => {}
            _ => wrong.push(format!(
                "//! | `{driver}` | `?` | {priority} | {} |",
                if features.is_empty() {
                    "—".to_string()
                } else {
                    features
                        .iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            )),
        }
    }
    for driver in table.keys() {
        if !records.contains_key(driver) {
            wrong.push(format!("{driver}: a row, no record"));
        }
    }
    assert!(
        wrong.is_empty(),
        "driver table out of date:\n{}",
        wrong.join("\n")
    );
    assert!(records.len() > 40, "{} records", records.len());
}

#[test]
fn every_file_of_the_driver_table_exists() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (driver, (file, _, _)) in table() {
        assert!(src.join(&file).exists(), "{driver}: no algos/src/{file}");
    }
}

/// The files that allow `unsafe` (`#![allow(unsafe_code)]`), as the safety rules of the
/// crate docs name them: a module folder as `dir/`, a single file as `file.rs`.
fn unsafe_modules(dir: &Path, src: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("algos/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            unsafe_modules(&path, src, out);
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        if text.lines().any(|l| l == "#![allow(unsafe_code)]") {
            let rel = path
                .strip_prefix(src)
                .expect("under src")
                .to_string_lossy()
                .to_string();
            out.push(match rel.strip_suffix("mod.rs") {
                Some(dir) => dir.to_string(),
                None => rel,
            });
        }
    }
}

#[test]
fn the_safety_rules_name_every_module_that_allows_unsafe() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    unsafe_modules(&src, &src, &mut found);
    found.sort();
    let docs = include_str!("../lib.rs");
    let rules = docs
        .split("//! ## Safety rules")
        .nth(1)
        .and_then(|r| r.split("//! ##").next())
        .expect("a Safety rules section");
    let mut named: Vec<String> = rules
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| s.ends_with('/') || s.ends_with(".rs"))
        .map(str::to_string)
        .collect();
    named.sort();
    named.dedup();
    assert_eq!(
        found, named,
        "lib.rs safety rules vs #![allow(unsafe_code)]"
    );
}
