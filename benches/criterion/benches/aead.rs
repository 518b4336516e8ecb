//! Criterion benches of `gcm(aes)` (128- and 256-bit keys), `rfc7539(chacha20,poly1305)`
//! and `xchacha20poly1305`: every driver that passed (concrete drivers such as the fused
//! ChaCha20-Poly1305 ones, the template instance the name builds and the all-generic
//! one), at the sizes the speed goals of the GCM and ChaCha issues name (16, 64, 1420 and
//! 8192 bytes).
//!
//! `seal` is the one-shot call in place with a 16-byte tag and no AAD. `open` decrypts
//! out of place from one ciphertext segment into one output segment (`open_to`), as the
//! kernel's tcrypt does: the ciphertext must stay intact to be opened again, and copying
//! it back before every call would be timed too. Run with `cargo xtask bench` or
//! `cargo bench -p cryptoreg --bench aead`.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use cryptoreg::{Config, Registry};

const SIZES: &[usize] = &[16, 64, 1420, 8192];

/// Seal and open of every passed driver of `name` (a nonce of `nonce_len` bytes, 16-byte
/// tag), keyed with `key_len` bytes; the group is called `group_name`.
fn bench_aead(
    c: &mut Criterion,
    reg: &Registry,
    (name, group_name): (&str, &str),
    key_len: usize,
    nonce_len: usize,
) {
    let mut group = c.benchmark_group(group_name);
    let drivers = common::drivers(reg, name);
    assert!(!drivers.is_empty(), "no driver of {name} passed");
    for driver in drivers {
        let mut h = reg.alloc_aead(&driver).expect("passed driver allocates");
        let key: Vec<u8> = (0..key_len as u8).map(|i| i ^ 0x80).collect();
        h.set_key(&key).expect("valid key");
        h.set_authsize(16).expect("16-byte tags are valid");
        let nonce = vec![0x24u8; nonce_len];
        for &size in SIZES {
            group.throughput(Throughput::Bytes(size as u64));
            let mut buf = vec![0x5Au8; size];
            let mut tag = [0u8; 16];
            group.bench_with_input(
                BenchmarkId::new(format!("{driver} seal"), size),
                &size,
                |b, _| b.iter(|| h.seal(&nonce, &[], &mut buf, &mut tag).expect("seals")),
            );
            let mut ct = vec![0x5Au8; size];
            h.seal(&nonce, &[], &mut ct, &mut tag).expect("seals");
            let mut out = vec![0u8; size];
            group.bench_with_input(
                BenchmarkId::new(format!("{driver} open"), size),
                &size,
                |b, _| {
                    b.iter(|| {
                        h.open_to(&nonce, &[], &[&ct], &mut [&mut out], &tag)
                            .expect("opens")
                    })
                },
            );
        }
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let reg = cryptoreg::boot(Config::embedded(), None).expect("boot");
    bench_aead(c, &reg, ("gcm(aes)", "gcm(aes) 128-bit"), 16, 12);
    bench_aead(c, &reg, ("gcm(aes)", "gcm(aes) 256-bit"), 32, 12);
    let chapoly = "rfc7539(chacha20,poly1305)";
    bench_aead(c, &reg, (chapoly, chapoly), 32, 12);
    let xchapoly = "xchacha20poly1305";
    bench_aead(c, &reg, (xchapoly, xchapoly), 32, 24);
}

criterion_group! {
    name = aead;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_millis(800));
    targets = benches
}
criterion_main!(aead);
