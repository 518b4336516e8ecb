//! The static records drivers and templates submit, and the runtime description of a
//! driver that the registry keeps for concrete drivers and template instances alike.

use std::fmt;
use std::sync::Arc;

use crate::error::Result;
use crate::features::{Feature, Features};
use crate::host::HostFeatures;
use crate::traits::{AeadImpl, BlockCipherImpl, HashImpl, SkcipherImpl};

/// The four kinds of algorithm, as in the kernel crypto API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
/// It receives the CPU-feature token and must refuse ([`crate::Error::Unsupported`]) when
/// the token lacks an instruction the driver executes: that check, not the registry's,
/// is what keeps safe code from running an illegal instruction.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub enum Ctor {
    /// Builds an unkeyed block cipher.
    Cipher(fn(&HostFeatures) -> Result<Box<dyn BlockCipherImpl>>),
    /// Builds an unkeyed skcipher.
    Skcipher(fn(&HostFeatures) -> Result<Box<dyn SkcipherImpl>>),
    /// Builds an unkeyed AEAD.
    Aead(fn(&HostFeatures) -> Result<Box<dyn AeadImpl>>),
    /// Builds an unkeyed hash.
    Hash(fn(&HostFeatures) -> Result<Box<dyn HashImpl>>),
}

/// Sizes of an algorithm in bytes, shared by static records and runtime descriptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// Block size (1 for stream ciphers).
    pub block: usize,
    /// Smallest key.
    pub min_key: usize,
    /// Largest key.
    pub max_key: usize,
    /// IV or nonce.
    pub iv: usize,
    /// Tag (AEAD) or digest (hash); 0 otherwise.
    pub out: usize,
}

impl Sizes {
    /// All zero but a block of 1: what a record starts from.
    pub const EMPTY: Sizes = Sizes {
        block: 1,
        min_key: 0,
        max_key: 0,
        iv: 0,
        out: 0,
    };
}

/// A static record submitted with `inventory::submit!` next to each driver, built by the
/// const constructor [`AlgDef::new`] and its `const` builder methods, so adding a field
/// later breaks no driver:
///
/// ```
/// # use cryptoreg_registry::driver::*;
/// # fn make(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> { unimplemented!() }
/// const DEF: AlgDef = AlgDef::new("ctr(aes)", "ctr-aes-example", 400, Ctor::Skcipher(make))
///     .requires(&[Feature::Aes])
///     .block_size(1)
///     .key_sizes(16, 32)
///     .iv_size(16);
/// assert_eq!(DEF.driver(), "ctr-aes-example");
/// ```
///
/// The fields are private: nothing outside this crate can edit a record after it is
/// submitted.
pub struct AlgDef {
    name: &'static str,
    driver: &'static str,
    priority: u32,
    requires: &'static [Feature],
    uses_zmm: bool,
    sizes: Sizes,
    ctor: Ctor,
}

inventory::collect!(AlgDef);

impl AlgDef {
    /// A record for algorithm `name` served by the unique `driver` at base `priority`
    /// (the ladder in DESIGN.md), built by `ctor`; no required features, no zmm, block
    /// size 1, no key, IV or tag until the builder methods say otherwise.
    pub const fn new(
        name: &'static str,
        driver: &'static str,
        priority: u32,
        ctor: Ctor,
    ) -> AlgDef {
        AlgDef {
            name,
            driver,
            priority,
            requires: &[],
            uses_zmm: false,
            sizes: Sizes::EMPTY,
            ctor,
        }
    }

    /// CPU features the driver executes; it is `Unsupported` without any of them.
    pub const fn requires(mut self, features: &'static [Feature]) -> AlgDef {
        self.requires = features;
        self
    }

    /// Marks a driver that uses 512-bit registers (subject to the CPU-model policy).
    pub const fn uses_zmm(mut self) -> AlgDef {
        self.uses_zmm = true;
        self
    }

    /// Block size in bytes (1 for stream ciphers).
    pub const fn block_size(mut self, n: usize) -> AlgDef {
        self.sizes.block = n;
        self
    }

    /// Smallest and largest key in bytes.
    pub const fn key_sizes(mut self, min: usize, max: usize) -> AlgDef {
        self.sizes.min_key = min;
        self.sizes.max_key = max;
        self
    }

    /// IV or nonce size in bytes.
    pub const fn iv_size(mut self, n: usize) -> AlgDef {
        self.sizes.iv = n;
        self
    }

    /// Tag size (AEAD) or digest size (hash) in bytes.
    pub const fn out_size(mut self, n: usize) -> AlgDef {
        self.sizes.out = n;
        self
    }

    /// Algorithm name users ask for (`xts(aes)`).
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Unique driver name (`xts-aes-aesni`).
    pub const fn driver(&self) -> &'static str {
        self.driver
    }

    /// Base priority.
    pub const fn priority(&self) -> u32 {
        self.priority
    }

    /// Required CPU features.
    pub const fn required_features(&self) -> &'static [Feature] {
        self.requires
    }

    /// Whether the driver uses 512-bit registers.
    pub const fn zmm(&self) -> bool {
        self.uses_zmm
    }

    /// The sizes.
    pub const fn sizes(&self) -> Sizes {
        self.sizes
    }

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
            sizes: self.sizes,
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

