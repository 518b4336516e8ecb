//! The registry's locks: the standard library's `Mutex` and `Condvar`, which never
//! report poisoning here.
//!
//! Why std's and not parking_lot's: a lock's whole state lives in the lock itself (on
//! Linux one futex word; a condition variable is one counter), with no process-wide
//! table of parked threads. A `fork` while another thread was parking or waking leaves
//! parking_lot's table bucket locked in the child forever (a child hung that way in 1 of
//! 2,000 forks under load); with these the fork handlers (`registry/fork.rs`) hold every
//! lock across the fork and the child has nothing else to repair.
//!
//! Why no poisoning: a panic while a lock is held (a faulty driver's self-test, an
//! application callback) leaves the table consistent at every point a guard can be
//! dropped, and one panicked thread must not make every later request panic.

use std::sync::PoisonError;

/// A guard of [`Mutex`].
pub(crate) type MutexGuard<'a, T> = std::sync::MutexGuard<'a, T>;

/// `std::sync::Mutex` without poisoning.
#[derive(Default)]
pub(crate) struct Mutex<T>(std::sync::Mutex<T>);

impl<T> Mutex<T> {
    pub(crate) const fn new(value: T) -> Self {
        Mutex(std::sync::Mutex::new(value))
    }

    /// Waits for the lock.
    pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `std::sync::Condvar` without poisoning.
#[derive(Default)]
pub(crate) struct Condvar(std::sync::Condvar);

impl Condvar {
    pub(crate) const fn new() -> Self {
        Condvar(std::sync::Condvar::new())
    }

    /// Releases `guard`'s lock, waits for a notification (or a spurious wake-up: callers
    /// recheck their condition) and takes the lock again.
    pub(crate) fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        self.0.wait(guard).unwrap_or_else(PoisonError::into_inner)
    }

    /// Wakes every waiting thread.
    pub(crate) fn notify_all(&self) {
        self.0.notify_all();
    }
}
