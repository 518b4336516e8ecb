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
    // One re-verification pass of the drivers in use (the handle's), with what it
    // tested where; a pass that finds nothing changes nothing.
    let rescan: cryptoreg::RescanReport =
        serde_json::from_value(c.call(&Request::new("rescan")).unwrap()).unwrap();
    let row = rescan
        .drivers
        .iter()
        .find(|d| d.driver == rung::XTS)
        .unwrap_or_else(|| panic!("{rescan}"));
    assert!(row.failures.is_empty() && row.tests > 0, "{rescan}");
    assert_eq!(reg.generation(), g0);

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
    // The rung's only concrete `xts(aes)` driver stays chosen however low it goes:
    // template instances are the fallback, reached by disabling it.
    assert_eq!(reg.resolve("xts(aes)").unwrap().driver(), rung::XTS);
    c.call(&Request::new("clear-priority").driver(rung::XTS))
        .unwrap();
    assert_eq!(reg.resolve("xts(aes)").unwrap().driver(), rung::XTS);
    c.call(&Request::new("disable").driver(rung::XTS)).unwrap();
    assert!(reg.resolve(rung::XTS).is_err());
    assert_eq!(
        reg.resolve("xts(aes)").unwrap().driver(),
        rung::XTS_INSTANCE
    );
    c.call(&Request::new("enable").driver(rung::XTS)).unwrap();
    assert!(reg.resolve(rung::XTS).is_ok());
    assert_eq!(reg.resolve("xts(aes)").unwrap().driver(), rung::XTS);
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
        common::kat_config(&rung::on_arch("[priority]\n\"xts(ecb-aes-aesni)\" = 600\n")),
    )
    .unwrap();
    let changes: Vec<Change> =
        serde_json::from_value(c.call(&Request::new("reload").path(&cfg)).unwrap()).unwrap();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].effect, ChangeEffect::Applied);
    assert_eq!(
        reg.resolve("xts(aes)").unwrap().driver(),
        rung::XTS_INSTANCE,
        "an instance given a priority competes like a driver"
    );
    // A FIFO (no writer ever comes) is refused at once instead of pinning the thread.
    let fifo = dir.0.join("fifo.toml");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let t = Instant::now();
    let e = err(&mut c, Request::new("reload").path(&fifo));
    assert!(e.contains("a FIFO (named pipe), not a regular file"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(5));

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

    // A silent client gets an error answer and is disconnected at the deadline.
    let mut silent = UnixStream::connect(dir.sock()).unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let t = Instant::now();
    let mut rest = String::new();
    let _ = silent.read_to_string(&mut rest);
    assert!(
        rest.contains("no complete request line within 300 ms"),
        "{rest}"
    );
    assert!(t.elapsed() < Duration::from_secs(4));

    // The deadline is for the whole line, not for each read: a client sending a byte
    // every 50 ms (far inside the 300 ms timeout) is still closed at 300 ms.
    let mut trickle = UnixStream::connect(dir.sock()).unwrap();
    let t = Instant::now();
    let mut reader = trickle.try_clone().unwrap();
    reader
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let answer = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = reader.read_to_string(&mut rest);
        (rest, t.elapsed())
    });
    while !answer.is_finished() && t.elapsed() < Duration::from_secs(5) {
        let _ = trickle.write_all(b" ");
        std::thread::sleep(Duration::from_millis(50));
    }
    let (rest, took) = answer.join().unwrap();
    assert!(rest.contains("no complete request line"), "{rest}");
    assert!(
        took >= Duration::from_millis(290) && took < Duration::from_secs(2),
        "{took:?}"
    );
    // The deadline restarts after each answer: requests 200 ms apart go on past 300 ms.
    // (After a pause: a closed connection's slot is released just after its close.)
    std::thread::sleep(Duration::from_millis(100));
    let mut c = Client::connect(&dir.sock()).unwrap();
    for _ in 0..3 {
        c.call(&Request::new("generation")).unwrap();
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(c);
    std::thread::sleep(Duration::from_millis(100));

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

fn gid(p: &Path) -> u32 {
    std::os::unix::fs::MetadataExt::gid(&std::fs::metadata(p).unwrap())
}

#[test]
fn an_existing_directory_is_checked_and_left_as_it_is() {
    let dir = Dir::new("existing");
    let reg = registry();
    let sub = dir.sock().parent().unwrap().to_path_buf();
    std::fs::create_dir(&sub).unwrap();
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Another group than ours, where we may set one (root), to see it is kept.
    let group = if nix_is_root() { 65533 } else { gid(&sub) };
    let _ = std::os::unix::fs::chown(&sub, None, Some(group));
    let group = gid(&sub);
    {
        let _guard = serve(Arc::clone(&reg), dir.sock(), ServeOptions::default()).unwrap();
        assert_eq!((mode(&sub), gid(&sub)), (0o755, group));
        assert_eq!(mode(&dir.sock()), 0o600);
        Client::connect(&dir.sock())
            .unwrap()
            .call(&Request::new("generation"))
            .unwrap();
    }
    assert!(!dir.sock().exists());
    assert_eq!((mode(&sub), gid(&sub)), (0o755, group));

    // Writable by others: refused, and still not changed.
    for bad in [0o775, 0o757] {
        std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(bad)).unwrap();
        let err = serve(Arc::clone(&reg), dir.sock(), ServeOptions::default())
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("lets others write"), "{err}");
        assert_eq!(mode(&sub), bad);
    }

    // A read group that cannot traverse the directory: refused, naming the mode needed.
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o700)).unwrap();
    let other = group.wrapping_add(1);
    let err = serve(
        Arc::clone(&reg),
        dir.sock(),
        ServeOptions::default().read_group(other),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        err.contains(&format!("needs group {other} and mode 0710")),
        "{err}"
    );
    assert_eq!((mode(&sub), gid(&sub)), (0o700, group));
    // Traversable by the group (its group, mode 0710): accepted, unchanged.
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o710)).unwrap();
    let g = serve(
        Arc::clone(&reg),
        dir.sock(),
        ServeOptions::default().read_group(group),
    )
    .unwrap();
    assert_eq!((mode(&sub), gid(&sub)), (0o710, group));
    assert_eq!(mode(&dir.sock()), 0o660);
    drop(g);
}

