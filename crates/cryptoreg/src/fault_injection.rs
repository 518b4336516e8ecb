//! A deliberately wrong driver that proves the self-test gate. Compiled only under the
//! compiler flag `--cfg cryptoreg_fault_injection` (as tokio does with `tokio_unstable`):
//!
//! ```sh
//! RUSTFLAGS="--cfg cryptoreg_fault_injection" CARGO_TARGET_DIR=target/fault-injection \
//!     cargo test -p cryptoreg -p cryptoctl
//! ```
//!
//! It is deliberately not a Cargo feature: Cargo unifies features across a dependency
//! graph, so a feature turned on by any crate in a service's build (or by
//! `--all-features`) would link this driver into the service, where it wins every
//! `xts(aes)` lookup under `mode = "kat"` or `"off"`. A cfg is set only by whoever runs
//! the build. `cargo xtask ci` proves that a `cryptoctl` built with `--all-features`
//! lists no faulty driver.
//!
//! `xts-aes-faulty` registers for `xts(aes)` at priority 10000 — above every real driver —
//! and is a correct XTS over the generic AES except on requests longer than 512 bytes
//! that are not a multiple of 16 (the ciphertext-stealing path), where it flips one bit of
//! the stolen block. The standards' known answers (at most 512 bytes) pass it; the
//! randomized differential tests must catch it, exclude it, and print a replayable line.
//!
//! `gcm-aes-faulty` does the same for `gcm(aes)` (priority 10000): a correct GCM (the
//! `gcm_base` construction over the generic AES and `ghash-generic`) except when both the
//! AAD and the text exceed 256 bytes, where one bit of the tag is wrong — the shape of the
//! arm64 interleave bug the kernel's randomized tests caught: a stitched path that only
//! long requests reach. The GCM specification's cases (AAD of at most 20 bytes) pass it.
//!
//! `ctr-aes-faulty-cpu` is wrong only on one CPU (the per-CPU gate's proof);
//! `ctr-aes-faulty-late` and `xts-aes-faulty-late` turn wrong only once a test turns the
//! fault on (the rescan's proof; [`turn_late_drivers_wrong`], [`LATE_FAULT_ENV`]).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use cryptoreg_algos::aes::gcm_rules::{GCM_NONCE_LEN, GCM_TAG_LEN};
use cryptoreg_algos::aes::AesGeneric;
use cryptoreg_algos::ghash::generic::ghash_generic;
use cryptoreg_algos::templates::{ctr_over_cipher, gcm_over, xts_over_cipher};
use cryptoreg_registry::{
    inventory, AeadImpl, AeadLens, AeadState, AlgDef, ChainState, Ctor, HostFeatures, InOut,
    Result, SkcipherImpl,
};

struct FaultyXts {
    inner: Box<dyn SkcipherImpl>,
    /// Length of the request in progress, noted by `tail_len` (called once per request
    /// before any data moves). Racy across threads sharing a handle; this driver exists
    /// for the single-threaded self-test only.
    request_len: AtomicUsize,
}

impl SkcipherImpl for FaultyXts {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.inner.set_key(key)
    }
    fn tail_len(&self, total: usize) -> Result<usize> {
        self.request_len.store(total, Ordering::Relaxed);
        self.inner.tail_len(total)
    }
    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        self.inner.start(iv, state)
    }
    fn check_request(&self, iv: &[u8], total: usize) -> Result<()> {
        self.inner.check_request(iv, total)
    }
    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.inner.encrypt_blocks(state, data)
    }
    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.inner.decrypt_blocks(state, data)
    }
    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.inner.encrypt_tail(state, tail);
        if self.request_len.load(Ordering::Relaxed) > 512 && !tail.is_empty() {
            tail[0] ^= 0x01;
        }
    }
    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.inner.decrypt_tail(state, tail)
    }
}

/// Portable: needs no CPU feature.
fn faulty(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(Box::new(FaultyXts {
        inner: xts_over_cipher(|| Box::new(AesGeneric::new())),
        request_len: AtomicUsize::new(0),
    }))
}

inventory::submit! {
    AlgDef::new("xts(aes)", "xts-aes-faulty", 10000, Ctor::Skcipher(faulty))
        .block_size(16)
        .key_sizes(32, 64)
        .iv_size(16)
}

/// Requests whose AAD and text both exceed this many bytes get a wrong tag bit.
const GCM_FAULT_OVER: usize = 256;

