"""The writers: format_tool_calls, format_tool_results, stop_sequences. What they write, a
Sieve of the same config reads back as the same calls and results."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokensieve
from tokensieve import Collector

CALLS: list[tokensieve.ToolCallInput] = [
    {"name": "get_weather", "id": "call_0", "input": {"city": "Paris", "days": 3, "t": 1.5}},
    {"name": "search", "input": {"q": 'a </tool_call> <|call|> "b"', "tags": ["x", None], "o": {"k": True}}},
]

# Dialects whose calls carry everything the round trip compares (the XML-parameter formats
# guess untyped values back: they get schemas below).
DIALECTS = ["hermes", "kimi-k2", "mistral", "harmony", "pythonic", "deepseek-v3.1", "llama3-json", "gemma-4"]
TYPED = {
    "name": "get_weather",
    "schema": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "t": {"type": "number"}}},
}


def calls_back(dialect: Any, text: str, **config: Any) -> list[tuple[str, dict[str, Any]]]:
    sieve = tokensieve.Sieve(dialect, **config)
    c = Collector(sieve.feed(text) + sieve.finish())
    assert c.failed_calls == []
    return [(t["name"], t["arguments"]) for t in c.tool_calls]


WANT = [(c["name"], c.get("input") or {}) for c in CALLS]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_calls_round_trip(dialect: tokensieve.Dialect) -> None:
    text = tokensieve.format_tool_calls(dialect, CALLS)
    assert calls_back(dialect, text) == WANT, text


@pytest.mark.parametrize("dialect", ["qwen3-coder", "anthropic-xml", "glm-4.5", "minimax-m2"])
def test_xml_formats_round_trip_with_typed_tools(dialect: tokensieve.Dialect) -> None:
    text = tokensieve.format_tool_calls(dialect, CALLS, tools=[TYPED])
    assert calls_back(dialect, text, tools=[TYPED]) == WANT, text


def test_a_description_round_trips() -> None:
    described = {"shape": "json-call", "wrapper": ["<call>", "</call>"]}
    text = tokensieve.format_tool_calls(described, CALLS)
    assert text.startswith("<call>")
    assert calls_back(described, text) == WANT


def test_exact_text_and_numbers_as_written() -> None:
    assert (
        tokensieve.format_tool_calls("hermes", [{"name": "f", "input": {"n": 12345678901234567890123, "x": None}}])
        == '<tool_call>\n{"name": "f", "arguments": {"n": 12345678901234567890123, "x": null}}\n</tool_call>'
    )
    assert tokensieve.format_tool_calls("mistral", [{"name": "f", "id": "abcdefghi"}]) == "[TOOL_CALLS]f[CALL_ID]abcdefghi[ARGS]{}"
    assert tokensieve.format_tool_calls("hermes", []) == ""
    # Any iterable of dicts.
    assert tokensieve.format_tool_calls("pythonic", ({"name": "f", "input": {"ok": True}} for _ in range(2))) == "[f(ok=True), f(ok=True)]"


def test_results() -> None:
    text = tokensieve.format_tool_results(
        "kimi-k2",
        [
            {"tool_use_id": "functions.get_weather:0", "name": "get_weather", "content": "18°C"},
            {"content": "ENOENT", "is_error": True},
        ],
    )
    assert text == (
        "<|im_system|>get_weather<|im_middle|>## Return of functions.get_weather:0\n18°C<|im_end|>"
        "<|im_system|>tool<|im_middle|>ENOENT<|im_end|>"
    )
    text = tokensieve.format_tool_results("hermes", [{"content": "a </tool_response> b"}])
    assert len(Collector(tokensieve.parse(text, "hermes")).tool_results) == 1


def test_stop_sequences() -> None:
    assert tokensieve.stop_sequences("harmony") == ["<|return|>", "<|call|>"]
    assert tokensieve.stop_sequences("anthropic-xml") == ["\nHuman:", "\nUser:"]
    assert tokensieve.stop_sequences("passthrough") == []
    for d in tokensieve.DIALECTS:
        assert isinstance(tokensieve.stop_sequences(d), list)


def test_unknown_dialects() -> None:
    with pytest.raises(tokensieve.ConfigError, match="hermes"):
        tokensieve.format_tool_calls("nope", CALLS)  # type: ignore[arg-type]
    with pytest.raises(tokensieve.ConfigError, match="hermes"):
        tokensieve.format_tool_results("nope", [])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="dialect"):
        tokensieve.stop_sequences("nope")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        tokensieve.stop_sequences(3)  # type: ignore[arg-type]


def test_bad_input() -> None:
    bad: list[tuple[Any, str]] = [
        ([{"input": {}}], r'calls: \[0\]: no "name" string'),
        ([{"name": "f", "input": [1]}], r'calls: \[0\]: "input" is not an object'),
        ([{"name": "f", "input": {"x": float("nan")}}], "calls: cannot be written as JSON"),
    ]
    for calls, message in bad:
        with pytest.raises(tokensieve.FormatError, match=message):
            tokensieve.format_tool_calls("hermes", calls)
    with pytest.raises(ValueError, match="the name cannot be written"):
        tokensieve.format_tool_calls("pythonic", [{"name": "a b"}])
    with pytest.raises(tokensieve.ArgumentError, match="cannot be written as JSON"):
        tokensieve.format_tool_calls("hermes", [{"name": "f", "input": {"x": object()}}])
    with pytest.raises(tokensieve.ArgumentError, match="list of dicts"):
        tokensieve.format_tool_calls("hermes", {"name": "f"})  # type: ignore[dict-item]
    with pytest.raises(tokensieve.FormatError, match=r'results: \[0\]: no "content" string'):
        tokensieve.format_tool_results("hermes", [{"name": "f"}])  # type: ignore[typeddict-item]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
names = st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(
    dialect=st.sampled_from(["hermes", "kimi-k2", "harmony", "deepseek-v3.1", "mistral"]),
    calls=st.lists(st.tuples(names, st.dictionaries(st.text(min_size=1, max_size=8), json_values, max_size=4)), min_size=1, max_size=3),
)
def test_random_calls_round_trip(dialect: tokensieve.Dialect, calls: list[tuple[str, dict[str, Any]]]) -> None:
    given_calls: list[tokensieve.ToolCallInput] = [{"name": n, "input": i} for n, i in calls]
    text = tokensieve.format_tool_calls(dialect, given_calls)
    back = calls_back(dialect, text)
    assert back == [(n, json.loads(json.dumps(i))) for n, i in calls], text
