//! Per-driver counters without a shared atomic on the request path.
//!
//! Every handle the registry hands out owns a [`HandleCell`]: two counters (requests,
//! bytes) that only that handle writes, with plain relaxed loads and stores — no
//! read-modify-write, no cache line shared with another handle. The driver's entry keeps
//! a [`DriverStats`]: the number of allocations, the cells of its live handles (registered
//! at allocation, removed at drop) and the totals of handles already dropped (each cell is
//! folded in when its handle drops). A read sums the live cells and the folded totals
//! under the entry's small lock, which only allocation, drop and readers take: never a
//! request.
//!
//! Counts are exact for a handle used by one thread at a time (the common case: a handle
//! per worker). A handle shared by several threads at once (handles are `Sync`) may lose
//! increments that race, since a load and a store are not one atomic addition: the
//! numbers are operational statistics, and making them exact would put a locked
//! instruction on every request.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::sync::Mutex;

/// One handle's counters.
#[derive(Default)]
pub(crate) struct HandleCell {
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl HandleCell {
    /// Counts one request of `bytes` bytes: two relaxed loads and stores, no locked
    /// instruction (see the module docs).
    #[inline(always)]
    pub(crate) fn count(&self, bytes: usize) {
        let r = self.requests.load(Ordering::Relaxed);
        self.requests.store(r.wrapping_add(1), Ordering::Relaxed);
        let b = self.bytes.load(Ordering::Relaxed);
        self.bytes
            .store(b.wrapping_add(bytes as u64), Ordering::Relaxed);
    }

    /// Counts bytes of a request still running (a hash `update`).
    #[inline(always)]
    pub(crate) fn count_bytes(&self, bytes: usize) {
        let b = self.bytes.load(Ordering::Relaxed);
        self.bytes
            .store(b.wrapping_add(bytes as u64), Ordering::Relaxed);
    }

    fn read(&self) -> (u64, u64) {
        (
            self.requests.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        )
    }
}

#[derive(Default)]
pub(crate) struct Live {
    next_id: u64,
    cells: HashMap<u64, Arc<HandleCell>>,
    /// Requests and bytes of handles already dropped.
    retired: (u64, u64),
}

/// One driver entry's counters.
#[derive(Default)]
pub(crate) struct DriverStats {
    allocations: AtomicU64,
    live: Mutex<Live>,
}

/// A snapshot of one driver's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) allocations: u64,
    pub(crate) live: usize,
    pub(crate) requests: u64,
    pub(crate) bytes: u64,
}

impl DriverStats {
    /// The lock the fork handlers take and release around a `fork`
    /// (`registry/fork.rs`).
    #[cfg(unix)]
    pub(crate) fn fork_lock(&self) -> &Mutex<Live> {
        &self.live
    }

    /// Registers a new handle's cell; returns its id for [`DriverStats::retire`].
    pub(crate) fn register(&self, cell: &Arc<HandleCell>) -> u64 {
        self.allocations.fetch_add(1, Ordering::Relaxed);
        let mut live = self.live.lock();
        let id = live.next_id;
        live.next_id += 1;
        live.cells.insert(id, Arc::clone(cell));
        id
    }

    /// Folds a dropped handle's counts into the totals and forgets its cell (under the
    /// same lock a reader takes, so no read counts it twice or not at all).
    pub(crate) fn retire(&self, id: u64) {
        let mut live = self.live.lock();
        if let Some(cell) = live.cells.remove(&id) {
            let (r, b) = cell.read();
            live.retired.0 = live.retired.0.wrapping_add(r);
            live.retired.1 = live.retired.1.wrapping_add(b);
        }
    }

    /// Sums the live cells and the retired totals.
    pub(crate) fn read(&self) -> Counts {
        let live = self.live.lock();
        let (mut requests, mut bytes) = live.retired;
        for cell in live.cells.values() {
            let (r, b) = cell.read();
            requests = requests.wrapping_add(r);
            bytes = bytes.wrapping_add(b);
        }
        Counts {
            allocations: self.allocations.load(Ordering::Relaxed),
            live: live.cells.len(),
            requests,
            bytes,
        }
    }
}
