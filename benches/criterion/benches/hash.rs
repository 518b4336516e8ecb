//! Criterion benches of the keyed hashes `ghash` (16-byte key) and `poly1305` (32-byte
//! one-time key): every driver that passed, one-shot `digest`, at 16, 64, 1420 and 8192
//! bytes (the GCM issue's goal compares `ghash-vpclmulqdq-avx512` with `ghash-clmulni` at
//! 8192; the ChaCha issue's ladder runs from `poly1305-generic` to
//! `poly1305-avx512ifma`). Run with `cargo xtask bench` or
//! `cargo bench -p cryptoreg --bench hash`.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use cryptoreg::{Config, Registry};

const SIZES: &[usize] = &[16, 64, 1420, 8192];

fn bench_hash(c: &mut Criterion, reg: &Registry, name: &str) {
    let mut group = c.benchmark_group(name);
    let drivers = common::drivers(reg, name);
    assert!(!drivers.is_empty(), "no driver of {name} passed");
    for driver in drivers {
        let mut h = reg.alloc_hash(&driver).expect("passed driver allocates");
        if h.is_keyed() {
            let key_len = h.info().sizes().max_key;
            let key: Vec<u8> = (0..key_len).map(|i| i as u8 ^ 0x3c).collect();
            h.set_key(&key).expect("valid key");
        }
        let mut out = vec![0u8; h.digest_size()];
        for &size in SIZES {
            let data = vec![0x5Au8; size];
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::new(&driver, size), &size, |b, _| {
                b.iter(|| h.digest(&data, &mut out).expect("digests"))
            });
        }
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let reg = cryptoreg::boot(Config::embedded(), None).expect("boot");
    bench_hash(c, &reg, "ghash");
    bench_hash(c, &reg, "poly1305");
}

criterion_group! {
    name = hash;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_millis(800));
    targets = benches
}
criterion_main!(hash);
