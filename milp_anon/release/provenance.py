"""Where a result came from: versions, machine, parameters and time — REPORT.json's ``provenance``.

A result someone cites must say what produced it. :func:`provenance` is
taken when a solve starts; the command line adds its own arguments and the
input file's SHA-256.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import platform
import sys

import pulp

from milp_anon._version import __version__
from milp_anon.solvers.highs_banner import new_highs

__all__ = ["provenance"]


def _memory_gb() -> float | None:
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return None


def _highs_version() -> str:
    h = new_highs()
    return f"{h.versionMajor()}.{h.versionMinor()}.{h.versionPatch()}"


def _plain(value):
    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def provenance(table, request, solver) -> dict:
    """Versions, machine, the problem's parameters and the start time (UTC, ISO 8601)."""
    return {
        "milp_anon_version": __version__,
        "highs_version": _highs_version(),
        "pulp_version": pulp.__version__ if hasattr(pulp, "__version__") else None,
        "python_version": platform.python_version(),
        "started_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "memory_gb": _memory_gb()},
        "input": table.source,
        "input_sha256": table.source_sha256,
        "table": {"n_rows": table.n, "qi": list(table.qi), "sensitive": list(table.sensitive)},
        "criteria": [c.describe() for c in request.criteria],
        "recoding": request.recoding.describe(),
        "model_options": _plain(request.model),
        "solver_options": _plain(solver),
        "argv": list(sys.argv),
    }
