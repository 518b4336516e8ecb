//! The whole runner against drivers defined here: toy algorithms with correct generic
//! references, correct fast drivers, and drivers that are wrong only on some inputs. Shows
//! that the known answers pass a driver that is wrong only on long ciphertext-stealing
//! lengths, that the randomized runner catches it with one replayable line per failing
//! case, and that replaying the printed seed reproduces the line exactly.
//!
//! The real AES drivers live in `cryptoreg-algos`, which this crate must not depend on;
//! their end-to-end self-tests belong to the facade crate.

use std::sync::Arc;

use cryptoreg_registry::inventory;
use cryptoreg_registry::{
    check_key_len, AlgDef, BlockCipherImpl, BootOptions, ChainState, Config, Ctor, Error, HashImpl,
    HashState, HostFeatures, ListEntry, Registry, Result, SelftestMode, Shard, SkcipherImpl,
    TestParams,
};
use cryptoreg_selftest::{parse_seed, Tester, VectorSet, MAX_FAILING_CASES, MAX_FAILING_VECTORS};

// ---------------------------------------------------------------------------------------
// toyxts: an XTS-shaped stream cipher (16-byte chunks, a tail of one block plus the partial
// one, at least 16 bytes, equal key halves refused). Not cryptography: a keyed XOR stream
// that is easy to compute independently.

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn fold(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |h, &b| mix(h ^ u64::from(b)))
}

fn keystream(kfold: u64, seed: u64, block: u64) -> [u8; 16] {
    let a = mix(kfold ^ seed ^ block.wrapping_mul(0x2545_f491_4f6c_dd1d));
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&a.to_le_bytes());
    out[8..].copy_from_slice(&mix(a).to_le_bytes());
    out
}

/// The toy cipher computed the obvious way over one contiguous buffer: the vectors.
fn toy_stream(key: &[u8], iv: &[u8], data: &[u8]) -> Vec<u8> {
    let (kfold, seed) = (fold(key), fold(iv));
    data.iter()
        .enumerate()
        .map(|(j, b)| b ^ keystream(kfold, seed, (j / 16) as u64)[j % 16])
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flaw {
    None,
    /// Wrong when the request is over 512 bytes and not a multiple of 16 (the
    /// ciphertext-stealing tail), encryption only: `xts-aes-faulty`'s flaw.
    LongCts,
    /// Wrong on data that is not 8-byte aligned in memory, as a SIMD kernel that assumes
    /// alignment would be.
    Unaligned,
    /// Takes keys whose halves are equal.
    Lax,
    /// Panics on long requests whose length is 7 modulo 16.
    Panicky,
}

struct ToyXts {
    kfold: Option<u64>,
    flaw: Flaw,
}

impl ToyXts {
    fn xor_run(&self, state: &mut ChainState, data: &mut [u8]) {
        let kfold = self.kfold.expect("keyed");
        let seed = u64::from_le_bytes(state[..8].try_into().unwrap());
        let mut counter = u64::from_le_bytes(state[8..].try_into().unwrap());
        let misaligned = !(data.as_ptr() as usize).is_multiple_of(8);
        for chunk in data.chunks_mut(16) {
            let ks = keystream(kfold, seed, counter);
            for (b, k) in chunk.iter_mut().zip(ks) {
                *b ^= k;
            }
            if self.flaw == Flaw::Unaligned && misaligned {
                chunk[0] ^= 1;
            }
            counter += 1;
        }
        state[8..].copy_from_slice(&counter.to_le_bytes());
    }
}

impl SkcipherImpl for ToyXts {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        check_key_len("toyxts", key, &[32, 64])?;
        let (a, b) = key.split_at(key.len() / 2);
        if a == b && self.flaw != Flaw::Lax {
            return Err(Error::WeakKey("toyxts key halves are equal"));
        }
        self.kfold = Some(fold(key));
        Ok(())
    }
    fn tail_len(&self, total: usize) -> Result<usize> {
        if total < 16 {
            return Err(Error::InvalidLength {
                len: total,
                reason: "toyxts needs 16 bytes",
            });
        }
        Ok(if total.is_multiple_of(16) {
            0
        } else {
            16 + total % 16
        })
    }
    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        state[..8].copy_from_slice(&fold(iv).to_le_bytes());
        state[8..].fill(0);
        Ok(())
    }
    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.xor_run(state, data);
    }
    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.xor_run(state, data);
    }
    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        let done = u64::from_le_bytes(state[8..].try_into().unwrap()) as usize * 16;
        self.xor_run(state, tail);
        let total = done + tail.len();
        if self.flaw == Flaw::LongCts && total > 512 && !total.is_multiple_of(16) {
            tail[0] ^= 0x80;
        }
        assert!(
            !(self.flaw == Flaw::Panicky && total > 1024 && total % 16 == 7),
            "toy panic on {total} bytes"
        );
    }
    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.xor_run(state, tail);
    }
}

