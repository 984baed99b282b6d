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
            events += len(tokensieve.parse(TRANSCRIPT * 400))  # the GIL-released path
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
