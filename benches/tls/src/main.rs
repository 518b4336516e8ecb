//! `cargo xtask tls-bench`: TLS in the manner of rustls's own bulk benchmark — a client
//! and a server connected in memory on one thread — for this provider, rustls's aws-lc-rs
//! provider and its ring provider, interleaved round by round so that clock changes and
//! noisy neighbours hit all three alike; the figure kept is each one's median.
//!
//! * bulk: the client writes `--mib` MiB in 16 KiB application writes (and again in 1 KiB
//!   writes), the server reads them; MB/s of application data, both ends' work counted;
//! * handshakes: full handshakes per second, ECDSA P-256 and RSA-2048 server certificates,
//!   TLS 1.3 AES-128-GCM (the handshake's record protection is the provider's, its
//!   signatures and key exchange are `base`'s: within a few percent of ring by design);
//! * key install: one TLS 1.3 traffic key's encrypter and decrypter made and dropped, per
//!   suite and provider, ns (a full handshake makes two such pairs per side);
//! * raw AEAD: the same run's seal of 16 KiB through a registry handle against aws-lc-rs's
//!   `LessSafeKey`, so the TLS ratio can be read beside the ratio the AEAD alone allows;
//! * raw record seal: ChaCha20-Poly1305 at the lengths around a 1 KiB write's TLS 1.3
//!   record (1024 bytes and the content type: 1025), each copied into a buffer 5 bytes past
//!   a 64-byte boundary (where a record's payload sits after its header) and sealed in
//!   place with the record header as AAD, as rustls's providers do per record; registry
//!   handle against aws-lc-rs, interleaved, nanoseconds per record.
//!
//! Arguments: `--rounds N` (default 15), `--mib N` (default 32), `--handshakes N`
//! (per round, default 200).

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Instant;

use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{
    CipherSuite, ClientConfig, ClientConnection, Connection, RootCertStore, ServerConfig,
    ServerConnection,
};

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../crates/cryptoreg-rustls/tests/data"
);

struct Opts {
    rounds: usize,
    mib: usize,
    handshakes: usize,
}

const USAGE: &str = "usage: cryptoreg-tls-bench [--rounds N] [--mib M] [--handshakes H]";

/// The options, or the usage line with what was wrong (the caller exits 2); `--help`
/// prints the usage and exits 0. Never a panic.
fn opts() -> Result<Opts, String> {
    let mut o = Opts {
        rounds: 15,
        mib: 32,
        handshakes: 200,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let v = args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .filter(|&v: &usize| v > 0);
        match (args[i].as_str(), v) {
            ("--rounds", Some(v)) => o.rounds = v,
            ("--mib", Some(v)) => o.mib = v,
            ("--handshakes", Some(v)) => o.handshakes = v,
            ("--help" | "-h", _) => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            ("--rounds" | "--mib" | "--handshakes", None) => {
                return Err(format!("{} takes a positive number\n{USAGE}", args[i]))
            }
            (a, _) => return Err(format!("unknown argument {a:?}\n{USAGE}")),
        }
        i += 2;
    }
    Ok(o)
}

fn certs(kind: &str) -> (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) {
    let read = |n: &str| std::fs::read(format!("{DATA}/{n}")).expect("test certificate");
    let chain = rustls_pemfile::certs(&mut &read(&format!("{kind}.pem"))[..])
        .collect::<Result<_, _>>()
        .unwrap();
    let key = rustls_pemfile::private_key(&mut &read(&format!("{kind}.key"))[..])
        .unwrap()
        .unwrap();
    (chain, key)
}

fn roots() -> RootCertStore {
    let mut r = RootCertStore::empty();
    let pem = std::fs::read(format!("{DATA}/ca.pem")).unwrap();
    for c in rustls_pemfile::certs(&mut &pem[..]) {
        r.add(c.unwrap()).unwrap();
    }
    r
}

fn only(mut p: CryptoProvider, id: CipherSuite) -> Arc<CryptoProvider> {
    p.cipher_suites.retain(|s| s.suite() == id);
    assert_eq!(p.cipher_suites.len(), 1);
    Arc::new(p)
}

struct Pair {
    client: Arc<ClientConfig>,
    server: Arc<ServerConfig>,
}

