//! `tokensieve`: parse model output into events from the command line.
//!
//! ```text
//! tokensieve parse (--config FILE | --dialect D [--tools FILE]) [--prefill FILE]
//!                  [--chunk N] [--json | --visible-only] [FILE|-]
//! tokensieve demo [--fast]
//! tokensieve dialects
//! ```

use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;
use std::time::Duration;

use tokensieve::accumulate::{Collector, OwnedEvent};
use tokensieve::{BlockType, ConfigBuf, Dialect, Event, Part, Sieve};

const USAGE: &str = "usage:
  tokensieve parse (--config FILE | --dialect D [--tools FILE]) [--prefill FILE]
                   [--chunk N] [--json | --visible-only] [FILE|-]
  tokensieve demo [--fast]
  tokensieve dialects

parse   reads model output (FILE, or standard input) and prints its events:
        --json          one JSON event per line (the conformance-vector form)
        --visible-only  only the text a text-to-speech engine should speak
        (default)       a human view: text, thinking dimmed, tool calls as → name(args)
        --chunk N       feed the input N bytes at a time (default: all at once)
        --config FILE   a JSON config object ({\"dialect\": …, \"tools\": […], …})
        --dialect D     anthropic-xml | passthrough (| hermes | morph-xml | qwen3-coder)
        --tools FILE    a JSON list of {name, schema}
        --prefill FILE  text that advances the parser silently first
demo    streams a bundled transcript through the parser in token-sized chunks
dialects lists the dialects this build parses";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("parse") => parse(&args[1..]),
        Some("demo") => demo(&args[1..]),
        Some("dialects") => {
            for d in Dialect::ALL.into_iter().filter(|d| d.is_supported()) {
                println!("{}", d.name());
            }
            Ok(())
        }
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(format!("expected a command\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tokensieve: {e}");
            ExitCode::from(2)
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum View {
    Json,
    Human,
    Visible,
}

fn read_file(path: &str) -> Result<Vec<u8>, String> {
    if path == "-" {
        let mut v = Vec::new();
        std::io::stdin()
            .read_to_end(&mut v)
            .map_err(|e| format!("reading standard input: {e}"))?;
        return Ok(v);
    }
    std::fs::read(path).map_err(|e| format!("reading {path}: {e}"))
}

fn parse(args: &[String]) -> Result<(), String> {
    let mut config: Option<ConfigBuf> = None;
    let mut dialect: Option<Dialect> = None;
    let mut tools: Option<String> = None;
    let mut prefill: Option<Vec<u8>> = None;
    let mut chunk = 0usize;
    let mut view = View::Human;
    let mut file: Option<String> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match a.as_str() {
            "--config" => {
                let path = value("--config")?;
                let text = String::from_utf8(read_file(&path)?)
                    .map_err(|_| format!("{path}: not UTF-8"))?;
                config = Some(ConfigBuf::from_json(&text).map_err(|e| format!("{path}: {e}"))?);
            }
            "--dialect" => {
                let d = value("--dialect")?;
                dialect =
                    Some(Dialect::from_name(&d).ok_or_else(|| format!("unknown dialect `{d}`"))?);
            }
            "--tools" => tools = Some(value("--tools")?),
            "--prefill" => prefill = Some(read_file(&value("--prefill")?)?),
            "--chunk" => {
                let n = value("--chunk")?;
                chunk = n
                    .parse()
                    .map_err(|_| format!("--chunk needs a number, got `{n}`"))?;
            }
            "--json" => view = View::Json,
            "--visible-only" => view = View::Visible,
            "-" => file = Some("-".into()),
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`\n\n{USAGE}")),
            s => file = Some(s.into()),
        }
    }
    let config = match (config, dialect) {
        (Some(_), Some(_)) => return Err("give --config or --dialect, not both".into()),
        (Some(c), None) => c,
        (None, Some(d)) => {
            let mut c = ConfigBuf::new(d);
            if let Some(path) = tools {
                let text = String::from_utf8(read_file(&path)?)
                    .map_err(|_| format!("{path}: not UTF-8"))?;
                let wrapped = format!("{{\"dialect\":\"{}\",\"tools\":{}}}", d.name(), text);
                c.tools = ConfigBuf::from_json(&wrapped)
                    .map_err(|e| format!("{path}: {e}"))?
                    .tools;
            }
            c
        }
        (None, None) => return Err(format!("give --config or --dialect\n\n{USAGE}")),
    };
    let input = read_file(file.as_deref().unwrap_or("-"))?;
    let mut sieve = Sieve::from_config_buf(config).map_err(|e| e.to_string())?;
    if let Some(p) = prefill {
        sieve.prefill(&p).map_err(|e| e.to_string())?;
    }
    let stdout = std::io::stdout();
    let mut out = Output::new(view, stdout.lock(), std::io::stdout().is_terminal());
    let size = if chunk == 0 {
        input.len().max(1)
    } else {
        chunk
    };
    for piece in input.chunks(size) {
        let mut rest = piece;
        while let Some(ev) = sieve.next(&mut rest) {
            out.event(&ev)?;
        }
    }
    sieve.finish();
    while let Some(ev) = sieve.next(&mut &b""[..]) {
        out.event(&ev)?;
    }
    out.end()
}

/// Writes events in one of the three views.
struct Output<W: Write> {
    view: View,
    w: W,
    color: bool,
    collector: Collector,
    /// For the human view: the name and input of the call being read.
    call: (String, String),
}

impl<W: Write> Output<W> {
    fn new(view: View, w: W, color: bool) -> Self {
        Output {
            view,
            w,
            color,
            collector: Collector::new(),
            call: (String::new(), String::new()),
        }
    }

    fn event(&mut self, ev: &Event<'_>) -> Result<(), String> {
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

    fn end(&mut self) -> Result<(), String> {
        if self.view != View::Json {
            writeln!(self.w).map_err(|e| format!("writing output: {e}"))?;
        }
        Ok(())
    }
}

/// A realistic transcript: text, thinking, two tool calls, a result, and the answer.
const DEMO: &str = concat!(
    "<thinking>The user wants the weather in Paris and Tokyo. I'll look both up ",
    "in one go, then compare.</thinking>\n",
    "Let me check the weather in both cities for you.\n\n",
    "<function_calls>\n",
    "<invoke name=\"get_weather\">\n",
    "<parameter name=\"city\">Paris</parameter>\n",
    "<parameter name=\"unit\">celsius</parameter>\n",
    "</invoke>\n",
    "<invoke name=\"get_weather\">\n",
    "<parameter name=\"city\">東京 (Tokyo)</parameter>\n",
    "<parameter name=\"days\">3</parameter>\n",
    "</invoke>\n",
    "</function_calls>\n",
    "<function_results>\n",
    "<result tool_use_id=\"call_0\">\n",
    "<tool_name>get_weather</tool_name>\n",
    "<stdout>Paris: 18°C, light rain. Tokyo: 24°C, sunny 🌞</stdout>\n",
    "</result>\n",
    "</function_results>\n\n",
    "It is 18°C and raining in Paris, while Tokyo is sunny at 24°C — pack an umbrella ",
    "for Paris only.",
);

fn demo(args: &[String]) -> Result<(), String> {
    let fast = args.iter().any(|a| a == "--fast");
    let mut config = ConfigBuf::new(Dialect::AnthropicXml);
    config
        .add_tool(
            "get_weather",
            r#"{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string"},"days":{"type":"integer"}}}"#,
        )
        .map_err(|e| e.to_string())?;
    let mut sieve = Sieve::from_config_buf(config).map_err(|e| e.to_string())?;
    let stdout = std::io::stdout();
    let color = stdout.is_terminal();
    let mut out = Output::new(View::Human, stdout.lock(), color);
    // Token-sized pieces of 1–7 bytes, cut anywhere (inside tags and UTF-8 characters too).
    let bytes = DEMO.as_bytes();
    let mut at = 0;
    let mut seed = 7u32;
    while at < bytes.len() {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let n = (1 + (seed >> 16) % 7) as usize;
        let piece = &bytes[at..(at + n).min(bytes.len())];
        at += piece.len();
        let mut rest = piece;
        while let Some(ev) = sieve.next(&mut rest) {
            out.event(&ev)?;
        }
        if !fast {
            std::thread::sleep(Duration::from_millis(12));
        }
    }
    sieve.finish();
    while let Some(ev) = sieve.next(&mut &b""[..]) {
        out.event(&ev)?;
    }
    out.end()
}
