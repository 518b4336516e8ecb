//! The instruction-set architectures cryptoreg knows: every driver record and CPU identity
//! belongs to one, so that a plan for another machine (`--cpu neoverse-n1` on an x86-64
//! host, `--cpu skylake-x` on arm64) shows that machine's ladder.

use core::fmt;

/// An instruction-set architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Arch {
    /// x86-64 (`target_arch = "x86_64"`).
    X86_64,
    /// AArch64, arm64 (`target_arch = "aarch64"`).
    Aarch64,
}

impl Arch {
    /// The architecture this binary was built for; `None` on one cryptoreg has no
    /// drivers for (only the portable ones serve there).
    pub const HOST: Option<Arch> = if cfg!(target_arch = "x86_64") {
        Some(Arch::X86_64)
    } else if cfg!(target_arch = "aarch64") {
        Some(Arch::Aarch64)
    } else {
        None
    };

    /// The name as Rust's `target_arch` spells it (`x86_64`, `aarch64`).
    pub const fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64",
            Arch::Aarch64 => "aarch64",
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
