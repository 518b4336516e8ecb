//! Locked, atomic replacement of a configuration file.
//!
//! Why: the editors used to rewrite the file in place. Twelve concurrent editors then lost
//! each other's entries (each read, edited and wrote its own copy), and a service booting
//! meanwhile could read the truncated, empty file — which is a valid configuration, so it
//! booted without its disables. Now an editor takes an exclusive advisory lock on
//! `FILE.lock` next to the file (std's `File::lock`, `flock` on Unix) and reads the file
//! only under it, so editors serialize; and the new text goes to a temporary file in the
//! same directory that is fsynced and renamed over the file, then the directory is
//! fsynced, so a reader sees the old text or the new one, never a mix, even after a crash.
//!
//! A symlinked configuration is resolved first: the lock and the replacement happen at
//! its target, and the link stays a link. The replacement gets the old file's permission
//! bits and, where the caller may set them, its owner and group.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// How many symlinks are followed before giving up (Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// The file a path finally names: symlinks followed (a dangling one to where it points),
/// so that editing replaces the target and keeps the link.
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other(format!(
        "{}: more than {MAX_LINKS} symbolic links",
        path.display()
    )))
}

/// An exclusive lock on `TARGET.lock`, held until dropped (closing the file releases it).
/// The lock file is left in place: removing it would let a second editor lock a new
/// file while a third still holds the old one.
pub struct Lock {
    _file: File,
}

/// Blocks until this process holds the editors' lock for `target`.
pub fn lock(target: &Path) -> io::Result<Lock> {
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(target.with_file_name(name))?;
    file.lock()?;
    Ok(Lock { _file: file })
}

/// Replaces `target` with `text` atomically: temporary file in the same directory,
/// fsync, rename, fsync of the directory. Requires the caller to hold [`lock`].
pub fn replace(target: &Path, text: &str) -> io::Result<()> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut name = std::ffi::OsString::from(".");
    name.push(target.file_name().unwrap_or_default());
    name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(name);
    let result = write_new(&tmp, target, text).and_then(|()| std::fs::rename(&tmp, target));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result?;
    sync_dir(&dir)
}

/// Writes the temporary file with the old file's permissions (and owner, best effort).
fn write_new(tmp: &Path, target: &Path, text: &str) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(tmp)?;
    if let Ok(old) = std::fs::metadata(target) {
        file.set_permissions(old.permissions())?;
        keep_owner(&file, &old);
    }
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

#[cfg(unix)]
fn keep_owner(file: &File, old: &std::fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    // Only root may give a file away; an unprivileged editor owns its own files anyway.
    let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
}

#[cfg(not(unix))]
fn keep_owner(_: &File, _: &std::fs::Metadata) {}

/// Makes the rename durable (Unix; elsewhere directories cannot be opened for this).
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cryptoctl-lf-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn threads_editing_under_the_lock_lose_nothing() {
        let dir = temp_dir("threads");
        let file = dir.join("c.txt");
        std::fs::write(&file, "").unwrap();
        std::thread::scope(|s| {
            for i in 0..12 {
                let file = &file;
                s.spawn(move || {
                    let _l = lock(file).unwrap();
                    let mut text = std::fs::read_to_string(file).unwrap();
                    std::thread::yield_now();
                    text.push_str(&format!("{i}\n"));
                    replace(file, &text).unwrap();
                });
            }
        });
        let text = std::fs::read_to_string(&file).unwrap();
        let mut lines: Vec<u32> = text.lines().map(|l| l.parse().unwrap()).collect();
        lines.sort_unstable();
        assert_eq!(lines, (0..12).collect::<Vec<_>>());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn relative_symlink_chains_resolve_to_the_target() {
        let dir = temp_dir("links");
        std::fs::write(dir.join("t.toml"), "x").unwrap();
        std::os::unix::fs::symlink("t.toml", dir.join("a")).unwrap();
        std::os::unix::fs::symlink("a", dir.join("b")).unwrap();
        assert_eq!(resolve(&dir.join("b")).unwrap(), dir.join("t.toml"));
        std::os::unix::fs::symlink("loop", dir.join("loop")).unwrap();
        assert!(resolve(&dir.join("loop")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
