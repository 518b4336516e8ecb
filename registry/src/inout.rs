//! [`InOut`]: one contiguous run of a request as the driver sees it, either one buffer that
//! is read and overwritten (in place) or a source and a destination of the same length
//! (out of place), after RustCrypto's `inout` crate.
//!
//! Why a pair and not "copy, then work in place": an out-of-place request then costs one
//! pass over memory (read the source, write the destination) instead of two, and a driver
//! that needs to see its input after producing output (GCM and Poly1305 authenticate the
//! *ciphertext* when decrypting) can read it from `src` without saving a copy first.

/// One contiguous run: in place, or a source/destination pair of equal length.
///
/// Safe Rust cannot express two lists aliasing the same memory, so "in place" is its own
/// variant rather than `src` and `dst` pointing at the same bytes.
#[derive(Debug)]
pub enum InOut<'a> {
    /// Read and overwrite the same bytes.
    InPlace(&'a mut [u8]),
    /// Read `src`, write `dst`; [`InOut::split`] checks that both have the same length
    /// (a hand-built pair with unequal lengths is run over the shorter, never a panic).
    Split {
        /// The input bytes.
        src: &'a [u8],
        /// Where the output goes.
        dst: &'a mut [u8],
    },
}

/// Every method is `#[inline]`: a driver crate built without link-time optimization
/// (a user's default release profile) otherwise calls them out of line, which keeps the
/// pair in memory and made a ChaCha20-Poly1305 driver copy its slice arguments there with
/// a 16-byte load of two 8-byte stores (one that store forwarding cannot serve).
impl<'a> InOut<'a> {
    /// A source/destination pair; `None` when the lengths differ, so a driver can never be
    /// handed a pair it would have to index past.
    #[inline]
    pub fn split(src: &'a [u8], dst: &'a mut [u8]) -> Option<InOut<'a>> {
        (src.len() == dst.len()).then_some(InOut::Split { src, dst })
    }

    /// Length of the run in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            InOut::InPlace(b) => b.len(),
            InOut::Split { src, dst } => src.len().min(dst.len()),
        }
    }

    /// Whether the run is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The input bytes (for in place: the buffer before it is overwritten).
    #[inline]
    pub fn input(&self) -> &[u8] {
        match self {
            InOut::InPlace(b) => b,
            InOut::Split { src, dst } => &src[..src.len().min(dst.len())],
        }
    }

    /// The output bytes, `len()` of them (for in place: the buffer itself): where a
    /// driver copies its result, or what it wipes after a failed tag check.
    #[inline]
    pub fn output(&mut self) -> &mut [u8] {
        match self {
            InOut::InPlace(b) => b,
            InOut::Split { src, dst } => {
                let n = src.len().min(dst.len());
                &mut dst[..n]
            }
        }
    }

    /// A shorter-lived view of the same run, so it can be passed on and used again.
    #[inline]
    pub fn reborrow(&mut self) -> InOut<'_> {
        match self {
            InOut::InPlace(b) => InOut::InPlace(b),
            InOut::Split { src, dst } => InOut::Split { src, dst },
        }
    }

    /// Splits the run at `mid` (clamped to the length) into two runs.
    #[inline]
    pub fn split_at(self, mid: usize) -> (InOut<'a>, InOut<'a>) {
        match self {
            InOut::InPlace(b) => {
                let (x, y) = b.split_at_mut(mid.min(b.len()));
                (InOut::InPlace(x), InOut::InPlace(y))
            }
            InOut::Split { src, dst } => {
                // The public variant can be built with unequal lengths: split within both.
                let mid = mid.min(src.len()).min(dst.len());
                let (s1, s2) = src.split_at(mid);
                let (d1, d2) = dst.split_at_mut(mid);
                (
                    InOut::Split { src: s1, dst: d1 },
                    InOut::Split { src: s2, dst: d2 },
                )
            }
        }
    }

    /// Copies the input to the output (if out of place) and returns the output buffer, for
    /// drivers that only know how to work in place: the default `*_to` methods use this.
    #[inline]
    pub fn into_in_place(self) -> &'a mut [u8] {
        match self {
            InOut::InPlace(b) => b,
            InOut::Split { src, dst } => {
                // Unequal lengths (only a hand-built `Split` has them): copy what both
                // hold, never panic.
                let n = src.len().min(dst.len());
                dst[..n].copy_from_slice(&src[..n]);
                dst
            }
        }
    }

    /// `dst = src ^ keystream` over the first `keystream.len()` bytes (at most the run's
    /// length): the one-pass step of every stream cipher (CTR, ChaCha20).
    #[inline]
    pub fn xor_keystream(&mut self, keystream: &[u8]) {
        match self {
            InOut::InPlace(b) => b.iter_mut().zip(keystream).for_each(|(x, k)| *x ^= k),
            InOut::Split { src, dst } => dst
                .iter_mut()
                .zip(src.iter().zip(keystream))
                .for_each(|(d, (s, k))| *d = s ^ k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_and_in_place_agree() {
        let src = [1u8, 2, 3, 4, 5];
        let mut dst = [0u8; 5];
        let mut buf = src;
        let ks = [0xf0u8; 5];
        InOut::split(&src, &mut dst).unwrap().xor_keystream(&ks);
        InOut::InPlace(&mut buf).xor_keystream(&ks);
        assert_eq!(dst, buf);
        assert!(InOut::split(&src, &mut [0u8; 4]).is_none());
        let mut dst = [0u8; 5];
        let io = InOut::split(&src, &mut dst).unwrap();
        assert_eq!(io.input(), &src);
        let (a, b) = io.split_at(2);
        assert_eq!((a.len(), b.len()), (2, 3));
        assert_eq!(b.into_in_place(), &[3, 4, 5]);
        let mut dst = [0u8; 5];
        let (a, b) = InOut::split(&src, &mut dst).unwrap().split_at(99);
        assert_eq!((a.len(), b.len()), (5, 0));
        // A hand-built pair of unequal lengths runs over the shorter, never panics.
        let mut short = [0u8; 3];
        let odd = InOut::Split {
            src: &src,
            dst: &mut short,
        };
        assert_eq!(odd.len(), 3);
        let (x, y) = odd.split_at(4);
        assert_eq!((x.len(), y.len()), (3, 0));
        assert_eq!(x.into_in_place(), &[1, 2, 3]);
    }

    #[test]
    fn output_is_where_the_run_writes() {
        let src = [1u8, 2, 3, 4, 5];
        let mut buf = src;
        assert_eq!(InOut::InPlace(&mut buf).output(), &src);
        let mut dst = [9u8; 5];
        let mut io = InOut::split(&src, &mut dst).unwrap();
        io.output().fill(0);
        assert_eq!(io.input(), &src);
        assert_eq!(dst, [0; 5]);
        // A hand-built pair of unequal lengths: the output is as long as the run.
        let mut long = [9u8; 7];
        let mut odd = InOut::Split {
            src: &src,
            dst: &mut long,
        };
        assert_eq!(odd.output().len(), 5);
        odd.output().fill(0);
        assert_eq!(long, [0, 0, 0, 0, 0, 9, 9]);
    }
}