fn pair(p: &CryptoProvider, id: CipherSuite, kind: &str) -> Pair {
    let p = only(p.clone(), id);
    let (chain, key) = certs(kind);
    let mut server = ServerConfig::builder_with_provider(Arc::clone(&p))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    server.send_tls13_tickets = 0;
    let mut client = ClientConfig::builder_with_provider(p)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots())
        .with_no_client_auth();
    client.resumption = rustls::client::Resumption::disabled();
    Pair {
        client: Arc::new(client),
        server: Arc::new(server),
    }
}

/// Moves every pending TLS byte from one connection to the other.
fn pump(from: &mut Connection, to: &mut Connection, buf: &mut Vec<u8>) {
    buf.clear();
    while from.wants_write() {
        from.write_tls(buf).unwrap();
    }
    let mut rd = &buf[..];
    while !rd.is_empty() {
        to.read_tls(&mut rd).unwrap();
        to.process_new_packets().unwrap();
    }
}

fn connect(p: &Pair) -> (Connection, Connection) {
    let name = ServerName::try_from("localhost").unwrap();
    let mut c = Connection::Client(ClientConnection::new(Arc::clone(&p.client), name).unwrap());
    let mut s = Connection::Server(ServerConnection::new(Arc::clone(&p.server)).unwrap());
    let mut buf = Vec::new();
    while c.is_handshaking() || s.is_handshaking() {
        pump(&mut c, &mut s, &mut buf);
        pump(&mut s, &mut c, &mut buf);
    }
    pump(&mut s, &mut c, &mut buf);
    (c, s)
}

/// Seconds to move `total` bytes client to server in `write` byte application writes,
/// each delivered and read at once (as a socket pair would).
fn bulk(p: &Pair, total: usize, write: usize) -> f64 {
    let (mut c, mut s) = connect(p);
    let data = vec![0x5au8; write];
    let mut sink = vec![0u8; 65536];
    let mut buf = Vec::with_capacity(1 << 17);
    let t = Instant::now();
    let mut sent = 0;
    while sent < total {
        c.writer().write_all(&data).unwrap();
        sent += write;
        buf.clear();
        while c.wants_write() {
            c.write_tls(&mut buf).unwrap();
        }
        let mut rd = &buf[..];
        while !rd.is_empty() {
            s.read_tls(&mut rd).unwrap();
            s.process_new_packets().unwrap();
            loop {
                match s.reader().read(&mut sink) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) => panic!("{e}"),
                }
            }
        }
    }
    t.elapsed().as_secs_f64()
}

/// Seconds for `n` full handshakes.
fn handshakes(p: &Pair, n: usize) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        let _ = connect(p);
    }
    t.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() -> std::process::ExitCode {
    let o = match opts() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::from(2);
        }
    };
    let reg = cryptoreg::registry().expect("registry");
    let ours = cryptoreg_rustls::provider(Arc::clone(&reg)).expect("provider");
    let providers: [(&str, CryptoProvider); 3] = [
        ("cryptoreg", ours),
        ("aws-lc-rs", rustls::crypto::aws_lc_rs::default_provider()),
        ("ring", rustls::crypto::ring::default_provider()),
    ];
    for name in cryptoreg_rustls::PREPARED {
        println!("# {name}: {}", reg.resolve(name).unwrap().driver());
    }
    let suites = [
        CipherSuite::TLS13_AES_128_GCM_SHA256,
        CipherSuite::TLS13_AES_256_GCM_SHA384,
        CipherSuite::TLS13_CHACHA20_POLY1305_SHA256,
    ];
    let total = o.mib << 20;
    println!("| case | cryptoreg MB/s | aws-lc-rs MB/s | ring MB/s | vs aws-lc-rs | vs best |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for id in suites {
        let pairs: Vec<(&str, Pair)> = providers
            .iter()
            .map(|(n, p)| (*n, pair(p, id, "ecdsa")))
            .collect();
        for write in [16384usize, 1024] {
            let amount = if write == 1024 { total / 4 } else { total };
            let mut times: Vec<Vec<f64>> = vec![Vec::new(); pairs.len()];
            for _ in 0..o.rounds {
                for (i, (_, p)) in pairs.iter().enumerate() {
                    times[i].push(bulk(p, amount, write));
                }
            }
            let mbs: Vec<f64> = times
                .into_iter()
                .map(|t| amount as f64 / median(t) / 1e6)
                .collect();
            let best_peer = mbs[1].max(mbs[2]);
            println!(
                "| {id:?} {} B writes | {:.0} | {:.0} | {:.0} | {:.2}x | {:.2}x |",
                write,
                mbs[0],
                mbs[1],
                mbs[2],
                mbs[0] / mbs[1],
                mbs[0] / best_peer
            );
        }
    }
    println!();
    println!("| handshakes/s | cryptoreg | aws-lc-rs | ring | vs ring |");
    println!("| --- | --- | --- | --- | --- |");
    for kind in ["ecdsa", "rsa"] {
        let id = CipherSuite::TLS13_AES_128_GCM_SHA256;
        let pairs: Vec<Pair> = providers.iter().map(|(_, p)| pair(p, id, kind)).collect();
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); pairs.len()];
        for _ in 0..o.rounds {
            for (i, p) in pairs.iter().enumerate() {
                times[i].push(handshakes(p, o.handshakes));
            }
        }
        let hs: Vec<f64> = times
            .into_iter()
            .map(|t| o.handshakes as f64 / median(t))
            .collect();
        println!(
            "| {kind} full handshakes | {:.0} | {:.0} | {:.0} | {:.3}x |",
            hs[0],
            hs[1],
            hs[2],
            hs[0] / hs[2]
        );
    }
    println!();
    key_install(&providers, o.rounds);
    println!();
    raw_aead(&reg, o.rounds);
    println!();
    raw_record_seal(&reg, o.rounds);
    std::process::ExitCode::SUCCESS
}

