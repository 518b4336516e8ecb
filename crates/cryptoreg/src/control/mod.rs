//! The control socket: what the kernel's `crypto_user` (`crconf`) gives an operator,
//! for a service that embeds cryptoreg. One call starts it:
//!
//! ```no_run
//! # fn main() -> cryptoreg::Result<()> {
//! let registry = cryptoreg::registry()?;
//! let _guard = cryptoreg::control::serve(
//!     registry,
//!     "/run/myservice/crypto/control.sock",
//!     cryptoreg::control::ServeOptions::default(),
//! )?;
//! // ... serve; the socket closes when `_guard` drops.
//! # Ok(()) }
//! ```
//!
//! and `cryptoctl --socket /run/myservice/crypto/control.sock list` (or `explain NAME`,
//! `selftest` for the boot report, `stats`, `set-priority DRIVER P`,
//! `clear-priority DRIVER`, `disable DRIVER`, `enable DRIVER`, `reload [--config FILE]`)
//! talks to the live process.
//!
//! ## Protocol (version 1)
//!
//! A Unix stream socket carrying line-delimited JSON: each request is one line of at
//! most [`MAX_REQUEST_BYTES`] (64 KiB), each answer one line. A connection may carry
//! several requests.
//!
//! ```text
//! -> {"v":1,"op":"list"}
//! <- {"v":1,"ok":true,"result":[{"name":"aes","driver":"aes-aesni",...}]}
//! -> {"v":1,"op":"set-priority","driver":"xts-aes-aesni","priority":50}
//! <- {"v":1,"ok":true,"result":{"driver":"xts-aes-aesni","setting":"priority","old":"401","new":"50","effect":"applied"}}
//! -> {"v":1,"op":"frobnicate"}
//! <- {"v":1,"ok":false,"error":"unknown operation \"frobnicate\""}
//! ```
//!
//! Operations and their `result`: `list` (`[ListEntry]`), `explain` with `name`
//! (`Explanation`), `report` (the boot's `SelftestReport`), `stats`
//! (`[DriverStatsReport]`), `set-priority` with `driver` and `priority`,
//! `clear-priority`, `disable` and `enable` with `driver` (a `Change`), `reload` with an
//! optional `path` (`[Change]`: re-reads `path`, else the file the registry was booted
//! with, and applies what can change while running; see
//! [`Registry::apply_config`](crate::Registry::apply_config)), `generation` (a number).
//! Driver names accept the documented [`aliases`](crate::aliases), with a warning.
//! A request with another `v` is refused (the answer carries the server's `v`).
//!
//! ## Who may do what
//!
//! * The socket is bound with umask 077 and is mode 0600, in a directory only the
//!   service can write. A directory `serve` creates (with any missing parents) is 0700,
//!   or 0710 and given to the read group. An existing one must be owned by the service's
//!   user and writable by nobody else, and is left exactly as it is (`serve` never
//!   changes a directory it did not create). The directory is opened with
//!   `O_DIRECTORY | O_NOFOLLOW` and checked with `fstat` on that descriptor, and the
//!   socket is bound, checked and removed through it (`/proc/self/fd/N/NAME`), so a
//!   symlink as the directory's last component is refused (symlinks earlier in the path,
//!   such as `/var/run -> /run`, are followed).
//! * With a read group
//!   ([`ServeOptions::read_group`](ServeOptions#structfield.read_group)) the socket is
//!   chown'ed to that group and made 0660. Its members must be able to traverse the
//!   directory: an existing directory that is neither the group's with its search bit
//!   (0710) nor searchable by everyone is refused, naming the mode it needs.
//! * Every connection's peer credentials (`SO_PEERCRED`) decide: the service's own uid and
//!   root may change things; members of the read group — decided from the peer uid's
//!   groups (`getgrouplist`), not only its effective gid — may read (`list`, `explain`,
//!   `report`, `stats`, `generation`); everyone else gets an error answer and the
//!   connection is closed.
//! * Every change is logged through `tracing` (target `cryptoreg::control`) with the
//!   peer's uid and pid, the driver, the old and the new value.
//!
//! ## Robustness
//!
//! A request over 64 KiB gets an error answer and the connection is closed; malformed
//! JSON and unknown operations get error answers. Each request line must be complete
//! within [`ServeOptions::read_timeout`] of the accept or of the previous answer (a
//! deadline for the whole line, not for each read, so a client trickling bytes is
//! closed as surely as a silent one); at the deadline the client gets an error answer
//! and the connection is closed. The accept loop reads the peer's credentials before
//! counting a connection and counts the two classes apart: at most
//! [`ServeOptions::max_connections`] connections of the service's user and root, and as
//! many again of read-group members, so read-only peers can never take the slots an
//! administrator needs; beyond its class's bound a new connection gets an error answer
//! and is closed, as does a peer with no access. Nothing a client sends can panic the
//! server. [`Client`] has the same kind of deadline for each whole answer (30 s).
//!
//! The control thread never shares a lock with requests on allocated handles: handles
//! run on their own driver instances and count into their own cells, so an operator's
//! `list` or `stats` cannot stall encryption (the registry's table lock is taken only by
//! allocation and by the admin side).
//!
//! ## Forks
//!
//! After `fork` the child has no control thread. A [`Guard`] dropped in a child process
//! (another pid than the one that called `serve`) does nothing: it neither joins the
//! thread that does not exist there nor removes the parent's socket. A child that wants
//! its own socket calls `serve` with another path.

