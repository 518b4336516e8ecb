//! `cryptoctl speed NAME`: throughput of every driver of an algorithm, side by side, in
//! the manner of the kernel's tcrypt (`modprobe tcrypt mode=...`), so the priority ladder
//! can be checked against reality on this machine.
//!
//! What is measured, by type:
//!
//! * ciphers and skciphers: encryption in place;
//! * AEADs (`gcm(aes)`): two rows per driver. `seal` in place, the one-shot path
//!   (`Aead::seal`); `open` out of place from one ciphertext segment into one output
//!   segment (`Aead::open_to`), as tcrypt does, because the ciphertext must stay intact to
//!   be opened again. Tag size 16 (or the driver's largest, if smaller); AAD of `--aad N`
//!   bytes, 0 by default (16 is IPsec ESP's);
//! * hashes (`ghash`, `sha256`): one-shot `digest`, keyed first with a random key when
//!   the hash is a MAC.
//!
//! Which drivers: every entry of that algorithm name that passed (or, with self-tests
//! off, is untested) and that this host can execute; the template instance the name
//! builds (`xts(ecb-aes-aesni)`), and the all-generic one (`xts(ecb(aes-generic))`, from
//! `build_generic_driver_name`) so the bottom of the ladder is visible too. Each is
//! allocated by its exact driver name, which the registry honours whatever its priority.
//!
//! How: one operation on one buffer per size, after a warm-up that also sizes the
//! batch, repeated for about `--time-ms` per cell; bytes per second is bytes processed
//! over wall time. This is a quick comparative table, not a benchmark harness: use the
//! criterion benches for statistics. Numbers from a debug build are meaningless, which
//! the tool says on stderr.
//!
//! `--plot FILE.svg` also draws the table: throughput against size, one line per row,
//! log-scaled size axis (`speed_plot`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde::Serialize;

use cryptoreg::{Aead, AlgType, Cipher, DriverInfo, Hash, ListEntry, Registry, Skcipher};

use crate::cmd::{common_name, speed_plot, Globals};
use crate::error::CliError;
use crate::table::{Align, Table};

/// tcrypt's sizes, plus 1420 (a typical IPsec payload in a 1500-byte MTU).
const DEFAULT_SIZES: &[usize] = &[16, 64, 256, 512, 1024, 1420, 4096, 8192, 16384];

/// `speed` options.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Algorithm name (`xts(aes)`, `ctr(aes)`, `aes`) or one driver name.
    pub name: String,
    /// Measure only these drivers (repeatable).
    #[arg(long, value_name = "DRIVER")]
    pub driver: Vec<String>,
    /// Buffer sizes in bytes.
    #[arg(long, value_name = "N", num_args = 1.., value_parser = clap::value_parser!(u32).range(1..=(1 << 24)))]
    pub sizes: Vec<u32>,
    /// Key size: 128, 192 or 256 for AES (XTS takes two keys of this size); the MAC key of
    /// a keyed hash. Default 128, or the largest the algorithm takes if it does not take
    /// 128.
    #[arg(long, value_name = "N")]
    pub key_bits: Option<usize>,
    /// Measuring time per cell, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 50,
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub time_ms: u64,
    /// AEADs: bytes of associated data per message (16 is IPsec ESP's).
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..=(1 << 16)))]
    pub aad: u32,
    /// Also draw throughput against size, one line per driver, as SVG into FILE.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<std::path::PathBuf>,
}

/// The tag size measured for AEADs (or the driver's largest, if that is smaller).
const AUTHSIZE: usize = 16;

/// One measured cell.
#[derive(Debug, Serialize)]
struct Row {
    driver: String,
    /// `seal` or `open` for AEADs; absent for the types with one operation.
    #[serde(skip_serializing_if = "Option::is_none")]
    op: Option<&'static str>,
    size: usize,
    bytes_per_sec: u64,
}