struct FaultyGcm {
    inner: Box<dyn AeadImpl>,
    /// Whether the request in progress is long enough to be wrong, noted by `start`.
    /// Racy across threads sharing a handle, like `FaultyXts::request_len`.
    long: AtomicBool,
}

impl AeadImpl for FaultyGcm {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.inner.set_key(key)
    }
    fn check_authsize(&self, authsize: usize) -> Result<()> {
        self.inner.check_authsize(authsize)
    }
    fn chunk_size(&self) -> usize {
        self.inner.chunk_size()
    }
    fn aad_chunk_size(&self) -> usize {
        self.inner.aad_chunk_size()
    }
    fn start(&self, state: &mut AeadState, nonce: &[u8], lens: AeadLens) -> Result<()> {
        self.long.store(
            lens.aad > GCM_FAULT_OVER && lens.text > GCM_FAULT_OVER,
            Ordering::Relaxed,
        );
        self.inner.start(state, nonce, lens)
    }
    fn absorb_aad(&self, state: &mut AeadState, aad: &[u8]) {
        self.inner.absorb_aad(state, aad)
    }
    fn absorb_aad_tail(&self, state: &mut AeadState, tail: &[u8]) {
        self.inner.absorb_aad_tail(state, tail)
    }
    fn encrypt_chunks(&self, state: &mut AeadState, data: InOut<'_>) {
        self.inner.encrypt_chunks(state, data)
    }
    fn decrypt_chunks(&self, state: &mut AeadState, data: InOut<'_>) {
        self.inner.decrypt_chunks(state, data)
    }
    fn encrypt_tail(&self, state: &mut AeadState, data: InOut<'_>) {
        self.inner.encrypt_tail(state, data)
    }
    fn decrypt_tail(&self, state: &mut AeadState, data: InOut<'_>) {
        self.inner.decrypt_tail(state, data)
    }
    /// The fault: one tag bit, on long requests. `verify`, `seal` and `open` are the
    /// trait's defaults, so every path goes through here.
    fn finish(&self, state: &mut AeadState, tag: &mut [u8]) {
        self.inner.finish(state, tag);
        if self.long.load(Ordering::Relaxed) {
            if let Some(b) = tag.first_mut() {
                *b ^= 0x01;
            }
        }
    }
}

/// Portable: needs no CPU feature.
fn faulty_gcm(_: &HostFeatures) -> Result<Box<dyn AeadImpl>> {
    Ok(Box::new(FaultyGcm {
        inner: gcm_over(
            "gcm-aes-faulty",
            ctr_over_cipher(|| Box::new(AesGeneric::new())),
            Box::new(ghash_generic()),
        ),
        long: AtomicBool::new(false),
    }))
}

inventory::submit! {
    AlgDef::new("gcm(aes)", "gcm-aes-faulty", 10000, Ctor::Aead(faulty_gcm))
        .block_size(1)
        .key_sizes(16, 32)
        .iv_size(GCM_NONCE_LEN)
        .out_size(GCM_TAG_LEN)
}

/// `ctr-aes-faulty-cpu`: a correct CTR over the generic AES except when it runs on the
/// highest-numbered CPU of the process's affinity mask, where one bit of every output
/// block run is wrong — the "mercurial core" of Google's "Cores that don't count": right
/// everywhere but on one core, deterministically. A gate that tests each driver on one
/// CPU passes it whenever its test thread lands elsewhere; the per-CPU gate
/// (`[selftest] every_cpu`) must fail it at every boot, naming that CPU. Priority 10000,
/// above every real `ctr(aes)` driver. This says whether a call runs on that CPU.
fn on_the_bad_cpu() -> bool {
    let last = cryptoreg_registry::affinity::process_cpus().last().copied();
    last.is_some() && cryptoreg_registry::affinity::current_cpu() == last
}

/// A correct skcipher that flips the first bit of every output piece whenever `wrong()`
/// says so: the shape of both the per-CPU fault and the late one.
struct FlipsOneBit {
    inner: Box<dyn SkcipherImpl>,
    wrong: fn() -> bool,
}

impl FlipsOneBit {
    fn corrupt(&self, data: &mut [u8]) {
        if (self.wrong)() {
            if let Some(b) = data.first_mut() {
                *b ^= 0x01;
            }
        }
    }
}

