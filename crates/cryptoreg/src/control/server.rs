//! The accept loop, one bounded thread per connection, and the dispatch of requests.

use std::io::Write;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::access::{access, peer, Access, Peer};
use super::line::{Line, LineReader};
use super::protocol::{Request, Response, MAX_REQUEST_BYTES, PROTOCOL_VERSION};
use super::ServeOptions;
use crate::{AdminOp, Config, Registry};

/// How often the accept loop looks at the stop flag.
const POLL: Duration = Duration::from_millis(20);

pub(super) fn spawn(
    registry: Arc<Registry>,
    listener: UnixListener,
    options: ServeOptions,
    stop: Arc<AtomicBool>,
) -> std::io::Result<JoinHandle<()>> {
    listener.set_nonblocking(true)?;
    std::thread::Builder::new()
        .name("cryptoreg-control".to_string())
        .spawn(move || accept_loop(&registry, &listener, &options, &stop))
}

fn accept_loop(
    registry: &Arc<Registry>,
    listener: &UnixListener,
    options: &ServeOptions,
    stop: &Arc<AtomicBool>,
) {
    // The two classes are counted apart, so read-only peers can never take the slots
    // the service's user and root need.
    let changers = Arc::new(AtomicUsize::new(0));
    let readers = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::Acquire) {
        let stream = match listener.accept() {
            Ok((s, _)) => s,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(POLL);
                continue;
            }
            Err(e) => {
                tracing::warn!(target: "cryptoreg::control", error = %e, "accept failed");
                std::thread::sleep(POLL);
                continue;
            }
        };
        // The request line's deadline counts from here.
        let accepted = Instant::now();
        // Refusals below are written by this thread: non-blocking, so a peer that never
        // reads cannot stall the accept loop (a fresh socket's buffer takes one line).
        let _ = stream.set_nonblocking(true);
        let refuse = |msg: String| {
            let _ = (&stream).write_all(&Response::err(msg).line());
        };
        let Some(peer) = peer(&stream) else {
            refuse("peer credentials unavailable".to_string());
            continue;
        };
        let access = access(&peer, options.read_group);
        let (active, class) = match access {
            Access::Change => (&changers, ""),
            Access::Read => (&readers, " from read-only peers"),
            Access::None => {
                tracing::warn!(
                    target: "cryptoreg::control",
                    peer_uid = peer.uid,
                    peer_pid = peer.pid,
                    "control connection refused: not the service's user, root or the read group"
                );
                refuse("permission denied".to_string());
                continue;
            }
        };
        if active.load(Ordering::Acquire) >= options.max_connections {
            refuse(format!(
                "too many connections{class} (at most {} at once)",
                options.max_connections
            ));
            continue;
        }
        // The connection thread relies on timeouts, not on non-blocking reads.
        if stream.set_nonblocking(false).is_err()
            || stream
                .set_write_timeout(Some(options.read_timeout))
                .is_err()
        {
            continue;
        }
        active.fetch_add(1, Ordering::AcqRel);
        let slot = Slot(Arc::clone(active));
        let registry = Arc::clone(registry);
        let options = options.clone();
        let stop = Arc::clone(stop);
        let spawned = std::thread::Builder::new()
            .name("cryptoreg-control-conn".to_string())
            .spawn(move || {
                let _slot = slot;
                serve_connection(&registry, stream, access, peer, accepted, &options, &stop);
            });
        if let Err(e) = spawned {
            tracing::warn!(target: "cryptoreg::control", error = %e, "no thread for a connection");
        }
    }
}

/// One connection's place in its class's bound; released when the connection ends.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Serves requests until the peer closes, errs or misses a deadline: each request line
/// must be complete within `read_timeout` of the accept or of the previous answer.
fn serve_connection(
    registry: &Registry,
    stream: UnixStream,
    access: Access,
    peer: Peer,
    accepted: Instant,
    options: &ServeOptions,
    stop: &AtomicBool,
) {
    let mut writer = match stream.try_clone() {
        Ok(w) => w,
        Err(_) => return,
    };
    let mut reader = LineReader::new(stream);
    let mut deadline = accepted + options.read_timeout;
    while !stop.load(Ordering::Acquire) {
        let line = match reader.read_line(deadline, MAX_REQUEST_BYTES) {
            Line::Complete(line) => line,
            Line::Eof(line) => {
                // End of stream without a newline: answer what came, then close.
                if !line.is_empty() {
                    let resp = handle(registry, &line, access, &peer, options);
                    let _ = writer.write_all(&resp.line());
                }
                return;
            }
            Line::TooLong => {
                let _ = writer.write_all(
                    &Response::err(format!(
                        "request larger than {MAX_REQUEST_BYTES} bytes; closing"
                    ))
                    .line(),
                );
                return;
            }
            Line::TimedOut => {
                let _ = writer.write_all(
                    &Response::err(format!(
                        "no complete request line within {} ms; closing",
                        options.read_timeout.as_millis()
                    ))
                    .line(),
                );
                return;
            }
            Line::Failed => return,
        };
        let resp = handle(registry, &line, access, &peer, options);
        if writer.write_all(&resp.line()).is_err() {
            return;
        }
        deadline = Instant::now() + options.read_timeout;
    }
}

