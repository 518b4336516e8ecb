//! Comparing a computed authentication tag with the caller's, in constant time.

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use cryptoreg_registry::{Error, InOut, Result};
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use zeroize::Zeroize;

/// A constant-time comparison of two tags of equal length (a branch only on the result):
/// the XOR of every byte pair ORed together, then one test; a 16-byte tag (every full-size
/// tag) as one 128-bit XOR. Cheaper than `subtle`'s slice comparison (an optimization
/// barrier per byte), which cost a 16-byte GCM `open` about as much as the decryption;
/// the byte loop cost a 16-byte `open_to` of `gcm-aes-vaes-avx10_512` about 10% against
/// the 128-bit XOR (probe: 385 -> 428 MB/s). The Valgrind check (`cargo xtask ctgrind`)
/// covers both forms through the generic `gcm(aes)` and ChaCha20-Poly1305 `open`. Always
/// inlined, so that the one branch, on the verdict, sits in the caller's `open` (where
/// the Valgrind suppressions of public verdicts name it).
#[inline(always)]
pub(crate) fn tags_equal(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if let (Ok(x), Ok(y)) = (<[u8; 16]>::try_from(a), <[u8; 16]>::try_from(b)) {
        let d = u128::from_ne_bytes(x) ^ u128::from_ne_bytes(y);
        // Folded to one bit before the barrier, which stores its value: `d` itself is the
        // expected tag XOR the caller's, so storing it would leave the expected tag on the
        // stack. `d | -d` has its top bit set exactly when `d` is not zero (no branch).
        let differs = ((d | d.wrapping_neg()) >> 127) as u8;
        return std::hint::black_box(differs) == 0;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// The verdict of a one-shot `open` whose kernel writes the expected tag: `compute` gets
/// the first `tag.len()` bytes of a local block to write it into, the block is compared
/// with `tag` by [`tags_equal`] and wiped. `Ok(false)` when the tags differ (the caller
/// wipes its output and returns `BadMessage`); `compute`'s error when it refused the
/// request. The caller has checked the tag size (at most 16; a longer tag is
/// `BadMessage` here, never a panic). Used by the x86-64 and arm64 GCM drivers.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
pub(crate) fn expected_tag_matches(
    tag: &[u8],
    compute: impl FnOnce(&mut [u8]) -> Result<()>,
) -> Result<bool> {
    let mut full = [0u8; 16];
    // `let ... else`, not `ok_or(...)?`: that built the error, and called its (out of
    // line) drop, on every call.
    let Some(mine) = full.get_mut(..tag.len()) else {
        return Err(Error::BadMessage);
    };
    compute(mine)?;
    let ok = tags_equal(mine, tag);
    // As a slice: one bulk wipe, where the array's own `zeroize` writes byte by byte.
    full[..].zeroize();
    Ok(ok)
}

/// A one-shot `open` whose kernel decrypts `io` and writes the expected tag in one pass:
/// `decrypt` gets `io` and the block for the tag ([`expected_tag_matches`]); on a
/// mismatch `io`'s output is wiped and the answer is [`Error::BadMessage`], so no
/// plaintext is left behind. A request `decrypt` refuses is its error, with nothing
/// wiped (it wrote nothing). The x86-64 and arm64 GCM drivers' `open_into`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
pub(crate) fn open_verified(
    tag: &[u8],
    mut io: InOut<'_>,
    decrypt: impl FnOnce(InOut<'_>, &mut [u8]) -> Result<()>,
) -> Result<()> {
    if expected_tag_matches(tag, |mine| decrypt(io.reborrow(), mine))? {
        Ok(())
    } else {
        io.output().zeroize();
        Err(Error::BadMessage)
    }
}

#[cfg(test)]
mod tests {
    use super::tags_equal;
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    use super::{expected_tag_matches, open_verified};
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    use cryptoreg_registry::{Error, InOut, Result};

    #[test]
    fn equal_only_when_every_byte_is() {
        let a = [0x5au8; 16];
        assert!(tags_equal(&a, &a));
        assert!(tags_equal(&a[..4], &a[..4]));
        // Every single-bit difference, on the 16-byte path (one 128-bit XOR) and on the
        // byte loop of the truncated sizes (4, 8, 12..15).
        for len in [16, 15, 12, 8, 4] {
            assert!(tags_equal(&a[..len], &a[..len]), "len {len}");
            for i in 0..len {
                for bit in 0..8 {
                    let mut b = a;
                    b[i] ^= 1 << bit;
                    assert!(
                        !tags_equal(&a[..len], &b[..len]),
                        "len {len} byte {i} bit {bit}"
                    );
                }
            }
        }
        assert!(!tags_equal(&a[..15], &a));
    }

    #[test]
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    fn expected_tag_verdicts() {
        let tag = [0x3cu8; 12];
        let write = |v: u8| {
            move |m: &mut [u8]| -> Result<()> {
                assert_eq!(m.len(), 12);
                m.fill(v);
                Ok(())
            }
        };
        assert_eq!(expected_tag_matches(&tag, write(0x3c)), Ok(true));
        assert_eq!(expected_tag_matches(&tag, write(0x3d)), Ok(false));
        let refuse = |_: &mut [u8]| Err(Error::NoKey);
        assert_eq!(expected_tag_matches(&tag, refuse), Err(Error::NoKey));
        assert_eq!(
            expected_tag_matches(&[0u8; 17], write(0)),
            Err(Error::BadMessage)
        );
    }

    #[test]
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    fn open_verified_wipes_only_on_a_mismatch() {
        let tag = [0x3cu8; 16];
        let src = [7u8; 20];
        // Decrypts (writes 0x11) and writes the tag byte `v`.
        let run = |v: u8, dst: &mut [u8]| {
            let io = InOut::split(&src, dst).unwrap();
            open_verified(&tag, io, |mut io, mine| {
                io.output().fill(0x11);
                mine.fill(v);
                Ok(())
            })
        };
        let mut dst = [0u8; 20];
        assert_eq!(run(0x3c, &mut dst), Ok(()));
        assert_eq!(dst, [0x11; 20]);
        assert_eq!(run(0x3d, &mut dst), Err(Error::BadMessage));
        assert_eq!(dst, [0; 20], "plaintext left after a mismatch");
        let mut buf = [9u8; 20];
        let refused = open_verified(&tag, InOut::InPlace(&mut buf), |_, _| Err(Error::NoKey));
        assert_eq!(refused, Err(Error::NoKey));
        assert_eq!(buf, [9; 20], "a refused request was wiped");
    }
}
