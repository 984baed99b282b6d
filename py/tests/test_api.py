"""The Python API: inputs, config errors, states, events, helpers, threads, panics."""

from __future__ import annotations

import array
import asyncio
import inspect
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

import tokensieve
from tokensieve import Collector, Event, Sieve

from conftest import coalesced

HERMES = (
    "Let me check.<think>The user wants weather.</think>\n"
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}</tool_call>\n'
    "<tool_response>18°C</tool_response>It is 18°C in Paris."
)
WEATHER = {
    "name": "get_weather",
    "schema": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}},
}


def texts(events: list[Event]) -> str:
    return "".join(e.text for e in events if e.visible and e.text is not None)


# --- inputs ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    "make",
    [
        lambda s: s,
        lambda s: s.encode(),
        lambda s: bytearray(s.encode()),
        lambda s: memoryview(s.encode()),
        lambda s: array.array("B", s.encode()),
    ],
    ids=["str", "bytes", "bytearray", "memoryview", "array"],
)
def test_feed_accepts_str_and_buffers(make: Any) -> None:
    events = tokensieve.parse(make(HERMES), "hermes")
    assert texts(events) == "Let me check.\n\nIt is 18°C in Paris."
    assert Collector(events).tool_calls == [
        {"id": "call_0", "name": "get_weather", "arguments": {"city": "Paris", "days": 2}}
    ]


def test_feed_non_contiguous_memoryview() -> None:
    doubled = bytes(b for c in b"Hi <think>x</think>!" for b in (c, 0))
    view = memoryview(doubled)[::2]
    assert not view.c_contiguous
    assert texts(tokensieve.parse(view, "hermes")) == "Hi !"


@pytest.mark.parametrize("bad", [1, None, 1.5, ["a"], {"a": 1}, object()])
def test_feed_rejects_other_types(bad: object) -> None:
    sieve = Sieve("hermes")
    with pytest.raises(TypeError, match=r"feed\(\) takes str or a bytes-like object .*not "):
        sieve.feed(bad)  # type: ignore[arg-type]
    # The stream is unharmed.
    assert texts(sieve.feed("ok") + sieve.finish()) == "ok"


def test_feed_rejects_buffers_of_wider_items() -> None:
    with pytest.raises(TypeError, match="bytes-like"):
        Sieve("hermes").feed(array.array("i", [1, 2]))


def test_str_with_lone_surrogate_is_an_error() -> None:
    with pytest.raises(UnicodeEncodeError):
        Sieve("hermes").feed("a\ud800b")


def test_utf8_split_across_feeds() -> None:
    data = "a😀é<think>ü</think>".encode()
    sieve = Sieve("hermes")
    events: list[Event] = []
    for i in range(len(data)):
        events += sieve.feed(data[i:i + 1])
    events += sieve.finish()
    chunks = [e.text for e in events if e.event == "chunk"]
    assert "".join(c for c in chunks if c) == "a😀éü"
    for c in chunks:  # every chunk is whole characters
        assert c is not None and c.encode().decode() == c


def test_invalid_utf8_becomes_replacement_characters() -> None:
    events = tokensieve.parse(b"a\xffb\xe2\x82", "passthrough")
    assert texts(events) == "a\ufffdb\ufffd"


# --- config -----------------------------------------------------------------------------