fn json<T: Serialize>(v: &T) -> Response {
    match serde_json::to_value(v) {
        Ok(v) => Response::ok(v),
        Err(e) => Response::err(format!("answer could not be encoded: {e}")),
    }
}

fn handle(
    registry: &Registry,
    line: &[u8],
    access: Access,
    peer: &Peer,
    options: &ServeOptions,
) -> Response {
    let req: Request = match serde_json::from_slice(line) {
        Ok(r) => r,
        Err(e) => return Response::err(format!("malformed request: {e}")),
    };
    if req.v != PROTOCOL_VERSION {
        return Response::err(format!(
            "unsupported protocol version {}; this server speaks {PROTOCOL_VERSION}",
            req.v
        ));
    }
    let read_only = matches!(
        req.op.as_str(),
        "list" | "explain" | "report" | "stats" | "generation"
    );
    if !read_only && access != Access::Change {
        tracing::warn!(
            target: "cryptoreg::control",
            peer_uid = peer.uid,
            peer_pid = peer.pid,
            op = %req.op,
            "control request refused: read-only peer"
        );
        return Response::err(format!(
            "permission denied: {} needs the service's user or root",
            req.op
        ));
    }
    let need_driver = || {
        req.driver
            .clone()
            .ok_or_else(|| format!("{} needs \"driver\"", req.op))
    };
    let admin = |op: Result<AdminOp, String>| -> Response {
        let op = match op {
            Ok(op) => op,
            Err(e) => return Response::err(e),
        };
        match registry.admin(&op) {
            Ok(change) => {
                tracing::info!(
                    target: "cryptoreg::control",
                    peer_uid = peer.uid,
                    peer_pid = peer.pid,
                    driver = %change.driver,
                    setting = %change.setting,
                    old = %change.old,
                    new = %change.new,
                    "control change by uid {} pid {}: {change}",
                    peer.uid,
                    peer.pid
                );
                json(&change)
            }
            Err(e) => Response::err(e.to_string()),
        }
    };
    match req.op.as_str() {
        "list" => json(&registry.list()),
        "explain" => match &req.name {
            Some(n) => json(&registry.explain(n)),
            None => Response::err("explain needs \"name\""),
        },
        "report" => json(&registry.selftest_report()),
        "stats" => json(&registry.stats()),
        "generation" => json(&registry.generation()),
        "set-priority" => admin(need_driver().and_then(|d| {
            req.priority
                .map(|p| AdminOp::SetPriority(d, p))
                .ok_or_else(|| "set-priority needs \"priority\"".to_string())
        })),
        "clear-priority" => admin(need_driver().map(AdminOp::ClearPriority)),
        "disable" => admin(need_driver().map(AdminOp::Disable)),
        "enable" => admin(need_driver().map(AdminOp::Enable)),
        "reload" => reload(registry, req.path.clone(), peer, options),
        // An admin operation: it spends CPU (every driver in use on every CPU).
        "rescan" => {
            let report = registry.rescan();
            tracing::info!(
                target: "cryptoreg::control",
                peer_uid = peer.uid,
                peer_pid = peer.pid,
                drivers = report.drivers.len(),
                failures = report.failures().count(),
                "control rescan by uid {} pid {}",
                peer.uid,
                peer.pid
            );
            json(&report)
        }
        other => Response::err(format!(
            "unknown operation {:?}",
            other.chars().take(64).collect::<String>()
        )),
    }
}

fn reload(
    registry: &Registry,
    path: Option<PathBuf>,
    peer: &Peer,
    options: &ServeOptions,
) -> Response {
    let path = path.or_else(|| options.config_path.clone()).or_else(|| {
        registry
            .config()
            .source
            .as_ref()
            .and_then(|s| s.path.clone())
    });
    let Some(path) = path else {
        return Response::err("reload: the registry was not booted from a file; give \"path\"");
    };
    let config = match Config::from_file(&path) {
        Ok(c) => c,
        Err(e) => return Response::err(e.to_string()),
    };
    match registry.apply_config(&config) {
        Ok(changes) => {
            tracing::info!(
                target: "cryptoreg::control",
                peer_uid = peer.uid,
                peer_pid = peer.pid,
                path = %path.display(),
                changes = changes.len(),
                "control reload by uid {} pid {} from {}",
                peer.uid,
                peer.pid,
                path.display()
            );
            json(&changes)
        }
        Err(e) => Response::err(e.to_string()),
    }
}
