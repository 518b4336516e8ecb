//! The segment walker: turns a request scattered over many buffers (the kernel's
//! scatterlists) into calls on contiguous runs. Runs that straddle a segment boundary are
//! bounced through a small stack buffer, so SIMD kernels only ever see contiguous slices
//! and no heap memory is touched.
//!
//! One walker serves skcipher and AEAD (`walk/pass.rs`): an AEAD request is an AAD pass (read
//! only, bounced to the driver's chunk size, see [`crate::AeadImpl`]) followed by the same
//! text pass as an skcipher request. Out of place, the text pass walks the source and
//! destination lists side by side and hands the driver (source, destination) runs, so
//! nothing is copied first; a chunk is bounced when it straddles a boundary of either list.
//!
//! The contiguous one-shot calls of the handles never come here.

use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::inout::InOut;
use crate::traits::{AeadImpl, AeadLens, AeadState, ChainState, SkcipherImpl};

mod pass;

pub(crate) use pass::Segs;
use pass::{read_pass, text_pass, BOUNCE};

/// Which way a request goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Plaintext to ciphertext.
    Encrypt,
    /// Ciphertext to plaintext.
    Decrypt,
}

/// Total length of a segment list.
pub fn total_len(segs: &[&mut [u8]]) -> usize {
    segs.iter().map(|s| s.len()).sum()
}

/// Total length of a read-only segment list.
pub fn total_len_ro(segs: &[&[u8]]) -> usize {
    segs.iter().map(|s| s.len()).sum()
}

/// Copies an out-of-place request's source segments onto its destination segments (the
/// lengths must be equal; extra bytes on either side are ignored). The walker no longer
/// needs this (it walks source/destination pairs); kept for callers that do.
pub fn copy_segments(src: &[&[u8]], dst: &mut [&mut [u8]]) {
    let mut di = 0;
    let mut doff = 0;
    for s in src {
        let mut s: &[u8] = s;
        while !s.is_empty() && di < dst.len() {
            let room = dst[di].len() - doff;
            let n = room.min(s.len());
            dst[di][doff..doff + n].copy_from_slice(&s[..n]);
            s = &s[n..];
            doff += n;
            if doff == dst[di].len() {
                di += 1;
                doff = 0;
            }
        }
    }
}

/// Processes one skcipher request in place over `segs` (the whole walk of the kernel's
/// `skcipher_walk`): start, contiguous whole chunks, bounced straddling chunks, the tail.
pub fn walk_in_place(
    imp: &dyn SkcipherImpl,
    dir: Direction,
    iv: &[u8],
    segs: &mut [&mut [u8]],
) -> Result<()> {
    let total = total_len(segs);
    skcipher_walk(imp, dir, iv, Segs::InPlace(segs), total)
}

/// Processes one skcipher request from `src` segments into `dst` segments, walking the two
/// lists side by side (one memory pass when the driver overrides the `*_to` methods).
/// Unequal totals are [`Error::LengthMismatch`], refused before anything is written.
pub fn walk_to(
    imp: &dyn SkcipherImpl,
    dir: Direction,
    iv: &[u8],
    src: &[&[u8]],
    dst: &mut [&mut [u8]],
) -> Result<()> {
    let total = total_len_ro(src);
    let dst_len = total_len(dst);
    if total != dst_len {
        return Err(Error::LengthMismatch {
            src: total,
            dst: dst_len,
        });
    }
    skcipher_walk(imp, dir, iv, Segs::Split { src, dst }, total)
}

