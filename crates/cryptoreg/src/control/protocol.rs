//! The wire format (line-delimited JSON, version [`PROTOCOL_VERSION`]) and a small
//! client (`cryptoctl --socket` uses it).

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::line::{Line, LineReader};
use crate::{Error, Result};

/// The protocol version every request and answer carries in `v`.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest request line accepted, newline excluded (64 KiB).
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// The longest answer a [`Client`] reads (answers carry whole listings).
const MAX_ANSWER_BYTES: usize = 64 << 20;

/// One request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Request {
    /// Protocol version; must be [`PROTOCOL_VERSION`].
    pub v: u32,
    /// `list`, `explain`, `report`, `stats`, `generation`, `set-priority`,
    /// `clear-priority`, `disable`, `enable`, `reload` or `rescan` (one re-verification
    /// pass now; an admin operation, since it spends CPU).
    pub op: String,
    /// `explain`: the algorithm or driver name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Admin operations: the driver.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    /// `set-priority`: the new priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u32>,
    /// `reload`: the file to read instead of the boot's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
}

impl Request {
    /// A request of `op` with no arguments.
    pub fn new(op: &str) -> Request {
        Request {
            v: PROTOCOL_VERSION,
            op: op.to_string(),
            ..Request::default()
        }
    }

    /// Adds `name`.
    pub fn name(mut self, name: &str) -> Request {
        self.name = Some(name.to_string());
        self
    }

    /// Adds `driver`.
    pub fn driver(mut self, driver: &str) -> Request {
        self.driver = Some(driver.to_string());
        self
    }

    /// Adds `priority`.
    pub fn priority(mut self, p: u32) -> Request {
        self.priority = Some(p);
        self
    }

    /// Adds `path`.
    pub fn path(mut self, p: impl Into<PathBuf>) -> Request {
        self.path = Some(p.into());
        self
    }
}

/// One answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Response {
    /// Protocol version of the server.
    pub v: u32,
    /// Whether the operation succeeded.
    pub ok: bool,
    /// The operation's data, when `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<serde_json::Value>,
    /// What went wrong, when not `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Response {
    pub(super) fn ok(result: serde_json::Value) -> Response {
        Response {
            v: PROTOCOL_VERSION,
            ok: true,
            result: Some(result),
            error: None,
        }
    }

    pub(super) fn err(message: impl Into<String>) -> Response {
        Response {
            v: PROTOCOL_VERSION,
            ok: false,
            result: None,
            error: Some(message.into()),
        }
    }

    /// One line of JSON, newline included.
    pub(super) fn line(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec(self).unwrap_or_else(|_| {
            br#"{"v":1,"ok":false,"error":"answer could not be encoded"}"#.to_vec()
        });
        v.push(b'\n');
        v
    }
}

/// How long a [`Client`] waits for a whole answer, and for a request to be written.
const CLIENT_DEADLINE: Duration = Duration::from_secs(30);

/// A connection to a control socket.
pub struct Client {
    reader: LineReader,
    writer: UnixStream,
}

impl Client {
    /// Connects to the socket at `path`. Each answer must be complete within 30 s of its
    /// request (a deadline for the whole answer, so a server that trickles bytes cannot
    /// hold the client), and each write may block at most 30 s.
    pub fn connect(path: &Path) -> Result<Client> {
        let fail = |e: std::io::Error| Error::Config(format!("{}: {e}", path.display()));
        let stream = UnixStream::connect(path).map_err(fail)?;
        stream
            .set_write_timeout(Some(CLIENT_DEADLINE))
            .map_err(fail)?;
        let writer = stream.try_clone().map_err(fail)?;
        Ok(Client {
            reader: LineReader::new(stream),
            writer,
        })
    }

    /// Sends one request and returns the answer's `result`, or the server's error as
    /// [`Error::Config`].
    pub fn call(&mut self, req: &Request) -> Result<serde_json::Value> {
        let resp = self.call_raw(req)?;
        match (resp.ok, resp.result, resp.error) {
            (true, Some(r), _) => Ok(r),
            (true, None, _) => Ok(serde_json::Value::Null),
            (false, _, e) => Err(Error::Config(format!(
                "control socket: {}",
                e.unwrap_or_else(|| "error".to_string())
            ))),
        }
    }

    /// Sends one request and returns the whole answer.
    pub fn call_raw(&mut self, req: &Request) -> Result<Response> {
        let fail = |m: String| Error::Config(format!("control socket: {m}"));
        let mut line = serde_json::to_vec(req).map_err(|e| fail(e.to_string()))?;
        line.push(b'\n');
        self.writer
            .write_all(&line)
            .map_err(|e| fail(e.to_string()))?;
        let deadline = Instant::now() + CLIENT_DEADLINE;
        let answer = match self.reader.read_line(deadline, MAX_ANSWER_BYTES) {
            Line::Complete(a) => a,
            Line::Eof(a) if !a.is_empty() => a,
            Line::Eof(_) | Line::Failed => {
                return Err(fail("the server closed the connection".to_string()))
            }
            Line::TooLong => {
                return Err(fail(format!("answer larger than {MAX_ANSWER_BYTES} bytes")))
            }
            Line::TimedOut => {
                return Err(fail(format!(
                    "no complete answer within {} s",
                    CLIENT_DEADLINE.as_secs()
                )))
            }
        };
        serde_json::from_slice(&answer).map_err(|e| fail(format!("bad answer: {e}")))
    }
}
