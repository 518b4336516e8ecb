//! `sectord`: a user-space "dm-crypt" that embeds cryptoreg, as a service would.
//!
//! ```text
//! cargo run --release -p cryptoreg --example sectord -- \
//!     --store FILE --socket CONTROL_PATH --data DATA_PATH [--sectors N] [--key-file KEY]
//! ```
//!
//! It stores `N` (default 1024) sectors of 4 KiB in `FILE`, each encrypted with
//! `xts(aes)` under the sector number as the tweak: the 64-bit little-endian sector
//! index in the first 8 bytes of the 16-byte IV, the rest zero — dm-crypt's `plain64`
//! IV with `iv_large_sectors` (sectors counted in 4 KiB units). The key is the contents
//! of `KEY` (32 bytes: XTS-AES-128, or 64: XTS-AES-256, halves distinct); without
//! `--key-file` a fixed demo key is used and said loudly on stderr.
//!
//! At start it boots the process-default registry (the self-test runs; the
//! configuration is `CRYPTOREG_CONFIG` or the embedded defaults), calls
//! `prepare(["xts(aes)"])` so no self-test ever runs on a request, opens the control
//! socket at `CONTROL_PATH` (`cryptoctl --socket CONTROL_PATH list | stats | ...`), and
//! serves clients on the Unix socket `DATA_PATH` with the line protocol of
//! [`protocol`]. Each client connection holds one long-lived `xts(aes)` handle and,
//! before each request, re-allocates it when `is_current()` turns false: that is how
//! an operator's change (a demotion, a disable, a reload) moves the service's handles
//! to the new driver without a restart. Data written under one driver reads back under
//! any other: they all compute the same XTS.
//!
//! It prints `sectord: ready` on stderr once both sockets listen, and runs until SIGTERM
//! or SIGINT, which remove both sockets and exit 0. The signals are blocked in every
//! thread and one thread waits for them (`sigwait`), so no handler runs in signal context
//! and nothing needs `unsafe`. Any other ending (SIGKILL, a crash) leaves the socket
//! files; the next start replaces them.

mod args;
mod protocol;
mod store;

use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cryptoreg::control::{serve, ServeOptions};
use nix::sys::signal::{SigSet, Signal};

use crate::args::{Args, USAGE};
use crate::store::Store;

/// Clients served at once; more are answered `ERR busy` and closed.
const MAX_CLIENTS: usize = 32;

fn main() {
    if let Err(e) = run() {
        eprintln!("sectord: error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let Some(args) = Args::parse(std::env::args().skip(1))? else {
        println!("{USAGE}");
        return Ok(());
    };
    // Blocked before any thread starts, so every thread inherits the mask and only the
    // waiter below ever takes these signals.
    let stop = stop_signals();
    stop.thread_block()
        .map_err(|e| format!("blocking SIGTERM and SIGINT: {e}"))?;
    let key = args.key()?;
    let registry = cryptoreg::registry().map_err(|e| format!("booting the registry: {e}"))?;
    let prepared = registry
        .prepare(&["xts(aes)"])
        .map_err(|e| format!("preparing xts(aes): {e}"))?;
    eprintln!(
        "sectord: xts(aes) resolves to {} (registry generation {})",
        prepared[0].driver(),
        registry.generation()
    );
    let store = Arc::new(Store::open(
        &args.store,
        args.sectors,
        key,
        Arc::clone(&registry),
    )?);
    let _control = serve(Arc::clone(&registry), &args.socket, ServeOptions::default())
        .map_err(|e| format!("control socket {}: {e}", args.socket.display()))?;

    let _ = std::fs::remove_file(&args.data);
    let listener = UnixListener::bind(&args.data)
        .map_err(|e| format!("data socket {}: {e}", args.data.display()))?;
    let sockets = vec![args.socket.clone(), args.data.clone()];
    std::thread::spawn(move || remove_sockets_on_stop(stop, sockets));
    eprintln!(
        "sectord: ready: {} sectors in {}, control {}, data {}",
        args.sectors,
        args.store.display(),
        args.socket.display(),
        args.data.display()
    );

    let clients = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        let Ok(mut conn) = conn else { continue };
        if clients.fetch_add(1, Ordering::AcqRel) >= MAX_CLIENTS {
            clients.fetch_sub(1, Ordering::AcqRel);
            let _ = std::io::Write::write_all(&mut conn, b"ERR busy\n");
            continue;
        }
        let store = Arc::clone(&store);
        let clients = Arc::clone(&clients);
        std::thread::spawn(move || {
            if let Err(e) = protocol::serve_client(&store, conn) {
                eprintln!("sectord: client: {e}");
            }
            clients.fetch_sub(1, Ordering::AcqRel);
        });
    }
    Ok(())
}

fn stop_signals() -> SigSet {
    let mut set = SigSet::empty();
    set.add(Signal::SIGTERM);
    set.add(Signal::SIGINT);
    set
}

/// Waits for SIGTERM or SIGINT, then removes the sockets and ends the process. The store
/// needs no flush: each write was handed to the kernel before its answer was sent, and a
/// request still in flight gets no answer.
fn remove_sockets_on_stop(stop: SigSet, sockets: Vec<PathBuf>) {
    let signal = match stop.wait() {
        Ok(signal) => signal,
        Err(e) => {
            // The signals stay blocked: exit rather than run on deaf to them.
            eprintln!("sectord: error: waiting for SIGTERM/SIGINT: {e}");
            std::process::exit(1);
        }
    };
    for path in &sockets {
        let _ = std::fs::remove_file(path);
    }
    eprintln!("sectord: {signal}: sockets removed, exiting");
    std::process::exit(0);
}
