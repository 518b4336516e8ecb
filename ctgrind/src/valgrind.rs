//! Valgrind client requests, the only `unsafe` of this crate.
//!
//! A client request is a magic instruction sequence (valgrind.h, amd64 Linux): four
//! rotations of `rdi` that add up to 128 bits (so natively they change nothing), then
//! `xchg rbx, rbx`, with `rax` pointing at six words `[request, arg1..arg5]`; the result
//! comes back in `rdx`, which holds the caller's default on entry. Valgrind's JIT
//! recognises the sequence and performs the request; on bare hardware it is a no-op and
//! the default comes back unchanged. Request numbers are from memcheck.h and valgrind.h.
#![allow(unsafe_code)]

/// `VG_USERREQ_TOOL_BASE('M', 'C')`: memcheck's requests start here.
const MEMCHECK_BASE: u64 = ((b'M' as u64) << 24) | ((b'C' as u64) << 16);
/// `VG_USERREQ__MAKE_MEM_UNDEFINED`: the tool base + 1.
const MAKE_MEM_UNDEFINED: u64 = MEMCHECK_BASE + 1;
/// `VG_USERREQ__MAKE_MEM_DEFINED`: the tool base + 2.
const MAKE_MEM_DEFINED: u64 = MEMCHECK_BASE + 2;
/// `VG_USERREQ__RUNNING_ON_VALGRIND`, a core request.
const RUNNING_ON_VALGRIND: u64 = 0x1001;

/// Issues one request; returns `default` when not running under Valgrind.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn request(default: u64, req: u64, arg1: u64, arg2: u64) -> u64 {
    let args: [u64; 6] = [req, arg1, arg2, 0, 0, 0];
    let result: u64;
    // SAFETY: the rotations leave rdi as it was (3 + 13 + 61 + 51 = 128) and the exchange
    // of rbx with itself changes nothing, so natively the block only moves `default` into
    // the output and clobbers flags (not declared preserved). Under Valgrind the request
    // reads the six words at rax, which `args` keeps alive for the block, and marks the
    // shadow state of memory the caller passed as a live slice; `asm!` without `nomem`
    // already tells the compiler that memory may be read.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") default => result,
            options(nostack),
        );
    }
    result
}

/// Elsewhere there is no client request: every request returns its default.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn request(default: u64, _req: u64, _arg1: u64, _arg2: u64) -> u64 {
    default
}

/// Whether the process runs under Valgrind (the number of nested Valgrinds; 0 natively).
pub fn running_on_valgrind() -> u64 {
    request(0, RUNNING_ON_VALGRIND, 0, 0)
}

/// Marks `bytes` as undefined for memcheck: from now on a branch, a conditional move or an
/// address computed from them (or from anything derived from them) is reported. Their
/// contents stay as they are.
pub fn make_undefined(bytes: &[u8]) {
    request(
        0,
        MAKE_MEM_UNDEFINED,
        bytes.as_ptr() as u64,
        bytes.len() as u64,
    );
}

/// Marks `bytes` as defined again: the values are public from here on (an output about to
/// be compared or printed).
pub fn make_defined(bytes: &[u8]) {
    request(
        0,
        MAKE_MEM_DEFINED,
        bytes.as_ptr() as u64,
        bytes.len() as u64,
    );
}
