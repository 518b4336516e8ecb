//! This provider against OpenSSL 3's command-line tools over loopback TCP: a rustls
//! client against `openssl s_server` and a rustls server against `openssl s_client`, in
//! every suite the provider offers (ECDSA suites with the ECDSA P-256 certificate, RSA
//! suites with the RSA-2048 one, TLS 1.3 suites with both), OpenSSL restricted to the
//! same suite (`-tls1_3 -ciphersuites` or `-tls1_2 -cipher`). An implementation tested
//! only against itself and rustls's own providers can share a misreading of the RFCs
//! with them; OpenSSL is an independent one.
//!
//! What each case checks:
//!
//! * the suite and version rustls negotiated;
//! * 16 MiB each way, compared byte for byte as it arrives (a missing, extra or altered
//!   byte fails the case and names its offset); the file takes about 15 s on a 2-core
//!   machine in the test profile, under 30 s on the slowest rung (`sse2` masked: the
//!   generic drivers);
//! * in TLS 1.3, a `KeyUpdate` from rustls (`refresh_traffic_keys`, which asks for one
//!   back) halfway through each direction: OpenSSL decrypts rustls's second half under
//!   the new keys, rustls OpenSSL's second half under OpenSSL's answer, and OpenSSL's log
//!   shows both requests received and both answered;
//! * a `KeyUpdate` from OpenSSL halfway through OpenSSL's direction (the `K` command,
//!   which asks for one back), in every TLS 1.3 suite with each tool, 1 MiB from
//!   OpenSSL: rustls decrypts the rest under OpenSSL's new keys, and OpenSSL's log shows
//!   rustls's answer;
//! * a record altered in transit (a relay in the test flips one byte in the middle of
//!   the first application-data record after the first 64 KiB have arrived) ends the
//!   connection with `bad_record_mac` on the receiving side, and nothing of the altered
//!   record or after it is delivered: rustls receiving in one TLS 1.3 and one TLS 1.2
//!   case (it fails with `DecryptError`, OpenSSL logs rustls's alert), OpenSSL receiving
//!   in one of each (its stdout stops at exactly 64 KiB, rustls receives its alert);
//! * a clean close: `close_notify` both ways, and the tool exits successfully.
//!
//! ## How the harness drives the tools
//!
//! Each tool runs as a child with its stdin, stdout and stderr piped to threads of the
//! test. With `-quiet`, `s_server` and `s_client` copy stdin to the connection and the
//! connection to stdout and nothing else, so stdout is exactly what rustls sent (a
//! thread compares it as it arrives) and what the test writes to stdin is exactly what
//! rustls must receive. `-quiet` also turns off the interactive command letters and
//! ignores end of input, and stdin stays open until the tool has exited anyway, so the
//! tools end only through the connection (`close_notify`, an alert). The payload is
//! drawn from an alphabet without newlines and without any letter either tool reads as
//! a command (`Q q R r K k c P S B`): both tools test only the first byte of each read
//! of stdin, and where a read begins is up to the pipe.
//!
//! OpenSSL's side of a `KeyUpdate` needs those commands, so those cases run without
//! `-quiet`: the tool's stdout then mixes its reports with rustls's data and is not
//! compared (OpenSSL's direction is, at rustls). The test writes half the data, waits
//! until rustls has all of it (so the tool has read everything before the command),
//! writes `K\n` alone, waits until the tool's log shows the `KeyUpdate` it sent (so the
//! command was read on its own: a read holding the command and data drops the data),
//! then writes the rest.
//!
//! In the `-quiet` TLS 1.3 cases the test gives the tool the second half of its data
//! only once the tool's log shows rustls's second `KeyUpdate`: OpenSSL answers a request
//! before its next application data and not before (RFC 8446 allows the wait), so
//! without it the answer could be due after OpenSSL's last record and never come.
//!
//! `-msg -msgfile /dev/stderr` puts OpenSSL's protocol log on stderr, whatever the
//! mode, one line per message and flushed per message: the test waits on it (the
//! `KeyUpdate` above), counts `KeyUpdate`s and reads alerts from it. `s_server -quiet`
//! prints nothing at all, its `ACCEPT` line included, so the test picks a free port
//! (bind to port 0, read it, release it), starts `s_server -naccept 1` on it, and
//! connects until the port stops refusing (every 5 ms, for at most 10 s; a tool that
//! exits first fails the case with its log, and one that lost the port to another
//! process is started again on another). Within the process one case at a time is
//! between picking its port and connecting, so two cases running side by side are never
//! handed the same port, and a connection that the kernel made to itself (a local
//! connect can pick the unbound port it connects to as its own) is dropped. `s_client` connects to a listener the test
//! holds (accepted within 10 s). Every other wait (data, a log line, a tool's exit) is
//! bounded ([`STEP`]): a hang fails the case with a message naming the suite, the
//! direction and the peer instead of stalling CI.
//!
//! ## Not covered
//!
//! * Stdout is not compared in the cases where OpenSSL sends the `KeyUpdate` (see
//!   above); rustls's direction with its own key updates is covered by the `-quiet`
//!   cases.
//! * Resumption, client certificates, HelloRetryRequest and ALPN against OpenSSL (the
//!   record layer is what this provider replaces; `handshakes.rs` covers resumption
//!   against rustls).
//! * OpenSSL's `KeyUpdate` without a request back (`k`): the `K` cases cover OpenSSL
//!   sending one, and rustls's own requests cover OpenSSL answering without a request.
//!
//! `openssl` (3.x) must be on PATH: without it every test here fails, saying so, rather
//! than passing or skipping, because CI installs it and a green run must mean the
//! interop was checked.

