//! AES-GCM against the peers, and the goals for it:
//!
//! * AES-128-GCM and AES-256-GCM seal at 8192 bytes: the best cryptoreg driver >= 1.1x
//!   aws-lc-rs, and `gcm-aes-vaes-avx2` >= 1.2x ring;
//! * at 1420 bytes: the best driver >= 1.0x aws-lc-rs;
//! * at 16 and 64 bytes: the best driver >= 0.9x ring;
//! * `ghash-vpclmulqdq-avx512` >= 2x `ghash-clmulni` at 8192 bytes, and the best GCM-128
//!   seal >= 0.5x `ctr-aes-vaes-avx10_512` at 8192 bytes (these through cryptoreg
//!   handles only).
//!
//! "Best" is the fastest cryptoreg driver measured at that size, named in the line.

use cryptoreg::Registry;

use crate::contenders::{
    aws_lc_seal, cryptoreg_digest, cryptoreg_encrypt, cryptoreg_seal, ring_seal,
};
use crate::harness::{interleaved, Contender, Settings};
use crate::report::{Goal, Table};

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
    vec![
        goal(
            "best / aws-lc-rs at 8192",
            best(t, gcm, 8192),
            pair(t, AWS_LC, 8192),
            1.1,
        ),
        goal(
            "gcm-aes-vaes-avx2 / ring at 8192",
            pair(t, "gcm-aes-vaes-avx2", 8192),
            pair(t, RING, 8192),
            1.2,
        ),
        goal(
            "best / aws-lc-rs at 1420",
            best(t, gcm, 1420),
            pair(t, AWS_LC, 1420),
            1.0,
        ),
        goal(
            "best / ring at 16",
            best(t, gcm, 16),
            pair(t, RING, 16),
            0.9,
        ),
        goal(
            "best / ring at 64",
            best(t, gcm, 64),
            pair(t, RING, 64),
            0.9,
        ),
    ]
}

/// At 8192 bytes, through cryptoreg handles: both GHASH drivers, `ctr-aes-vaes-avx10_512`
/// and the fastest GCM-128 driver of the seal table, interleaved.
fn references(reg: &Registry, best_gcm: Option<&str>, s: Settings) -> (Table, Vec<Goal>) {
    const SIZE: usize = 8192;
    let k = key(16);
    let mut cs: Vec<Contender<'_>> = Vec::new();
    for d in ["ghash-clmulni", "ghash-vpclmulqdq-avx512"] {
        match cryptoreg_digest(reg, d, s.msg(SIZE)) {
            Ok(c) => cs.push(c),
            Err(e) => eprintln!("peers: {d}: {e}"),
        }
    }
    match cryptoreg_encrypt(reg, "ctr-aes-vaes-avx10_512", &k, s.msg(SIZE)) {
        Ok(c) => cs.push(c),
        Err(e) => eprintln!("peers: ctr-aes-vaes-avx10_512: {e}"),
    }
    if let Some(d) = best_gcm {
        cs.push(cryptoreg_seal(reg, d, &k, &[], s.msg(SIZE)).expect("a passed driver keys"));
    }
    let names = cs.iter().map(|c| c.name.clone()).collect();
    let mut t = Table::new(
        "8192-byte references (ghash digest, ctr encrypt, gcm seal; 128-bit keys)",
        &[SIZE],
        names,
    );
    if !cs.is_empty() {
        for (row, rate) in t.rates.iter_mut().zip(interleaved(&mut cs, SIZE, s)) {
            row.push(rate);
        }
    }
    let goals = vec![
        Goal {
            what: "ghash-vpclmulqdq-avx512 / ghash-clmulni at 8192".to_string(),
            num: pair(&t, "ghash-vpclmulqdq-avx512", SIZE),
            den: pair(&t, "ghash-clmulni", SIZE),
            min: 2.0,
        },
        Goal {
            what: "best GCM-128 seal / ctr-aes-vaes-avx10_512 at 8192".to_string(),
            num: best_gcm.and_then(|d| pair(&t, d, SIZE)),
            den: pair(&t, "ctr-aes-vaes-avx10_512", SIZE),
            min: 0.5,
        },
    ];
    (t, goals)
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
    let mut best_128 = None;
    for key_len in [16, 32] {
        let t = seal_table(reg, &gcm, key_len, s);
        out += &t.render();
        out.push('\n');
        if key_len == 16 {
            best_128 = t.best_of(&gcm, 8192).map(|(n, _)| n.to_string());
        }
        goals.extend(seal_goals(&t, &gcm, key_len * 8));
    }
    let (t, g) = references(reg, best_128.as_deref(), s);
    out += &t.render();
    out.push('\n');
    goals.extend(g);
    out += "goals (issue 8):\n";
    for g in goals {
        out += &format!("  {}\n", g.render());
    }
    out
}