def test_keywords_are_the_json_config_keys() -> None:
    params = inspect.signature(Sieve).parameters
    # No default dialect (every binding: a config names its dialect).
    assert list(params)[0] == "dialect" and params["dialect"].default is inspect.Parameter.empty
    keys = {n for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    # The keys of the JSON config (core/src/config/owned.rs, ConfigBuf::from_json), no more.
    assert keys == {
        "tools", "thinking_tags", "tool_call_markers", "start_in", "stop_sequences",
        "id_prefix", "on_malformed", "max_call_bytes", "unknown_tools",
    }


def test_every_key_is_used() -> None:
    sieve = Sieve(
        "hermes",
        tools=[WEATHER],
        thinking_tags=["<r>", "</r>"],
        tool_call_markers=("<call>", "</call>"),
        start_in="text",
        stop_sequences=["STOP"],
        id_prefix="t",
        on_malformed="drop",
        max_call_bytes=4096,
    )
    events = sieve.feed('<r>hm</r><call>{"name": "f"}</call><call>{bad</call>A STOP B') + sieve.finish()
    c = Collector(events)
    assert c.thinking == "hm"
    assert c.tool_calls == [{"id": "t0", "name": "f", "arguments": {}}]
    assert len(c.failed_calls) == 1 and c.text == "A "
    assert c.stop == "STOP" and sieve.is_done


def test_defaults() -> None:
    assert Sieve("hermes").dialect == "hermes"
    with pytest.raises(tokensieve.ConfigError, match="one of: .*hermes"):
        Sieve()  # type: ignore[call-arg]
    with pytest.raises(tokensieve.ConfigError, match="one of: .*anthropic-xml"):
        tokensieve.parse("hi")  # type: ignore[call-overload]
    assert repr(Sieve("anthropic-xml")) == "Sieve(dialect='anthropic-xml')"
    assert set(tokensieve.DIALECTS) == {"anthropic-xml", "passthrough", "hermes", "morph-xml", "qwen3-coder", "minimax-m2", "glm-4.5", "harmony", "kimi-k2", "deepseek-v3.1", "deepseek-v3", "mistral", "llama3-json", "pythonic", "deepseek-v3.2", "deepseek-v4", "seed-oss", "olmo-3", "lfm2", "cohere-command", "granite", "phi-4-mini", "apertus", "xlam", "gemma-4", "functiongemma", "minicpm5", "step-3", "hunyuan", "minimax-m3", "inkling", "kimi-k3"}


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"dialect": 3}, "`dialect`: must be a str, not int"),
        ({"tools": {"name": "x"}}, "`tools`: must be a list of"),
        ({"tools": "x"}, "`tools`: must be a list of"),
        ({"tools": ["x"]}, "`tools`: item 0 must be a dict"),
        ({"tools": [{"name": "x", "schema": {1, 2}}]}, "`tools`: not JSON data"),
        ({"thinking_tags": "<t>"}, "`thinking_tags`: must be a pair of strings"),
        ({"thinking_tags": ["<t>", 1]}, "`thinking_tags`: must be a pair of strings"),
        ({"tool_call_markers": 5}, "`tool_call_markers`: must be a pair"),
        ({"start_in": 0}, "`start_in`: must be a str"),
        ({"stop_sequences": "STOP"}, "`stop_sequences`: must be a list of strings, not a str"),
        ({"stop_sequences": ["a", 1]}, "`stop_sequences`: must be a list of strings, not int"),
        ({"id_prefix": b"x"}, "`id_prefix`: must be a str, not bytes"),
        ({"on_malformed": True}, "`on_malformed`: must be a str, not bool"),
        ({"max_call_bytes": "1"}, "`max_call_bytes`: must be an int, not str"),
        ({"max_call_bytes": True}, "`max_call_bytes`: must be an int, not bool"),
        ({"max_call_bytes": 1.0}, "`max_call_bytes`: must be an int, not float"),
    ],
)
def test_wrong_types_are_type_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(TypeError, match=match):
        Sieve(**{"dialect": "hermes", **kwargs})


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"dialect": "openai"}, r"`dialect`: must be one of .*hermes.* \(got 'openai'\)"),
        ({"dialect": "morph-xml"}, "`tools`: morph-xml needs at least one tool"),
        ({"tools": [{"schema": {}}]}, "`tools`: each tool needs a string name"),
        ({"tools": [{"name": "x", "parameters": {}}]}, "`parameters`: is not a known tool key"),
        ({"tools": [{"name": "x", "schema": "{not json"}]}, "`schema`: is not valid JSON"),
        ({"tools": [{"name": "x", "schema": {"a": float("nan")}}]}, "`tools`: not JSON data"),
        ({"thinking_tags": ["<t>"]}, r"`thinking_tags`: must be a pair of strings \[open, close\]"),
        ({"thinking_tags": ["", "</t>"]}, "`thinking_tags`: markers must be 1 to 64 bytes long"),
        ({"dialect": "anthropic-xml", "tool_call_markers": ["<a>", "</a>"]}, "`tool_call_markers`: applies to hermes only"),
        ({"start_in": "middle"}, r"`start_in`: must be \"text\" or \"thinking\" \(got 'middle'\)"),
        ({"stop_sequences": [""]}, "`stop_sequences`: each stop sequence must be 1 to 64 bytes"),
        ({"id_prefix": "x" * 41}, "`id_prefix`: must be at most 40 bytes"),
        ({"on_malformed": "raise"}, r"`on_malformed`: must be \"text\" or \"drop\" \(got 'raise'\)"),
        ({"max_call_bytes": 10}, r"`max_call_bytes`: must be at least 64 and below 256 MiB \(got 10\)"),
        ({"max_call_bytes": -1}, "`max_call_bytes`: must be at least 64"),
        ({"max_call_bytes": 1 << 70}, "`max_call_bytes`: must be at least 64"),
    ],
)
def test_bad_values_are_value_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Sieve(**{"dialect": "hermes", **kwargs})


