//! The static records drivers and templates submit, and the runtime description of a
//! driver that the registry keeps for concrete drivers and template instances alike.

use std::fmt;
use std::sync::Arc;

use crate::error::Result;
use crate::features::{Feature, Features};
use crate::traits::{AeadImpl, BlockCipherImpl, HashImpl, SkcipherImpl};

/// The four kinds of algorithm, as in the kernel crypto API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AlgType {
    /// One block at a time (`aes`).
    Cipher,
    /// Modes and stream ciphers (`xts(aes)`, `ctr(aes)`).
    Skcipher,
    /// Authenticated encryption (`gcm(aes)`).
    Aead,
    /// Digests and keyed MACs.
    Hash,
}

impl AlgType {
    /// The lower-case name used in listings and JSON.
    pub const fn name(self) -> &'static str {
        match self {
            AlgType::Cipher => "cipher",
            AlgType::Skcipher => "skcipher",
            AlgType::Aead => "aead",
            AlgType::Hash => "hash",
        }
    }
}

impl fmt::Display for AlgType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The constructor of a concrete driver: a plain function, so it fits in a static record.
#[derive(Clone, Copy)]
pub enum Ctor {
    /// Builds an unkeyed block cipher.
    Cipher(fn() -> Box<dyn BlockCipherImpl>),
    /// Builds an unkeyed skcipher.
    Skcipher(fn() -> Box<dyn SkcipherImpl>),
    /// Builds an unkeyed AEAD.
    Aead(fn() -> Box<dyn AeadImpl>),
    /// Builds an unkeyed hash.
    Hash(fn() -> Box<dyn HashImpl>),
}

/// A static record submitted with `inventory::submit!` next to each driver.
pub struct AlgDef {
    /// Algorithm name users ask for (`xts(aes)`).
    pub name: &'static str,
    /// Unique driver name (`xts-aes-aesni`).
    pub driver: &'static str,
    /// Base priority (`cra_priority`), from the ladder in DESIGN.md.
    pub priority: u32,
    /// CPU features the driver needs; it is `Unsupported` without any of them.
    pub requires: &'static [Feature],
    /// Whether the driver uses 512-bit registers (subject to the CPU-model policy).
    pub uses_zmm: bool,
    /// Block size in bytes (1 for stream ciphers).
    pub block_size: usize,
    /// Smallest key in bytes.
    pub min_key: usize,
    /// Largest key in bytes.
    pub max_key: usize,
    /// IV or nonce size in bytes.
    pub iv_size: usize,
    /// Tag size (AEAD) or digest size (hash); 0 otherwise.
    pub out_size: usize,
    /// Builds an instance.
    pub ctor: Ctor,
}

inventory::collect!(AlgDef);

impl AlgDef {
    /// The algorithm type, from the constructor.
    pub fn alg_type(&self) -> AlgType {
        match self.ctor {
            Ctor::Cipher(_) => AlgType::Cipher,
            Ctor::Skcipher(_) => AlgType::Skcipher,
            Ctor::Aead(_) => AlgType::Aead,
            Ctor::Hash(_) => AlgType::Hash,
        }
    }

    /// The runtime description of this record.
    pub fn to_info(&self) -> DriverInfo {
        DriverInfo {
            name: self.name.to_string(),
            driver: self.driver.to_string(),
            base_priority: self.priority,
            requires: Features::of(self.requires),
            uses_zmm: self.uses_zmm,
            block_size: self.block_size,
            min_key: self.min_key,
            max_key: self.max_key,
            iv_size: self.iv_size,
            out_size: self.out_size,
            factory: match self.ctor {
                Ctor::Cipher(f) => Factory::Cipher(Arc::new(f)),
                Ctor::Skcipher(f) => Factory::Skcipher(Arc::new(f)),
                Ctor::Aead(f) => Factory::Aead(Arc::new(f)),
                Ctor::Hash(f) => Factory::Hash(Arc::new(f)),
            },
            children: Vec::new(),
        }
    }
}

/// A runtime constructor: template instances capture their children's factories.
#[derive(Clone)]
pub enum Factory {
    /// Builds a block cipher.
    Cipher(Arc<dyn Fn() -> Box<dyn BlockCipherImpl> + Send + Sync>),
    /// Builds an skcipher.
    Skcipher(Arc<dyn Fn() -> Box<dyn SkcipherImpl> + Send + Sync>),
    /// Builds an AEAD.
    Aead(Arc<dyn Fn() -> Box<dyn AeadImpl> + Send + Sync>),
    /// Builds a hash.
    Hash(Arc<dyn Fn() -> Box<dyn HashImpl> + Send + Sync>),
}

impl Factory {
    /// The algorithm type this factory builds.
    pub fn alg_type(&self) -> AlgType {
        match self {
            Factory::Cipher(_) => AlgType::Cipher,
            Factory::Skcipher(_) => AlgType::Skcipher,
            Factory::Aead(_) => AlgType::Aead,
            Factory::Hash(_) => AlgType::Hash,
        }
    }
}

/// Everything the registry knows about one driver, concrete or template instance.
#[derive(Clone)]
pub struct DriverInfo {
    /// Algorithm name (`xts(aes)`).
    pub name: String,
    /// Driver name (`xts(ecb(aes-generic))`).
    pub driver: String,
    /// Priority before policy, configuration and runtime overrides.
    pub base_priority: u32,
    /// Required CPU features (for an instance: the union of its children's).
    pub requires: Features,
    /// Uses 512-bit registers (for an instance: any child does).
    pub uses_zmm: bool,
    /// Block size in bytes.
    pub block_size: usize,
    /// Smallest key in bytes.
    pub min_key: usize,
    /// Largest key in bytes.
    pub max_key: usize,
    /// IV or nonce size in bytes.
    pub iv_size: usize,
    /// Tag or digest size in bytes.
    pub out_size: usize,
    /// Builds unkeyed instances.
    pub factory: Factory,
    /// Driver names of the children a template instance was built over (empty otherwise).
    pub children: Vec<String>,
}

impl DriverInfo {
    /// The algorithm type.
    pub fn alg_type(&self) -> AlgType {
        self.factory.alg_type()
    }

    /// Whether this is a template instance.
    pub fn is_instance(&self) -> bool {
        !self.children.is_empty()
    }
}

impl fmt::Debug for DriverInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DriverInfo")
            .field("name", &self.name)
            .field("driver", &self.driver)
            .field("base_priority", &self.base_priority)
            .field("type", &self.alg_type())
            .finish_non_exhaustive()
    }
}

/// A record that builds instances from other algorithms, submitted with
/// `inventory::submit!`: `ecb`, `cbc`, `ctr`, `xts`, later `gcm`, `rfc7539`, `hmac`.
pub struct Template {
    /// The template's name, as written before the parenthesis.
    pub name: &'static str,
    /// Maps each argument as written (`aes`, `aes-generic`) to the name the registry must
    /// resolve for that child: `xts` asks for `ecb(aes)`, `cbc` for `aes` itself.
    pub child_request: fn(arg: &str) -> String,
    /// The type each child must have, one entry per argument.
    pub child_types: &'static [AlgType],
    /// Builds the instance over resolved children (same order as the arguments). The
    /// result carries the instance's algorithm name, driver name and derived priority.
    pub create: fn(children: &[DriverInfo]) -> Result<DriverInfo>,
}

inventory::collect!(Template);
