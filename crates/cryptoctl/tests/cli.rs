//! The command-line contract of `cryptoctl`: JSON shapes, configuration editing, exit
//! codes and error messages. These boot with self-tests off (or need no boot), so they
//! hold whatever drivers are linked; `done_when.rs` checks the outcomes on real drivers.

mod common;

use common::*;
use serde_json::Value;

#[test]
fn cpu_json_has_the_identity_and_policy_fields() {
    let v = json(&["cpu", "--json"]);
    for field in [
        "arch", "vendor", "family", "model", "stepping", "features", "source", "policy",
    ] {
        assert!(v.get(field).is_some(), "missing {field}: {v:#}");
    }
    assert_eq!(v["source"], "native");
    assert_eq!(v["simulated"], false);
    let has = |name: &str| v["features"].as_array().unwrap().iter().any(|f| f == name);
    if cfg!(target_arch = "x86_64") {
        assert_eq!(v["arch"], "x86_64");
        assert!(has("sse2"), "{v:#}");
        assert!(
            v.get("implementer").is_none() && v.get("part").is_none(),
            "{v:#}"
        );
        // The brand string is CPUID's, as the kernel shows it as "model name".
        // Null only on a CPU without the extended leaves; the kernel then shows no
        // "model name" either.
        let brand = v["brand"].as_str().unwrap_or("");
        assert!(brand.trim() == brand && !brand.contains('\0'), "{brand:?}");
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        if let Some(line) = cpuinfo.lines().find(|l| l.starts_with("model name")) {
            assert_eq!(line.split_once(':').unwrap().1.trim(), brand);
        }
        if !brand.is_empty() {
            assert!(
                text(&["cpu"]).contains(&format!("brand     {brand}")),
                "the text shows the brand"
            );
        }
    } else if cfg!(target_arch = "aarch64") {
        assert_eq!(v["arch"], "aarch64");
        assert!(has("neon") && !has("sse2"), "{v:#}");
        assert_eq!(v["brand"], Value::Null, "no brand register on arm64");
        // The MIDR may be hidden (QEMU user mode): then null, and the text says "unknown".
        for field in ["implementer", "part"] {
            assert!(v[field].is_string() || v[field].is_null(), "{field}: {v:#}");
        }
        if v["implementer"].is_null() {
            assert_eq!(v["vendor"], "unknown");
            let human = text(&["cpu"]);
            assert!(human.contains("implementer  unknown"), "{human}");
        }
    }
    assert!(
        v.get("host_features").is_none(),
        "host features only when simulated"
    );
}

