"""Checked by `mypy --strict` (py/test.sh), not run by pytest: the stubs type the API as
documented, and misuse is a type error (each `type: ignore` below must be needed, which
--strict's warn_unused_ignores verifies)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

from typing_extensions import assert_type

import tokensieve
from tokensieve import Collector, Event, Sieve, ToolCall

sieve = Sieve("anthropic-xml", tools=[{"name": "f", "schema": {"type": "object"}}],
              thinking_tags=("<t>", "</t>"), start_in="thinking", stop_sequences=["\nUser:"],
              id_prefix="c", on_malformed="drop", max_call_bytes=1 << 20)
Sieve()  # dialect defaults to hermes
sieve.prefill("Assistant: ")
events = sieve.feed("Hi") + sieve.feed(b"!") + sieve.feed(bytearray(b"?")) + sieve.feed(memoryview(b"."))
events += sieve.finish()
assert_type(events, list[Event])
sieve.reset()
assert_type(sieve.is_done, bool)
assert_type(sieve.dialect, Literal["anthropic-xml", "passthrough", "hermes", "morph-xml", "qwen3-coder"])

for e in events:
    assert_type(e.event, Literal["block_start", "chunk", "block_complete", "stop"])
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

# Misuse the stubs reject.
Sieve("openai")  # type: ignore[arg-type]
Sieve("hermes", stop_sequences="STOP")  # type: ignore[arg-type]
Sieve("hermes", colour=1)  # type: ignore[call-arg]
sieve.feed(1)  # type: ignore[arg-type]
tokensieve.parse("x", max_call_bytes="1")  # type: ignore[arg-type]
events[0].text = "x"  # type: ignore[misc]
