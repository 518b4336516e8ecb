//! Toy drivers and a toy self-tester for the registry's own tests. The registry knows no
//! real algorithm, so its tests bring their own: a "cipher" that is keyed XOR plus a byte
//! rotation, a position-keyed stream skcipher, and a template over the cipher.

#![allow(dead_code)]

use std::sync::Arc;

use cryptoreg_registry::inventory;
use cryptoreg_registry::*;

#[derive(Default)]
pub struct ToyCipher {
    key: [u8; 16],
}

impl BlockCipherImpl for ToyCipher {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        check_key_len("toy", key, &[16])?;
        self.key.copy_from_slice(key);
        Ok(())
    }
    fn encrypt_blocks(&self, data: &mut [u8]) {
        for b in data.chunks_mut(16) {
            for (x, k) in b.iter_mut().zip(&self.key) {
                *x ^= k;
            }
            b.rotate_left(1);
        }
    }
    fn decrypt_blocks(&self, data: &mut [u8]) {
        for b in data.chunks_mut(16) {
            b.rotate_right(1);
            for (x, k) in b.iter_mut().zip(&self.key) {
                *x ^= k;
            }
        }
    }
}

/// Same as ToyCipher but with a distinct identity for "fast" drivers.
fn toy(_: &HostFeatures) -> Result<Box<dyn BlockCipherImpl>> {
    Ok(Box::new(ToyCipher::default()))
}

/// A stream cipher whose keystream byte at position p is key[p % 16] ^ iv[p % 16] ^ p.
#[derive(Default)]
pub struct ToyStream {
    key: [u8; 16],
}

fn position(state: &ChainState) -> u64 {
    u64::from_le_bytes(state[..8].try_into().unwrap())
}

impl ToyStream {
    fn apply(&self, state: &mut ChainState, data: &mut [u8]) {
        let mut p = position(state);
        for x in data.iter_mut() {
            *x ^= self.key[(p % 16) as usize] ^ state[8 + (p % 8) as usize] ^ (p as u8);
            p += 1;
        }
        state[..8].copy_from_slice(&p.to_le_bytes());
    }
}

impl SkcipherImpl for ToyStream {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        check_key_len("toy-stream", key, &[16])?;
        self.key.copy_from_slice(key);
        Ok(())
    }
    fn tail_len(&self, total: usize) -> Result<usize> {
        Ok(total % 16)
    }
    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        state[..8].fill(0);
        state[8..].copy_from_slice(&iv[..8]);
        Ok(())
    }
    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        assert_eq!(data.len() % 16, 0, "walker handed a partial chunk");
        self.apply(state, data)
    }
    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.encrypt_blocks(state, data)
    }
    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        assert!(tail.len() < 16);
        self.apply(state, tail)
    }
    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.encrypt_tail(state, tail)
    }
}

macro_rules! toy_cipher {
    ($driver:literal, $prio:literal, $req:expr, $zmm:literal) => {
        inventory::submit! {
            {
                let def = AlgDef::new("toy", $driver, $prio, Ctor::Cipher(toy))
                    .requires($req)
                    .block_size(16)
                    .key_sizes(16, 16);
                if $zmm {
                    def.uses_zmm()
                } else {
                    def
                }
            }
        }
    };
}

toy_cipher!("toy-generic", 100, &[], false);
toy_cipher!("toy-aesni", 300, &[Feature::Aes], false);
toy_cipher!("toy-avx10_512", 800, &[Feature::Avx512f], true);
toy_cipher!("toy-b-tie", 300, &[Feature::Aes], false);
toy_cipher!("broken-only-generic", 100, &[], false);

inventory::submit! {
    AlgDef::new("brokenalg", "brokenalg-broken", 500, Ctor::Cipher(toy))
        .block_size(16)
        .key_sizes(16, 16)
}

inventory::submit! {
    AlgDef::new("toystream", "toystream-generic", 100, Ctor::Skcipher(|_| Ok(Box::new(ToyStream::default()))))
        .key_sizes(16, 16)
        .iv_size(16)
}

/// `wrap(X)`: an "ECB" over any 16-byte cipher, priority = child's.
struct Wrap {
    inner: Box<dyn BlockCipherImpl>,
}

impl SkcipherImpl for Wrap {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.inner.set_key(key)
    }
    fn tail_len(&self, total: usize) -> Result<usize> {
        if total.is_multiple_of(16) {
            Ok(0)
        } else {
            Err(Error::InvalidLength {
                len: total,
                reason: "not a block multiple",
            })
        }
    }
    fn start(&self, _iv: &[u8], _state: &mut ChainState) -> Result<()> {
        Ok(())
    }
    fn encrypt_blocks(&self, _: &mut ChainState, data: &mut [u8]) {
        self.inner.encrypt_blocks(data)
    }
    fn decrypt_blocks(&self, _: &mut ChainState, data: &mut [u8]) {
        self.inner.decrypt_blocks(data)
    }
    fn encrypt_tail(&self, _: &mut ChainState, _: &mut [u8]) {}
    fn decrypt_tail(&self, _: &mut ChainState, _: &mut [u8]) {}
}

fn create_wrap(children: &[Child]) -> Result<DriverInfo> {
    let child = children[0].info();
    let Factory::Cipher(make) = child.factory().clone() else {
        return Err(Error::NotFound(child.driver().to_string()));
    };
    Ok(DriverInfo::instance(
        format!("wrap({})", child.name()),
        format!("wrap({})", child.driver()),
        children[0].priority(),
        Sizes {
            iv: 0,
            out: 0,
            ..child.sizes()
        },
        Factory::Skcipher(Arc::new(move |host: &HostFeatures| {
            Ok(Box::new(Wrap { inner: make(host)? }) as Box<dyn SkcipherImpl>)
        })),
        children,
    ))
}

inventory::submit! {
    Template {
        name: "wrap",
        child_request: |arg| arg.to_string(),
        child_types: &[AlgType::Cipher],
        create: create_wrap,
        rewrite: None,
    }
}

/// Passes every driver except those whose name contains "broken"; counts calls.
pub struct ToyTester {
    pub calls: std::sync::atomic::AtomicUsize,
}

impl SelfTester for ToyTester {
    fn test(&self, _: &dyn TestHost, driver: &Arc<DriverInfo>, _: &TestParams) -> TestOutcome {
        self.calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if driver.driver().contains("broken") {
            TestOutcome {
                tests: 1,
                failures: vec![format!(
                    "selftest: toy: {} is broken; seed=0x1",
                    driver.driver()
                )],
                ..TestOutcome::default()
            }
        } else {
            TestOutcome {
                tests: 1,
                failures: vec![],
                ..TestOutcome::default()
            }
        }
    }
}

pub fn boot_with(config_text: &str, cpu: Option<&str>) -> Registry {
    Registry::boot(BootOptions {
        cpu: cpu.map(|p| CpuInfo::preset(p).unwrap()),
        config: Config::parse(config_text, "test").unwrap(),
        tester: Some(Arc::new(ToyTester {
            calls: Default::default(),
        })),
    })
    .unwrap()
}

/// A preset with the host's own features for Aes but no AVX-512, so toy-aesni runs and
/// toy-avx10_512 is unsupported, whatever machine runs the tests.
pub fn boot(config_text: &str) -> Registry {
    boot_with(config_text, None)
}