/// The same run's cost of installing one TLS 1.3 traffic key (an encrypter and a
/// decrypter from the same key and IV, made and dropped), per suite and provider: a full
/// handshake makes two such pairs per side (handshake and application keys), so four
/// times this is the record layer's share of a handshake. Keys are derived before the
/// timed loop.
fn key_install(providers: &[(&str, CryptoProvider)], rounds: usize) {
    use rustls::crypto::cipher::Iv;
    use rustls::crypto::tls13::OkmBlock;
    use rustls::internal::{derive_traffic_iv, derive_traffic_key};
    use rustls::SupportedCipherSuite;
    println!("| key install (encrypter + decrypter, made and dropped), ns | cryptoreg | aws-lc-rs | ring |");
    println!("| --- | --- | --- | --- |");
    let n = 2000;
    for id in [
        CipherSuite::TLS13_AES_128_GCM_SHA256,
        CipherSuite::TLS13_AES_256_GCM_SHA384,
        CipherSuite::TLS13_CHACHA20_POLY1305_SHA256,
    ] {
        let suites: Vec<&'static rustls::Tls13CipherSuite> = providers
            .iter()
            .map(
                |(_, p)| match p.cipher_suites.iter().find(|s| s.suite() == id) {
                    Some(SupportedCipherSuite::Tls13(s)) => *s,
                    _ => panic!("{id:?} missing"),
                },
            )
            .collect();
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); suites.len()];
        for _ in 0..rounds {
            for (i, s) in suites.iter().enumerate() {
                let expander = s.hkdf_provider.expander_for_okm(&OkmBlock::new(&[7u8; 48]));
                let keys: Vec<_> = (0..2 * n)
                    .map(|_| derive_traffic_key(expander.as_ref(), s.aead_alg))
                    .collect();
                let iv = derive_traffic_iv(expander.as_ref());
                let mut keys = keys.into_iter();
                let t = Instant::now();
                for _ in 0..n {
                    let e = s
                        .aead_alg
                        .encrypter(keys.next().unwrap(), Iv::copy(iv.as_ref()));
                    let d = s
                        .aead_alg
                        .decrypter(keys.next().unwrap(), Iv::copy(iv.as_ref()));
                    std::hint::black_box((e, d));
                }
                times[i].push(t.elapsed().as_secs_f64() / n as f64);
            }
        }
        let ns: Vec<f64> = times.into_iter().map(|t| median(t) * 1e9).collect();
        println!("| {id:?} | {:.0} | {:.0} | {:.0} |", ns[0], ns[1], ns[2]);
    }
}

