//! `cargo xtask limits [--rounds N] [--slice-ms M] [--fastest] [--ymm]`: the gauge of the
//! limit.
//!
//! Times, interleaved in one process, the clock under vector load, the throughput of each
//! instruction class the families are bound by, each family's minimal kernel
//! (`cryptoreg_algos::limits`, where the derivation is) and each family's best driver on
//! 8 KiB at a cache-line start; prints for each driver its MB/s, cycles per byte, the
//! kernel's bound and the ratio (a ratio above 1.00 is flagged: the measurement is wrong).
//! Every figure is the median over the rounds (with `--fastest`, each item's fastest
//! slice); within a round every item runs one slice, in turn. Without AVX-512, or with
//! `--ymm`, the ymm drivers against the VEX ymm kernels and the clock under ymm load (the
//! zmm class loops still run where the CPU has them). On arm64 it says it has nothing to
//! measure.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use cryptoreg::Registry;
use cryptoreg_algos::limits::{self, ceiling, cycles_per_byte, median, Loop, Ratio, Scratch};

const USAGE: &str = "usage: cryptoreg-limits [--rounds N] [--slice-ms M] [--fastest] [--ymm]";
const SIZE: usize = 8192;

/// One family: its best driver on this ladder and the kernel that bounds it, at each
/// width the gauge has a kernel for.
struct Family {
    label: &'static str,
    kind: Kind,
    key_len: usize,
    /// The zmm driver and kernel (AVX-512 hosts).
    zmm: Width,
    /// The ymm driver and kernel without AVX-512 (a Zen 3, an Alder Lake, or `--ymm`);
    /// `None` where the gauge has no ymm kernel for the family.
    ymm: Option<Width>,
    /// The VAESENC-only ceiling: instructions per block (rounds), 0 for none.
    aes_rounds: usize,
}

/// A family's driver and kernel at one width.
#[derive(Clone, Copy)]
struct Width {
    driver: &'static str,
    kernel: Loop,
}

#[derive(Clone, Copy)]
enum Kind {
    Skcipher,
    Aead,
    Hash,
}

const fn width(driver: &'static str, kernel: Loop) -> Width {
    Width { driver, kernel }
}

const FAMILIES: &[Family] = &[
    Family {
        label: "AES-128-CTR encrypt",
        kind: Kind::Skcipher,
        key_len: 16,
        zmm: width("ctr-aes-vaes-avx10_512", Loop::Ctr128Zmm),
        ymm: Some(width("ctr-aes-vaes-avx2", Loop::Ctr128Ymm)),
        aes_rounds: 10,
    },
    Family {
        label: "AES-256-XTS encrypt",
        kind: Kind::Skcipher,
        key_len: 64,
        zmm: width("xts-aes-vaes-avx10_512", Loop::Xts256Zmm),
        ymm: None,
        aes_rounds: 14,
    },
    Family {
        label: "AES-128-GCM seal",
        kind: Kind::Aead,
        key_len: 16,
        zmm: width("gcm-aes-vaes-avx10_512", Loop::Gcm128Zmm),
        ymm: Some(width("gcm-aes-vaes-avx2", Loop::Gcm128Ymm)),
        aes_rounds: 10,
    },
    Family {
        label: "AES-256-GCM seal",
        kind: Kind::Aead,
        key_len: 32,
        zmm: width("gcm-aes-vaes-avx10_512", Loop::Gcm256Zmm),
        ymm: Some(width("gcm-aes-vaes-avx2", Loop::Gcm256Ymm)),
        aes_rounds: 14,
    },
    Family {
        label: "ChaCha20 encrypt",
        kind: Kind::Skcipher,
        key_len: 32,
        zmm: width("chacha20-avx512f", Loop::Chacha20Zmm),
        ymm: Some(width("chacha20-avx2", Loop::Chacha20Ymm)),
        aes_rounds: 0,
    },
    Family {
        label: "Poly1305 digest",
        kind: Kind::Hash,
        key_len: 32,
        zmm: width("poly1305-avx512ifma", Loop::Poly1305Ifma),
        ymm: None,
        aes_rounds: 0,
    },
    Family {
        label: "ChaCha20-Poly1305 seal",
        kind: Kind::Aead,
        key_len: 32,
        zmm: width(
            "rfc7539-chacha20-poly1305-avx512ifma",
            Loop::ChaCha20Poly1305Zmm,
        ),
        ymm: Some(width(
            "rfc7539-chacha20-poly1305-avx2",
            Loop::ChaCha20Poly1305Ymm,
        )),
        aes_rounds: 0,
    },
];

