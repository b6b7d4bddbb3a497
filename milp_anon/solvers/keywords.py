"""Which keywords a solve function takes: a test's stand-in solver takes fewer than the toolkit's own."""

from __future__ import annotations

import inspect

__all__ = ["accepts"]


def accepts(fn, name: str) -> bool:
    """Whether ``fn`` (a function or a :func:`functools.partial`) takes the keyword ``name``."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # pragma: no cover - a builtin without a signature
        return False
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
