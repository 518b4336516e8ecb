//! The shared x86-64 layer every SIMD driver builds on: CPU-feature tokens ([`token`]),
//! the raw source/destination pointers of a run ([`inout`]) and the vector types
//! ([`vector`]: ymm without masks, ymm with AVX-512VL masks, zmm) that
//! the AES, GHASH and ChaCha20 cores are written over once and instantiated per width, and
//! the 32-bit-word view of the same registers plus xmm ([`word32`]: add, rotate, unpack,
//! lane transposes) that the ChaCha20 core uses, and the CPU vendor ([`vendor`]) for the
//! few choices inside a driver that measured differently on Intel and AMD.
//!
//! Algorithm-specific operations (AES rounds, the XTS multiply, CTR lanes) live with their
//! algorithm (`aes/vaes/`), on top of this layer.

#![allow(unsafe_code)]

pub(crate) mod inout;
pub(crate) mod limits;
pub(crate) mod token;
pub(crate) mod vector;
pub(crate) mod vendor;
pub(crate) mod word32;

/// `p` itself, but opaque to the optimizer: a loop that reads a table through
/// `opaque_ptr(table)` in every iteration keeps loading it there instead of LLVM hoisting
/// the loads out of the loop into registers. Where registers are short, hoisted values
/// end up spilled to the stack and reloaded from there anyway (the stitched AES-GCM loop
/// on zmm: `aes::vaes::gcm::keys_from_schedule`).
#[inline(always)]
// The block never dereferences the pointer, it only hides its value: `nomem` is right.
#[allow(clippy::pointers_in_nomem_asm_block)]
pub(crate) fn opaque_ptr<T>(p: *const T) -> *const T {
    let mut q = p;
    // SAFETY: an empty asm block (a comment) that only claims to change one register; it
    // reads and writes no memory, leaves the stack and flags alone. Not `pure`, so it is
    // evaluated where it is written, in every iteration.
    unsafe {
        core::arch::asm!("/* {0} */", inout(reg) q, options(nomem, nostack, preserves_flags))
    };
    q
}

/// Zeroes key-derived 16-byte blocks (round keys, GHASH powers) with one volatile 16-byte
/// store each, where `zeroize` stores byte by byte: a GCM handle's schedule and power
/// table are 1,056 bytes, and wiping them a byte at a time was a quarter of the cost of
/// allocating and keying a `gcm(aes)` handle (perf, `alloc_aead` + `set_key` + drop), which
/// a TLS handshake does eight times. The fence keeps later code from being moved above
/// the wipe; volatile stores are never elided, even just before the memory is freed.
pub(crate) fn wipe_blocks(blocks: &mut [[u8; 16]]) {
    for block in blocks.iter_mut() {
        // SAFETY: `block` is an exclusive, valid, aligned-for-its-type reference to 16
        // bytes, and the value written is a plain `[u8; 16]`.
        unsafe { core::ptr::write_volatile(block, [0u8; 16]) };
    }
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// Constructors of drivers that differ only by width: `width_ctors! { Trait: ctor =
/// "driver", Variant(Token), Impl; ... }` defines `pub(crate) fn ctor(&HostFeatures) ->
/// Result<Box<dyn Trait>>` that proves `Token` on the host and builds
/// `Impl::new("driver", Width::Variant(token))` (`Width` and the token types are the
/// caller's). The records naming them are in `crate::records::x86_64`.
macro_rules! width_ctors {
    ($trait:ident: $($ctor:ident = $driver:literal, $kind:ident($token:ident), $imp:ident;)*) => {$(
        #[doc = concat!("Builds `", $driver, "`, or refuses without its features.")]
        pub(crate) fn $ctor(
            host: &cryptoreg_registry::HostFeatures,
        ) -> cryptoreg_registry::Result<Box<dyn cryptoreg_registry::$trait>> {
            let width = Width::$kind($token::new(host, $driver)?);
            Ok(Box::new($imp::new($driver, width)))
        }
    )*};
}
pub(crate) use width_ctors;
