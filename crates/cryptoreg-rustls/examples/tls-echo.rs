//! A TLS 1.2/1.3 echo server whose records go through the cryptoreg registry, with the
//! registry's control socket so an operator can move its traffic while it runs.
//!
//! ```sh
//! cargo run --release -p cryptoreg-rustls --example tls-echo -- \
//!     --listen 127.0.0.1:8443 --cert CERT.pem --key KEY.pem [--socket /tmp/echo.sock]
//! ```
//!
//! Every byte a client sends comes back. The certificate file is a PEM chain (leaf first),
//! the key a PEM private key (ECDSA or RSA; PKCS#8, SEC1 or PKCS#1). See the README's
//! "TLS and QUIC" section for `openssl s_client`, `curl` and `cryptoctl --socket` against
//! it.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};

struct Args {
    listen: String,
    cert: String,
    key: String,
    socket: Option<String>,
}

const USAGE: &str =
    "usage: tls-echo --listen ADDR:PORT --cert CERT.pem --key KEY.pem [--socket CONTROL]";

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let (mut listen, mut cert, mut key, mut socket) = (None, None, None, None);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value\n{USAGE}"));
        match flag.as_str() {
            "--listen" => listen = Some(value()?),
            "--cert" => cert = Some(value()?),
            "--key" => key = Some(value()?),
            "--socket" => socket = Some(value()?),
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    let need = |v: Option<String>, what: &str| v.ok_or(format!("{what} is required\n{USAGE}"));
    Ok(Args {
        listen: need(listen, "--listen")?,
        cert: need(cert, "--cert")?,
        key: need(key, "--key")?,
        socket,
    })
}

fn load(args: &Args) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), String> {
    let read = |p: &str| std::fs::read(p).map_err(|e| format!("{p}: {e}"));
    let certs = rustls_pemfile::certs(&mut &read(&args.cert)?[..])
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: {e}", args.cert))?;
    if certs.is_empty() {
        return Err(format!("{}: no certificate", args.cert));
    }
    let key = rustls_pemfile::private_key(&mut &read(&args.key)?[..])
        .map_err(|e| format!("{}: {e}", args.key))?
        .ok_or(format!("{}: no private key", args.key))?;
    Ok((certs, key))
}

/// Echoes one connection until the client closes it.
fn echo(config: Arc<ServerConfig>, tcp: TcpStream) -> std::io::Result<u64> {
    let conn = ServerConnection::new(config).map_err(std::io::Error::other)?;
    let mut tls = StreamOwned::new(conn, tcp);
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = match tls.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            // A client that leaves without close_notify (curl, s_client on EOF).
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(e),
        };
        tls.write_all(&buf[..n])?;
        tls.flush()?;
        total += n as u64;
    }
    tls.conn.send_close_notify();
    let _ = tls.flush();
    Ok(total)
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let (certs, key) = load(&args)?;
    let registry = cryptoreg::registry().map_err(|e| format!("registry: {e}"))?;
    let provider =
        cryptoreg_rustls::provider(Arc::clone(&registry)).map_err(|e| format!("provider: {e}"))?;
    let config = ServerConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(rustls::ALL_VERSIONS)
        .map_err(|e| format!("TLS versions: {e}"))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| format!("certificate: {e}"))?;
    let config = Arc::new(config);
    let _control = match &args.socket {
        Some(path) => Some(
            cryptoreg::control::serve(
                Arc::clone(&registry),
                path,
                cryptoreg::control::ServeOptions::default(),
            )
            .map_err(|e| format!("control socket {path}: {e}"))?,
        ),
        None => None,
    };
    let listener = TcpListener::bind(&args.listen).map_err(|e| format!("{}: {e}", args.listen))?;
    let drivers: Vec<String> = cryptoreg_rustls::PREPARED
        .iter()
        .filter_map(|n| {
            registry
                .resolve(n)
                .ok()
                .map(|d| format!("{n} = {}", d.driver()))
        })
        .collect();
    eprintln!(
        "tls-echo: listening on {} ({})",
        listener.local_addr().map_err(|e| e.to_string())?,
        drivers.join(", ")
    );
    for tcp in listener.incoming() {
        let tcp = match tcp {
            Ok(t) => t,
            Err(e) => {
                eprintln!("tls-echo: accept: {e}");
                continue;
            }
        };
        let config = Arc::clone(&config);
        std::thread::spawn(move || {
            let peer = tcp.peer_addr().map(|a| a.to_string()).unwrap_or_default();
            match echo(config, tcp) {
                Ok(n) => eprintln!("tls-echo: {peer}: {n} bytes echoed"),
                Err(e) => eprintln!("tls-echo: {peer}: {e}"),
            }
        });
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tls-echo: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
