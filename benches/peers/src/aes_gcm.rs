//! AES-GCM against the peers, and issue 23's goals for it:
//!
//! * AES-128-GCM seal at 8192 bytes: the best cryptoreg driver >= 1.15x aws-lc-rs (the
//!   issue's other AES goals, shares of the AES ceiling, are `cargo xtask limits`'s);
//! * AES-128 and AES-256 at 1420 and 16 bytes: the best driver >= 1.3x aws-lc-rs (what is
//!   ahead stays ahead);
//! * `gcm-aes-vaes-avx2` (the ymm driver a Zen 3 or Alder Lake runs) >= 1.2x ring at 8192;
//! * open within 3% of seal: the best driver's `open_to` >= 0.97x its seal at 8192;
//! * at 16 bytes every VAES `ctr(aes)` and `xts(aes)` driver >= 1.0x its AES-NI sibling;
//! * every ymm and zmm `gcm(aes)` driver keeps 0.97 of its aligned speed at 8192 with its
//!   buffers 16, 32 or 48 bytes past a cache line ([`crate::offsets`]).
//!
//! "Best" is the fastest cryptoreg driver measured at that size, named in the line.

use cryptoreg::Registry;

use crate::contenders::{
    aws_lc_seal, cryptoreg_encrypt, cryptoreg_open, cryptoreg_seal, ring_seal,
};
use crate::harness::{interleaved, Contender, Settings};
use crate::offsets;
use crate::report::{pick_lines, Goal, Table};

const SIZES: &[usize] = &[16, 64, 1420, 8192];
const RING: &str = "ring 0.17";
const AWS_LC: &str = "aws-lc-rs 1";

