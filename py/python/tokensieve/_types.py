"""Type names of the tokensieve API (for annotations; nothing here runs on the hot path)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, NotRequired, Protocol, TypedDict

if TYPE_CHECKING:
    from typing_extensions import Buffer

    from ._tokensieve import Event

#: The wire formats a :class:`~tokensieve.Sieve` reads (``tokensieve.DIALECTS`` at run time).
Dialect = Literal["anthropic-xml", "passthrough", "hermes", "morph-xml", "qwen3-coder", "minimax-m2", "glm-4.5", "harmony", "kimi-k2", "deepseek-v3.1", "deepseek-v3", "mistral", "llama3-json", "pythonic", "deepseek-v3.2", "deepseek-v4", "seed-oss", "olmo-3", "lfm2", "cohere-command", "granite", "phi-4-mini", "apertus", "xlam", "gemma-4", "functiongemma", "glm-4.7", "glm-5", "minicpm5", "step-3", "hunyuan", "minimax-m3", "inkling", "kimi-k3"]
#: A block's type.
BlockType = Literal["text", "thinking", "tool_call", "tool_result"]
#: Which part of a tool call a ``tool_call`` chunk carries.
Part = Literal["name", "id", "input"]
#: What an event is (``finish`` and ``error`` come from a :class:`~tokensieve.Decoder` only).
EventKind = Literal["block_start", "chunk", "block_complete", "stop", "finish", "error"]
#: The streaming APIs a :class:`~tokensieve.Decoder` reads (``tokensieve.PROVIDERS`` at run
#: time: those this build decodes).
Provider = Literal["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "ollama"]
#: Why a provider response ended, normalised across providers (``finish`` events).
FinishReason = Literal[
    "stop", "length", "tool_calls", "content_filter", "refusal", "error", "other", "malformed_tool_call"
]
#: Where an ``error`` event came from: the provider, or the body's framing / JSON.
ErrorSource = Literal["provider", "framing"]
#: Why a tool call could not be parsed (``event.error["reason"]``).
ErrorReason = Literal[
    "malformed-body",
    "missing-name",
    "malformed-parameter",
    "unexpected-content",
    "unfinished",
    "too-large",
    "nesting-too-deep",
    "unknown-tool",
]


class SieveOptions(TypedDict, total=False):
    """The keyword arguments of :class:`~tokensieve.Sieve`: the keys of the JSON config."""

    tools: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...] | None
    thinking_tags: tuple[str, str] | list[str] | list[tuple[str, str] | list[str]] | None
    tool_call_markers: tuple[str, str] | list[str] | None
    start_in: Literal["text", "thinking"] | None
    stop_sequences: list[str] | tuple[str, ...] | None
    id_prefix: str | None
    on_malformed: Literal["text", "drop"] | None
    max_call_bytes: int | None
    unknown_tools: Literal["call", "fail"] | None


class DecoderOptions(SieveOptions, total=False):
    """The keyword arguments of :class:`~tokensieve.Decoder` (the keys of the decoder's JSON
    config, docs/providers.md): the text dialect and its keys, and the provider-only keys."""

    #: A dialect the provider's text runs through (``None``: text as it is).
    text_dialect: Dialect | None
    # Provider-only keys.
    #: AWS event stream (``bedrock``): the largest frame accepted (default 16 MiB).
    max_frame_bytes: int | None
    #: ``bedrock`` InvokeModelWithResponseStream: the format each ``chunk`` wraps
    #: (``"anthropic"``, the default, or ``"openai-chat"``).
    invoke_format: Literal["anthropic", "openai-chat"] | None


class Usage(TypedDict, total=False):
    """A ``finish`` event's token counts: the counters the provider gave."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int


class ToolCall(TypedDict):
    """A complete, successful tool call (:attr:`Collector.tool_calls <tokensieve.Collector.tool_calls>`)."""

    id: str
    name: str
    arguments: dict[str, Any]


class ToolCallInput(TypedDict):
    """A tool call to write (:func:`~tokensieve.format_tool_calls`): the name, the id where
    the format carries one, the arguments (absent or ``None``: ``{}``)."""

    name: str
    id: NotRequired[str | None]
    input: NotRequired[Mapping[str, Any] | None]


class ToolResultInput(TypedDict):
    """A tool result to write (:func:`~tokensieve.format_tool_results`)."""

    content: str
    tool_use_id: NotRequired[str | None]
    name: NotRequired[str | None]
    is_error: NotRequired[bool | None]


class Parser(Protocol):
    """What :func:`~tokensieve.stream` and :func:`~tokensieve.astream` drive: a
    :class:`~tokensieve.Sieve` or a :class:`~tokensieve.Decoder`."""

    def feed(self, data: str | Buffer, /) -> list[Event]: ...

    def finish(self) -> list[Event]: ...
