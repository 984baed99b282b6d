//! The three ways `tokensieve` prints events: JSON lines, a human view, and the visible text.

use std::io::Write;

use tokensieve::accumulate::{Collector, OwnedEvent};
use tokensieve::{BlockType, Event, FinishReason, Part};

use crate::stream::{Fail, write_error};

/// Which view [`Output`] writes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// One JSON event per line (the conformance-vector form).
    Json,
    /// Text, thinking dimmed (or tagged), tool calls as `→ name(args)`.
    Human,
    /// Only the text a text-to-speech engine should speak.
    Visible,
}

/// A writer that remembers the last byte written (to end the output on a newline once).
struct Tracking<W: Write> {
    w: W,
    last: Option<u8>,
}

impl<W: Write> Write for Tracking<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.w.write(buf)?;
        if n > 0 {
            self.last = Some(buf[n - 1]);
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

/// Writes events in one of the three views.
pub struct Output<W: Write> {
    view: View,
    w: Tracking<W>,
    color: bool,
    collector: Collector,
    /// For the human view: the name and input of the call being read.
    call: (String, String),
    /// The stream carried a provider or framing error, or finished with reason `error`.
    pub failed: bool,
}

impl<W: Write> Output<W> {
    pub fn new(view: View, w: W, color: bool) -> Self {
        Output {
            view,
            w: Tracking { w, last: None },
            color,
            collector: Collector::new(),
            call: (String::new(), String::new()),
            failed: false,
        }
    }

    pub fn event(&mut self, ev: &Event<'_>) -> Result<(), Fail> {
        match ev {
            Event::Error(_) => self.failed = true,
            Event::Finish(f) if f.reason == FinishReason::Error => self.failed = true,
            _ => {}
        }
        let owned = self.collector.push(ev);
        let r = match self.view {
            View::Json => writeln!(self.w, "{}", owned.to_json()),
            View::Visible => match ev {
                Event::Chunk(c) if c.visible() => write!(self.w, "{}", c.text),
                _ => Ok(()),
            },
            View::Human => self.human(ev, &owned),
        };
        r.map_err(|e| write_error(&e))
    }

    /// Writes out what the events so far printed (after each read of the input).
    pub fn flush(&mut self) -> Result<(), Fail> {
        self.w.flush().map_err(|e| write_error(&e))
    }

    fn style(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn human(&mut self, ev: &Event<'_>, owned: &OwnedEvent) -> std::io::Result<()> {
        match ev {
            Event::BlockStart {
                block_type: BlockType::Thinking,
                ..
            } if !self.color => write!(self.w, "[thinking] "),
            Event::BlockStart {
                block_type: BlockType::ToolCall,
                ..
            } => {
                self.call = (String::new(), String::new());
                Ok(())
            }
            Event::Chunk(c) => match (c.block_type, c.part) {
                (BlockType::Text, _) => write!(self.w, "{}", c.text),
                (BlockType::Thinking, _) => {
                    let s = self.style("2", c.text);
                    write!(self.w, "{s}")
                }
                (BlockType::ToolCall, Some(Part::Name)) => {
                    self.call.0.push_str(c.text);
                    Ok(())
                }
                (BlockType::ToolCall, Some(Part::Input)) => {
                    self.call.1.push_str(c.text);
                    Ok(())
                }
                _ => Ok(()),
            },
            Event::BlockComplete(b) => match (b.block_type, owned) {
                (BlockType::Thinking, _) if !self.color => writeln!(self.w),
                (BlockType::ToolCall, _) => {
                    let line = match &b.error {
                        Some(e) => format!("→ {}(…) failed: {}", self.call.0, e.reason),
                        None => format!("→ {}({})", self.call.0, self.call.1),
                    };
                    let s = self.style("36", &line);
                    writeln!(self.w, "\n{s}")
                }
                (BlockType::ToolResult, OwnedEvent::BlockComplete { content, .. }) => {
                    let content = content.as_deref().unwrap_or("");
                    let mut summary: String = content.trim().chars().take(60).collect();
                    if content.trim().chars().count() > 60 {
                        summary.push('…');
                    }
                    let mark = if b.is_error { "✗" } else { "←" };
                    let line = format!("{mark} {}: {summary}", b.tool_name.unwrap_or("result"));
                    let s = self.style("33", &line);
                    writeln!(self.w, "{s}")
                }
                _ => Ok(()),
            },
            Event::Stop { sequence } => {
                let s = self.style("2", &format!("[stop: {sequence:?}]"));
                writeln!(self.w, "\n{s}")
            }
            Event::Finish(f) => {
                let mut line = format!("[finish: {}", f.reason.as_str());
                if let Some(raw) = f.raw_reason {
                    line.push_str(&format!(" ({raw})"));
                }
                if f.choice != 0 {
                    line.push_str(&format!(", choice {}", f.choice));
                }
                line.push(']');
                let s = self.style("2", &line);
                writeln!(self.w, "\n{s}")
            }
            Event::Error(e) => {
                let mut line = format!("✗ {} error", e.source.as_str());
                if let Some(code) = e.code {
                    line.push_str(&format!(" ({code})"));
                }
                line.push_str(&format!(": {}", e.message));
                let s = self.style("31", &line);
                writeln!(self.w, "\n{s}")
            }
            _ => Ok(()),
        }
    }

    /// Ends the output: the human and visible views end with a newline (one is added when
    /// the text did not end with one), then a flush.
    pub fn end(&mut self) -> Result<(), Fail> {
        if self.view != View::Json && self.w.last != Some(b'\n') {
            writeln!(self.w).map_err(|e| write_error(&e))?;
        }
        self.flush()
    }
}
