//! `cryptoctl --socket PATH`: the same commands against a live process (this test
//! process boots a registry and serves its control socket), with the same output as
//! offline.

#![cfg(unix)]

mod common;

use std::sync::Arc;

use common::{arg, fails, json, text, TempDir, KAT};
use serde_json::Value;

/// `list --json` without the self-test timings (they differ between two boots).
fn untimed(mut list: Value) -> Value {
    for e in list.as_array_mut().unwrap() {
        e.as_object_mut().unwrap().remove("selftest_ms");
    }
    list
}

#[test]
fn live_commands_match_offline_output_and_change_the_live_process() {
    let dir = TempDir::new("socket");
    let cfg = dir.file("kat.toml", KAT);
    let reg = Arc::new(cryptoreg::boot(cryptoreg::Config::from_file(&cfg).unwrap(), None).unwrap());
    let sock = dir.path().join("run").join("ctl.sock");
    let _guard = cryptoreg::control::serve(
        Arc::clone(&reg),
        &sock,
        cryptoreg::control::ServeOptions::default(),
    )
    .unwrap();
    let s = arg(&sock);

    // Same JSON and text as an offline boot with the same configuration.
    let live = json(&["--socket", s, "--json", "list"]);
    let offline = json(&["--config", arg(&cfg), "--json", "list"]);
    assert_eq!(untimed(live), untimed(offline));
    assert_eq!(
        text(&["--socket", s, "explain", "xts(aes)"]),
        text(&["--config", arg(&cfg), "explain", "xts(aes)"])
    );
    assert_eq!(
        json(&["--socket", s, "--json", "explain", "ctr(aes)"]),
        json(&["--config", arg(&cfg), "--json", "explain", "ctr(aes)"])
    );
    let header = text(&["--socket", s, "list"]);
    assert!(header.lines().next().unwrap().contains("REFS"), "{header}");
    let proc_text = text(&["--socket", s, "list", "--proc"]);
    assert!(proc_text.contains("refcnt       : 0\n"), "{proc_text}");
    let report = json(&["--socket", s, "--json", "selftest"]);
    assert_eq!(report["mode"], "kat");
    assert!(report["chosen"]["xts(aes)"].is_string(), "{report:#}");

    // Handles in the live process show as refcnt, and stats count their requests.
    let chosen = reg.resolve("xts(aes)").unwrap().driver().to_string();
    let mut h = reg.alloc_skcipher("xts(aes)").unwrap();
    let mut key = vec![1u8; 64];
    key[40] = 2;
    h.set_key(&key).unwrap();
    h.encrypt_in_place(&[0u8; 16], &mut [0u8; 64]).unwrap();
    let list = json(&["--socket", s, "--json", "list"]);
    assert_eq!(common::entry(&list, &chosen)["refcnt"], 1);
    let stats = json(&["--socket", s, "--json", "stats"]);
    let row = common::entry(&stats, &chosen);
    assert_eq!(
        (row["requests"].as_u64(), row["bytes"].as_u64()),
        (Some(1), Some(64))
    );
    assert!(text(&["--socket", s, "stats"]).contains("REQUESTS"));

    // One re-verification pass in the live process: the handle's driver, on every CPU.
    let out = text(&["--socket", s, "rescan"]);
    assert!(
        out.starts_with("rescan: ") && out.contains("all passed"),
        "{out}"
    );
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{chosen} ")))
        .unwrap_or_else(|| panic!("{chosen} not re-tested: {out}"));
    assert!(line.ends_with(": passed"), "{line}");
    let rescan = json(&["--socket", s, "--json", "rescan"]);
    assert!(rescan["drivers"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["driver"] == chosen));
    let stats = json(&["--socket", s, "--json", "stats"]);
    assert!(
        common::entry(&stats, &chosen)["rescans"].as_u64() >= Some(2),
        "{stats:#}"
    );
    assert_eq!(common::entry(&stats, &chosen)["rescan_failures"], 0);

    // Changes go to the live registry, not to a file. A template instance is only the
    // fallback while a concrete driver is usable, so the generic one gets a priority of
    // its own first: where the chosen driver is the only concrete one (arm64's
    // xts-aes-ce) the demotion then moves the name to it.
    text(&["--socket", s, "set-priority", "xts(ecb(aes-generic))", "2"]);
    let out = text(&["--socket", s, "set-priority", &chosen, "1"]);
    assert!(out.contains("-> 1 (applied)"), "{out}");
    assert_ne!(reg.resolve("xts(aes)").unwrap().driver(), chosen);
    assert!(!h.is_current());
    text(&["--socket", s, "clear-priority", &chosen]);
    assert_eq!(reg.resolve("xts(aes)").unwrap().driver(), chosen);
    text(&["--socket", s, "disable", &chosen]);
    assert!(reg.resolve(&chosen).is_err());
    let c = json(&["--socket", s, "--json", "enable", &chosen]);
    assert_eq!(c["effect"], "applied");
    assert!(reg.resolve(&chosen).is_ok());

    // reload re-reads the boot's file (edited meanwhile), or the one given.
    std::fs::write(&cfg, format!("{KAT}[priority]\n\"{chosen}\" = 2\n")).unwrap();
    let out = text(&["--socket", s, "reload"]);
    assert!(
        out.contains(&format!("priority {chosen}: - -> 2 (applied)")),
        "{out}"
    );
    let other = dir.file("other.toml", "[selftest]\nmode = \"full\"\n");
    let changes = json(&["--socket", s, "--json", "reload", "--config", arg(&other)]);
    let effects: Vec<&str> = changes
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["effect"].as_str().unwrap())
        .collect();
    assert!(effects.contains(&"needs-restart"), "{changes:#}");

    // Refusals and misuse.
    let e = fails(&["--socket", s, "disable", "no-such-driver"], 1);
    assert!(e.contains("no-such-driver"), "{e}");
    fails(&["clear-priority", "aes-generic"], 2);
    fails(&["reload"], 2);
    fails(&["--socket", s, "selftest", "--driver", "aes-generic"], 2);
    let missing = dir.path().join("nope.sock");
    fails(&["--socket", arg(&missing), "list"], 1);
}