mod access;
mod line;
mod protocol;
mod server;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::{Error, Registry, Result};

pub use access::Access;
pub use protocol::{Client, Request, Response, MAX_REQUEST_BYTES, PROTOCOL_VERSION};

/// Options of [`serve`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServeOptions {
    /// A group whose members may read (`list`, `explain`, `report`, `stats`): the
    /// socket becomes group-owned and 0660. `None` (the default): only the service's
    /// user and root may connect.
    pub read_group: Option<u32>,
    /// The deadline for each whole request line, counted from the accept or from the
    /// previous answer (default 5 s); a connection that misses it gets an error answer
    /// and is closed.
    pub read_timeout: Duration,
    /// Most connections served at once per class (default 8): the service's user and
    /// root have this many, read-group members as many again; more get an error answer.
    pub max_connections: usize,
    /// The file `reload` re-reads when the request names none; default: the file the
    /// registry was booted with (`Registry::config().source.path`).
    pub config_path: Option<PathBuf>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            read_group: None,
            read_timeout: Duration::from_secs(5),
            max_connections: 8,
            config_path: None,
        }
    }
}

impl ServeOptions {
    /// Sets [`ServeOptions::read_group`](ServeOptions#structfield.read_group) by group name.
    pub fn read_group_named(mut self, name: &str) -> Result<Self> {
        let group = nix::unistd::Group::from_name(name)
            .map_err(|e| Error::Config(format!("read group {name:?}: {e}")))?
            .ok_or_else(|| Error::Config(format!("read group {name:?}: no such group")))?;
        self.read_group = Some(group.gid.as_raw());
        Ok(self)
    }

    /// Sets [`ServeOptions::read_group`](ServeOptions#structfield.read_group) by gid.
    pub fn read_group(mut self, gid: u32) -> Self {
        self.read_group = Some(gid);
        self
    }

    /// Sets [`ServeOptions::read_timeout`].
    pub fn read_timeout(mut self, t: Duration) -> Self {
        self.read_timeout = t;
        self
    }

    /// Sets [`ServeOptions::max_connections`].
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// Sets [`ServeOptions::config_path`].
    pub fn config_path(mut self, p: impl Into<PathBuf>) -> Self {
        self.config_path = Some(p.into());
        self
    }
}

/// The running control socket; dropping it stops the thread and removes the socket.
#[must_use = "the control socket stops when the guard drops"]
pub struct Guard {
    path: PathBuf,
    bound: access::Bound,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    pid: u32,
}

impl Guard {
    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if std::process::id() != self.pid {
            // A forked child: the thread and the socket belong to the parent.
            return;
        }
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.bound.remove();
    }
}

/// Starts the control socket at `path` on its own thread (see the module docs for the
/// protocol and the permission model).
pub fn serve(
    registry: Arc<Registry>,
    path: impl AsRef<Path>,
    options: ServeOptions,
) -> Result<Guard> {
    let path = path.as_ref().to_path_buf();
    let (listener, bound) = access::bind(&path, options.read_group)?;
    let stop = Arc::new(AtomicBool::new(false));
    let thread = server::spawn(registry, listener, options, Arc::clone(&stop))
        .map_err(|e| Error::Config(format!("control socket thread: {e}")))?;
    tracing::info!(target: "cryptoreg::control", path = %path.display(), "control socket listening");
    Ok(Guard {
        path,
        bound,
        stop,
        thread: Some(thread),
        pid: std::process::id(),
    })
}
