"""No leak: a million feeds (small chunks, every input type, resets, new parsers, a large
input now and then) leave the process's resident memory flat."""

from __future__ import annotations

import gc
import os

import pytest

import tokensieve

TRANSCRIPT = (
    "Sure.<think>Weather first.</think>\n"
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n'
    "<tool_response>18°C</tool_response>It is 18°C. <tool_call>{bad</tool_call>"
).encode()
CHUNKS = [TRANSCRIPT[i:i + 4] for i in range(0, len(TRANSCRIPT), 4)]


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def churn(feeds: int) -> int:
    events = 0
    sieve = tokensieve.Sieve("hermes", stop_sequences=["NEVER"])
    n = len(CHUNKS)
    for i in range(feeds):
        chunk = CHUNKS[i % n]
        if i % 7 == 0:
            events += len(sieve.feed(bytearray(chunk)))
        elif i % 11 == 0:
            events += len(sieve.feed(memoryview(chunk)))
        else:
            events += len(sieve.feed(chunk))
        if i % 5_000 == 4_999:
            events += len(sieve.finish())
            sieve.reset()
        if i % 50_000 == 49_999:
            events += len(tokensieve.parse(TRANSCRIPT * 400, "hermes"))  # the GIL-released path
            sieve = tokensieve.Sieve("hermes", stop_sequences=["NEVER"])
    return events


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_no_leak_over_a_million_feeds() -> None:
    churn(100_000)  # warm-up: allocator pools, freelists, interned strings
    gc.collect()
    before = rss_bytes()
    events = churn(1_000_000)
    gc.collect()
    grown = rss_bytes() - before
    assert events > 500_000
    # A leak of one event object per feed would be > 50 MB.
    assert grown < 4 << 20, "resident memory grew by %.1f MB over 10^6 feeds" % (grown / 2**20)


BODY_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "examples", "openai_chat_stream.sse")
with open(BODY_PATH, "rb") as _f:
    BODY = _f.read()
BODY_CHUNKS = [BODY[i:i + 16] for i in range(0, len(BODY), 16)]


def churn_decoder(feeds: int) -> int:
    """A Decoder's feeds: finish and usage events (boxed fields), tool calls, resets, new
    decoders, a large body (the GIL-released path) now and then."""
    events = 0
    decoder = tokensieve.Decoder("openai-chat")
    n = len(BODY_CHUNKS)
    for i in range(feeds):
        events += len(decoder.feed(BODY_CHUNKS[i % n]))
        if i % n == n - 1:
            events += len(decoder.finish())
            decoder.reset()
        if i % 50_000 == 49_999:
            events += len(tokensieve.parse(BODY * 4, provider="openai-chat"))
            decoder = tokensieve.Decoder("openai-chat")
    return events


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_no_leak_over_half_a_million_decoder_feeds() -> None:
    churn_decoder(50_000)
    gc.collect()
    before = rss_bytes()
    events = churn_decoder(500_000)
    gc.collect()
    grown = rss_bytes() - before
    assert events > 20_000
    assert grown < 4 << 20, "resident memory grew by %.1f MB over 5*10^5 feeds" % (grown / 2**20)
