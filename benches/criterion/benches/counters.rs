//! The cost of per-handle counting at 16 bytes: a registry handle (counted in its own
//! cell) against a handle of the same driver built with `driver::build_skcipher` (not
//! counted), on the driver the registry picks for `xts(aes)`. The issue's bound: within 2%.
//!
//! ```text
//! cargo bench -p cryptoreg --bench counters
//! ```
//!
//! prints criterion's two figures, then an interleaved comparison that is what to quote:
//! 41 rounds, each timing a batch of 200 000 requests on each handle (which goes first
//! alternates), and the counted/uncounted time ratio's median and spread over the rounds
//! — on a shared or loaded machine only ratios measured side by side mean anything.
//! Under `cargo test --benches` each part runs once, briefly, as a smoke test.

use std::time::Instant;

use criterion::{criterion_group, Criterion, Throughput};

use cryptoreg::{Config, Skcipher};

fn bench(c: &mut Criterion) {
    let (counted, uncounted) = handles();
    let iv = [0x24u8; 16];
    let mut group = c.benchmark_group(format!("counting/{}", counted.driver_name()));
    group.throughput(Throughput::Bytes(16));
    for (label, h) in [("counted", &counted), ("uncounted", &uncounted)] {
        let mut buf = [0x5Au8; 16];
        group.bench_function(label, |b| {
            b.iter(|| {
                h.encrypt_in_place(&iv, std::hint::black_box(&mut buf))
                    .unwrap()
            })
        });
    }
    group.finish();
}

/// The two handles of [`bench`], for the interleaved comparison.
fn handles() -> (Skcipher, Skcipher) {
    let mut config = Config::embedded();
    config.selftest.mode = cryptoreg::SelftestMode::Kat;
    let reg = cryptoreg::boot(config, None).expect("boot");
    let mut key: Vec<u8> = (0..64u8).collect();
    key[0] ^= 0x80;
    let mut counted = reg.alloc_skcipher("xts(aes)").expect("xts(aes)");
    counted.set_key(&key).unwrap();
    let info = reg.resolve(counted.driver_name()).unwrap();
    let mut uncounted = cryptoreg::driver::build_skcipher(info, &reg.host_token()).unwrap();
    uncounted.set_key(&key).unwrap();
    (counted, uncounted)
}

/// Seconds for `n` 16-byte requests on `h`.
fn batch(h: &Skcipher, n: u32) -> f64 {
    let iv = [0x24u8; 16];
    let mut buf = [0x5Au8; 16];
    let t = Instant::now();
    for _ in 0..n {
        h.encrypt_in_place(&iv, std::hint::black_box(&mut buf))
            .unwrap();
    }
    t.elapsed().as_secs_f64()
}

/// The interleaved ratio: counted time over uncounted time per round, median and range.
fn interleaved(quick: bool) {
    let (counted, uncounted) = handles();
    let (rounds, n) = if quick { (3, 1_000) } else { (41, 200_000) };
    batch(&counted, n);
    batch(&uncounted, n);
    let mut ratios: Vec<f64> = (0..rounds)
        .map(|r| {
            if r % 2 == 0 {
                let c = batch(&counted, n);
                c / batch(&uncounted, n)
            } else {
                let u = batch(&uncounted, n);
                batch(&counted, n) / u
            }
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    println!(
        "counting/{}: counted/uncounted time at 16 bytes, {rounds} interleaved rounds of {n}: \
         median {:.4} (min {:.4}, max {:.4}; issue bound 1.02)",
        counted.driver_name(),
        ratios[rounds / 2],
        ratios[0],
        ratios[rounds - 1]
    );
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    // `cargo bench` passes `--bench`; `cargo test --benches` does not.
    interleaved(!std::env::args().any(|a| a == "--bench"));
}
