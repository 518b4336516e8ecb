//! The command line, and the key.

use std::path::PathBuf;

use zeroize::Zeroizing;

/// The fixed demo key (XTS-AES-256, halves distinct): only for trying sectord out.
const DEMO_KEY: [u8; 64] = {
    let mut k = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        k[i] = (i as u8).wrapping_mul(37).wrapping_add(11);
        i += 1;
    }
    k
};

pub struct Args {
    pub store: PathBuf,
    pub socket: PathBuf,
    pub data: PathBuf,
    pub sectors: u64,
    pub key_file: Option<PathBuf>,
}

pub const USAGE: &str = "usage: sectord --store FILE --socket CONTROL_PATH --data DATA_PATH \
                     [--sectors N] [--key-file KEY]";

impl Args {
    /// The arguments, or `None` when `-h`/`--help` asked for the usage text instead.
    pub fn parse(mut it: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
        let (mut store, mut socket, mut data, mut key_file) = (None, None, None, None);
        let mut sectors = 1024u64;
        while let Some(flag) = it.next() {
            let mut value = || it.next().ok_or(format!("{flag} needs a value\n{USAGE}"));
            match flag.as_str() {
                "--store" => store = Some(PathBuf::from(value()?)),
                "--socket" => socket = Some(PathBuf::from(value()?)),
                "--data" => data = Some(PathBuf::from(value()?)),
                "--key-file" => key_file = Some(PathBuf::from(value()?)),
                "--sectors" => {
                    sectors = value()?
                        .parse()
                        .ok()
                        .filter(|&n| n > 0 && n <= 1 << 32)
                        .ok_or("--sectors takes a number in 1..=2^32")?
                }
                "-h" | "--help" => return Ok(None),
                other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
            }
        }
        let need = |v: Option<PathBuf>, name: &str| v.ok_or(format!("{name} is required\n{USAGE}"));
        Ok(Some(Args {
            store: need(store, "--store")?,
            socket: need(socket, "--socket")?,
            data: need(data, "--data")?,
            sectors,
            key_file,
        }))
    }

    /// The XTS key: the key file's bytes (32 or 64), or the demo key, announced.
    pub fn key(&self) -> Result<Zeroizing<Vec<u8>>, String> {
        match &self.key_file {
            Some(path) => {
                let key = Zeroizing::new(
                    std::fs::read(path).map_err(|e| format!("key file {}: {e}", path.display()))?,
                );
                if key.len() != 32 && key.len() != 64 {
                    return Err(format!(
                        "key file {} holds {} bytes; XTS-AES needs 32 or 64",
                        path.display(),
                        key.len()
                    ));
                }
                Ok(key)
            }
            None => {
                eprintln!("sectord: ************************************************************");
                eprintln!("sectord: WARNING: no --key-file: using the FIXED, PUBLIC DEMO KEY.");
                eprintln!("sectord: Anyone can decrypt this store. Do not keep real data in it.");
                eprintln!("sectord: ************************************************************");
                Ok(Zeroizing::new(DEMO_KEY.to_vec()))
            }
        }
    }
}
