//! Parsing of algorithm names such as `xts(ecb(aes-generic))` and the naming rules the
//! self-tests rely on.

/// Splits `tmpl(arg, arg)` into the template name and its top-level arguments. Returns
/// `None` for a plain name or a malformed one.
pub fn parse_template_call(name: &str) -> Option<(&str, Vec<&str>)> {
    let open = name.find('(')?;
    if !name.ends_with(')') || open == 0 {
        return None;
    }
    let tmpl = &name[..open];
    let inner = &name[open + 1..name.len() - 1];
    let mut args = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
            }
            ',' if depth == 0 => {
                args.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return None;
    }
    args.push(inner[start..].trim());
    if args.iter().any(|a| a.is_empty()) {
        return None;
    }
    Some((tmpl, args))
}

/// The leaf names of a name: the identifiers that are not template names.
pub fn leaves(name: &str) -> Vec<&str> {
    match parse_template_call(name) {
        Some((_, args)) => args.into_iter().flat_map(leaves).collect(),
        None => vec![name],
    }
}

/// The kernel's `build_generic_driver_name`: `xts(aes)` -> `xts(aes-generic)`,
/// `rfc7539(chacha20,poly1305)` -> `rfc7539(chacha20-generic,poly1305-generic)`.
pub fn build_generic_driver_name(alg_name: &str) -> String {
    match parse_template_call(alg_name) {
        Some((tmpl, args)) => {
            let args: Vec<String> = args.into_iter().map(build_generic_driver_name).collect();
            format!("{tmpl}({})", args.join(","))
        }
        None if alg_name.ends_with("-generic") => alg_name.to_string(),
        None => format!("{alg_name}-generic"),
    }
}

/// Whether a driver is built only from generic leaves (`aes-generic`,
/// `xts(ecb(aes-generic))`): such a driver is the reference and is not
/// differential-tested against itself.
pub fn is_generic_driver(driver: &str) -> bool {
    leaves(driver).iter().all(|l| l.ends_with("-generic"))
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
        assert_eq!(build_generic_driver_name("aes"), "aes-generic");
        assert_eq!(build_generic_driver_name("xts(aes)"), "xts(aes-generic)");
        assert_eq!(
            build_generic_driver_name("rfc7539(chacha20,poly1305)"),
            "rfc7539(chacha20-generic,poly1305-generic)"
        );
        assert!(is_generic_driver("xts(ecb(aes-generic))"));
        assert!(is_generic_driver("aes-generic"));
        assert!(!is_generic_driver("xts(ecb-aes-aesni)"));
        assert!(!is_generic_driver("xts-aes-aesni"));
    }
}
