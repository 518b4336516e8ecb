//! What every bench of this crate shares: which drivers of an algorithm to measure.

use cryptoreg::Registry;

/// Concrete drivers of `name`, plus the template instances the resolver would build (the
/// chosen one and the all-generic one), that passed their self-tests, best priority first.
pub fn drivers(reg: &Registry, name: &str) -> Vec<String> {
    if let Ok(generic) = cryptoreg::driver::names::build_generic_driver_name(name) {
        let _ = reg.resolve(&generic);
    }
    let _ = reg.resolve(name);
    let mut out: Vec<(u32, String)> = reg
        .list()
        .into_iter()
        .filter(|e| e.name == name && e.state == "passed")
        .map(|e| (e.priority, e.driver))
        .collect();
    out.sort_by(|a, b| b.cmp(a));
    out.into_iter().map(|(_, d)| d).collect()
}
