//! Nothing to use: this crate holds the criterion benches of the cryptoreg drivers
//! (`benches/`, run by `cargo xtask bench` or `cargo bench -p cryptoreg-bench`), kept out
//! of the facade so that its tests and examples never build criterion.
