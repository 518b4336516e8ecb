//! `cargo xtask limits [--rounds N] [--slice-ms M]`: the gauge of the limit.
//!
//! Times, interleaved in one process, the clock under vector load, the throughput of each
//! instruction class the families are bound by, each family's minimal kernel
//! (`cryptoreg_algos::limits`, where the derivation is) and each family's best driver on
//! 8 KiB at a cache-line start; prints for each driver its MB/s, cycles per byte, the
//! kernel's bound and the ratio (a ratio above 1.00 is flagged: the measurement is wrong).
//! Every figure is the median over the rounds; within a round every item runs one slice,
//! in turn. On arm64 it says it has nothing to measure.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use cryptoreg::Registry;
use cryptoreg_algos::limits::{self, ceiling, cycles_per_byte, median, Loop, Ratio, Scratch};

const USAGE: &str = "usage: cryptoreg-limits [--rounds N] [--slice-ms M]";
const SIZE: usize = 8192;

/// One family: its best driver on this ladder and the kernel that bounds it.
struct Family {
    label: &'static str,
    driver: &'static str,
    kind: Kind,
    key_len: usize,
    kernel: Loop,
    /// The VAESENC-only ceiling: instructions per 64 bytes (rounds), 0 for none.
    aes_rounds: usize,
}

#[derive(Clone, Copy)]
enum Kind {
    Skcipher,
    Aead,
    Hash,
}

const FAMILIES: &[Family] = &[
    Family {
        label: "AES-128-CTR encrypt",
        driver: "ctr-aes-vaes-avx10_512",
        kind: Kind::Skcipher,
        key_len: 16,
        kernel: Loop::Ctr128Zmm,
        aes_rounds: 10,
    },
    Family {
        label: "AES-256-XTS encrypt",
        driver: "xts-aes-vaes-avx10_512",
        kind: Kind::Skcipher,
        key_len: 64,
        kernel: Loop::Xts256Zmm,
        aes_rounds: 14,
    },
    Family {
        label: "AES-128-GCM seal",
        driver: "gcm-aes-vaes-avx10_512",
        kind: Kind::Aead,
        key_len: 16,
        kernel: Loop::Gcm128Zmm,
        aes_rounds: 10,
    },
    Family {
        label: "AES-256-GCM seal",
        driver: "gcm-aes-vaes-avx10_512",
        kind: Kind::Aead,
        key_len: 32,
        kernel: Loop::Gcm256Zmm,
        aes_rounds: 14,
    },
    Family {
        label: "ChaCha20 encrypt",
        driver: "chacha20-avx512f",
        kind: Kind::Skcipher,
        key_len: 32,
        kernel: Loop::Chacha20Zmm,
        aes_rounds: 0,
    },
    Family {
        label: "Poly1305 digest",
        driver: "poly1305-avx512ifma",
        kind: Kind::Hash,
        key_len: 32,
        kernel: Loop::Poly1305Ifma,
        aes_rounds: 0,
    },
    Family {
        label: "ChaCha20-Poly1305 seal",
        driver: "rfc7539-chacha20-poly1305-avx512ifma",
        kind: Kind::Aead,
        key_len: 32,
        kernel: Loop::ChaCha20Poly1305Zmm,
        aes_rounds: 0,
    },
];

/// A buffer of `SIZE` bytes at a cache-line start.
struct Aligned {
    store: Vec<u8>,
    at: usize,
}

impl Aligned {
    fn new() -> Aligned {
        let store = vec![0x5au8; SIZE + 64];
        let at = store.as_ptr().align_offset(64).min(64);
        Aligned { store, at }
    }

    fn get(&mut self) -> &mut [u8] {
        &mut self.store[self.at..self.at + SIZE]
    }
}

/// Something timed in slices: runs `n` units, each of `bytes_or_instr` units of work.
struct Item<'a> {
    run: Box<dyn FnMut(u64) + 'a>,
    /// Units per call of `run(1)` (bytes, instructions, or cycles for the clock).
    per_unit: f64,
    /// Calls per slice (found before the rounds).
    batch: u64,
    rates: Vec<f64>,
}

