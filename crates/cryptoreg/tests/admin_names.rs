//! Admin and configuration accept the same driver names, checked strictly: the grammar
//! first (`InvalidName`), then a registered driver or the canonical driver name of a
//! template instance that could be built. Anything else is refused, nothing is stored
//! and the generation stays (issue 18, item 4).

mod common;

use cryptoreg::{AdminOp, Config, Error};

/// Names that name no driver, each refused by every admin operation without a change.
const NOT_DRIVERS: &[(&str, &str)] = &[
    ("xts(ecb(aes-genric))", "aes-genric"),
    ("xts(a,b,c)", "argument"),
    ("gcm(zzz)", "zzz"),
    // An algorithm name: several drivers (or a rewrite) serve it.
    ("gcm(aes)", "explain"),
    ("aes", "explain"),
    // Wrong child type: xts takes an skcipher, aes-generic is a block cipher.
    ("xts(aes-generic)", "cipher"),
    // An algorithm spelling of an instance (gcm rewrites to gcm_base).
    ("gcm(aes-generic)", "explain"),
    ("nope(aes-generic)", "nope"),
];

#[test]
fn admin_refuses_names_that_name_no_driver_and_changes_nothing() {
    let reg = common::boot("", None);
    let before = reg.generation();
    for &(name, why) in NOT_DRIVERS {
        for op in [
            AdminOp::Disable(name.to_string()),
            AdminOp::Enable(name.to_string()),
            AdminOp::SetPriority(name.to_string(), 5),
            AdminOp::ClearPriority(name.to_string()),
        ] {
            match reg.admin(&op) {
                Err(e @ Error::NotADriver { .. }) => {
                    assert!(e.to_string().contains(why), "{op:?}: {e}")
                }
                other => panic!("{op:?}: {other:?}"),
            }
        }
    }
    // Made-up names in bulk: each refused, the generation never moves.
    for i in 0..2000 {
        assert!(reg.disable(&format!("xts(ecb(aes-x{i}))")).is_err());
    }
    assert_eq!(reg.generation(), before);
    // The grammar comes first.
    assert!(matches!(
        reg.disable("XTS(aes)"),
        Err(Error::InvalidName { .. })
    ));
    // The canonical names still work, built or not.
    for name in [
        "aes-generic",
        "xts(ecb(aes-generic))",
        "gcm_base(ctr(aes-generic),ghash-generic)",
        "rfc4106(gcm_base(ctr(aes-generic),ghash-generic))",
    ] {
        reg.disable(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        reg.enable(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    assert!(reg.generation() > before);
}

#[test]
fn configuration_refuses_the_same_names() {
    for &(name, why) in NOT_DRIVERS {
        for text in [
            format!("[priority]\n{name:?} = 5\n"),
            format!("[disable]\ndrivers = [{name:?}]\n"),
        ] {
            let config = Config::parse(&text, "test").expect("parses");
            match cryptoreg::boot(config, None) {
                Err(e @ Error::Config(_)) => {
                    assert!(e.to_string().contains(why), "{text}: {e}")
                }
                Err(e) => panic!("{text}: {e}"),
                Ok(_) => panic!("{text}: booted"),
            }
        }
    }
    let ok = "[priority]\n\"gcm_base(ctr(aes-generic),ghash-generic)\" = 5\n\
              [disable]\ndrivers = [\"xts(ecb(aes-generic))\"]\n";
    cryptoreg::boot(Config::parse(ok, "test").unwrap(), None).expect("canonical names boot");
}
