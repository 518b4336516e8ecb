//! The control socket: every operation, the permission model, robustness against bad
//! clients, and no lock shared with requests on allocated handles.

#![cfg(unix)]

mod common;

use common::rung;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cryptoreg::control::{serve, Client, Request, ServeOptions};
use cryptoreg::{Change, ChangeEffect, Explanation, ListEntry, Registry};

/// A fresh directory under the temp dir, removed on drop; the socket goes in `sub/`.
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("cryptoreg-ctl-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        Dir(d)
    }
    fn sock(&self) -> PathBuf {
        self.0.join("sub").join("ctl.sock")
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Known answers only, on a simulated Westmere (AES-NI, no AVX).
fn registry() -> Arc<Registry> {
    Arc::new(common::boot(&common::kat_config(""), Some(rung::PRESET)))
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn raw_line(stream: &mut UnixStream, line: &[u8]) -> String {
    stream.write_all(line).unwrap();
    let mut r = BufReader::new(stream.try_clone().unwrap());
    let mut s = String::new();
    r.read_line(&mut s).unwrap();
    s
}

#[test]
fn every_operation_over_the_socket() {
    let dir = Dir::new("ops");
    let reg = registry();
    let guard = serve(Arc::clone(&reg), dir.sock(), ServeOptions::default()).unwrap();
    assert_eq!(mode(&dir.sock()), 0o600);
    assert_eq!(mode(dir.sock().parent().unwrap()), 0o700);

    let mut c = Client::connect(&dir.sock()).unwrap();
    let list: Vec<ListEntry> =
        serde_json::from_value(c.call(&Request::new("list")).unwrap()).unwrap();
    assert!(list.iter().any(|e| e.driver == rung::XTS));
    let ex: Explanation =
        serde_json::from_value(c.call(&Request::new("explain").name("xts(aes)")).unwrap()).unwrap();
    assert_eq!(ex.chosen.as_deref(), Some(rung::XTS));
    let report = c.call(&Request::new("report")).unwrap();
    assert_eq!(report["mode"], "kat");
    let h = reg.alloc_skcipher("xts(aes)").unwrap();
    let stats = c.call(&Request::new("stats")).unwrap();
    let row = stats
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["driver"] == rung::XTS)
        .unwrap();
    assert_eq!(row["refcnt"], 1);
    let g0 = c
        .call(&Request::new("generation"))
        .unwrap()
        .as_u64()
        .unwrap();

    let ch: Change = serde_json::from_value(
        c.call(&Request::new("set-priority").driver(rung::XTS).priority(50))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        (ch.old.as_str(), ch.new.as_str(), ch.effect),
        (
            rung::XTS_PRIORITY.to_string().as_str(),
            "50",
            ChangeEffect::Applied
        )
    );
    assert!(!h.is_current());
    assert_ne!(reg.generation(), g0);
    assert_ne!(reg.resolve("xts(aes)").unwrap().driver(), rung::XTS);
    c.call(&Request::new("clear-priority").driver(rung::XTS))
        .unwrap();
    assert_eq!(reg.resolve("xts(aes)").unwrap().driver(), rung::XTS);
    c.call(&Request::new("disable").driver(rung::XTS)).unwrap();
    assert!(reg.resolve(rung::XTS).is_err());
    c.call(&Request::new("enable").driver(rung::XTS)).unwrap();
    assert!(reg.resolve(rung::XTS).is_ok());
    // Aliases are accepted and answered with the current name.
    let ch: Change = serde_json::from_value(
        c.call(
            &Request::new("set-priority")
                .driver("xts-aes-vaes-avx512")
                .priority(3),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(ch.driver, "xts-aes-vaes-avx10_512");

    // Errors are answers, and the connection goes on.
    let err = |c: &mut Client, r: Request| c.call(&r).unwrap_err().to_string();
    assert!(err(&mut c, Request::new("frobnicate")).contains("unknown operation"));
    assert!(err(&mut c, Request::new("set-priority").driver(rung::XTS)).contains("priority"));
    assert!(err(&mut c, Request::new("disable")).contains("driver"));
    assert!(err(&mut c, Request::new("explain")).contains("name"));
    assert!(
        err(&mut c, Request::new("disable").driver("no-such-driver")).contains("no-such-driver")
    );
    let mut v2 = Request::new("list");
    v2.v = 2;
    assert!(err(&mut c, v2).contains("protocol version"));
    // Booted without a file, reload needs a path; with one it applies it.
    assert!(err(&mut c, Request::new("reload")).contains("path"));
    let cfg = dir.0.join("new.toml");
    std::fs::write(
        &cfg,
        common::kat_config(&rung::on_arch("[priority]\n\"xts-aes-aesni\" = 20\n")),
    )
    .unwrap();
    let changes: Vec<Change> =
        serde_json::from_value(c.call(&Request::new("reload").path(&cfg)).unwrap()).unwrap();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].effect, ChangeEffect::Applied);
    assert_ne!(reg.resolve("xts(aes)").unwrap().driver(), rung::XTS);

    // A second server on the same path is refused; the guard removes the socket.
    assert!(serve(Arc::clone(&reg), dir.sock(), ServeOptions::default()).is_err());
    drop(guard);
    assert!(!dir.sock().exists());
    assert!(UnixStream::connect(dir.sock()).is_err());
}

#[test]
fn bad_clients_get_errors_or_closed_connections() {
    let dir = Dir::new("bad");
    let reg = registry();
    let opts = ServeOptions::default()
        .read_timeout(Duration::from_millis(300))
        .max_connections(2);
    let _guard = serve(Arc::clone(&reg), dir.sock(), opts).unwrap();

    // Malformed JSON and binary garbage: error answers, the connection stays usable.
    let mut s = UnixStream::connect(dir.sock()).unwrap();
    assert!(raw_line(&mut s, b"{not json\n").contains("malformed request"));
    assert!(raw_line(&mut s, b"\xff\xfe\x00\x01\n").contains("\"ok\":false"));
    assert!(raw_line(&mut s, b"[1,2,3]\n").contains("malformed"));
    assert!(raw_line(&mut s, b"{\"v\":1,\"op\":\"list\",\"extra\":1}\n").contains("malformed"));
    assert!(raw_line(&mut s, b"{\"v\":1,\"op\":\"generation\"}\n").contains("\"ok\":true"));
    drop(s);

    // Over 64 KiB: an error answer, then the connection is closed.
    let mut s = UnixStream::connect(dir.sock()).unwrap();
    let big = vec![b'a'; 70 * 1024];
    let _ = s.write_all(&big);
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut answer = String::new();
    r.read_line(&mut answer).unwrap();
    assert!(answer.contains("larger than 65536"), "{answer}");
    let mut rest = Vec::new();
    assert_eq!(r.read_to_end(&mut rest).unwrap_or(0), 0);

    // A silent client is disconnected after the read timeout.
    let mut silent = UnixStream::connect(dir.sock()).unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let t = Instant::now();
    let mut buf = [0u8; 16];
    assert_eq!(silent.read(&mut buf).unwrap_or(0), 0);
    assert!(t.elapsed() < Duration::from_secs(4));

    // At most two at once: the third gets an error answer and is closed.
    let mut a = Client::connect(&dir.sock()).unwrap();
    let mut b = Client::connect(&dir.sock()).unwrap();
    a.call(&Request::new("generation")).unwrap();
    b.call(&Request::new("generation")).unwrap();
    let mut third = UnixStream::connect(dir.sock()).unwrap();
    third
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut answer = String::new();
    BufReader::new(&mut third).read_line(&mut answer).unwrap();
    assert!(answer.contains("too many connections"), "{answer}");
    drop((a, b));
    // Slots are released: a new client is served again.
    let t = Instant::now();
    loop {
        let mut c = Client::connect(&dir.sock()).unwrap();
        match c.call(&Request::new("generation")) {
            Ok(_) => break,
            Err(e) if t.elapsed() < Duration::from_secs(5) => {
                assert!(e.to_string().contains("too many"), "{e}");
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("{e}"),
        }
    }
}

/// Keys, inputs and the outputs every thread must reproduce, computed before the test.
fn reference(reg: &Registry, n: usize) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let mut h = reg.alloc_skcipher(rung::XTS).unwrap();
    (0..n)
        .map(|i| {
            let key = common::xts_key(i as u64 + 10, 64);
            let data = common::bytes(i as u64, 16 + 37 * i);
            h.set_key(&key).unwrap();
            let mut out = data.clone();
            h.encrypt_in_place(&[i as u8; 16], &mut out).unwrap();
            (key, data, out)
        })
        .collect()
}

#[test]
fn handles_keep_encrypting_while_the_admin_side_is_locked() {
    let reg = registry();
    let cases = reference(&reg, 4);
    let handles: Vec<cryptoreg::Skcipher> = cases
        .iter()
        .map(|(key, ..)| {
            let mut h = reg.alloc_skcipher("xts(aes)").unwrap();
            h.set_key(key).unwrap();
            h
        })
        .collect();
    let (tx, rx) = std::sync::mpsc::channel();
    reg.with_table_locked_for_test(|| {
        std::thread::scope(|s| {
            for (i, (h, (_, data, want))) in handles.iter().zip(&cases).enumerate() {
                let tx = tx.clone();
                s.spawn(move || {
                    for _ in 0..200 {
                        let mut out = data.clone();
                        h.encrypt_in_place(&[i as u8; 16], &mut out).unwrap();
                        assert_eq!(&out, want);
                    }
                    tx.send(i).unwrap();
                });
            }
            // Every thread finishes while the lock is held (a request that waited for
            // it would never finish: fail instead of hanging).
            for _ in 0..handles.len() {
                rx.recv_timeout(Duration::from_secs(20))
                    .expect("a request waited for the admin lock");
            }
        });
    });
    let stats = reg.stats();
    let row = stats.iter().find(|s| s.driver == rung::XTS).unwrap();
    assert_eq!(row.requests, 4 + 4 * 200);
}

#[test]
fn a_flood_of_bad_input_and_changes_never_disturbs_encryption() {
    let dir = Dir::new("flood");
    let reg = registry();
    let opts = ServeOptions::default().read_timeout(Duration::from_millis(200));
    let _guard = serve(Arc::clone(&reg), dir.sock(), opts).unwrap();
    let cases = reference(&reg, 6);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let mut workers = Vec::new();
        for (i, (key, data, want)) in cases.iter().enumerate() {
            let reg = &reg;
            let stop = &stop;
            workers.push(s.spawn(move || {
                let mut n = 0u32;
                while !stop.load(Ordering::Relaxed) || n < 50 {
                    // Re-allocate now and then, as a service would when not current.
                    let mut h = reg.alloc_skcipher("xts(aes)").unwrap();
                    h.set_key(key).unwrap();
                    for _ in 0..20 {
                        let mut out = data.clone();
                        h.encrypt_in_place(&[i as u8; 16], &mut out).unwrap();
                        assert_eq!(&out, want, "{}", h.driver_name());
                        n += 1;
                    }
                }
                n
            }));
        }
        let sock = dir.sock();
        let flood = s.spawn(move || {
            let junk: Vec<Vec<u8>> = vec![
                b"{\n".to_vec(),
                vec![b'x'; 80 * 1024],
                b"{\"v\":1,\"op\":\"nope\"}\n".to_vec(),
                rung::on_arch(
                    "{\"v\":1,\"op\":\"set-priority\",\"driver\":\"xts-aes-aesni\",\"priority\":1}\n",
                )
                .into_bytes(),
                rung::on_arch("{\"v\":1,\"op\":\"disable\",\"driver\":\"xts-aes-aesni\"}\n").into_bytes(),
                rung::on_arch("{\"v\":1,\"op\":\"enable\",\"driver\":\"xts-aes-aesni\"}\n").into_bytes(),
                rung::on_arch("{\"v\":1,\"op\":\"clear-priority\",\"driver\":\"xts-aes-aesni\"}\n").into_bytes(),
                b"\x00\x00\x00".to_vec(),
            ];
            for round in 0..60 {
                let Ok(mut c) = UnixStream::connect(&sock) else {
                    continue;
                };
                let _ = c.write_all(&junk[round % junk.len()]);
                if round % 3 == 0 {
                    let mut buf = Vec::new();
                    let _ = c.set_read_timeout(Some(Duration::from_secs(2)));
                    let _ = BufReader::new(&mut c).read_until(b'\n', &mut buf);
                }
            }
        });
        flood.join().unwrap();
        stop.store(true, Ordering::Relaxed);
        for w in workers {
            assert!(w.join().unwrap() >= 50);
        }
    });
    // The server is still there and answers.
    let mut c = Client::connect(&dir.sock()).unwrap();
    c.call(&Request::new("list")).unwrap();
}

