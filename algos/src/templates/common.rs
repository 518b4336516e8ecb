//! What the four mode templates share: the block size they work in, the batch size that
//! keeps a multi-block child busy, and the checks and bookkeeping of building an instance
//! over a resolved child.

use std::sync::Arc;

use cryptoreg_registry::{
    AlgType, BlockCipherImpl, Builder, Child, DriverInfo, Error, Factory, HostFeatures, Result,
    Sizes, SkcipherImpl,
};

/// The block size every mode here works in. `ChainState` is 16 bytes, so CBC and CTR
/// cannot carry a wider block, and XTS is defined for 128-bit ciphers only; ECB follows
/// for uniformity (the project has no 64-bit-block cipher to wrap).
pub(crate) const BLOCK: usize = 16;

/// Blocks per child call in the batched paths (CTR keystream, XTS tweaks, CBC decryption).
/// 32 blocks (512 bytes of stack) gives an 8-wide AES-NI child four full rounds of work
/// per call while keeping the stack buffers small.
pub(crate) const BATCH_BLOCKS: usize = 32;

/// [`BATCH_BLOCKS`] in bytes.
pub(crate) const BATCH_BYTES: usize = BATCH_BLOCKS * BLOCK;

/// A shareable constructor of block-cipher instances, as a template instance captures it.
pub(crate) type CipherFactory = Builder<dyn BlockCipherImpl>;

/// `dst ^= src` over the common length. Plain byte loop: the compiler vectorizes it, and
/// it has no data-dependent branches.
#[inline(always)]
pub(crate) fn xor_in_place(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= *s;
    }
}

/// Checks that a request length is whole blocks, for the modes without stealing.
pub(crate) fn whole_blocks(total: usize, reason: &'static str) -> Result<usize> {
    if total.is_multiple_of(BLOCK) {
        Ok(0)
    } else {
        Err(Error::InvalidLength { len: total, reason })
    }
}

/// Asserts the whole-chunk contract of `encrypt_blocks`/`decrypt_blocks`. Only a broken
/// caller (never user input: `tail_len` refuses bad lengths first) can trip it, and
/// silently leaving a partial block unencrypted would be worse than stopping.
#[inline(always)]
pub(crate) fn assert_whole_blocks(len: usize) {
    assert!(
        len.is_multiple_of(BLOCK),
        "mode called with {len} bytes, not a whole number of blocks"
    );
}

/// The single child of a template that takes one argument, checked to be what `tmpl`
/// can wrap: of type `want`, with 16-byte blocks.
pub(crate) fn only_child<'a>(
    tmpl: &str,
    children: &'a [Child],
    want: AlgType,
) -> Result<&'a Child> {
    let [resolved] = children else {
        return Err(Error::NotFound(format!(
            "{tmpl}: takes one argument, got {}",
            children.len()
        )));
    };
    let child = resolved.info();
    if child.alg_type() != want {
        return Err(Error::WrongType {
            name: child.driver().to_string(),
            wanted: want.name(),
            actual: child.alg_type().name(),
        });
    }
    if child.block_size() != BLOCK {
        return Err(Error::NotFound(format!(
            "{tmpl}({}): needs a {BLOCK}-byte block cipher, {} has {}-byte blocks",
            child.driver(),
            child.driver(),
            child.block_size()
        )));
    }
    Ok(resolved)
}

/// Builds the whole description of `tmpl(child)` for the three cipher modes (ecb, cbc,
/// ctr): the kernel's naming (`cbc(aes)` served by `cbc(aes-generic)`), the child's
/// effective priority and key sizes, and a factory that wraps a fresh child instance per
/// handle (built with the same CPU token).
pub(crate) fn cipher_mode_instance(
    tmpl: &str,
    children: &[Child],
    iv_size: usize,
    block_size: usize,
    wrap: fn(Box<dyn BlockCipherImpl>) -> Box<dyn SkcipherImpl>,
) -> Result<DriverInfo> {
    let resolved = only_child(tmpl, children, AlgType::Cipher)?;
    let child = resolved.info();
    let Factory::Cipher(make) = child.factory() else {
        unreachable!("only_child checked the type");
    };
    let make: CipherFactory = Arc::clone(make);
    Ok(DriverInfo::instance(
        format!("{tmpl}({})", child.name()),
        format!("{tmpl}({})", child.driver()),
        resolved.priority(),
        Sizes {
            block: block_size,
            iv: iv_size,
            out: 0,
            ..child.sizes()
        },
        Factory::Skcipher(Arc::new(move |host: &HostFeatures| Ok(wrap(make(host)?)))),
        children,
    ))
}

/// `ecb`, `cbc` and `ctr` ask for their cipher by the argument as written: `cbc(aes)`
/// wants the best `aes`, `cbc(aes-generic)` that driver.
pub(crate) fn cipher_child_request(arg: &str) -> String {
    arg.to_string()
}
