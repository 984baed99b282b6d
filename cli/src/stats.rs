//! `--stats`: counts instead of events, so a dataset can be scanned at the core's speed.
//!
//! Per event only counters move (the event is borrowed, its kind matched); a map entry is
//! allocated the first time a tool name is seen, and a key for each (rare) stream error.
//! The summary's keys (`--stats --json`) are documented in the README's CLI section.

use std::collections::BTreeMap;
use std::io::Write;

use tokensieve::{BlockType, ErrorReason, Event, FinishReason, Part};

use crate::stream::{Fail, write_error};

const BLOCK_TYPES: [BlockType; 4] = [
    BlockType::Text,
    BlockType::Thinking,
    BlockType::ToolCall,
    BlockType::ToolResult,
];

const REASONS: [ErrorReason; 8] = [
    ErrorReason::MalformedBody,
    ErrorReason::MissingName,
    ErrorReason::MalformedParameter,
    ErrorReason::UnexpectedContent,
    ErrorReason::Unfinished,
    ErrorReason::TooLarge,
    ErrorReason::NestingTooDeep,
    ErrorReason::UnknownTool,
];

const FINISHES: [FinishReason; 8] = [
    FinishReason::Stop,
    FinishReason::Length,
    FinishReason::ToolCalls,
    FinishReason::ContentFilter,
    FinishReason::Refusal,
    FinishReason::Error,
    FinishReason::Other,
    FinishReason::MalformedToolCall,
];

const EVENT_KINDS: [&str; 6] = [
    "block_start",
    "chunk",
    "block_complete",
    "stop",
    "finish",
    "error",
];

const BYTE_KINDS: [&str; 7] = [
    "text",
    "thinking",
    "tool_call_name",
    "tool_call_id",
    "tool_call_input",
    "tool_result",
    "visible",
];

const USAGE_KEYS: [&str; 5] = [
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
];

/// The counters of one run (over every input it read).
#[derive(Default)]
pub struct Stats {
    /// By [`EVENT_KINDS`].
    events: [u64; 6],
    /// Completed blocks by [`BlockType`] (its `repr(u8)` value).
    blocks: [u64; 4],
    /// Chunk bytes by [`BYTE_KINDS`].
    bytes: [u64; 7],
    /// Completed tool calls by name, failed ones included (`""`: no name).
    calls: BTreeMap<String, u64>,
    /// Failed tool calls by [`ErrorReason`] (its `repr(u8)` value).
    call_errors: [u64; 8],
    /// Stream errors (decode) by `source` or `source:code`.
    stream_errors: BTreeMap<String, u64>,
    /// Finish events by [`FinishReason`] (its `repr(u8)` value).
    finishes: [u64; 8],
    /// Sums of the usage counters of every finish event, by [`USAGE_KEYS`].
    usage: [u64; 5],
    /// The stream carried a provider or framing error, or finished with reason `error`.
    pub failed: bool,
}

/// Adds one to `map[key]`, allocating the key only the first time it is seen.
fn bump(map: &mut BTreeMap<String, u64>, key: &str) {
    match map.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            map.insert(key.to_owned(), 1);
        }
    }
}

impl Stats {
    /// Counts one event.
    pub fn event(&mut self, ev: &Event<'_>) {
        match ev {
            Event::BlockStart { .. } => self.events[0] += 1,
            Event::Chunk(c) => {
                self.events[1] += 1;
                let n = c.text.len() as u64;
                let kind = match (c.block_type, c.part) {
                    (BlockType::Text, _) => 0,
                    (BlockType::Thinking, _) => 1,
                    (BlockType::ToolCall, Some(Part::Name)) => 2,
                    (BlockType::ToolCall, Some(Part::Id)) => 3,
                    (BlockType::ToolCall, _) => 4,
                    (BlockType::ToolResult, _) => 5,
                };
                self.bytes[kind] += n;
                if c.visible() {
                    self.bytes[6] += n;
                }
            }
            Event::BlockComplete(b) => {
                self.events[2] += 1;
                self.blocks[b.block_type as usize] += 1;
                if b.block_type == BlockType::ToolCall {
                    bump(&mut self.calls, b.tool_name.unwrap_or(""));
                }
                if let Some(e) = &b.error {
                    self.call_errors[e.reason as usize] += 1;
                }
            }
            Event::Stop { .. } => self.events[3] += 1,
            Event::Finish(f) => {
                self.events[4] += 1;
                self.finishes[f.reason as usize] += 1;
                if f.reason == FinishReason::Error {
                    self.failed = true;
                }
                if let Some(u) = f.usage {
                    let counters = [
                        u.input_tokens,
                        u.output_tokens,
                        u.cache_read_tokens,
                        u.cache_write_tokens,
                        u.reasoning_tokens,
                    ];
                    for (sum, v) in self.usage.iter_mut().zip(counters) {
                        *sum += v.unwrap_or(0);
                    }
                }
            }
            Event::Error(e) => {
                self.events[5] += 1;
                self.failed = true;
                match e.code {
                    // Stream errors are rare: building the key each time costs nothing that matters.
                    Some(code) => {
                        let key = [e.source.as_str(), ":", code].concat();
                        bump(&mut self.stream_errors, &key);
                    }
                    None => bump(&mut self.stream_errors, e.source.as_str()),
                }
            }
        }
    }

