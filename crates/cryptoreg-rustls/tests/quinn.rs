//! QUIC through quinn 0.11 over loopback UDP: both ends on this provider, then each end
//! in turn on rustls's ring provider; 64 MiB over four streams, echoed back and checked
//! byte for byte, through a key update forced in the middle
//! (`Connection::force_key_update`), so packet protection, header protection and the key
//! phase change all go through the registry's drivers. (quinn reports no key phase, so
//! that the update happened is quinn's word; that the packets and headers went through
//! the registry, its counters show.)

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use quinn::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use rustls::crypto::CryptoProvider;

use common::{bytes, KeyKind};

/// Bytes per stream, and streams per connection: 64 MiB in all, each way.
const PER_STREAM: usize = 16 << 20;
const STREAMS: usize = 4;
/// The whole exchange's bound: a hang fails the test instead of holding CI.
const DEADLINE: Duration = Duration::from_secs(240);

fn server_endpoint(p: CryptoProvider) -> quinn::Endpoint {
    let tls = rustls::ServerConfig::builder_with_provider(Arc::new(p))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(common::chain(KeyKind::Ecdsa), common::key(KeyKind::Ecdsa))
        .unwrap();
    let crypto = QuicServerConfig::try_from(tls).expect("a QUIC-capable server configuration");
    let config = quinn::ServerConfig::with_crypto(Arc::new(crypto));
    quinn::Endpoint::server(config, "127.0.0.1:0".parse().unwrap()).unwrap()
}

fn client_endpoint(p: CryptoProvider) -> quinn::Endpoint {
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(p))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_root_certificates(common::roots())
        .with_no_client_auth();
    let crypto = QuicClientConfig::try_from(tls).expect("a QUIC-capable client configuration");
    let mut e = quinn::Endpoint::client("127.0.0.1:0".parse().unwrap()).unwrap();
    e.set_default_client_config(quinn::ClientConfig::new(Arc::new(crypto)));
    e
}

/// The server: echoes every stream of the first connection back.
async fn echo(endpoint: quinn::Endpoint) -> Result<(), String> {
    let conn = endpoint
        .accept()
        .await
        .ok_or("no connection")?
        .await
        .map_err(|e| format!("server handshake: {e}"))?;
    let mut tasks = Vec::new();
    for _ in 0..STREAMS {
        let (mut send, mut recv) = conn
            .accept_bi()
            .await
            .map_err(|e| format!("accept_bi: {e}"))?;
        tasks.push(tokio::spawn(async move {
            let data = recv
                .read_to_end(PER_STREAM)
                .await
                .map_err(|e| format!("server read: {e}"))?;
            send.write_all(&data)
                .await
                .map_err(|e| format!("server write: {e}"))?;
            send.finish().map_err(|e| format!("server finish: {e}"))?;
            send.stopped()
                .await
                .map_err(|e| format!("server stopped: {e}"))?;
            Ok::<(), String>(())
        }));
    }
    for t in tasks {
        t.await.map_err(|e| e.to_string())??;
    }
    conn.closed().await;
    Ok(())
}

/// The client: four streams at once, a forced key update once half of them are done.
async fn exchange(endpoint: quinn::Endpoint, server: SocketAddr) -> Result<(), String> {
    let conn = endpoint
        .connect(server, "localhost")
        .map_err(|e| format!("connect: {e}"))?
        .await
        .map_err(|e| format!("client handshake: {e}"))?;
    let mut tasks = Vec::new();
    for i in 0..STREAMS {
        let stream_conn = conn.clone();
        tasks.push(tokio::spawn(async move {
            let conn = stream_conn;
            let data = bytes(1000 + i as u64, PER_STREAM);
            let (mut send, mut recv) = conn.open_bi().await.map_err(|e| format!("open_bi: {e}"))?;
            send.write_all(&data)
                .await
                .map_err(|e| format!("client write: {e}"))?;
            send.finish().map_err(|e| format!("client finish: {e}"))?;
            let back = recv
                .read_to_end(PER_STREAM)
                .await
                .map_err(|e| format!("client read: {e}"))?;
            if back != data {
                return Err(format!(
                    "stream {i}: {} bytes came back, not the {} sent",
                    back.len(),
                    data.len()
                ));
            }
            Ok::<(), String>(())
        }));
        if i == STREAMS / 2 - 1 {
            // Mid-transfer: both ends move to the next key phase.
            tokio::time::sleep(Duration::from_millis(50)).await;
            conn.force_key_update();
        }
    }
    for t in tasks {
        t.await.map_err(|e| e.to_string())??;
    }
    conn.close(0u32.into(), b"done");
    endpoint.wait_idle().await;
    Ok(())
}

fn run(case: &str, client: CryptoProvider, server: CryptoProvider) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let server = server_endpoint(server);
        let addr = server.local_addr().unwrap();
        let serving = tokio::spawn(echo(server));
        let client = client_endpoint(client);
        let done = tokio::time::timeout(DEADLINE, exchange(client, addr)).await;
        match done {
            Err(_) => panic!("{case}: no answer within {DEADLINE:?}"),
            Ok(Err(e)) => panic!("{case}: {e}"),
            Ok(Ok(())) => {}
        }
        match tokio::time::timeout(Duration::from_secs(10), serving).await {
            Ok(Ok(Ok(()))) => {}
            other => panic!("{case}: server: {other:?}"),
        }
    });
}

#[test]
fn quinn_over_loopback_through_a_key_update() {
    let reg = common::registry("");
    let before = reg.stats();
    run(
        "cryptoreg both ends",
        common::ours(&reg),
        common::ours(&reg),
    );
    run(
        "cryptoreg client, ring server",
        common::ours(&reg),
        common::ring(),
    );
    run(
        "ring client, cryptoreg server",
        common::ring(),
        common::ours(&reg),
    );
    // The packets went through the registry (quinn negotiates AES-128-GCM first).
    let driver = reg.resolve("gcm(aes)").unwrap().driver().to_string();
    let bytes_of = |s: &[cryptoreg::DriverStatsReport]| {
        s.iter().find(|d| d.driver == driver).map_or(0, |d| d.bytes)
    };
    let moved = bytes_of(&reg.stats()) - bytes_of(&before);
    assert!(
        moved >= (4 * STREAMS * PER_STREAM) as u64,
        "{driver} protected {moved} bytes of QUIC traffic"
    );
    // And the headers: one 16-byte sample per packet through the registry's `aes`.
    let aes = reg.resolve("aes").unwrap().driver().to_string();
    let aes_of = |s: &[cryptoreg::DriverStatsReport]| {
        s.iter().find(|d| d.driver == aes).map_or(0, |d| d.requests)
    };
    let masks = aes_of(&reg.stats()) - aes_of(&before);
    assert!(
        masks >= (4 * STREAMS * PER_STREAM / 1500) as u64,
        "{aes} made {masks} header protection masks"
    );
}
