//! The `cpu_token!` macro of `aarch64/token.rs`, the same as `x86/token.rs`'s (kept there
//! unchanged so that the branches adding arm64 records, which change that one, merge
//! without conflict; one copy can serve both once they are merged): one zero-sized type
//! per feature set a driver family executes, made only from the registry's
//! [`HostFeatures`], so holding one proves the instructions exist on this CPU and are
//! allowed by the operator's mask.
//!
//! [`HostFeatures`]: cryptoreg_registry::HostFeatures

macro_rules! cpu_token {
    ($(#[$doc:meta])* $name:ident = [$($feat:ident),* $(,)?]) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $name(());

        impl $name {
            /// The features this token proves.
            pub(crate) const FEATURES: &'static [Feature] = &[$(Feature::$feat),*];

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
