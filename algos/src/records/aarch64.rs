//! Records of the arm64 drivers (`crate::aarch64`), compiled on every architecture: see
//! [`crate::records`] for the pattern. The arm64 drivers add their feature sets
//! (`needs`, each with `Neon` so no x86-64 CPU satisfies it) and their records here.