/// One table row: priority, driver, operation (AEADs), a cell per size.
type TableRow = (u32, String, Option<&'static str>, Vec<Option<f64>>);

/// A keyed handle of any type the tool measures, with its fixed per-call inputs.
enum Bench {
    Cipher(Cipher),
    Skcipher(Skcipher, Vec<u8>),
    /// The handle, a nonce, the AAD.
    Aead(Aead, Vec<u8>, Vec<u8>),
    Hash(Hash),
}

/// One row's operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Encrypt,
    Seal,
    Open,
    Digest,
}

impl Op {
    /// The row label of AEAD operations (the only type with more than one).
    fn label(self) -> Option<&'static str> {
        match self {
            Op::Seal => Some("seal"),
            Op::Open => Some("open"),
            Op::Encrypt | Op::Digest => None,
        }
    }
}

impl Bench {
    /// The operations measured for this type, one row each.
    fn ops(&self) -> &'static [Op] {
        match self {
            Bench::Cipher(_) | Bench::Skcipher(..) => &[Op::Encrypt],
            Bench::Aead(..) => &[Op::Seal, Op::Open],
            Bench::Hash(_) => &[Op::Digest],
        }
    }

    /// Bytes per second of `op` on `size` bytes, or `None` when the driver refuses that
    /// length (CBC and block ciphers take only whole blocks).
    fn measure(&self, op: Op, size: usize, cell: Duration) -> Option<f64> {
        match (self, op) {
            (Bench::Cipher(c), _) => {
                let mut buf = vec![0x5au8; size];
                time(size, cell, || c.encrypt_blocks(black_box(&mut buf)))
            }
            (Bench::Skcipher(s, iv), _) => {
                let mut buf = vec![0x5au8; size];
                time(size, cell, || s.encrypt_in_place(iv, black_box(&mut buf)))
            }
            (Bench::Aead(a, nonce, aad), Op::Open) => {
                // A valid ciphertext and tag, opened into another buffer every time.
                let mut ct = vec![0x5au8; size];
                let mut tag = vec![0u8; a.authsize()];
                a.seal(nonce, aad, &mut ct, &mut tag).ok()?;
                let mut out = vec![0u8; size];
                let aad: &[&[u8]] = if aad.is_empty() { &[] } else { &[aad] };
                time(size, cell, || {
                    a.open_to(nonce, aad, &[&ct], &mut [black_box(&mut out)], &tag)
                })
            }
            (Bench::Aead(a, nonce, aad), _) => {
                let mut buf = vec![0x5au8; size];
                let mut tag = vec![0u8; a.authsize()];
                time(size, cell, || {
                    a.seal(nonce, aad, black_box(&mut buf), black_box(&mut tag))
                })
            }
            (Bench::Hash(h), _) => {
                let data = vec![0x5au8; size];
                let mut out = vec![0u8; h.digest_size()];
                time(size, cell, || {
                    h.digest(black_box(&data), black_box(&mut out))
                })
            }
        }
    }
}

