//! Reading input as it arrives, and how a run ends (exit statuses, a closed pipe).

use std::io::{ErrorKind, Read};
use std::path::Path;
use std::process::ExitCode;

use tokensieve::{Event, EventSource};

/// Why a run stopped early.
#[derive(Debug)]
pub enum Fail {
    /// The reader of standard output went away (`| head -1`): end quietly, status 0.
    Pipe,
    /// A failed run (an unreadable file, a bad config): `tokensieve: …`, status 1.
    Run(String),
}

impl From<String> for Fail {
    fn from(s: String) -> Self {
        Fail::Run(s)
    }
}

impl From<&str> for Fail {
    fn from(s: &str) -> Self {
        Fail::Run(s.to_owned())
    }
}

/// A write error: [`Fail::Pipe`] for a closed pipe, else a failed run.
pub fn write_error(e: &std::io::Error) -> Fail {
    if e.kind() == ErrorKind::BrokenPipe {
        Fail::Pipe
    } else {
        Fail::Run(format!("writing output: {e}"))
    }
}

/// The exit status of a run: 0 when it succeeded (or its reader went away), 1 when it
/// failed or `stream_failed` (decode: the stream ended in a provider or framing error).
/// Usage errors never get here: clap exits with 2.
pub fn exit(result: Result<bool, Fail>) -> ExitCode {
    match result {
        Ok(false) | Err(Fail::Pipe) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::from(1),
        Err(Fail::Run(e)) => {
            eprintln!("tokensieve: {e}");
            ExitCode::from(1)
        }
    }
}

/// Reads `path` (standard input when absent or `-`) as it arrives and hands `feed` the
/// bytes in pieces of `chunk` bytes (0: each read whole), the pieces' edges at multiples of
/// `chunk` in the whole input; `feed`'s flag is true on a read's last piece (flush then).
pub fn stream(
    path: Option<&Path>,
    chunk: usize,
    mut feed: impl FnMut(&[u8], bool) -> Result<(), Fail>,
) -> Result<(), Fail> {
    let stdin = std::io::stdin();
    let (mut reader, name): (Box<dyn Read>, String) = match path {
        Some(p) if p.as_os_str() != "-" => (
            Box::new(std::fs::File::open(p).map_err(|e| format!("reading {}: {e}", p.display()))?),
            p.display().to_string(),
        ),
        _ => (Box::new(stdin.lock()), "standard input".to_owned()),
    };
    let mut buf = vec![0u8; 64 * 1024];
    let mut offset = 0usize;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("reading {name}: {e}").into()),
        };
        let mut rest = &buf[..n];
        while !rest.is_empty() {
            let take = if chunk == 0 {
                rest.len()
            } else {
                (chunk - offset % chunk).min(rest.len())
            };
            offset += take;
            feed(&rest[..take], take == rest.len())?;
            rest = &rest[take..];
        }
    }
}

/// Where [`drive`] hands events: the view's output, or the counts of `--stats`.
pub trait Sink {
    /// One event.
    fn event(&mut self, ev: &Event<'_>) -> Result<(), Fail>;
    /// A read's events are all out: write them.
    fn flush(&mut self) -> Result<(), Fail> {
        Ok(())
    }
}

impl<W: std::io::Write> Sink for crate::output::Output<W> {
    fn event(&mut self, ev: &Event<'_>) -> Result<(), Fail> {
        crate::output::Output::event(self, ev)
    }
    fn flush(&mut self) -> Result<(), Fail> {
        crate::output::Output::flush(self)
    }
}

impl Sink for crate::stats::Stats {
    fn event(&mut self, ev: &Event<'_>) -> Result<(), Fail> {
        crate::stats::Stats::event(self, ev);
        Ok(())
    }
}

/// The one loop of `parse` and `decode`: `path` (as [`stream`] reads it) through `source`,
/// then its end, every event to `sink` (flushed after each read).
pub fn drive(
    source: &mut impl EventSource,
    path: Option<&Path>,
    chunk: usize,
    sink: &mut impl Sink,
) -> Result<(), Fail> {
    stream(path, chunk, |mut piece, last| {
        while let Some(ev) = source.next(&mut piece) {
            sink.event(&ev)?;
        }
        if last {
            sink.flush()?;
        }
        Ok(())
    })?;
    source.finish();
    while let Some(ev) = source.next(&mut &b""[..]) {
        sink.event(&ev)?;
    }
    Ok(())
}
