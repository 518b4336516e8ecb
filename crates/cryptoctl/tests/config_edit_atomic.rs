//! The configuration editors lock the file and replace it atomically: concurrent editors
//! lose no edit and no section, a concurrent reader never sees an empty or half-written
//! file (an empty file is a valid configuration: a booting service would lose its
//! disables), and the file keeps its permissions and its symlink.

mod common;

use std::process::Child;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::*;

/// Twelve registered concrete drivers, whatever this host links.
fn twelve_drivers(cfg: &str) -> Vec<String> {
    let list = json(&["list", "--json", "--config", cfg]);
    let mut drivers: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["instance"] != true)
        .map(|e| e["driver"].as_str().unwrap().to_string())
        .collect();
    drivers.sort();
    assert!(drivers.len() >= 12, "{drivers:?}");
    drivers.truncate(12);
    drivers
}

fn wait_all(children: Vec<Child>, deadline: Instant) {
    for mut c in children {
        loop {
            if let Some(status) = c.try_wait().unwrap() {
                assert!(status.success(), "an editor failed: {status}");
                break;
            }
            if Instant::now() > deadline {
                let _ = c.kill();
                panic!("editors did not finish in time");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

#[test]
fn concurrent_editors_lose_nothing_and_readers_never_see_a_partial_file() {
    let dir = TempDir::new("concurrent");
    let original = "# operator notes\n[selftest]\nmode = \"off\" # fast boots\n";
    let cfg = dir.file("svc.toml", original);
    let c = arg(&cfg).to_string();
    let drivers = twelve_drivers(&c);

    let stop = AtomicBool::new(false);
    let reads = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let reader = s.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                let text = std::fs::read_to_string(&cfg).unwrap();
                assert!(!text.is_empty(), "reader saw an empty file");
                let parsed = cryptoreg::Config::parse(&text, "svc.toml")
                    .unwrap_or_else(|e| panic!("reader saw an unparsable file: {e}\n{text}"));
                assert_eq!(parsed.selftest.mode, cryptoreg::SelftestMode::Off, "{text}");
                reads.fetch_add(1, Ordering::Relaxed);
            }
        });
        let children: Vec<Child> = drivers
            .iter()
            .enumerate()
            .map(|(i, d)| {
                cryptoctl()
                    .args(["--config", &c, "set-priority", d, &(1000 + i).to_string()])
                    .stdout(std::process::Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        wait_all(children, Instant::now() + Duration::from_secs(120));
        stop.store(true, Ordering::Relaxed);
        reader.join().unwrap();
    });
    assert!(reads.load(Ordering::Relaxed) > 0);

    let text = std::fs::read_to_string(&cfg).unwrap();
    assert!(text.starts_with(original), "{text}");
    let parsed = cryptoreg::Config::parse(&text, "svc.toml").unwrap();
    for (i, d) in drivers.iter().enumerate() {
        assert_eq!(
            parsed.priority.get(d),
            Some(&(1000 + i as u32)),
            "{d}: {text}"
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "svc.toml" && n != "svc.toml.lock")
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[cfg(unix)]
#[test]
fn edits_keep_permissions_and_symlinks() {
    use std::os::unix::fs::PermissionsExt;

    let dir = TempDir::new("perm");
    let cfg = dir.file("svc.toml", OFF);
    std::fs::set_permissions(&cfg, std::fs::Permissions::from_mode(0o640)).unwrap();
    text(&["--config", arg(&cfg), "set-priority", "aes-generic", "50"]);
    let mode = std::fs::metadata(&cfg).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o640);
    assert!(std::fs::read_to_string(&cfg)
        .unwrap()
        .contains("\"aes-generic\" = 50"));

    let target_dir = dir.path().join("real");
    std::fs::create_dir(&target_dir).unwrap();
    let target = target_dir.join("target.toml");
    std::fs::write(&target, OFF).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.path().join("link.toml");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    text(&["--config", arg(&link), "disable", "aes-generic"]);
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_link(&link).unwrap(), target);
    let edited = std::fs::read_to_string(&target).unwrap();
    assert!(edited.contains("drivers = [\"aes-generic\"]"), "{edited}");
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o600);
}
