//! The driver each algorithm name resolves to now, and why: what `selftest` reports per
//! algorithm and what `list` marks. One source for both, offline (a booted registry) or
//! live (a process's control socket), built from the registry's own `explain` so the
//! reasons are the ones `cryptoctl explain` prints.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;

use cryptoreg::control::Request;
use cryptoreg::{Explanation, ListEntry, Registry};

use crate::cmd::live;
use crate::error::CliError;

/// The answer for one algorithm name.
#[derive(Debug, Clone, Serialize)]
pub struct Choice {
    /// The driver a request gets now; `None` when nothing usable serves the name.
    pub driver: Option<String>,
    /// Its effective priority.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<u32>,
    /// Why it was chosen (its `explain` verdict without the leading "chosen: "), or why
    /// nothing was.
    pub reason: String,
    /// Served only by a template instance: no concrete driver has this name
    /// (`rfc4106(gcm(aes))`).
    pub template_only: bool,
}

impl Choice {
    fn from_explanation(ex: Explanation, template_only: bool) -> Choice {
        let top = ex
            .candidates
            .into_iter()
            .next()
            .filter(|c| Some(&c.driver) == ex.chosen.as_ref());
        let reason = match (&top, ex.error) {
            (Some(c), _) => c
                .verdict
                .strip_prefix("chosen: ")
                .unwrap_or(&c.verdict)
                .to_string(),
            (None, Some(e)) => e,
            (None, None) => "nothing serves this name".to_string(),
        };
        Choice {
            driver: ex.chosen,
            priority: top.map(|c| c.priority),
            reason,
            template_only,
        }
    }
}

/// The names a service can ask for: every concrete driver's algorithm name, and those
/// only a template serves that the self-tests have known answers for (the gate passes
/// nothing else) and whose inner algorithms are all registered here
/// (`rfc4106(gcm(aes))` needs `aes`). Value: whether the name is template-only.
pub fn algorithm_names(registered: &BTreeSet<String>) -> BTreeMap<String, bool> {
    let mut names: BTreeMap<String, bool> = registered.iter().map(|n| (n.clone(), false)).collect();
    for name in cryptoreg::algorithms_with_vectors() {
        if !registered.contains(name) && leaves_registered(name, registered) {
            names.insert(name.to_string(), true);
        }
    }
    names
}

/// Whether every leaf of a template call (a word not followed by `(`) is a registered
/// algorithm name.
fn leaves_registered(name: &str, registered: &BTreeSet<String>) -> bool {
    let mut rest = name;
    while !rest.is_empty() {
        let end = rest.find(['(', ')', ',']).unwrap_or(rest.len());
        let word = rest[..end].trim();
        let is_template = rest[end..].starts_with('(');
        if !word.is_empty() && !is_template && !registered.contains(word) {
            return false;
        }
        rest = &rest[(end + 1).min(rest.len())..];
    }
    true
}

/// Every name's choice in a booted registry. Explaining a name resolves it as a request
/// would, so the template instances a service would get are built and tested first.
pub fn offline(reg: &Registry) -> BTreeMap<String, Choice> {
    let registered: BTreeSet<String> = reg.algorithm_names().into_iter().collect();
    algorithm_names(&registered)
        .into_iter()
        .map(|(name, template_only)| {
            let choice = Choice::from_explanation(reg.explain(&name), template_only);
            (name, choice)
        })
        .collect()
}

/// Every name's choice in the live process behind `path` (its `list`, then `explain` of
/// each name).
pub fn live(path: &Path) -> Result<BTreeMap<String, Choice>, CliError> {
    let list: Vec<ListEntry> = live::call(path, &Request::new("list"))?;
    let registered: BTreeSet<String> = list
        .into_iter()
        .filter(|e| !e.instance)
        .map(|e| e.name)
        .collect();
    let mut out = BTreeMap::new();
    for (name, template_only) in algorithm_names(&registered) {
        let ex: Explanation = live::call(path, &Request::new("explain").name(&name))?;
        out.insert(name, Choice::from_explanation(ex, template_only));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_only_names_need_their_leaves() {
        let registered: BTreeSet<String> = ["aes", "gcm(aes)", "chacha20"]
            .into_iter()
            .map(String::from)
            .collect();
        assert!(leaves_registered("rfc4106(gcm(aes))", &registered));
        assert!(leaves_registered("aes", &registered));
        assert!(!leaves_registered(
            "rfc7539esp(chacha20,poly1305)",
            &registered
        ));
        assert!(!leaves_registered("sha256", &registered));
        let names = algorithm_names(&registered);
        assert_eq!(names.get("gcm(aes)"), Some(&false));
        // cryptoctl builds every family, so the RFC 4106 vectors are there.
        assert_eq!(names.get("rfc4106(gcm(aes))"), Some(&true));
        assert_eq!(names.get("rfc7539esp(chacha20,poly1305)"), None);
    }
}
