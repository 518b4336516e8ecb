//! The CPUs a process may run on, and pinning a thread to one of them: what the
//! self-test gate needs to prove every driver on every core (cores that compute wrong
//! results exist, silently and on specific cores only: Google's "Cores that don't
//! count", Meta's "Silent Data Corruptions at Scale").
//!
//! Linux only (`sched_getaffinity`, `sched_setaffinity`, `sched_getcpu`). Elsewhere the
//! process's CPUs are unknown: [`process_cpus`] is empty and the gate tests on whatever
//! CPU its thread runs on, as before. On a VM these are vCPUs.
//!
//! The operating-system calls are the only `unsafe` code of the registry besides the fork
//! handlers; each block says why it is sound.

use std::io;

/// The CPUs of the process's affinity mask (its main thread's, which a thread pinned by
/// [`pin_current_thread`] does not change), ascending. Empty where the platform has no
/// affinity interface or the call failed.
pub fn process_cpus() -> Vec<usize> {
    os::process_cpus()
}

/// The CPU the calling thread runs on now (exact once the thread is pinned), if the
/// platform says.
pub fn current_cpu() -> Option<usize> {
    os::current_cpu()
}

/// Pins the calling thread to `cpu` (and only that CPU) for the rest of its life.
pub fn pin_current_thread(cpu: usize) -> io::Result<()> {
    os::pin_current_thread(cpu)
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // the OS calls below; see the module docs
mod os {
    use std::io;
    use std::mem::{size_of, MaybeUninit};

    /// The highest CPU number a `cpu_set_t` holds (1024 with glibc).
    fn set_size() -> usize {
        8 * size_of::<libc::cpu_set_t>()
    }

    fn empty_set() -> libc::cpu_set_t {
        // SAFETY: `cpu_set_t` is a plain bit array; all zeroes is the empty set, which
        // is what CPU_ZERO writes.
        unsafe { MaybeUninit::<libc::cpu_set_t>::zeroed().assume_init() }
    }

    pub(super) fn process_cpus() -> Vec<usize> {
        let mut set = empty_set();
        // The process id names the main thread (a thread id equal to the process id), so
        // a worker pinned to one CPU does not narrow the answer.
        let pid = std::process::id() as libc::pid_t;
        // SAFETY: `set` is a valid, writable `cpu_set_t` of the size passed.
        let rc = unsafe { libc::sched_getaffinity(pid, size_of::<libc::cpu_set_t>(), &mut set) };
        if rc != 0 {
            return Vec::new();
        }
        (0..set_size())
            // SAFETY: `cpu` is below the set's capacity in bits; `set` is initialised.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
            .collect()
    }

    pub(super) fn current_cpu() -> Option<usize> {
        // SAFETY: `sched_getcpu` takes no arguments and only reads the calling thread's
        // state; a negative answer is an error.
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).ok()
    }

    pub(super) fn pin_current_thread(cpu: usize) -> io::Result<()> {
        if cpu >= set_size() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("cpu {cpu} is beyond the {} a CPU set holds", set_size()),
            ));
        }
        let mut set = empty_set();
        // SAFETY: `cpu` was checked to be below the set's capacity in bits.
        unsafe { libc::CPU_SET(cpu, &mut set) };
        // SAFETY: pid 0 is the calling thread; `set` is a valid `cpu_set_t` of the size
        // passed, read only.
        let rc = unsafe { libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set) };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod os {
    use std::io;

    pub(super) fn process_cpus() -> Vec<usize> {
        Vec::new()
    }

    pub(super) fn current_cpu() -> Option<usize> {
        None
    }

    pub(super) fn pin_current_thread(_cpu: usize) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "thread affinity is not supported on this platform",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pinned_thread_runs_where_it_was_pinned_and_leaves_the_process_mask_alone() {
        let cpus = process_cpus();
        assert!(!cpus.is_empty(), "Linux always reports the process's CPUs");
        assert!(cpus.windows(2).all(|w| w[0] < w[1]), "{cpus:?}");
        for &cpu in &cpus {
            let seen = std::thread::spawn(move || {
                pin_current_thread(cpu).unwrap();
                (current_cpu(), process_cpus())
            })
            .join()
            .unwrap();
            assert_eq!(seen, (Some(cpu), cpus.clone()));
        }
        let beyond = 8 * std::mem::size_of::<libc::cpu_set_t>();
        assert!(pin_current_thread(beyond).is_err());
    }
}