/// Runs as a child under another uid (see `peers_are_checked`): sends the request in
/// `CRYPTOREG_TEST_REQUEST` to `CRYPTOREG_TEST_SOCKET` and prints the answer line.
#[test]
fn peer_client_helper() {
    let (Ok(sock), Ok(req)) = (
        std::env::var("CRYPTOREG_TEST_SOCKET"),
        std::env::var("CRYPTOREG_TEST_REQUEST"),
    ) else {
        return;
    };
    match UnixStream::connect(&sock) {
        Ok(mut s) => println!(
            "ANSWER {}",
            raw_line(&mut s, format!("{req}\n").as_bytes()).trim()
        ),
        Err(e) => println!("ANSWER connect: {e}"),
    }
}

/// A command that runs `exe`, through the runner cargo runs this target's binaries with
/// when one is set (`CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER` under QEMU's user-mode
/// emulator, where an emulated process cannot exec an arm64 binary by itself).
fn runner_command(exe: &std::path::Path) -> std::process::Command {
    let runner = if cfg!(all(
        target_arch = "aarch64",
        target_os = "linux",
        target_env = "gnu"
    )) {
        std::env::var("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER").unwrap_or_default()
    } else {
        String::new()
    };
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut c = std::process::Command::new(program);
            c.args(words).arg(exe);
            c
        }
        None => std::process::Command::new(exe),
    }
}

