//! The socket's permissions: binding under umask 077 in a private directory, and the
//! access each connection's peer credentials grant.

use std::ffi::CString;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;

use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
use nix::sys::stat::{umask, Mode};
use nix::unistd::{chown, geteuid, getgrouplist, Gid, Uid, User};

use crate::{Error, Result};

fn fail(what: &str, path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Config(format!("control socket {}: {what}: {e}", path.display()))
}

/// Prepares the directory, binds the socket under umask 077 and sets its mode (and
/// group): 0600, or 0660 owned by `read_group`.
pub(super) fn bind(path: &Path, read_group: Option<u32>) -> Result<UnixListener> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let me = geteuid();
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| fail("creating the directory", dir, e))?;
    }
    let meta = std::fs::metadata(dir).map_err(|e| fail("directory", dir, e))?;
    if meta.uid() != me.as_raw() {
        return Err(fail(
            "directory",
            dir,
            format!(
                "owned by uid {}, not by this service (uid {me})",
                meta.uid()
            ),
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(fail(
            "directory",
            dir,
            format!("mode {:o} lets others write into it", meta.mode() & 0o777),
        ));
    }
    let dir_mode = match read_group {
        Some(g) => {
            chown(dir, None, Some(Gid::from_raw(g)))
                .map_err(|e| fail("chown directory", dir, e))?;
            0o710
        }
        None => 0o700,
    };
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(dir_mode))
        .map_err(|e| fail("directory mode", dir, e))?;

    // A socket left by a previous run: remove it if nobody answers on it.
    if let Ok(m) = std::fs::symlink_metadata(path) {
        use std::os::unix::fs::FileTypeExt;
        if !m.file_type().is_socket() {
            return Err(fail("path", path, "exists and is not a socket"));
        }
        if UnixStream::connect(path).is_ok() {
            return Err(fail("path", path, "another process is serving it"));
        }
        std::fs::remove_file(path).map_err(|e| fail("removing a stale socket", path, e))?;
    }
    // umask is process-wide: restored at once. Files created by other threads in this
    // instant get the stricter mask, never a looser one.
    let old = umask(Mode::from_bits_truncate(0o077));
    let bound = UnixListener::bind(path);
    umask(old);
    let listener = bound.map_err(|e| fail("bind", path, e))?;
    let mode = match read_group {
        Some(g) => {
            chown(path, None, Some(Gid::from_raw(g))).map_err(|e| fail("chown", path, e))?;
            0o660
        }
        None => 0o600,
    };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| fail("socket mode", path, e))?;
    Ok(listener)
}

/// What a peer may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The service's own user or root: every operation.
    Change,
    /// A member of the read group: `list`, `explain`, `report`, `stats`, `generation`.
    Read,
    /// Anyone else: refused.
    None,
}

/// A connection's peer, from `SO_PEERCRED`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Peer {
    pub(super) uid: u32,
    pub(super) gid: u32,
    pub(super) pid: i32,
}

pub(super) fn peer(stream: &UnixStream) -> Option<Peer> {
    let c = getsockopt(stream, PeerCredentials).ok()?;
    Some(Peer {
        uid: c.uid(),
        gid: c.gid(),
        pid: c.pid(),
    })
}

/// The access `peer` has, given the service's read group.
pub(super) fn access(peer: &Peer, read_group: Option<u32>) -> Access {
    let uid = Uid::from_raw(peer.uid);
    if uid.is_root() || uid == geteuid() {
        return Access::Change;
    }
    let Some(group) = read_group else {
        return Access::None;
    };
    if peer.gid == group || member_of(uid, group) {
        Access::Read
    } else {
        Access::None
    }
}

/// Whether the user `uid` is in `group`, by its supplementary and primary groups
/// (`getgrouplist`), not only the connection's effective gid.
fn member_of(uid: Uid, group: u32) -> bool {
    let Ok(Some(user)) = User::from_uid(uid) else {
        return false;
    };
    let Ok(name) = CString::new(user.name.as_bytes()) else {
        return false;
    };
    getgrouplist(&name, user.gid)
        .map(|groups| groups.iter().any(|g| g.as_raw() == group))
        .unwrap_or(false)
}
