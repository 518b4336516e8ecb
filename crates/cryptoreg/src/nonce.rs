//! Nonces for callers who do not manage them: [`CounterNonce`](crate::nonce::CounterNonce), the deterministic
//! construction of NIST SP 800-38D §8.2.1 for 96-bit GCM nonces.
//!
//! # Why a counter and not random nonces
//!
//! GCM's security rests on never using a nonce twice under one key: a repeated nonce
//! leaks the XOR of two plaintexts and lets an attacker recover the GHASH key H and forge
//! tags for that key from then on. With *random* 96-bit nonces, a repeat is a birthday
//! event, so SP 800-38D §8.3 caps the number of invocations of the authenticated
//! encryption function with random (RBG-based) IVs at **2^32 per key**, which keeps the
//! chance of any repeat below 2^-32. A busy service reaches 2^32 messages (about 4.3
//! billion: 50,000 messages a second for a day) and must then change keys.
//!
//! A counter cannot repeat until it runs out: nonce = a 4-byte *fixed field* (a value
//! that differs between the devices or contexts sharing the key) || a 64-bit big-endian
//! *invocation field* incremented per message, as §8.2.1 lays it out. That gives 2^64 - 1
//! nonces per key and context, with no probability argument at all, provided the counter
//! never goes back: keep one [`CounterNonce`](crate::nonce::CounterNonce) per key for the key's lifetime (and never
//! two with the same fixed field under one key), and rekey before it is exhausted.
//! Exhaustion is an error, [`NonceExhausted`](crate::nonce::NonceExhausted), never a wrap to zero.
//!
//! ```
//! use cryptoreg::nonce::CounterNonce;
//!
//! let nonces = CounterNonce::new([0, 0, 0, 7]);
//! let n0 = nonces.next_nonce().unwrap();
//! let n1 = nonces.next_nonce().unwrap();
//! assert_eq!(n0, [0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0]);
//! assert_eq!(n1, [0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 1]);
//! ```
//!
//! The counter is an atomic, so one `CounterNonce` may be shared by threads sealing under
//! the same key (`&self`, `Send + Sync`); each call hands out a distinct value.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// The nonce length this helper produces: GCM's 96 bits (`gcm(aes)` takes only these).
pub const NONCE_LEN: usize = 12;

/// SP 800-38D §8.2.1 deterministic nonces: `fixed (4 bytes) || counter (8 bytes,
/// big-endian)`, the counter starting where [`CounterNonce::starting_at`] says (0 by
/// default) and never wrapping. See the module docs.
#[derive(Debug)]
pub struct CounterNonce {
    fixed: [u8; 4],
    /// The next counter value to hand out; `u64::MAX` means exhausted (that value is
    /// never handed out, so the state fits one atomic).
    next: AtomicU64,
}

/// The counter of a [`CounterNonce`] has handed out its last value: the key must be
/// replaced before anything more is sealed under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NonceExhausted;

impl fmt::Display for NonceExhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the GCM counter nonce is exhausted: replace the key")
    }
}

impl std::error::Error for NonceExhausted {}

impl CounterNonce {
    /// Nonces `fixed || 0`, `fixed || 1`, ... up to `fixed || 2^64 - 2`.
    pub fn new(fixed: [u8; 4]) -> CounterNonce {
        CounterNonce::starting_at(fixed, 0)
    }

    /// Resumes a counter persisted by the caller (for example across restarts under a
    /// long-lived key): the first nonce is `fixed || start`. Resuming below a value
    /// already used would repeat nonces; that bookkeeping is the caller's.
    pub fn starting_at(fixed: [u8; 4], start: u64) -> CounterNonce {
        CounterNonce {
            fixed,
            next: AtomicU64::new(start),
        }
    }

    /// The next nonce, or [`NonceExhausted`] once the counter has reached its end (it
    /// then stays exhausted).
    pub fn next_nonce(&self) -> Result<[u8; NONCE_LEN], NonceExhausted> {
        let counter = self
            .next
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
                (c != u64::MAX).then(|| c + 1)
            })
            .map_err(|_| NonceExhausted)?;
        let mut nonce = [0u8; NONCE_LEN];
        nonce[..4].copy_from_slice(&self.fixed);
        nonce[4..].copy_from_slice(&counter.to_be_bytes());
        Ok(nonce)
    }

    /// How many nonces are left.
    pub fn remaining(&self) -> u64 {
        u64::MAX - self.next.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::sync::Arc;

    use super::*;

    #[test]
    fn layout_is_fixed_field_then_big_endian_counter() {
        let n = CounterNonce::starting_at([0xde, 0xad, 0xbe, 0xef], 0x0102_0304_0506_0708);
        assert_eq!(
            n.next_nonce().unwrap(),
            [0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8]
        );
        assert_eq!(
            n.next_nonce().unwrap(),
            [0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 9]
        );
    }

    #[test]
    fn exhaustion_is_an_error_not_a_wrap() {
        let n = CounterNonce::starting_at([1, 2, 3, 4], u64::MAX - 2);
        assert_eq!(n.remaining(), 2);
        assert_eq!(n.next_nonce().unwrap()[4..], (u64::MAX - 2).to_be_bytes());
        assert_eq!(n.next_nonce().unwrap()[4..], (u64::MAX - 1).to_be_bytes());
        assert_eq!(n.remaining(), 0);
        for _ in 0..3 {
            assert_eq!(n.next_nonce(), Err(NonceExhausted));
        }
        assert_eq!(n.remaining(), 0);
        assert!(NonceExhausted.to_string().contains("replace the key"));
        // A counter started at the end is exhausted from the start.
        let done = CounterNonce::starting_at([0; 4], u64::MAX);
        assert_eq!(done.next_nonce(), Err(NonceExhausted));
    }

    #[test]
    fn threads_never_get_the_same_nonce() {
        let n = Arc::new(CounterNonce::new([9; 4]));
        let all: Vec<[u8; 12]> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    let n = Arc::clone(&n);
                    s.spawn(move || {
                        (0..1000)
                            .map(|_| n.next_nonce().unwrap())
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        let distinct: HashSet<[u8; 12]> = all.iter().copied().collect();
        assert_eq!(distinct.len(), 4000);
        assert_eq!(n.remaining(), u64::MAX - 4000);
    }
}
