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
//! The locks are std's (`crate::sync`): each keeps its whole state in itself, so a lock
//! held across the fork is all the child needs released. (parking_lot's, used before,
//! keep their waiting threads in a process-wide table whose bucket locks no handler can
//! take: a child forked while a parent thread held one hung, 1 fork in 2,000 under
//! load.) The guards `prepare` takes are real guards, kept in a thread-local ([`HELD`]):
//! the forking thread is the one that runs `parent` in the parent and `child` in the
//! child, with its thread-locals copied, and dropping the guards there releases the
//! locks.
//!
//! In the child one thing the parent's threads left behind is undone: an entry whose
//! self-test was running on a parent thread (`Testing`) goes back to `Untested`, so the
//! child's next request tests it instead of waiting for a result that will never come.
//!
//! What this cannot cover: locks outside the registry (a `tracing` subscriber's, stdout,
//! the application's own) are the application's concern.
//!
//! This is the registry's only module with `unsafe` (see the README's safety rules).

use std::cell::RefCell;
use std::sync::{Arc, Once, Weak};

use super::{Inner, TestState};
use crate::stats::{self, DriverStats};
use crate::sync::{Mutex, MutexGuard};

/// The registries alive now.
struct Live {
    tables: Vec<Weak<Mutex<Inner>>>,
}

static LIVE: Mutex<Live> = Mutex::new(Live { tables: Vec::new() });

/// Everything `prepare` locked, held until `parent` or `child` drops it. Fields drop in
/// declaration order: the registries' guards, then the list's.
struct Held {
    tables: Vec<HeldTable>,
    _live: MutexGuard<'static, Live>,
}

/// One registry's guards and the references that keep what they lock alive. Fields
/// drop in declaration order: each guard before the `Arc` it borrows from.
struct HeldTable {
    counters: Vec<MutexGuard<'static, stats::Live>>,
    table: MutexGuard<'static, Inner>,
    _stats: Vec<Arc<DriverStats>>,
    _inner: Arc<Mutex<Inner>>,
}

thread_local! {
    /// The forking thread's guards, from `prepare` until `parent` or `child`.
    static HELD: RefCell<Option<Held>> = const { RefCell::new(None) };
}

static HANDLERS: Once = Once::new();

/// Records a new registry's table for the fork handlers, registering the handlers on
/// the first call. Call without holding `inner`.
pub(super) fn track(inner: &Arc<Mutex<Inner>>) {
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
    live.tables.retain(|i| i.strong_count() > 0);
    live.tables.push(Arc::downgrade(inner));
}

/// Before the fork: takes every lock, in order, and keeps the guards in [`HELD`].
extern "C" fn prepare() {
    let live = LIVE.lock();
    let mut tables = Vec::with_capacity(live.tables.len());
    for inner in live.tables.iter().filter_map(Weak::upgrade) {
        // SAFETY: the `Arc` is kept in the same `HeldTable` as the guard and dropped
        // after it (field order), so the lock outlives the guard.
        let lock: &'static Mutex<Inner> = unsafe { &*Arc::as_ptr(&inner) };
        let table = lock.lock();
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
        let counters = stats
            .iter()
            .map(|s| {
                // SAFETY: as for the table: the `Arc` is kept beside the guard and
                // dropped after it.
                let s: &'static DriverStats = unsafe { &*Arc::as_ptr(s) };
                s.fork_lock().lock()
            })
            .collect();
        tables.push(HeldTable {
            counters,
            table,
            _stats: stats,
            _inner: inner,
        });
    }
    let held = Held {
        tables,
        _live: live,
    };
    HELD.with(|h| *h.borrow_mut() = Some(held));
}

/// After the fork, in the parent: releases what `prepare` took.
extern "C" fn parent() {
    drop(HELD.with(|h| h.borrow_mut().take()));
}

/// After the fork, in the child (its only thread): resets the self-tests the parent's
/// threads were running and releases what `prepare` took.
extern "C" fn child() {
    let Some(mut held) = HELD.with(|h| h.borrow_mut().take()) else {
        return;
    };
    for t in &mut held.tables {
        for e in t.table.entries.values_mut() {
            if e.state == TestState::Testing {
                e.state = TestState::Untested;
            }
        }
        // Counters first, then the table: the reverse of the order they were taken in.
        t.counters.clear();
    }
    drop(held);
}
