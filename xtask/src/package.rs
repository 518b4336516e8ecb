//! The crates users depend on must package: `cargo package` only takes what lies inside a
//! crate's directory, so a file that a crate embeds (`include_str!`) lives inside it.
//!
//! Where the canonical file sits at the workspace root — `configs/*.toml`, which tools
//! and docs point to, and `README.md`, the project's front page — the crate holds a copy,
//! and [`check_copies`] (in `cargo xtask ci`, and as a test of this crate, where both
//! paths always exist) fails unless each copy is byte-identical to its original.
//! `cargo xtask sync` rewrites the copies from the originals after an edit. The licence
//! texts (`LICENSE-MIT`, `LICENSE-APACHE`) are copied the same way into every published
//! crate; the other crates' `readme` points at the root `README.md`, which `cargo package`
//! copies into the package itself.

use std::path::Path;

use crate::{cargo_command, status};

/// `(original, copy)`, relative to the workspace root.
pub const COPIES: &[(&str, &str)] = &[
    // Embedded by registry/src/config.rs.
    ("configs/default.toml", "registry/configs/default.toml"),
    // Embedded by registry/src/policy.rs.
    (
        "configs/cpu-models.toml",
        "registry/configs/cpu-models.toml",
    ),
    // The facade's crate docs; its embedding example runs as a doc test.
    ("README.md", "crates/cryptoreg/README.md"),
    // The README's speed picture, so its relative link resolves inside the package too,
    // and the facade's crate page draws it inline (rustdoc cannot follow a relative
    // image link).
    (
        "docs/xts-aes-speed.svg",
        "crates/cryptoreg/docs/xts-aes-speed.svg",
    ),
    // The licence texts, inside every published package (`MIT OR Apache-2.0`).
    ("LICENSE-MIT", "registry/LICENSE-MIT"),
    ("LICENSE-APACHE", "registry/LICENSE-APACHE"),
    ("LICENSE-MIT", "algos/LICENSE-MIT"),
    ("LICENSE-APACHE", "algos/LICENSE-APACHE"),
    ("LICENSE-MIT", "selftest/LICENSE-MIT"),
    ("LICENSE-APACHE", "selftest/LICENSE-APACHE"),
    ("LICENSE-MIT", "crates/cryptoreg/LICENSE-MIT"),
    ("LICENSE-APACHE", "crates/cryptoreg/LICENSE-APACHE"),
    ("LICENSE-MIT", "crates/cryptoreg-rustls/LICENSE-MIT"),
    ("LICENSE-APACHE", "crates/cryptoreg-rustls/LICENSE-APACHE"),
    ("LICENSE-MIT", "crates/cryptoctl/LICENSE-MIT"),
    ("LICENSE-APACHE", "crates/cryptoctl/LICENSE-APACHE"),
];

/// The crates a user would depend on, packaged (and built from the package) together.
pub const PUBLISHED: &[&str] = &[
    "cryptoreg-registry",
    "cryptoreg-algos",
    "cryptoreg-selftest",
    "cryptoreg",
    "cryptoreg-rustls",
    // The operator's tool, so that `cargo install cryptoctl` works.
    "cryptoctl",
];

fn read(root: &Path, rel: &str) -> Result<Vec<u8>, String> {
    std::fs::read(root.join(rel)).map_err(|e| format!("reading {rel}: {e}"))
}

/// Fails unless every copy exists and is byte-identical to its original.
pub fn check_copies(root: &Path) -> Result<String, String> {
    let mut stale = Vec::new();
    for &(original, copy) in COPIES {
        if read(root, original)? != read(root, copy)? {
            stale.push(format!("{copy} differs from {original}"));
        }
    }
    if stale.is_empty() {
        Ok(format!(
            "{} embedded copies identical to their originals",
            COPIES.len()
        ))
    } else {
        Err(format!(
            "{}; run `cargo xtask sync` after editing the original",
            stale.join("; ")
        ))
    }
}

/// Rewrites every copy from its original.
pub fn sync_copies(root: &Path) -> Result<String, String> {
    for &(original, copy) in COPIES {
        let to = root.join(copy);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        }
        std::fs::write(to, read(root, original)?).map_err(|e| format!("writing {copy}: {e}"))?;
    }
    Ok(format!("{} copies rewritten", COPIES.len()))
}

/// `cargo package` of the published crates, verified: each `.crate` is unpacked and
/// built on its own, the path dependencies between them served from the other packages.
/// `--allow-dirty` so that it runs on a working tree with uncommitted edits too.
pub fn package() -> Result<(), String> {
    forget_stale_package_sources()?;
    // Cargo treats a registry crate as immutable, so verifying in the shared target
    // directory would reuse a dependency (our own crate, from the overlay) compiled from an
    // earlier package of the same version: verify in a target directory of its own,
    // started afresh each time.
    let builds = crate::emu::target_dir(&crate::root()).join("package-verify");
    if builds.exists() {
        std::fs::remove_dir_all(&builds)
            .map_err(|e| format!("removing {}: {e}", builds.display()))?;
    }
    let builds = builds.to_string_lossy().into_owned();
    let mut args = vec!["package", "--allow-dirty", "--target-dir", &builds];
    for name in PUBLISHED {
        args.extend(["-p", name]);
    }
    status(cargo_command(&args), &args)
}

/// Removes cargo's unpacked copies of our own packaged crates from earlier `cargo package`
/// runs (found when a second clean clone at the same path failed to verify). Verification serves the packaged crates from a local registry overlay whose
/// sources cargo unpacks under `$CARGO_HOME/registry/src/-<hash>/NAME-VERSION`, the hash
/// derived from the target directory's path; cargo never unpacks a version again that is
/// already there. So a second run from the same path (a clean clone at the same place, the
/// same version number, new code) would build the dependents against the *old* sources and
/// fail for no fault of the tree. Only the overlay directories (names starting with `-`,
/// never crates.io's) and only our crates are touched.
fn forget_stale_package_sources() -> Result<(), String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry").join("src")) else {
        return Ok(());
    };
    let Ok(registries) = std::fs::read_dir(&src) else {
        return Ok(()); // nothing unpacked yet
    };
    for registry in registries.flatten() {
        if !registry.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        let Ok(crates) = std::fs::read_dir(registry.path()) else {
            continue;
        };
        for krate in crates.flatten() {
            let name = krate.file_name().to_string_lossy().into_owned();
            if PUBLISHED.iter().any(|p| name.starts_with(&format!("{p}-"))) {
                std::fs::remove_dir_all(krate.path())
                    .map_err(|e| format!("removing stale {}: {e}", krate.path().display()))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_copies_are_identical_to_their_originals() {
        check_copies(&crate::root()).unwrap();
    }

    #[test]
    fn a_differing_or_missing_copy_is_reported() {
        let dir = std::env::temp_dir().join(format!("xtask-copies-{}", std::process::id()));
        for &(original, copy) in COPIES {
            for rel in [original, copy] {
                let p = dir.join(rel);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, "same\n").unwrap();
            }
        }
        assert!(check_copies(&dir).is_ok());
        std::fs::write(dir.join(COPIES[0].1), "same\nbut edited\n").unwrap();
        let e = check_copies(&dir).unwrap_err();
        assert!(e.contains(COPIES[0].1), "{e}");
        sync_copies(&dir).unwrap();
        assert!(check_copies(&dir).is_ok());
        std::fs::remove_file(dir.join(COPIES[1].1)).unwrap();
        assert!(check_copies(&dir).unwrap_err().contains(COPIES[1].1));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