impl Family {
    /// The width the gauge measures: zmm where this CPU runs the zmm kernels and `--ymm`
    /// was not given, else ymm (`None`: the family has no ymm kernel).
    fn at(&self, ymm: bool) -> Option<Width> {
        if ymm {
            self.ymm
        } else {
            Some(self.zmm)
        }
    }
}

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

    /// The median slice's rate, or with `fastest` the fastest slice's (for a loaded VM
    /// whose vCPU is often descheduled: many short slices, the fastest of each item, as
    /// `cargo xtask peers --fastest`).
    fn rate(&self, fastest: bool) -> f64 {
        if fastest {
            self.rates.iter().copied().fold(0.0, f64::max)
        } else {
            self.median()
        }
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

fn driver_item<'a>(reg: &Registry, f: &Family, w: Width) -> Result<Item<'a>, String> {
    let e = |e: cryptoreg::Error| format!("{}: {e}", w.driver);
    let key: Vec<u8> = (0..f.key_len)
        .map(|i| (i as u8).wrapping_mul(29) ^ 0x47)
        .collect();
    let mut buf = Aligned::new();
    Ok(match f.kind {
        Kind::Skcipher => {
            let mut h = reg.alloc_skcipher(w.driver).map_err(e)?;
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
            let mut h = reg.alloc_aead(w.driver).map_err(e)?;
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
            let mut h = reg.alloc_hash(w.driver).map_err(e)?;
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

/// The command's options.
#[derive(Debug, PartialEq)]
struct Options {
    rounds: usize,
    slice: Duration,
    /// Each item's fastest slice instead of its median one.
    fastest: bool,
    /// The ymm drivers and kernels on a host that has zmm ones.
    ymm: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        rounds: 7,
        slice: Duration::from_millis(20),
        fastest: false,
        ymm: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--ymm" => {
                o.ymm = true;
                continue;
            }
            "--fastest" => {
                o.fastest = true;
                continue;
            }
            "--rounds" | "--slice-ms" => {}
            _ => return Err(USAGE.to_string()),
        }
        let v: u64 = it
            .next()
            .and_then(|v| v.parse().ok())
            .filter(|&v| v > 0)
            .ok_or_else(|| format!("{a} takes a positive number\n{USAGE}"))?;
        match a.as_str() {
            "--rounds" => o.rounds = v as usize,
            "--slice-ms" => o.slice = Duration::from_millis(v),
            _ => return Err(USAGE.to_string()),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Options {
        rounds,
        slice,
        fastest,
        ymm: force_ymm,
    } = match parse(&args) {
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
    // Without AVX-512 (or with `--ymm`) the ymm drivers against the ymm kernels, and the
    // clock under ymm load.
    let ymm = force_ymm || !limits::supported(Loop::Clock);
    let clock_loop = if ymm { Loop::ClockYmm } else { Loop::Clock };
    let per_iter = |l: Loop| l.instructions() as f64;
    let mut clock = loop_item(clock_loop, per_iter(clock_loop));
    let mut classes: Vec<(Loop, Option<Item<'_>>)> = Loop::CLASSES
        .iter()
        .map(|&l| (l, loop_item(l, per_iter(l))))
        .collect();
    let mut kernels: Vec<Option<Item<'_>>> = FAMILIES
        .iter()
        .map(|f| {
            f.at(ymm)
                .and_then(|w| loop_item(w.kernel, w.kernel.bytes() as f64))
        })
        .collect();
    let mut drivers: Vec<Result<Item<'_>, String>> = FAMILIES
        .iter()
        .map(|f| match f.at(ymm) {
            Some(w) => driver_item(&reg, f, w),
            None => Err("no ymm kernel in the gauge".to_string()),
        })
        .collect();
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
    let hz = clock.as_ref().map_or(0.0, |c| c.rate(fastest));
    println!(
        "cryptoreg limits: {} of {rounds} interleaved rounds of ~{} ms slices; {SIZE}-byte \
         buffers at a cache-line start",
        if fastest { "fastest slice" } else { "median" },
        slice.as_millis()
    );
    println!(
        "clock under {} load: {:.2} GHz (a dependent vpaddd chain, one per cycle)\n",
        if ymm { "ymm" } else { "zmm" },
        hz / 1e9
    );
    println!(
        "{:<24} {:>12} {:>10}",
        "INSTRUCTIONS", "per second", "per cycle"
    );
    // VAESENC a second at the measured width, and the bytes one instruction covers.
    let aes_loop = if ymm { Loop::AesYmm } else { Loop::AesZmm };
    let aes_bytes = if ymm { 32.0 } else { 64.0 };
    let mut aes_rate = 0.0;
    for (l, item) in &classes {
        match item {
            Some(i) => {
                let r = i.rate(fastest);
                if *l == aes_loop {
                    aes_rate = r;
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
        let driver = f.at(ymm).map_or("-", |w| w.driver);
        let (mbps, bound) = match (d, k) {
            (Ok(d), Some(k)) => (d.rate(fastest) / 1e6, k.rate(fastest) / 1e6),
            (Err(e), _) => {
                println!("{:<24} {:<38} n/a ({e})", f.label, driver);
                continue;
            }
            (_, None) => {
                println!(
                    "{:<24} {:<38} n/a (this CPU lacks the kernel's features)",
                    f.label, driver
                );
                continue;
            }
        };
        let ratio = Ratio::of(mbps, bound);
        suspect |= ratio.suspect();
        println!(
            "{:<24} {:<38} {:>8.0} {:>6.3} {:>9.0} {:>6.3} {:>6.2}{}",
            f.label,
            driver,
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
        if f.aes_rounds > 0 && aes_rate > 0.0 {
            let c = ceiling(aes_rate, f.aes_rounds as f64, aes_bytes) / 1e6;
            println!(
                "{:<24} {:<38} {:>8} {:>6} {:>9.0} {:>6.3} {:>6.2}",
                "",
                if ymm {
                    "  AES ceiling (VAESENC ymm alone)"
                } else {
                    "  AES ceiling (VAESENC zmm alone)"
                },
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

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_parse_and_bad_ones_are_refused() {
        assert_eq!(
            parse(&args(&[])),
            Ok(Options {
                rounds: 7,
                slice: Duration::from_millis(20),
                fastest: false,
                ymm: false
            })
        );
        assert_eq!(
            parse(&args(&[
                "--fastest",
                "--rounds",
                "1001",
                "--ymm",
                "--slice-ms",
                "2"
            ])),
            Ok(Options {
                rounds: 1001,
                slice: Duration::from_millis(2),
                fastest: true,
                ymm: true
            })
        );
        assert!(parse(&args(&["--rounds"])).is_err());
        assert!(parse(&args(&["--rounds", "0"])).is_err());
        assert!(parse(&args(&["--slice-ms", "x"])).is_err());
        assert_eq!(parse(&args(&["--zmm", "1"])), Err(USAGE.to_string()));
        // A mistyped flag names the usage, not a missing number.
        assert_eq!(parse(&args(&["--fast"])), Err(USAGE.to_string()));
    }

    #[test]
    fn the_rate_is_the_median_or_the_fastest_slice() {
        let mut i = Item::new(1.0, |_| {});
        i.rates = vec![3.0, 9.0, 1.0, 4.0, 5.0];
        assert_eq!(i.rate(false), 4.0);
        assert_eq!(i.rate(true), 9.0);
    }

    #[test]
    fn each_family_has_its_width() {
        for f in FAMILIES {
            assert_eq!(f.at(false).map(|w| w.driver), Some(f.zmm.driver));
            assert_eq!(f.at(true).map(|w| w.driver), f.ymm.map(|w| w.driver));
            // A ymm kernel is a ymm loop of the family's kind, and bounds bytes.
            if let Some(w) = f.ymm {
                assert!(w.kernel.bytes() > 0, "{}", f.label);
                assert!(w.driver.ends_with("-avx2"), "{}", f.label);
            }
        }
    }
}
