//! The segment walker: turns a request scattered over many buffers (the kernel's
//! scatterlists) into calls on contiguous runs. Runs that straddle a segment boundary are
//! bounced through a small stack buffer, so SIMD kernels only ever see contiguous slices
//! and no heap memory is touched.

use zeroize::Zeroize;

use crate::error::{Error, Result};
use crate::traits::{ChainState, SkcipherImpl};

/// Which way a request goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Plaintext to ciphertext.
    Encrypt,
    /// Ciphertext to plaintext.
    Decrypt,
}

/// Largest bounce: a tail may be up to two chunks of up to 64 bytes.
const BOUNCE: usize = 128;

/// Total length of a segment list.
pub fn total_len(segs: &[&mut [u8]]) -> usize {
    segs.iter().map(|s| s.len()).sum()
}

/// Copies `buf.len()` bytes starting at logical offset `pos` of `segs` into `buf`.
fn gather(segs: &[&mut [u8]], mut pos: usize, buf: &mut [u8]) {
    let mut done = 0;
    for seg in segs.iter() {
        if done == buf.len() {
            break;
        }
        if pos >= seg.len() {
            pos -= seg.len();
            continue;
        }
        let n = (seg.len() - pos).min(buf.len() - done);
        buf[done..done + n].copy_from_slice(&seg[pos..pos + n]);
        done += n;
        pos = 0;
    }
}

/// Copies `buf` back to logical offset `pos` of `segs`.
fn scatter(segs: &mut [&mut [u8]], mut pos: usize, buf: &[u8]) {
    let mut done = 0;
    for seg in segs.iter_mut() {
        if done == buf.len() {
            break;
        }
        if pos >= seg.len() {
            pos -= seg.len();
            continue;
        }
        let n = (seg.len() - pos).min(buf.len() - done);
        seg[pos..pos + n].copy_from_slice(&buf[done..done + n]);
        done += n;
        pos = 0;
    }
}

/// Copies an out-of-place request's source segments onto its destination segments, so the
/// cipher can then run in place on the destination. Lengths were checked by the caller.
pub fn copy_segments(src: &[&[u8]], dst: &mut [&mut [u8]]) {
    let mut pos = 0;
    for s in src {
        scatter(dst, pos, s);
        pos += s.len();
    }
}

fn run_chunks(imp: &dyn SkcipherImpl, dir: Direction, state: &mut ChainState, data: &mut [u8]) {
    match dir {
        Direction::Encrypt => imp.encrypt_blocks(state, data),
        Direction::Decrypt => imp.decrypt_blocks(state, data),
    }
}

/// Processes one request in place over `segs` (the whole walk of the kernel's
/// `skcipher_walk`): start, contiguous whole chunks, bounced straddling chunks, the tail.
pub fn walk_in_place(
    imp: &dyn SkcipherImpl,
    dir: Direction,
    iv: &[u8],
    segs: &mut [&mut [u8]],
) -> Result<()> {
    let total = total_len(segs);
    let tail = imp.tail_len(total)?;
    let chunk = imp.chunk_size();
    let body = total - tail;
    if chunk == 0 || chunk > BOUNCE / 2 || !body.is_multiple_of(chunk) || tail > BOUNCE {
        return Err(Error::InvalidLength {
            len: total,
            reason: "driver reported an inconsistent chunk or tail size",
        });
    }
    let mut state = [0u8; 16];
    imp.start(iv, &mut state)?;
    let mut bounce = [0u8; BOUNCE];

    let mut pos = 0; // logical offset of the next unprocessed byte
    let mut seg_index = 0; // segment holding `pos`
    let mut seg_off = 0; // offset of `pos` inside that segment
    while pos < body {
        while seg_off == segs[seg_index].len() {
            seg_index += 1;
            seg_off = 0;
        }
        let avail = (segs[seg_index].len() - seg_off).min(body - pos);
        if avail >= chunk {
            let n = avail - avail % chunk;
            run_chunks(
                imp,
                dir,
                &mut state,
                &mut segs[seg_index][seg_off..seg_off + n],
            );
            pos += n;
            seg_off += n;
        } else {
            let buf = &mut bounce[..chunk];
            gather(segs, pos, buf);
            run_chunks(imp, dir, &mut state, buf);
            scatter(segs, pos, buf);
            pos += chunk;
            // Re-locate the cursor past the bounced chunk.
            let mut left = chunk - avail;
            seg_index += 1;
            while left > segs[seg_index].len() {
                left -= segs[seg_index].len();
                seg_index += 1;
            }
            seg_off = left;
        }
    }

    let buf = &mut bounce[..tail];
    gather(segs, body, buf);
    match dir {
        Direction::Encrypt => imp.encrypt_tail(&mut state, buf),
        Direction::Decrypt => imp.decrypt_tail(&mut state, buf),
    }
    scatter(segs, body, buf);
    bounce.zeroize();
    state.zeroize();
    Ok(())
}
