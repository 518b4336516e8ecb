//! A request over an AEAD's length limit is refused before any byte is written, on every
//! entry point, including `open_to` with an out-of-place driver call (which used to wipe
//! the destination on every error: past SP 800-38D's GCM limit, 2^32 - 2 blocks, that
//! meant zero-filling 64 GiB). The limit here is a toy's 64 bytes, so the path is the
//! one a GCM driver takes at its limit without the memory; GCM's own boundary is checked
//! by `gcm_util`'s unit test `text_limit_is_two_blocks_short_of_the_counter_space`.

mod toy;
mod toy_aead;

use cryptoreg_registry::inventory;
use cryptoreg_registry::*;
use toy_aead::*;

/// The toy's longest text.
const CAP: usize = 64;

/// The toy AEAD with a length limit checked in `start`; with `out_of_place`, also
/// out-of-place one-shot calls that check it first, as the fused GCM and ChaCha20-Poly1305
/// drivers do. Without them, the default calls (`seal_to_by_copy` / `open_to_by_copy`)
/// copy short requests into the destination, and must ask the driver first.
struct Capped {
    toy: ToyAead,
    out_of_place: bool,
}

fn over_cap(text: usize) -> Result<()> {
    if text > CAP {
        return Err(Error::InvalidLength {
            len: text,
            reason: "toy text over 64 bytes",
        });
    }
    Ok(())
}

impl AeadImpl for Capped {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.toy.set_key(key)
    }
    fn start(&self, st: &mut AeadState, nonce: &[u8], lens: AeadLens) -> Result<()> {
        over_cap(lens.text)?;
        self.toy.start(st, nonce, lens)
    }
    fn absorb_aad(&self, st: &mut AeadState, aad: &[u8]) {
        self.toy.absorb_aad(st, aad)
    }
    fn absorb_aad_tail(&self, st: &mut AeadState, tail: &[u8]) {
        self.toy.absorb_aad_tail(st, tail)
    }
    fn encrypt_chunks(&self, st: &mut AeadState, data: InOut<'_>) {
        self.toy.encrypt_chunks(st, data)
    }
    fn decrypt_chunks(&self, st: &mut AeadState, data: InOut<'_>) {
        self.toy.decrypt_chunks(st, data)
    }
    fn encrypt_tail(&self, st: &mut AeadState, data: InOut<'_>) {
        self.toy.encrypt_tail(st, data)
    }
    fn decrypt_tail(&self, st: &mut AeadState, data: InOut<'_>) {
        self.toy.decrypt_tail(st, data)
    }
    fn finish(&self, st: &mut AeadState, tag: &mut [u8]) {
        self.toy.finish(st, tag)
    }
    fn has_one_shot_to(&self) -> bool {
        self.out_of_place
    }
    fn seal_to(
        &self,
        nonce: &[u8],
        aad: &[u8],
        src: &[u8],
        dst: &mut [u8],
        tag: &mut [u8],
    ) -> Result<()> {
        if !self.out_of_place {
            return seal_to_by_copy(self, nonce, aad, src, dst, tag);
        }
        over_cap(src.len())?;
        dst.copy_from_slice(src);
        self.seal(nonce, aad, dst, tag)
    }
    fn open_to(
        &self,
        nonce: &[u8],
        aad: &[u8],
        src: &[u8],
        dst: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        if !self.out_of_place {
            return open_to_by_copy(self, nonce, aad, src, dst, tag);
        }
        over_cap(src.len())?;
        dst.copy_from_slice(src);
        self.open(nonce, aad, dst, tag)
    }
}

fn capped(out_of_place: bool) -> Result<Box<dyn AeadImpl>> {
    Ok(Box::new(Capped {
        toy: ToyAead::new(16, false, AeadFlaw::None),
        out_of_place,
    }))
}

fn capped_oop(_: &HostFeatures) -> Result<Box<dyn AeadImpl>> {
    capped(true)
}

fn capped_in_place(_: &HostFeatures) -> Result<Box<dyn AeadImpl>> {
    capped(false)
}

inventory::submit! { toyaead_def_named("toycapped", "toycapped-oop", 100, capped_oop) }
inventory::submit! { toyaead_def_named("toycapped", "toycapped-inplace", 90, capped_in_place) }

