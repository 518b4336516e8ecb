//! A driver whose self-test hangs does not hang boot: it fails with "timed out" after
//! `[selftest] timeout_secs`, boot goes on, and the driver is never handed out.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cryptoreg_registry::driver::{
    AlgDef, BlockCipherImpl, Ctor, HostFeatures, SelfTester, TestHost,
};
use cryptoreg_registry::*;

/// Set when the test is over, so the detached hanging thread ends too.
static RELEASE: AtomicBool = AtomicBool::new(false);

struct Plain;

impl BlockCipherImpl for Plain {
    fn set_key(&mut self, _: &[u8]) -> Result<()> {
        Ok(())
    }
    fn encrypt_blocks(&self, _: &mut [u8]) {}
    fn decrypt_blocks(&self, _: &mut [u8]) {}
}

fn plain(_: &HostFeatures) -> Result<Box<dyn BlockCipherImpl>> {
    Ok(Box::new(Plain))
}

inventory::submit! { AlgDef::new("hangalg", "hangalg-generic", 100, Ctor::Cipher(plain)).block_size(16) }
inventory::submit! { AlgDef::new("hangalg", "hangalg-stuck", 500, Ctor::Cipher(plain)).block_size(16) }

/// Passes everything but `hangalg-stuck`, whose test never ends on its own (it waits for
/// the release, as a driver stuck in an endless loop would wait forever).
struct HangingTester;

impl SelfTester for HangingTester {
    fn test(&self, _: &dyn TestHost, driver: &Arc<DriverInfo>, _: &TestParams) -> TestOutcome {
        if driver.driver() == "hangalg-stuck" {
            let start = Instant::now();
            while !RELEASE.load(Ordering::Relaxed) && start.elapsed() < Duration::from_secs(60) {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        TestOutcome {
            tests: 1,
            ..TestOutcome::default()
        }
    }
}

#[test]
fn a_hanging_self_test_times_out_and_boot_goes_on() {
    let start = Instant::now();
    let reg = Registry::boot(BootOptions {
        cpu: None,
        config: Config::parse("[selftest]\ntimeout_secs = 1\n", "test").unwrap(),
        tester: Some(Arc::new(HangingTester)),
    })
    .unwrap();
    let booted = start.elapsed();
    let stuck = reg
        .list()
        .into_iter()
        .find(|e| e.driver == "hangalg-stuck")
        .unwrap();
    RELEASE.store(true, Ordering::Relaxed);
    assert!(booted < Duration::from_secs(10), "boot took {booted:?}");
    assert_eq!(stuck.state, "failed");
    assert!(
        stuck.failures[0].contains("timed out after 1 s"),
        "{:?}",
        stuck.failures
    );
    assert_eq!(reg.resolve("hangalg").unwrap().driver(), "hangalg-generic");
    assert!(matches!(
        reg.alloc_cipher("hangalg-stuck"),
        Err(Error::DriverFailed { .. })
    ));
}