#[test]
fn a_symlinked_directory_is_refused_and_earlier_symlinks_are_followed() {
    let dir = Dir::new("symlink");
    let reg = registry();
    // The last directory is a symlink (to a directory that would pass every check).
    let real = dir.0.join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink(&real, dir.0.join("sub")).unwrap();
    let err = serve(Arc::clone(&reg), dir.sock(), ServeOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("is a symbolic link"), "{err}");
    assert_eq!(mode(&real), 0o755);
    assert!(!real.join("ctl.sock").exists());

    // A symlink earlier in the path (like /var/run -> /run) is fine.
    let sock = dir.0.join("sub").join("inner").join("ctl.sock");
    let guard = serve(Arc::clone(&reg), &sock, ServeOptions::default()).unwrap();
    assert_eq!(mode(&real.join("inner")), 0o700);
    Client::connect(&sock)
        .unwrap()
        .call(&Request::new("generation"))
        .unwrap();
    drop(guard);
    assert!(!real.join("inner").join("ctl.sock").exists());
    assert_eq!(mode(&real), 0o755);
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

/// Runs as a child under another uid (see `trickling_readers_cannot_lock_the_owner_out`):
/// connects to `CRYPTOREG_TEST_TRICKLE`, sends a byte every 100 ms and never a newline
/// (for at most 10 s), and prints the answer and how long the connection lived.
#[test]
fn trickle_client_helper() {
    let Ok(sock) = std::env::var("CRYPTOREG_TEST_TRICKLE") else {
        return;
    };
    let mut s = match UnixStream::connect(&sock) {
        Ok(s) => s,
        Err(e) => return println!("ANSWER connect: {e}"),
    };
    let t = Instant::now();
    let _ = s.write_all(b"{");
    println!("CONNECTED");
    let mut reader = s.try_clone().unwrap();
    let answer = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = reader.read_to_string(&mut rest);
        (rest, t.elapsed())
    });
    while !answer.is_finished() && t.elapsed() < Duration::from_secs(10) {
        let _ = s.write_all(b" ");
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = s.shutdown(std::net::Shutdown::Both);
    let (rest, took) = answer.join().unwrap();
    println!("ANSWER {} AFTER {}", rest.trim(), took.as_millis());
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
    // A rescan spends the service's CPU: a change, not a read.
    let a = as_peer(READ_GROUP, r#"{"v":1,"op":"rescan"}"#);
    assert!(a.contains("permission denied: rescan"), "{a}");
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

#[test]
fn trickling_readers_cannot_lock_the_owner_out() {
    use std::os::unix::process::CommandExt;
    assert!(
        nix_is_root(),
        "trickling_readers_cannot_lock_the_owner_out needs root to run clients as another uid"
    );
    let dir = Dir::new("trickle");
    let reg = registry();
    const NOBODY: u32 = 65534;
    const READ_GROUP: u32 = 65533;
    let opts = ServeOptions::default()
        .read_group(READ_GROUP)
        .read_timeout(Duration::from_secs(3));
    let _guard = serve(Arc::clone(&reg), dir.sock(), opts).unwrap();
    let exe = std::env::current_exe().unwrap();
    // As many trickling read-only clients as there are slots (8 by default).
    let mut children: Vec<_> = (0..8)
        .map(|_| {
            runner_command(&exe)
                .args([
                    "--exact",
                    "trickle_client_helper",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env("CRYPTOREG_TEST_TRICKLE", dir.sock())
                .uid(NOBODY)
                .gid(READ_GROUP)
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut outputs: Vec<_> = children
        .iter_mut()
        .map(|c| BufReader::new(c.stdout.take().unwrap()))
        .collect();
    for out in &mut outputs {
        let mut l = String::new();
        while !l.contains("CONNECTED") && !l.contains("ANSWER") {
            l.clear();
            assert!(
                out.read_line(&mut l).unwrap() > 0,
                "a trickling client ended early"
            );
        }
        assert!(l.contains("CONNECTED"), "{l}");
    }
    // Let the accept loop take all eight.
    std::thread::sleep(Duration::from_millis(200));
    // The owner is served on every try, each within a second, while they trickle.
    let start = Instant::now();
    let mut tries = 0;
    while start.elapsed() < Duration::from_millis(1500) {
        let t = Instant::now();
        let mut c = Client::connect(&dir.sock()).unwrap();
        c.call(
            &Request::new("set-priority")
                .driver(rung::XTS)
                .priority(50 + tries),
        )
        .unwrap_or_else(|e| panic!("try {tries}: {e}"));
        assert!(
            t.elapsed() < Duration::from_secs(1),
            "try {tries}: {:?}",
            t.elapsed()
        );
        tries += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
    // Each trickling connection got an error answer and was closed at its deadline.
    for (mut child, mut out) in children.into_iter().zip(outputs) {
        let mut rest = String::new();
        out.read_to_string(&mut rest).unwrap();
        child.wait().unwrap();
        let line = rest
            .lines()
            .find_map(|l| l.split_once("ANSWER ").map(|(_, a)| a))
            .unwrap_or_else(|| panic!("no answer: {rest}"));
        assert!(
            line.contains("no complete request line within 3000 ms"),
            "{line}"
        );
        let ms: u64 = line
            .rsplit_once("AFTER ")
            .unwrap()
            .1
            .trim()
            .parse()
            .unwrap();
        assert!((2900..4500).contains(&ms), "closed after {ms} ms: {line}");
    }
}

fn nix_is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false)
}
