//! Comparing a computed authentication tag with the caller's, in constant time.

/// A constant-time comparison of two tags of equal length (a branch only on the result):
/// the XOR of every byte pair ORed together, then one test. Cheaper than `subtle`'s slice
/// comparison (an optimization barrier per byte), which cost a 16-byte GCM `open` about
/// as much as the decryption; the Valgrind check (`cargo xtask ctgrind`) covers it
/// through the generic `gcm(aes)` and ChaCha20-Poly1305 `open`. Always inlined, so that
/// the one branch, on the verdict, sits in the caller's `open` (where the Valgrind
/// suppressions of public verdicts name it).
#[inline(always)]
pub(crate) fn tags_equal(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::tags_equal;

    #[test]
    fn equal_only_when_every_byte_is() {
        let a = [0x5au8; 16];
        assert!(tags_equal(&a, &a));
        assert!(tags_equal(&a[..4], &a[..4]));
        for i in 0..16 {
            for bit in 0..8 {
                let mut b = a;
                b[i] ^= 1 << bit;
                assert!(!tags_equal(&a, &b), "byte {i} bit {bit}");
            }
        }
        assert!(!tags_equal(&a[..15], &a));
    }
}