#[test]
fn cpu_icelake_server_shows_its_policy_row() {
    let v = json(&["cpu", "--cpu", "icelake-server", "--json"]);
    assert_eq!(v["vendor"], "GenuineIntel");
    assert_eq!(
        (v["family"].as_u64(), v["model"].as_u64()),
        (Some(6), Some(0x6a))
    );
    assert_eq!(v["model_hex"], "0x6a");
    assert_eq!(v["source"], "icelake-server");
    assert_eq!(v["simulated"], true);
    assert_eq!(v["brand"], Value::Null, "a preset has no brand string");
    assert!(v["host_features"].is_array());
    let rows = v["policy"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v:#}");
    assert_eq!(rows[0]["name"], "Ice Lake server");
    assert!(
        v["consequence"].as_str().unwrap().contains("priority 1"),
        "{v:#}"
    );

    let human = text(&["cpu", "--cpu", "icelake-server"]);
    assert!(human.contains("Ice Lake server"), "{human}");
    assert!(
        human.contains("zmm drivers demoted to priority 1"),
        "{human}"
    );
    assert!(human.contains("0x6a (106)"), "{human}");
}

#[test]
fn cpu_without_a_policy_row_says_so() {
    let v = json(&["cpu", "--cpu", "zen3", "--json"]);
    assert_eq!(v["policy"], Value::Array(vec![]));
    assert_eq!(v["consequence"], Value::Null);
    assert_eq!(v["family"], 0x19);
}

#[test]
fn cpu_arm64_presets_show_implementer_and_part_on_every_host() {
    let v = json(&["cpu", "--cpu", "neoverse-n1", "--json"]);
    assert_eq!(v["arch"], "aarch64");
    assert_eq!(v["vendor"], "ARM");
    assert_eq!(
        (&v["implementer"], &v["part"]),
        (&Value::from("0x41"), &Value::from("0xd0c"))
    );
    assert_eq!(v["features"], serde_json::json!(["aes", "neon", "pmull"]));
    assert_eq!(v["policy"], Value::Array(vec![]));
    let human = text(&["cpu", "--cpu", "cortex-a72"]);
    assert!(human.contains("part         0xd08"), "{human}");
    assert!(human.contains("features     neon\n"), "{human}");
    assert!(!human.contains("family"), "{human}");
    let v = json(&["cpu", "--cpu", "apple-m1", "--json"]);
    assert_eq!(
        (&v["vendor"], &v["implementer"]),
        (&Value::from("Apple"), &Value::from("0x61"))
    );
}

#[test]
fn list_json_entries_have_every_required_field() {
    let dir = TempDir::new("list");
    let cfg = dir.file("off.toml", OFF);
    let list = json(&["list", "--json", "--config", arg(&cfg)]);
    let entries = list.as_array().unwrap();
    assert!(!entries.is_empty());
    for e in entries {
        for field in [
            "name",
            "driver",
            "type",
            "priority",
            "base_priority",
            "state",
            "uses_zmm",
            "requires",
        ] {
            assert!(e.get(field).is_some(), "missing {field} in {e}");
        }
        assert!(e["priority"].is_u64() && e["base_priority"].is_u64(), "{e}");
        assert!(
            e["uses_zmm"].is_boolean() && e["requires"].is_array(),
            "{e}"
        );
        let state = e["state"].as_str().unwrap();
        assert!(
            ["passed", "failed", "unsupported", "untested", "disabled"].contains(&state),
            "{e}"
        );
    }
    assert_eq!(entry(&list, "aes-generic")["type"], "cipher");
    assert_eq!(entry(&list, "aes-generic")["base_priority"], 100);
}

#[test]
fn list_human_and_proc_formats() {
    let dir = TempDir::new("listh");
    let cfg = dir.file("off.toml", OFF);
    let t = text(&["list", "--config", arg(&cfg)]);
    let header = t.lines().next().unwrap();
    for col in ["DRIVER", "PRIO", "STATE", "REFS", "NOTE"] {
        assert!(header.contains(col), "{header}");
    }
    // One heading line per algorithm name, its drivers beneath.
    assert!(t.lines().any(|l| l == "aes (cipher)"), "{t}");
    assert!(t.lines().any(|l| l.contains("aes-generic")), "{t}");
    let wide = text(&["list", "--wide", "--config", arg(&cfg)]);
    let header = wide.lines().next().unwrap();
    for col in [
        "NAME", "DRIVER", "TYPE", "PRIO", "BASE", "STATE", "ZMM", "ARCH", "REQUIRES", "REFCNT",
    ] {
        assert!(header.contains(col), "{header}");
    }
    // The randomized tests build the generic instances they compare against.
    let cfg = dir.file("full.toml", "[selftest]\nfuzz_iterations = 1\n");
    let p = text(&["list", "--proc", "--config", arg(&cfg)]);
    assert!(p.contains("driver       : aes-generic\n"), "{p}");
    assert!(p.contains("priority     : 100\n"), "{p}");
    // The size lines /proc/crypto shows for each type.
    let record = |driver: &str| {
        p.split("\n\n")
            .find(|r| r.contains(&format!("driver       : {driver}\n")))
            .unwrap_or_else(|| panic!("{driver} not in {p}"))
            .to_string()
    };
    let aes = record("aes-generic");
    assert!(
        aes.contains("blocksize    : 16\nmin keysize  : 16\nmax keysize  : 32\n"),
        "{aes}"
    );
    let gcm = record("gcm_base(ctr(aes-generic),ghash-generic)");
    assert!(
        gcm.contains("blocksize    : 1\nivsize       : 12\nmaxauthsize  : 16\n"),
        "{gcm}"
    );
    assert!(!gcm.contains("keysize"), "{gcm}");
    let ghash = record("ghash-generic");
    assert!(ghash.contains("digestsize   : 16\n"), "{ghash}");
    let xts = record("xts(ecb(aes-generic))");
    assert!(
        xts.contains("min keysize  : 32\nmax keysize  : 64\nivsize       : 16\n"),
        "{xts}"
    );
    // The same fields in the JSON, with the chosen flag.
    let list = json(&["list", "--json", "--config", arg(&cfg)]);
    let x = entry(&list, "xts(ecb(aes-generic))");
    assert_eq!(
        (
            &x["blocksize"],
            &x["min_keysize"],
            &x["max_keysize"],
            &x["ivsize"]
        ),
        (
            &Value::from(16),
            &Value::from(32),
            &Value::from(64),
            &Value::from(16)
        )
    );
    assert_eq!(entry(&list, "ghash-generic")["digestsize"], 16);
    assert_eq!(entry(&list, "aes-generic")["arch"], Value::Null);
    assert!(entry(&list, "aes-generic")["chosen"].is_boolean());
}

/// For this machine and every preset: the default table fits 100 columns; each algorithm
/// has exactly one starred driver, the one `selftest` reports as chosen; the other
/// architecture's records show only with `--all-arch`.
#[test]
fn list_marks_the_chosen_fits_100_columns_and_keeps_to_the_planned_arch() {
    let dir = TempDir::new("listc");
    let cfg = dir.file("off.toml", OFF);
    let c = arg(&cfg);
    // Every preset (`native` first) where the tool runs natively; under an emulator
    // (the arm64 run) each of its ~110 processes costs a QEMU start, and the columns and
    // the stars depend only on the simulated CPU, so there `native` and one preset of each
    // architecture stand for the rest (the native run covers them all).
    let all_cpus = cryptoreg::CpuInfo::preset_names();
    let cpus: Vec<&str> = match common::runner() {
        None => all_cpus,
        Some(_) => {
            let mut seen = std::collections::BTreeSet::new();
            all_cpus
                .into_iter()
                .filter(|&cpu| {
                    let arch = cryptoreg::CpuInfo::preset(cpu).map(|c| c.arch);
                    cpu == "native" || seen.insert(format!("{arch:?}"))
                })
                .collect()
        }
    };
    for cpu in cpus {
        let report = json(&["selftest", "--json", "--cpu", cpu, "--config", c]);
        let chosen = report["chosen"].as_object().unwrap();
        let list = json(&["list", "--json", "--cpu", cpu, "--config", c]);
        let entries = list.as_array().unwrap();
        let arch = json(&["cpu", "--json", "--cpu", cpu])["arch"].clone();
        for e in entries {
            assert!(e["arch"].is_null() || e["arch"] == arch, "{cpu}: {e}");
            let is_chosen = chosen.get(e["name"].as_str().unwrap()) == Some(&e["driver"]);
            assert_eq!(e["chosen"], is_chosen, "{cpu}: {e}");
        }
        for (name, driver) in chosen {
            let starred = entries
                .iter()
                .filter(|e| e["name"] == name.as_str() && e["chosen"] == true)
                .count();
            assert_eq!(starred, usize::from(driver.is_string()), "{cpu}: {name}");
        }
        let all = json(&["list", "--json", "--all-arch", "--cpu", cpu, "--config", c]);
        let arches: std::collections::BTreeSet<&str> = all
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["arch"].as_str())
            .collect();
        assert_eq!(
            arches.into_iter().collect::<Vec<_>>(),
            ["aarch64", "x86_64"],
            "{cpu}"
        );
        assert!(all.as_array().unwrap().len() > entries.len(), "{cpu}");

        let t = text(&["list", "--cpu", cpu, "--config", c]);
        for line in t.lines() {
            assert!(line.chars().count() <= 100, "{cpu}: {line:?}");
        }
        let starred: Vec<&str> = t
            .lines()
            .filter_map(|l| l.strip_prefix("*"))
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        let mut want: Vec<&str> = chosen.values().filter_map(Value::as_str).collect();
        let mut got = starred.clone();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want, "{cpu}:\n{t}");
    }
}

