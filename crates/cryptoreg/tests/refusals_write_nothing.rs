//! "A refused request writes nothing": every AEAD driver and template instance on this
//! host, every entry point that writes (`seal_to`, `open_to`, `seal_segments`,
//! `open_segments`) and every refusal class a request can meet (`InvalidLength` from a
//! template's AAD rule, `InvalidIvLength`, `InvalidTagLength`, `LengthMismatch`, `NoKey`)
//! must leave every output byte (destination, in-place text and tag) exactly as it was.
//! Only a failed tag check (`BadMessage`) wipes the output.
//!
//! The text lengths cover each path a handle takes: the copy into the destination and
//! the in-place one-shot call (up to 2048 bytes, for drivers without an out-of-place
//! kernel), the driver's own out-of-place call, and the segment walker (longer or
//! scattered requests).

mod common;

use cryptoreg::{Aead, Error, Registry};

/// Instances the default resolution may not build (a concrete driver answers the
/// algorithm name), asked for by name so that their checks run too.
const INSTANCES: &[&str] = &[
    "rfc4106(gcm(aes))",
    "rfc7539esp(chacha20,poly1305)",
    "gcm_base(ctr(aes-generic),ghash-generic)",
    "rfc4106(gcm_base(ctr(aes-generic),ghash-generic))",
    "rfc7539(chacha20-generic,poly1305-generic)",
    "rfc7539esp(chacha20-generic,poly1305-generic)",
];

/// Every AEAD driver this registry can run: the concrete ones and the instances above.
fn aead_drivers(reg: &Registry) -> Vec<String> {
    for name in INSTANCES {
        reg.alloc_aead(name)
            .unwrap_or_else(|e| panic!("{name} must build: {e}"));
    }
    let drivers: Vec<String> = reg
        .list()
        .into_iter()
        .filter(|e| e.alg_type == "aead" && e.state == "passed")
        .map(|e| e.driver)
        .collect();
    // The instances, a concrete gcm(aes) and xchacha20poly1305 at least (arm64 has no
    // concrete ChaCha20-Poly1305 driver; x86-64 has many more).
    assert!(
        drivers.len() >= INSTANCES.len() + 2,
        "too few AEAD drivers: {drivers:?}"
    );
    drivers
}

/// An AAD length the driver accepts (the ESP templates take 8 or 12 bytes only).
fn good_aad_len(h: &Aead) -> usize {
    if h.algorithm_name().starts_with("rfc") && !h.algorithm_name().starts_with("rfc7539(") {
        8
    } else {
        13
    }
}

/// A keyed handle of `driver`.
fn keyed(reg: &Registry, driver: &str) -> Aead {
    let mut h = reg.alloc_aead(driver).unwrap();
    let klen = h.info().sizes().max_key;
    h.set_key(&common::bytes(7, klen)).unwrap();
    h
}

/// One kind of refused request and the error it must meet.
struct Case {
    what: &'static str,
    nonce_len: usize,
    aad_len: usize,
    tag_len: usize,
    /// Destination bytes minus source bytes (out-of-place entry points only).
    dst_extra: usize,
    expect: fn(&Error) -> bool,
}

fn cases(h: &Aead) -> Vec<Case> {
    let (n, a, t) = (h.nonce_size(), good_aad_len(h), h.authsize());
    let mut v = vec![
        Case {
            what: "nonce one byte short",
            nonce_len: n - 1,
            aad_len: a,
            tag_len: t,
            dst_extra: 0,
            expect: |e| matches!(e, Error::InvalidIvLength { .. }),
        },
        Case {
            what: "tag buffer one byte short",
            nonce_len: n,
            aad_len: a,
            tag_len: t - 1,
            dst_extra: 0,
            expect: |e| matches!(e, Error::InvalidTagLength { .. }),
        },
        Case {
            what: "destination one byte longer than the source",
            nonce_len: n,
            aad_len: a,
            tag_len: t,
            dst_extra: 1,
            expect: |e| matches!(e, Error::LengthMismatch { .. }),
        },
    ];
    if a == 8 {
        v.push(Case {
            what: "AAD the ESP template refuses",
            nonce_len: n,
            aad_len: 13,
            tag_len: t,
            dst_extra: 0,
            expect: |e| matches!(e, Error::InvalidLength { .. }),
        });
    }
    v
}

const SENTINEL: u8 = 0xA5;

/// `buf` as one piece, or cut in two at `cut`.
fn pieces_of(buf: &mut [u8], split: bool, cut: usize) -> Vec<&mut [u8]> {
    if split {
        let (a, b) = buf.split_at_mut(cut.min(buf.len()));
        vec![a, b]
    } else {
        vec![buf]
    }
}