#[test]
fn over_the_limit_every_entry_point_refuses_and_writes_nothing() {
    let reg = toy::boot("");
    for driver in ["toycapped-oop", "toycapped-inplace"] {
        let mut h = reg.alloc_aead(driver).unwrap();
        h.set_key(&[3; 16]).unwrap();
        let nonce = [1u8; 12];
        let refused =
            |r: Result<()>| matches!(r, Err(Error::InvalidLength { len, .. }) if len == CAP + 1);
        // At the limit: every call works (the limit is the toy's, not the handle's).
        let src = vec![5u8; CAP];
        let mut dst = vec![0u8; CAP];
        let mut tag = [0u8; 16];
        h.seal_to(&nonce, &[], &[&src], &mut [&mut dst], &mut tag)
            .unwrap();
        let mut back = vec![0u8; CAP];
        h.open_to(&nonce, &[], &[&dst], &mut [&mut back], &tag)
            .unwrap();
        assert_eq!(back, src, "{driver}");

        // One byte over it: refused, and nothing written anywhere.
        let src = vec![5u8; CAP + 1];
        for split in [false, true] {
            let srcs: Vec<&[u8]> = if split {
                vec![&src[..10], &src[10..]]
            } else {
                vec![&src]
            };
            let mut dst = [0xA5u8; CAP + 1];
            let mut tag = [0xA5u8; 16];
            {
                let mut dsts: Vec<&mut [u8]> = if split {
                    let (a, b) = dst.split_at_mut(10);
                    vec![a, b]
                } else {
                    vec![&mut dst[..]]
                };
                assert!(refused(h.open_to(&nonce, &[], &srcs, &mut dsts, &tag)));
                assert!(refused(h.seal_to(&nonce, &[], &srcs, &mut dsts, &mut tag)));
            }
            assert!(
                dst.iter().all(|&x| x == 0xA5),
                "{driver} split={split}: dst written"
            );
            assert_eq!(tag, [0xA5; 16], "{driver} split={split}: tag written");
            let mut data = src.clone();
            assert!(refused(h.open(&nonce, b"", &mut data, &tag)));
            assert!(refused(h.open_segments(
                &nonce,
                &[],
                &mut [&mut data[..]],
                &tag
            )));
            assert!(refused(h.seal_segments(
                &nonce,
                &[],
                &mut [&mut data[..]],
                &mut tag
            )));
            assert_eq!(data, src, "{driver}: in-place text changed");
        }
    }
}

/// The default out-of-place calls of a driver without its own (`seal_to_by_copy` /
/// `open_to_by_copy`): no own kernel claimed; buffers of two lengths refused with nothing
/// written; otherwise the same bytes as the in-place calls, the source only read; a wrong
/// tag wipes the destination.
#[test]
fn default_out_of_place_calls_copy_after_the_checks() {
    let mut d = ToyAead::new(16, false, AeadFlaw::None);
    d.set_key(&[3; 16]).unwrap();
    assert!(!d.has_one_shot_to());
    let (nonce, aad) = ([1u8; 12], [9u8; 5]);
    let src: Vec<u8> = (0..40u8).collect();

    let mut short = [0xA5u8; 39];
    let mut tag = [0xA5u8; 16];
    let r = d.seal_to(&nonce, &aad, &src, &mut short, &mut tag);
    assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{r:?}");
    assert!(
        short.iter().chain(&tag).all(|&b| b == 0xA5),
        "a refused seal_to wrote"
    );
    let r = d.open_to(&nonce, &aad, &src, &mut short, &tag);
    assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{r:?}");
    assert!(short.iter().all(|&b| b == 0xA5), "a refused open_to wrote");

    let (mut ct, mut want_tag) = (src.clone(), [0u8; 16]);
    d.seal(&nonce, &aad, &mut ct, &mut want_tag).unwrap();
    let mut out = vec![0u8; src.len()];
    d.seal_to(&nonce, &aad, &src, &mut out, &mut tag).unwrap();
    assert_eq!((&out, tag), (&ct, want_tag), "seal_to differs from seal");

    let mut back = vec![0u8; src.len()];
    d.open_to(&nonce, &aad, &ct, &mut back, &tag).unwrap();
    assert_eq!(back, src, "open_to");
    tag[3] ^= 0x10;
    let before = ct.clone();
    let r = d.open_to(&nonce, &aad, &ct, &mut back, &tag);
    assert_eq!(r, Err(Error::BadMessage));
    assert!(
        back.iter().all(|&b| b == 0),
        "a failed open_to left plaintext"
    );
    assert_eq!(ct, before, "open_to changed its source");
}
