//! Parsing of algorithm names such as `xts(ecb(aes-generic))` and the naming rules the
//! self-tests rely on.
//!
//! Names are a strict grammar, checked by [`validate`] before anything else looks at a
//! name:
//!
//! ```text
//! name  = ident | ident "(" name ("," name)* ")"
//! ident = [a-z0-9_-]+
//! ```
//!
//! at most [`MAX_NAME_LEN`] bytes and nested at most [`MAX_DEPTH`] deep. Why so strict:
//! a lenient parser (one that trims spaces) lets `ctr( aes)` miss every concrete
//! driver's exact name and fall through to a template instance — a weaker driver than
//! `ctr(aes)` gets — and makes every spelling a new cache entry. With one spelling per
//! name, lookups are exact. The bounds are the kernel's `CRYPTO_MAX_ALG_NAME` (128) and
//! a nesting depth no real name approaches; checking them first, in one iterative pass,
//! means no name from an untrusted caller can cost more than a scan of 128 bytes or
//! recurse at all. Every function here validates first, so each is linear and bounded.

use crate::error::{Error, Result};

/// The longest name accepted, in bytes (the kernel's `CRYPTO_MAX_ALG_NAME`).
pub const MAX_NAME_LEN: usize = 128;

/// The deepest template nesting accepted: `xts(ecb(aes))` is 2 deep.
pub const MAX_DEPTH: usize = 16;

/// How many characters of an invalid name its error repeats.
const SHOWN_CHARS: usize = 64;

fn invalid(name: &str, reason: String) -> Error {
    let shown: String = if name.chars().count() > SHOWN_CHARS {
        let head: String = name.chars().take(SHOWN_CHARS).collect();
        format!("{head}...")
    } else {
        name.to_string()
    };
    Error::InvalidName {
        name: shown,
        reason,
    }
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-'
}

/// Where the scanner is in the grammar.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// At the start, or after `(` or `,`: an identifier must follow.
    ExpectIdent,
    /// Inside an identifier.
    InIdent,
    /// After a `)`: only `,`, `)` or the end may follow.
    AfterClose,
}

/// Checks `name` against the grammar and the limits (see the module docs), in one pass
/// without recursion. The error, [`Error::InvalidName`], names the first offending
/// character and its byte position.
pub fn validate(name: &str) -> Result<()> {
    if name.len() > MAX_NAME_LEN {
        return Err(invalid(
            name,
            format!(
                "{} bytes, longer than {MAX_NAME_LEN} (the kernel's CRYPTO_MAX_ALG_NAME)",
                name.len()
            ),
        ));
    }
    let mut state = State::ExpectIdent;
    let mut depth = 0usize;
    for (pos, c) in name.char_indices() {
        let misplaced = |what: &str| Err(invalid(name, format!("{what} at byte {pos}")));
        match c {
            _ if c.is_ascii() && is_ident_byte(c as u8) => {
                if state == State::AfterClose {
                    return misplaced(&format!("{c:?} after ')'"));
                }
                state = State::InIdent;
            }
            '(' => {
                if state != State::InIdent {
                    return misplaced("'(' without a template name before it");
                }
                depth += 1;
                if depth > MAX_DEPTH {
                    return misplaced(&format!("nested deeper than {MAX_DEPTH}: '('"));
                }
                state = State::ExpectIdent;
            }
            ',' | ')' => {
                if state == State::ExpectIdent {
                    return misplaced(&format!("empty argument before {c:?}"));
                }
                if depth == 0 {
                    return misplaced(&format!("{c:?} outside parentheses"));
                }
                if c == ')' {
                    depth -= 1;
                    state = State::AfterClose;
                } else {
                    state = State::ExpectIdent;
                }
            }
            _ => {
                let shown = if c.is_ascii_graphic() || c == ' ' {
                    format!("{c:?}")
                } else {
                    format!("{c:?} (U+{:04X})", u32::from(c))
                };
                return Err(invalid(
                    name,
                    format!(
                        "character {shown} at byte {pos} is not allowed \
                         (names use a-z 0-9 _ - ( ) ,)"
                    ),
                ));
            }
        }
    }
    if name.is_empty() {
        return Err(invalid(name, "empty name".to_string()));
    }
    if state == State::ExpectIdent {
        return Err(invalid(name, "ends where a name must follow".to_string()));
    }
    if depth != 0 {
        return Err(invalid(name, format!("{depth} unclosed '('")));
    }
    Ok(())
}

/// Splits `tmpl(arg, arg)` into the template name and its top-level arguments. Returns
/// `None` for a plain name or an invalid one ([`validate`] says why).
pub fn parse_template_call(name: &str) -> Option<(&str, Vec<&str>)> {
    validate(name).ok()?;
    let open = name.find('(')?;
    let tmpl = &name[..open];
    // Valid and containing '(': the name ends with the matching ')'.
    let inner = &name[open + 1..name.len() - 1];
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, b) in inner.bytes().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b',' if depth == 0 => {
                args.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    args.push(&inner[start..]);
    Some((tmpl, args))
}

/// One identifier of a valid name, and whether it is a template name (followed by `(`)
/// or a leaf. Yields the byte range so callers can rebuild the name around it.
fn idents(name: &str) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
    let bytes = name.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() && !is_ident_byte(bytes[i]) {
            i += 1;
        }
        if i == bytes.len() {
            return None;
        }
        let start = i;
        while i < bytes.len() && is_ident_byte(bytes[i]) {
            i += 1;
        }
        Some((start, i, bytes.get(i) == Some(&b'(')))
    })
}