mod common;

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::process::{Child, ChildStderr, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use rustls::crypto::CryptoProvider;
use rustls::pki_types::ServerName;
use rustls::{
    AlertDescription, CipherSuite, ClientConfig, ClientConnection, Connection, ServerConfig,
    ServerConnection, SupportedCipherSuite, SupportedProtocolVersion,
};

use common::KeyKind;

/// The longest any one step may take (a read, a transfer's next progress, a log line, a
/// tool's exit) before its case fails.
const STEP: Duration = Duration::from_secs(30);

/// How long a tool may take to start listening or to connect.
const START: Duration = Duration::from_secs(10);

/// Each way, in each `-quiet` case.
const LEN: usize = 16 << 20;

/// The largest plaintext of one record: what rustls is given at a time.
const RECORD: usize = 16384;

/// The payload's bytes: no newline, and no letter `s_server` or `s_client` reads as a
/// command at the start of a read of stdin (`Q`/`q` quit, `R`/`r` renegotiate, `K`/`k`
/// key update, `c` post-handshake authentication, `P` plaintext on the wire, `S` stats,
/// `B` heartbeat in older releases).
const ALPHABET: &[u8; 64] = b"0123456789abdefghijlmnopstuvwxyzACDEFGHIJLMNOTUVWXYZ+-_.,:;=/@%#";

/// Bytes the tools pass through untouched (see [`ALPHABET`]).
fn payload(seed: u64, len: usize) -> Vec<u8> {
    common::bytes(seed, len)
        .into_iter()
        .map(|b| ALPHABET[usize::from(b & 63)])
        .collect()
}

/// A suite of the provider and OpenSSL's name for it.
#[derive(Clone, Copy, Debug)]
struct Suite {
    id: CipherSuite,
    openssl: &'static str,
}

/// Every suite the provider offers (with the `tls12` feature), in its order.
const SUITES: [Suite; 9] = [
    Suite {
        id: CipherSuite::TLS13_AES_128_GCM_SHA256,
        openssl: "TLS_AES_128_GCM_SHA256",
    },
    Suite {
        id: CipherSuite::TLS13_AES_256_GCM_SHA384,
        openssl: "TLS_AES_256_GCM_SHA384",
    },
    Suite {
        id: CipherSuite::TLS13_CHACHA20_POLY1305_SHA256,
        openssl: "TLS_CHACHA20_POLY1305_SHA256",
    },
    Suite {
        id: CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        openssl: "ECDHE-ECDSA-AES128-GCM-SHA256",
    },
    Suite {
        id: CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        openssl: "ECDHE-ECDSA-AES256-GCM-SHA384",
    },
    Suite {
        id: CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        openssl: "ECDHE-ECDSA-CHACHA20-POLY1305",
    },
    Suite {
        id: CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        openssl: "ECDHE-RSA-AES128-GCM-SHA256",
    },
    Suite {
        id: CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        openssl: "ECDHE-RSA-AES256-GCM-SHA384",
    },
    Suite {
        id: CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        openssl: "ECDHE-RSA-CHACHA20-POLY1305",
    },
];

impl Suite {
    fn of(id: CipherSuite) -> Suite {
        *SUITES
            .iter()
            .find(|s| s.id == id)
            .unwrap_or_else(|| panic!("{id:?} is in the table"))
    }

    fn tls13(self) -> bool {
        self.openssl.starts_with("TLS_")
    }

    /// The certificates the suite runs with.
    fn kinds(self) -> &'static [KeyKind] {
        let name = format!("{:?}", self.id);
        if name.contains("ECDSA") {
            &[KeyKind::Ecdsa]
        } else if name.contains("RSA") {
            &[KeyKind::Rsa]
        } else {
            &[KeyKind::Ecdsa, KeyKind::Rsa]
        }
    }

    /// OpenSSL's options for this suite and nothing else.
    fn openssl_args(self) -> [&'static str; 3] {
        if self.tls13() {
            ["-tls1_3", "-ciphersuites", self.openssl]
        } else {
            ["-tls1_2", "-cipher", self.openssl]
        }
    }
}

/// The suites `base` offers, checked against [`SUITES`] so that a
/// suite added to the provider cannot go untested here.
fn offered(base: &CryptoProvider) -> Vec<Suite> {
    let ids: Vec<CipherSuite> = base.cipher_suites.iter().map(|s| s.suite()).collect();
    let expected: Vec<CipherSuite> = SUITES
        .iter()
        .filter(|s| s.tls13() || cfg!(feature = "tls12"))
        .map(|s| s.id)
        .collect();
    // The provider's order is its base's preference, not the table's.
    let sorted = |v: &[CipherSuite]| {
        let mut v: Vec<u16> = v.iter().map(|&id| u16::from(id)).collect();
        v.sort_unstable();
        v
    };
    assert_eq!(
        sorted(&ids),
        sorted(&expected),
        "the provider offers the suites of the table: {ids:?}"
    );
    ids.into_iter().map(Suite::of).collect()
}

/// Which side rustls is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// A rustls client against `openssl s_server`.
    Client,
    /// A rustls server against `openssl s_client`.
    Server,
}

impl Role {
    fn us(self) -> &'static str {
        match self {
            Role::Client => "rustls client",
            Role::Server => "rustls server",
        }
    }

    fn peer(self) -> &'static str {
        match self {
            Role::Client => "openssl s_server",
            Role::Server => "openssl s_client",
        }
    }
}

/// One connection's parameters, and the words its failures are reported in.
#[derive(Clone, Copy, Debug)]
struct Case {
    suite: Suite,
    kind: KeyKind,
    role: Role,
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} (OpenSSL {}), {:?} certificate, {} against {}",
            self.suite.id,
            self.suite.openssl,
            self.kind,
            self.role.us(),
            self.role.peer()
        )
    }
}

impl Case {
    /// The direction rustls sends in, for messages.
    fn outbound(&self) -> String {
        format!("{self}, {} -> {}", self.role.us(), self.role.peer())
    }

    /// The direction OpenSSL sends in, for messages.
    fn inbound(&self) -> String {
        format!("{self}, {} -> {}", self.role.peer(), self.role.us())
    }

    /// A seed for this case's payloads, different per suite, certificate and role.
    fn seed(&self) -> u64 {
        u64::from(u16::from(self.suite.id)) << 8
            | (self.kind as u64) << 4
            | (self.role == Role::Server) as u64
    }
}

/// Fails, saying why, unless OpenSSL 3's command-line tool is on PATH.
fn require_openssl() {
    let out = Command::new("openssl")
        .arg("version")
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "`openssl` could not be run ({e}): these interop tests need OpenSSL 3's \
                 command-line tool on PATH (CI installs it); they fail rather than skip"
            )
        });
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && version.starts_with("OpenSSL 3."),
        "these interop tests need OpenSSL 3's command-line tool; `openssl version` said \
         {version:?} ({})",
        out.status
    );
}