fn toyxts(flaw: Flaw) -> Box<dyn SkcipherImpl> {
    Box::new(ToyXts { kfold: None, flaw })
}
fn toyxts_generic(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(toyxts(Flaw::None))
}
fn toyxts_faulty(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(toyxts(Flaw::LongCts))
}
fn toyxts_unaligned(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(toyxts(Flaw::Unaligned))
}
fn toyxts_lax(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(toyxts(Flaw::Lax))
}
fn toyxts_panicky(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(toyxts(Flaw::Panicky))
}

const fn toyxts_def(
    name: &'static str,
    driver: &'static str,
    priority: u32,
    ctor: fn(&HostFeatures) -> Result<Box<dyn SkcipherImpl>>,
) -> AlgDef {
    AlgDef::new(name, driver, priority, Ctor::Skcipher(ctor))
        .block_size(16)
        .key_sizes(32, 64)
        .iv_size(16)
}

inventory::submit! { toyxts_def("toyxts", "toyxts-generic", 100, toyxts_generic) }
inventory::submit! { toyxts_def("toyxts", "toyxts-fast", 300, toyxts_generic) }
inventory::submit! { toyxts_def("toyxts", "toyxts-faulty", 10000, toyxts_faulty) }
inventory::submit! { toyxts_def("toyxts", "toyxts-unaligned", 500, toyxts_unaligned) }
inventory::submit! { toyxts_def("toyxts", "toyxts-lax", 400, toyxts_lax) }
inventory::submit! { toyxts_def("toyxts", "toyxts-panicky", 450, toyxts_panicky) }
// Vectors but no generic reference: full mode cannot compare it, so it is not passed.
inventory::submit! { toyxts_def("orphan", "orphan-fast", 300, toyxts_generic) }
// No vectors at all: untested is not passed.
inventory::submit! { toyxts_def("novec", "novec-generic", 100, toyxts_generic) }

// ---------------------------------------------------------------------------------------
// toyblk: a 16-byte block cipher (keyed XOR, rotate, keyed XOR).

#[derive(Clone, Copy, PartialEq, Eq)]
enum BlkFlaw {
    None,
    /// Wrong from the 17th block of one call on (a bug in a many-blocks-in-flight path).
    LongBatch,
}

struct ToyBlk {
    key: Vec<u8>,
    flaw: BlkFlaw,
}

impl ToyBlk {
    fn pad(&self, round: usize, i: usize) -> u8 {
        self.key[(i + 5 * round) % self.key.len()] ^ (i as u8).wrapping_mul(13)
    }
}

impl BlockCipherImpl for ToyBlk {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        check_key_len("toyblk", key, &[16, 24, 32])?;
        self.key = key.to_vec();
        Ok(())
    }
    fn encrypt_blocks(&self, data: &mut [u8]) {
        for (n, block) in data.chunks_mut(16).enumerate() {
            for (i, b) in block.iter_mut().enumerate() {
                *b ^= self.pad(0, i);
            }
            if !(self.flaw == BlkFlaw::LongBatch && n >= 16) {
                block.rotate_left(1);
            }
            for (i, b) in block.iter_mut().enumerate() {
                *b ^= self.pad(1, i);
            }
        }
    }
    fn decrypt_blocks(&self, data: &mut [u8]) {
        for block in data.chunks_mut(16) {
            for (i, b) in block.iter_mut().enumerate() {
                *b ^= self.pad(1, i);
            }
            block.rotate_right(1);
            for (i, b) in block.iter_mut().enumerate() {
                *b ^= self.pad(0, i);
            }
        }
    }
}

