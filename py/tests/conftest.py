"""Shared helpers: the conformance runner (conformance/check.py, loaded as a module), the
vector directories, and the JSON-form view of Python events that check.py compares."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from typing import Any

from hypothesis import settings

import tokensieve

# No example database on disk (no .hypothesis/ in the tree); failures print the example.
settings.register_profile("tokensieve", database=None, print_blob=True)
settings.load_profile("tokensieve")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def _load_check() -> Any:
    path = os.path.join(REPO, "conformance", "check.py")
    spec = importlib.util.spec_from_file_location("tokensieve_check", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["tokensieve_check"] = mod
    spec.loader.exec_module(mod)
    return mod


check = _load_check()


def vector_dirs() -> list[str]:
    """The project's vectors and, when present, the shared ones (as test.sh runs them)."""
    dirs = []
    for root in (os.path.join(REPO, "conformance", "cases"),
                 os.path.join(REPO, "..", "shared", "conformance", "cases")):
        for dialect in tokensieve.DIALECTS:
            d = os.path.normpath(os.path.join(root, dialect))
            if os.path.isdir(d):
                dirs.append(d)
    return dirs


def json_line(ev: tokensieve.Event) -> str:
    """The event's JSON form as one line, `input` written as its exact JSON text (numbers as
    written), everything else from `to_dict()`."""
    parts = []
    for k, v in ev.to_dict().items():
        text = ev.input_json if k == "input" else json.dumps(v, ensure_ascii=False)
        assert text is not None
        parts.append(json.dumps(k) + ":" + text)
    return "{" + ",".join(parts) + "}"


def as_check_events(events: list[tokensieve.Event]) -> list[dict[str, Any]]:
    """Events as check.py holds them (numbers as literals, objects as ordered pairs)."""
    return [check.event_dict(check.loads(json_line(e))) for e in events]


def coalesced(events: list[tokensieve.Event]) -> list[dict[str, Any]]:
    return check.coalesce(as_check_events(events))


#: Every provider of docs/providers.md; the tests of those this build does not decode skip.
ALL_PROVIDERS = ["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "ollama"]


def provider_dir(provider: str) -> str:
    return os.path.join(REPO, "conformance", "providers", provider)


def provider_cases(provider: str) -> list[Any]:
    """The provider vectors of `provider` (conformance/providers/<provider>/)."""
    d = provider_dir(provider)
    return check.find_cases([d]) if os.path.isdir(d) else []
