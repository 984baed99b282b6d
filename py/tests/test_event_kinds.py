"""Events typed per kind (one final subclass of Event each), class patterns, pickle and copy."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

import tokensieve
from tokensieve import (
    BlockCompleteEvent,
    BlockStartEvent,
    ChunkEvent,
    Decoder,
    ErrorEvent,
    Event,
    FinishEvent,
    Sieve,
    StopEvent,
)

KINDS = {
    "block_start": BlockStartEvent,
    "chunk": ChunkEvent,
    "block_complete": BlockCompleteEvent,
    "stop": StopEvent,
    "finish": FinishEvent,
    "error": ErrorEvent,
}

PROVIDERS = Path(__file__).resolve().parents[2] / "conformance" / "providers"


def parser_events() -> list[Event]:
    sieve = Sieve("hermes", stop_sequences=["\nUser:"])
    events = sieve.feed(
        '<think>hm</think>Hi <tool_call>{"name": "f", "arguments": {"n": 1.50, "s": "é"}}</tool_call>'
        '<tool_call>{"name": </tool_call> ok\nUser: x'
    )
    return events + sieve.finish()


def decoder_events() -> list[Event]:
    decoder = Decoder("openai-chat")
    body = (
        'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\n'
        'data: {"choices":[{"delta":{},"finish_reason":"stop"}],'
        '"usage":{"prompt_tokens":3,"completion_tokens":1}}\n\n'
        "data: not json\n\n"
        "data: [DONE]\n\n"
    )
    return decoder.feed(body) + decoder.finish()


def every_kind() -> list[Event]:
    events = parser_events() + decoder_events()
    assert {e.event for e in events} == set(KINDS), {e.event for e in events}
    return events


def test_each_event_is_an_instance_of_its_kinds_class_only() -> None:
    for ev in every_kind():
        cls = KINDS[ev.event]
        assert type(ev) is cls
        assert isinstance(ev, Event)
        assert all(not isinstance(ev, other) for other in KINDS.values() if other is not cls)


def test_the_kinds_attributes_are_never_none() -> None:
    for ev in every_kind():
        if isinstance(ev, ChunkEvent):
            assert isinstance(ev.text, str) and ev.text
            assert ev.type in ("text", "thinking", "tool_call", "tool_result")
            assert isinstance(ev.visible, bool)
            assert isinstance(ev.block, int) and isinstance(ev.depth, int)
        elif isinstance(ev, (BlockStartEvent, BlockCompleteEvent)):
            assert isinstance(ev.index, int) and ev.type is not None
        elif isinstance(ev, StopEvent):
            assert ev.sequence == "\nUser:"
        elif isinstance(ev, FinishEvent):
            assert ev.reason == "stop"
        elif isinstance(ev, ErrorEvent):
            assert ev.source == "framing" and ev.message


def test_class_patterns_bind_the_match_args() -> None:
    spoken = []
    kinds = []
    for ev in every_kind():
        match ev:
            case ChunkEvent(text, "text"):
                spoken.append(text)
            case BlockStartEvent(ty, index):
                kinds.append((ty, index))
            case StopEvent(seq):
                assert seq == "\nUser:"
            case FinishEvent(reason):
                assert reason == "stop"
            case ErrorEvent(code, message):
                assert code == "json" and "JSON" in message
    assert "".join(spoken).startswith("Hi ")
    assert kinds[0] == ("thinking", 0)
    # The kind as the positional pattern of Event still works.
    assert [ev for ev in parser_events() if isinstance(ev, Event) and ev.event == "stop"]
    match parser_events()[0]:
        case Event("block_start", type="thinking"):
            pass
        case _:
            pytest.fail("Event(kind) pattern")


def test_the_per_kind_classes_cannot_be_subclassed_or_made() -> None:
    for cls in KINDS.values():
        with pytest.raises(TypeError):
            type("Sub", (cls,), {})
        with pytest.raises(TypeError):
            cls()


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_every_event_pickles_to_an_equal_event_of_the_same_class(protocol: int) -> None:
    events = every_kind()
    back = pickle.loads(pickle.dumps(events, protocol=protocol))
    assert back == events
    for a, b in zip(events, back, strict=True):
        assert type(a) is type(b)
        assert a.to_dict() == b.to_dict()
        assert a.input_json == b.input_json
        assert repr(a) == repr(b)
        assert hash(a) == hash(b)
    call = next(e for e in back if e.event == "block_complete" and e.input is not None)
    assert call.input_json == '{"n":1.50,"s":"é"}'


def test_provider_vector_events_pickle() -> None:
    for sse in sorted((PROVIDERS / "openai-chat").glob("*.sse"))[:10]:
        decoder = Decoder("openai-chat")
        events = decoder.feed(sse.read_bytes()) + decoder.finish()
        assert pickle.loads(pickle.dumps(events)) == events, sse.name


def test_a_compaction_pickles_and_a_version_1_state_still_reads() -> None:
    decoder = Decoder("anthropic")
    events = decoder.feed((PROVIDERS / "anthropic" / "024-compaction.sse").read_bytes())
    events += decoder.finish()
    done = next(e for e in events if e.event == "block_complete")
    assert done.compaction is True and done.redacted == "EqQBCkgIARABGAIiQL0ldFinalOpaque/+=="
    assert pickle.loads(pickle.dumps(events)) == events
    rebuild, (state,) = done.__reduce__()
    assert state[0] == 3 and len(state) == 18
    # Version 2 (before citations): the block extras without them.
    sig_red = state[16][:3]
    assert rebuild((2,) + state[1:16] + (sig_red,) + state[17:]) == done
    # Version 1 (before `compaction`): 17 items, read as no compaction.
    old = rebuild((1,) + state[1:16] + (sig_red,))
    assert old.compaction is None and old.redacted == done.redacted
    with pytest.raises(ValueError, match="not a pickled event"):
        rebuild((1,) + state[1:16] + (sig_red,) + state[17:])


def test_citations_are_kept_on_their_text_block_and_pickle() -> None:
    decoder = Decoder("anthropic")
    events = decoder.feed((PROVIDERS / "anthropic" / "026-citations.sse").read_bytes())
    events += decoder.finish()
    done = [e for e in events if e.event == "block_complete"]
    assert [e.citations is None for e in done] == [True, False, True, False]
    cited = done[1]
    assert [c["type"] for c in cited.citations] == ["char_location", "page_location"]
    assert cited.citations[1]["document_title"] == 'PDF "Report"'
    assert cited.citations_json is not None and cited.citations_json.startswith('[{"type":')
    assert cited.to_dict()["citations"] == cited.citations
    assert cited.redacted is None
    assert pickle.loads(pickle.dumps(events)) == events


def test_copies_are_the_event_itself() -> None:
    for ev in every_kind():
        assert copy.copy(ev) is ev
        assert copy.deepcopy(ev) is ev


def test_a_bad_pickled_state_is_a_value_error() -> None:
    ev = parser_events()[0]
    rebuild, (state,) = ev.__reduce__()
    assert rebuild(state) == ev
    for bad in [(), state[:5], (99,) + state[1:], state[:1] + (42,) + state[2:]]:
        with pytest.raises(ValueError, match="not a pickled event"):
            rebuild(bad)


def test_repr_names_the_class() -> None:
    ev = parser_events()[0]
    assert repr(ev).startswith("BlockStartEvent(event='block_start'")
    assert tokensieve.ChunkEvent.__module__ == "tokensieve"