// ---------------------------------------------------------------------------------------
// The tool's side: a child process, its stdin, its stdout compared, its log.

/// What a tool's stderr said: OpenSSL's errors and its protocol log (`-msg`), without
/// the hex dumps and the per-record lines.
#[derive(Default)]
struct Log {
    state: Mutex<LogState>,
    changed: Condvar,
}

#[derive(Default)]
struct LogState {
    lines: Vec<String>,
    eof: bool,
}

impl Log {
    /// Reads `stderr` to its end.
    fn collect(self: Arc<Self>, stderr: ChildStderr) {
        for line in BufReader::new(stderr).split(b'\n') {
            let Ok(line) = line else { break };
            let line = String::from_utf8_lossy(&line).into_owned();
            // A protocol message's hex dump, and the two lines every record adds: noise.
            if line.starts_with(' ')
                || line.contains("RecordHeader")
                || line.contains("InnerContent")
            {
                continue;
            }
            self.state.lock().expect("log lock").lines.push(line);
            self.changed.notify_all();
        }
        self.state.lock().expect("log lock").eof = true;
        self.changed.notify_all();
    }

    /// Waits until `done` holds for the lines (true) or `timeout` passes or stderr ends
    /// without it (false).
    fn wait(&self, timeout: Duration, done: impl Fn(&[String]) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.state.lock().expect("log lock");
        loop {
            if done(&state.lines) {
                return true;
            }
            let now = Instant::now();
            if state.eof || now >= deadline {
                return false;
            }
            state = self
                .changed
                .wait_timeout(state, deadline - now)
                .expect("log lock")
                .0;
        }
    }

    /// Waits until stderr ends (the tool exited), at most `timeout`.
    fn wait_eof(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.state.lock().expect("log lock");
        while !state.eof {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            state = self
                .changed
                .wait_timeout(state, deadline - now)
                .expect("log lock")
                .0;
        }
        true
    }

    fn count(&self, pred: impl Fn(&str) -> bool) -> usize {
        let state = self.state.lock().expect("log lock");
        state.lines.iter().filter(|l| pred(l)).count()
    }

    /// The last lines, for a failure's message.
    fn tail(&self) -> String {
        let state = self.state.lock().expect("log lock");
        let from = state.lines.len().saturating_sub(40);
        let mut s = String::from("--- OpenSSL's stderr (last lines) ---\n");
        for l in &state.lines[from..] {
            s.push_str(l);
            s.push('\n');
        }
        s
    }
}

/// A `KeyUpdate` OpenSSL sent (`>>>`) or received (`<<<`), as `-msg` logs it.
fn key_update(dir: &'static str) -> impl Fn(&str) -> bool {
    move |l: &str| l.starts_with(dir) && l.contains("KeyUpdate")
}

/// A fatal `bad_record_mac` alert OpenSSL sent (`>>>`) or received (`<<<`).
fn bad_record_mac(dir: &'static str) -> impl Fn(&str) -> bool {
    move |l: &str| l.starts_with(dir) && l.contains("Alert") && l.contains("bad_record_mac")
}

/// How much of what rustls sent a tool's stdout delivered.
#[derive(Debug)]
struct Delivered {
    len: usize,
    /// The offset of the first byte that differs from what was sent, or that was not
    /// sent at all.
    first_difference: Option<usize>,
}

/// Reads a tool's stdout to its end, comparing it with `expected` as it arrives
/// (`None`: stdout is not rustls's data and is only drained), and reports the length so
/// far after each read.
fn compare_stdout(
    mut stdout: ChildStdout,
    expected: Option<Arc<Vec<u8>>>,
    progress: mpsc::Sender<usize>,
) -> Delivered {
    let mut buf = vec![0u8; 1 << 16];
    let mut d = Delivered {
        len: 0,
        first_difference: None,
    };
    loop {
        let n = match stdout.read(&mut buf) {
            Ok(0) | Err(_) => return d,
            Ok(n) => n,
        };
        if let (Some(want), None) = (&expected, d.first_difference) {
            let sent = want.get(d.len..).unwrap_or_default();
            let same = buf[..n]
                .iter()
                .zip(sent)
                .take_while(|(a, b)| a == b)
                .count();
            if same < n {
                d.first_difference = Some(d.len + same);
            }
        }
        d.len += n;
        let _ = progress.send(d.len);
    }
}

/// The modes the tools run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `-quiet`: stdout and stdin are the connection's data and nothing else.
    Quiet,
    /// Interactive: the command letters work, stdout carries the tool's reports.
    Commands,
}

/// An `openssl s_server` or `s_client` child, killed if the case ends early.
struct Tool {
    name: &'static str,
    child: Child,
    stdin: Option<mpsc::Sender<Vec<u8>>>,
    feeder: Option<JoinHandle<io::Result<()>>>,
    stdout: Option<JoinHandle<Delivered>>,
    progress: mpsc::Receiver<usize>,
    delivered: usize,
    log: Arc<Log>,
}

/// How a tool ended.
struct Finished {
    status: ExitStatus,
    delivered: Delivered,
}