def test_unknown_keyword_and_extra_positional() -> None:
    with pytest.raises(TypeError, match="colour"):
        Sieve("hermes", colour="red")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Sieve("hermes", None)  # type: ignore[misc]


def test_tools_accept_mappings_and_schema_text() -> None:
    from types import MappingProxyType

    tool = MappingProxyType({"name": "get_weather", "schema": json.dumps(WEATHER["schema"]), "description": "d"})
    events = tokensieve.parse(
        '<invoke name="get_weather"><parameter name="days">3</parameter></invoke>',
        "anthropic-xml",
        tools=(tool,),
    )
    assert events[0].event == "block_start"


# --- states -----------------------------------------------------------------------------

def test_prefill_then_stream() -> None:
    events = tokensieve.parse("hmm</think>Hi", "hermes", prefill="Assistant: <think>")
    assert [(e.type, e.content) for e in events if e.event == "block_complete"] == [
        ("thinking", "hmm"),
        ("text", "Hi"),
    ]


def test_prefill_after_feed_is_an_error() -> None:
    sieve = Sieve("hermes")
    sieve.feed("a")
    with pytest.raises(RuntimeError, match=r"prefill\(\) after feed\(\)"):
        sieve.prefill("b")
    sieve.reset()
    sieve.prefill("<think>")
    assert sieve.feed("x")[0].type == "thinking"


def test_feed_after_finish_is_an_error_until_reset() -> None:
    sieve = Sieve("hermes")
    first = sieve.feed("Hi") + sieve.finish()
    assert sieve.is_done
    assert sieve.finish() == []
    with pytest.raises(RuntimeError, match=r"feed\(\) after finish\(\)"):
        sieve.feed("x")
    sieve.reset()
    assert not sieve.is_done
    assert sieve.feed("Hi") + sieve.finish() == first


def test_after_a_stop_input_is_ignored() -> None:
    sieve = Sieve("hermes", stop_sequences=["\nUser:"])
    events = sieve.feed("Done.\nUser: more")
    assert events[-1].event == "stop" and events[-1].sequence == "\nUser:"
    assert sieve.is_done
    assert sieve.feed("ignored") == [] and sieve.finish() == []


def test_reset_mid_stream_forgets_accumulated_content() -> None:
    sieve = Sieve("hermes")
    sieve.feed("<think>half")
    sieve.reset()
    events = sieve.feed("new") + sieve.finish()
    assert [e.content for e in events if e.event == "block_complete"] == ["new"]


# --- events -----------------------------------------------------------------------------

def test_event_attributes_follow_the_json_form() -> None:
    events = tokensieve.parse(HERMES, "hermes")
    for e in events:
        d = e.to_dict()
        for key in ("event", "index", "type", "text", "visible", "block", "depth", "part",
                    "tool_name", "tool_id", "content", "input", "error", "is_error", "sequence"):
            value = getattr(e, key)
            if key in d:
                assert value == d[key], key
            else:
                assert value is None, key
    call = [e for e in events if e.event == "block_complete" and e.type == "tool_call"][0]
    assert list(call.to_dict()) == ["event", "index", "type", "tool_name", "tool_id", "input"]
    chunk = [e for e in events if e.part == "input"][0]
    assert list(chunk.to_dict()) == ["event", "text", "type", "visible", "block", "depth", "part", "tool_name", "tool_id"]


