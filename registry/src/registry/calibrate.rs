//! Choosing by measurement (`[selection] calibrate`).
//!
//! The static ladder is a guess about speed, and sometimes a bad one: an operator's
//! demotion of a zmm GCM driver hands `gcm(aes)` to the `gcm_base` instance of its zmm
//! children, slower than the ymm driver one rung down. The kernel measures before it
//! chooses for RAID-6 and XOR (`raid6_select_algo`, `calibrate_xor_blocks`), never for
//! crypto. Here, with calibration on, the passed concrete candidates of an algorithm are
//! timed at the configured request sizes before its first resolution (inside `prepare()`
//! for the names a service prepares): one batch of requests per candidate and size in
//! turn, the order rotating each round, until the round that would pass
//! [`CALIBRATION_BUDGET`] (at least one round). Each candidate's figure per size is the
//! median of its rounds (what `explain` shows); two candidates are compared by the median
//! over the rounds of the ratio of their figures in the same round
//! ([`Measured::speedup`]), which cancels what drifts between rounds.
//!
//! The rule (`Registry::calibrated_pick`): the highest-priority usable candidate keeps
//! the name unless another is faster by more than `margin_percent` (so noise cannot flip
//! the choice from boot to boot). Measurement never overrides an operator: when the
//! leader's priority was set by an operator (at run time or in `[priority]`) it stays,
//! and only a candidate at its own base priority can be promoted — never one an operator
//! demoted, nor one the CPU-model policy demoted (zmm on a downclocking model, which a
//! 20 ms benchmark cannot see). The figures are kept per algorithm name for
//! the registry's life (speeds do not change with priorities); the rule is applied anew
//! at each resolution, so a later operator change still decides.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::alg::{AlgType, DriverInfo};
use crate::error::{Error, Result};
use crate::handle::{build_aead, build_cipher, build_hash, build_skcipher};
use crate::handle::{Aead, Cipher, Hash, Skcipher};
use crate::host::HostFeatures;

use super::{Eligibility, Entry, Inner, PrioritySource, Registry};

/// The most one algorithm's measurement takes (at least one round runs).
pub const CALIBRATION_BUDGET: Duration = Duration::from_millis(20);

/// Bytes one timed batch processes at least (a few microseconds at GB/s: long against
/// the clock's resolution, short against the budget).
const BATCH_BYTES: usize = 8 * 1024;

/// One algorithm's measurement.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Calibration {
    /// The algorithm name.
    pub name: String,
    /// The request sizes timed, in bytes.
    pub sizes: Vec<usize>,
    /// The candidates timed, in the resolver's priority order at the time.
    pub candidates: Vec<Measured>,
    /// Rounds run (each times every candidate at every size once).
    pub rounds: usize,
    /// Wall time of the measurement, in milliseconds.
    pub elapsed_ms: f64,
    /// The driver the rule chooses with these figures and the priorities in force.
    pub choice: Option<String>,
    /// `speedups[i][j]`: how much faster candidate `i` ran than candidate `j`
    /// ([`Measured::speedup`] of their rounds), what the rule compares (kept so that
    /// figures read back from the cache file compare as measured).
    #[serde(default)]
    pub speedups: Vec<Vec<f64>>,
    /// Whether these figures were read from the cache file (`[selection] cache`) instead
    /// of measured by this process; `rounds` and `elapsed_ms` are then the measurement's.
    #[serde(default)]
    pub cached: bool,
}

/// One candidate's figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Measured {
    /// Driver name.
    pub driver: String,
    /// Its effective priority when measured.
    pub priority: u32,
    /// MB/s (10^6 bytes per second) per size, the median of its rounds.
    pub mbps: Vec<f64>,
    /// Per round, the geometric mean over the sizes of its MB/s in that round: what
    /// [`Measured::speedup`] pairs up.
    #[serde(skip)]
    pub rounds: Vec<f64>,
}

impl Measured {
    /// The geometric mean of the sizes' figures (0 when there are none).
    pub fn score(&self) -> f64 {
        if self.mbps.is_empty() || self.mbps.iter().any(|&m| m <= 0.0) {
            return 0.0;
        }
        let logs: f64 = self.mbps.iter().map(|m| m.ln()).sum();
        (logs / self.mbps.len() as f64).exp()
    }
}