fn toyblk_generic(_: &HostFeatures) -> Result<Box<dyn BlockCipherImpl>> {
    Ok(Box::new(ToyBlk {
        key: Vec::new(),
        flaw: BlkFlaw::None,
    }))
}
fn toyblk_faulty(_: &HostFeatures) -> Result<Box<dyn BlockCipherImpl>> {
    Ok(Box::new(ToyBlk {
        key: Vec::new(),
        flaw: BlkFlaw::LongBatch,
    }))
}

const fn toyblk_def(
    driver: &'static str,
    priority: u32,
    ctor: fn(&HostFeatures) -> Result<Box<dyn BlockCipherImpl>>,
) -> AlgDef {
    AlgDef::new("toyblk", driver, priority, Ctor::Cipher(ctor))
        .block_size(16)
        .key_sizes(16, 32)
}

inventory::submit! { toyblk_def("toyblk-generic", 100, toyblk_generic) }
inventory::submit! { toyblk_def("toyblk-wide", 300, toyblk_generic) }
inventory::submit! { toyblk_def("toyblk-faulty", 9000, toyblk_faulty) }

// ---------------------------------------------------------------------------------------
// toyhash: a hash with no vectors (and no hash runner yet).

struct ToyHash;
struct ToyHashState(u64);

impl HashImpl for ToyHash {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        Err(Error::InvalidKeyLength {
            driver: "toyhash-generic".into(),
            len: key.len(),
            valid: cryptoreg_registry::KeyLengths::list(&[]),
        })
    }
    fn init(&self) -> Box<dyn HashState> {
        Box::new(ToyHashState(0))
    }
}

impl HashState for ToyHashState {
    fn update(&mut self, data: &[u8]) {
        self.0 = mix(self.0 ^ fold(data));
    }
    fn finalize(self: Box<Self>, out: &mut [u8]) {
        out.copy_from_slice(&self.0.to_le_bytes()[..out.len()]);
    }
    fn export(&self) -> zeroize::Zeroizing<Vec<u8>> {
        zeroize::Zeroizing::new(self.0.to_le_bytes().to_vec())
    }
    fn import(&mut self, state: &[u8]) -> Result<()> {
        self.0 = u64::from_le_bytes(state.try_into().map_err(|_| Error::InvalidLength {
            len: state.len(),
            reason: "toyhash state is 8 bytes",
        })?);
        Ok(())
    }
}

fn toyhash(_: &HostFeatures) -> Result<Box<dyn HashImpl>> {
    Ok(Box::new(ToyHash))
}

inventory::submit! {
    AlgDef::new("toyhash", "toyhash-generic", 100, Ctor::Hash(toyhash))
        .out_size(8)
}

// ---------------------------------------------------------------------------------------
// Vectors for the toy algorithms, written out as vector files like the shipped ones.

