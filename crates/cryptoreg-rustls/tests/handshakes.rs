//! rustls against rustls, in memory: this provider on one side and rustls's ring provider
//! on the other (both ways), and on both sides; every suite, ECDSA P-256 and RSA-2048
//! certificates, data both ways with a check of every byte, a TLS 1.3 key update from
//! each side, session resumption, and an operator's change reaching a live connection
//! at its next record.

mod common;

use std::io::{Read, Write};
use std::sync::Arc;

use cryptoreg::Registry;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::ServerName;
use rustls::{
    CipherSuite, ClientConfig, ClientConnection, Connection, HandshakeKind, ServerConfig,
    ServerConnection, SupportedCipherSuite, SupportedProtocolVersion,
};

use common::{bytes, KeyKind};

/// `p` offering only the suite `id`.
fn only(mut p: CryptoProvider, id: CipherSuite) -> CryptoProvider {
    p.cipher_suites.retain(|s| s.suite() == id);
    assert_eq!(p.cipher_suites.len(), 1, "{id:?} offered");
    p
}

fn version_of(s: &SupportedCipherSuite) -> &'static SupportedProtocolVersion {
    match s {
        SupportedCipherSuite::Tls13(_) => &rustls::version::TLS13,
        #[cfg(feature = "tls12")]
        SupportedCipherSuite::Tls12(_) => &rustls::version::TLS12,
    }
}

fn server_config(p: CryptoProvider, kind: KeyKind) -> Arc<ServerConfig> {
    let v = version_of(&p.cipher_suites[0]);
    let mut c = ServerConfig::builder_with_provider(Arc::new(p))
        .with_protocol_versions(&[v])
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(common::chain(kind), common::key(kind))
        .unwrap();
    c.send_tls13_tickets = 2;
    Arc::new(c)
}

fn client_config(p: CryptoProvider) -> Arc<ClientConfig> {
    let v = version_of(&p.cipher_suites[0]);
    Arc::new(
        ClientConfig::builder_with_provider(Arc::new(p))
            .with_protocol_versions(&[v])
            .unwrap()
            .with_root_certificates(common::roots())
            .with_no_client_auth(),
    )
}

/// Moves every pending TLS byte from `from` to `to` and processes it there.
fn pump(from: &mut Connection, to: &mut Connection) -> Result<usize, rustls::Error> {
    let mut buf = Vec::new();
    while from.wants_write() {
        from.write_tls(&mut buf).unwrap();
    }
    let n = buf.len();
    let mut rd = &buf[..];
    while !rd.is_empty() {
        to.read_tls(&mut rd).unwrap();
        to.process_new_packets()?;
    }
    Ok(n)
}

fn handshake(client: &mut Connection, server: &mut Connection) {
    for _ in 0..20 {
        if !client.is_handshaking() && !server.is_handshaking() {
            // Deliver what is left (tickets).
            pump(server, client).unwrap();
            pump(client, server).unwrap();
            return;
        }
        pump(client, server).unwrap();
        pump(server, client).unwrap();
    }
    panic!("handshake did not finish");
}

/// Sends `data` from `a` to `b` in 16 KiB writes and checks every byte on arrival.
fn send(a: &mut Connection, b: &mut Connection, data: &[u8]) {
    let mut got = Vec::with_capacity(data.len());
    for chunk in data.chunks(16384) {
        a.writer().write_all(chunk).unwrap();
        pump(a, b).unwrap();
        let mut buf = vec![0u8; 65536];
        loop {
            match b.reader().read(&mut buf) {
                Ok(0) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => panic!("read: {e}"),
            }
        }
    }
    assert!(
        got == data,
        "{} bytes sent, {} arrived or differ",
        data.len(),
        got.len()
    );
}

/// One connection; returns how it was established.
fn connect(
    client_cfg: &Arc<ClientConfig>,
    server_cfg: &Arc<ServerConfig>,
    data_len: usize,
    key_updates: bool,
) -> (HandshakeKind, CipherSuite) {
    let name = ServerName::try_from("localhost").unwrap();
    let mut client =
        Connection::Client(ClientConnection::new(Arc::clone(client_cfg), name).unwrap());
    let mut server = Connection::Server(ServerConnection::new(Arc::clone(server_cfg)).unwrap());
    handshake(&mut client, &mut server);
    let suite = client.negotiated_cipher_suite().unwrap().suite();
    assert_eq!(server.negotiated_cipher_suite().unwrap().suite(), suite);
    let a = bytes(u16::from(suite).into(), data_len);
    let b = bytes(u64::from(u16::from(suite)) + 1, data_len);
    send(&mut client, &mut server, &a[..data_len / 2]);
    send(&mut server, &mut client, &b[..data_len / 2]);
    let tls13 = matches!(
        client.protocol_version(),
        Some(rustls::ProtocolVersion::TLSv1_3)
    );
    if key_updates && tls13 {
        client.refresh_traffic_keys().unwrap();
        send(&mut client, &mut server, &a[data_len / 2..]);
        server.refresh_traffic_keys().unwrap();
        send(&mut server, &mut client, &b[data_len / 2..]);
    } else {
        send(&mut client, &mut server, &a[data_len / 2..]);
        send(&mut server, &mut client, &b[data_len / 2..]);
    }
    let kind = client.handshake_kind().unwrap();
    (kind, suite)
}

