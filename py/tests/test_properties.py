"""Chunk invariance (DESIGN.md rule 4) as a hypothesis property: any split of the same bytes
gives the same events after coalescing, and they keep the event model's invariants
(conformance/check.py's lint: rules 1, 3, 8, 9)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokensieve

from conftest import check, coalesced

TOOLS = [{"name": "f", "schema": {"type": "object", "properties": {
    "a": {"type": "string"}, "n": {"type": "integer"}}}}]

# Pieces of every dialect's wire syntax, text that looks like it, and characters of every
# UTF-8 length: random sequences of them reach the markers, partial tags and escapes.
FRAGMENTS = [
    "<think>", "</think>", "<thinking>", "</thinking>", "<tool_call>", "</tool_call>",
    "<tool_response>", "</tool_response>", '{"name": "f", "arguments": {"a": "x", "n": 1}}',
    "{name: 'f', arguments: {a: 'y'}}", '[{"name": "f"}]', "<function_calls>", "</function_calls>",
    '<invoke name="f">', "</invoke>", '<parameter name="a">', "</parameter>",
    "<function_results>", "<result>", "</result>", "<stdout>", "</stdout>",
    "<f>", "</f>", "<a>", "</a>", "<n>", "</n>", "<function=f>", "</function>",
    "<parameter=a>", "<", ">", "/", '"', "\\", "\\u00e9", "{", "}", "[", "]", ",", ":",
    " ", "\n", "a", "Hello", "é", "€", "😀", "STOP", "<b>", "a < b",
]

text = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)
data = st.one_of(
    text.map(str.encode),
    st.tuples(text, st.binary(max_size=4), text).map(lambda t: t[0].encode() + t[1] + t[2].encode()),
)


def config(dialect: str) -> dict[str, Any]:
    c: dict[str, Any] = {"dialect": dialect, "stop_sequences": ["STOP"]}
    if dialect != "passthrough":
        c["tools"] = TOOLS
    return c


def events(cfg: dict[str, Any], pieces: list[bytes]) -> list[dict[str, Any]]:
    sieve = tokensieve.Sieve(**cfg)
    out: list[tokensieve.Event] = []
    for p in pieces:
        out += sieve.feed(p)
    out += sieve.finish()
    return coalesced(out)


@pytest.mark.parametrize("dialect", tokensieve.DIALECTS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=data, cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_chunk_invariance(dialect: str, data: bytes, cuts: list[int]) -> None:
    cfg = config(dialect)
    whole = events(cfg, [data])
    assert check.lint(whole) == []
    edges = sorted({c for c in cuts if c < len(data)} | {0, len(data)})
    pieces = [data[a:b] for a, b in zip(edges, edges[1:])]
    assert check.compare(whole, events(cfg, pieces)) is None
    singles = [data[i:i + 1] for i in range(len(data))]
    assert check.compare(whole, events(cfg, singles)) is None
