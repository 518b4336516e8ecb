//! The socket's permissions: binding under umask 077 in a directory only the service
//! can write, and the access each connection's peer credentials grant.
//!
//! The directory is checked on a descriptor, not a path: it is opened with
//! `O_DIRECTORY | O_NOFOLLOW` (a symlink as the last component is refused; symlinks
//! earlier in the path are followed) and `fstat`ed, and the socket is bound, checked and
//! removed through `/proc/self/fd/N/NAME`, so what was checked is what is used. A
//! directory `serve` did not create is never changed.

use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
use nix::sys::stat::{umask, Mode};
use nix::unistd::{geteuid, getgrouplist, Uid, User};

use crate::{Error, Result};

fn fail(what: &str, path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Config(format!("control socket {}: {what}: {e}", path.display()))
}

/// The socket's directory, held open for the socket's lifetime, and the socket's name
/// in it.
pub(super) struct Bound {
    dir: File,
    name: OsString,
}

impl Bound {
    /// The socket through the held directory descriptor.
    fn via_fd(&self) -> PathBuf {
        Path::new(&format!("/proc/self/fd/{}", self.dir.as_raw_fd())).join(&self.name)
    }

    /// Removes the socket from the directory that was checked (not from whatever the
    /// path names now).
    pub(super) fn remove(&self) {
        let _ = std::fs::remove_file(self.via_fd());
    }
}

/// Opens `dir` as a directory without following a symlink as its last component.
fn open_dir(dir: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC).bits())
        .open(dir)
}

/// What `open_dir`'s error means, in words an operator can act on.
fn open_error(dir: &Path, e: std::io::Error) -> Error {
    let symlink = std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink());
    match e.raw_os_error().map(Errno::from_raw) {
        // O_NOFOLLOW | O_DIRECTORY on a symlink: ELOOP, or ENOTDIR on Linux.
        Some(Errno::ELOOP | Errno::ENOTDIR) if symlink => fail(
            "directory",
            dir,
            "is a symbolic link; give the directory it points to (symlinks earlier in the \
             path are followed)",
        ),
        Some(Errno::ENOTDIR) => fail("directory", dir, "not a directory"),
        _ => fail("directory", dir, e),
    }
}

/// Creates `dir` (and any missing parents) the way `serve` creates directories: 0700, or
/// 0710 and group-owned by the read group, each set on the new directory's descriptor.
fn create_dirs(dir: &Path, read_group: Option<u32>) -> Result<()> {
    let mut missing = Vec::new();
    let mut p = dir;
    while std::fs::symlink_metadata(p).is_err() {
        missing.push(p);
        match p.parent() {
            Some(up) if !up.as_os_str().is_empty() => p = up,
            _ => break,
        }
    }
    for d in missing.into_iter().rev() {
        match nix::unistd::mkdir(d, Mode::S_IRWXU) {
            Ok(()) => {}
            // Created meanwhile by someone else: not ours, checked like any existing one.
            Err(Errno::EEXIST) => continue,
            Err(e) => return Err(fail("creating the directory", d, e)),
        }
        let f = open_dir(d).map_err(|e| open_error(d, e))?;
        let meta = f.metadata().map_err(|e| fail("directory", d, e))?;
        if meta.uid() != geteuid().as_raw() {
            return Err(fail("directory", d, "replaced while it was being created"));
        }
        let mode = match read_group {
            Some(g) => {
                std::os::unix::fs::fchown(&f, None, Some(g))
                    .map_err(|e| fail("chown directory", d, e))?;
                0o710
            }
            None => 0o700,
        };
        f.set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(|e| fail("directory mode", d, e))?;
    }
    Ok(())
}

/// Checks the open directory: owned by the service, writable by nobody else, and (with a
/// read group) searchable by the group. Changes nothing.
fn check_dir(f: &File, dir: &Path, read_group: Option<u32>) -> Result<()> {
    let me = geteuid();
    let meta = f.metadata().map_err(|e| fail("directory", dir, e))?;
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
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(fail(
            "directory",
            dir,
            format!("mode {mode:o} lets others write into it"),
        ));
    }
    if let Some(g) = read_group {
        let group_search = meta.gid() == g && mode & 0o010 != 0;
        if !group_search && mode & 0o001 == 0 {
            return Err(fail(
                "directory",
                dir,
                format!(
                    "the read group (gid {g}) cannot reach the socket: it needs group {g} and \
                     mode 0710 (it has group {} and mode {mode:o}; serve changes only \
                     directories it creates)",
                    meta.gid()
                ),
            ));
        }
    }
    Ok(())
}

/// Prepares the directory, binds the socket under umask 077 and sets its mode (and
/// group): 0600, or 0660 owned by `read_group`.
pub(super) fn bind(path: &Path, read_group: Option<u32>) -> Result<(UnixListener, Bound)> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = match path.file_name() {
        Some(n) if n != OsStr::new("..") => n.to_os_string(),
        _ => return Err(fail("path", path, "does not end in a socket name")),
    };
    let f = match open_dir(dir) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            create_dirs(dir, read_group)?;
            open_dir(dir).map_err(|e| open_error(dir, e))?
        }
        Err(e) => return Err(open_error(dir, e)),
    };
    check_dir(&f, dir, read_group)?;
    let bound = Bound { dir: f, name };
    let sock = bound.via_fd();

    // A socket left by a previous run: remove it if nobody answers on it.
    if let Ok(m) = std::fs::symlink_metadata(&sock) {
        use std::os::unix::fs::FileTypeExt;
        if !m.file_type().is_socket() {
            return Err(fail("path", path, "exists and is not a socket"));
        }
        if UnixStream::connect(&sock).is_ok() {
            return Err(fail("path", path, "another process is serving it"));
        }
        std::fs::remove_file(&sock).map_err(|e| fail("removing a stale socket", path, e))?;
    }
    // umask is process-wide: restored at once. Files created by other threads in this
    // instant get the stricter mask, never a looser one.
    let old = umask(Mode::from_bits_truncate(0o077));
    let listener = UnixListener::bind(&sock);
    umask(old);
    let listener = listener.map_err(|e| fail("bind", path, e))?;
    // The directory is the service's alone, so the name still is the socket just bound.
    let mode = match read_group {
        Some(g) => {
            std::os::unix::fs::lchown(&sock, None, Some(g)).map_err(|e| fail("chown", path, e))?;
            0o660
        }
        None => 0o600,
    };
    std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(mode))
        .map_err(|e| fail("socket mode", path, e))?;
    Ok((listener, bound))
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