/// Runs one refused request through every writing entry point, in one piece and in
/// several, and checks that nothing was written.
fn check_refused(h: &Aead, c: &Case, text_len: usize) {
    let what = format!("{} text={text_len}: {}", h.driver_name(), c.what);
    let nonce = common::bytes(1, c.nonce_len);
    let aad = common::bytes(2, c.aad_len);
    let src = common::bytes(3, text_len);
    let cut = text_len / 3;
    let aad_one: Vec<&[u8]> = vec![&aad];
    let aad_two: Vec<&[u8]> = vec![&aad[..c.aad_len / 2], &aad[c.aad_len / 2..]];
    for aads in [&aad_one, &aad_two] {
        for split in [false, true] {
            let src_pieces: Vec<&[u8]> = if split {
                vec![&src[..cut], &src[cut..]]
            } else {
                vec![&src]
            };
            let what = format!("{what} aad pieces={} split text={split}", aads.len());
            for open in [false, true] {
                let name = if open { "open_to" } else { "seal_to" };
                let mut dst = vec![SENTINEL; text_len + c.dst_extra];
                let mut tag = vec![SENTINEL; c.tag_len];
                let mut dst_pieces = pieces_of(&mut dst, split, cut);
                let r = if open {
                    h.open_to(&nonce, aads, &src_pieces, &mut dst_pieces, &tag)
                } else {
                    h.seal_to(&nonce, aads, &src_pieces, &mut dst_pieces, &mut tag)
                };
                assert!(
                    r.as_ref().is_err_and(c.expect),
                    "{what}: {name} answered {r:?}"
                );
                assert!(
                    dst.iter().all(|&b| b == SENTINEL),
                    "{what}: {name} wrote dst"
                );
                assert!(
                    tag.iter().all(|&b| b == SENTINEL),
                    "{what}: {name} wrote the tag"
                );
            }
            if c.dst_extra != 0 {
                continue; // in place, the two sides cannot differ in length
            }
            for open in [false, true] {
                let name = if open {
                    "open_segments"
                } else {
                    "seal_segments"
                };
                let mut data = src.clone();
                let mut tag = vec![SENTINEL; c.tag_len];
                let mut segs = pieces_of(&mut data, split, cut);
                let r = if open {
                    h.open_segments(&nonce, aads, &mut segs, &tag)
                } else {
                    h.seal_segments(&nonce, aads, &mut segs, &mut tag)
                };
                assert!(
                    r.as_ref().is_err_and(c.expect),
                    "{what}: {name} answered {r:?}"
                );
                assert_eq!(data, src, "{what}: {name} changed the text");
                assert!(
                    tag.iter().all(|&b| b == SENTINEL),
                    "{what}: {name} wrote the tag"
                );
            }
        }
    }
}

#[test]
fn every_refusal_of_every_aead_writes_nothing() {
    let reg = common::boot("", None);
    for driver in aead_drivers(&reg) {
        let h = keyed(&reg, &driver);
        for c in cases(&h) {
            for text_len in [0usize, 1, 16, 100, 2048, 2049, 5000] {
                check_refused(&h, &c, text_len);
            }
        }
    }
}

#[test]
fn an_unkeyed_handle_writes_nothing() {
    let reg = common::boot("", None);
    for driver in aead_drivers(&reg) {
        let h = reg.alloc_aead(&driver).unwrap();
        let c = Case {
            what: "no key",
            nonce_len: h.nonce_size(),
            aad_len: good_aad_len(&h),
            tag_len: h.authsize(),
            dst_extra: 0,
            expect: |e| matches!(e, Error::NoKey),
        };
        for text_len in [16usize, 2049] {
            check_refused(&h, &c, text_len);
        }
    }
}

#[test]
fn only_a_failed_tag_check_wipes_the_output() {
    let reg = common::boot("", None);
    for driver in aead_drivers(&reg) {
        let h = keyed(&reg, &driver);
        let (n, a) = (h.nonce_size(), good_aad_len(&h));
        for text_len in [16usize, 2048, 5000] {
            let nonce = common::bytes(1, n);
            let aad = common::bytes(2, a);
            let ct = common::bytes(3, text_len);
            let tag = vec![0u8; h.authsize()];
            let mut dst = vec![SENTINEL; text_len];
            assert_eq!(
                h.open_to(&nonce, &[&aad], &[&ct], &mut [&mut dst], &tag),
                Err(Error::BadMessage),
                "{driver} text={text_len}"
            );
            assert!(
                dst.iter().all(|&b| b == 0),
                "{driver} text={text_len}: not wiped"
            );
        }
    }
}

/// The length limits at their boundary, on every GCM and ChaCha20-Poly1305 driver and
/// instance, through the check the handle makes before it writes
/// (`AeadImpl::check_request`): the longest request passes, one byte more is
/// `InvalidLength`. Lengths only: no buffer of that size exists (a test that reproduced
/// the old `open_to` bug with real or sparse buffers would zero-fill 64 GiB).
#[test]
fn the_length_limits_are_checked_before_anything_is_written() {
    use cryptoreg::driver::{AeadLens, Factory};
    // SP 800-38D: 2^32 - 2 blocks of text; RFC 8439: blocks 1 ..= 2^32 - 1 of 64 bytes.
    const GCM_MAX: usize = ((1 << 32) - 2) * 16;
    const CHACHA_MAX: usize = ((1 << 32) - 1) * 64;
    let reg = common::boot("", None);
    let mut checked = 0;
    for driver in aead_drivers(&reg) {
        let h = keyed(&reg, &driver);
        let info = reg.resolve(&driver).unwrap();
        let max = match info.name() {
            n if n.contains("gcm(aes)") => GCM_MAX,
            n if n.contains("chacha20") => CHACHA_MAX,
            _ => continue,
        };
        let Factory::Aead(make) = info.factory() else {
            panic!("{driver}: not an AEAD factory");
        };
        let mut imp = make(&reg.host_token()).unwrap();
        imp.set_key(&common::bytes(7, info.sizes().max_key))
            .unwrap();
        let nonce = common::bytes(1, info.iv_size());
        let lens = |text| AeadLens {
            aad: good_aad_len(&h),
            text,
            authsize: info.out_size(),
        };
        assert_eq!(
            imp.check_request(&nonce, lens(max)),
            Ok(()),
            "{driver}: the longest request"
        );
        let r = imp.check_request(&nonce, lens(max + 1));
        assert!(
            matches!(r, Err(Error::InvalidLength { .. })),
            "{driver}: one byte past the limit: {r:?}"
        );
        checked += 1;
    }
    assert!(checked >= 6, "only {checked} drivers checked");
}
