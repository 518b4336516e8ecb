"""Run functions of a natively loaded shared library inside the Bochs CPU emulator.

The library is loaded into this Python process with ctypes, so its code, its constants
and every buffer we allocate have real host addresses. The guest gets 4-level page tables
that map each such host page at the *same* virtual address (guest VA == host VA), backed by
the host page itself. Host pointers can therefore be passed unchanged as System V
arguments, RIP-relative loads of constants work, and whatever the guest writes is visible
to Python immediately.

The guest runs in 64-bit mode, ring 0, with SSE/AVX/AVX-512 state enabled (CR4.OSXSAVE,
XCR0 = x87|SSE|AVX|opmask|ZMM_Hi256|Hi16_ZMM). The called function returns to a stub page
holding `wbinvd`, whose cache-control hook stops the emulator: that is how "the function
returned" is detected. Any guest exception (#UD for an instruction the model lacks, #GP,
#PF) or any access to a page we did not map is raised as a Python exception, so nothing
can fail silently.

Rules for what may run here (each learnt the hard way):
  * one bochscpu Session per process (a second aborts the process);
  * only memory mapped through this class exists: no heap, no libc, no syscalls, no
    panics in the emulated code;
  * never rewrite code bytes that already ran: Bochs caches decoded instructions.
"""
import ctypes
import mmap
import time

import model  # loads the glibc shim and bochscpu, provides select_model
import bochscpu
import bochscpu.cpu
import bochscpu.memory

PAGE = 0x1000
PML4_GPA = 0x1000_0000        # guest-physical home of the page tables
FIRST_DATA_GPA = 0x4000_0000  # guest-physical pages handed out from here
XCR0_AVX512 = 0xE7

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


class GuestError(RuntimeError):
    """The guest raised an exception or touched unmapped memory."""


class HostMappedGuest:
    def __init__(self, cpu_model="tigerlake"):
        model.select_model(cpu_model)  # before the Session: the model is read at creation
        self.session = bochscpu.Session()
        self.session.missing_page_handler = self._on_missing_page
        self.tables = bochscpu.memory.PageMapLevel4Table()
        self.next_gpa = FIRST_DATA_GPA
        self.guest_pages = {}
        self._mappings = []  # keeps the mmap objects (and so the host pages) alive
        self.committed = False
        self.stack = self.alloc(0x20000)
        self.return_stub = self.alloc(PAGE)
        ctypes.memmove(self.return_stub, b"\x0f\x09", 2)  # wbinvd
        self.instructions = 0
        self.seconds = 0.0

    def _on_missing_page(self, gpa):
        raise GuestError(f"guest touched an unmapped page (gpa {gpa:#x})")

    def map_host_range(self, start, end):
        """Maps host pages [start, end) into the guest at the same virtual addresses."""
        assert not self.committed, "map everything before commit()"
        for va in range(start & ~(PAGE - 1), (end + PAGE - 1) & ~(PAGE - 1), PAGE):
            if va in self.guest_pages:
                continue
            gpa = self.next_gpa
            self.next_gpa += PAGE
            bochscpu.memory.page_insert(gpa, va)  # guest-physical page -> host page
            self.tables.insert(va, gpa, 1)        # guest-virtual va -> guest-physical gpa
            self.guest_pages[va] = gpa

    def map_library(self, path):
        """Maps every segment of an already loaded library (matched by its real path)."""
        found = False
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split()
                if len(fields) >= 6 and fields[5] == path:
                    lo, hi = (int(x, 16) for x in fields[0].split("-"))
                    self.map_host_range(lo, hi)
                    found = True
        if not found:
            raise RuntimeError(f"{path} is not loaded in this process")

    def alloc(self, size, fence_after=False):
        """Anonymous host memory, mapped into the guest; returns its address. With
        `fence_after`, the page after the buffer is mapped neither in the guest nor (it is
        PROT_NONE) in the host, so any access past the end faults in both worlds."""
        size = (size + PAGE - 1) & ~(PAGE - 1)
        m = mmap.mmap(-1, size + (PAGE if fence_after else 0))
        self._mappings.append(m)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
        self.map_host_range(addr, addr + size)
        if fence_after:
            if _libc.mprotect(addr + size, PAGE, 0) != 0:
                raise OSError(ctypes.get_errno(), "mprotect of the fence page failed")
        return addr

    def commit(self):
        """Writes the page tables into guest memory; no more mappings after this."""
        for hva, gpa in self.tables.commit(PML4_GPA):
            bochscpu.memory.page_insert(gpa, hva)
        self.committed = True

    def _initial_state(self, fn, args):
        st = bochscpu.State()
        bochscpu.cpu.set_long_mode(st)
        cr0 = bochscpu.cpu.ControlRegister(st.cr0)
        cr0.MP, cr0.EM = True, False
        st.cr0 = int(cr0)
        cr4 = bochscpu.cpu.ControlRegister(st.cr4)
        cr4.OSFXSR, cr4.OSXMMEXCPT, cr4.OSXSAVE = True, True, True
        st.cr4 = int(cr4)
        st.xcr0 = XCR0_AVX512
        st.mxcsr = 0x1F80
        st.cr3 = PML4_GPA
        st.rflags = 0x2
        code = bochscpu.Segment()
        code.present, code.selector, code.limit, code.attr = True, 0x08, 0xFFFF_FFFF, 0x209B
        data = bochscpu.Segment()
        data.present, data.selector, data.limit, data.attr = True, 0x10, 0xFFFF_FFFF, 0xC093
        st.cs = code
        for seg in ("ds", "ss", "es", "fs", "gs"):
            setattr(st, seg, data)
        # Stack: 16-byte aligned before the call, then the return address pushed.
        rsp = ((self.stack + 0x1F000) & ~0xF) - 8
        ctypes.c_uint64.from_address(rsp).value = self.return_stub
        st.rsp = rsp
        st.rip = fn
        regs = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
        if len(args) > len(regs):
            # Arguments 7.. go on the stack above the return address.
            for i, value in enumerate(args[len(regs):]):
                ctypes.c_uint64.from_address(rsp + 8 + 8 * i).value = value
        for reg, value in zip(regs, args):
            setattr(st, reg, value)
        return st

    def call(self, fn, *args):
        """Runs `fn(*args)` (integers / addresses, SysV) in the guest; returns rax."""
        assert self.committed, "commit() first"
        args = [int(a) & 0xFFFF_FFFF_FFFF_FFFF for a in args]
        self.session.cpu.state = self._initial_state(fn, args)
        fault = []
        hook = bochscpu.Hook()

        def on_exception(sess, cpu_id, vector, error_code):
            fault.append((vector, error_code, sess.cpu.rip))
            sess.stop()

        def on_cache_control(sess, cpu_id, what):
            sess.stop()

        hook.exception = on_exception
        hook.cache_cntrl = on_cache_control
        started = time.perf_counter()
        self.session.run([hook])
        self.seconds += time.perf_counter() - started
        if fault:
            vector, error_code, rip = fault[0]
            raise GuestError(f"guest exception #{vector} (error {error_code}) at rip {rip:#x}")
        end = self.session.cpu.state
        if end.rip != self.return_stub + 2:
            raise GuestError(f"guest stopped at {end.rip:#x}, not at the return stub")
        return end.rax
