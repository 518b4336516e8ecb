//! Criterion benches: every driver of `xts(aes)` (AES-256) and `ctr(aes)` (AES-128) that
//! runs on this machine, side by side, at the sizes the speed goals name. Run with
//! `cargo xtask bench` or `cargo bench -p cryptoreg`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use cryptoreg::{Config, Registry};

/// Concrete drivers, plus the template instances the resolver would build, that passed.
fn drivers(reg: &Registry, name: &str) -> Vec<String> {
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

fn bench_alg(c: &mut Criterion, reg: &Registry, name: &str, key_len: usize, sizes: &[usize]) {
    let mut group = c.benchmark_group(name);
    for driver in drivers(reg, name) {
        let mut h = reg
            .alloc_skcipher(&driver)
            .expect("passed driver allocates");
        let mut key: Vec<u8> = (0..key_len as u8).collect();
        key[0] ^= 0x80;
        h.set_key(&key).expect("valid key");
        let iv = [0x24u8; 16];
        for &size in sizes {
            let mut buf = vec![0x5Au8; size];
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::new(&driver, size), &size, |b, _| {
                b.iter(|| h.encrypt_in_place(&iv, &mut buf).expect("encrypts"))
            });
        }
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let reg = cryptoreg::boot(Config::embedded(), None).expect("boot");
    bench_alg(c, &reg, "xts(aes)", 64, &[16, 512, 4096]);
    bench_alg(c, &reg, "ctr(aes)", 16, &[16, 4096, 8192]);
}

criterion_group! {
    name = skcipher;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_millis(800));
    targets = benches
}
criterion_main!(skcipher);
