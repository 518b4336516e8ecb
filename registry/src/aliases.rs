//! Driver-name aliases: names an operator may write in a configuration file or send over
//! the control socket, accepted with a warning that names the current name, so a rename
//! never breaks an operator's file.
//!
//! The table maps the **Linux kernel's current names** to this project's names. In 2025
//! the kernel renamed its AVX10/512 drivers after the instructions they need (VAES with
//! AVX-512) rather than after AVX10: `xts-aes-vaes-avx10_512` became
//! `xts-aes-vaes-avx512`, `ctr-aes-vaes-avx10_512` became `ctr-aes-vaes-avx512`, and
//! its GCM drivers (`generic-gcm-vaes-avx10_512`, our `gcm-aes-vaes-avx10_512`) became
//! `generic-gcm-vaes-avx512` (the assembly file `aes-gcm-avx10-x86_64.S` became
//! `aes-gcm-vaes-avx512.S`). The kernel dropped its `*-vaes-avx10_256` drivers instead of
//! renaming them, so they have no alias. This project keeps the `avx10_512` spelling of
//! [DESIGN.md]'s priority ladder; an operator who copies a kernel name gets the driver
//! they meant.
//!
//! | alias (kernel name since 2025) | current name here |
//! | --- | --- |
//! | `xts-aes-vaes-avx512` | `xts-aes-vaes-avx10_512` |
//! | `ctr-aes-vaes-avx512` | `ctr-aes-vaes-avx10_512` |
//! | `gcm-aes-vaes-avx512` | `gcm-aes-vaes-avx10_512` |
//! | `generic-gcm-vaes-avx512` | `gcm-aes-vaes-avx10_512` |
//! | `generic-gcm-vaes-avx10_512` | `gcm-aes-vaes-avx10_512` |
//!
//! Aliases apply to driver names in `[priority]` and `[disable] drivers` (at boot and
//! on [`Registry::apply_config`](crate::Registry::apply_config)) and to the driver of
//! every runtime admin operation ([`Registry::admin`](crate::Registry::admin), which the
//! control socket uses). They do not apply to allocation (`alloc_*` by driver name):
//! code names drivers exactly. No registered driver carries an alias's name (a test
//! checks it), so an alias can never hide a driver.

use crate::config::Config;

/// `(alias, current name)`, as in the table of the module docs.
pub const ALIASES: &[(&str, &str)] = &[
    ("xts-aes-vaes-avx512", "xts-aes-vaes-avx10_512"),
    ("ctr-aes-vaes-avx512", "ctr-aes-vaes-avx10_512"),
    ("gcm-aes-vaes-avx512", "gcm-aes-vaes-avx10_512"),
    ("generic-gcm-vaes-avx512", "gcm-aes-vaes-avx10_512"),
    ("generic-gcm-vaes-avx10_512", "gcm-aes-vaes-avx10_512"),
];

/// The current name for `name` if it is an alias.
pub fn current_name(name: &str) -> Option<&'static str> {
    ALIASES.iter().find(|(a, _)| *a == name).map(|&(_, c)| c)
}

/// `name`, or its current name with a warning (target `cryptoreg::alias`) when it is an
/// alias. `origin` says where the name came from (a file, `control socket`).
pub fn canonicalize(name: &str, origin: &str) -> String {
    match current_name(name) {
        Some(current) => {
            tracing::warn!(
                target: "cryptoreg::alias",
                alias = name,
                current,
                origin,
                "{origin}: driver name {name:?} is an alias; the current name is {current:?}"
            );
            current.to_string()
        }
        None => name.to_string(),
    }
}

/// A copy of `config` with every aliased driver name in `[priority]` and
/// `[disable] drivers` replaced by its current name (each with a warning). When both an
/// alias and its current name carry a priority, the current name's entry wins.
pub fn normalize_config(config: &Config) -> Config {
    let origin = config
        .source
        .as_ref()
        .map_or_else(|| "configuration".to_string(), |s| s.origin.clone());
    let mut out = config.clone();
    out.priority.clear();
    for (name, &p) in &config.priority {
        let key = canonicalize(name, &origin);
        if key != *name && config.priority.contains_key(&key) {
            continue;
        }
        out.priority.insert(key, p);
    }
    let mut seen = std::collections::BTreeSet::new();
    out.disable.drivers = config
        .disable
        .drivers
        .iter()
        .map(|d| canonicalize(d, &origin))
        .filter(|d| seen.insert(d.clone()))
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_map_to_current_names_and_others_pass_through() {
        assert_eq!(
            canonicalize("xts-aes-vaes-avx512", "t"),
            "xts-aes-vaes-avx10_512"
        );
        assert_eq!(canonicalize("xts-aes-aesni", "t"), "xts-aes-aesni");
        for (a, c) in ALIASES {
            assert_ne!(a, c);
            assert!(
                current_name(c).is_none(),
                "{c} is both current and an alias"
            );
        }
    }

    #[test]
    fn config_names_are_normalized() {
        let c = Config::parse(
            "[priority]\n\"xts-aes-vaes-avx512\" = 5\n\"ctr-aes-vaes-avx512\" = 6\n\
             \"ctr-aes-vaes-avx10_512\" = 7\n[disable]\ndrivers = [\"xts-aes-vaes-avx512\", \
             \"xts-aes-vaes-avx10_512\"]\n",
            "t.toml",
        )
        .unwrap();
        let n = normalize_config(&c);
        assert_eq!(n.priority.get("xts-aes-vaes-avx10_512"), Some(&5));
        assert_eq!(n.priority.get("ctr-aes-vaes-avx10_512"), Some(&7));
        assert!(!n.priority.contains_key("xts-aes-vaes-avx512"));
        assert_eq!(n.disable.drivers, vec!["xts-aes-vaes-avx10_512"]);
    }
}
