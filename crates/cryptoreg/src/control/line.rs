//! Reading one line under a deadline for the whole line.
//!
//! A read timeout set once on the socket bounds each `read`, not the line: a peer that
//! sends one byte per timeout never reaches it. Both ends of the control socket read
//! through [`LineReader`], which sets the socket's timeout to what is left of the
//! deadline before every read.

use std::io::{ErrorKind, Read};
use std::os::unix::net::UnixStream;
use std::time::Instant;

/// What [`LineReader::read_line`] found.
pub(super) enum Line {
    /// A line, without its newline.
    Complete(Vec<u8>),
    /// End of stream; what came after the last newline (possibly nothing).
    Eof(Vec<u8>),
    /// More than the limit without a newline, or a longer line.
    TooLong,
    /// The deadline passed before the line was complete.
    TimedOut,
    /// The socket failed.
    Failed,
}

/// Buffered line reading with a deadline per line.
pub(super) struct LineReader {
    stream: UnixStream,
    buf: Vec<u8>,
    /// How much of `buf` is known to hold no newline.
    scanned: usize,
}

impl LineReader {
    pub(super) fn new(stream: UnixStream) -> LineReader {
        LineReader {
            stream,
            buf: Vec::new(),
            scanned: 0,
        }
    }

    /// The next line of at most `limit` bytes (newline excluded), complete by `deadline`.
    pub(super) fn read_line(&mut self, deadline: Instant, limit: usize) -> Line {
        let mut chunk = [0u8; 8192];
        loop {
            let start = self.scanned;
            if let Some(i) = self.buf[start..].iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.buf.drain(..=start + i).collect();
                self.scanned = 0;
                line.pop();
                if line.len() > limit {
                    return Line::TooLong;
                }
                return Line::Complete(line);
            }
            self.scanned = self.buf.len();
            if self.buf.len() > limit {
                return Line::TooLong;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.stream.set_read_timeout(Some(left)).is_err() {
                return Line::TimedOut;
            }
            match self.stream.read(&mut chunk) {
                Ok(0) => {
                    self.scanned = 0;
                    return Line::Eof(std::mem::take(&mut self.buf));
                }
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) => {}
                Err(_) => return Line::Failed,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::Duration;

    /// A peer that sends a byte every 20 ms without a newline is cut off at the line's
    /// deadline (the old per-read timeout of 100 ms was never reached).
    #[test]
    fn the_deadline_is_for_the_whole_line() {
        let (a, mut b) = UnixStream::pair().unwrap();
        let writer = std::thread::spawn(move || {
            for _ in 0..100 {
                if b.write_all(b"x").is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let mut r = LineReader::new(a);
        let start = Instant::now();
        assert!(matches!(
            r.read_line(start + Duration::from_millis(300), 1 << 20),
            Line::TimedOut
        ));
        let took = start.elapsed();
        assert!(
            took >= Duration::from_millis(300) && took < Duration::from_secs(1),
            "{took:?}"
        );
        drop(r);
        writer.join().unwrap();
    }

    #[test]
    fn lines_limits_and_the_end() {
        let (a, mut b) = UnixStream::pair().unwrap();
        b.write_all(b"one\ntwo\nthree-is-long\nrest").unwrap();
        drop(b);
        let mut r = LineReader::new(a);
        let later = Instant::now() + Duration::from_secs(5);
        assert!(matches!(r.read_line(later, 8), Line::Complete(l) if l == b"one"));
        assert!(matches!(r.read_line(later, 3), Line::Complete(l) if l == b"two"));
        assert!(matches!(r.read_line(later, 8), Line::TooLong));
        assert!(matches!(r.read_line(later, 8), Line::Eof(l) if l == b"rest"));
    }
}