#[test]
fn list_filters_by_name_and_by_common_name() {
    let dir = TempDir::new("listf");
    let cfg = dir.file("off.toml", OFF);
    let c = arg(&cfg);
    let list = json(&["list", "--json", "xts", "--config", c]);
    let entries = list.as_array().unwrap();
    assert!(!entries.is_empty());
    for e in entries {
        let (n, d) = (e["name"].as_str().unwrap(), e["driver"].as_str().unwrap());
        assert!(n.contains("xts") || d.contains("xts"), "{e}");
    }
    // Any case; OpenSSL's name lists the algorithm it stands for.
    let upper = json(&["list", "--json", "XTS", "--config", c]);
    assert_eq!(upper, list);
    let gcm = json(&["list", "--json", "aes-256-gcm", "--config", c]);
    let names: std::collections::BTreeSet<&str> = gcm
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.into_iter().collect::<Vec<_>>(), ["gcm(aes)"]);
    let none = text(&["list", "no-such-thing", "--config", c]);
    assert!(none.ends_with("(no entry matches)\n"), "{none}");
}

#[test]
fn explain_json_shape() {
    let dir = TempDir::new("explain");
    let cfg = dir.file("off.toml", OFF);
    let v = json(&["explain", "xts(aes)", "--json", "--config", arg(&cfg)]);
    assert_eq!(v["name"], "xts(aes)");
    let chosen = v["chosen"].as_str().expect("something serves xts(aes)");
    let cands = v["candidates"].as_array().unwrap();
    assert!(!cands.is_empty());
    for c in cands {
        for field in ["driver", "priority", "base_priority", "state", "verdict"] {
            assert!(c.get(field).is_some(), "missing {field} in {c}");
        }
    }
    assert_eq!(cands[0]["driver"], chosen, "the chosen one is listed first");
    assert!(cands[0]["verdict"].as_str().unwrap().starts_with("chosen"));

    let human = text(&["explain", "xts(aes)", "--config", arg(&cfg)]);
    assert!(
        human.starts_with(&format!("xts(aes) -> {chosen}\n")),
        "{human}"
    );
    assert!(human.contains("VERDICT"), "{human}");
}

