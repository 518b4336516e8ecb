//! Interleaved timing: every contender of a comparison runs in the same rounds, one
//! batch each in turn, so a change of clock frequency, a noisy neighbour or thermal drift
//! hits all of them alike instead of whichever happened to run last. The figure kept is
//! the median over rounds, which ignores the odd interrupted batch.

use std::time::{Duration, Instant};

/// One implementation of one operation on one message size.
pub struct Contender<'a> {
    pub name: String,
    /// Runs the operation `n` times.
    pub run: Box<dyn FnMut(u64) + 'a>,
}

impl<'a> Contender<'a> {
    pub fn new(name: impl Into<String>, run: impl FnMut(u64) + 'a) -> Contender<'a> {
        Contender {
            name: name.into(),
            run: Box::new(run),
        }
    }
}

/// A message size and where its buffer starts relative to a 64-byte (cache-line)
/// boundary. Every contender of a comparison gets its buffer at the same offset: a
/// `Vec`'s address modulo 64 depends on the allocator's history, and on this hardware a
/// 64-byte store that crosses a cache line costs more, so buffers allocated one by one
/// gave the contenders different, run-dependent handicaps.
#[derive(Clone, Copy, Debug)]
pub struct Msg {
    pub size: usize,
    /// `0..64`: the buffer's address modulo 64.
    pub offset: usize,
}

impl Msg {
    /// A buffer of `self.size` bytes of `fill` at `self.offset` past a 64-byte boundary.
    pub fn buffer(self, fill: u8) -> AlignedBuf {
        let store = vec![fill; self.size + 64];
        let start = (self.offset + 64 - store.as_ptr() as usize % 64) % 64;
        AlignedBuf {
            store,
            start,
            len: self.size,
        }
    }
}

/// A heap buffer that starts at a chosen offset from a 64-byte boundary ([`Msg::buffer`]).
pub struct AlignedBuf {
    store: Vec<u8>,
    start: usize,
    len: usize,
}

impl std::ops::Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.store[self.start..self.start + self.len]
    }
}

impl std::ops::DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.store[self.start..self.start + self.len]
    }
}

/// How long and how often.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Rounds; each contender's figure is the median of this many batches.
    pub reps: usize,
    /// Take each contender's fastest batch instead of the median (`--fastest`): on a
    /// host whose vCPU is often descheduled, a batch that ran undisturbed is the fastest
    /// one, and with many short batches every contender gets some.
    pub fastest: bool,
    /// The target duration of one batch.
    pub slice: Duration,
    /// Every message buffer's address modulo 64 (`--offset`).
    pub offset: usize,
}

impl Settings {
    /// A message of `size` bytes at this run's buffer offset.
    pub fn msg(self, size: usize) -> Msg {
        Msg {
            size,
            offset: self.offset,
        }
    }
}

/// Operations per batch so that one batch of `c` takes about `slice`.
fn calibrate(c: &mut Contender<'_>, slice: Duration) -> u64 {
    let mut n: u64 = 1;
    loop {
        let t = Instant::now();
        (c.run)(n);
        let took = t.elapsed();
        if took >= slice / 4 || n >= 1 << 30 {
            let scale = slice.as_secs_f64() / took.as_secs_f64().max(1e-9);
            return ((n as f64 * scale) as u64).max(1);
        }
        n *= 2;
    }
}

/// Median bytes per second of each contender on `size`-byte messages, in their order.
pub fn interleaved(contenders: &mut [Contender<'_>], size: usize, s: Settings) -> Vec<f64> {
    // Calibration doubles as the warm-up.
    let batches: Vec<u64> = contenders
        .iter_mut()
        .map(|c| calibrate(c, s.slice))
        .collect();
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(s.reps); contenders.len()];
    for _ in 0..s.reps {
        for ((c, &n), out) in contenders.iter_mut().zip(&batches).zip(&mut samples) {
            let t = Instant::now();
            (c.run)(n);
            let secs = t.elapsed().as_secs_f64().max(1e-9);
            out.push(n as f64 * size as f64 / secs);
        }
    }
    samples
        .into_iter()
        .map(|v| summarize(v, s.fastest))
        .collect()
}

/// A contender's figure from its batches: the median, or the fastest (`fastest`).
fn summarize(v: Vec<f64>, fastest: bool) -> f64 {
    if fastest {
        v.into_iter().fold(0.0, f64::max)
    } else {
        median(v)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn summarize_takes_the_median_or_the_fastest() {
        assert_eq!(summarize(vec![3.0, 9.0, 2.0], false), 3.0);
        assert_eq!(summarize(vec![3.0, 9.0, 2.0], true), 9.0);
        assert_eq!(summarize(vec![], true), 0.0);
    }
}
