"""Every conformance vector through Python, at chunk sizes 1, 2, 3, 5, 7, 64 and whole,
compared as conformance/check.py compares (coalesced, numbers by literal text, …)."""

from __future__ import annotations

import os

import pytest

import tokensieve

from conftest import check, coalesced, vector_dirs

SIZES = [1, 2, 3, 5, 7, 64, 0]  # 0: the whole input in one feed

CASES = check.find_cases(vector_dirs())


def _id(case: object) -> str:
    path = getattr(case, "path")
    return os.path.join(os.path.basename(os.path.dirname(os.path.dirname(path))),
                        os.path.basename(os.path.dirname(path)),
                        os.path.basename(path)[: -len(".json")])


def pieces(data: bytes, size: int) -> list[object]:
    """The input cut into `size`-byte pieces, as bytes, bytearray or memoryview (by size),
    or whole (as str when it is UTF-8): every input type the API takes gets every vector."""
    if size == 0:
        try:
            return [data.decode("utf-8")]
        except UnicodeDecodeError:
            return [data]
    cuts = [data[i:i + size] for i in range(0, len(data), size)]
    if size == 7:
        return [bytearray(c) for c in cuts]
    if size == 64:
        return [memoryview(c) for c in cuts]
    return list(cuts)


def run(case: object, size: int) -> list[tokensieve.Event]:
    sieve = tokensieve.Sieve(**getattr(case, "config"))
    prefill = getattr(case, "prefill")
    if prefill is not None:
        sieve.prefill(prefill)
    events: list[tokensieve.Event] = []
    for piece in pieces(getattr(case, "data"), size):
        events += sieve.feed(piece)  # type: ignore[arg-type]
    events += sieve.finish()
    return events


def test_vectors_found() -> None:
    assert len(CASES) >= 100, "conformance vectors missing: %s" % vector_dirs()


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_vector(case: object) -> None:
    problems = getattr(case, "problems")
    assert not problems, "invalid vector: %s" % problems
    failures = []
    for size in SIZES:
        diff = check.compare(getattr(case, "events"), coalesced(run(case, size)))
        if diff is not None:
            failures.append("chunk size %s: %s" % (size or "whole", diff))
    assert not failures, "\n".join(failures)