#[test]
fn explain_simulated_cpu_marks_output() {
    let dir = TempDir::new("explsim");
    let cfg = dir.file("off.toml", OFF);
    let v = json(&[
        "explain",
        "xts(aes)",
        "--cpu",
        "generic-x86_64",
        "--json",
        "--config",
        arg(&cfg),
    ]);
    assert!(v["chosen"].is_string(), "{v:#}");
    if !cfg!(cryptoreg_fault_injection) {
        // (With tests off, the fault-injection build's untested xts-aes-faulty wins.)
        assert_eq!(v["chosen"], "xts(ecb(aes-generic))");
    }
    let human = text(&[
        "explain",
        "xts(aes)",
        "--cpu",
        "generic-x86_64",
        "--config",
        arg(&cfg),
    ]);
    assert!(
        human.starts_with("# simulated CPU: generic-x86_64"),
        "{human}"
    );
    let native = text(&["explain", "xts(aes)", "--config", arg(&cfg)]);
    assert!(!native.starts_with('#'), "{native}");
}

#[test]
fn explain_unknown_name_is_a_usage_error() {
    let dir = TempDir::new("explunk");
    let cfg = dir.file("off.toml", OFF);
    let err = fails(&["explain", "rot13", "--config", arg(&cfg)], 2);
    assert!(err.contains("rot13"), "{err}");
}

#[test]
fn set_priority_then_disable_then_enable_edit_the_file() {
    let dir = TempDir::new("edit");
    let original = "# operator notes stay\n[selftest]\nmode = \"off\" # fast boots\n";
    let cfg = dir.file("svc.toml", original);
    let c = arg(&cfg);

    let out = text(&["--config", c, "set-priority", "aes-generic", "50"]);
    assert!(out.contains("\"aes-generic\" = 50"), "{out}");
    assert!(out.contains("100 -> 50"), "{out}");
    let file = std::fs::read_to_string(&cfg).unwrap();
    assert!(
        file.starts_with(original),
        "comments and layout kept:\n{file}"
    );
    assert!(
        file.contains("[priority]\n\"aes-generic\" = 50\n"),
        "{file}"
    );
    let list = json(&["list", "--json", "--config", c]);
    assert_eq!(entry(&list, "aes-generic")["priority"], 50);
    assert_eq!(entry(&list, "aes-generic")["base_priority"], 100);

    let v = json(&["--config", c, "disable", "aes-generic", "--json"]);
    assert_eq!(v["changed"], true);
    assert_eq!(v["after"]["disabled"], true);
    let file = std::fs::read_to_string(&cfg).unwrap();
    assert!(
        file.contains("[disable]\ndrivers = [\"aes-generic\"]\n"),
        "{file}"
    );
    let list = json(&["list", "--json", "--config", c]);
    assert_eq!(entry(&list, "aes-generic")["state"], "disabled");

    // Idempotent: a second disable changes nothing.
    let v = json(&["--config", c, "disable", "aes-generic", "--json"]);
    assert_eq!(v["changed"], false);

    let out = text(&["--config", c, "enable", "aes-generic"]);
    assert!(out.contains("removed"), "{out}");
    let list = json(&["list", "--json", "--config", c]);
    assert_ne!(entry(&list, "aes-generic")["state"], "disabled");
    assert_eq!(entry(&list, "aes-generic")["priority"], 50);
}

#[test]
fn config_editors_create_a_missing_file() {
    let dir = TempDir::new("create");
    let cfg = dir.path().join("new.toml");
    let v = json(&[
        "--config",
        arg(&cfg),
        "set-priority",
        "aes-generic",
        "7",
        "--json",
    ]);
    assert_eq!(v["created"], true);
    assert_eq!(v["after"]["priority"], 7);
    let file = std::fs::read_to_string(&cfg).unwrap();
    assert_eq!(file, "[priority]\n\"aes-generic\" = 7\n");
}

#[test]
fn config_editors_need_config_and_a_known_driver() {
    let err = fails(&["set-priority", "aes-generic", "5"], 2);
    assert!(err.contains("--config"), "{err}");
    let err = fails(&["disable", "aes-generic"], 2);
    assert!(err.contains("--config"), "{err}");

    let dir = TempDir::new("unknown");
    let cfg = dir.file("svc.toml", OFF);
    let err = fails(
        &["--config", arg(&cfg), "set-priority", "aes-quantum", "5"],
        2,
    );
    assert!(err.contains("unknown driver \"aes-quantum\""), "{err}");
    assert!(
        err.contains("aes-generic"),
        "lists the known drivers: {err}"
    );
    assert_eq!(
        std::fs::read_to_string(&cfg).unwrap(),
        OFF,
        "file untouched"
    );

    fails(
        &["--config", arg(&cfg), "set-priority", "aes-generic", "-3"],
        2,
    );
}

#[test]
fn bad_preset_is_a_usage_error() {
    let err = fails(&["list", "--cpu", "pentium"], 2);
    assert!(err.contains("pentium"), "{err}");
    assert!(err.contains("icelake-server"), "names the presets: {err}");
}

#[test]
fn bad_config_key_names_key_and_line() {
    let dir = TempDir::new("badkey");
    let cfg = dir.file(
        "bad.toml",
        "[selftest]\nmode = \"off\"\nfuzz_iteration = 3\n",
    );
    for cmd in [&["list"][..], &["explain", "aes"], &["cpu"], &["selftest"]] {
        let mut args = cmd.to_vec();
        args.extend(["--config", arg(&cfg)]);
        let err = fails(&args, 2);
        assert!(err.contains("fuzz_iteration"), "{err}");
        assert!(err.contains("line 3"), "{err}");
    }
    let err = fails(&["--config", arg(&cfg), "disable", "aes-generic"], 2);
    assert!(err.contains("fuzz_iteration"), "{err}");
}

