"""``benchmarks.scale frontier`` case by case under several arms in turn, in one run: the runner behind
:mod:`benchmarks.highs_release` (arms = interpreters) and :mod:`benchmarks.commits` (arms = worktrees).

An arm is ``(label, python, root)``: ``python -m benchmarks.scale frontier`` runs with ``cwd`` and
``PYTHONPATH`` set to ``root`` (a checkout), so each arm runs its own copy of the package and of the harness.
For every case (QIs, k) the arms run one after the other, each in its own process, so the arms of a case
meet the machine within minutes of each other (ratios in one run). The rows gain a ``column`` holding the
arm's label; each arm's own result files are read back and removed.
"""

from __future__ import annotations

import csv
import os
import subprocess

__all__ = ["add_case_arguments", "number", "run_in_turn", "scale_arguments"]


def add_case_arguments(ap) -> None:
    """The cases and the frontier's settings every arm runs under (``--tag`` names the output)."""
    ap.add_argument("--qis", default="6")
    ap.add_argument("--ks", default="5,10")
    ap.add_argument("--limit", default="60")
    ap.add_argument("--lns", default="0")
    ap.add_argument("--variants", default="after")
    ap.add_argument("--recoding", default="suppression")
    ap.add_argument("--tag", required=True)


def scale_arguments(a) -> list[str]:
    """The rest of the ``benchmarks.scale frontier`` command from :func:`add_case_arguments`' values."""
    return ["--limit", a.limit, "--lns", a.lns, "--variants", a.variants, "--recoding", a.recoding]


def run_in_turn(arms, qis: str, ks: str, scale_args: list[str], column: str) -> list[dict]:
    """Every case of ``qis`` × ``ks`` under every arm in turn; ``scale_args``: the rest of the frontier command."""
    rows = []
    for q in qis.split(","):
        for k in ks.split(","):
            for label, python, root in arms:
                tag = f"_in_turn_{label}_{q}_{k}"
                cmd = [python, "-m", "benchmarks.scale", "frontier", "--qis", q, "--ks", k, *scale_args, "--tag", tag]
                print(f"{column} {label}: {q} QIs, k = {k}", flush=True)
                subprocess.run(cmd, check=True, cwd=root, env=dict(os.environ, PYTHONPATH=root))
                stem = os.path.join(root, "benchmarks", "results", f"scale_reduction_{tag}")
                with open(stem + ".csv", newline="", encoding="utf-8") as fh:
                    for r in csv.DictReader(fh):
                        rows.append({column: label, **{key: number(v) for key, v in r.items()}})
                for ext in (".csv", ".md"):
                    os.remove(stem + ext)
    return rows


def number(v: str):
    """A CSV cell as the harness wrote it: an int, a float, text, or ``None`` (empty)."""
    if v == "":
        return None
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return v