impl Tool {
    /// Starts `openssl <args>`, its stdout compared with `expected` (see
    /// [`compare_stdout`]).
    fn spawn(name: &'static str, args: &[String], expected: Option<Arc<Vec<u8>>>) -> Tool {
        let mut child = Command::new("openssl")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "`openssl {}` could not be started ({e}): these interop tests need \
                     OpenSSL 3's command-line tool on PATH",
                    args.join(" ")
                )
            });
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        // Stdin is written by a thread: a write blocks while the tool waits for rustls
        // to read, and rustls reads on the test's thread.
        let (feed, feed_rx) = mpsc::channel::<Vec<u8>>();
        let feeder = thread::spawn(move || {
            for bytes in feed_rx {
                stdin.write_all(&bytes)?;
            }
            Ok(())
        });
        let (progress_tx, progress) = mpsc::channel();
        let stdout = thread::spawn(move || compare_stdout(stdout, expected, progress_tx));
        let log = Arc::new(Log::default());
        let collector = Arc::clone(&log);
        thread::spawn(move || collector.collect(stderr));
        Tool {
            name,
            child,
            stdin: Some(feed),
            feeder: Some(feeder),
            stdout: Some(stdout),
            progress,
            delivered: 0,
            log,
        }
    }

    /// Queues `bytes` for the tool's stdin.
    fn feed(&self, bytes: Vec<u8>) {
        self.stdin
            .as_ref()
            .expect("stdin is open until the tool ends")
            .send(bytes)
            .expect("the stdin thread runs until stdin is closed");
    }

    /// The tool's exit status, if it has exited.
    fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Waits until the tool's stdout has delivered `len` bytes.
    fn wait_delivered(&mut self, len: usize) -> Result<(), String> {
        while self.delivered < len {
            match self.progress.recv_timeout(STEP) {
                Ok(n) => self.delivered = n,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "{} delivered {} of {len} bytes, then nothing for {STEP:?}",
                        self.name, self.delivered
                    ))
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(format!(
                        "{}'s stdout ended after {} of {len} bytes",
                        self.name, self.delivered
                    ))
                }
            }
        }
        Ok(())
    }

    /// Waits for the tool to exit (the connection ended), then closes its stdin.
    fn finish(&mut self) -> Result<Finished, String> {
        if !self.log.wait_eof(STEP) {
            return Err(format!("{} did not exit within {STEP:?}", self.name));
        }
        let status = self
            .child
            .wait()
            .map_err(|e| format!("waiting for {}: {e}", self.name))?;
        let delivered = self
            .stdout
            .take()
            .expect("finished once")
            .join()
            .map_err(|_| format!("{}'s stdout thread panicked", self.name))?;
        self.stdin = None;
        if let Some(Ok(Err(e))) = self.feeder.take().map(JoinHandle::join) {
            // Input the tool no longer read: it exited with input pending, which only a
            // failed case does, and that case reports the reason.
            eprintln!("{}: stdin: {e}", self.name);
        }
        Ok(Finished { status, delivered })
    }
}

impl Drop for Tool {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Held from picking a free port until s_server on it is connected to (see
/// [`start_s_server`]).
static PORT_PICKING: Mutex<()> = Mutex::new(());

/// A loopback port nothing listens on at the moment.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a loopback port")
        .port()
}

/// Connects to `port` once the tool listens there.
fn connect_when_listening(tool: &mut Tool, port: u16) -> Result<TcpStream, String> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = Instant::now() + START;
    loop {
        match TcpStream::connect_timeout(&addr, START) {
            // A connect to a local port nobody listens on can pick that very port as
            // its own and connect to itself (TCP simultaneous open): not the tool.
            Ok(s) if s.local_addr().ok() == Some(addr) => drop(s),
            Ok(s) => return Ok(s),
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {}
            Err(e) => return Err(format!("connecting to {addr}: {e}")),
        }
        if let Some(status) = tool.exited() {
            tool.log.wait_eof(START);
            return Err(format!("{} exited ({status}) before listening", tool.name));
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "{} not listening on {addr} after {START:?}",
                tool.name
            ));
        }
        thread::sleep(Duration::from_millis(5));
    }
}

/// Accepts the tool's connection on `listener`.
fn accept_from(tool: &mut Tool, listener: &TcpListener) -> Result<TcpStream, String> {
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("listener: {e}"))?;
    let deadline = Instant::now() + START;
    loop {
        match listener.accept() {
            Ok((s, _)) => {
                s.set_nonblocking(false)
                    .map_err(|e| format!("accepted socket: {e}"))?;
                return Ok(s);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(format!("accept: {e}")),
        }
        if let Some(status) = tool.exited() {
            tool.log.wait_eof(START);
            return Err(format!("{} exited ({status}) before connecting", tool.name));
        }
        if Instant::now() >= deadline {
            return Err(format!("{} did not connect within {START:?}", tool.name));
        }
        thread::sleep(Duration::from_millis(5));
    }
}

/// The options every run of a tool shares: the suite, the mode, the protocol log on
/// stderr.
fn common_args(case: &Case, mode: Mode) -> Vec<String> {
    let mut args: Vec<String> = case.suite.openssl_args().map(String::from).into();
    if mode == Mode::Quiet {
        args.push("-quiet".into());
    }
    args.extend(["-msg", "-msgfile", "/dev/stderr"].map(String::from));
    args
}

/// `openssl s_server` for `case`, and a connection to it.
fn start_s_server(case: &Case, mode: Mode, expected: Option<Arc<Vec<u8>>>) -> (Tool, TcpStream) {
    let (cert, key) = match case.kind {
        KeyKind::Ecdsa => ("ecdsa.pem", "ecdsa.key"),
        KeyKind::Rsa => ("rsa.pem", "rsa.key"),
    };
    // One port is between its release and s_server's connection at a time in this
    // process: otherwise a test running beside this one could be handed the same free
    // port, connect to this case's s_server first, and leave this case's connection to
    // be reset when `-naccept 1` closes the listener (seen once in CI as a handshake
    // "Connection reset by peer" with an empty OpenSSL log).
    let _one_at_a_time = PORT_PICKING.lock().unwrap_or_else(|e| e.into_inner());
    for attempt in 1.. {
        let port = free_port();
        let mut args: Vec<String> = vec![
            "s_server".into(),
            "-accept".into(),
            format!("127.0.0.1:{port}"),
            "-naccept".into(),
            "1".into(),
            "-cert".into(),
            common::data_path(cert),
            "-key".into(),
            common::data_path(key),
        ];
        args.extend(common_args(case, mode));
        let mut tool = Tool::spawn("openssl s_server", &args, expected.clone());
        match connect_when_listening(&mut tool, port) {
            Ok(sock) => return (tool, sock),
            // Another process took the port between its release and s_server's bind.
            Err(_) if attempt < 3 && tool.log.count(|l| l.contains("in use")) > 0 => continue,
            Err(e) => panic!("{case}: {e}\n{}", tool.log.tail()),
        }
    }
    unreachable!("the loop returns or panics")
}