#[test]
fn bad_config_values_and_missing_files_are_usage_errors() {
    let dir = TempDir::new("badval");
    let cfg = dir.file(
        "bad.toml",
        &format!("{OFF}[priority]\n\"aes-quantum\" = 5\n"),
    );
    let err = fails(&["list", "--config", arg(&cfg)], 2);
    assert!(err.contains("aes-quantum"), "{err}");
    let cfg = dir.file(
        "mask.toml",
        &format!("{OFF}[cpu]\ndisable = [\"avx9000\"]\n"),
    );
    let err = fails(&["list", "--config", arg(&cfg)], 2);
    assert!(err.contains("avx9000"), "{err}");
    let missing = dir.path().join("nope.toml");
    let err = fails(&["list", "--config", arg(&missing)], 2);
    assert!(err.contains("nope.toml"), "{err}");
}

#[test]
fn crypto_config_env_is_honoured() {
    let dir = TempDir::new("env");
    let cfg = dir.file(
        "env.toml",
        &format!("{OFF}[priority]\n\"aes-generic\" = 42\n"),
    );
    let out = cryptoctl()
        .args(["list", "--json"])
        .env("CRYPTOREG_CONFIG", &cfg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(entry(&list, "aes-generic")["priority"], 42);
}

#[test]
fn selftest_rejects_bad_seeds_and_unknown_drivers() {
    let err = fails(
        &["selftest", "--driver", "aes-generic", "--seed", "0xzz"],
        2,
    );
    assert!(err.contains("0xzz"), "{err}");
    let dir = TempDir::new("stunk");
    let cfg = dir.file("kat.toml", OFF);
    let err = fails(
        &["selftest", "--driver", "aes-quantum", "--config", arg(&cfg)],
        2,
    );
    assert!(err.contains("aes-quantum"), "{err}");
}

#[test]
fn selftest_with_tests_off_reports_untested() {
    let dir = TempDir::new("stoff");
    let cfg = dir.file("off.toml", OFF);
    let v = json(&["selftest", "--json", "--config", arg(&cfg)]);
    assert!(v["elapsed_ms"].is_number());
    assert_eq!(v["mode"], "off");
    let drivers = v["drivers"].as_array().unwrap();
    assert!(drivers
        .iter()
        .all(|d| d["failures"].as_array().unwrap().is_empty()));
    assert!(v["chosen"]["aes"].is_string(), "{v:#}");
}

/// Per algorithm: the chosen driver, its priority and why; the names only a template
/// serves are among them.
#[test]
fn selftest_reports_each_choice_with_its_priority_and_reason() {
    let dir = TempDir::new("stwhy");
    let cfg = dir.file("kat.toml", KAT);
    let c = arg(&cfg);
    let v = json(&["selftest", "--json", "--config", c]);
    let choices = v["choices"].as_object().unwrap();
    for name in ["rfc4106(gcm(aes))", "rfc7539esp(chacha20,poly1305)"] {
        let ch = &choices[name];
        assert_eq!(ch["template_only"], true, "{name}: {v:#}");
        assert!(ch["driver"]
            .as_str()
            .unwrap()
            .starts_with(name.split('(').next().unwrap()));
    }
    assert_eq!(choices["xts(aes)"]["template_only"], false);
    for (name, ch) in choices {
        let explained = json(&["explain", name, "--json", "--config", c]);
        assert_eq!(ch["driver"], explained["chosen"], "{name}");
        let top = &explained["candidates"][0];
        assert_eq!(ch["priority"], top["priority"], "{name}");
        assert_eq!(
            format!("chosen: {}", ch["reason"].as_str().unwrap()),
            top["verdict"].as_str().unwrap(),
            "{name}"
        );
        let reason = ch["reason"].as_str().unwrap();
        if ch["template_only"] == true {
            assert!(
                reason.starts_with("template-only algorithm: "),
                "{name}: {ch}"
            );
        } else {
            assert!(reason.contains("usable"), "{name}: {ch}");
        }
        assert_eq!(v["chosen"][name], ch["driver"]);
    }
    let t = text(&["selftest", "--config", c]);
    let line = t
        .lines()
        .find(|l| l.trim_start().starts_with("rfc4106(gcm(aes)) "))
        .unwrap_or_else(|| panic!("{t}"));
    let p = choices["rfc4106(gcm(aes))"]["priority"].to_string();
    assert!(line.contains(&format!(" {p}  ")), "{line}");
    assert!(line.contains("a template serves this name"), "{line}");
}

/// OpenSSL's and IANA's names explain and measure the registry's algorithm they name; a
/// near miss gets the nearest names; the strict grammar stays everywhere else.
#[test]
fn common_names_are_accepted_and_near_misses_get_suggestions() {
    let dir = TempDir::new("common");
    let cfg = dir.file("off.toml", OFF);
    let c = arg(&cfg);
    let own = json(&["explain", "gcm(aes)", "--json", "--config", c]);
    for typed in ["aes-256-gcm", "AES_128_GCM", "TLS_AES_256_GCM_SHA384"] {
        let v = json(&["explain", typed, "--json", "--config", c]);
        assert_eq!(v["name"], "gcm(aes)", "{typed}");
        assert_eq!(v["chosen"], own["chosen"], "{typed}");
    }
    let t = text(&["explain", "chacha20-poly1305", "--config", c]);
    assert!(
        t.starts_with("chacha20-poly1305: rfc7539(chacha20,poly1305) with 256-bit keys\n"),
        "{t}"
    );
    // The common name's key size, unless --key-bits says otherwise.
    let speed = |name: &str, extra: &[&str]| {
        let mut a = vec![
            "speed",
            name,
            "--sizes",
            "64",
            "--time-ms",
            "1",
            "--config",
            c,
        ];
        a.extend_from_slice(extra);
        text(&a)
    };
    assert!(speed("aes-128-xts", &[]).contains("xts(aes), 2x128-bit keys"));
    assert!(speed("aes-256-ctr", &[]).contains("ctr(aes), 256-bit key"));
    assert!(speed("aes-256-ctr", &["--key-bits", "192"]).contains("ctr(aes), 192-bit key"));

    let err = fails(&["explain", "aes-265-gcm", "--config", c], 2);
    assert!(err.contains("did you mean `aes-256-gcm`"), "{err}");
    let err = fails(&["explain", "gcm(aes", "--config", c], 2);
    assert!(err.contains("did you mean `gcm(aes)`"), "{err}");
    let err = fails(&["speed", "xts(aesx)", "--config", c], 2);
    assert!(err.contains("did you mean `xts(aes)`"), "{err}");
    // Nothing near: no suggestion.
    let err = fails(&["explain", "rot13", "--config", c], 2);
    assert!(!err.contains("did you mean"), "{err}");
    // The editors keep the strict grammar: a common name is not a driver.
    fails(&["--config", c, "disable", "aes-256-gcm"], 2);
}

#[test]
fn speed_json_rows() {
    let dir = TempDir::new("speed");
    let cfg = dir.file("off.toml", OFF);
    let c = arg(&cfg);
    let rows = json(&[
        "speed",
        "xts(aes)",
        "--sizes",
        "16",
        "4096",
        "--time-ms",
        "2",
        "--json",
        "--config",
        c,
    ]);
    let rows = rows.as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        assert!(r["driver"].is_string(), "{r}");
        assert!([16, 4096].contains(&r["size"].as_u64().unwrap()), "{r}");
        assert!(r["bytes_per_sec"].as_u64().unwrap() > 0, "{r}");
        assert!(r.get("op").is_none(), "skciphers have one operation: {r}");
    }
    assert!(
        rows.iter().any(|r| r["driver"] == "xts(ecb(aes-generic))"),
        "the all-generic instance is always measured: {rows:?}"
    );

    let t = text(&[
        "speed",
        "xts(aes)",
        "--sizes",
        "16",
        "--time-ms",
        "1",
        "--key-bits",
        "256",
        "--config",
        c,
    ]);
    assert!(t.contains("2x256-bit keys"), "{t}");
    assert!(t.lines().nth(1).unwrap().contains("DRIVER"), "{t}");

    let err = fails(
        &[
            "speed",
            "xts(aes)",
            "--key-bits",
            "100",
            "--time-ms",
            "1",
            "--config",
            c,
        ],
        2,
    );
    assert!(err.contains("--key-bits 100"), "{err}");
    fails(&["speed", "rot13", "--time-ms", "1", "--config", c], 2);
}