impl SkcipherImpl for FlipsOneBit {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.inner.set_key(key)
    }
    fn tail_len(&self, total: usize) -> Result<usize> {
        self.inner.tail_len(total)
    }
    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        self.inner.start(iv, state)
    }
    fn check_request(&self, iv: &[u8], total: usize) -> Result<()> {
        self.inner.check_request(iv, total)
    }
    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.inner.encrypt_blocks(state, data);
        self.corrupt(data);
    }
    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.inner.decrypt_blocks(state, data);
        self.corrupt(data);
    }
    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.inner.encrypt_tail(state, tail);
        self.corrupt(tail);
    }
    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.inner.decrypt_tail(state, tail);
        self.corrupt(tail);
    }
}

/// Portable: needs no CPU feature.
fn faulty_on_one_cpu(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(Box::new(FlipsOneBit {
        inner: ctr_over_cipher(|| Box::new(AesGeneric::new())),
        wrong: on_the_bad_cpu,
    }))
}

inventory::submit! {
    AlgDef::new("ctr(aes)", "ctr-aes-faulty-cpu", 10000, Ctor::Skcipher(faulty_on_one_cpu))
        .block_size(1)
        .key_sizes(16, 32)
        .iv_size(16)
}

/// Whether the `-faulty-late` drivers are wrong: set in this process by
/// [`turn_late_drivers_wrong`]; in a process given [`LATE_FAULT_ENV`], once the file it
/// names exists (a test creates it to turn the fault on in a service it started).
static LATE_FAULT_ON: AtomicBool = AtomicBool::new(false);

/// The environment variable that names the file whose existence turns the late fault on
/// in a process (and makes the late drivers constructible there).
pub const LATE_FAULT_ENV: &str = "CRYPTOREG_FAULT_LATE_FILE";

/// Turns `ctr-aes-faulty-late` and `xts-aes-faulty-late` wrong from now on, in this
/// process.
pub fn turn_late_drivers_wrong() {
    LATE_FAULT_ON.store(true, Ordering::Release);
}

/// Whether this process asked for the late drivers (see [`use_late_drivers`]).
static LATE_WANTED: AtomicBool = AtomicBool::new(false);

/// Makes the `-faulty-late` drivers constructible in this process; call it before the
/// boot. Without it (or [`LATE_FAULT_ENV`] in the environment) their constructor fails,
/// so their self-test fails and they are excluded as the other faulty drivers are: a
/// correct driver that passed would otherwise become a candidate in every other test
/// of the fault-injection build.
pub fn use_late_drivers() {
    LATE_WANTED.store(true, Ordering::Release);
}

fn late_drivers_wanted() -> Result<()> {
    if LATE_WANTED.load(Ordering::Acquire) || std::env::var_os(LATE_FAULT_ENV).is_some() {
        Ok(())
    } else {
        Err(cryptoreg_registry::Error::Config(
            "the -faulty-late drivers exist only in a process that asked for them \
             (fault_injection::use_late_drivers or CRYPTOREG_FAULT_LATE_FILE)"
                .to_string(),
        ))
    }
}

/// Whether the late fault is on: turned on here, or its file exists (one `stat` per
/// call: this driver exists for tests).
fn late_fault_on() -> bool {
    static FILE: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    LATE_FAULT_ON.load(Ordering::Acquire)
        || FILE
            .get_or_init(|| std::env::var_os(LATE_FAULT_ENV).map(Into::into))
            .as_ref()
            .is_some_and(|f| f.exists())
}

/// `ctr-aes-faulty-late` and `xts-aes-faulty-late`: correct (CTR and XTS over the generic
/// AES) until the late fault turns on (see [`turn_late_drivers_wrong`]), then one bit of
/// every output is wrong on every CPU — a core that goes bad while the service runs,
/// after the boot proved it. The boot passes them; the rescan (`[selftest]
/// rescan_secs`) must catch them. Only in a process that asked for them
/// ([`use_late_drivers`]), at priority 1: a test that wants one chosen gives it a
/// priority that wins. Portable: needs no CPU feature.
fn ctr_faulty_late(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    late_drivers_wanted()?;
    Ok(Box::new(FlipsOneBit {
        inner: ctr_over_cipher(|| Box::new(AesGeneric::new())),
        wrong: late_fault_on,
    }))
}

/// Portable: needs no CPU feature.
fn xts_faulty_late(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    late_drivers_wanted()?;
    Ok(Box::new(FlipsOneBit {
        inner: xts_over_cipher(|| Box::new(AesGeneric::new())),
        wrong: late_fault_on,
    }))
}

