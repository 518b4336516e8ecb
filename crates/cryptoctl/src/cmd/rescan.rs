//! `rescan`: one re-verification pass (see `Registry::rescan`). With `--socket`, in the
//! live process, over the drivers it has in use (an admin operation: it spends CPU);
//! without, in a fresh boot after every algorithm name has been resolved once, so each
//! chosen driver counts as in use: what one pass tests on this machine and what it costs.
//! Either way the exit status is 1 when a driver failed.

use cryptoreg::control::Request;
use cryptoreg::RescanReport;

use crate::cmd::Globals;
use crate::error::CliError;

pub fn run(g: &Globals) -> Result<String, CliError> {
    let report: RescanReport = match &g.socket {
        Some(path) => crate::cmd::live::call(path, &Request::new("rescan"))?,
        None => {
            let reg = g.boot(g.config()?)?;
            for name in reg.algorithm_names() {
                // A name nothing here can serve is not in use: nothing to re-test.
                let _ = reg.resolve(&name);
            }
            reg.rescan()
        }
    };
    let output = if g.json {
        Globals::to_json(&report)?
    } else {
        report.to_string()
    };
    let failed = report.failures().count();
    if failed > 0 {
        return Err(CliError::Failed {
            output,
            message: format!("rescan: {failed} failure(s); the failing drivers are excluded"),
        });
    }
    Ok(output)
}