fn all_suites(p: &CryptoProvider) -> Vec<CipherSuite> {
    p.cipher_suites.iter().map(|s| s.suite()).collect()
}

/// The key kinds a suite can run with.
fn kinds(id: CipherSuite) -> Vec<KeyKind> {
    let name = format!("{id:?}");
    if name.contains("ECDSA") {
        vec![KeyKind::Ecdsa]
    } else if name.contains("RSA") {
        vec![KeyKind::Rsa]
    } else {
        vec![KeyKind::Ecdsa, KeyKind::Rsa]
    }
}

fn provider_pairs(reg: &Arc<Registry>) -> [(&'static str, CryptoProvider, CryptoProvider); 3] {
    [
        (
            "cryptoreg client, ring server",
            common::ours(reg),
            common::ring(),
        ),
        (
            "ring client, cryptoreg server",
            common::ring(),
            common::ours(reg),
        ),
        ("cryptoreg both", common::ours(reg), common::ours(reg)),
    ]
}

#[test]
fn every_suite_both_ways_with_key_updates_and_resumption() {
    let reg = common::registry("");
    let suites = all_suites(&common::ours(&reg));
    let expected = if cfg!(feature = "tls12") { 9 } else { 3 };
    assert_eq!(suites.len(), expected, "{suites:?}");
    let before = reg.stats();
    for (what, client_p, server_p) in provider_pairs(&reg) {
        for &id in &suites {
            for kind in kinds(id) {
                let case = format!("{id:?}, {kind:?} certificate, {what}");
                let client_cfg = client_config(only(client_p.clone(), id));
                let server_cfg = server_config(only(server_p.clone(), id), kind);
                let (first, suite) = connect(&client_cfg, &server_cfg, 256 * 1024, true);
                assert_eq!(suite, id, "{case}");
                assert_eq!(first, HandshakeKind::Full, "{case}");
                let (second, _) = connect(&client_cfg, &server_cfg, 4096, false);
                assert_eq!(
                    second,
                    HandshakeKind::Resumed,
                    "{case}: second connection resumes"
                );
            }
        }
    }
    // The traffic went through the registry's chosen drivers.
    let after = reg.stats();
    for alg in ["gcm(aes)", "rfc7539(chacha20,poly1305)"] {
        let driver = reg.resolve(alg).unwrap().driver().to_string();
        let count = |s: &[cryptoreg::DriverStatsReport]| {
            s.iter().find(|d| d.driver == driver).map_or(0, |d| d.bytes)
        };
        assert!(
            count(&after) > count(&before) + 3 * 256 * 1024,
            "{alg}: {driver} counted {} bytes of TLS traffic",
            count(&after) - count(&before)
        );
    }
}

/// An operator's change reaches a live connection at its next record: the same
/// connection's records move to the newly chosen driver, and nothing breaks.
#[test]
fn an_operator_change_moves_a_live_connection() {
    let reg = common::registry("");
    // The server on a registry of its own: the client's operator changes reach only the
    // client, and the server checks what the client sends with drivers that still work.
    let server_reg = common::registry("");
    let id = CipherSuite::TLS13_AES_128_GCM_SHA256;
    let client_cfg = client_config(only(common::ours(&reg), id));
    let server_cfg = server_config(only(common::ours(&server_reg), id), KeyKind::Ecdsa);
    let name = ServerName::try_from("localhost").unwrap();
    let mut client = Connection::Client(ClientConnection::new(client_cfg, name).unwrap());
    let mut server = Connection::Server(ServerConnection::new(server_cfg).unwrap());
    handshake(&mut client, &mut server);
    send(&mut client, &mut server, &bytes(1, 65536));
    let first = reg.resolve("gcm(aes)").unwrap().driver().to_string();
    let bytes_of = |driver: &str| {
        reg.stats()
            .into_iter()
            .find(|d| d.driver == driver)
            .map_or(0, |d| d.bytes)
    };
    reg.disable(&first).unwrap();
    // On the generic rung (`sse2` masked) one driver serves gcm(aes): nothing to move to,
    // and disabling it is the last part below. Every other rung has a second.
    match reg.resolve("gcm(aes)") {
        Ok(info) => {
            let second = info.driver().to_string();
            assert_ne!(first, second);
            let (first_before, second_before) = (bytes_of(&first), bytes_of(&second));
            send(&mut client, &mut server, &bytes(2, 65536));
            send(&mut server, &mut client, &bytes(3, 65536));
            assert_eq!(
                bytes_of(&first),
                first_before,
                "{first} is disabled: no more records on it"
            );
            assert!(
                bytes_of(&second) >= second_before + 2 * 65536,
                "the live connection's records moved to {second}"
            );
        }
        Err(e) => {
            assert!(
                common::mask().iter().any(|m| m == "sse2"),
                "only the generic rung has a single gcm(aes) driver: {e}"
            );
            eprintln!("{first} was the only gcm(aes) driver on this rung: no move to check");
        }
    }
    // With every gcm(aes) driver disabled, the next record is protected by none of them:
    // it leaves without its plaintext, the peer's tag check fails (bad_record_mac) and
    // the connection ends.
    let mut disabled = vec![first];
    while let Ok(info) = reg.resolve("gcm(aes)") {
        let d = info.driver().to_string();
        reg.disable(&d).unwrap();
        disabled.push(d);
        assert!(disabled.len() < 64, "disabling gcm(aes) drivers ends");
    }
    let counts_before: Vec<u64> = disabled.iter().map(|d| bytes_of(d)).collect();
    let secret = b"this plaintext has no usable driver";
    client.writer().write_all(secret).unwrap();
    let mut wire = Vec::new();
    while client.wants_write() {
        client.write_tls(&mut wire).unwrap();
    }
    assert!(!wire.is_empty(), "the record left");
    assert!(
        !wire.windows(secret.len()).any(|w| w == secret),
        "no plaintext on the wire"
    );
    let counts_after: Vec<u64> = disabled.iter().map(|d| bytes_of(d)).collect();
    assert_eq!(
        counts_before, counts_after,
        "no disabled driver sealed the record: {disabled:?}"
    );
    let mut rd = &wire[..];
    server.read_tls(&mut rd).unwrap();
    let err = server
        .process_new_packets()
        .expect_err("the peer refuses the record");
    assert_eq!(
        err,
        rustls::Error::DecryptError,
        "the peer's tag check failed"
    );
    let mut got = Vec::new();
    let _ = server.reader().read_to_end(&mut got);
    assert!(got.is_empty(), "nothing delivered");
    // The peer says so: a bad_record_mac alert.
    let mut alert = Vec::new();
    while server.wants_write() {
        server.write_tls(&mut alert).unwrap();
    }
    assert!(!alert.is_empty(), "the peer sent its alert");
}

/// A suite whose algorithm no usable driver serves is not offered.
#[test]
fn a_suite_without_a_driver_is_not_offered() {
    let reg0 = common::registry("");
    // Disabling every ChaCha20 driver leaves the rfc7539 template nothing to build on.
    let chacha20: Vec<String> = reg0
        .list()
        .into_iter()
        .filter(|e| (e.name == "chacha20" || e.name == "rfc7539(chacha20,poly1305)") && !e.instance)
        .map(|e| format!("{:?}", e.driver))
        .collect();
    let reg = common::registry(&format!("[disable]\ndrivers = [{}]\n", chacha20.join(", ")));
    assert!(reg.resolve("rfc7539(chacha20,poly1305)").is_err());
    let p = common::ours(&reg);
    let suites = all_suites(&p);
    assert!(
        suites
            .iter()
            .all(|s| !format!("{s:?}").contains("CHACHA20")),
        "{suites:?}"
    );
    assert!(
        suites.contains(&CipherSuite::TLS13_AES_128_GCM_SHA256),
        "{suites:?}"
    );
}

/// The run is on the rung its mask names (see `common::mask`): with `sse2` masked every
/// record and header protection driver is portable, with `avx512f` none uses zmm.
#[test]
fn the_run_is_on_the_rung_its_mask_names() {
    let reg = common::registry("");
    let mask = common::mask();
    for name in cryptoreg_rustls::PREPARED {
        let info = reg.resolve(name).unwrap();
        eprintln!("{name}: {} (mask {mask:?})", info.driver());
        if mask.iter().any(|m| m == "sse2") {
            assert!(
                info.requires().is_empty(),
                "{name}: {} needs {}",
                info.driver(),
                info.requires()
            );
        }
        if mask.iter().any(|m| m == "avx512f") {
            assert!(!info.uses_zmm(), "{name}: {} uses zmm", info.driver());
        }
    }
}
