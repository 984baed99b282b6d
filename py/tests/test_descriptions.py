"""Host-defined dialects (docs/design.md, "Dialect descriptions") through Python: a dict as
``dialect`` is a description; every vector of ``conformance/custom/<family>/`` runs at
every chunk size, and a bad description is a ``ValueError`` naming the field."""

from __future__ import annotations

import glob
import json
import os

import pytest

import tokensieve

from conftest import REPO, check, coalesced

SIZES = [1, 2, 3, 5, 7, 64, 0]
CUSTOM = os.path.join(REPO, "conformance", "custom")
CASES = check.find_cases(sorted(d for d in glob.glob(os.path.join(CUSTOM, "*")) if os.path.isdir(d)))


def run(case: object, size: int) -> list[tokensieve.Event]:
    config = dict(getattr(case, "config"))
    sieve = tokensieve.Sieve(config.pop("dialect"), **config)
    data: bytes = getattr(case, "data")
    pieces = [data] if size == 0 else [data[i:i + size] for i in range(0, len(data), size)]
    events: list[tokensieve.Event] = []
    for piece in pieces:
        events += sieve.feed(piece)
    events += sieve.finish()
    return events


def test_custom_vectors_found() -> None:
    assert len(CASES) >= 10, "no host-defined dialect vectors in %s" % CUSTOM


@pytest.mark.parametrize("case", CASES, ids=lambda c: os.path.basename(getattr(c, "path")))
def test_custom_vector(case: object) -> None:
    assert not getattr(case, "problems")
    failures = []
    for size in SIZES:
        diff = check.compare(getattr(case, "events"), coalesced(run(case, size)))
        if diff is not None:
            failures.append("chunk size %s: %s" % (size or "whole", diff))
    assert not failures, "\n".join(failures)


def test_seed_oss_config_file_is_a_description() -> None:
    with open(os.path.join(CUSTOM, "seed-oss.json"), encoding="utf-8") as f:
        description = json.load(f)["dialect"]
    sieve = tokensieve.Sieve(description)
    events = sieve.feed("<seed:think>x</seed:think><seed:tool_call>\n<function=f>\n"
                        "<parameter=a>\n1\n</parameter>\n</function>\n</seed:tool_call>")
    events += sieve.finish()
    calls = [e for e in events if e.event == "block_complete" and e.type == "tool_call"]
    assert [(c.tool_name, c.input) for c in calls] == [("f", {"a": 1})]


def test_bad_description_names_the_field() -> None:
    with pytest.raises(ValueError, match=r"dialect\.wrapper"):
        tokensieve.Sieve({"shape": "xml-params", "wrapper": ["<w>", "<w>"]})
    with pytest.raises(ValueError, match=r"dialect\.shape"):
        tokensieve.Sieve({"shape": "yaml"})