/// `openssl s_client` for `case`, connected to `listener`, and its connection.
fn start_s_client(
    case: &Case,
    mode: Mode,
    expected: Option<Arc<Vec<u8>>>,
    listener: &TcpListener,
) -> (Tool, TcpStream) {
    let addr = listener.local_addr().expect("listener address");
    let mut args: Vec<String> = vec![
        "s_client".into(),
        "-connect".into(),
        addr.to_string(),
        "-servername".into(),
        "localhost".into(),
        // OpenSSL checks rustls's certificate too, and refuses a bad one.
        "-CAfile".into(),
        common::data_path("ca.pem"),
        "-verify_return_error".into(),
        "-verify_hostname".into(),
        "localhost".into(),
    ];
    args.extend(common_args(case, mode));
    let mut tool = Tool::spawn("openssl s_client", &args, expected);
    match accept_from(&mut tool, listener) {
        Ok(sock) => (tool, sock),
        Err(e) => panic!("{case}: {e}\n{}", tool.log.tail()),
    }
}

// ---------------------------------------------------------------------------------------
// The rustls side.

/// `base` offering only `suite`, in `suite`'s version only.
fn only(
    base: &CryptoProvider,
    suite: Suite,
) -> (Arc<CryptoProvider>, &'static SupportedProtocolVersion) {
    let mut p = base.clone();
    p.cipher_suites.retain(|s| s.suite() == suite.id);
    assert_eq!(p.cipher_suites.len(), 1, "{:?} is offered", suite.id);
    let version = match p.cipher_suites[0] {
        SupportedCipherSuite::Tls13(_) => &rustls::version::TLS13,
        #[cfg(feature = "tls12")]
        SupportedCipherSuite::Tls12(_) => &rustls::version::TLS12,
    };
    (Arc::new(p), version)
}

fn client_connection(base: &CryptoProvider, case: &Case) -> Connection {
    let (p, v) = only(base, case.suite);
    let config = ClientConfig::builder_with_provider(p)
        .with_protocol_versions(&[v])
        .expect("the version suits the suite")
        .with_root_certificates(common::roots())
        .with_no_client_auth();
    let name = ServerName::try_from("localhost").expect("a DNS name");
    Connection::Client(ClientConnection::new(Arc::new(config), name).expect("client connection"))
}

fn server_connection(base: &CryptoProvider, case: &Case) -> Connection {
    let (p, v) = only(base, case.suite);
    let config = ServerConfig::builder_with_provider(p)
        .with_protocol_versions(&[v])
        .expect("the version suits the suite")
        .with_no_client_auth()
        .with_single_cert(common::chain(case.kind), common::key(case.kind))
        .expect("the test certificate and key");
    Connection::Server(ServerConnection::new(Arc::new(config)).expect("server connection"))
}

/// Why rustls's side of a transfer stopped.
#[derive(Debug)]
enum Why {
    /// A TLS error (the peer's alert, a record that did not open, ...).
    Tls(rustls::Error),
    Io(io::Error),
    /// The peer's `close_notify`.
    Closed,
    /// The TCP connection ended without `close_notify`.
    Eof,
    /// A byte that differs from what was sent, or that was not due at all.
    Different,
}

/// Where rustls's side of a transfer stopped, and why.
#[derive(Debug)]
struct Failure {
    /// Bytes received and equal to what was sent before the stop.
    got: usize,
    why: Why,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Tls(e) => write!(f, "TLS error {e:?} ({e})"),
            Why::Io(e) => write!(f, "I/O error {e}"),
            Why::Closed => f.write_str("the peer's close_notify"),
            Why::Eof => f.write_str("the end of the TCP stream without close_notify"),
            Why::Different => f.write_str("a byte different from the one sent"),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} after {} correct bytes", self.why, self.got)
    }
}

/// A rustls connection over a blocking socket, every read and write bounded by [`STEP`].
struct Tls {
    conn: Connection,
    sock: TcpStream,
    /// Plaintext as it is read.
    buf: Vec<u8>,
}

impl Tls {
    fn new(conn: Connection, sock: TcpStream) -> Tls {
        sock.set_read_timeout(Some(STEP)).expect("read timeout");
        sock.set_write_timeout(Some(STEP)).expect("write timeout");
        sock.set_nodelay(true).expect("nodelay");
        Tls {
            conn,
            sock,
            buf: vec![0; 1 << 16],
        }
    }

    fn handshake(&mut self) -> io::Result<()> {
        while self.conn.is_handshaking() {
            self.conn.complete_io(&mut self.sock)?;
        }
        self.flush()
    }

    /// Checks the handshake's outcome.
    fn check_suite(&self, case: &Case) {
        let suite = self.conn.negotiated_cipher_suite().map(|s| s.suite());
        assert_eq!(suite, Some(case.suite.id), "{case}: the negotiated suite");
        let version = if case.suite.tls13() {
            rustls::ProtocolVersion::TLSv1_3
        } else {
            rustls::ProtocolVersion::TLSv1_2
        };
        assert_eq!(
            self.conn.protocol_version(),
            Some(version),
            "{case}: the version"
        );
    }

    fn flush(&mut self) -> io::Result<()> {
        while self.conn.wants_write() {
            self.conn.write_tls(&mut self.sock)?;
        }
        Ok(())
    }

    /// Sends `data` a record at a time, refreshing the keys (a `KeyUpdate` that asks for
    /// one back) when `update_at` bytes are out.
    fn send(&mut self, data: &[u8], update_at: Option<usize>) -> io::Result<()> {
        for (i, chunk) in data.chunks(RECORD).enumerate() {
            if update_at == Some(i * RECORD) {
                self.conn.refresh_traffic_keys().map_err(io::Error::other)?;
            }
            self.conn.writer().write_all(chunk)?;
            self.flush()?;
        }
        Ok(())
    }

    /// Sends a `KeyUpdate` that asks for one back.
    fn refresh(&mut self) -> io::Result<()> {
        self.conn.refresh_traffic_keys().map_err(io::Error::other)?;
        self.flush()
    }

