//! Exported hash states are portable between the drivers of one algorithm: a state
//! exported by any driver resumes on every other driver of the same algorithm (the
//! header names the algorithm and a format version, not the driver) and gives the digest
//! the exporting driver would have given; another algorithm's export is refused.

mod common;

use cryptoreg::{Error, Hash, Registry};

/// Every passed hash driver of this host, grouped by algorithm.
fn hash_drivers(reg: &Registry) -> Vec<(String, Vec<String>)> {
    let mut by_alg: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for e in reg.list() {
        if e.alg_type == "hash" && e.state == "passed" {
            by_alg.entry(e.name).or_default().push(e.driver);
        }
    }
    by_alg.into_iter().collect()
}

fn keyed(reg: &Registry, driver: &str) -> Hash {
    let mut h = reg.alloc_hash(driver).unwrap();
    if h.is_keyed() {
        let klen = h.info().sizes().max_key;
        h.set_key(&common::bytes(11, klen)).unwrap();
    }
    h
}

#[test]
fn exports_resume_on_every_driver_of_the_algorithm() {
    let reg = common::boot("", None);
    let algs = hash_drivers(&reg);
    for want in ["ghash", "poly1305"] {
        let drivers = &algs.iter().find(|(a, _)| a == want).unwrap().1;
        assert!(
            drivers.iter().any(|d| d.ends_with("-generic")),
            "{want}: {drivers:?}"
        );
    }
    let mut pairs = 0;
    for (alg, drivers) in &algs {
        for from in drivers {
            let a = keyed(&reg, from);
            // Split points inside and at the edges of blocks, so the partial-block buffer
            // travels in the export too.
            for (head, tail) in [(0usize, 33usize), (5, 0), (16, 16), (37, 300), (1000, 7)] {
                let msg = common::bytes((head * 31 + tail) as u64, head + tail);
                let mut want = vec![0u8; a.digest_size()];
                a.digest(&msg, &mut want).unwrap();
                let mut req = a.init().unwrap();
                req.update(&msg[..head]);
                let exported = req.export();
                for to in drivers {
                    let b = keyed(&reg, to);
                    let mut got = vec![0u8; b.digest_size()];
                    b.import(&exported)
                        .unwrap_or_else(|e| panic!("{alg}: {from} -> {to}: {e}"))
                        .finup(&msg[head..], &mut got)
                        .unwrap();
                    assert_eq!(got, want, "{alg}: {from} -> {to} at {head}+{tail}");
                    pairs += 1;
                }
                for (other, others) in &algs {
                    if other != alg {
                        let c = keyed(&reg, &others[0]);
                        assert_eq!(
                            c.import(&exported).err(),
                            Some(Error::InvalidHashState("exported by another algorithm")),
                            "{alg} -> {other}"
                        );
                    }
                }
            }
        }
    }
    assert!(pairs >= 2 * 5, "only {pairs} export/import pairs");
}