impl Measured {
    /// How much faster than `other` this candidate ran: the median over the rounds of the
    /// ratio of their two figures in the same round. Pairs measured side by side cancel
    /// what drifts between rounds (frequency, a neighbour's load), so two copies of the
    /// same code come out within a few percent where separate medians can differ by more.
    pub fn speedup(&self, other: &Measured) -> f64 {
        let mut ratios: Vec<f64> = self
            .rounds
            .iter()
            .zip(&other.rounds)
            .filter(|(_, &b)| b > 0.0)
            .map(|(&a, &b)| a / b)
            .collect();
        if ratios.is_empty() {
            let (a, b) = (self.score(), other.score());
            return if b > 0.0 { a / b } else { 0.0 };
        }
        median(&mut ratios)
    }
}

impl Calibration {
    /// The figures of `driver`, if it was timed.
    pub fn of(&self, driver: &str) -> Option<&Measured> {
        self.candidates.iter().find(|m| m.driver == driver)
    }

    /// How much faster `a` ran than `b` (see [`Measured::speedup`]); `None` when either
    /// was not timed.
    pub fn speedup(&self, a: &str, b: &str) -> Option<f64> {
        let i = self.candidates.iter().position(|m| m.driver == a)?;
        let j = self.candidates.iter().position(|m| m.driver == b)?;
        Some(self.speedup_at(i, j))
    }

    /// How much faster candidate `i` ran than candidate `j`: the kept matrix, else their
    /// rounds (both indices in range).
    fn speedup_at(&self, i: usize, j: usize) -> f64 {
        self.speedups
            .get(i)
            .and_then(|row| row.get(j))
            .copied()
            .unwrap_or_else(|| self.candidates[i].speedup(&self.candidates[j]))
    }

    /// The pairwise speedups of the candidates, from their rounds.
    fn with_speedups(mut self) -> Calibration {
        self.speedups = self
            .candidates
            .iter()
            .map(|a| self.candidates.iter().map(|b| a.speedup(b)).collect())
            .collect();
        self
    }

    /// These figures limited to `drivers`, in that order, or `None` when one of them was
    /// not timed (the cache file's figures serve only the candidate set they cover).
    pub(super) fn restricted_to(&self, drivers: &[String]) -> Option<Calibration> {
        let index: Vec<usize> = drivers
            .iter()
            .map(|d| self.candidates.iter().position(|m| &m.driver == d))
            .collect::<Option<_>>()?;
        Some(Calibration {
            name: self.name.clone(),
            sizes: self.sizes.clone(),
            candidates: index.iter().map(|&i| self.candidates[i].clone()).collect(),
            rounds: self.rounds,
            elapsed_ms: self.elapsed_ms,
            choice: None,
            speedups: index
                .iter()
                .map(|&i| index.iter().map(|&j| self.speedup_at(i, j)).collect())
                .collect(),
            cached: true,
        })
    }
}

/// `gcm(aes): 3 candidates at 1420, 16384 bytes, 212 rounds in 19.8 ms -> DRIVER` (with
/// `(from the cache file)` before the arrow when read back from it), then
/// one line per candidate with its priority and MB/s per size.
impl std::fmt::Display for Calibration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sizes: Vec<String> = self.sizes.iter().map(usize::to_string).collect();
        writeln!(
            f,
            "{}: {} candidate{} at {} bytes, {} rounds in {:.1} ms{} -> {}",
            self.name,
            self.candidates.len(),
            if self.candidates.len() == 1 { "" } else { "s" },
            sizes.join(", "),
            self.rounds,
            self.elapsed_ms,
            if self.cached {
                " (from the cache file)"
            } else {
                ""
            },
            self.choice.as_deref().unwrap_or("nothing usable")
        )?;
        for m in &self.candidates {
            let figures: Vec<String> = m.mbps.iter().map(|v| format!("{v:>9.0}")).collect();
            writeln!(
                f,
                "  {} {:<44} priority {:>5}  MB/s {}",
                if self.choice.as_deref() == Some(m.driver.as_str()) {
                    '*'
                } else {
                    ' '
                },
                m.driver,
                m.priority,
                figures.join(" ")
            )?;
        }
        Ok(())
    }
}

/// A handle ready to time, with its buffers.
enum Bench {
    Cipher(Cipher),
    Skcipher(Skcipher, Vec<u8>),
    Aead(Aead, Vec<u8>, Vec<u8>),
    Hash(Hash, Vec<u8>),
}

/// A fixed key of `len` bytes whose halves differ (XTS refuses equal halves).
fn bench_key(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(37).wrapping_add(11))
        .collect()
}