fn skcipher_walk(
    imp: &dyn SkcipherImpl,
    dir: Direction,
    iv: &[u8],
    segs: Segs<'_, '_>,
    total: usize,
) -> Result<()> {
    if let Some((inner, iv)) = imp.per_request_cipher(iv)? {
        return skcipher_walk(inner.as_ref(), dir, &iv, segs, total);
    }
    let tail = imp.tail_len(total)?;
    let chunk = imp.chunk_size();
    let body = total.saturating_sub(tail);
    if chunk == 0
        || chunk > BOUNCE / 2
        || tail > total
        || !body.is_multiple_of(chunk)
        || tail > BOUNCE
    {
        return Err(Error::InvalidLength {
            len: total,
            reason: "driver reported an inconsistent chunk or tail size",
        });
    }
    // Wiped on drop, also if the driver panics.
    imp.check_request(iv, total)?;
    let mut state: Zeroizing<ChainState> = Zeroizing::new([0u8; 16]);
    imp.start(iv, &mut state)?;
    let mut bounce = Zeroizing::new([0u8; BOUNCE]);
    text_pass(segs, chunk, body, tail, &mut bounce, |io, is_tail| {
        let st = &mut *state;
        match (dir, is_tail, io) {
            (Direction::Encrypt, false, InOut::InPlace(b)) => imp.encrypt_blocks(st, b),
            (Direction::Decrypt, false, InOut::InPlace(b)) => imp.decrypt_blocks(st, b),
            (Direction::Encrypt, true, InOut::InPlace(b)) => imp.encrypt_tail(st, b),
            (Direction::Decrypt, true, InOut::InPlace(b)) => imp.decrypt_tail(st, b),
            (Direction::Encrypt, false, InOut::Split { src, dst }) => {
                imp.encrypt_blocks_to(st, src, dst)
            }
            (Direction::Decrypt, false, InOut::Split { src, dst }) => {
                imp.decrypt_blocks_to(st, src, dst)
            }
            (Direction::Encrypt, true, InOut::Split { src, dst }) => {
                imp.encrypt_tail_to(st, src, dst)
            }
            (Direction::Decrypt, true, InOut::Split { src, dst }) => {
                imp.decrypt_tail_to(st, src, dst)
            }
        }
    });
    Ok(())
}

/// What an AEAD walk does with the tag at the end.
pub(crate) enum TagOp<'t> {
    /// Encryption: write the tag here.
    Write(&'t mut [u8]),
    /// Decryption: verify this tag.
    Verify(&'t [u8]),
}

/// One AEAD request over scattered AAD and text: start, the AAD pass, the text pass, then
/// the tag. All lengths (nonce, tag, src/dst totals) were checked by the handle. On a
/// failed verification the output still holds plaintext: the caller wipes it.
pub(crate) fn aead_walk(
    imp: &dyn AeadImpl,
    dir: Direction,
    nonce: &[u8],
    aad: &[&[u8]],
    segs: Segs<'_, '_>,
    text_len: usize,
    tag: TagOp<'_>,
) -> Result<()> {
    let chunk = imp.chunk_size();
    let aad_chunk = imp.aad_chunk_size();
    if chunk == 0 || chunk > BOUNCE / 2 || aad_chunk == 0 || aad_chunk > BOUNCE / 2 {
        return Err(Error::InvalidLength {
            len: text_len,
            reason: "driver reported an inconsistent chunk size",
        });
    }
    let authsize = match &tag {
        TagOp::Write(t) => t.len(),
        TagOp::Verify(t) => t.len(),
    };
    let lens = AeadLens {
        aad: total_len_ro(aad),
        text: text_len,
        authsize,
    };
    let mut state = AeadState::new(); // wiped on drop
    imp.start(&mut state, nonce, lens)?;
    let mut bounce = Zeroizing::new([0u8; BOUNCE]);
    read_pass(aad, aad_chunk, &mut bounce, |run, is_tail| {
        if is_tail {
            imp.absorb_aad_tail(&mut state, run)
        } else {
            imp.absorb_aad(&mut state, run)
        }
    });
    let tail = text_len % chunk;
    text_pass(
        segs,
        chunk,
        text_len - tail,
        tail,
        &mut bounce,
        |io, is_tail| match (dir, is_tail) {
            (Direction::Encrypt, false) => imp.encrypt_chunks(&mut state, io),
            (Direction::Decrypt, false) => imp.decrypt_chunks(&mut state, io),
            (Direction::Encrypt, true) => imp.encrypt_tail(&mut state, io),
            (Direction::Decrypt, true) => imp.decrypt_tail(&mut state, io),
        },
    );
    match tag {
        TagOp::Write(t) => {
            imp.finish(&mut state, t);
            Ok(())
        }
        TagOp::Verify(t) => imp.verify(&mut state, t),
    }
}