/// Runs `speed`.
pub fn run(g: &Globals, args: &Args) -> Result<String, CliError> {
    if cfg!(debug_assertions) {
        eprintln!("cryptoctl: note: unoptimized build; build with --release for real figures");
    }
    let reg = g.boot(g.config()?)?;
    let sizes: Vec<usize> = if args.sizes.is_empty() {
        DEFAULT_SIZES.to_vec()
    } else {
        args.sizes.iter().map(|&s| s as usize).collect()
    };
    // A common name (`aes-256-gcm`) measures the registry's algorithm at its key size,
    // unless --key-bits says otherwise.
    let mapped = common_name::map(&args.name);
    let (alg, drivers) = pick_drivers(&reg, &mapped.name, &args.driver).map_err(|e| match e {
        CliError::Usage(m) => CliError::Usage(common_name::with_suggestions(m, &args.name, &reg)),
        other => other,
    })?;
    let key_bits = choose_key_bits(
        &alg,
        &drivers,
        args.key_bits.or(mapped.key_bits.map(|b| b as usize)),
    )?;
    let cell = Duration::from_millis(args.time_ms);

    let mut rows = Vec::new();
    let mut table_rows: Vec<TableRow> = Vec::new();
    let mut key_state = seed_from_clock();
    for (prio, info) in &drivers {
        let key = random_key(&alg, key_bits, &mut key_state);
        let bench = match keyed(&reg, info, &key, args.aad as usize) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("cryptoctl: skipping {}: {e}", info.driver());
                continue;
            }
        };
        for &op in bench.ops() {
            let mut cells = Vec::with_capacity(sizes.len());
            for &size in &sizes {
                let rate = bench.measure(op, size, cell);
                if let Some(r) = rate {
                    rows.push(Row {
                        driver: info.driver().to_string(),
                        op: op.label(),
                        size,
                        bytes_per_sec: r as u64,
                    });
                }
                cells.push(rate);
            }
            table_rows.push((*prio, info.driver().to_string(), op.label(), cells));
        }
    }
    if table_rows.is_empty() {
        return Err(CliError::Runtime(format!(
            "no driver of {alg:?} can be measured on this host"
        )));
    }
    let alg_type = drivers.first().map(|(_, d)| d.alg_type());
    if let Some(path) = &args.plot {
        let series: Vec<speed_plot::Series> = table_rows
            .iter()
            .map(|(prio, driver, op, cells)| speed_plot::Series {
                label: match op {
                    Some(op) => format!("{driver} {op} ({prio})"),
                    None => format!("{driver} ({prio})"),
                },
                mb_per_sec: cells.iter().map(|c| c.map(|bps| bps / 1e6)).collect(),
            })
            .collect();
        let title = format!("cryptoctl speed {alg}: throughput by message size");
        speed_plot::write_svg(path, &title, &sizes, &series).map_err(CliError::Runtime)?;
        eprintln!("cryptoctl: wrote {}", path.display());
    }
    if g.json {
        return Globals::to_json(&rows);
    }
    let is_aead = alg_type == Some(AlgType::Aead);
    let mut header: Vec<(String, Align)> = vec![
        ("DRIVER".to_string(), Align::Left),
        ("PRIO".to_string(), Align::Right),
    ];
    if is_aead {
        header.push(("OP".to_string(), Align::Left));
    }
    header.extend(sizes.iter().map(|s| (s.to_string(), Align::Right)));
    let cols: Vec<(&str, Align)> = header.iter().map(|(h, a)| (h.as_str(), *a)).collect();
    let mut t = Table::new(&cols);
    for (prio, driver, op, cells) in &table_rows {
        let mut r = vec![driver.clone(), prio.to_string()];
        if is_aead {
            r.push(op.unwrap_or_default().to_string());
        }
        r.extend(cells.iter().map(|c| match c {
            // Whole MB/s where that is precise enough; a decimal for the slow cells.
            Some(bps) if *bps >= 100e6 => format!("{:.0}", bps / 1e6),
            Some(bps) => format!("{:.1}", bps / 1e6),
            None => "-".to_string(),
        }));
        t.row(r);
    }
    let key_desc = if is_xts(&alg) {
        format!("2x{key_bits}-bit keys")
    } else if key_bits == 0 {
        "no key".to_string()
    } else {
        format!("{key_bits}-bit key")
    };
    let what = match alg_type {
        Some(AlgType::Aead) => format!(
            "authsize {}, {}-byte AAD; seal in place, open out of place",
            AUTHSIZE.min(drivers.iter().map(|(_, d)| d.out_size()).min().unwrap_or(0)),
            args.aad
        ),
        Some(AlgType::Hash) => "one-shot digest".to_string(),
        _ => "encryption in place".to_string(),
    };
    Ok(format!(
        "speed {alg}, {key_desc}, {what}, MB/s (10^6 bytes/s) by buffer size in bytes\n{}",
        t.render("")
    ))
}

/// XTS takes two keys: `--key-bits` names the size of each, as `openssl speed` and
/// tcrypt's `aes-256-xts` do.
fn is_xts(alg: &str) -> bool {
    alg.starts_with("xts(")
}