impl Bench {
    fn new(info: &Arc<DriverInfo>, token: &HostFeatures) -> Result<Bench> {
        let sizes = info.sizes();
        let key = bench_key(sizes.min_key);
        let info = Arc::clone(info);
        Ok(match info.alg_type() {
            AlgType::Cipher => {
                let mut c = build_cipher(info, token)?;
                c.set_key(&key)?;
                Bench::Cipher(c)
            }
            AlgType::Skcipher => {
                let mut s = build_skcipher(info, token)?;
                s.set_key(&key)?;
                let iv = vec![0x5a; s.iv_size()];
                Bench::Skcipher(s, iv)
            }
            AlgType::Aead => {
                let mut a = build_aead(info, token)?;
                a.set_key(&key)?;
                let (nonce, tag) = (vec![0x5a; a.nonce_size()], vec![0; a.authsize()]);
                Bench::Aead(a, nonce, tag)
            }
            AlgType::Hash => {
                let mut h = build_hash(info, token)?;
                if h.is_keyed() {
                    h.set_key(&key)?;
                }
                let out = vec![0; h.digest_size()];
                Bench::Hash(h, out)
            }
        })
    }

    /// The length a request of about `size` bytes can have: a whole number of blocks for
    /// block-wise modes (at least one).
    fn len_for(info: &DriverInfo, size: usize) -> usize {
        let block = info.block_size().max(1);
        if block == 1 {
            size
        } else {
            (size - size % block).max(block)
        }
    }

    /// One request over `data`.
    fn run(&mut self, data: &mut [u8]) -> Result<()> {
        match self {
            Bench::Cipher(c) => c.encrypt_blocks(data),
            Bench::Skcipher(s, iv) => s.encrypt_in_place(iv, data),
            Bench::Aead(a, nonce, tag) => a.seal(nonce, &[], data, tag),
            Bench::Hash(h, out) => h.digest(data, out),
        }
    }
}

/// The median of `v` (sorted in place); 0 for none.
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// What [`time_interleaved`] measured, per bench: the median MB/s per size, and per
/// round the geometric mean over the sizes.
type Figures = Vec<(Vec<f64>, Vec<f64>)>;

/// Times `benches` at `sizes`, interleaved, within `budget`; returns the figures and the
/// rounds run.
fn time_interleaved(
    benches: &mut [(Arc<DriverInfo>, Bench)],
    sizes: &[usize],
    budget: Duration,
) -> Result<(Figures, usize)> {
    let n = benches.len();
    let mut samples = vec![vec![Vec::new(); sizes.len()]; n];
    let largest = sizes.iter().copied().max().unwrap_or(0);
    // Every contender at the same offset, the start of a cache line: a 512-bit access that
    // crosses a line costs several percent, and a heap buffer's offset varies from one
    // process to the next.
    let mut backing = vec![0x3cu8; largest + 64];
    let at = backing.as_ptr().align_offset(64).min(64);
    let buf = &mut backing[at..at + largest];
    // One request each first, off the clock: the first call pays for cold caches.
    for (info, b) in benches.iter_mut() {
        for &size in sizes {
            let len = Bench::len_for(info, size);
            b.run(&mut buf[..len])?;
        }
    }
    let start = Instant::now();
    let mut rounds = 0;
    loop {
        let round = Instant::now();
        for (si, &size) in sizes.iter().enumerate() {
            for k in 0..n {
                let ci = (k + rounds) % n;
                let (info, b) = &mut benches[ci];
                let len = Bench::len_for(info, size);
                let reps = (BATCH_BYTES / len).max(1);
                let t = Instant::now();
                for _ in 0..reps {
                    b.run(std::hint::black_box(&mut buf[..len]))?;
                }
                let secs = t.elapsed().as_secs_f64().max(1e-9);
                samples[ci][si].push((reps * len) as f64 / secs / 1e6);
            }
        }
        rounds += 1;
        if start.elapsed() + round.elapsed() > budget {
            break;
        }
    }
    let figures = samples
        .iter()
        .map(|per_size| {
            let per_round = (0..rounds)
                .map(|r| {
                    let logs: f64 = per_size.iter().map(|s| s[r].max(1e-9).ln()).sum();
                    (logs / per_size.len() as f64).exp()
                })
                .collect();
            let medians = per_size.iter().map(|s| median(&mut s.clone())).collect();
            (medians, per_round)
        })
        .collect();
    Ok((figures, rounds))
}

impl Registry {
    /// Measures the passed concrete candidates of algorithm `name` on this machine now
    /// (testing any not tested yet) and says what the rule would choose; changes nothing
    /// (the cache file is neither read nor written). `cryptoctl calibrate` prints it. An
    /// unknown name is `NotFound`.
    pub fn measure(&self, name: &str) -> Result<Calibration> {
        let timed = self.calibration_candidates(name)?;
        let c = self.time_candidates(name, &timed)?;
        Ok(self.with_choice(c))
    }