    /// The summary as one JSON object (`--stats --json`).
    fn to_json(&self) -> serde_json::Value {
        use serde_json::{Map, Value};
        fn obj<'k>(pairs: impl Iterator<Item = (&'k str, u64)>) -> Value {
            Value::Object(
                pairs
                    .map(|(k, v)| (k.to_owned(), Value::from(v)))
                    .collect::<Map<_, _>>(),
            )
        }
        serde_json::json!({
            "events": obj(EVENT_KINDS.into_iter().zip(self.events)),
            "blocks": obj(BLOCK_TYPES.iter().map(|t| (t.as_str(), self.blocks[*t as usize]))),
            "bytes": obj(BYTE_KINDS.into_iter().zip(self.bytes)),
            "calls": obj(self.calls.iter().map(|(k, v)| (k.as_str(), *v))),
            "call_errors": obj(REASONS.iter().map(|r| (r.as_str(), self.call_errors[*r as usize]))),
            "stream_errors": obj(self.stream_errors.iter().map(|(k, v)| (k.as_str(), *v))),
            "finish_reasons": obj(FINISHES.iter().map(|r| (r.as_str(), self.finishes[*r as usize]))),
            "usage": obj(USAGE_KEYS.into_iter().zip(self.usage)),
        })
    }

    /// The summary for people: one aligned section per group; empty groups and zero rows
    /// of the open-ended groups are left out.
    fn human(&self) -> String {
        let mut sections: Vec<(&str, Vec<(String, u64)>)> = Vec::new();
        let rows = |pairs: &mut dyn Iterator<Item = (&str, u64)>, keep_zero: bool| {
            pairs
                .filter(|(_, v)| keep_zero || *v > 0)
                .map(|(k, v)| (k.to_owned(), v))
                .collect::<Vec<_>>()
        };
        sections.push((
            "events",
            rows(&mut EVENT_KINDS.into_iter().zip(self.events), true),
        ));
        sections.push((
            "blocks",
            rows(
                &mut BLOCK_TYPES
                    .iter()
                    .map(|t| (t.as_str(), self.blocks[*t as usize])),
                true,
            ),
        ));
        sections.push((
            "bytes",
            rows(&mut BYTE_KINDS.into_iter().zip(self.bytes), true),
        ));
        let calls = self
            .calls
            .iter()
            .map(|(k, v)| {
                let name = if k.is_empty() { "(no name)" } else { k };
                (name.to_owned(), *v)
            })
            .collect();
        sections.push(("calls", calls));
        sections.push((
            "call errors",
            rows(
                &mut REASONS
                    .iter()
                    .map(|r| (r.as_str(), self.call_errors[*r as usize])),
                false,
            ),
        ));
        sections.push((
            "stream errors",
            self.stream_errors
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
        ));
        sections.push((
            "finish reasons",
            rows(
                &mut FINISHES
                    .iter()
                    .map(|r| (r.as_str(), self.finishes[*r as usize])),
                false,
            ),
        ));
        if self.events[4] > 0 {
            sections.push((
                "usage",
                rows(&mut USAGE_KEYS.into_iter().zip(self.usage), true),
            ));
        }
        let width = sections
            .iter()
            .flat_map(|(_, r)| r.iter().map(|(k, _)| k.chars().count()))
            .max()
            .unwrap_or(0);
        let num = sections
            .iter()
            .flat_map(|(_, r)| r.iter().map(|(_, v)| v.to_string().len()))
            .max()
            .unwrap_or(1);
        let mut s = String::new();
        for (title, rows) in sections.iter().filter(|(_, r)| !r.is_empty()) {
            if !s.is_empty() {
                s.push('\n');
            }
            s.push_str(title);
            s.push('\n');
            for (k, v) in rows {
                let pad = width - k.chars().count();
                s.push_str(&format!("  {k}{:pad$}  {v:>num$}\n", ""));
            }
        }
        s
    }

    /// Prints the summary: JSON (one object, one line) or the aligned table.
    pub fn print(&self, json: bool) -> Result<(), Fail> {
        let text = if json {
            format!("{}\n", self.to_json())
        } else {
            self.human()
        };
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| write_error(&e))
    }
}
