"""Checked by `mypy --strict` (py/test.sh), not run by pytest: the stubs type the API as
documented, and misuse is a type error (each `type: ignore` below must be needed, which
--strict's warn_unused_ignores verifies)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

from typing_extensions import assert_type

import tokensieve
from tokensieve import Collector, Decoder, Event, Sieve, ToolCall, Usage

sieve = Sieve("anthropic-xml", tools=[{"name": "f", "schema": {"type": "object"}}],
              thinking_tags=("<t>", "</t>"), start_in="thinking", stop_sequences=["\nUser:"],
              id_prefix="c", on_malformed="drop", max_call_bytes=1 << 20)
Sieve("hermes")  # the dialect is required
sieve.prefill("Assistant: ")
events = sieve.feed("Hi") + sieve.feed(b"!") + sieve.feed(bytearray(b"?")) + sieve.feed(memoryview(b"."))
events += sieve.finish()
assert_type(events, list[Event])
sieve.reset()
assert_type(sieve.is_done, bool)
assert_type(sieve.dialect, tokensieve.Dialect)

for e in events:
    assert_type(e.event, Literal["block_start", "chunk", "block_complete", "stop", "finish", "error"])
    assert_type(e.text, str | None)
    assert_type(e.visible, bool | None)
    assert_type(e.index, int | None)
    assert_type(e.block, int | None)
    assert_type(e.depth, int | None)
    assert_type(e.type, Literal["text", "thinking", "tool_call", "tool_result"] | None)
    assert_type(e.part, Literal["name", "id", "input"] | None)
    assert_type(e.input, dict[str, Any] | None)
    assert_type(e.input_json, str | None)
    assert_type(e.error, dict[str, Any] | None)
    assert_type(e.is_error, Literal[True] | None)
    assert_type(e.sequence, str | None)
    assert_type(e.to_dict(), dict[str, Any])
    if e.visible and e.text is not None:
        print(e.text.upper())

parsed = tokensieve.parse("x", "hermes", prefill="<think>", tool_call_markers=["<c>", "</c>"])
calls = Collector(parsed).tool_calls
assert_type(calls, list[ToolCall])
for call in calls:
    assert_type(call["arguments"], dict[str, Any])
    assert_type(call["id"], str)

it = tokensieve.stream(["a", b"b"], "passthrough")
assert_type(it, Iterator[Event])
tokensieve.stream(["a"], Sieve("qwen3-coder"))


async def chunks() -> AsyncIterator[bytes]:
    yield b"x"


async def consume() -> list[str]:
    return [e.text async for e in tokensieve.astream(chunks(), "hermes") if e.text]

asyncio.run(consume())

# Provider streams.
decoder = Decoder("openai-chat", text_dialect="hermes", tools=[{"name": "f", "schema": {}}],
                  id_prefix="c", on_malformed="drop", max_call_bytes=1 << 20,
                  max_frame_bytes=1 << 24)
Decoder()  # provider defaults to openai-chat
Decoder(provider="openai-chat")
assert_type(decoder.provider, Literal["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "ollama"])
assert_type(decoder.text_dialect, tokensieve.Dialect | None)
decoded = decoder.feed(b"data: [DONE]\n\n") + decoder.feed(memoryview(b"")) + decoder.finish()
assert_type(decoded, list[Event])
decoder.reset()
for e in decoded:
    assert_type(e.choice, int | None)
    assert_type(e.refusal, Literal[True] | None)
    assert_type(e.server, Literal[True] | None)
    assert_type(e.signature, str | None)
    assert_type(e.redacted, str | None)
    assert_type(
        e.reason,
        Literal["stop", "length", "tool_calls", "content_filter", "refusal", "error", "other", "malformed_tool_call"]
        | None,
    )
    assert_type(e.raw_reason, str | None)
    assert_type(e.usage, Usage | None)
    assert_type(e.response_id, str | None)
    assert_type(e.model, str | None)
    assert_type(e.source, Literal["provider", "framing"] | None)
    assert_type(e.code, str | None)
    assert_type(e.message, str | None)
    if e.usage is not None:
        print(e.usage.get("input_tokens", 0) + 1)
turn = Collector(tokensieve.stream([b"data: [DONE]\n\n"], provider="openai-chat"), choice=0)
assert_type(turn.finish, Event | None)
assert_type(turn.usage, Usage | None)
assert_type(turn.errors, list[Event])
assert_type(turn.refusal, str)
assert_type(tokensieve.parse(b"{}", provider="openai-chat", text_dialect="hermes"), list[Event])
assert_type(tokensieve.astream(chunks(), provider="openai-chat"), AsyncIterator[Event])
tokensieve.stream([b""], decoder)
assert_type(tokensieve.PROVIDERS, tuple[Literal["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "ollama"], ...])

# The writers.
to_write: list[tokensieve.ToolCallInput] = [{"name": "f", "id": "call_0", "input": {"a": 1}}, {"name": "g"}]
assert_type(tokensieve.format_tool_calls("hermes", to_write), str)
assert_type(tokensieve.format_tool_calls({"shape": "json-call", "wrapper": ["<c>", "</c>"]}, to_write, tools=[{"name": "f"}]), str)
results: list[tokensieve.ToolResultInput] = [{"content": "x", "tool_use_id": "call_0", "is_error": False}]
assert_type(tokensieve.format_tool_results("kimi-k2", results), str)
assert_type(tokensieve.stop_sequences("harmony"), list[str])
try:
    tokensieve.format_tool_calls("hermes", [{"name": "f", "input": {"x": float("nan")}}])
except tokensieve.FormatError as format_error:
    format_value_error: ValueError = format_error

# Misuse the stubs reject.
tokensieve.format_tool_calls("openai", to_write)  # type: ignore[arg-type]
tokensieve.format_tool_calls("hermes", [{"input": {}}])  # type: ignore[typeddict-item]
tokensieve.format_tool_results("hermes", [{"name": "f"}])  # type: ignore[typeddict-item]
tokensieve.stop_sequences("openai")  # type: ignore[arg-type]
Decoder("openai")  # type: ignore[arg-type]
Decoder("openai-chat", dialect="hermes")  # type: ignore[call-arg]
Decoder("openai-chat", max_frame_bytes="1")  # type: ignore[arg-type]
tokensieve.stream([b""], provider="openai-chat", prefill="x")  # type: ignore[call-overload]
Sieve("openai")  # type: ignore[arg-type]
Sieve("hermes", stop_sequences="STOP")  # type: ignore[arg-type]
Sieve("hermes", colour=1)  # type: ignore[call-arg]
sieve.feed(1)  # type: ignore[arg-type]
tokensieve.parse("x", "hermes", max_call_bytes="1")  # type: ignore[call-overload]
events[0].text = "x"  # type: ignore[misc]

# The package's exceptions: each is tokensieve.Error and the built-in it replaced.
try:
    Sieve("hermes", max_call_bytes=10)
except tokensieve.ConfigError as config_error:
    assert_type(config_error, tokensieve.ConfigError)
    value_error: ValueError = config_error
    package_error: tokensieve.Error = config_error
except tokensieve.ArgumentError as argument_error:
    type_error: TypeError = argument_error
except tokensieve.StateError as state_error:
    runtime_error: RuntimeError = state_error

# Copy and match.
import copy  # noqa: E402

assert_type(copy.copy(events[0]), Event)
match events[0]:
    case Event("chunk", text=str() as matched_text):
        assert_type(matched_text, str)
    case _:
        pass

# Events typed per kind: isinstance and class patterns narrow to the kind's attributes.
def speak(text: str) -> None: ...


for e in events:
    if isinstance(e, tokensieve.ChunkEvent):
        assert_type(e.event, Literal["chunk"])
        assert_type(e.text, str)
        assert_type(e.visible, bool)
        speak(e.text)
    match e:
        case tokensieve.ChunkEvent(text, "text"):
            assert_type(text, str)
            speak(text)
        case tokensieve.BlockStartEvent(block_type, index):
            assert_type(block_type, Literal["text", "thinking", "tool_call", "tool_result"])
            assert_type(index, int)
        case tokensieve.StopEvent(sequence):
            assert_type(sequence, str)
        case tokensieve.FinishEvent(reason=finish_reason):
            assert_type(finish_reason, tokensieve.FinishReason)
        case tokensieve.ErrorEvent(message=error_message):
            assert_type(error_message, str)
        case _:
            pass
    speak(e.text)  # type: ignore[arg-type]