/// `--plot` writes an SVG with a line (and a legend entry) for every driver measured,
/// the same drivers as the JSON rows, and a log-scaled size axis labelled with the sizes.
#[test]
fn speed_plot_writes_an_svg_naming_every_driver() {
    let dir = TempDir::new("speedplot");
    let cfg = dir.file("off.toml", OFF);
    let c = arg(&cfg);
    let svg_path = dir.path().join("xts.svg");
    let rows = json(&[
        "speed",
        "xts(aes)",
        "--sizes",
        "16",
        "512",
        "16384",
        "--time-ms",
        "1",
        "--json",
        "--plot",
        arg(&svg_path),
        "--config",
        c,
    ]);
    let svg = std::fs::read_to_string(&svg_path).expect("the plot was written");
    assert!(svg.contains("<svg"), "{svg:.200}");
    let mut drivers: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["driver"].as_str().unwrap())
        .collect();
    drivers.dedup();
    assert!(drivers.len() >= 2, "{drivers:?}");
    // The texts of the SVG's <text> elements, trimmed.
    let texts: Vec<&str> = svg
        .split("</text>")
        .filter_map(|chunk| chunk.rsplit_once('>').map(|(_, t)| t.trim()))
        .collect();
    for d in &drivers {
        assert!(
            texts.iter().any(|t| t.starts_with(&format!("{d} ("))),
            "{d} is not in the legend: {texts:?}"
        );
    }
    // A line per driver, and the log axis: decades as tick labels, named as such.
    assert!(
        svg.matches("<polyline").count() >= drivers.len(),
        "{svg:.400}"
    );
    assert!(
        texts.contains(&"100") && texts.contains(&"1000"),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t.contains("log scale")), "{texts:?}");

    // A path that cannot be written is a runtime error, not a panic.
    let err = fails(
        &[
            "speed",
            "xts(aes)",
            "--sizes",
            "16",
            "--time-ms",
            "1",
            "--plot",
            "/nonexistent-dir/x.svg",
            "--config",
            c,
        ],
        1,
    );
    assert!(err.contains("plot"), "{err}");
}

