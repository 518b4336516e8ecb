//! Names are a strict grammar, checked before any lookup: every other spelling of a name
//! (spaces, tabs, Unicode spaces, capitals) is `InvalidName`, never a weaker driver or a
//! new cache entry; names over 128 bytes or nested deeper than 16 are refused at once,
//! without recursion. Configuration names obey the same grammar, and a template-shaped
//! name must name a real template over known drivers or algorithms.

mod toy;

use std::time::{Duration, Instant};

use cryptoreg_registry::*;
use toy::boot;

const NO_512: &str = "[cpu]\ndisable = [\"avx512f\"]\n";

fn invalid_reason(r: Result<std::sync::Arc<DriverInfo>>) -> String {
    match r {
        Err(Error::InvalidName { reason, .. }) => reason,
        other => panic!(
            "expected InvalidName, got {:?}",
            other.map(|i| i.driver().to_string())
        ),
    }
}

#[test]
fn other_spellings_of_a_name_are_invalid_not_weaker() {
    let reg = boot(NO_512);
    assert_eq!(
        reg.resolve("wrap(toy)").unwrap().driver(),
        "wrap(toy-aesni)"
    );
    for (name, what, pos) in [
        ("wrap( toy)", "' '", 5),
        ("wrap(toy )", "' '", 8),
        (" toy", "' '", 0),
        ("toy\t", "'\\t'", 3),
        ("wrap(\u{a0}toy)", "U+00A0", 5),
        ("toy\u{2028}", "U+2028", 3),
        ("wrap(\u{3000}toy)", "U+3000", 5),
        ("Toy", "'T'", 0),
        ("toy.generic", "'.'", 3),
    ] {
        let reason = invalid_reason(reg.resolve(name));
        assert!(reason.contains(what), "{name:?}: {reason}");
        assert!(
            reason.contains(&format!("byte {pos}")),
            "{name:?}: {reason}"
        );
        let ex = reg.explain(name);
        assert!(ex.chosen.is_none(), "{name:?} chose {:?}", ex.chosen);
        assert!(ex.error.unwrap().contains("invalid algorithm name"));
    }
    for name in [
        "wrap(toy",
        "wrap()",
        "(toy)",
        "wrap(toy))",
        "wrap(toy)x",
        "",
        ",",
    ] {
        invalid_reason(reg.resolve(name));
    }
    // No spelling reached the table: only the canonical instance exists.
    let instances: Vec<String> = reg
        .list()
        .into_iter()
        .filter(|e| e.instance)
        .map(|e| e.driver)
        .collect();
    assert_eq!(instances, vec!["wrap(toy-aesni)"]);
}

#[test]
fn long_and_deep_names_are_refused_at_once() {
    let reg = boot(NO_512);
    let deep17 = format!("{}toy{}", "wrap(".repeat(17), ")".repeat(17));
    assert!(deep17.len() <= 128);
    assert!(invalid_reason(reg.resolve(&deep17)).contains("nested deeper than 16"));
    let deep16 = format!("{}toy{}", "wrap(".repeat(16), ")".repeat(16));
    assert!(!matches!(
        reg.resolve(&deep16),
        Err(Error::InvalidName { .. })
    ));

    let long = "t".repeat(129);
    assert!(invalid_reason(reg.resolve(&long)).contains("longer than 128"));
    assert!(matches!(
        reg.resolve(&"t".repeat(128)),
        Err(Error::NotFound(_))
    ));

    // The reproduction that overflowed the stack: 40,000 levels (and far more).
    let start = Instant::now();
    for levels in [40_000, 1_000_000] {
        let huge = format!("{}aes{}", "x(".repeat(levels), ")".repeat(levels));
        let reason = invalid_reason(reg.resolve(&huge));
        assert!(reason.contains("longer than 128"), "{reason}");
        match names::validate(&huge) {
            Err(Error::InvalidName { name, .. }) => assert!(name.len() < 100, "{name}"),
            other => panic!("{other:?}"),
        }
        assert!(names::build_generic_driver_name(&huge).is_err());
        assert!(names::leaves(&huge).is_err());
        assert!(names::parse_template_call(&huge).is_none());
        assert!(!names::is_generic_driver(&huge));
    }
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

fn boot_config(text: &str, origin: &str) -> Result<Registry> {
    Registry::boot(BootOptions {
        cpu: None,
        config: Config::parse(text, origin)?,
        tester: None,
    })
}

#[test]
fn template_shaped_configuration_names_must_exist() {
    for (text, bad, line) in [
        ("[priority]\n\"wrap(toy-generc)\" = 5\n", "toy-generc", 2),
        (
            "# ops\n[disable]\ndrivers = [\n  \"toy-generic\",\n  \"nope(x)\",\n]\n",
            "nope",
            5,
        ),
        (
            "[priority]\n\"wrap(wrap(toy-generc))\" = 5\n",
            "toy-generc",
            2,
        ),
        (
            "[priority]\n\"wrap(toy-generic,toy)\" = 5\n",
            "wrap(toy-generic,toy)",
            2,
        ),
        ("[priority]\n\"wrap( toy)\" = 5\n", "' '", 2),
        ("[disable]\ndrivers = [\"wrap(toy\"]\n", "wrap(toy", 2),
        // Priorities and disables name drivers: an algorithm leaf names none.
        ("[priority]\n\"wrap(toy)\" = 5\n", "explain", 2),
        ("[priority]\n\"toy\" = 5\n", "explain", 2),
        // Child types are checked: wrap takes a cipher, and wrap(...) is an skcipher.
        (
            "[priority]\n\"wrap(wrap(toy-generic))\" = 5\n",
            "takes a cipher",
            2,
        ),
    ] {
        match boot_config(text, "svc.toml") {
            Err(Error::Config(m)) => {
                assert!(m.contains(bad), "{text:?}: {m}");
                assert!(m.contains("svc.toml"), "{text:?}: {m}");
                assert!(m.contains(&format!("line {line}")), "{text:?}: {m}");
            }
            Err(other) => panic!("{text:?}: {other}"),
            Ok(_) => panic!("{text:?} was accepted"),
        }
    }
    for text in [
        "[priority]\n\"wrap(toy-generic)\" = 5\n",
        "[priority]\n\"toy-generic\" = 5\n[disable]\ndrivers = [\"wrap(toy-aesni)\"]\n",
    ] {
        if let Err(e) = boot_config(text, "svc.toml") {
            panic!("{text:?} refused: {e}");
        }
    }
}
