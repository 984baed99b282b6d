//! The Responses wire vocabulary: the event `type`s and output item types the mapper
//! reads, the host tools' items made whole from their snapshot, and how a custom call's
//! free-form input is written as an object.

/// The document's event (its `type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ev {
    /// No `type` (yet): a whole response body, or a bare error body.
    Unknown,
    /// `response.created`, `.in_progress`, `.queued`: read for id, model, usage.
    Lifecycle,
    Completed,
    Incomplete,
    Failed,
    ItemAdded,
    ItemDone,
    TextDelta,
    RefusalDelta,
    /// `reasoning_summary_text.delta`, `reasoning_text.delta`.
    ThinkingDelta,
    /// `function_call_arguments.delta`, `mcp_call_arguments.delta`.
    ArgsDelta,
    /// `custom_tool_call_input.delta`: free-form input text.
    CustomDelta,
    /// `function_call_arguments.done`, `mcp_call_arguments.done`: the whole arguments (read
    /// only for a call that had no delta).
    ArgsDone,
    /// `custom_tool_call_input.done`: the whole input (the same).
    CustomDone,
    Error,
    /// An event this mapping does not use.
    Other,
}

pub(super) fn ev_of(ty: &[u8]) -> Ev {
    match ty {
        b"response.created" | b"response.in_progress" | b"response.queued" => Ev::Lifecycle,
        b"response.completed" => Ev::Completed,
        b"response.incomplete" => Ev::Incomplete,
        b"response.failed" => Ev::Failed,
        b"response.output_item.added" => Ev::ItemAdded,
        b"response.output_item.done" => Ev::ItemDone,
        b"response.output_text.delta" => Ev::TextDelta,
        b"response.refusal.delta" => Ev::RefusalDelta,
        b"response.reasoning_summary_text.delta" | b"response.reasoning_text.delta" => {
            Ev::ThinkingDelta
        }
        b"response.function_call_arguments.delta" | b"response.mcp_call_arguments.delta" => {
            Ev::ArgsDelta
        }
        b"response.custom_tool_call_input.delta" => Ev::CustomDelta,
        b"response.function_call_arguments.done" | b"response.mcp_call_arguments.done" => {
            Ev::ArgsDone
        }
        b"response.custom_tool_call_input.done" => Ev::CustomDone,
        b"error" => Ev::Error,
        _ => Ev::Other,
    }
}

/// An output item's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Unknown,
    Message,
    Reasoning,
    FunctionCall,
    /// `custom_tool_call`: free-form input (docs/providers.md: input `{"input": "…"}`).
    Custom,
    /// `mcp_call`: run by the server; its `arguments` stream, its `output` is a result.
    Mcp,
    /// `compaction`: a thinking block marked `compaction`, `redacted` its
    /// `encrypted_content` (docs/providers.md).
    Compaction,
    /// An item made whole from its done snapshot (`WHOLE_ITEMS[i]`).
    Whole(u8),
    /// An item type this mapping does not know: skipped.
    Other,
}

/// Calls of the host's built-in tools, which stream nothing the mapping reads: each is one
/// tool_call block made from its `output_item.done` item (or a whole body's item) — (item
/// type, tool name, run by the server). Their input is the item's members but `type`,
/// `status` and the ids that name it. The server-run ones (`web_search_call`,
/// `file_search_call`, `code_interpreter_call`, `image_generation_call`) are marked `server`:
/// the host reads them, it does not answer them (issue 25: nothing that carries data is
/// skipped).
pub(super) const WHOLE_ITEMS: [(&[u8], &str, bool); 8] = [
    (b"shell_call", "shell", false),
    (b"local_shell_call", "local_shell", false),
    (b"apply_patch_call", "apply_patch", false),
    (b"computer_call", "computer", false),
    (b"web_search_call", "web_search", true),
    (b"file_search_call", "file_search", true),
    (b"code_interpreter_call", "code_interpreter", true),
    (b"image_generation_call", "image_generation", true),
];

/// A custom tool call's input: its free-form text as the JSON string `input` of an object
/// (rule 9: the input is an object; its chunks concatenate to it).
pub(super) const CUSTOM_OPEN: &[u8] = b"{\"input\":\"";
pub(super) const CUSTOM_CLOSE: &[u8] = b"\"}";

pub(super) fn kind_of(ty: &[u8]) -> Kind {
    match ty {
        b"message" => Kind::Message,
        b"reasoning" => Kind::Reasoning,
        b"function_call" => Kind::FunctionCall,
        b"custom_tool_call" => Kind::Custom,
        b"mcp_call" => Kind::Mcp,
        b"compaction" => Kind::Compaction,
        _ => match WHOLE_ITEMS.iter().position(|w| w.0 == ty) {
            Some(i) => Kind::Whole(i as u8),
            None => Kind::Other,
        },
    }
}