/// AEADs get a seal and an open row per driver (an open that failed its tag check would
/// have no row), the all-generic instance among them; `--aad` and `--key-bits` show in
/// the header.
#[test]
fn speed_aead_seal_and_open_rows() {
    let dir = TempDir::new("speedaead");
    let cfg = dir.file("off.toml", OFF);
    let c = arg(&cfg);
    let rows = json(&[
        "speed",
        "gcm(aes)",
        "--sizes",
        "16",
        "1420",
        "--time-ms",
        "2",
        "--json",
        "--config",
        c,
    ]);
    let rows = rows.as_array().unwrap();
    let drivers: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r["driver"].as_str().unwrap()).collect();
    assert!(
        drivers.contains("gcm_base(ctr(aes-generic),ghash-generic)"),
        "the all-generic instance is always measured: {rows:?}"
    );
    for d in &drivers {
        for op in ["seal", "open"] {
            for size in [16, 1420] {
                let r = rows
                    .iter()
                    .find(|r| r["driver"] == *d && r["op"] == op && r["size"] == size)
                    .unwrap_or_else(|| panic!("no {op} row for {d} at {size}: {rows:?}"));
                assert!(r["bytes_per_sec"].as_u64().unwrap() > 0, "{r}");
            }
        }
    }
    assert_eq!(rows.len(), drivers.len() * 4, "{rows:?}");

    let t = text(&[
        "speed",
        "gcm(aes)",
        "--sizes",
        "64",
        "--time-ms",
        "1",
        "--key-bits",
        "256",
        "--aad",
        "16",
        "--config",
        c,
    ]);
    let header = t.lines().next().unwrap();
    for want in [
        "256-bit key",
        "authsize 16",
        "16-byte AAD",
        "seal in place",
        "open out of place",
    ] {
        assert!(header.contains(want), "{want:?} missing: {t}");
    }
    assert!(t.lines().nth(1).unwrap().contains("OP"), "{t}");
    let body: Vec<&str> = t.lines().skip(2).collect();
    assert!(body.iter().any(|l| l.contains(" seal ")), "{t}");
    assert!(body.iter().any(|l| l.contains(" open ")), "{t}");

    let err = fails(
        &[
            "speed",
            "gcm(aes)",
            "--key-bits",
            "100",
            "--time-ms",
            "1",
            "--config",
            c,
        ],
        2,
    );
    assert!(err.contains("--key-bits 100"), "{err}");
    fails(
        &[
            "speed",
            "gcm(aes)",
            "--aad",
            "70000",
            "--time-ms",
            "1",
            "--config",
            c,
        ],
        2,
    );
}

/// Hashes get one digest row per driver and size; GHASH is keyed (128-bit key).
#[test]
fn speed_hash_digest_rows() {
    let dir = TempDir::new("speedhash");
    let cfg = dir.file("off.toml", OFF);
    let c = arg(&cfg);
    let rows = json(&[
        "speed",
        "ghash",
        "--sizes",
        "16",
        "4096",
        "--time-ms",
        "2",
        "--json",
        "--config",
        c,
    ]);
    let rows = rows.as_array().unwrap();
    for r in rows {
        assert!([16, 4096].contains(&r["size"].as_u64().unwrap()), "{r}");
        assert!(r["bytes_per_sec"].as_u64().unwrap() > 0, "{r}");
        assert!(r.get("op").is_none(), "{r}");
    }
    for size in [16, 4096] {
        assert!(
            rows.iter()
                .any(|r| r["driver"] == "ghash-generic" && r["size"] == size),
            "{rows:?}"
        );
    }
    let t = text(&[
        "speed",
        "ghash",
        "--sizes",
        "64",
        "--time-ms",
        "1",
        "--config",
        c,
    ]);
    assert!(
        t.lines()
            .next()
            .unwrap()
            .contains("128-bit key, one-shot digest"),
        "{t}"
    );
    assert!(t.contains("ghash-generic"), "{t}");
}

