"""The exceptions tokensieve raises: all are :class:`Error`, and each is also the built-in
exception it replaced, so ``except ValueError`` (and ``TypeError``, ``RuntimeError``) keeps
working."""

from __future__ import annotations

__all__ = ["ArgumentError", "ConfigError", "Error", "FormatError", "StateError"]


class Error(Exception):
    """Every error tokensieve raises."""


class ConfigError(Error, ValueError):
    """A bad config (an unknown dialect or provider, a bad key or value): a ValueError."""


class FormatError(Error, ValueError):
    """Tool calls or results that cannot be written (not of the form, arguments that are not
    a JSON object, a name the format cannot carry): a ValueError whose message names the
    item, e.g. ``calls: [0]: no "name" string``."""


class ArgumentError(Error, TypeError):
    """An argument of the wrong type (a config value, a chunk that is not text or bytes):
    a TypeError."""


class StateError(Error, RuntimeError):
    """A parser used in a state that does not allow the call (from two threads at once,
    prefill after feeding), or a bug caught at the boundary: a RuntimeError."""