    /// The passed, usable concrete drivers of algorithm `name` (testing any not tested
    /// yet), in the resolver's order, with their effective priorities.
    fn calibration_candidates(&self, name: &str) -> Result<Vec<(u32, Arc<DriverInfo>)>> {
        crate::names::validate(name)?;
        let drivers: Vec<String> = {
            let inner = self.inner.lock();
            inner
                .entries
                .values()
                .filter(|e| !e.info.is_instance() && e.info.name() == name)
                .map(|e| e.info.driver().to_string())
                .collect()
        };
        if drivers.is_empty() {
            return Err(Error::NotFound(name.to_string()));
        }
        for d in &drivers {
            self.ensure_tested(d);
        }
        let mut timed: Vec<(u32, Arc<DriverInfo>)> = {
            let inner = self.inner.lock();
            drivers
                .iter()
                .filter_map(|d| inner.entries.get(d))
                .filter(|e| matches!(self.eligibility(&inner, e), Eligibility::Usable))
                .filter(|e| self.testable(&e.info))
                .map(|e| (self.priority_of(&inner, &e.info), Arc::clone(&e.info)))
                .collect()
        };
        timed.sort_by(|a, b| super::resolve::candidate_order((a.0, &a.1), (b.0, &b.1)));
        Ok(timed)
    }

    /// Times `timed` (see the module docs); the choice is left to [`Self::with_choice`].
    fn time_candidates(&self, name: &str, timed: &[(u32, Arc<DriverInfo>)]) -> Result<Calibration> {
        let mut benches = Vec::with_capacity(timed.len());
        for (_, info) in timed {
            benches.push((Arc::clone(info), Bench::new(info, &self.token)?));
        }
        let sizes = self.config.selection.sizes.clone();
        let start = Instant::now();
        let (figures, rounds) = if benches.is_empty() {
            (Vec::new(), 0)
        } else {
            time_interleaved(&mut benches, &sizes, CALIBRATION_BUDGET)?
        };
        let c = Calibration {
            name: name.to_string(),
            sizes,
            candidates: timed
                .iter()
                .zip(figures)
                .map(|((priority, info), (mbps, rounds))| Measured {
                    driver: info.driver().to_string(),
                    priority: *priority,
                    mbps,
                    rounds,
                })
                .collect(),
            rounds,
            elapsed_ms: start.elapsed().as_secs_f64() * 1e3,
            choice: None,
            speedups: Vec::new(),
            cached: false,
        };
        Ok(c.with_speedups())
    }

    /// `c` with the candidates' current priorities and the driver the rule chooses now.
    fn with_choice(&self, mut c: Calibration) -> Calibration {
        let inner = self.inner.lock();
        for m in &mut c.candidates {
            if let Some(e) = inner.entries.get(m.driver.as_str()) {
                m.priority = self.priority_of(&inner, &e.info);
            }
        }
        let order: Vec<(u32, &Entry)> = c
            .candidates
            .iter()
            .filter_map(|m| inner.entries.get(m.driver.as_str()))
            .map(|e| (self.priority_of(&inner, &e.info), e))
            .collect();
        c.choice = self
            .calibrated_pick_with(&inner, &c, &order)
            .or_else(|| order.first().map(|(_, e)| e.info.driver().to_string()));
        c
    }

    /// Whether [`Registry::calibrate_once`] may still have work for `name`: calibration
    /// is on and `name` has no recorded choice yet (it may have no driver to time, which
    /// `calibrate_once` finds out; this answer errs towards asking it).
    pub(super) fn calibration_pending(&self, inner: &Inner, name: &str) -> bool {
        self.config.selection.calibrate && !inner.calibrations.contains_key(name)
    }

