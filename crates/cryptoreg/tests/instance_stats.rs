//! A template instance's counters survive the invalidation that drops it (issue 18,
//! item 9): a live handle keeps counting into them, `stats` keeps showing them (as
//! `retired` while nothing rebuilt the instance), and a rebuild continues them. Generic
//! children, so it runs on any host.

mod common;

use cryptoreg::DriverStatsReport;

const INSTANCE: &str = "rfc4106(gcm_base(ctr(aes-generic),ghash-generic))";

fn row(reg: &cryptoreg::Registry) -> Option<DriverStatsReport> {
    reg.stats().into_iter().find(|r| r.driver == INSTANCE)
}

#[test]
fn instance_counters_survive_an_invalidation() {
    let reg = common::boot("[selftest]\nfuzz_iterations = 10\n", None);
    let mut h = reg.alloc_aead(INSTANCE).unwrap();
    assert_eq!(h.driver_name(), INSTANCE);
    h.set_key(&[7u8; 20]).unwrap();
    let seal = |h: &cryptoreg::Aead, n: usize| {
        for _ in 0..n {
            let (mut data, mut tag) = ([0u8; 32], [0u8; 16]);
            h.seal(&[1u8; 8], &[2u8; 8], &mut data, &mut tag).unwrap();
        }
    };
    seal(&h, 10);
    let r = row(&reg).expect("instance listed");
    assert_eq!((r.refcnt, r.requests, r.allocations), (1, 10, 1), "{r:?}");

    // Drops every instance built on ghash-generic, this one included.
    reg.set_priority("ghash-generic", 7).unwrap();
    seal(&h, 10);
    let r = row(&reg).expect("a dropped instance with a live handle is still listed");
    assert_eq!(r.state, "retired", "{r:?}");
    assert_eq!((r.refcnt, r.requests, r.allocations), (1, 20, 1), "{r:?}");

    // A rebuild continues the counts.
    let h2 = reg.alloc_aead(INSTANCE).unwrap();
    let r = row(&reg).expect("rebuilt");
    assert_ne!(r.state, "retired", "{r:?}");
    assert_eq!((r.refcnt, r.requests, r.allocations), (2, 20, 2), "{r:?}");
    drop(h);
    drop(h2);
    let r = row(&reg).expect("rebuilt");
    assert_eq!((r.refcnt, r.requests, r.allocations), (0, 20, 2), "{r:?}");
    assert_eq!(
        reg.stats().iter().filter(|r| r.driver == INSTANCE).count(),
        1,
        "listed once"
    );
}