impl<'a> Item<'a> {
    fn new(per_unit: f64, run: impl FnMut(u64) + 'a) -> Item<'a> {
        Item {
            run: Box::new(run),
            per_unit,
            batch: 1,
            rates: Vec::new(),
        }
    }

    /// Grows the batch until one takes about `slice`.
    fn size(&mut self, slice: Duration) {
        loop {
            let t = Instant::now();
            (self.run)(self.batch);
            let e = t.elapsed();
            if e >= slice / 2 || self.batch > 1 << 40 {
                let scale = slice.as_secs_f64() / e.as_secs_f64().max(1e-9);
                self.batch = ((self.batch as f64 * scale) as u64).max(1);
                return;
            }
            self.batch *= 4;
        }
    }

    fn slice(&mut self) {
        let t = Instant::now();
        (self.run)(self.batch);
        let s = t.elapsed().as_secs_f64().max(1e-9);
        self.rates.push(self.batch as f64 * self.per_unit / s);
    }

    fn median(&self) -> f64 {
        median(&mut self.rates.clone())
    }
}

fn loop_item<'a>(l: Loop, per_iteration: f64) -> Option<Item<'a>> {
    if !limits::supported(l) {
        return None;
    }
    let mut scratch = Box::new(Scratch::default());
    Some(Item::new(per_iteration, move |n| {
        limits::time(l, n, &mut scratch);
    }))
}

fn driver_item<'a>(reg: &Registry, f: &Family) -> Result<Item<'a>, String> {
    let e = |e: cryptoreg::Error| format!("{}: {e}", f.driver);
    let key: Vec<u8> = (0..f.key_len)
        .map(|i| (i as u8).wrapping_mul(29) ^ 0x47)
        .collect();
    let mut buf = Aligned::new();
    Ok(match f.kind {
        Kind::Skcipher => {
            let mut h = reg.alloc_skcipher(f.driver).map_err(e)?;
            h.set_key(&key).map_err(e)?;
            let iv = vec![0u8; h.iv_size()];
            Item::new(SIZE as f64, move |n| {
                for _ in 0..n {
                    h.encrypt_in_place(&iv, black_box(buf.get()))
                        .expect("encrypts");
                }
            })
        }
        Kind::Aead => {
            let mut h = reg.alloc_aead(f.driver).map_err(e)?;
            h.set_key(&key).map_err(e)?;
            h.set_authsize(16).map_err(e)?;
            let nonce = vec![0u8; h.nonce_size()];
            let mut tag = [0u8; 16];
            Item::new(SIZE as f64, move |n| {
                for _ in 0..n {
                    h.seal(&nonce, &[], black_box(buf.get()), &mut tag)
                        .expect("seals");
                }
            })
        }
        Kind::Hash => {
            let mut h = reg.alloc_hash(f.driver).map_err(e)?;
            h.set_key(&key).map_err(e)?;
            let mut out = vec![0u8; h.digest_size()];
            Item::new(SIZE as f64, move |n| {
                for _ in 0..n {
                    h.digest(black_box(buf.get()), &mut out).expect("digests");
                }
            })
        }
    })
}

fn parse(args: &[String]) -> Result<(usize, Duration), String> {
    let (mut rounds, mut slice) = (7usize, Duration::from_millis(20));
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v: u64 = it
            .next()
            .and_then(|v| v.parse().ok())
            .filter(|&v| v > 0)
            .ok_or_else(|| format!("{a} takes a positive number\n{USAGE}"))?;
        match a.as_str() {
            "--rounds" => rounds = v as usize,
            "--slice-ms" => slice = Duration::from_millis(v),
            _ => return Err(USAGE.to_string()),
        }
    }
    Ok((rounds, slice))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (rounds, slice) = match parse(&args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if !cfg!(target_arch = "x86_64") {
        println!(
            "cryptoreg limits: nothing to measure on {}: the gauge's loops are x86-64 \
             (VAES, VPCLMULQDQ, AVX-512, IFMA)",
            std::env::consts::ARCH
        );
        return ExitCode::SUCCESS;
    }
    if cfg!(debug_assertions) {
        eprintln!("limits: note: unoptimized build; run `cargo xtask limits` for real figures");
    }
    let reg = match cryptoreg::Config::load(None).and_then(|c| cryptoreg::boot(c, None)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("limits: boot: {e}");
            return ExitCode::FAILURE;
        }
    };
    let per_iter = |l: Loop| l.instructions() as f64;
    let mut clock = loop_item(Loop::Clock, per_iter(Loop::Clock));
    let mut classes: Vec<(Loop, Option<Item<'_>>)> = Loop::CLASSES
        .iter()
        .map(|&l| (l, loop_item(l, per_iter(l))))
        .collect();
    let mut kernels: Vec<Option<Item<'_>>> = FAMILIES
        .iter()
        .map(|f| loop_item(f.kernel, f.kernel.bytes() as f64))
        .collect();
    let mut drivers: Vec<Result<Item<'_>, String>> =
        FAMILIES.iter().map(|f| driver_item(&reg, f)).collect();
    let all = |clock: &mut Option<Item<'_>>,
               classes: &mut Vec<(Loop, Option<Item<'_>>)>,
               kernels: &mut Vec<Option<Item<'_>>>,
               drivers: &mut Vec<Result<Item<'_>, String>>,
               f: &mut dyn FnMut(&mut Item<'_>)| {
        clock.iter_mut().for_each(&mut *f);
        for (_, c) in classes.iter_mut() {
            c.iter_mut().for_each(&mut *f);
        }
        for (k, d) in kernels.iter_mut().zip(drivers.iter_mut()) {
            k.iter_mut().for_each(&mut *f);
            if let Ok(d) = d {
                f(d);
            }
        }
    };
    all(
        &mut clock,
        &mut classes,
        &mut kernels,
        &mut drivers,
        &mut |i| i.size(slice),
    );
    for _ in 0..rounds {
        all(
            &mut clock,
            &mut classes,
            &mut kernels,
            &mut drivers,
            &mut |i| i.slice(),
        );
    }
    let hz = clock.as_ref().map_or(0.0, Item::median);
    println!(
        "cryptoreg limits: median of {rounds} interleaved rounds of ~{} ms slices; {SIZE}-byte \
         buffers at a cache-line start",
        slice.as_millis()
    );
    println!(
        "clock under zmm load: {:.2} GHz (a dependent vpaddd chain, one per cycle)\n",
        hz / 1e9
    );
    println!(
        "{:<24} {:>12} {:>10}",
        "INSTRUCTIONS", "per second", "per cycle"
    );
    let mut aes_zmm = 0.0;
    for (l, item) in &classes {
        match item {
            Some(i) => {
                let r = i.median();
                if *l == Loop::AesZmm {
                    aes_zmm = r;
                }
                println!("{:<24} {:>12.3e} {:>10.2}", l.label(), r, r / hz.max(1.0));
            }
            None => println!("{:<24} {:>12} {:>10}", l.label(), "n/a", "-"),
        }
    }
    println!(
        "\n{:<24} {:<38} {:>8} {:>6} {:>9} {:>6} {:>6}",
        "FAMILY", "BEST DRIVER", "MB/s", "c/B", "BOUND", "c/B", "RATIO"
    );
    let mut suspect = false;
    for ((f, k), d) in FAMILIES.iter().zip(&kernels).zip(&drivers) {
        let (mbps, bound) = match (d, k) {
            (Ok(d), Some(k)) => (d.median() / 1e6, k.median() / 1e6),
            (Err(e), _) => {
                println!("{:<24} {:<38} n/a ({e})", f.label, f.driver);
                continue;
            }
            (_, None) => {
                println!(
                    "{:<24} {:<38} n/a (this CPU lacks the kernel's features)",
                    f.label, f.driver
                );
                continue;
            }
        };
        let ratio = Ratio::of(mbps, bound);
        suspect |= ratio.suspect();
        println!(
            "{:<24} {:<38} {:>8.0} {:>6.3} {:>9.0} {:>6.3} {:>6.2}{}",
            f.label,
            f.driver,
            mbps,
            cycles_per_byte(hz, mbps * 1e6),
            bound,
            cycles_per_byte(hz, bound * 1e6),
            ratio.0,
            if ratio.suspect() {
                "  MEASUREMENT PROBLEM (> 1.00)"
            } else {
                ""
            }
        );
        if f.aes_rounds > 0 && aes_zmm > 0.0 {
            let c = ceiling(aes_zmm, f.aes_rounds as f64, 64.0) / 1e6;
            println!(
                "{:<24} {:<38} {:>8} {:>6} {:>9.0} {:>6.3} {:>6.2}",
                "",
                "  AES ceiling (VAESENC zmm alone)",
                "",
                "",
                c,
                cycles_per_byte(hz, c * 1e6),
                Ratio::of(mbps, c).0
            );
        }
    }
    if suspect {
        println!("\nA ratio above 1.00 means the measurement is wrong (see the table).");
    }
    ExitCode::SUCCESS
}
