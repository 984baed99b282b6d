//! The three ways `tokensieve` prints events: JSON lines, a human view, and the visible text.

use std::io::Write;

use tokensieve::accumulate::{Collector, OwnedEvent};
use tokensieve::{BlockType, Event, Part};

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

/// Writes events in one of the three views.
pub struct Output<W: Write> {
    view: View,
    w: W,
    color: bool,
    collector: Collector,
    /// For the human view: the name and input of the call being read.
    call: (String, String),
}

impl<W: Write> Output<W> {
    pub fn new(view: View, w: W, color: bool) -> Self {
        Output {
            view,
            w,
            color,
            collector: Collector::new(),
            call: (String::new(), String::new()),
        }
    }

    pub fn event(&mut self, ev: &Event<'_>) -> Result<(), String> {
        let owned = self.collector.push(ev);
        let r = match self.view {
            View::Json => writeln!(self.w, "{}", owned.to_json()),
            View::Visible => match ev {
                Event::Chunk(c) if c.visible() => write!(self.w, "{}", c.text),
                _ => Ok(()),
            },
            View::Human => self.human(ev, &owned),
        };
        r.and_then(|()| self.w.flush())
            .map_err(|e| format!("writing output: {e}"))
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
            _ => Ok(()),
        }
    }

    pub fn end(&mut self) -> Result<(), String> {
        if self.view != View::Json {
            writeln!(self.w).map_err(|e| format!("writing output: {e}"))?;
        }
        Ok(())
    }
}