/// The algorithm name measured and its drivers (effective priority, description), best
/// priority first.
fn pick_drivers(
    reg: &Registry,
    name: &str,
    only: &[String],
) -> Result<(String, Vec<(u32, DriverInfo)>), CliError> {
    let listed = reg.list();
    // A driver name given as NAME stands for itself alone.
    if let Some(e) = listed.iter().find(|e| e.driver == name && e.name != name) {
        let alg = e.name.clone();
        let info = reg.resolve(name)?;
        return Ok((alg, vec![(e.priority, (*info).clone())]));
    }
    // Resolving the name builds the template instance it describes next to the concrete
    // drivers; resolving the generic driver name builds the all-generic instance.
    let chosen = reg.resolve(name);
    let generic =
        cryptoreg::driver::names::build_generic_driver_name(name).and_then(|g| reg.resolve(&g));
    if let (Err(e), true) = (&chosen, listed.iter().all(|l| l.name != name)) {
        return Err(CliError::from(e.clone()));
    }
    let host = reg.host_features();
    let listed = reg.list();
    let mut names: Vec<String> = listed
        .iter()
        .filter(|e| e.name == name && usable_state(e) && e.missing.is_empty())
        .filter(|e| host_runs(e, host))
        .map(|e| e.driver.clone())
        .collect();
    for info in [chosen.ok(), generic.ok()].into_iter().flatten() {
        if !names.iter().any(|n| n == info.driver()) {
            names.push(info.driver().to_string());
        }
    }
    if !only.is_empty() {
        for d in only {
            if !listed.iter().any(|e| &e.driver == d) {
                return Err(CliError::Usage(format!("no driver named {d:?}")));
            }
        }
        names.retain(|d| only.contains(d));
        for d in only {
            if !names.contains(d) {
                names.push(d.clone());
            }
        }
    }
    let mut out = Vec::new();
    for d in names {
        // Allocation by exact name runs the self-test of an instance not yet tested.
        match reg.resolve(&d) {
            Ok(info) => {
                let prio = reg
                    .list()
                    .iter()
                    .find(|e| e.driver == d)
                    .map_or(info.base_priority(), |e| e.priority);
                let t = info.alg_type();
                if let Some((_, first)) = out.first() {
                    let first: &DriverInfo = first;
                    if first.alg_type() != t {
                        return Err(CliError::Usage(format!(
                            "{d} is a {t} but {} is a {}: measure one type at a time",
                            first.driver(),
                            first.alg_type()
                        )));
                    }
                }
                out.push((prio, (*info).clone()));
            }
            Err(e) => eprintln!("cryptoctl: skipping {d}: {e}"),
        }
    }
    out.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.driver().cmp(b.1.driver())));
    Ok((name.to_string(), out))
}

fn usable_state(e: &ListEntry) -> bool {
    matches!(e.state, "passed" | "untested" | "testing")
}

/// Whether this host (not just the simulated identity) can execute the driver.
fn host_runs(e: &ListEntry, host: cryptoreg::Features) -> bool {
    e.requires
        .iter()
        .all(|r| cryptoreg::Feature::from_name(r).is_some_and(|f| host.has(f)))
}

/// The key size per key: `--key-bits`, else 128 if every driver takes it, else the
/// largest size all take.
fn choose_key_bits(
    alg: &str,
    drivers: &[(u32, DriverInfo)],
    asked: Option<usize>,
) -> Result<usize, CliError> {
    let factor = if is_xts(alg) { 2 } else { 1 };
    let fits = |bits: usize| {
        bits.is_multiple_of(8)
            && drivers.iter().all(|(_, d)| {
                let len = factor * bits / 8;
                (d.sizes().min_key..=d.sizes().max_key).contains(&len)
            })
    };
    match asked {
        Some(bits) if fits(bits) => Ok(bits),
        Some(bits) => {
            let ranges: Vec<String> = drivers
                .iter()
                .map(|(_, d)| {
                    format!(
                        "{} takes {}..={} bytes",
                        d.driver(),
                        d.sizes().min_key,
                        d.sizes().max_key
                    )
                })
                .collect();
            Err(CliError::Usage(format!(
                "--key-bits {bits} does not fit {alg}{}: {}",
                if factor == 2 { " (two keys)" } else { "" },
                ranges.join(", ")
            )))
        }
        None if fits(128) => Ok(128),
        None => drivers
            .iter()
            .map(|(_, d)| d.sizes().max_key * 8 / factor)
            .min()
            .filter(|&b| fits(b))
            .ok_or_else(|| CliError::Usage(format!("give --key-bits for {alg}"))),
    }
}

