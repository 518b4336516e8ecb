//! Fork safety: `pthread_atfork` handlers that keep every registry's locks usable in a
//! forked child, whatever the registry's own threads (the control socket's, self-test
//! workers and their budget threads, the application's allocating threads) were doing
//! at the instant of the fork.
//!
//! `fork` copies one thread. A lock another thread held at that instant stays held in
//! the child, by a thread that does not exist there, so the child's first allocation
//! would park forever. The C library solves this for `malloc` the same way as here:
//! before the fork (`prepare`) the forking thread takes every lock in a fixed order, so
//! no other thread holds one while the address space is copied; afterwards the parent
//! and the child release them (`parent`, `child`).
//!
//! The order: the list of live registries ([`LIVE`], a lock of its own, taken first),
//! then for each registry its table lock (`Registry::inner`) and then the counters lock
//! of every driver entry in the table (`DriverStats`), the same order the registry takes
//! them in (the table, then a driver's counters under it; a handle's allocation or drop
//! takes its counters lock alone). Registries are created at run time and can be many,
//! so [`track`] records each one as weak references; the handlers are registered once.
//!
//! In the child, two things the parent's threads left behind are undone as well:
//!
//! * parking_lot's queue of threads parked on each lock and on the table's condition
//!   variable still lists the parent's waiting threads. An unlock would hand the lock to
//!   one of them (a fair unlock) and leave it locked forever, so those records are
//!   dropped before the unlock (`unpark_all` on the lock's address, which parking_lot
//!   uses as the queue's key; the dead threads' records are memory only).
//! * an entry whose self-test was running on a parent thread (`Testing`) goes back to
//!   `Untested`, so the child's next request tests it instead of waiting for a result
//!   that will never come.
//!
//! What this cannot cover: locks outside the registry (a `tracing` subscriber's, stdout,
//! the application's own) are the application's concern, and so is parking_lot's own
//! hash table (a thread forked away in the instant it was inserting itself into a queue
//! leaves that bucket's lock held; the window is a few instructions per contended lock).
//!
//! This is the registry's only module with `unsafe` (see the README's safety rules).

use std::mem;
use std::sync::{Arc, Once, Weak};

use parking_lot::{Condvar, Mutex};

use super::{Inner, TestState};
use crate::stats::DriverStats;

/// The registries alive now, and while a fork is in progress the locks `prepare` took.
struct Live {
    tables: Vec<(Weak<Mutex<Inner>>, Weak<Condvar>)>,
    held: Vec<Held>,
}

/// One registry's locks, held from `prepare` until `parent` or `child`.
struct Held {
    inner: Arc<Mutex<Inner>>,
    tested: Arc<Condvar>,
    stats: Vec<Arc<DriverStats>>,
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    tables: Vec::new(),
    held: Vec::new(),
});

static HANDLERS: Once = Once::new();

/// Records a new registry's table (its lock and condition variable) for the fork
/// handlers, registering the handlers on the first call. Call without holding `inner`.
pub(super) fn track(inner: &Arc<Mutex<Inner>>, tested: &Arc<Condvar>) {
    HANDLERS.call_once(|| {
        // SAFETY: the three handlers are plain `extern "C"` functions with no arguments,
        // valid for the life of the program; they only take and release locks, whose
        // order is described in the module docs.
        let rc = unsafe { libc::pthread_atfork(Some(prepare), Some(parent), Some(child)) };
        if rc != 0 {
            tracing::warn!(
                target: "cryptoreg::registry",
                "pthread_atfork failed ({rc}): a child forked while another thread uses \
                 the registry may deadlock"
            );
        }
    });
    let mut live = LIVE.lock();
    live.tables.retain(|(i, _)| i.strong_count() > 0);
    live.tables
        .push((Arc::downgrade(inner), Arc::downgrade(tested)));
}

/// Before the fork: takes every lock, in order, and keeps them (guards forgotten).
extern "C" fn prepare() {
    let mut live = LIVE.lock();
    let mut held = Vec::with_capacity(live.tables.len());
    for (inner, tested) in &live.tables {
        let (Some(inner), Some(tested)) = (inner.upgrade(), tested.upgrade()) else {
            continue;
        };
        let table = inner.lock();
        // The entries' counters, and those kept for template instances an invalidation
        // dropped (live handles to a retired instance still count into them).
        let mut stats: Vec<Arc<DriverStats>> = table
            .entries
            .values()
            .map(|e| Arc::clone(&e.stats))
            .chain(table.instance_stats.values().map(|(_, s)| Arc::clone(s)))
            .collect();
        // The same counters twice would be locked twice by this thread.
        stats.sort_by_key(|s| Arc::as_ptr(s) as usize);
        stats.dedup_by(|a, b| Arc::ptr_eq(a, b));
        mem::forget(table);
        for s in &stats {
            mem::forget(s.fork_lock().lock());
        }
        held.push(Held {
            inner,
            tested,
            stats,
        });
    }
    live.held = held;
    mem::forget(live);
}

/// After the fork, in the parent: releases what `prepare` took.
extern "C" fn parent() {
    release(false);
}

/// After the fork, in the child (its only thread): resets what the parent's threads
/// left behind and releases what `prepare` took.
extern "C" fn child() {
    release(true);
}

fn release(in_child: bool) {
    // SAFETY: `prepare` locked `LIVE` on this thread and forgot the guard, so this
    // thread owns the data until the `unlock` below.
    let live = unsafe { &mut *LIVE.data_ptr() };
    let held = mem::take(&mut live.held);
    for h in held.iter().rev() {
        for s in h.stats.iter().rev() {
            // SAFETY: `prepare` locked it on this thread and forgot the guard.
            unsafe { unlock(s.fork_lock(), in_child) };
        }
        if in_child {
            // SAFETY: `prepare` locked the table on this thread and forgot the guard;
            // in the child this is the only thread.
            let inner = unsafe { &mut *h.inner.data_ptr() };
            for e in inner.entries.values_mut() {
                if e.state == TestState::Testing {
                    e.state = TestState::Untested;
                }
            }
            let key = Arc::as_ptr(&h.tested) as usize;
            // SAFETY: `key` is the condition variable's address, the key parking_lot
            // parks its waiters under; in the child no thread but this one exists, so
            // every record in that queue is a parent thread's, never to run again.
            unsafe { parking_lot_core::unpark_all(key, parking_lot_core::DEFAULT_UNPARK_TOKEN) };
        }
        // SAFETY: `prepare` locked it on this thread and forgot the guard.
        unsafe { unlock(&h.inner, in_child) };
    }
    // SAFETY: `prepare` locked it on this thread and forgot the guard. `held` (dropped
    // after this) may hold the last references to a registry's table; dropping it takes
    // no lock of these.
    unsafe { unlock(&LIVE, in_child) };
    drop(held);
}

/// Unlocks `m`; in the child, first forgets the parent's threads parked on it.
///
/// # Safety
///
/// The calling thread locked `m` in `prepare` and forgot the guard.
unsafe fn unlock<T>(m: &Mutex<T>, in_child: bool) {
    if in_child {
        // SAFETY: parking_lot's `RawMutex` parks its waiters under its own address; in
        // the child every record under it is a parent thread's (see `release`).
        unsafe {
            let key = m.raw() as *const parking_lot::RawMutex as usize;
            parking_lot_core::unpark_all(key, parking_lot_core::DEFAULT_UNPARK_TOKEN);
        }
    }
    // SAFETY: the caller's contract: this thread holds `m`.
    unsafe { m.force_unlock() };
}
