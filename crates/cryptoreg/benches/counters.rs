//! The cost of per-handle counting at 16 bytes: a registry handle (counted in its own
//! cell) against a handle of the same driver built with `from_info` (not counted), on
//! the driver the registry picks for `xts(aes)`. The bound: within 2%.
//! `cargo bench -p cryptoreg --bench counters`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use cryptoreg::{Config, Skcipher};

fn bench(c: &mut Criterion) {
    let mut config = Config::embedded();
    config.selftest.mode = cryptoreg::SelftestMode::Kat;
    let reg = cryptoreg::boot(config, None).expect("boot");
    let mut key: Vec<u8> = (0..64u8).collect();
    key[0] ^= 0x80;
    let mut counted = reg.alloc_skcipher("xts(aes)").expect("xts(aes)");
    counted.set_key(&key).unwrap();
    let info = reg.resolve(counted.driver_name()).unwrap();
    let mut uncounted = Skcipher::from_info(info, &reg.host_token()).unwrap();
    uncounted.set_key(&key).unwrap();
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

criterion_group!(benches, bench);
criterion_main!(benches);