inventory::submit! {
    AlgDef::new("ctr(aes)", "ctr-aes-faulty-late", 1, Ctor::Skcipher(ctr_faulty_late))
        .block_size(1)
        .key_sizes(16, 32)
        .iv_size(16)
}

inventory::submit! {
    AlgDef::new("xts(aes)", "xts-aes-faulty-late", 1, Ctor::Skcipher(xts_faulty_late))
        .block_size(16)
        .key_sizes(32, 64)
        .iv_size(16)
}

/// Whether this process asked for the calibration drivers (see
/// [`use_calibration_drivers`]).
static CALIBRATION_WANTED: AtomicBool = AtomicBool::new(false);

/// Makes `ctr-aes-slow`, `ctr-aes-twin-a` and `ctr-aes-twin-b` constructible in this
/// process (call it before the boot); elsewhere their constructor fails and they are
/// excluded, as the late drivers are.
pub fn use_calibration_drivers() {
    CALIBRATION_WANTED.store(true, Ordering::Release);
}

fn calibration_drivers_wanted() -> Result<()> {
    if CALIBRATION_WANTED.load(Ordering::Acquire) {
        Ok(())
    } else {
        Err(cryptoreg_registry::Error::Config(
            "the calibration test drivers exist only in a process that asked for them \
             (fault_injection::use_calibration_drivers)"
                .to_string(),
        ))
    }
}

/// How many times `ctr-aes-slow` does its work (all but once on a scratch copy).
const SLOWDOWN: usize = 4;

/// `ctr-aes-slow`: a correct CTR over the generic AES that does every request's work
/// [`SLOWDOWN`] times, at priority 30000, above every real `ctr(aes)` driver: a driver
/// whose priority is a bad guess about its speed. Without calibration it wins `ctr(aes)`;
/// with `[selection] calibrate` a faster one must. `ctr-aes-twin-a` (29999) and
/// `ctr-aes-twin-b` (29998) are the same plain CTR twice: measured within any margin of
/// each other, so calibration must keep the higher-priority one, boot after boot.
struct Slow {
    inner: Box<dyn SkcipherImpl>,
}

impl Slow {
    fn again(&self, state: &ChainState, data: &[u8], f: impl Fn(&mut ChainState, &mut [u8])) {
        for _ in 1..SLOWDOWN {
            let (mut s, mut scratch) = (*state, data.to_vec());
            f(&mut s, &mut scratch);
            std::hint::black_box(&scratch);
        }
    }
}

impl SkcipherImpl for Slow {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.inner.set_key(key)
    }
    fn tail_len(&self, total: usize) -> Result<usize> {
        self.inner.tail_len(total)
    }
    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        self.inner.start(iv, state)
    }
    fn check_request(&self, iv: &[u8], total: usize) -> Result<()> {
        self.inner.check_request(iv, total)
    }
    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.again(state, data, |s, d| self.inner.encrypt_blocks(s, d));
        self.inner.encrypt_blocks(state, data);
    }
    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.again(state, data, |s, d| self.inner.decrypt_blocks(s, d));
        self.inner.decrypt_blocks(state, data);
    }
    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.inner.encrypt_tail(state, tail);
    }
    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.inner.decrypt_tail(state, tail);
    }
}

/// Portable: needs no CPU feature.
fn ctr_slow(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    calibration_drivers_wanted()?;
    Ok(Box::new(Slow {
        inner: ctr_over_cipher(|| Box::new(AesGeneric::new())),
    }))
}

/// Portable: needs no CPU feature.
fn ctr_twin(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    calibration_drivers_wanted()?;
    Ok(ctr_over_cipher(|| Box::new(AesGeneric::new())))
}

inventory::submit! {
    AlgDef::new("ctr(aes)", "ctr-aes-slow", 30000, Ctor::Skcipher(ctr_slow))
        .block_size(1)
        .key_sizes(16, 32)
        .iv_size(16)
}

inventory::submit! {
    AlgDef::new("ctr(aes)", "ctr-aes-twin-a", 29999, Ctor::Skcipher(ctr_twin))
        .block_size(1)
        .key_sizes(16, 32)
        .iv_size(16)
}

inventory::submit! {
    AlgDef::new("ctr(aes)", "ctr-aes-twin-b", 29998, Ctor::Skcipher(ctr_twin))
        .block_size(1)
        .key_sizes(16, 32)
        .iv_size(16)
}