/// Every driver of `name` that passed its self-tests, concrete or template instance
/// (the one the name builds and the all-generic one), best priority first.
pub fn drivers(reg: &Registry, name: &str) -> Vec<String> {
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

fn key(len: usize) -> Vec<u8> {
    (0..len as u8).map(|i| i.wrapping_mul(7) ^ 0xa5).collect()
}

/// Seal of every cryptoreg `gcm(aes)` driver, ring and aws-lc-rs at each size,
/// interleaved per size.
fn seal_table(reg: &Registry, gcm: &[String], key_len: usize, s: Settings) -> Table {
    let (ring_alg, aws_alg) = if key_len == 16 {
        (&ring::aead::AES_128_GCM, &aws_lc_rs::aead::AES_128_GCM)
    } else {
        (&ring::aead::AES_256_GCM, &aws_lc_rs::aead::AES_256_GCM)
    };
    let mut names = gcm.to_vec();
    names.push(RING.to_string());
    names.push(AWS_LC.to_string());
    let mut table = Table::new(
        format!("AES-{}-GCM seal in place, 16-byte tag, no AAD", key_len * 8),
        SIZES,
        names,
    );
    let k = key(key_len);
    for &size in SIZES {
        let mut cs: Vec<Contender<'_>> = gcm
            .iter()
            .map(|d| cryptoreg_seal(reg, d, &k, &[], s.msg(size)).expect("a passed driver keys"))
            .collect();
        cs.push(ring_seal(ring_alg, &k, &[], s.msg(size)));
        cs.push(aws_lc_seal(aws_alg, &k, &[], s.msg(size)));
        for (row, rate) in table.rates.iter_mut().zip(interleaved(&mut cs, size, s)) {
            row.push(rate);
        }
    }
    table
}

fn pair(t: &Table, name: &str, size: usize) -> Option<(String, f64)> {
    t.rate(name, size).map(|r| (name.to_string(), r))
}

fn best(t: &Table, gcm: &[String], size: usize) -> Option<(String, f64)> {
    t.best_of(gcm, size).map(|(n, r)| (n.to_string(), r))
}

fn seal_goals(t: &Table, gcm: &[String], bits: usize) -> Vec<Goal> {
    let goal = |what: &str, num, den, min| Goal {
        what: format!("AES-{bits}-GCM {what}"),
        num,
        den,
        min,
    };
    let mut goals = Vec::new();
    if bits == 128 {
        goals.push(goal(
            "best / aws-lc-rs at 8192",
            best(t, gcm, 8192),
            pair(t, AWS_LC, 8192),
            1.15,
        ));
    }
    for size in [1420, 16] {
        goals.push(goal(
            &format!("best / aws-lc-rs at {size}"),
            best(t, gcm, size),
            pair(t, AWS_LC, size),
            1.3,
        ));
    }
    goals.push(goal(
        "gcm-aes-vaes-avx2 / ring at 8192",
        pair(t, "gcm-aes-vaes-avx2", 8192),
        pair(t, RING, 8192),
        1.2,
    ));
    goals
}

/// The best driver's seal and `open_to` at 8192 bytes, interleaved, and the goal that
/// open keeps 0.97 of seal's speed.
fn open_vs_seal(reg: &Registry, best: &str, key_len: usize, s: Settings) -> (Table, Goal) {
    const SIZE: usize = 8192;
    let k = key(key_len);
    let mut cs = vec![
        cryptoreg_seal(reg, best, &k, &[], s.msg(SIZE)).expect("a passed driver keys"),
        cryptoreg_open(reg, best, &k, &[], s.msg(SIZE)).expect("a passed driver opens"),
    ];
    let names = cs.iter().map(|c| c.name.clone()).collect();
    let mut t = Table::new(
        format!(
            "AES-{}-GCM seal in place and open out of place (open_to)",
            key_len * 8
        ),
        &[SIZE],
        names,
    );
    for (row, rate) in t.rates.iter_mut().zip(interleaved(&mut cs, SIZE, s)) {
        row.push(rate);
    }
    let open = format!("{best} open");
    let goal = Goal {
        what: format!("AES-{}-GCM open / seal at {SIZE}", key_len * 8),
        num: pair(&t, &open, SIZE),
        den: pair(&t, best, SIZE),
        min: 0.97,
    };
    (t, goal)
}

/// Every `ctr(aes)` and `xts(aes)` driver encrypting 16 bytes (one block), interleaved per
/// algorithm, and the goal that each VAES driver is at least as fast as the AES-NI one.
fn vaes_at_16(reg: &Registry, s: Settings) -> (Vec<Table>, Vec<Goal>) {
    const SIZE: usize = 16;
    let mut tables = Vec::new();
    let mut goals = Vec::new();
    for (alg, key_len, aesni) in [
        ("ctr(aes)", 16, "ctr-aes-aesni"),
        ("xts(aes)", 32, "xts-aes-aesni"),
    ] {
        let k = key(key_len);
        let ds: Vec<String> = drivers(reg, alg)
            .into_iter()
            .filter(|d| d.contains("vaes") || d == aesni)
            .collect();
        let mut cs: Vec<Contender<'_>> = ds
            .iter()
            .map(|d| cryptoreg_encrypt(reg, d, &k, s.msg(SIZE)).expect("a passed driver keys"))
            .collect();
        let names = cs.iter().map(|c| c.name.clone()).collect();
        let mut t = Table::new(format!("{alg} encrypt in place, one block"), &[SIZE], names);
        if !cs.is_empty() {
            for (row, rate) in t.rates.iter_mut().zip(interleaved(&mut cs, SIZE, s)) {
                row.push(rate);
            }
        }
        for d in ds.iter().filter(|d| d.contains("vaes")) {
            goals.push(Goal {
                what: format!("{d} / {aesni} at {SIZE}"),
                num: pair(&t, d, SIZE),
                den: pair(&t, aesni, SIZE),
                min: 1.0,
            });
        }
        tables.push(t);
    }
    (tables, goals)
}

/// The whole AES-GCM comparison; returns the text to print.
pub fn run(reg: &Registry, s: Settings) -> String {
    let gcm = drivers(reg, "gcm(aes)");
    let mut out = String::new();
    if gcm.is_empty() {
        return "gcm(aes): no cryptoreg driver passed its self-tests; nothing to compare\n"
            .to_string();
    }
    if let Ok(chosen) = reg.resolve("gcm(aes)") {
        out += &format!("gcm(aes): the registry picks {}\n\n", chosen.driver());
    }
    let mut goals = Vec::new();
    for key_len in [16, 32] {
        let t = seal_table(reg, &gcm, key_len, s);
        out += &t.render();
        out.push('\n');
        if let Ok(chosen) = reg.resolve("gcm(aes)") {
            out += &pick_lines(&t, chosen.driver(), &gcm);
            out.push('\n');
        }
        goals.extend(seal_goals(&t, &gcm, key_len * 8));
        if let Some((best, _)) = t.best_of(&gcm, 8192) {
            let (t, g) = open_vs_seal(reg, best, key_len, s);
            out += &t.render();
            out.push('\n');
            goals.push(g);
        }
    }
    let (tables, g) = vaes_at_16(reg, s);
    for t in tables {
        out += &t.render();
        out.push('\n');
    }
    goals.extend(g);
    let vector = offsets::vector_drivers(&gcm);
    let k = key(16);
    let t = offsets::table("AES-128-GCM seal", &vector, s, |d, m| {
        cryptoreg_seal(reg, d, &k, &[], m).expect("a passed driver keys")
    });
    out += &t.render();
    out.push('\n');
    goals.extend(offsets::goals(&t, &vector));
    out += "goals (issue 23):\n";
    for g in goals {
        out += &format!("  {}\n", g.render());
    }
    out
}
