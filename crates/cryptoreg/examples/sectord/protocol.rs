//! The data socket's line protocol. One request per line, one answer per line:
//!
//! ```text
//! -> WRITE <sector> <8192 hex digits>     <- OK
//! -> READ <sector>                        <- OK <8192 hex digits>
//! -> DRIVER                               <- OK <driver serving this connection>
//! -> anything else, or a failure          <- ERR <reason>
//! ```
//!
//! Sector numbers are decimal. A connection's handle is re-allocated before a request
//! whenever it is no longer current (`is_current()`), so the `DRIVER` answer follows the
//! operator's changes.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;

use zeroize::Zeroizing;

use crate::store::{Store, SECTOR};

/// Longest request line: `WRITE`, a sector number, a full sector in hex.
const MAX_LINE: usize = 64 + 2 * SECTOR;

/// A client silent this long is disconnected, so a stuck one cannot hold a slot forever.
const IDLE: std::time::Duration = std::time::Duration::from_secs(300);

pub fn serve_client(store: &Store, conn: UnixStream) -> Result<(), String> {
    conn.set_read_timeout(Some(IDLE))
        .map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(conn.try_clone().map_err(|e| e.to_string())?);
    let mut out = conn;
    let mut handle = store.handle()?;
    let mut line = String::new();
    loop {
        line.clear();
        let n = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return Ok(());
        }
        if n > MAX_LINE {
            let _ = out.write_all(b"ERR line too long\n");
            return Ok(());
        }
        if !handle.is_current() {
            // An operator changed what xts(aes) resolves to: move to the new driver.
            handle = store.handle()?;
        }
        let answer = match answer(store, &handle, line.trim_end()) {
            Ok(a) => a,
            Err(e) => format!("ERR {e}"),
        };
        out.write_all(answer.as_bytes())
            .map_err(|e| e.to_string())?;
        out.write_all(b"\n").map_err(|e| e.to_string())?;
    }
}

fn answer(store: &Store, h: &cryptoreg::Skcipher, line: &str) -> Result<String, String> {
    let mut words = line.split(' ');
    let sector = |w: Option<&str>| -> Result<u64, String> {
        w.and_then(|s| s.parse().ok())
            .ok_or("bad sector number".to_string())
    };
    match words.next() {
        Some("READ") => {
            let s = sector(words.next())?;
            let mut buf = Zeroizing::new([0u8; SECTOR]);
            store.read(h, s, &mut buf)?;
            Ok(format!("OK {}", hex::encode(&buf[..])))
        }
        Some("WRITE") => {
            let s = sector(words.next())?;
            let data = words.next().ok_or("missing data")?;
            let mut buf = Zeroizing::new([0u8; SECTOR]);
            hex::decode_to_slice(data, &mut buf[..])
                .map_err(|_| format!("data must be {} hex digits", 2 * SECTOR))?;
            store.write(h, s, &mut buf)?;
            Ok("OK".to_string())
        }
        Some("DRIVER") => Ok(format!("OK {}", h.driver_name())),
        _ => Err("unknown request (READ, WRITE, DRIVER)".to_string()),
    }
}