/// The same run's raw AEAD seal of 16 KiB: registry handle against aws-lc-rs.
fn raw_aead(reg: &Arc<cryptoreg::Registry>, rounds: usize) {
    use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey};
    println!("| raw seal, 16 KiB | cryptoreg MB/s | aws-lc-rs MB/s | ratio |");
    println!("| --- | --- | --- | --- |");
    let cases: [(&str, &str, usize, &'static aws_lc_rs::aead::Algorithm); 3] = [
        ("AES-128-GCM", "gcm(aes)", 16, &aws_lc_rs::aead::AES_128_GCM),
        ("AES-256-GCM", "gcm(aes)", 32, &aws_lc_rs::aead::AES_256_GCM),
        (
            "ChaCha20-Poly1305",
            "rfc7539(chacha20,poly1305)",
            32,
            &aws_lc_rs::aead::CHACHA20_POLY1305,
        ),
    ];
    let n = 2000;
    for (label, alg, klen, aws_alg) in cases {
        let key = vec![7u8; klen];
        let mut h = reg.alloc_aead(alg).unwrap();
        h.set_key(&key).unwrap();
        let aws = LessSafeKey::new(UnboundKey::new(aws_alg, &key).unwrap());
        let mut buf = vec![0u8; 16384];
        let mut tag = [0u8; 16];
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let t = Instant::now();
            for i in 0..n {
                let mut nonce = [0u8; 12];
                nonce[..8].copy_from_slice(&(i as u64).to_le_bytes());
                h.seal(&nonce, &[0u8; 13], &mut buf, &mut tag).unwrap();
            }
            a.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            for i in 0..n {
                let mut nonce = [0u8; 12];
                nonce[..8].copy_from_slice(&(i as u64).to_le_bytes());
                let _ = aws
                    .seal_in_place_separate_tag(
                        Nonce::assume_unique_for_key(nonce),
                        Aad::from([0u8; 13]),
                        &mut buf,
                    )
                    .unwrap();
            }
            b.push(t.elapsed().as_secs_f64());
        }
        let bytes = (n * 16384) as f64;
        let (x, y) = (bytes / median(a) / 1e6, bytes / median(b) / 1e6);
        println!("| {label} | {x:.0} | {y:.0} | {:.2}x |", x / y);
    }
}

/// ChaCha20-Poly1305 record seals around the 1 KiB write's record length (see the module
/// doc): the copy into the record buffer, then the seal in place, per record.
fn raw_record_seal(reg: &Arc<cryptoreg::Registry>, rounds: usize) {
    use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey, CHACHA20_POLY1305};
    println!("| raw record seal, ChaCha20-Poly1305 | cryptoreg ns | aws-lc-rs ns | ratio |");
    println!("| --- | --- | --- | --- |");
    let key = [7u8; 32];
    let mut h = reg.alloc_aead("rfc7539(chacha20,poly1305)").unwrap();
    h.set_key(&key).unwrap();
    let aws = LessSafeKey::new(UnboundKey::new(&CHACHA20_POLY1305, &key).unwrap());
    let plain = vec![0x5au8; 2048];
    // 5 bytes past a 64-byte boundary of the store, whatever the allocator returned.
    let mut store = vec![0u8; 4096];
    let at = 5 + (64 - store.as_ptr() as usize % 64) % 64;
    let n = 5000;
    for len in [960usize, 1008, 1024, 1025, 1040, 1088, 1420] {
        let header = [23u8, 3, 3, ((len + 16) >> 8) as u8, (len + 16) as u8];
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let t = Instant::now();
            for i in 0..n {
                let (buf, nonce) = record(&mut store[at..], &plain[..len], i);
                let mut tag = [0u8; 16];
                h.seal(&nonce, &header, buf, &mut tag).unwrap();
                std::hint::black_box(&tag);
            }
            a.push(t.elapsed().as_secs_f64() / n as f64);
            let t = Instant::now();
            for i in 0..n {
                let (buf, nonce) = record(&mut store[at..], &plain[..len], i);
                let tag = aws
                    .seal_in_place_separate_tag(
                        Nonce::assume_unique_for_key(nonce),
                        Aad::from(header),
                        buf,
                    )
                    .unwrap();
                std::hint::black_box(&tag);
            }
            b.push(t.elapsed().as_secs_f64() / n as f64);
        }
        let (ours, theirs) = (median(a), median(b));
        println!(
            "| {len} bytes | {:.0} | {:.0} | {:.2}x |",
            ours * 1e9,
            theirs * 1e9,
            theirs / ours
        );
    }
}

/// Record `i` of [`raw_record_seal`]: its plaintext copied into the start of `store`, and
/// its nonce.
fn record<'a>(store: &'a mut [u8], plain: &[u8], i: usize) -> (&'a mut [u8], [u8; 12]) {
    let buf = &mut store[..plain.len()];
    buf.copy_from_slice(std::hint::black_box(plain));
    let mut nonce = [0u8; 12];
    nonce[4..].copy_from_slice(&(i as u64).to_le_bytes());
    (buf, nonce)
}
