//! The two passes of the walker, independent of the algorithm type: a read-only pass over
//! segments (AAD) and a read-write pass over (source, destination) segment pairs (text).
//! Each hands the driver contiguous runs of whole chunks straight from the caller's
//! segments and bounces only the chunks that straddle a boundary (of the source or of the
//! destination) through a stack buffer; the tail is handed over in one piece.

use crate::inout::InOut;

/// Largest bounce: a skcipher tail may be up to two chunks of up to 64 bytes.
pub(crate) const BOUNCE: usize = 128;

/// The segments of one request's text: one list read and overwritten, or a source list and
/// a destination list holding the same number of bytes (divided differently, perhaps).
pub(crate) enum Segs<'s, 'a> {
    InPlace(&'s mut [&'a mut [u8]]),
    Split {
        src: &'s [&'s [u8]],
        dst: &'s mut [&'a mut [u8]],
    },
}

/// A position in a segment list.
#[derive(Debug, Clone, Copy, Default)]
struct Cursor {
    seg: usize,
    off: usize,
}

impl Cursor {
    /// Moves past exhausted (and empty) segments; returns how many contiguous bytes follow
    /// the cursor in its segment (0 at the end of the list).
    fn avail<S: AsRef<[u8]>>(&mut self, segs: &[S]) -> usize {
        while self.seg < segs.len() && self.off >= segs[self.seg].as_ref().len() {
            self.seg += 1;
            self.off = 0;
        }
        segs.get(self.seg)
            .map_or(0, |s| s.as_ref().len() - self.off)
    }

    /// Advances by `n` bytes, across segments.
    fn advance<S: AsRef<[u8]>>(&mut self, segs: &[S], mut n: usize) {
        while n > 0 {
            let a = self.avail(segs);
            if a == 0 {
                return;
            }
            let k = a.min(n);
            self.off += k;
            n -= k;
        }
    }
}

/// Copies `buf.len()` bytes from the cursor on into `buf`.
fn gather<S: AsRef<[u8]>>(segs: &[S], mut at: Cursor, buf: &mut [u8]) {
    let mut done = 0;
    while done < buf.len() {
        let a = at.avail(segs);
        if a == 0 {
            return;
        }
        let n = a.min(buf.len() - done);
        let seg = segs[at.seg].as_ref();
        buf[done..done + n].copy_from_slice(&seg[at.off..at.off + n]);
        done += n;
        at.off += n;
    }
}

/// Copies `buf` to the cursor on.
fn scatter(segs: &mut [&mut [u8]], mut at: Cursor, buf: &[u8]) {
    let mut done = 0;
    while done < buf.len() {
        let a = at.avail(segs);
        if a == 0 {
            return;
        }
        let n = a.min(buf.len() - done);
        segs[at.seg][at.off..at.off + n].copy_from_slice(&buf[done..done + n]);
        done += n;
        at.off += n;
    }
}

/// Feeds read-only `segs` to `run`: runs of whole chunks (`is_tail = false`), then the
/// last `total % chunk` bytes (`is_tail = true`, exactly once, possibly empty). The bounce
/// buffer is the caller's (it wipes it).
pub(crate) fn read_pass(
    segs: &[&[u8]],
    chunk: usize,
    bounce: &mut [u8; BOUNCE],
    mut run: impl FnMut(&[u8], bool),
) {
    let total: usize = segs.iter().map(|s| s.len()).sum();
    let body = total - total % chunk;
    let mut at = Cursor::default();
    let mut pos = 0;
    while pos < body {
        let avail = at.avail(segs).min(body - pos);
        let n = if avail >= chunk {
            let n = avail - avail % chunk;
            run(&segs[at.seg][at.off..at.off + n], false);
            n
        } else {
            let buf = &mut bounce[..chunk];
            gather(segs, at, buf);
            run(buf, false);
            chunk
        };
        at.advance(segs, n);
        pos += n;
    }
    let len = total - body;
    if len > 0 && at.avail(segs) >= len {
        run(&segs[at.seg][at.off..at.off + len], true);
    } else {
        let buf = &mut bounce[..len];
        gather(segs, at, buf);
        run(buf, true);
    }
}

/// Feeds the text of `segs` to `run`: first `body` bytes as runs of whole chunks
/// (`is_tail = false`), then the remaining `tail` bytes in one run (`is_tail = true`,
/// called exactly once, possibly empty). Runs are in place or source/destination pairs,
/// taken straight from the segments when they are contiguous in every list involved and
/// bounced through `bounce` otherwise. Lengths were checked by the caller:
/// `body + tail` is the total, `body` a multiple of `chunk`, `chunk <= BOUNCE / 2`,
/// `tail <= BOUNCE`.
pub(crate) fn text_pass(
    segs: Segs<'_, '_>,
    chunk: usize,
    body: usize,
    tail: usize,
    bounce: &mut [u8; BOUNCE],
    mut run: impl FnMut(InOut<'_>, bool),
) {
    let (mut sc, mut dc) = (Cursor::default(), Cursor::default());
    let mut pos = 0;
    match segs {
        Segs::InPlace(segs) => {
            while pos < body {
                let avail = sc.avail(segs).min(body - pos);
                let n = if avail >= chunk {
                    let n = avail - avail % chunk;
                    run(InOut::InPlace(&mut segs[sc.seg][sc.off..sc.off + n]), false);
                    n
                } else {
                    let buf = &mut bounce[..chunk];
                    gather(segs, sc, buf);
                    run(InOut::InPlace(buf), false);
                    scatter(segs, sc, buf);
                    chunk
                };
                sc.advance(segs, n);
                pos += n;
            }
            if tail > 0 && sc.avail(segs) >= tail {
                run(
                    InOut::InPlace(&mut segs[sc.seg][sc.off..sc.off + tail]),
                    true,
                );
            } else {
                let buf = &mut bounce[..tail];
                gather(segs, sc, buf);
                run(InOut::InPlace(buf), true);
                scatter(segs, sc, buf);
            }
        }
        Segs::Split { src, dst } => {
            while pos < body {
                let avail = sc.avail(src).min(dc.avail(dst)).min(body - pos);
                let n = if avail >= chunk {
                    let n = avail - avail % chunk;
                    run(
                        InOut::Split {
                            src: &src[sc.seg][sc.off..sc.off + n],
                            dst: &mut dst[dc.seg][dc.off..dc.off + n],
                        },
                        false,
                    );
                    n
                } else {
                    let buf = &mut bounce[..chunk];
                    gather(src, sc, buf);
                    run(InOut::InPlace(buf), false);
                    scatter(dst, dc, buf);
                    chunk
                };
                sc.advance(src, n);
                dc.advance(dst, n);
                pos += n;
            }
            if tail > 0 && sc.avail(src) >= tail && dc.avail(dst) >= tail {
                run(
                    InOut::Split {
                        src: &src[sc.seg][sc.off..sc.off + tail],
                        dst: &mut dst[dc.seg][dc.off..dc.off + tail],
                    },
                    true,
                );
            } else {
                let buf = &mut bounce[..tail];
                gather(src, sc, buf);
                run(InOut::InPlace(buf), true);
                scatter(dst, dc, buf);
            }
        }
    }
}