    /// Compares what arrives with `expected` until all of it has. What the connection
    /// opened before a failure still counts, so a failure's `got` is everything
    /// delivered.
    fn receive(&mut self, expected: &[u8]) -> Result<(), Failure> {
        let mut got = 0;
        let fail = |got, why| Err(Failure { got, why });
        loop {
            if let Err(why) = self.read_plaintext(expected, &mut got) {
                return fail(got, why);
            }
            if got == expected.len() {
                return Ok(());
            }
            if let Err(e) = self.flush() {
                return fail(got, Why::Io(e));
            }
            match self.conn.read_tls(&mut self.sock) {
                Ok(0) => return fail(got, Why::Eof),
                Ok(_) => {}
                Err(e) => return fail(got, Why::Io(e)),
            }
            if let Err(e) = self.conn.process_new_packets() {
                // Records opened before the failing one are still readable.
                let _ = self.read_plaintext(expected, &mut got);
                // The alert.
                let _ = self.flush();
                return fail(got, Why::Tls(e));
            }
        }
    }

    /// Reads the plaintext the connection holds, comparing it with `expected[*got..]`.
    fn read_plaintext(&mut self, expected: &[u8], got: &mut usize) -> Result<(), Why> {
        while *got < expected.len() {
            // One byte more than is due would be read as a difference.
            let want = (expected.len() - *got + 1).min(self.buf.len());
            match self.conn.reader().read(&mut self.buf[..want]) {
                Ok(0) => return Err(Why::Closed),
                Ok(n) => {
                    let sent = &expected[*got..];
                    let same = self.buf[..n]
                        .iter()
                        .zip(sent)
                        .take_while(|(a, b)| a == b)
                        .count();
                    *got += same;
                    if same < n {
                        return Err(Why::Different);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) => return Err(Why::Io(e)),
            }
        }
        Ok(())
    }

    /// Reads until the connection ends, and says how: [`Why::Closed`] for the peer's
    /// `close_notify`, [`Why::Different`] for data.
    fn wait_end(&mut self) -> Why {
        loop {
            match self.conn.reader().read(&mut self.buf) {
                Ok(0) => return Why::Closed,
                Ok(_) => return Why::Different,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Why::Io(e),
            }
            if let Err(e) = self.flush() {
                return Why::Io(e);
            }
            match self.conn.read_tls(&mut self.sock) {
                Ok(0) => return Why::Eof,
                Ok(_) => {}
                Err(e) => return Why::Io(e),
            }
            if let Err(e) = self.conn.process_new_packets() {
                let _ = self.flush();
                return Why::Tls(e);
            }
        }
    }

    /// Sends `close_notify`, waits for the peer's, and closes the socket (the tools
    /// wait half a second for the peer's end before they exit).
    fn close(&mut self) -> Result<(), Why> {
        self.conn.send_close_notify();
        self.flush().map_err(Why::Io)?;
        match self.wait_end() {
            Why::Closed => {
                let _ = self.sock.shutdown(Shutdown::Both);
                Ok(())
            }
            why => Err(why),
        }
    }
}

/// Starts the tool for `case` and connects rustls to it, through a relay that alters
/// records when `alter` says so.
fn connect(
    base: &CryptoProvider,
    case: &Case,
    mode: Mode,
    expected: Option<Arc<Vec<u8>>>,
    alter: Option<Toward>,
) -> (Tool, Tls, Option<Relay>) {
    let (tool, sock, conn) = match case.role {
        Role::Client => {
            let (tool, sock) = start_s_server(case, mode, expected);
            (tool, sock, client_connection(base, case))
        }
        Role::Server => {
            let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback listener");
            let (tool, sock) = start_s_client(case, mode, expected, &listener);
            (tool, sock, server_connection(base, case))
        }
    };
    let (sock, relay) = match alter {
        None => (sock, None),
        Some(toward) => {
            let (near, far) = tcp_pair();
            (near, Some(Relay::new(far, sock, toward)))
        }
    };
    let mut tls = Tls::new(conn, sock);
    if let Err(e) = tls.handshake() {
        panic!("{case}: handshake: {e}\n{}", tool.log.tail());
    }
    tls.check_suite(case);
    (tool, tls, relay)
}

// ---------------------------------------------------------------------------------------
// The relay that alters a record.

/// The direction whose records the relay alters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Toward {
    /// OpenSSL's records: rustls must refuse the altered one.
    Rustls,
    /// rustls's records: OpenSSL must refuse the altered one.
    Openssl,
}

/// A connected pair of loopback sockets.
fn tcp_pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback listener");
    let addr = listener.local_addr().expect("listener address");
    let a = TcpStream::connect(addr).expect("connect to our own listener");
    // The connection is established: the accept does not wait.
    let (b, _) = listener.accept().expect("accept our own connection");
    (a, b)
}

/// Copies records between rustls's socket and OpenSSL's, whole records at a time, and
/// once armed flips one byte in the middle of the next application-data record in one
/// direction.
struct Relay {
    armed: Arc<AtomicBool>,
    altered: Arc<AtomicUsize>,
    sockets: [TcpStream; 2],
    threads: Vec<JoinHandle<()>>,
}

impl Relay {
    fn new(rustls_side: TcpStream, openssl_side: TcpStream, toward: Toward) -> Relay {
        let armed = Arc::new(AtomicBool::new(false));
        let altered = Arc::new(AtomicUsize::new(0));
        let clone = |s: &TcpStream| {
            s.set_read_timeout(Some(STEP)).expect("relay read timeout");
            s.try_clone().expect("clone a relay socket")
        };
        let sockets = [clone(&rustls_side), clone(&openssl_side)];
        let arm = |t: Toward| (toward == t).then(|| (Arc::clone(&armed), Arc::clone(&altered)));
        let to_openssl = {
            let (src, dst, arm) = (
                clone(&rustls_side),
                clone(&openssl_side),
                arm(Toward::Openssl),
            );
            thread::spawn(move || pump(src, dst, arm))
        };
        let to_rustls = {
            let arm = arm(Toward::Rustls);
            thread::spawn(move || pump(openssl_side, rustls_side, arm))
        };
        Relay {
            armed,
            altered,
            sockets,
            threads: vec![to_openssl, to_rustls],
        }
    }

    /// Alters the next application-data record in the relay's direction.
    fn arm(&self) {
        self.armed.store(true, Ordering::SeqCst);
    }

