//! Per-driver counters without a shared atomic on the request path.
//!
//! Every handle the registry hands out owns a [`HandleCell`]: two counters (requests,
//! bytes) that only that handle writes, with plain relaxed loads and stores — no
//! read-modify-write, no cache line shared with another handle. The driver's entry keeps
//! a [`DriverStats`]: the number of allocations, the cells of its live handles (each in a
//! slot from allocation to drop) and the totals of handles already dropped (each cell is
//! folded in when its handle drops). A read sums the live cells and the folded totals
//! under the entry's small lock, which only allocation, drop and readers take: never a
//! request.
//!
//! Counts are exact for a handle used by one thread at a time (the common case: a handle
//! per worker). A handle shared by several threads at once (handles are `Sync`) may lose
//! increments that race, since a load and a store are not one atomic addition: the
//! numbers are operational statistics, and making them exact would put a locked
//! instruction on every request.

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

/// The live handles' cells, in slots a handle keeps from allocation to drop: a slot
/// freed by a drop is reused by the next allocation, so registering and retiring are an
/// index and a push or pop under the lock, with no hashing (a TLS handshake allocates
/// eight handles).
#[derive(Default)]
pub(crate) struct Live {
    slots: Vec<Option<Arc<HandleCell>>>,
    /// The slots freed by drops, for the next allocations; every other slot holds a cell.
    free: Vec<usize>,
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

    /// Registers a new handle's cell; returns its slot for [`DriverStats::retire`].
    pub(crate) fn register(&self, cell: &Arc<HandleCell>) -> u64 {
        self.allocations.fetch_add(1, Ordering::Relaxed);
        let mut live = self.live.lock();
        let cell = Some(Arc::clone(cell));
        match live.free.pop() {
            Some(slot) => {
                live.slots[slot] = cell;
                slot as u64
            }
            None => {
                live.slots.push(cell);
                (live.slots.len() - 1) as u64
            }
        }
    }

    /// Folds a dropped handle's counts into the totals and frees its slot (under the
    /// same lock a reader takes, so no read counts it twice or not at all). Each id is
    /// retired exactly once, by its handle's guard on drop: once its slot is reused, the
    /// id names the new handle.
    pub(crate) fn retire(&self, id: u64) {
        let mut live = self.live.lock();
        let slot = id as usize;
        if let Some(cell) = live.slots.get_mut(slot).and_then(Option::take) {
            let (r, b) = cell.read();
            live.retired.0 = live.retired.0.wrapping_add(r);
            live.retired.1 = live.retired.1.wrapping_add(b);
            live.free.push(slot);
        }
    }

    /// Sums the live cells and the retired totals.
    pub(crate) fn read(&self) -> Counts {
        let live = self.live.lock();
        let (mut requests, mut bytes) = live.retired;
        for cell in live.slots.iter().flatten() {
            let (r, b) = cell.read();
            requests = requests.wrapping_add(r);
            bytes = bytes.wrapping_add(b);
        }
        Counts {
            allocations: self.allocations.load(Ordering::Relaxed),
            live: live.slots.len() - live.free.len(),
            requests,
            bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(requests: u64, bytes: usize) -> Arc<HandleCell> {
        let c = Arc::new(HandleCell::default());
        for _ in 0..requests {
            c.count(bytes);
        }
        c
    }

    #[test]
    fn a_freed_slot_is_reused_and_every_count_is_kept() {
        let stats = DriverStats::default();
        let (a, b, c) = (cell(1, 10), cell(2, 20), cell(3, 30));
        let (ia, ib, ic) = (stats.register(&a), stats.register(&b), stats.register(&c));
        assert_eq!((ia, ib, ic), (0, 1, 2));
        let all = stats.read();
        assert_eq!((all.allocations, all.live), (3, 3));
        assert_eq!((all.requests, all.bytes), (6, 10 + 40 + 90));

        stats.retire(ib);
        let after = stats.read();
        assert_eq!(after.live, 2);
        // The retired handle's counts stay in the totals.
        assert_eq!((after.requests, after.bytes), (6, 140));

        let d = cell(4, 1);
        assert_eq!(stats.register(&d), ib, "the freed slot is taken again");
        // A count made after retirement through the old cell is not read: `b` is gone.
        b.count(1000);
        let now = stats.read();
        assert_eq!((now.allocations, now.live), (4, 3));
        assert_eq!((now.requests, now.bytes), (10, 144));

        // `d` retires; retiring its free slot again, or an id never handed out, changes
        // nothing.
        stats.retire(ib);
        stats.retire(ib);
        stats.retire(99);
        let last = stats.read();
        assert_eq!((last.live, last.requests, last.bytes), (2, 10, 144));
        // The slot was freed once: the next registration takes it, the one after a new one.
        assert_eq!(stats.register(&cell(0, 0)), ib);
        assert_eq!(stats.register(&cell(0, 0)), 3);
        for id in [ia, ib, ic, 3] {
            stats.retire(id);
        }
        assert_eq!(stats.read().live, 0);
    }
}
