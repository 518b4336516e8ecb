//! A re-test that finds a driver failing drops the template instances built on it: the
//! failed code cannot keep serving through a template it was part of when it passed.

mod toy;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use cryptoreg_registry::driver::{SelfTester, TestHost};
use cryptoreg_registry::*;

/// Passes everything, until told to fail `toy-generic` (the driver under `wrap`).
static FAIL_TOY_GENERIC: AtomicBool = AtomicBool::new(false);

struct FlippingTester;

impl SelfTester for FlippingTester {
    fn test(&self, _: &dyn TestHost, driver: &Arc<DriverInfo>, _: &TestParams) -> TestOutcome {
        let fail = FAIL_TOY_GENERIC.load(Ordering::SeqCst) && driver.driver() == "toy-generic";
        TestOutcome {
            tests: 1,
            failures: if fail {
                vec!["selftest: toy: toy-generic is wrong now; seed=0x2".to_string()]
            } else {
                Vec::new()
            },
            ..TestOutcome::default()
        }
    }
}

#[test]
fn a_failed_retest_drops_the_instances_built_on_the_driver() {
    let reg = Registry::boot(BootOptions {
        cpu: None,
        config: Config::parse("[selftest]\nfuzz_iterations = 10\n", "test").unwrap(),
        tester: Some(Arc::new(FlippingTester)),
    })
    .unwrap();
    let mut h = reg.alloc_skcipher("wrap(toy-generic)").unwrap();
    h.set_key(&[7; 16]).unwrap();
    assert_eq!(h.driver_name(), "wrap(toy-generic)");
    let built = |reg: &Registry| reg.list().iter().any(|e| e.driver == "wrap(toy-generic)");
    assert!(built(&reg));

    FAIL_TOY_GENERIC.store(true, Ordering::SeqCst);
    let out = reg
        .run_selftest(
            "toy-generic",
            &TestParams {
                mode: SelftestMode::Full,
                iterations: 10,
                seed: 1,
                replay: false,
                shard: Shard::WHOLE,
                cpu: None,
            },
        )
        .unwrap();
    assert!(!out.passed());
    assert!(!built(&reg), "the instance over the failed driver survived");
    assert!(matches!(
        reg.alloc_skcipher("wrap(toy-generic)"),
        Err(Error::DriverFailed { ref driver, .. }) if driver == "toy-generic"
    ));
    // The handle already out keeps its implementation and keeps working.
    let mut block = [0u8; 16];
    h.encrypt_in_place(&[], &mut block).unwrap();
    assert_ne!(block, [0u8; 16]);
}