/// A shareable constructor of `T` (a driver trait object) that checks the CPU token.
pub type Builder<T> = Arc<dyn Fn(&HostFeatures) -> Result<Box<T>> + Send + Sync>;

/// A runtime constructor: template instances capture their children's factories and
/// pass the token on, so a child's feature check runs whenever an instance is built.
#[derive(Clone)]
#[non_exhaustive]
pub enum Factory {
    /// Builds a block cipher.
    Cipher(Builder<dyn BlockCipherImpl>),
    /// Builds an skcipher.
    Skcipher(Builder<dyn SkcipherImpl>),
    /// Builds an AEAD.
    Aead(Builder<dyn AeadImpl>),
    /// Builds a hash.
    Hash(Builder<dyn HashImpl>),
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

/// One resolved child of a template instance: its description and its effective
/// priority at the time the instance is built (which the instance's priority derives
/// from). Made by the registry, read by [`Template::create`].
#[derive(Clone)]
pub struct Child {
    info: Arc<DriverInfo>,
    priority: u32,
}

impl Child {
    /// A child as the registry resolved it, at its effective `priority`.
    pub fn new(info: Arc<DriverInfo>, priority: u32) -> Child {
        Child { info, priority }
    }

    /// The child's description.
    pub fn info(&self) -> &DriverInfo {
        &self.info
    }

    /// Its effective priority when resolved.
    pub fn priority(&self) -> u32 {
        self.priority
    }
}

/// Everything the registry knows about one driver, concrete or template instance.
///
/// Built only by [`AlgDef::to_info`] and [`DriverInfo::instance`], and read-only after:
/// the fields are private, so nothing outside this crate can forge `requires` or swap a
/// factory.
#[derive(Clone)]
pub struct DriverInfo {
    name: String,
    driver: String,
    base_priority: u32,
    requires: Features,
    uses_zmm: bool,
    sizes: Sizes,
    factory: Factory,
    children: Vec<String>,
}

impl DriverInfo {
    /// The whole description of a template instance over resolved `children`: the
    /// template names it, gives its priority, sizes and factory; the required features
    /// are the union of the children's (and `extra`), `uses_zmm` holds if any child uses
    /// zmm, and the children are recorded by driver name (which is what invalidation
    /// follows).
    pub fn instance(
        name: String,
        driver: String,
        priority: u32,
        sizes: Sizes,
        factory: Factory,
        children: &[Child],
    ) -> DriverInfo {
        DriverInfo {
            name,
            driver,
            base_priority: priority,
            requires: children
                .iter()
                .fold(Features::EMPTY, |a, c| a.union(c.info.requires())),
            uses_zmm: children.iter().any(|c| c.info.uses_zmm()),
            sizes,
            factory,
            children: children
                .iter()
                .map(|c| c.info.driver().to_string())
                .collect(),
        }
    }

    /// Algorithm name (`xts(aes)`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Driver name (`xts(ecb(aes-generic))`).
    pub fn driver(&self) -> &str {
        &self.driver
    }

    /// Priority before policy, configuration and runtime overrides.
    pub fn base_priority(&self) -> u32 {
        self.base_priority
    }

    /// Required CPU features (for an instance: the union of its children's).
    pub fn requires(&self) -> Features {
        self.requires
    }

    /// Uses 512-bit registers (for an instance: any child does).
    pub fn uses_zmm(&self) -> bool {
        self.uses_zmm
    }

    /// The sizes.
    pub fn sizes(&self) -> Sizes {
        self.sizes
    }

    /// Block size in bytes.
    pub fn block_size(&self) -> usize {
        self.sizes.block
    }

    /// IV or nonce size in bytes.
    pub fn iv_size(&self) -> usize {
        self.sizes.iv
    }

    /// Tag or digest size in bytes.
    pub fn out_size(&self) -> usize {
        self.sizes.out
    }

    /// The constructor (which checks the CPU token it is given).
    pub fn factory(&self) -> &Factory {
        &self.factory
    }

    /// Driver names of the children a template instance was built over (empty otherwise).
    pub fn children(&self) -> &[String] {
        &self.children
    }

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
    /// Builds the whole instance description over resolved children (same order as the
    /// arguments), normally with [`DriverInfo::instance`]: algorithm name, driver name,
    /// priority derived from the children's, sizes and factory. The registry records it
    /// as returned.
    pub create: fn(children: &[Child]) -> Result<DriverInfo>,
    /// `None` for an ordinary template. `Some(f)` makes the template another spelling of
    /// a name with more children than arguments, as the kernel's `gcm` template is:
    /// `gcm(X)` is resolved as `f(["X"])` = `gcm_base(ctr(X),ghash)` (two children from one
    /// argument, which `child_request` cannot express). The registry then resolves the
    /// returned name instead (it must be a call of another template) and never calls
    /// `child_request` or `create`; `child_types` still fixes the number of arguments.
    pub rewrite: Option<fn(args: &[&str]) -> String>,
}

inventory::collect!(Template);