/// `kat` and `off` say what they leave untested; an algorithm left with no usable driver
/// fails the command even though every failure was excluded as configured.
#[test]
fn selftest_warns_and_fails_when_an_algorithm_has_no_driver() {
    let dir = TempDir::new("stwarn");
    let off = dir.file("off.toml", OFF);
    let v = json(&["selftest", "--json", "--config", arg(&off)]);
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w.as_str().unwrap().contains("off")),
        "{v:#}"
    );
    let kat = dir.file("kat.toml", "[selftest]\nmode = \"kat\"\n");
    let text = text(&["selftest", "--config", arg(&kat)]);
    assert!(text.contains("warning: self-tests in kat mode"), "{text}");

    let no_ref = dir.file(
        "noref.toml",
        "[selftest]\nfuzz_iterations = 10\n[disable]\ndrivers = [\"aes-generic\"]\n",
    );
    let stderr = fails(&["selftest", "--config", arg(&no_ref)], 1);
    assert!(stderr.contains("no usable driver"), "{stderr}");
    assert!(stderr.contains("xts(aes)"), "{stderr}");
}

/// `selftest --driver D --cpu-id N` runs pinned to that CPU and says so; a CPU outside the
/// process's affinity mask is refused before anything runs.
#[cfg(target_os = "linux")]
#[test]
fn selftest_cpu_id_pins_the_run_and_refuses_a_cpu_outside_the_mask() {
    let cpus = cryptoreg::affinity::process_cpus();
    let last = cpus.last().unwrap().to_string();
    let out = text(&["selftest", "--driver", "aes-generic", "--cpu-id", &last]);
    assert!(out.contains(&format!(", on cpu {last}; ")), "{out}");
    let every = text(&["selftest", "--driver", "aes-generic"]);
    let list: Vec<String> = cpus.iter().map(usize::to_string).collect();
    assert!(
        every.contains(&format!(", on cpus {}; ", list.join(", "))),
        "{every}"
    );
    let e = fails(
        &["selftest", "--driver", "aes-generic", "--cpu-id", "4096"],
        1,
    );
    assert!(
        e.contains("cpu 4096 is not one this process may run on"),
        "{e}"
    );
    // --cpu-id names where one driver's test runs: without --driver it is a usage error.
    fails(&["selftest", "--cpu-id", "0"], 2);
}

#[test]
fn rescan_offline_retests_every_chosen_driver_on_every_cpu() {
    let dir = TempDir::new("rescan");
    let cfg = dir.file("kat.toml", "[selftest]\nmode = \"kat\"\n");
    let v = json(&["rescan", "--json", "--config", arg(&cfg)]);
    let drivers = v["drivers"].as_array().unwrap();
    let chosen = json(&["explain", "gcm(aes)", "--json", "--config", arg(&cfg)]);
    let chosen = chosen["chosen"].as_str().unwrap();
    let row = drivers
        .iter()
        .find(|d| d["driver"] == chosen)
        .unwrap_or_else(|| panic!("{chosen} not re-tested: {v:#}"));
    assert_eq!(row["name"], "gcm(aes)");
    assert!(row["tests"].as_u64() > Some(0), "{row}");
    assert_eq!(row["failures"].as_array().map(Vec::len), Some(0), "{row}");
    assert_eq!(row["cpus"], v["cpus"]);
    let human = text(&["rescan", "--config", arg(&cfg)]);
    assert!(
        human.starts_with("rescan: ") && human.contains("all passed"),
        "{human}"
    );
    // With self-tests off there is nothing to re-test with.
    let off = dir.file("off.toml", OFF);
    let none = json(&["rescan", "--json", "--config", arg(&off)]);
    assert_eq!(
        none["drivers"].as_array().map(Vec::len),
        Some(0),
        "{none:#}"
    );
}

#[test]
fn calibrate_times_the_drivers_of_a_name_and_says_what_it_would_choose() {
    let dir = TempDir::new("calibrate");
    let cfg = dir.file("kat.toml", "[selftest]\nmode = \"kat\"\n");
    // A common name is accepted, as explain and speed accept it.
    let v = json(&["calibrate", "aes-128-ctr", "--json", "--config", arg(&cfg)]);
    let c = &v.as_array().unwrap()[0];
    assert_eq!(c["name"], "ctr(aes)");
    assert_eq!(c["sizes"], serde_json::json!([1420, 16384]));
    let cands = c["candidates"].as_array().unwrap();
    assert!(!cands.is_empty(), "{c:#}");
    for m in cands {
        assert_eq!(m["mbps"].as_array().map(Vec::len), Some(2), "{m}");
    }
    let choice = c["choice"].as_str().unwrap();
    assert!(cands.iter().any(|m| m["driver"] == choice), "{c:#}");
    let human = text(&["calibrate", "ctr(aes)", "--config", arg(&cfg)]);
    assert!(human.starts_with("ctr(aes): "), "{human}");
    assert!(human.contains(&format!("* {choice} ")), "{human}");
    let e = fails(&["calibrate", "no-such-alg", "--config", arg(&cfg)], 2);
    assert!(e.contains("no-such-alg"), "{e}");
    fails(&["--socket", "/nonexistent", "calibrate"], 2);
}