    /// Before the first resolution of `name` with calibration on: takes its candidates'
    /// figures from the cache file when it holds them for this CPU, build and sizes, else
    /// measures them (and records them there), and keeps them (a name that is not an
    /// algorithm with concrete drivers is left alone). A measurement that fails (a driver
    /// refusing the bench's request) is logged and the ladder decides.
    pub(super) fn calibrate_once(&self, name: &str) {
        if !self.config.selection.calibrate {
            return;
        }
        {
            let inner = self.inner.lock();
            if inner.calibrations.contains_key(name)
                || !inner
                    .entries
                    .values()
                    .any(|e| !e.info.is_instance() && e.info.name() == name)
            {
                return;
            }
        }
        let measured = self.calibration_candidates(name).and_then(|timed| {
            let drivers: Vec<String> = timed.iter().map(|(_, i)| i.driver().to_string()).collect();
            if let Some(c) = self.cached_calibration(name, &drivers) {
                return Ok(c);
            }
            let c = self.time_candidates(name, &timed)?;
            self.store_calibration(&c);
            Ok(c)
        });
        let c = match measured {
            Ok(c) => self.with_choice(c),
            Err(e) => {
                tracing::warn!(
                    target: "cryptoreg::calibrate",
                    name,
                    "calibration failed, the priorities decide: {e}"
                );
                Calibration {
                    name: name.to_string(),
                    ..Calibration::default()
                }
            }
        };
        tracing::info!(
            target: "cryptoreg::calibrate",
            name,
            choice = c.choice.as_deref().unwrap_or("-"),
            rounds = c.rounds,
            cached = c.cached,
            "calibrated {name} {}: {}",
            if c.cached {
                "from the cache file".to_string()
            } else {
                format!("in {:.1} ms", c.elapsed_ms)
            },
            c.choice.as_deref().unwrap_or("nothing usable")
        );
        let mut inner = self.inner.lock();
        inner.calibrations.entry(name.to_string()).or_insert(c);
    }

    /// Where calibration moves the resolver's choice for `name`: the index in
    /// `candidates` (already in the resolver's order) of a usable candidate faster than
    /// the leader by more than the margin, if the rule allows one (see the module docs).
    pub(super) fn calibrated_pick(
        &self,
        inner: &Inner,
        name: &str,
        candidates: &[(u32, &Entry)],
    ) -> Option<usize> {
        if !self.config.selection.calibrate {
            return None;
        }
        let c = inner.calibrations.get(name)?;
        let pick = self.calibrated_pick_with(inner, c, candidates)?;
        candidates.iter().position(|(_, e)| e.info.driver() == pick)
    }

    fn calibrated_pick_with(
        &self,
        inner: &Inner,
        c: &Calibration,
        candidates: &[(u32, &Entry)],
    ) -> Option<String> {
        let usable = |e: &Entry| matches!(self.eligibility(inner, e), Eligibility::Usable);
        let (_, leader) = candidates.iter().find(|(_, e)| usable(e))?;
        if leader.info.is_instance()
            || self
                .priority_and_source(inner, &leader.info)
                .1
                .is_operator()
        {
            return None;
        }
        // A leader that was not timed gives no speedups, so nothing is promoted.
        candidates
            .iter()
            .filter(|(_, e)| {
                usable(e)
                    && !e.info.is_instance()
                    && self.priority_and_source(inner, &e.info).1 == PrioritySource::Base
            })
            .filter_map(|(_, e)| Some((e, c.speedup(e.info.driver(), leader.info.driver())?)))
            .filter(|&(_, speedup)| self.beyond_margin(speedup))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(e, _)| e.info.driver().to_string())
    }

    /// Whether a speedup (see [`Measured::speedup`]) is more than `[selection]
    /// margin_percent`: the one comparison the rule and `explain` make.
    pub(super) fn beyond_margin(&self, speedup: f64) -> bool {
        speedup > 1.0 + f64::from(self.config.selection.margin_percent) / 100.0
    }

    /// The figures kept for `name`, if calibration measured it.
    pub fn calibration(&self, name: &str) -> Option<Calibration> {
        self.inner.lock().calibrations.get(name).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_score_is_the_geometric_mean_and_zero_without_figures() {
        let m = |mbps: Vec<f64>| Measured {
            driver: "d".into(),
            priority: 1,
            mbps,
            rounds: Vec::new(),
        };
        assert!((m(vec![100.0, 400.0]).score() - 200.0).abs() < 1e-9);
        assert_eq!(m(vec![]).score(), 0.0);
        assert_eq!(m(vec![0.0, 5.0]).score(), 0.0);
    }

    #[test]
    fn the_speedup_is_the_median_of_paired_rounds() {
        let m = |rounds: Vec<f64>| Measured {
            driver: "d".into(),
            priority: 1,
            mbps: vec![1.0],
            rounds,
        };
        // Round 2 drifted for both: the pairs still say 2x.
        let a = m(vec![200.0, 100.0, 400.0]);
        let b = m(vec![100.0, 50.0, 200.0]);
        assert!((a.speedup(&b) - 2.0).abs() < 1e-9);
        assert!((b.speedup(&a) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn bench_keys_have_distinct_halves_and_medians_are_middle_values() {
        let k = bench_key(64);
        assert_ne!(k[..32], k[32..]);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut []), 0.0);
    }
}