/// The leaf names of a name: the identifiers that are not template names, left to right
/// (`rfc7539(chacha20,poly1305)` -> `chacha20`, `poly1305`).
pub fn leaves(name: &str) -> Result<Vec<&str>> {
    validate(name)?;
    Ok(idents(name)
        .filter(|&(_, _, tmpl)| !tmpl)
        .map(|(s, e, _)| &name[s..e])
        .collect())
}

/// The kernel's `build_generic_driver_name`: `xts(aes)` -> `xts(aes-generic)`,
/// `rfc7539(chacha20,poly1305)` -> `rfc7539(chacha20-generic,poly1305-generic)`; a leaf
/// already ending in `-generic` is kept. An invalid name has no generic driver.
pub fn build_generic_driver_name(alg_name: &str) -> Result<String> {
    validate(alg_name)?;
    let mut out = String::with_capacity(alg_name.len() + 16);
    let mut copied = 0;
    for (s, e, tmpl) in idents(alg_name) {
        out.push_str(&alg_name[copied..e]);
        copied = e;
        if !tmpl && !alg_name[s..e].ends_with("-generic") {
            out.push_str("-generic");
        }
    }
    out.push_str(&alg_name[copied..]);
    Ok(out)
}

/// Whether a driver is built only from generic leaves (`aes-generic`,
/// `xts(ecb(aes-generic))`): such a driver is the reference and is not
/// differential-tested against itself. An invalid name is never the reference.
pub fn is_generic_driver(driver: &str) -> bool {
    leaves(driver).is_ok_and(|l| l.iter().all(|l| l.ends_with("-generic")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_calls() {
        assert_eq!(parse_template_call("xts(aes)"), Some(("xts", vec!["aes"])));
        assert_eq!(
            parse_template_call("xts(ecb(aes-generic))"),
            Some(("xts", vec!["ecb(aes-generic)"]))
        );
        assert_eq!(
            parse_template_call("rfc7539(chacha20,poly1305)"),
            Some(("rfc7539", vec!["chacha20", "poly1305"]))
        );
        assert_eq!(parse_template_call("aes"), None);
        assert_eq!(parse_template_call("xts(aes"), None);
        assert_eq!(parse_template_call("xts()"), None);
        assert_eq!(parse_template_call("(aes)"), None);
        assert_eq!(parse_template_call("x(a))("), None);
    }

    #[test]
    fn generic_names() {
        assert_eq!(build_generic_driver_name("aes").unwrap(), "aes-generic");
        assert_eq!(
            build_generic_driver_name("xts(aes)").unwrap(),
            "xts(aes-generic)"
        );
        assert_eq!(
            build_generic_driver_name("rfc7539(chacha20,poly1305)").unwrap(),
            "rfc7539(chacha20-generic,poly1305-generic)"
        );
        assert!(is_generic_driver("xts(ecb(aes-generic))"));
        assert!(is_generic_driver("aes-generic"));
        assert!(!is_generic_driver("xts(ecb-aes-aesni)"));
        assert!(!is_generic_driver("xts-aes-aesni"));
    }

    #[test]
    fn leaves_and_generic_names_of_nested_calls() {
        assert_eq!(
            leaves("rfc4106(gcm_base(ctr(aes-aesni),ghash-clmulni))").unwrap(),
            vec!["aes-aesni", "ghash-clmulni"]
        );
        assert_eq!(
            build_generic_driver_name("xts(ecb(aes-generic))").unwrap(),
            "xts(ecb(aes-generic))"
        );
        assert_eq!(
            build_generic_driver_name("gcm_base(ctr(aes),ghash)").unwrap(),
            "gcm_base(ctr(aes-generic),ghash-generic)"
        );
        assert!(build_generic_driver_name("xts( aes)").is_err());
        assert!(!is_generic_driver("xts( aes-generic)"));
    }

    fn reason(name: &str) -> String {
        match validate(name) {
            Err(Error::InvalidName { reason, .. }) => reason,
            other => panic!("{name:?}: {other:?}"),
        }
    }

    #[test]
    fn the_grammar_and_its_limits() {
        for ok in [
            "aes",
            "xts(aes)",
            "a_b-9(c,d(e))",
            &"a".repeat(MAX_NAME_LEN),
        ] {
            validate(ok).unwrap();
        }
        assert!(reason(&"a".repeat(MAX_NAME_LEN + 1)).contains("longer than 128"));
        assert!(reason("ctr( aes)").contains("' ' at byte 4 is not allowed"));
        assert!(reason("ctr(\u{a0}aes)").contains("U+00A0"));
        assert!(reason("x(a)b").contains("after ')' at byte 4"));
        assert!(reason("x(a,)").contains("empty argument"));
        assert!(reason("a,b").contains("outside parentheses"));
        assert!(reason("x(a").contains("unclosed"));
        assert!(reason("x(").contains("ends where"));
        assert!(reason("").contains("empty"));
        let d16 = format!("{}a{}", "x(".repeat(16), ")".repeat(16));
        validate(&d16).unwrap();
        let d17 = format!("{}a{}", "x(".repeat(17), ")".repeat(17));
        assert!(reason(&d17).contains("nested deeper than 16"));
    }
}
