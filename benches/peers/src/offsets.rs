//! Issue 23's offset goal: every ymm and zmm driver at 8192 bytes with its buffers 16, 32
//! and 48 bytes past a cache line, against the same driver at a cache-line start, all in
//! one interleaved run (so the ratio is not a comparison of two runs). A 512-bit store
//! that crosses a cache line costs several percent; the goal allows 3%.

use crate::harness::{interleaved, Contender, Msg, Settings};
use crate::report::{Goal, Table};

/// The buffer offsets compared, the first the reference.
pub const OFFSETS: [usize; 4] = [0, 16, 32, 48];
/// The size the goal names.
pub const SIZE: usize = 8192;
/// The least share of the aligned speed a driver keeps at any offset.
const MIN: f64 = 0.97;

/// The drivers of `among` that use ymm or zmm registers (named `-avx*` or `-vaes-*`).
pub fn vector_drivers(among: &[String]) -> Vec<String> {
    among
        .iter()
        .filter(|d| d.contains("avx") || d.contains("vaes"))
        .cloned()
        .collect()
}

fn label(driver: &str, offset: usize) -> String {
    format!("{driver} +{offset}")
}

/// Each of `drivers` at each of [`OFFSETS`], `make` building the contender for a driver
/// and a message; interleaved at [`SIZE`].
pub fn table<'a>(
    title: &str,
    drivers: &[String],
    s: Settings,
    make: impl Fn(&str, Msg) -> Contender<'a>,
) -> Table {
    let mut cs = Vec::new();
    for d in drivers {
        for off in OFFSETS {
            let mut c = make(d, Settings { offset: off, ..s }.msg(SIZE));
            c.name = label(d, off);
            cs.push(c);
        }
    }
    let names = cs.iter().map(|c| c.name.clone()).collect();
    let mut t = Table::new(
        format!("{title}, {SIZE} bytes, buffers at these offsets from a cache line"),
        &[SIZE],
        names,
    );
    if !cs.is_empty() {
        for (row, rate) in t.rates.iter_mut().zip(interleaved(&mut cs, SIZE, s)) {
            row.push(rate);
        }
    }
    t
}

/// Per driver, its slowest misaligned offset against its aligned figure, `>= 0.97`.
pub fn goals(t: &Table, drivers: &[String]) -> Vec<Goal> {
    drivers
        .iter()
        .map(|d| {
            let at = |off| t.rate(&label(d, off), SIZE).map(|r| (label(d, off), r));
            let worst = OFFSETS[1..]
                .iter()
                .filter_map(|&off| at(off))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            Goal {
                what: format!("{d} slowest offset / cache-line start at {SIZE}"),
                num: worst,
                den: at(0),
                min: MIN,
            }
        })
        .collect()
}
