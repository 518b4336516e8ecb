//! The one check of the driver names that configuration (`[priority]`, `[disable]
//! drivers`) and the admin API (`set-priority`, `disable`, ...) accept, made when the
//! registered drivers and templates are known.
//!
//! Priorities and disables apply to *driver* names only, so a name that names no driver
//! would be stored, would change nothing, and (over the admin API) would still bump the
//! generation and grow the override maps. A name passes when, after the grammar
//! ([`Error::InvalidName`] otherwise), it is
//!
//! - a registered driver (or a template instance already built), or
//! - the driver name of a template instance that could be built: a registered template
//!   called with its number of arguments, each argument of the type the template takes
//!   there, every leaf a registered driver, and spelled exactly as the instance's driver
//!   name (`xts(ecb(aes-generic))`, `gcm_base(ctr(aes-generic),ghash-generic)`). The
//!   check builds the instance *description* over the children's descriptions (no code
//!   runs, nothing is stored) and compares the driver name it gets.
//!
//! Anything else — an unknown leaf (`xts(ecb(aes-genric))`), a wrong arity
//! (`xts(a,b,c)`), an algorithm name such as `gcm(aes)` (which a rewrite or several
//! drivers serve; `explain` lists them) — is [`Error::NotADriver`], naming what is wrong.

use std::sync::Arc;

use crate::alg::{Child, DriverInfo, Template};
use crate::error::{Error, Result};
use crate::names::{parse_template_call, validate, MAX_DEPTH};

use super::Config;

/// What the check looks names up in: the registered drivers (by driver name), the
/// algorithm names they serve, and the templates.
pub(crate) struct Known<'a, D, A> {
    /// The description of a registered driver (or built instance), by driver name.
    pub(crate) driver: D,
    /// Whether a name is the algorithm name of some registered driver.
    pub(crate) is_algorithm: A,
    /// The registered templates.
    pub(crate) templates: &'a [&'a Template],
}

impl<D, A> Known<'_, D, A>
where
    D: Fn(&str) -> Option<Arc<DriverInfo>>,
    A: Fn(&str) -> bool,
{
    /// Checks that `name` names a driver (see the module docs): `Ok` or
    /// [`Error::InvalidName`] / [`Error::NotADriver`].
    pub(crate) fn check(&self, name: &str) -> Result<()> {
        validate(name)?;
        if (self.driver)(name).is_some() {
            return Ok(());
        }
        let refuse = |reason: String| Error::NotADriver {
            name: name.to_string(),
            reason,
        };
        if (self.is_algorithm)(name) {
            return Err(refuse(format!(
                "an algorithm name, not a driver name (priorities and disables name \
                 drivers); `explain {name}` lists the drivers that serve it"
            )));
        }
        self.describe(name, 0).map(drop).map_err(refuse)
    }

    /// The description of the instance `call` names, or why there is none. Recursion is
    /// bounded by the grammar's depth limit (checked by `validate` on the whole name).
    fn describe(&self, call: &str, depth: usize) -> std::result::Result<Arc<DriverInfo>, String> {
        if let Some(info) = (self.driver)(call) {
            return Ok(info);
        }
        let Some((tmpl_name, args)) = parse_template_call(call) else {
            return Err(if (self.is_algorithm)(call) {
                format!(
                    "{call:?} is an algorithm name, not a driver name; `explain {call}` lists \
                     its drivers"
                )
            } else {
                format!("unknown driver {call:?}")
            });
        };
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH}"));
        }
        let Some(tmpl) = self.templates.iter().find(|t| t.name == tmpl_name) else {
            return Err(format!("unknown template {tmpl_name:?}"));
        };
        if args.len() != tmpl.child_types.len() {
            return Err(format!(
                "template {tmpl_name:?} takes {} argument(s), not {}",
                tmpl.child_types.len(),
                args.len()
            ));
        }
        if let Some(rewrite) = tmpl.rewrite {
            return Err(format!(
                "{call:?} is an algorithm name ({tmpl_name} is another spelling of {:?}), not \
                 a driver name; `explain {call}` shows the driver name of its instance",
                rewrite(&args)
            ));
        }
        let mut children = Vec::with_capacity(args.len());
        for (arg, &want) in args.iter().zip(tmpl.child_types) {
            let info = self.describe(arg, depth + 1)?;
            if info.alg_type() != want {
                return Err(format!(
                    "{arg:?} is a {}, but template {tmpl_name:?} takes a {} there",
                    info.alg_type().name(),
                    want.name()
                ));
            }
            let priority = info.base_priority();
            children.push(Child::new(info, priority));
        }
        let inst = (tmpl.create)(&children)
            .map_err(|e| format!("template {tmpl_name:?} refuses these children: {e}"))?;
        if inst.driver() != call {
            return Err(format!(
                "{call:?} is not an instance's driver name: over these children the \
                 instance is {:?}",
                inst.driver()
            ));
        }
        Ok(Arc::new(inst))
    }
}

impl Config {
    /// Checks every name in `[priority]` and `[disable] drivers` with [`Known::check`].
    /// The error names the file and line.
    pub(crate) fn check_driver_names<D, A>(&self, known: &Known<'_, D, A>) -> Result<()>
    where
        D: Fn(&str) -> Option<Arc<DriverInfo>>,
        A: Fn(&str) -> bool,
    {
        let names = self.priority.keys().map(|n| ("[priority]", n)).chain(
            self.disable
                .drivers
                .iter()
                .map(|n| ("[disable] drivers", n)),
        );
        for (section, name) in names {
            known.check(name).map_err(|e| {
                let at = match &self.source {
                    Some(src) => src.locate(name),
                    None => "configuration".to_string(),
                };
                let why = match e {
                    Error::NotADriver { reason, .. } => reason,
                    other => other.to_string(),
                };
                Error::Config(format!("{at}: {section} {name:?}: {why}"))
            })?;
        }
        Ok(())
    }
}