    fn altered(&self) -> usize {
        self.altered.load(Ordering::SeqCst)
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        for s in &self.sockets {
            let _ = s.shutdown(Shutdown::Both);
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// One direction of the relay: forwards complete records, altering one when armed.
fn pump(mut src: TcpStream, mut dst: TcpStream, arm: Option<(Arc<AtomicBool>, Arc<AtomicUsize>)>) {
    const APPLICATION_DATA: u8 = 23;
    let mut pending = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = match src.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buf[..n]);
        let mut whole = 0;
        while pending.len() - whole >= 5 {
            let len = usize::from(u16::from_be_bytes([pending[whole + 3], pending[whole + 4]]));
            if pending.len() - whole < 5 + len {
                break;
            }
            if let Some((armed, altered)) = &arm {
                if pending[whole] == APPLICATION_DATA
                    && len > 0
                    && armed.swap(false, Ordering::SeqCst)
                {
                    pending[whole + 5 + len / 2] ^= 0x04;
                    altered.fetch_add(1, Ordering::SeqCst);
                }
            }
            whole += 5 + len;
        }
        if dst.write_all(&pending[..whole]).is_err() {
            break;
        }
        pending.drain(..whole);
    }
    let _ = dst.shutdown(Shutdown::Write);
}

// ---------------------------------------------------------------------------------------
// The cases.

/// The `-quiet` cases: both directions compared, rustls's key updates in TLS 1.3.
fn quiet_case(base: &CryptoProvider, case: &Case, len: usize) {
    let out = Arc::new(payload(case.seed(), len));
    let inb = payload(case.seed() ^ 0xff, len);
    let tls13 = case.suite.tls13();
    let (mut tool, mut tls, _) = connect(base, case, Mode::Quiet, Some(Arc::clone(&out)), None);

    if let Err(e) = tls.send(&out, tls13.then_some(len / 2)) {
        panic!("{}: sending: {e}\n{}", case.outbound(), tool.log.tail());
    }
    let (first, second) = inb.split_at(len / 2);
    tool.feed(first.to_vec());
    if let Err(e) = tls.receive(first) {
        panic!("{}: first half: {e}\n{}", case.inbound(), tool.log.tail());
    }
    if tls13 {
        // OpenSSL answers a request before its next application data, and only then
        // (RFC 8446 allows that): the second half waits until OpenSSL has the request,
        // so that the answer comes, and the second half under OpenSSL's new keys.
        if let Err(e) = tls.refresh() {
            panic!("{}: KeyUpdate: {e}\n{}", case.outbound(), tool.log.tail());
        }
        let requested = tool.log.wait(STEP, |l| {
            l.iter().filter(|l| key_update("<<<")(l)).count() >= 2
        });
        assert!(
            requested,
            "{}: {} did not log rustls's second KeyUpdate\n{}",
            case.outbound(),
            tool.name,
            tool.log.tail()
        );
    }
    tool.feed(second.to_vec());
    if let Err(e) = tls.receive(second) {
        panic!("{}: second half: {e}\n{}", case.inbound(), tool.log.tail());
    }
    if let Err(why) = tls.close() {
        panic!("{case}: closing: {why}\n{}", tool.log.tail());
    }
    let end = tool
        .finish()
        .unwrap_or_else(|e| panic!("{case}: {e}\n{}", tool.log.tail()));
    let d = &end.delivered;
    assert!(
        d.len == len && d.first_difference.is_none(),
        "{}: {} delivered {} of {len} bytes, first difference at {:?}\n{}",
        case.outbound(),
        tool.name,
        d.len,
        d.first_difference,
        tool.log.tail()
    );
    assert!(
        end.status.success(),
        "{case}: {} exited with {}\n{}",
        tool.name,
        end.status,
        tool.log.tail()
    );
    if case.suite.tls13() {
        // One update of rustls's per direction, each answered by one of OpenSSL's: the
        // first before OpenSSL's first data, the second before its second half.
        let received = tool.log.count(key_update("<<<"));
        let sent = tool.log.count(key_update(">>>"));
        assert!(
            received == 2 && sent == 2,
            "{case}: {} received {received} KeyUpdates from rustls (2 sent) and sent \
             {sent} (2 requested)\n{}",
            tool.name,
            tool.log.tail()
        );
    }
}

fn every_suite(role: Role) {
    require_openssl();
    let reg = common::registry("");
    let base = common::ours(&reg);
    for suite in offered(&base) {
        for &kind in suite.kinds() {
            let case = Case { suite, kind, role };
            let started = Instant::now();
            quiet_case(&base, &case, LEN);
            eprintln!("{case}: {:?}", started.elapsed());
        }
    }
}

#[test]
fn rustls_client_against_s_server_in_every_suite() {
    every_suite(Role::Client);
}

#[test]
fn rustls_server_against_s_client_in_every_suite() {
    every_suite(Role::Server);
}

/// OpenSSL's `K` command mid-stream (a `KeyUpdate` that asks for one back): the rest of
/// OpenSSL's data arrives under its new keys, and rustls's answer reaches OpenSSL.
fn openssl_key_update(base: &CryptoProvider, case: &Case) {
    const HALF: usize = 512 << 10;
    let first = payload(case.seed(), HALF);
    let second = payload(case.seed() ^ 0xff, HALF);
    let (mut tool, mut tls, _) = connect(base, case, Mode::Commands, None, None);
    let dir = case.inbound();

    tool.feed(first.clone());
    if let Err(e) = tls.receive(&first) {
        panic!(
            "{dir}: before {}'s KeyUpdate: {e}\n{}",
            tool.name,
            tool.log.tail()
        );
    }
    // Everything before is read: the command is read alone.
    tool.feed(b"K\n".to_vec());
    let sent = tool
        .log
        .wait(STEP, |lines| lines.iter().any(|l| key_update(">>>")(l)));
    assert!(
        sent,
        "{dir}: {} logged no KeyUpdate sent after the K command\n{}",
        tool.name,
        tool.log.tail()
    );
    tool.feed(second.clone());
    if let Err(e) = tls.receive(&second) {
        panic!(
            "{dir}: after {}'s KeyUpdate: {e}\n{}",
            tool.name,
            tool.log.tail()
        );
    }
    if let Err(why) = tls.close() {
        panic!("{case}: closing: {why}\n{}", tool.log.tail());
    }
    let end = tool
        .finish()
        .unwrap_or_else(|e| panic!("{case}: {e}\n{}", tool.log.tail()));
    assert!(
        end.status.success(),
        "{case}: {} exited with {}\n{}",
        tool.name,
        end.status,
        tool.log.tail()
    );
    // rustls answers the request with its next record (here its close_notify).
    let (sent, received) = (
        tool.log.count(key_update(">>>")),
        tool.log.count(key_update("<<<")),
    );
    assert!(
        sent == 1 && received == 1,
        "{case}: {} sent {sent} KeyUpdates (1 commanded) and received {received} \
         (rustls's answer)\n{}",
        tool.name,
        tool.log.tail()
    );
}

#[test]
fn key_updates_from_openssl_mid_stream() {
    require_openssl();
    let reg = common::registry("");
    let base = common::ours(&reg);
    for suite in offered(&base).into_iter().filter(|s| s.tls13()) {
        for (role, kind) in [(Role::Client, KeyKind::Ecdsa), (Role::Server, KeyKind::Rsa)] {
            openssl_key_update(&base, &Case { suite, kind, role });
        }
    }
}

/// A record altered on its way ends the connection with `bad_record_mac` where it
/// arrives, and nothing from it on is delivered.
fn altered_record(base: &CryptoProvider, case: &Case, toward: Toward) {
    const PART: usize = 64 << 10;
    let first = payload(case.seed(), PART);
    let second = payload(case.seed() ^ 0xff, PART);
    let mut sent = first.clone();
    sent.extend_from_slice(&second);
    let (mut tool, mut tls, relay) =
        connect(base, case, Mode::Quiet, Some(Arc::new(sent)), Some(toward));
    let relay = relay.expect("a relay");
    match toward {
        Toward::Rustls => {
            let dir = case.inbound();
            tool.feed(first.clone());
            if let Err(e) = tls.receive(&first) {
                panic!("{dir}: before the altered record: {e}\n{}", tool.log.tail());
            }
            relay.arm();
            tool.feed(second.clone());
            let Err(e) = tls.receive(&second) else {
                panic!(
                    "{dir}: the record altered in transit was accepted\n{}",
                    tool.log.tail()
                );
            };
            assert!(
                matches!(e.why, Why::Tls(rustls::Error::DecryptError)) && e.got == 0,
                "{dir}: a record altered in transit: {e}, expected a DecryptError and \
                 nothing delivered\n{}",
                tool.log.tail()
            );
            assert_eq!(relay.altered(), 1, "{dir}: the relay altered one record");
            let alerted = tool
                .log
                .wait(STEP, |l| l.iter().any(|l| bad_record_mac("<<<")(l)));
            // Only now: a socket closed with unread data resets the connection, and a
            // reset can overtake the alert.
            drop((tls, relay));
            tool.finish()
                .unwrap_or_else(|e| panic!("{dir}: {e}\n{}", tool.log.tail()));
            assert!(
                alerted,
                "{dir}: {} did not receive rustls's bad_record_mac alert\n{}",
                tool.name,
                tool.log.tail()
            );
        }
        Toward::Openssl => {
            let dir = case.outbound();
            if let Err(e) = tls.send(&first, None) {
                panic!("{dir}: before the altered record: {e}\n{}", tool.log.tail());
            }
            tool.wait_delivered(first.len())
                .unwrap_or_else(|e| panic!("{dir}: {e}\n{}", tool.log.tail()));
            relay.arm();
            // The tool may close before it has everything: only its verdict matters.
            let _ = tls.send(&second, None);
            let why = tls.wait_end();
            assert!(
                matches!(
                    why,
                    Why::Tls(rustls::Error::AlertReceived(AlertDescription::BadRecordMac))
                ),
                "{dir}: a record altered in transit: rustls saw {why}, expected {}'s \
                 bad_record_mac alert\n{}",
                tool.name,
                tool.log.tail()
            );
            assert_eq!(relay.altered(), 1, "{dir}: the relay altered one record");
            drop((tls, relay));
            let end = tool
                .finish()
                .unwrap_or_else(|e| panic!("{dir}: {e}\n{}", tool.log.tail()));
            let d = &end.delivered;
            assert!(
                d.len == first.len() && d.first_difference.is_none(),
                "{dir}: {} delivered {} bytes (first difference at {:?}); exactly the {} \
                 before the altered record were due\n{}",
                tool.name,
                d.len,
                d.first_difference,
                first.len(),
                tool.log.tail()
            );
            assert!(
                tool.log.count(bad_record_mac(">>>")) == 1,
                "{dir}: {} did not send a bad_record_mac alert\n{}",
                tool.name,
                tool.log.tail()
            );
        }
    }
}

#[test]
fn an_altered_record_ends_the_connection() {
    require_openssl();
    let reg = common::registry("");
    let base = common::ours(&reg);
    let offered = offered(&base);
    let mut cases = vec![
        (
            CipherSuite::TLS13_AES_128_GCM_SHA256,
            KeyKind::Ecdsa,
            Role::Client,
            Toward::Rustls,
        ),
        (
            CipherSuite::TLS13_CHACHA20_POLY1305_SHA256,
            KeyKind::Rsa,
            Role::Server,
            Toward::Openssl,
        ),
    ];
    if cfg!(feature = "tls12") {
        cases.extend([
            (
                CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
                KeyKind::Rsa,
                Role::Client,
                Toward::Rustls,
            ),
            (
                CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
                KeyKind::Ecdsa,
                Role::Server,
                Toward::Openssl,
            ),
        ]);
    }
    for (id, kind, role, toward) in cases {
        let suite = Suite::of(id);
        assert!(offered.iter().any(|s| s.id == id), "{id:?} is offered");
        altered_record(&base, &Case { suite, kind, role }, toward);
    }
}

/// The payload cannot trigger a command of either tool.
#[test]
fn the_payload_alphabet_holds_no_command() {
    for b in b"QqRrKkcPSB\n\r" {
        assert!(
            !ALPHABET.contains(b),
            "{:?} is in the alphabet",
            char::from(*b)
        );
    }
    let mut seen = ALPHABET.to_vec();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 64, "64 different bytes");
}