def test_to_dict_is_the_cli_json_form() -> None:
    """The same events as `tokensieve parse --json` (the conformance vectors check this for
    every vector; here one known line)."""
    events = tokensieve.parse(HERMES, "hermes")
    line = json.dumps(events[-1].to_dict(), ensure_ascii=False, separators=(",", ":"))
    assert line == '{"event":"block_complete","index":6,"type":"text","content":"It is 18°C in Paris."}'


def test_input_is_a_new_dict_and_input_json_keeps_numbers() -> None:
    events = tokensieve.parse('<tool_call>{"name": "f", "arguments": {"x": 1.50, "n": 12345678901234567890}}</tool_call>', "hermes")
    call = [e for e in events if e.event == "block_complete"][0]
    assert call.input_json == '{"x":1.50,"n":12345678901234567890}'
    assert call.input == {"x": 1.5, "n": 12345678901234567890}
    first = call.input
    assert first is not None
    first["x"] = 0
    assert call.input == {"x": 1.5, "n": 12345678901234567890}


def test_failed_call_error() -> None:
    events = tokensieve.parse("<tool_call>{name: }</tool_call>after", "hermes")
    failed = Collector(events).failed_calls
    assert len(failed) == 1
    error = failed[0].error
    assert error is not None and error["raw"] == "<tool_call>{name: }</tool_call>"
    assert error["reason"] in ("malformed-body", "missing-name")
    assert failed[0].input is None and failed[0].input_json is None


def test_error_results() -> None:
    events = tokensieve.parse(
        '<function_results><result tool_use_id="t1"><tool_name>run</tool_name><error>boom</error></result></function_results>',
        "anthropic-xml",
    )
    result = Collector(events).tool_results[0]
    assert result.is_error is True and result.content == "boom"
    assert result.tool_id == "t1" and result.tool_name == "run"


def test_events_are_immutable_hashable_and_compare_by_value() -> None:
    a = tokensieve.parse(HERMES, "hermes")
    b = tokensieve.parse(HERMES.encode(), "hermes")
    assert a == b and a[1] is not b[1]
    assert {hash(e) for e in a} == {hash(e) for e in b}
    assert a[0] != a[1] and a[0] != "block_start" and a[0] != a[0].to_dict()
    with pytest.raises(AttributeError):
        a[1].text = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        Event()  # type: ignore[call-arg]
    assert repr(a[1]) == "ChunkEvent(event='chunk', text='Let me check.', type='text', visible=True, block=0, depth=0)"


# --- helpers ----------------------------------------------------------------------------

def test_stream_over_mixed_chunks() -> None:
    data = HERMES.encode()
    chunks: list[str | bytes] = [data[i:i + 3] for i in range(0, len(data), 3)]
    chunks[0] = chunks[0].decode() if isinstance(chunks[0], bytes) else chunks[0]
    assert coalesced(list(tokensieve.stream(chunks, "hermes"))) == coalesced(tokensieve.parse(HERMES, "hermes"))


def test_stream_checks_config_at_the_call() -> None:
    with pytest.raises(ValueError, match="dialect"):
        tokensieve.stream([], "nope")  # type: ignore[arg-type]


def test_stream_drives_a_given_parser() -> None:
    sieve = Sieve("hermes", id_prefix="x")
    events = list(tokensieve.stream(iter([HERMES]), sieve))
    assert Collector(events).tool_calls[0]["id"] == "x0"
    with pytest.raises(TypeError, match="with a dialect name"):
        tokensieve.stream([], sieve, id_prefix="y")
    with pytest.raises(TypeError, match="a dialect name or a parser"):
        tokensieve.stream([], 5)  # type: ignore[arg-type]


def test_astream() -> None:
    async def deltas() -> AsyncIterator[str]:
        for i in range(0, len(HERMES), 5):
            await asyncio.sleep(0)
            yield HERMES[i:i + 5]

    async def main() -> list[Event]:
        return [e async for e in tokensieve.astream(deltas(), "hermes", prefill="")]

    assert coalesced(asyncio.run(main())) == coalesced(tokensieve.parse(HERMES, "hermes"))


def test_collector() -> None:
    c = Collector()
    for e in tokensieve.stream([HERMES[:20], HERMES[20:]], "hermes"):
        c.push(e)
    assert c.text == "Let me check.\n\nIt is 18°C in Paris."
    assert c.thinking == "The user wants weather."
    assert c.tool_calls == [{"id": "call_0", "name": "get_weather", "arguments": {"city": "Paris", "days": 2}}]
    assert [r.content for r in c.tool_results] == ["18°C"]
    assert c.stop is None and c.failed_calls == []
    assert repr(c) == "Collector(7 blocks, 1 tool calls)"


