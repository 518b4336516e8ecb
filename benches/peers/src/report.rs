//! Printing: one table per comparison (MB/s by size) and the goal ratios with their
//! verdicts.

/// Measured throughput, bytes per second: `rates[c][s]` for contender `c` at size `s`.
pub struct Table {
    pub title: String,
    pub sizes: Vec<usize>,
    pub names: Vec<String>,
    pub rates: Vec<Vec<f64>>,
}

impl Table {
    pub fn new(title: impl Into<String>, sizes: &[usize], names: Vec<String>) -> Table {
        let rates = vec![Vec::with_capacity(sizes.len()); names.len()];
        Table {
            title: title.into(),
            sizes: sizes.to_vec(),
            names,
            rates,
        }
    }

    /// The rate of `name` at `size`, if both were measured.
    pub fn rate(&self, name: &str, size: usize) -> Option<f64> {
        let c = self.names.iter().position(|n| n == name)?;
        let s = self.sizes.iter().position(|&x| x == size)?;
        self.rates[c].get(s).copied()
    }

    /// The fastest of `among` at `size`, with its rate.
    pub fn best_of<'n>(&self, among: &'n [String], size: usize) -> Option<(&'n str, f64)> {
        among
            .iter()
            .filter_map(|n| self.rate(n, size).map(|r| (n.as_str(), r)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }

    pub fn render(&self) -> String {
        let w = self.names.iter().map(String::len).max().unwrap_or(0).max(6);
        let mut out = format!("{}\n{:<w$}", self.title, "MB/s");
        for s in &self.sizes {
            out += &format!(" {s:>8}");
        }
        out.push('\n');
        for (name, rates) in self.names.iter().zip(&self.rates) {
            out += &format!("{name:<w$}");
            for r in rates {
                out += &format!(" {:>8.0}", r / 1e6);
            }
            out.push('\n');
        }
        out
    }
}

/// One goal of the issue: `num / den >= min`.
pub struct Goal {
    pub what: String,
    pub num: Option<(String, f64)>,
    pub den: Option<(String, f64)>,
    pub min: f64,
}

impl Goal {
    /// `what: 1.23x (num / den), goal >= min: met | MISSED`, or why it could not be
    /// computed (a driver this host cannot run).
    pub fn render(&self) -> String {
        match (&self.num, &self.den) {
            (Some((n, a)), Some((d, b))) => {
                let ratio = a / b;
                format!(
                    "{}: {ratio:.2}x ({n} {:.0} / {d} {:.0} MB/s), goal >= {}: {}",
                    self.what,
                    a / 1e6,
                    b / 1e6,
                    self.min,
                    if ratio >= self.min { "met" } else { "MISSED" }
                )
            }
            _ => format!(
                "{}: n/a (a driver it needs is not registered or cannot run on this host)",
                self.what
            ),
        }
    }
}

/// The driver the registry picks for an algorithm against the fastest of its drivers at
/// each size of `t`: one line a size, flagged `CHECK` below 0.97. Not one of issue 23's
/// goals (those take the best driver, what this host can reach), but what a user gets: a
/// pick slower than a sibling at some size means a length bound or the ladder chose wrong
/// there (`rfc7539-chacha20-poly1305-avx512ifma` read 0.93x its `-avx512` sibling at 1024
/// bytes on Zen 4 until it ran that sibling's entries there).
pub fn pick_lines(t: &Table, pick: &str, among: &[String]) -> String {
    let mut out = format!(
        "{}: the registry's pick against the fastest driver\n",
        t.title
    );
    for &size in &t.sizes {
        match (t.rate(pick, size), t.best_of(among, size)) {
            (Some(p), Some((b, r))) => {
                let ratio = p / r;
                out += &format!(
                    "  pick / best at {size}: {ratio:.2}x ({pick} {:.0} / {b} {:.0} MB/s){}\n",
                    p / 1e6,
                    r / 1e6,
                    if ratio < 0.97 { "  CHECK" } else { "" }
                );
            }
            _ => out += &format!("  pick / best at {size}: n/a ({pick} not measured)\n"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ratio, the flag below 0.97, and a pick that was not measured.
    #[test]
    fn pick_lines_flag_a_slow_pick() {
        let names: Vec<String> = ["a", "b"].map(String::from).to_vec();
        let mut t = Table::new("T", &[16, 64], names.clone());
        t.rates[0] = vec![90e6, 100e6];
        t.rates[1] = vec![100e6, 50e6];
        let out = pick_lines(&t, "a", &names);
        assert!(
            out.contains("pick / best at 16: 0.90x (a 90 / b 100 MB/s)  CHECK"),
            "{out}"
        );
        assert!(
            out.contains("pick / best at 64: 1.00x (a 100 / a 100 MB/s)\n"),
            "{out}"
        );
        assert!(pick_lines(&t, "c", &names).contains("at 16: n/a (c not measured)"));
    }
}
