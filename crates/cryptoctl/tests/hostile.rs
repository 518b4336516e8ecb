//! What a hostile or careless operator tried: other spellings of names, names that
//! overflowed the stack, a configuration file without end, typos in template-shaped
//! configuration names. Each must be a clean usage error (exit 2), quickly.

mod common;

use std::time::{Duration, Instant};

use common::*;

#[test]
fn explain_refuses_other_spellings_of_a_name() {
    let dir = TempDir::new("spell");
    let cfg = dir.file("off.toml", OFF);
    for (name, what) in [
        ("ctr( aes)", "' '"),
        ("ctr(aes )", "' '"),
        ("ctr(\taes)", "'\\t'"),
        ("ctr(\u{a0}aes)", "U+00A0"),
        ("ctr(aes)\u{2028}", "U+2028"),
        ("ctr(\u{3000}aes)", "U+3000"),
        ("CTR(aes)", "'C'"),
    ] {
        let err = fails(&["explain", name, "--config", arg(&cfg)], 2);
        assert!(err.contains("invalid algorithm name"), "{name:?}: {err}");
        assert!(err.contains(what), "{name:?}: {err}");
    }
}

#[test]
fn deeply_nested_names_are_refused_without_overflowing_the_stack() {
    let dir = TempDir::new("deep");
    let cfg = dir.file("off.toml", OFF);
    let start = Instant::now();
    let huge = format!("{}aes{}", "x(".repeat(40_000), ")".repeat(40_000));
    let err = fails(
        &["speed", &huge, "--time-ms", "1", "--config", arg(&cfg)],
        2,
    );
    assert!(
        err.contains("longer than 128"),
        "{}",
        &err[..err.len().min(300)]
    );
    assert!(err.len() < 1000, "the error does not echo the whole name");
    let deep = format!("{}aes{}", "ctr(".repeat(17), ")".repeat(17));
    let err = fails(&["explain", &deep, "--config", arg(&cfg)], 2);
    assert!(err.contains("nested deeper than 16"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(60));
}

#[test]
fn oversized_configuration_files_are_refused() {
    let dir = TempDir::new("big");
    // One byte over the 1 MiB cap, all of it a valid TOML comment.
    let mut text = String::from(OFF);
    text.push('#');
    text.push_str(&"x".repeat((1 << 20) + 1 - text.len()));
    assert_eq!(text.len(), (1 << 20) + 1);
    let cfg = dir.file("big.toml", &text);
    let err = fails(&["list", "--config", arg(&cfg)], 2);
    assert!(err.contains("big.toml"), "{err}");
    assert!(err.contains("1 MiB"), "{err}");
    let err = fails(&["--config", arg(&cfg), "disable", "aes-generic"], 2);
    assert!(err.contains("1 MiB"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&cfg).unwrap(),
        text,
        "file untouched"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn devices_as_configuration_are_refused_quickly() {
    for dev in ["/dev/zero", "/dev/null"] {
        let start = Instant::now();
        let err = fails(&["list", "--config", dev], 2);
        assert!(err.contains(dev), "{err}");
        assert!(
            err.contains("a character device, not a regular file"),
            "{err}"
        );
        assert!(start.elapsed() < Duration::from_secs(30));
    }
}

/// `--config FIFO` used to block forever in `open` (no writer ever comes).
#[cfg(unix)]
#[test]
fn a_fifo_as_configuration_is_refused_at_once() {
    let dir = TempDir::new("fifocfg");
    let fifo = dir.path().join("svc.toml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let mut child = cryptoctl()
        .args(["list", "--config", arg(&fifo)])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("cryptoctl --config FIFO blocked");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("a FIFO (named pipe), not a regular file"),
        "{err}"
    );
}

#[test]
fn template_shaped_configuration_names_are_checked() {
    let dir = TempDir::new("tmplcfg");
    for (body, bad, line) in [
        (
            "[priority]\n\"xts(ecb(aes-generc))\" = 5\n",
            "aes-generc",
            4,
        ),
        ("[disable]\ndrivers = [\"nope(x)\"]\n", "nope", 4),
    ] {
        let cfg = dir.file("svc.toml", &format!("{OFF}{body}"));
        let err = fails(&["list", "--config", arg(&cfg)], 2);
        assert!(err.contains(bad), "{err}");
        assert!(err.contains("svc.toml"), "{err}");
        assert!(err.contains(&format!("line {line}")), "{err}");
    }
    let cfg = dir.file(
        "ok.toml",
        &format!("{OFF}[priority]\n\"xts(ecb(aes-generic))\" = 5\n"),
    );
    json(&["list", "--json", "--config", arg(&cfg)]);
}
