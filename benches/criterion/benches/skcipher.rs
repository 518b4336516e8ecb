//! Criterion benches: every driver of `xts(aes)` (AES-256), `ctr(aes)` (AES-128) and
//! `chacha20` (the ladder from `chacha20-generic` to `chacha20-avx512f`) that runs on
//! this machine, side by side, at the sizes the speed goals name; and, for the driver the
//! registry picks, in place against out of place at 4096 bytes. Run with
//! `cargo xtask bench` or `cargo bench -p cryptoreg`.
//!
//! Every IV is 24 24 .. 24: for `chacha20` that is the 32-bit block counter 0x24242424
//! then the nonce, far enough from the 2^32 wrap (which the drivers refuse) for 8192
//! bytes.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use cryptoreg::{Config, Registry};
use cryptoreg_registry::{inventory, AlgDef, Factory, HostFeatures, SkcipherImpl};

fn bench_alg(c: &mut Criterion, reg: &Registry, name: &str, key_len: usize, sizes: &[usize]) {
    let mut group = c.benchmark_group(name);
    for driver in common::drivers(reg, name) {
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

/// A fresh, unkeyed instance of the compiled-in driver `driver`, straight from its
/// registration (no handle, no walker), to time the driver's own calls.
fn raw_driver(driver: &str) -> Box<dyn SkcipherImpl> {
    let def = inventory::iter::<AlgDef>
        .into_iter()
        .find(|d| d.driver() == driver)
        .expect("registered driver");
    match def.to_info().factory() {
        Factory::Skcipher(f) => f(&HostFeatures::detect()).expect("runs here"),
        _ => panic!("{driver} is not an skcipher"),
    }
}

/// The driver's own calls at 4096 bytes, in place (`start` + `encrypt_blocks` +
/// `encrypt_tail`) against out of place (`start` + `encrypt_blocks_to` +
/// `encrypt_tail_to`): the same call sequence, so the ratio is the kernels' out-of-place
/// cost alone, without the walker.
fn bench_driver_calls(c: &mut Criterion, name: &str, driver: &str, key: &[u8]) {
    const SIZE: usize = 4096;
    let mut imp = raw_driver(driver);
    imp.set_key(key).expect("valid key");
    let iv = [0x24u8; 16];
    let src = vec![0x5Au8; SIZE];
    let mut dst = vec![0u8; SIZE];
    let mut buf = vec![0x5Au8; SIZE];
    let mut group = c.benchmark_group(format!("{name} driver calls"));
    group.throughput(Throughput::Bytes(SIZE as u64));
    group.bench_function(BenchmarkId::new("blocks_in_place", driver), |b| {
        b.iter(|| {
            let mut st = [0u8; 16];
            imp.start(&iv, &mut st).expect("starts");
            imp.encrypt_blocks(&mut st, &mut buf);
            imp.encrypt_tail(&mut st, &mut []);
        })
    });
    group.bench_function(BenchmarkId::new("blocks_to", driver), |b| {
        b.iter(|| {
            let mut st = [0u8; 16];
            imp.start(&iv, &mut st).expect("starts");
            imp.encrypt_blocks_to(&mut st, &src, &mut dst);
            imp.encrypt_tail_to(&mut st, &[], &mut []);
        })
    });
    group.finish();
}

/// The chosen driver of `name` at 4096 bytes, four ways: `in_place` (the one-shot call,
/// no walker), `encrypt_to` (one source and one destination segment: the walker hands the
/// driver a (src, dst) run, one pass over memory), `segments_2x2048` (in place through the
/// walker, to tell its per-call cost from the out-of-place cost) and `copy_then_in_place`
/// (what an out-of-place request cost before drivers overrode the `*_to` calls).
fn bench_out_of_place(c: &mut Criterion, reg: &Registry, name: &str, key_len: usize) {
    const SIZE: usize = 4096;
    let mut h = reg.alloc_skcipher(name).expect("allocates");
    let mut key: Vec<u8> = (0..key_len as u8).collect();
    key[0] ^= 0x80;
    h.set_key(&key).expect("valid key");
    let iv = [0x24u8; 16];
    let src = vec![0x5Au8; SIZE];
    let mut dst = vec![0u8; SIZE];
    let mut buf = vec![0x5Au8; SIZE];
    let mut group = c.benchmark_group(format!("{name} out-of-place"));
    group.throughput(Throughput::Bytes(SIZE as u64));
    let driver = h.driver_name().to_string();
    group.bench_function(BenchmarkId::new("in_place", &driver), |b| {
        b.iter(|| h.encrypt_in_place(&iv, &mut buf).expect("encrypts"))
    });
    group.bench_function(BenchmarkId::new("encrypt_to", &driver), |b| {
        b.iter(|| {
            h.encrypt_to(&iv, &[&src], &mut [&mut dst])
                .expect("encrypts")
        })
    });
    group.bench_function(BenchmarkId::new("segments_2x2048", &driver), |b| {
        b.iter(|| {
            let (x, y) = buf.split_at_mut(SIZE / 2);
            h.encrypt_segments(&iv, &mut [x, y]).expect("encrypts")
        })
    });
    group.bench_function(BenchmarkId::new("copy_then_in_place", &driver), |b| {
        b.iter(|| {
            dst.copy_from_slice(&src);
            h.encrypt_in_place(&iv, &mut dst).expect("encrypts")
        })
    });
    group.finish();
    bench_driver_calls(c, name, &driver, &key);
}

fn benches(c: &mut Criterion) {
    let reg = cryptoreg::boot(Config::embedded(), None).expect("boot");
    bench_alg(c, &reg, "xts(aes)", 64, &[16, 512, 4096]);
    bench_alg(c, &reg, "ctr(aes)", 16, &[16, 4096, 8192]);
    bench_alg(c, &reg, "chacha20", 32, &[16, 64, 1420, 8192]);
    bench_out_of_place(c, &reg, "xts(aes)", 64);
    bench_out_of_place(c, &reg, "ctr(aes)", 16);
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
