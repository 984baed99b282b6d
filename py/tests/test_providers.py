"""Every provider-stream vector (conformance/providers/<provider>/) through `Decoder`, for
every provider this build decodes (the others skip), at chunk sizes 1, 2, 3, 5, 7, 64 and
whole, compared as conformance/check.py compares provider vectors; and chunk invariance as
a hypothesis property over one vector's body."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokensieve

from conftest import ALL_PROVIDERS, check, coalesced, as_check_events, provider_cases
from test_conformance import SIZES, pieces


def _params() -> list[Any]:
    params = []
    for provider in ALL_PROVIDERS:
        skip = pytest.mark.skipif(
            provider not in tokensieve.PROVIDERS,
            reason="this build does not decode %s yet" % provider,
        )
        for case in provider_cases(provider):
            name = os.path.basename(getattr(case, "path"))[: -len(".json")]
            params.append(pytest.param(case, id="%s/%s" % (provider, name), marks=skip))
    return params


PARAMS = _params()


def decode(case: Any, size: int) -> list[tokensieve.Event]:
    decoder = tokensieve.Decoder(**case.config)
    events: list[tokensieve.Event] = []
    for piece in pieces(case.data, size):
        events += decoder.feed(piece)  # type: ignore[arg-type]
    events += decoder.finish()
    return events


def test_vectors_found() -> None:
    for provider in tokensieve.PROVIDERS:
        assert provider_cases(provider), "no vectors for %s" % provider
    assert len(PARAMS) >= 30


@pytest.mark.parametrize("case", PARAMS)
def test_provider_vector(case: Any) -> None:
    assert not case.problems, "invalid vector: %s" % case.problems
    failures = []
    for size in SIZES:
        events = decode(case, size)
        diff = check.compare(case.events, coalesced(events), True)
        if diff is None and size == 0:
            lint = check.lint(as_check_events(events), True)
            diff = "; ".join(lint) if lint else None
        if diff is not None:
            failures.append("chunk size %s: %s" % (size or "whole", diff))
    assert not failures, "\n".join(failures)


# --- chunk invariance ---------------------------------------------------------------------

def _body() -> tuple[dict[str, Any], bytes]:
    """The body of the richest vector of the first provider this build decodes."""
    provider = tokensieve.PROVIDERS[0]
    cases = provider_cases(provider)
    case = max(cases, key=lambda c: len(c.events))
    return case.config, case.data


CONFIG, BODY = _body()


def run(pieces: list[bytes]) -> list[dict[str, Any]]:
    decoder = tokensieve.Decoder(**CONFIG)
    out: list[tokensieve.Event] = []
    for p in pieces:
        out += decoder.feed(p)
    out += decoder.finish()
    return coalesced(out)


WHOLE = run([BODY])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cuts=st.lists(st.integers(min_value=0, max_value=len(BODY)), max_size=40))
def test_chunk_invariance(cuts: list[int]) -> None:
    edges = sorted(set(cuts) | {0, len(BODY)})
    assert check.compare(WHOLE, run([BODY[a:b] for a, b in zip(edges, edges[1:])]), True) is None
