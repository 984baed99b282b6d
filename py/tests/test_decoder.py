"""The Decoder's API: config errors, states, provider events and their fields, helpers,
the Collector over provider events, large bodies (GIL released), threads."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

import tokensieve
from tokensieve import Collector, Decoder, Event

from conftest import coalesced, provider_cases, provider_dir

OPENAI = provider_dir("openai-chat")


def body(name: str) -> bytes:
    with open(os.path.join(OPENAI, name), "rb") as f:
        return f.read()


def sse(*docs: dict[str, Any], done: bool = True) -> bytes:
    out = b"".join(b"data: " + json.dumps(d).encode() + b"\n\n" for d in docs)
    return out + (b"data: [DONE]\n\n" if done else b"")


def delta(content: str, finish: str | None = None, index: int = 0) -> dict[str, Any]:
    return {"id": "r1", "model": "m", "choices": [
        {"index": index, "delta": {"content": content}, "finish_reason": finish}]}


TEXT = body("001-text.sse")

# --- config -------------------------------------------------------------------------------

def test_defaults() -> None:
    d = Decoder()
    assert d.provider == "openai-chat" and d.text_dialect is None
    assert repr(d) == "Decoder(provider='openai-chat')"
    d = Decoder(provider="openai-chat", text_dialect="hermes")
    assert d.text_dialect == "hermes"
    assert repr(d) == "Decoder(provider='openai-chat', text_dialect='hermes')"
    assert Decoder("openai-chat", text_dialect="passthrough").text_dialect is None
    assert "openai-chat" in tokensieve.PROVIDERS


def test_every_key_of_a_vector_config_is_a_keyword() -> None:
    for case in provider_cases("openai-chat"):
        Decoder(**case.config)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"provider": 5}, r"config key `provider`: must be a str, not int"),
        ({"text_dialect": 5}, r"config key `text_dialect`: must be a str, not int"),
        ({"max_frame_bytes": "1"}, r"config key `max_frame_bytes`: must be an int, not str"),
        ({"max_frame_bytes": True}, r"config key `max_frame_bytes`: must be an int, not bool"),
        ({"max_call_bytes": 1.5}, r"config key `max_call_bytes`: must be an int, not float"),
        ({"id_prefix": 1}, r"config key `id_prefix`: must be a str"),
        ({"stop_sequences": "STOP"}, r"config key `stop_sequences`: must be a list of strings"),
        ({"tools": {"name": "f"}}, r"config key `tools`"),
        ({"dialect": "hermes"}, r"unexpected keyword argument 'dialect' \(the decoder's is `text_dialect`"),
        ({"colour": 1}, r"Decoder\(\) got an unexpected keyword argument 'colour'"),
    ],
)
def test_wrong_types_and_keys_are_type_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(TypeError, match=match):
        Decoder(**kwargs)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"provider": "openai"}, r"config key `provider`: must be one of openai-chat, openai-responses, "
                                 r"anthropic, gemini, bedrock, ollama \(got 'openai'\)"),
        ({"text_dialect": "nope"}, r"config key `text_dialect`: must be one of .*hermes.* \(got 'nope'\)"),
        ({"max_frame_bytes": 15}, r"config key `max_frame_bytes`: must be 0 \(the default, 16 MiB\) or at least 16, and below 4 GiB \(got 15\)"),
        ({"max_frame_bytes": -1}, r"config key `max_frame_bytes`"),
        ({"max_frame_bytes": 1 << 32}, r"config key `max_frame_bytes`"),
        ({"max_call_bytes": 10}, r"config key `max_call_bytes`: must be at least 64 and below 256 MiB \(got 10\)"),
        ({"on_malformed": "keep"}, r"config key `on_malformed`: must be \"text\" or \"drop\""),
        ({"id_prefix": "x" * 41}, r"config key `id_prefix`: must be at most 40 bytes long"),
        ({"tool_call_markers": ["<a>", "</a>"]}, r"config key `tool_call_markers`: applies to hermes only"),
        ({"text_dialect": "morph-xml"}, r"config key `tools`: morph-xml needs at least one tool"),
        ({"stop_sequences": [""]}, r"config key `stop_sequences`"),
    ],
)
def test_bad_values_are_value_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Decoder(**kwargs)


def test_every_provider_is_decoded() -> None:
    every = ("openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "ollama")
    assert tuple(tokensieve.PROVIDERS) == every
    for provider in every:
        assert Decoder(provider).provider == provider


def test_none_is_the_default_and_extra_positionals_are_errors() -> None:
    assert Decoder(text_dialect=None, max_frame_bytes=None, tools=None).text_dialect is None
    with pytest.raises(TypeError):
        Decoder("openai-chat", "hermes")  # type: ignore[call-arg]


# --- states -------------------------------------------------------------------------------

def test_feed_after_finish_is_an_error_until_reset() -> None:
    d = Decoder()
    first = d.feed(TEXT) + d.finish()
    assert d.finish() == []
    with pytest.raises(RuntimeError, match=r"feed\(\) after finish\(\)"):
        d.feed(b"")
    d.reset()
    assert d.feed(TEXT) + d.finish() == first


def test_reset_mid_stream_starts_a_new_body() -> None:
    d = Decoder()
    d.feed(sse(delta("old"), done=False)[:-10])
    d.reset()
    events = d.feed(sse(delta("new", "stop"))) + d.finish()
    assert [e.content for e in events if e.event == "block_complete"] == ["new"]


@pytest.mark.parametrize("bad", [1, None, 1.5, ["a"]])
def test_feed_rejects_other_types(bad: object) -> None:
    d = Decoder()
    with pytest.raises(TypeError, match=r"feed\(\) takes str or a bytes-like object"):
        d.feed(bad)  # type: ignore[arg-type]
    assert Collector(d.feed(TEXT) + d.finish()).text == "Hello, world!"


def test_inputs_of_every_type() -> None:
    whole = tokensieve.parse(TEXT, provider="openai-chat")
    for data in (TEXT.decode(), bytearray(TEXT), memoryview(TEXT)):
        assert tokensieve.parse(data, provider="openai-chat") == whole


# --- events -------------------------------------------------------------------------------

PROVIDER_KEYS = ("event", "index", "type", "text", "visible", "block", "depth", "part", "tool_name",
                 "tool_id", "content", "input", "error", "is_error", "sequence", "choice", "refusal",
                 "server", "signature", "redacted", "compaction", "citations", "reason", "raw_reason", "usage", "response_id",
                 "model", "source", "code", "message")


def all_vector_events() -> list[Event]:
    out: list[Event] = []
    for case in provider_cases("openai-chat"):
        out += tokensieve.parse(case.data, provider="openai-chat", **{
            k: v for k, v in case.config.items() if k != "provider"})
    return out


def test_attributes_follow_the_json_form() -> None:
    events = all_vector_events()
    kinds = {e.event for e in events}
    assert {"finish", "error", "block_complete", "chunk", "block_start"} <= kinds
    for e in events:
        d = e.to_dict()
        for key in PROVIDER_KEYS:
            value = getattr(e, key)
            if key in d:
                assert value == d[key], key
            else:
                assert value is None, (key, e)
        assert set(d) <= set(PROVIDER_KEYS)


def test_finish_and_error_to_dict_is_the_json_form() -> None:
    events = tokensieve.parse(body("013-n2-interleaved-choices.sse"), provider="openai-chat")
    finishes = [e for e in events if e.event == "finish"]
    line = json.dumps(finishes[1].to_dict(), separators=(",", ":"))
    assert line == ('{"event":"finish","reason":"length","raw_reason":"length","usage":{"input_tokens":9,'
                    '"output_tokens":11},"response_id":"chatcmpl-C7tq2XvVZk0Lr4",'
                    '"model":"gpt-4.1-2025-04-14","choice":1}')
    assert finishes[0].choice is None and finishes[1].choice == 1
    assert {e.choice for e in events if e.event == "chunk"} == {None, 1}
    assert finishes[1].usage == {"input_tokens": 9, "output_tokens": 11}
    assert finishes[1].usage is not finishes[1].usage  # a new dict every time
    error = [e for e in tokensieve.parse(body("017-event-error.sse"), provider="openai-chat")
             if e.event == "error"][0]
    assert list(error.to_dict()) == ["event", "source", "code", "message"]
    assert (error.source, error.code, error.message) == ("provider", "service_unavailable", "Service Unavailable")
    assert repr(error) == ("ErrorEvent(event='error', source='provider', code='service_unavailable', "
                           "message='Service Unavailable')")
    assert error.reason is None and error.type is None and error.index is None


def test_refusal_and_choice_on_block_events() -> None:
    events = tokensieve.parse(body("027-refusal.sse"), provider="openai-chat")
    done = [e for e in events if e.event == "block_complete"][0]
    assert done.refusal is True and done.server is None and done.signature is None
    assert list(done.to_dict()) == ["event", "index", "type", "content", "refusal"]


def test_provider_events_compare_by_value_and_hash() -> None:
    a = tokensieve.parse(body("013-n2-interleaved-choices.sse"), provider="openai-chat")
    b = tokensieve.parse(bytearray(body("013-n2-interleaved-choices.sse")), provider="openai-chat")
    assert a == b and a[-1] is not b[-1]
    assert {hash(e) for e in a} == {hash(e) for e in b}
    assert a[-1] != a[-2]  # the finishes of two choices
    with pytest.raises(AttributeError):
        a[-1].reason = "stop"  # type: ignore[misc]


def test_text_dialect_blocks_take_the_text_blocks_place() -> None:
    c = Collector(tokensieve.parse(body("028-text-dialect-hermes.sse"), provider="openai-chat",
                                   text_dialect="hermes"))
    assert c.thinking == "The user wants a greeting."
    assert c.text == "\n\nHello!"
    assert c.finish is not None and c.finish.reason == "stop"
    calls = Collector(tokensieve.parse(
        sse(delta('<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>', "stop")),
        provider="openai-chat", text_dialect="hermes", id_prefix="t")).tool_calls
    assert calls == [{"id": "t0", "name": "f", "arguments": {"a": 1}}]


# --- helpers and the Collector -----------------------------------------------------------

def test_stream_parse_and_astream_with_a_provider() -> None:
    chunks = [TEXT[i:i + 7] for i in range(0, len(TEXT), 7)]
    whole = coalesced(tokensieve.parse(TEXT, provider="openai-chat"))
    assert coalesced(list(tokensieve.stream(chunks, provider="openai-chat"))) == whole
    assert coalesced(list(tokensieve.stream(chunks, Decoder()))) == whole

    async def reads() -> AsyncIterator[bytes]:
        for c in chunks:
            await asyncio.sleep(0)
            yield c

    async def main() -> list[Event]:
        return [e async for e in tokensieve.astream(reads(), provider="openai-chat")]

    assert coalesced(asyncio.run(main())) == whole


def test_helpers_check_the_config_at_the_call() -> None:
    with pytest.raises(ValueError, match="config key `provider`"):
        tokensieve.stream([], provider="nope")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="text_dialect"):
        tokensieve.stream([], provider="openai-chat", dialect="hermes")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="not both"):
        tokensieve.stream([], "hermes", provider="openai-chat")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="prefill"):
        tokensieve.parse(b"", provider="openai-chat", prefill="x")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="with a dialect name"):
        tokensieve.stream([], Decoder(), id_prefix="y")


def test_collector_over_a_provider_turn() -> None:
    c = Collector(tokensieve.stream([body("005-parallel-tool-calls.sse")], provider="openai-chat"))
    assert c.finish is not None and c.finish.reason == "tool_calls"
    assert [call["name"] for call in c.tool_calls] == ["get_weather", "get_weather"]
    assert c.errors == [] and c.stop is None
    assert "finish='tool_calls'" in repr(c)
    assert Collector(tokensieve.parse(TEXT, provider="openai-chat")).usage is None  # `usage: null`

    err = Collector(tokensieve.parse(body("017-event-error.sse"), provider="openai-chat"))
    assert [e.code for e in err.errors] == ["service_unavailable"]
    assert err.finish is not None and err.finish.reason == "error"
    assert err.finish.raw_reason == "service_unavailable"

    n2 = tokensieve.parse(body("013-n2-interleaved-choices.sse"), provider="openai-chat")
    first, second = Collector(n2), Collector(n2, choice=1)
    assert first.finish is not None and first.finish.reason == "stop"
    assert second.finish is not None and second.finish.reason == "length"
    assert first.text and second.text and first.text != second.text
    assert first.usage == second.usage == {"input_tokens": 9, "output_tokens": 11}

    refusal = Collector(tokensieve.parse(body("027-refusal.sse"), provider="openai-chat"))
    assert refusal.refusal == refusal.text == "I'm sorry, I can't help with that."


def test_the_end_of_a_cut_body() -> None:
    c = Collector(tokensieve.parse(sse(delta("Hel"), done=False), provider="openai-chat"))
    assert c.text == "Hel"
    assert c.finish is not None and (c.finish.reason, c.finish.raw_reason) == ("error", "eof")


# --- large bodies (GIL released), threads -------------------------------------------------

BIG = sse(*[delta("word%d " % i) for i in range(3000)], delta("end", "stop"))


def test_large_bodies_give_the_same_events() -> None:
    assert len(BIG) >= 3 * tokensieve._tokensieve.RELEASE_GIL_AT
    whole = tokensieve.parse(BIG, provider="openai-chat")
    d = Decoder()
    pieces: list[Event] = []
    for i in range(0, len(BIG), 1000):
        pieces += d.feed(BIG[i:i + 1000])
    pieces += d.finish()
    assert coalesced(whole) == coalesced(pieces)
    assert tokensieve.parse(bytearray(BIG), provider="openai-chat") == whole
    assert Collector(whole).finish is not None


def test_concurrent_use_is_an_error_and_the_gil_is_released() -> None:
    d = Decoder()
    big = BIG * 4  # four responses in one body: decoding goes on after each end marker
    errors: list[BaseException] = []
    done = threading.Event()
    contended = threading.Event()

    def feeder() -> None:
        try:
            for _ in range(500):
                d.feed(big)
                if contended.is_set():
                    break
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)
        done.set()

    t = threading.Thread(target=feeder)
    t.start()
    while not done.is_set():
        try:
            d.feed(b"")
        except RuntimeError as e:
            assert "in use by another thread" in str(e)
            contended.set()
    t.join()
    assert not errors
    assert contended.is_set(), "no contention observed: the GIL was not released during feed()"
    out: list[list[Event]] = []
    t = threading.Thread(target=lambda: out.append(d.finish()))
    t.start()
    t.join()
    assert out


# --- the example ----------------------------------------------------------------------------

def test_openai_tts_example() -> None:
    import subprocess
    import sys

    example = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "examples", "openai_tts.py")
    for args in ([], ["--async"]):
        out = subprocess.run([sys.executable, example, *args], capture_output=True, text=True,
                             check=True).stdout.splitlines()
        assert out[:4] == ["TTS> Sure!", "TTS> Let me check the forecast for Zürich.",
                           "TTS> It looks like a sunny afternoon — about 21 °C.",
                           "TTS> I'll also look up tomorrow."]
        assert "finish: tool_calls" in out[5] and "'input_tokens': 84" in out[6]


def test_accumulate_off_keeps_nothing_of_a_block() -> None:
    """issue 25, R6: accumulation is switchable, as in C and PHP."""
    body = sse(delta("Hel"), delta("lo", finish="stop"))
    on = Decoder("openai-chat")
    off = Decoder("openai-chat", accumulate=False)
    ev_on = on.feed(body) + on.finish()
    ev_off = off.feed(body) + off.finish()
    done_on = [e for e in ev_on if e.event == "block_complete"]
    done_off = [e for e in ev_off if e.event == "block_complete"]
    assert [e.content for e in done_on] == ["Hello"]
    assert [e.content for e in done_off] == [None]
    assert "".join(e.text or "" for e in ev_off if e.event == "chunk") == "Hello"
    with pytest.raises(TypeError, match="accumulate"):
        Decoder("openai-chat", accumulate=1)  # type: ignore[arg-type]
