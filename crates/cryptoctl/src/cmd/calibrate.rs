//! `calibrate [NAME]`: times the passed candidates of one algorithm (or of every one) on
//! this machine, as `[selection] calibrate` would, and prints the figures and what the
//! rule would choose (`Registry::measure`). Nothing changes: the choice here is the one a
//! service with calibration on would make, with the priorities of the configuration.

use cryptoreg::Calibration;

use crate::cmd::{common_name, Globals};
use crate::error::CliError;

pub fn run(g: &Globals, name: Option<&str>) -> Result<String, CliError> {
    let reg = g.boot(g.config()?)?;
    let (names, note) = match name {
        Some(typed) => {
            let mapped = common_name::map(typed);
            (vec![mapped.name], mapped.note.unwrap_or_default())
        }
        None => (reg.algorithm_names(), String::new()),
    };
    let mut all: Vec<Calibration> = Vec::new();
    for n in &names {
        match reg.measure(n) {
            Ok(c) => all.push(c),
            Err(cryptoreg::Error::NotFound(_)) if name.is_some() => {
                let message = format!("no algorithm with drivers named {n:?}");
                return Err(CliError::Usage(common_name::with_suggestions(
                    message,
                    name.unwrap_or(n),
                    &reg,
                )));
            }
            Err(e) => return Err(e.into()),
        }
    }
    if g.json {
        return Globals::to_json(&all);
    }
    let mut out = note;
    for c in &all {
        out.push_str(&c.to_string());
    }
    Ok(out)
}
