//! The names `explain` and `speed` take besides the registry's own: OpenSSL's and IANA's
//! common names through [`cryptoreg::lookup_common`] (`aes-256-gcm` is `gcm(aes)` with
//! 256-bit keys), and, for a name nothing answers to, the nearest known names.
//! Everything else in cryptoctl (the editors, `--driver`, the control socket) keeps the
//! strict grammar.

use cryptoreg::Registry;

/// A name as typed, mapped: the registry's name, the key size a common name implies, and
/// a line saying what it was mapped to (`None` when the name was the registry's own).
pub struct Mapped {
    pub name: String,
    pub key_bits: Option<u32>,
    pub note: Option<String>,
}

/// Maps a common name; any other name passes through unchanged.
pub fn map(typed: &str) -> Mapped {
    match cryptoreg::lookup_common(typed) {
        Some((alg, bits)) => Mapped {
            name: alg.to_string(),
            key_bits: Some(bits),
            note: Some(format!("{typed}: {alg} with {bits}-bit keys\n")),
        },
        None => Mapped {
            name: typed.to_string(),
            key_bits: None,
            note: None,
        },
    }
}

/// `message`, with the nearest known names (algorithms, drivers and common names of
/// `reg`) when any is close to `typed`: "..., did you mean `gcm(aes)`, `aes-256-gcm`?".
pub fn with_suggestions(message: String, typed: &str, reg: &Registry) -> String {
    let mut known: Vec<String> = reg
        .list()
        .into_iter()
        .flat_map(|e| [e.name, e.driver])
        .chain(
            cryptoreg::common_names::COMMON_NAMES
                .iter()
                .map(|(n, ..)| n.to_string()),
        )
        .collect();
    known.sort();
    known.dedup();
    // A known name's error is about something else (a key size, a driver list).
    if known.iter().any(|k| k == typed) || cryptoreg::lookup_common(typed).is_some() {
        return message;
    }
    let near = nearest(typed, &known);
    if near.is_empty() {
        return message;
    }
    let list: Vec<String> = near.iter().map(|n| format!("`{n}`")).collect();
    format!("{message}; did you mean {}?", list.join(", "))
}

/// Up to three names within an edit distance of a third of the typed length (at least 2),
/// closest first, ties in name order. Case is ignored, and `_` reads as `-`.
pub fn nearest(typed: &str, known: &[String]) -> Vec<String> {
    let fold = |s: &str| -> Vec<char> { cryptoreg::common_names::fold(s).chars().collect() };
    let t = fold(typed);
    if t.len() > 64 {
        return Vec::new();
    }
    let limit = (t.len() / 3).max(2);
    let mut scored: Vec<(usize, &String)> = known
        .iter()
        .map(|k| (distance(&t, &fold(k)), k))
        .filter(|&(d, _)| d <= limit)
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, k)| k.clone()).collect()
}

/// Levenshtein distance (insert, delete, substitute: 1 each).
fn distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_names_come_closest_first() {
        let known: Vec<String> = [
            "gcm(aes)",
            "ctr(aes)",
            "xts(aes)",
            "aes-256-gcm",
            "chacha20",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(nearest("gmc(aes)", &known)[0], "gcm(aes)");
        assert_eq!(nearest("AES_256_GMC", &known), vec!["aes-256-gcm"]);
        assert_eq!(nearest("chacha2", &known), vec!["chacha20"]);
        assert!(nearest("sha3-512", &known).is_empty());
        assert_eq!(distance(&['a', 'b'], &['b', 'a']), 2);
        assert_eq!(distance(&[], &['x']), 1);
    }
}
