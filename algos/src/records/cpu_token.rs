//! The `cpu_token!` macro, shared by `x86/token.rs` and `aarch64/token.rs`: one
//! zero-sized type per feature set a driver family executes, made only from the
//! registry's [`HostFeatures`], so holding one proves the instructions exist on this CPU
//! and are allowed by the operator's mask. Its feature list is a constant of the
//! architecture's `records::A::needs`, which the drivers' records declare too.
//!
//! [`HostFeatures`]: cryptoreg_registry::HostFeatures

macro_rules! cpu_token {
    ($(#[$doc:meta])* $name:ident = $features:path) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $name(());

        impl $name {
            /// The features this token proves.
            pub(crate) const FEATURES: &'static [Feature] = $features;

            /// Proves the features on `host`, or refuses naming `driver` and what is
            /// missing ([`cryptoreg_registry::Error::Unsupported`]).
            pub(crate) fn new(host: &HostFeatures, driver: &str) -> Result<Self> {
                host.require(driver, Self::FEATURES)?;
                Ok($name(()))
            }
        }
    };
}

pub(crate) use cpu_token;
