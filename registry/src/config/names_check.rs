//! The check of the driver names a configuration lists, made at boot when the registered
//! drivers and templates are known.
//!
//! A plain name must be a registered driver. A template-shaped name
//! (`xts(ecb(aes-generic))`) names an instance that does not exist until something asks
//! for it, so it cannot be looked up; instead it must follow the name grammar, name a
//! registered template with the right number of arguments, and bottom out, at every
//! level, in known driver or algorithm names. Without this a typo in `[disable]`
//! (`xts(ecb(aes-generc))`) was accepted and disabled nothing: it failed open.

use crate::alg::Template;
use crate::error::{Error, Result};
use crate::names::{parse_template_call, validate};

use super::Config;

impl Config {
    /// Checks every name in `[priority]` and `[disable] drivers`. `is_driver` says whether
    /// a name is a registered driver, `is_known` whether it is a registered driver or
    /// algorithm name. The error names the file and line.
    pub(crate) fn check_driver_names(
        &self,
        is_driver: impl Fn(&str) -> bool,
        is_known: impl Fn(&str) -> bool,
        templates: &[&Template],
    ) -> Result<()> {
        let names = self.priority.keys().map(|n| ("[priority]", n)).chain(
            self.disable
                .drivers
                .iter()
                .map(|n| ("[disable] drivers", n)),
        );
        for (section, name) in names {
            let refuse = |why: String| {
                let at = match &self.source {
                    Some(src) => src.locate(name),
                    None => "configuration".to_string(),
                };
                Error::Config(format!("{at}: {section} {name:?}: {why}"))
            };
            validate(name).map_err(|e| refuse(e.to_string()))?;
            if is_driver(name) {
                continue;
            }
            if parse_template_call(name).is_none() {
                return Err(refuse(format!("unknown driver {name:?}")));
            }
            check_instance(name, &is_driver, &is_known, templates).map_err(refuse)?;
        }
        Ok(())
    }
}

/// Walks a valid template-shaped name with an explicit stack (the grammar bounds it to
/// 128 bytes and depth 16): every call names a known template with its number of
/// arguments; every argument is a known driver, a known algorithm or such a call.
fn check_instance(
    name: &str,
    is_driver: &impl Fn(&str) -> bool,
    is_known: &impl Fn(&str) -> bool,
    templates: &[&Template],
) -> std::result::Result<(), String> {
    let mut stack = vec![name];
    while let Some(call) = stack.pop() {
        let Some((tmpl_name, args)) = parse_template_call(call) else {
            // A leaf (validated as part of the whole name).
            if !is_known(call) {
                return Err(format!("unknown driver or algorithm {call:?}"));
            }
            continue;
        };
        let Some(tmpl) = templates.iter().find(|t| t.name == tmpl_name) else {
            return Err(format!("unknown template {tmpl_name:?}"));
        };
        if args.len() != tmpl.child_types.len() {
            return Err(format!(
                "template {tmpl_name:?} takes {} argument(s), not {}",
                tmpl.child_types.len(),
                args.len()
            ));
        }
        // An argument that is itself a registered driver needs no further look.
        stack.extend(args.into_iter().filter(|a| !is_driver(a)));
    }
    Ok(())
}