# --- large inputs (GIL released), threads, panics ---------------------------------------

BIG = (HERMES * (3 * tokensieve._tokensieve.RELEASE_GIL_AT // len(HERMES) + 1)).encode()


def test_large_inputs_give_the_same_events() -> None:
    assert len(BIG) >= tokensieve._tokensieve.RELEASE_GIL_AT
    whole = tokensieve.parse(BIG, "hermes")
    sieve = Sieve("hermes")
    pieces: list[Event] = []
    for i in range(0, len(BIG), 1000):
        pieces += sieve.feed(BIG[i:i + 1000])
    pieces += sieve.finish()
    assert coalesced(whole) == coalesced(pieces)
    # bytearray (copied first) too
    assert tokensieve.parse(bytearray(BIG), "hermes") == whole


def test_concurrent_use_is_an_error_and_the_gil_is_released() -> None:
    """While one thread is inside feed() on a large input (GIL released), another thread
    runs Python code and gets RuntimeError from the same Sieve: an error, not a race."""
    sieve = Sieve("hermes")
    big = BIG * 8
    errors: list[BaseException] = []
    done = threading.Event()
    contended = threading.Event()

    def feeder() -> None:
        try:
            for _ in range(500):  # until the other thread has met the lock
                sieve.feed(big)
                if contended.is_set():
                    break
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)
        done.set()

    t = threading.Thread(target=feeder)
    t.start()
    while not done.is_set():
        try:
            sieve.feed("")
        except RuntimeError as e:
            assert "in use by another thread" in str(e)
            contended.set()
    t.join()
    assert not errors
    assert contended.is_set(), "no contention observed: the GIL was not released during feed()"
    # Used by one thread at a time, a Sieve may move between threads.
    out: list[list[Event]] = []
    t = threading.Thread(target=lambda: out.append(sieve.finish()))
    t.start()
    t.join()
    assert out and sieve.is_done


def test_panics_become_runtime_errors() -> None:
    with pytest.raises(RuntimeError, match="internal error.*deliberate panic"):
        tokensieve._tokensieve._panic_boundary_check()


# --- the package's exceptions and namespace --------------------------------------------

def test_errors_are_the_packages_and_the_builtins() -> None:
    assert issubclass(tokensieve.ConfigError, tokensieve.Error)
    assert issubclass(tokensieve.ConfigError, ValueError)
    assert issubclass(tokensieve.ArgumentError, TypeError)
    assert issubclass(tokensieve.StateError, RuntimeError)
    with pytest.raises(tokensieve.ConfigError, match="max_call_bytes"):
        Sieve("hermes", max_call_bytes=10)
    with pytest.raises(tokensieve.ConfigError, match="dialect"):
        Sieve("nope")  # type: ignore[arg-type]
    with pytest.raises(tokensieve.ArgumentError):
        Sieve("hermes").feed(5)  # type: ignore[arg-type]
    with pytest.raises(tokensieve.ArgumentError):
        Sieve("hermes", stop_sequences=5)  # type: ignore[arg-type]
    with pytest.raises(tokensieve.ConfigError):
        tokensieve.Decoder("nope")  # type: ignore[arg-type]
    with pytest.raises(tokensieve.Error):
        tokensieve.stream([], 5)  # type: ignore[arg-type]


def test_namespace_is_all() -> None:
    names = [n for n in dir(tokensieve) if not n.startswith("_")]
    assert "Any" not in names and "overload" not in names
    assert set(names) <= set(tokensieve.__all__)
    for n in tokensieve.__all__:
        assert hasattr(tokensieve, n), n


def test_events_copy_and_match() -> None:
    import copy

    events = tokensieve.parse(HERMES, "hermes")
    for e in events:
        assert copy.copy(e) is e and copy.deepcopy(e) is e
    assert copy.deepcopy(events) == events
    kinds = []
    for e in events:
        match e:
            case Event("chunk", text=str() as text):
                kinds.append(("chunk", text))
            case Event(kind):
                kinds.append((kind, None))
    assert [k for k, _ in kinds] == [e.event for e in events]