#[test]
fn peers_are_checked() {
    use std::os::unix::process::CommandExt;
    // Runs a client under another uid, which needs root (as CI and our machines run):
    // fail loudly rather than pass without checking.
    assert!(
        nix_is_root(),
        "peers_are_checked needs root to run a client as another uid"
    );
    let dir = Dir::new("peer");
    let reg = registry();
    const NOBODY: u32 = 65534;
    const READ_GROUP: u32 = 65533;
    let opts = ServeOptions::default().read_group(READ_GROUP);
    let _guard = serve(Arc::clone(&reg), dir.sock(), opts).unwrap();
    assert_eq!(mode(&dir.sock()), 0o660);
    assert_eq!(mode(dir.sock().parent().unwrap()), 0o710);
    let exe = std::env::current_exe().unwrap();
    let as_peer = |gid: u32, req: &str| -> String {
        // Through the configured runner under emulation (see `runner_command`).
        let out = runner_command(&exe)
            .args([
                "--exact",
                "peer_client_helper",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("CRYPTOREG_TEST_SOCKET", dir.sock())
            .env("CRYPTOREG_TEST_REQUEST", req)
            .uid(NOBODY)
            .gid(gid)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        text.lines()
            .find_map(|l| l.split_once("ANSWER ").map(|(_, a)| a))
            .unwrap_or_else(|| panic!("no answer: {text} {}", String::from_utf8_lossy(&out.stderr)))
            .to_string()
    };
    // A read-group member (by its gid) may read, not change.
    let a = as_peer(READ_GROUP, r#"{"v":1,"op":"list"}"#);
    assert!(a.contains("\"ok\":true"), "{a}");
    let a = as_peer(
        READ_GROUP,
        &rung::on_arch(r#"{"v":1,"op":"disable","driver":"xts-aes-aesni"}"#),
    );
    assert!(a.contains("permission denied"), "{a}");
    assert!(reg.resolve(rung::XTS).is_ok());
    // Outside the group, the file permissions already keep it out.
    let a = as_peer(NOBODY, r#"{"v":1,"op":"list"}"#);
    assert!(a.contains("connect:"), "{a}");
    // Even where the file permissions are opened up by mistake, the credential check
    // refuses it with an error answer.
    std::fs::set_permissions(
        dir.sock().parent().unwrap(),
        std::fs::Permissions::from_mode(0o711),
    )
    .unwrap();
    std::fs::set_permissions(dir.sock(), std::fs::Permissions::from_mode(0o666)).unwrap();
    let a = as_peer(NOBODY, r#"{"v":1,"op":"list"}"#);
    assert!(a.contains("permission denied"), "{a}");
}

fn nix_is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false)
}