/// Allocates `info` by its exact driver name and keys it (an unkeyed hash takes no key,
/// `key` is then empty). AEADs get tag size [`AUTHSIZE`] where they allow it, a zero
/// nonce and `aad_len` bytes of AAD.
fn keyed(
    reg: &Registry,
    info: &DriverInfo,
    key: &[u8],
    aad_len: usize,
) -> cryptoreg::Result<Bench> {
    Ok(match info.alg_type() {
        AlgType::Cipher => {
            let mut c = reg.alloc_cipher(info.driver())?;
            c.set_key(key)?;
            Bench::Cipher(c)
        }
        AlgType::Aead => {
            let mut a = reg.alloc_aead(info.driver())?;
            a.set_key(key)?;
            a.set_authsize(AUTHSIZE.min(a.max_authsize()))?;
            let nonce = vec![0u8; a.nonce_size()];
            Bench::Aead(a, nonce, vec![0xa5; aad_len])
        }
        AlgType::Hash => {
            let mut h = reg.alloc_hash(info.driver())?;
            if h.is_keyed() {
                h.set_key(key)?;
            }
            Bench::Hash(h)
        }
        _ => {
            let mut s = reg.alloc_skcipher(info.driver())?;
            s.set_key(key)?;
            let iv = vec![0u8; s.iv_size()];
            Bench::Skcipher(s, iv)
        }
    })
}

/// Bytes per second of `op` on `size` bytes, or `None` when its first call is refused.
fn time(size: usize, cell: Duration, mut op: impl FnMut() -> cryptoreg::Result<()>) -> Option<f64> {
    op().ok()?;
    // Warm-up, doubling the batch until one batch takes about a millisecond, and for at
    // least a fifth of the cell so caches, branch predictors and clocks settle.
    let mut batch: u64 = 1;
    let warm_until = Instant::now() + cell / 5;
    loop {
        let t = Instant::now();
        for _ in 0..batch {
            let _ = op();
        }
        if t.elapsed() < Duration::from_millis(1) {
            batch *= 2;
        } else if Instant::now() >= warm_until {
            break;
        }
    }
    // At least one batch: a process descheduled for longer than the cell right after
    // `start` would otherwise measure no operation at all and report 0 B/s (seen under
    // QEMU on a loaded machine).
    let start = Instant::now();
    let mut ops: u64 = 0;
    loop {
        for _ in 0..batch {
            let _ = op();
        }
        ops += batch;
        if start.elapsed() >= cell {
            break;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    Some(ops as f64 * size as f64 / secs)
}

/// splitmix64 seeded from the clock: keys need only be arbitrary, not secret.
fn seed_from_clock() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x9e37_79b9_7f4a_7c15, |d| d.as_nanos() as u64)
}

fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A random key of `bits` (twice that for XTS, with distinct halves, which XTS requires).
fn random_key(alg: &str, bits: usize, state: &mut u64) -> Vec<u8> {
    let len = bits / 8 * if is_xts(alg) { 2 } else { 1 };
    loop {
        let key: Vec<u8> = (0..len).map(|_| next(state) as u8).collect();
        if !is_xts(alg) || key[..len / 2] != key[len / 2..] {
            return key;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xts_keys_have_distinct_halves() {
        let mut s = 1;
        for _ in 0..100 {
            let k = random_key("xts(aes)", 256, &mut s);
            assert_eq!(k.len(), 64);
            assert_ne!(k[..32], k[32..]);
        }
        assert_eq!(random_key("ctr(aes)", 128, &mut s).len(), 16);
    }
}