fn hexs(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn toyxts_file(alg: &str) -> String {
    let mut s = format!("algorithm = \"{alg}\"\n");
    // All at most 512 bytes: the known answers cannot see LongCts.
    for (n, (klen, len)) in [
        (32, 16),
        (32, 17),
        (64, 31),
        (32, 32),
        (64, 100),
        (32, 511),
        (64, 512),
    ]
    .into_iter()
    .enumerate()
    {
        let key: Vec<u8> = (0..klen).map(|i| (i * 7 + n) as u8).collect();
        let iv: Vec<u8> = (0..16).map(|i| (i * 3 + n) as u8).collect();
        let pt: Vec<u8> = (0..len).map(|i| (i * 11 + n) as u8).collect();
        let ct = toy_stream(&key, &iv, &pt);
        s += &format!(
            "[[vector]]\nsource = \"toy vector {n} ({len} bytes)\"\nkey = \"{}\"\niv = \"{}\"\nplaintext = \"{}\"\nciphertext = \"{}\"\n",
            hexs(&key),
            hexs(&iv),
            hexs(&pt),
            hexs(&ct)
        );
    }
    s += &format!(
        "[[vector]]\nsource = \"toy weak key\"\nkey = \"{}\"\niv = \"{}\"\nplaintext = \"{}\"\nciphertext = \"{}\"\nexpect = \"weak_key\"\n",
        hexs(&[7; 32]),
        hexs(&[0; 16]),
        hexs(&[0; 32]),
        hexs(&[0; 32])
    );
    s += &format!(
        "[[vector]]\nsource = \"toy short\"\nkey = \"{}\"\niv = \"{}\"\nplaintext = \"{}\"\nciphertext = \"{}\"\nexpect = \"invalid_length\"\n",
        hexs(&(0..32).collect::<Vec<u8>>()),
        hexs(&[0; 16]),
        hexs(&[1; 15]),
        hexs(&[1; 15])
    );
    s
}

fn toyblk_file() -> String {
    let mut s = "algorithm = \"toyblk\"\n".to_string();
    for (n, klen) in [16usize, 24, 32].into_iter().enumerate() {
        let key: Vec<u8> = (0..klen).map(|i| (i * 5 + n) as u8).collect();
        let pt: Vec<u8> = (0..16).map(|i| (i * 17 + n) as u8).collect();
        // The toy has no standard: its single-block answers come from its generic code.
        let mut imp = toyblk_generic(&HostFeatures::detect()).unwrap();
        imp.set_key(&key).unwrap();
        let mut ct = pt.clone();
        imp.encrypt_blocks(&mut ct);
        s += &format!(
            "[[vector]]\nsource = \"toy block {n}\"\nkey = \"{}\"\nplaintext = \"{}\"\nciphertext = \"{}\"\n",
            hexs(&key),
            hexs(&pt),
            hexs(&ct)
        );
    }
    s
}

fn toy_tester() -> Tester {
    let mut set = (*VectorSet::embedded()).clone();
    set.merge(VectorSet::parse(&toyxts_file("toyxts"), "toyxts").unwrap());
    set.merge(VectorSet::parse(&toyxts_file("orphan"), "orphan").unwrap());
    set.merge(VectorSet::parse(&toyblk_file(), "toyblk").unwrap());
    Tester::with_vectors(set)
}

const SEED: u64 = 0x5eed_c0ff_ee00;

fn boot(mode: SelftestMode) -> Registry {
    let mut config = Config::default();
    config.selftest.mode = mode;
    config.selftest.fuzz_iterations = 100;
    // The runner's lines and replays, on one unpinned thread: the per-CPU gate (lines
    // naming a CPU, replays there) is proved in the facade's fault-injection tests.
    config.selftest.every_cpu = false;
    config.selftest.seed = Some(SEED);
    Registry::boot(BootOptions {
        cpu: None,
        config,
        tester: Some(Arc::new(toy_tester())),
    })
    .expect("boot")
}

fn entry(reg: &Registry, driver: &str) -> ListEntry {
    reg.list()
        .into_iter()
        .find(|e| e.driver == driver)
        .unwrap_or_else(|| panic!("{driver} not listed"))
}

fn replay(reg: &Registry, driver: &str, seed: u64) -> cryptoreg_registry::TestOutcome {
    reg.run_selftest(
        driver,
        &TestParams {
            mode: SelftestMode::Full,
            iterations: 100,
            seed,
            replay: true,
            shard: Shard::WHOLE,
            cpu: None,
        },
    )
    .unwrap()
}

/// The `len=` of a random failure line.
fn line_len(line: &str) -> usize {
    let start = line.find("len=").expect("len=") + 4;
    line[start..].split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn the_randomized_runner_catches_what_the_known_answers_miss_and_replays_it() {
    let reg = boot(SelftestMode::Full);

    for d in [
        "toyxts-generic",
        "toyxts-fast",
        "toyblk-generic",
        "toyblk-wide",
    ] {
        let e = entry(&reg, d);
        assert_eq!(e.state, "passed", "{d}: {:?}", e.failures);
        assert!(e.tests > 0, "{d}");
    }
    // The generic reference runs only its known answers; the fast driver also its
    // randomized cases (3 checks each), so it ran many more checks.
    assert!(entry(&reg, "toyxts-fast").tests > entry(&reg, "toyxts-generic").tests + 200);

    let faulty = entry(&reg, "toyxts-faulty");
    assert_eq!(faulty.state, "failed");
    assert!(
        (1..=MAX_FAILING_CASES).contains(&faulty.failures.len()),
        "{:?}",
        faulty.failures
    );
    for line in &faulty.failures {
        assert!(
            line.starts_with("selftest: skcipher: toyxts-faulty encryption test failed (wrong result) on \"random: len="),
            "{line}"
        );
        assert!(!line.contains('\n'));
        assert!(
            line.contains("\"; cfg=\"") && line.contains("\"; seed=0x"),
            "{line}"
        );
        let len = line_len(line);
        assert!(
            len > 512 && !len.is_multiple_of(16),
            "only the long stealing path is wrong: {line}"
        );
        // Replaying the printed seed reproduces exactly this line, and only it.
        let seed = parse_seed(line.rsplit("; ").next().unwrap()).unwrap();
        let again = replay(&reg, "toyxts-faulty", seed);
        assert_eq!(again.failures, vec![line.clone()]);
        assert!(again.tests >= 1);
        // The same case on the correct driver passes.
        let ok = replay(&reg, "toyxts-fast", seed);
        assert!(ok.passed(), "{:?}", ok.failures);
    }

    // Never chosen: the faulty driver's 10000 loses to the passed fast driver's 300.
    assert_eq!(reg.resolve("toyxts").unwrap().driver(), "toyxts-fast");
    assert!(reg.alloc_skcipher("toyxts-faulty").is_err());

    let blk = entry(&reg, "toyblk-faulty");
    assert_eq!(blk.state, "failed");
    for line in &blk.failures {
        assert!(
            line.starts_with("selftest: cipher: toyblk-faulty encryption test failed (wrong result) on \"random: len="),
            "{line}"
        );
        assert!(line_len(line) > 256, "{line}");
        let seed = parse_seed(line.rsplit("; ").next().unwrap()).unwrap();
        assert_eq!(
            replay(&reg, "toyblk-faulty", seed).failures,
            vec![line.clone()]
        );
    }
    assert_eq!(reg.resolve("toyblk").unwrap().driver(), "toyblk-wide");
}

#[test]
fn known_answers_alone_let_the_long_stealing_bug_through() {
    let reg = boot(SelftestMode::Kat);
    // Wrong only above 512 bytes: no vector reaches it.
    assert_eq!(entry(&reg, "toyxts-faulty").state, "passed");
    assert_eq!(entry(&reg, "toyblk-faulty").state, "passed");
    // But alignment and layout bugs show under the fixed layouts of the known answers.
    let unaligned = entry(&reg, "toyxts-unaligned");
    assert_eq!(unaligned.state, "failed");
    assert!(
        unaligned
            .failures
            .iter()
            .all(|l| l.contains("test failed (wrong result) on \"toy vector")
                && l.contains("; cfg=\"")
                && !l.contains("cfg=\"inplace src_divs=[100.0%@+0]")
                && !l.contains("; seed=")),
        "{:#?}",
        unaligned.failures
    );
    // One line per failing vector (its first failing check), at most MAX_FAILING_VECTORS.
    assert!(unaligned.failures.len() <= MAX_FAILING_VECTORS);
    let mut vectors: Vec<&str> = unaligned
        .failures
        .iter()
        .map(|l| l.split('"').nth(1).unwrap())
        .collect();
    vectors.dedup();
    assert_eq!(
        vectors.len(),
        unaligned.failures.len(),
        "{:#?}",
        unaligned.failures
    );
}

#[test]
fn refusals_are_checked() {
    let reg = boot(SelftestMode::Kat);
    let lax = entry(&reg, "toyxts-lax");
    assert_eq!(lax.state, "failed");
    assert_eq!(
        lax.failures,
        vec![
            "selftest: skcipher: toyxts-lax setkey unexpectedly succeeded on \"toy weak key\"; expected=WeakKey; cfg=\"inplace src_divs=[100.0%@+0] key_offset=0 iv_offset=0\""
                .to_string()
        ]
    );
    // The correct drivers refuse the weak key and the 15-byte request as the vectors say.
    let fast = entry(&reg, "toyxts-fast");
    assert_eq!(fast.state, "passed", "{:?}", fast.failures);
}

#[test]
fn untested_is_not_passed() {
    let reg = boot(SelftestMode::Full);
    let no_vectors = entry(&reg, "novec-generic");
    assert_eq!(no_vectors.state, "failed");
    assert_eq!(
        no_vectors.failures,
        vec!["selftest: skcipher: novec-generic: no test vectors for novec".to_string()]
    );
    let hash = entry(&reg, "toyhash-generic");
    assert_eq!(hash.state, "failed");
    assert_eq!(
        hash.failures,
        vec!["selftest: hash: toyhash-generic: no test vectors for toyhash".to_string()]
    );
    // No reference to compare with: untested (and so never handed out), not failed; it
    // is tested again once the registry changes.
    let orphan = entry(&reg, "orphan-fast");
    assert_eq!(orphan.state, "untested");
    assert_eq!(orphan.failures.len(), 1, "{:?}", orphan.failures);
    assert!(
        orphan.failures[0].starts_with(
            "selftest: skcipher: orphan-fast: no generic reference \"orphan-generic\" for the randomized tests:"
        ),
        "{}",
        orphan.failures[0]
    );
    assert!(matches!(
        reg.resolve("novec"),
        Err(Error::SelfTestFailed { .. })
    ));
    assert!(matches!(
        reg.resolve("orphan-fast"),
        Err(Error::ReferenceUnavailable { ref reference, .. }) if reference == "orphan-generic"
    ));
}

#[test]
fn the_layout_bug_is_also_caught_by_random_layouts() {
    let reg = boot(SelftestMode::Full);
    let unaligned = entry(&reg, "toyxts-unaligned");
    assert_eq!(unaligned.state, "failed");
    // Known-answer lines first, then up to MAX_FAILING_CASES random ones, each replayable.
    let random: Vec<&String> = unaligned
        .failures
        .iter()
        .filter(|l| l.contains("random: "))
        .collect();
    assert!(!random.is_empty() && random.len() <= MAX_FAILING_CASES);
    for line in random {
        let seed = parse_seed(line.rsplit("; ").next().unwrap()).unwrap();
        assert_eq!(
            replay(&reg, "toyxts-unaligned", seed).failures,
            vec![line.clone()]
        );
    }
}

#[test]
fn a_panicking_driver_fails_with_a_replayable_line() {
    let reg = boot(SelftestMode::Full);
    let panicky = entry(&reg, "toyxts-panicky");
    assert_eq!(panicky.state, "failed");
    assert!(!panicky.failures.is_empty());
    for line in &panicky.failures {
        assert!(
            line.starts_with("selftest: skcipher: toyxts-panicky encryption test failed (panicked: toy panic on "),
            "{line}"
        );
        let len = line_len(line);
        assert!(len > 1024 && len % 16 == 7, "{line}");
        let seed = parse_seed(line.rsplit("; ").next().unwrap()).unwrap();
        assert_eq!(
            replay(&reg, "toyxts-panicky", seed).failures,
            vec![line.clone()]
        );
    }
    assert_eq!(reg.resolve("toyxts").unwrap().driver(), "toyxts-fast");
}

#[test]
fn replaying_on_the_reference_compares_it_with_itself() {
    let reg = boot(SelftestMode::Kat);
    let out = replay(&reg, "toyxts-generic", 12345);
    assert!(out.passed(), "{:?}", out.failures);
    assert!(out.tests >= 2);
}

/// A replay or a weaker run reports; it never upgrades a driver's state. Only a full
/// run at least as strong as the boot's may move a driver to `passed`.
#[test]
fn a_weaker_retest_never_clears_a_failure() {
    let reg = boot(SelftestMode::Full);
    assert_eq!(entry(&reg, "toyxts-faulty").state, "failed");
    // A seed whose one case passes (the flaw needs > 512 bytes and a partial block).
    (0..1000u64)
        .find(|&s| replay(&reg, "toyxts-faulty", s).passed())
        .expect("some replayed case misses the flaw");
    assert_eq!(
        entry(&reg, "toyxts-faulty").state,
        "failed",
        "a passing replay upgraded it"
    );
    // Known answers only, and a full run weaker than the boot's 100 iterations, each at
    // the first seed whose run misses the flaw.
    for (mode, iterations) in [(SelftestMode::Kat, 100), (SelftestMode::Full, 1)] {
        let (params, out) = (0..1000u64)
            .map(|seed| {
                let params = TestParams {
                    mode,
                    iterations,
                    seed,
                    replay: false,
                    shard: Shard::WHOLE,
                    cpu: None,
                };
                (params, reg.run_selftest("toyxts-faulty", &params).unwrap())
            })
            .find(|(_, out)| out.passed())
            .expect("some weak run misses the flaw");
        assert!(out.tests > 0);
        assert_eq!(
            entry(&reg, "toyxts-faulty").state,
            "failed",
            "{params:?} upgraded it"
        );
    }
    assert!(reg.alloc_skcipher("toyxts").unwrap().driver_name() != "toyxts-faulty");
    assert!(matches!(
        reg.alloc_skcipher("toyxts-faulty"),
        Err(Error::DriverFailed { ref driver, .. }) if driver == "toyxts-faulty"
    ));
}
