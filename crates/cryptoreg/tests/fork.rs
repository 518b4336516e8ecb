//! Pre-fork servers: boot, fork, and use the registry in the child.
//!
//! A real `fork` (`nix::unistd::fork`), not a re-executed child: re-executing would boot
//! a fresh registry and prove nothing about the state a child inherits. `fork` is only
//! sound when no other thread could hold a lock or be in the middle of an allocation at
//! that instant, so this test runs without libtest's harness (`harness = false`), in its
//! own process, and forks when the process is single-threaded: boot's self-test
//! threads are scoped threads, joined before `boot` returns, and nothing else is
//! running. What the child may then rely on is exactly what the issue asks: no self-test
//! thread, no control-socket thread and no held lock exists there, and the registry
//! needs none — the child allocates, encrypts, builds and self-tests a template instance
//! on its own thread, and changes a priority.

use nix::sys::wait::{waitpid, WaitStatus};
use nix::unistd::{fork, ForkResult};

#[path = "common/mod.rs"]
mod common;

use common::rung;

fn child(reg: &cryptoreg::Registry, key: &[u8], data: &[u8], want: &[u8]) -> i32 {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // A handle inherited from the parent's state, and a new allocation.
        let mut h = reg.alloc_skcipher("xts(aes)").unwrap();
        h.set_key(key).unwrap();
        let mut out = data.to_vec();
        h.encrypt_in_place(&[9u8; 16], &mut out).unwrap();
        assert_eq!(out, want);
        // Something that needs a self-test now, on this (the only) thread.
        let mut g = reg.alloc_skcipher("xts(aes-generic)").unwrap();
        assert!(g.driver_name().starts_with("xts("), "{}", g.driver_name());
        g.set_key(key).unwrap();
        let mut out = data.to_vec();
        g.encrypt_in_place(&[9u8; 16], &mut out).unwrap();
        assert_eq!(out, want);
        // The admin side works too.
        let before = reg.generation();
        reg.set_priority(rung::XTS, 1).unwrap();
        assert_ne!(reg.generation(), before);
        assert!(!h.is_current());
    }));
    if r.is_ok() {
        0
    } else {
        1
    }
}

fn main() {
    let reg = common::boot("[selftest]\nfuzz_iterations = 10\n", Some(rung::PRESET));
    let key = common::xts_key(5, 64);
    let data = common::bytes(6, 4096 + 5);
    let mut h = reg.alloc_skcipher("xts(aes)").unwrap();
    h.set_key(&key).unwrap();
    let mut want = data.clone();
    h.encrypt_in_place(&[9u8; 16], &mut want).unwrap();

    // SAFETY: this process is single-threaded here (no libtest harness; boot's test
    // threads were scoped and joined), so no lock or allocator state can be held by a
    // thread that does not exist in the child.
    match unsafe { fork() }.expect("fork") {
        ForkResult::Child => {
            let code = child(&reg, &key, &data, &want);
            std::process::exit(code);
        }
        ForkResult::Parent { child } => {
            let status = waitpid(child, None).expect("waitpid");
            assert_eq!(
                status,
                WaitStatus::Exited(child, 0),
                "the child could not use the registry"
            );
            // The child's priority change stayed in the child.
            assert_eq!(reg.resolve("xts(aes)").unwrap().driver(), rung::XTS);
            println!("fork: 1 passed, 0 failed");
        }
    }
}
