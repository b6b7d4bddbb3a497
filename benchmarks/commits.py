"""The reduction at two (or more) commits, case by case in turn, in one run: a before/after of a change
that no switch of the harness can turn off (here: where the time limit starts to count).

    git worktree add -f /work/wtA 3d5a606; git worktree add -f /work/wtB HEAD
    python -m benchmarks.commits --trees "3d5a606=/work/wtA,<head>=/work/wtB" --qis 6 --ks 5,10 --limit 60 \\
        [--variants after] [--lns 0] [--recoding suppression] --tag T

Each tree is a checkout of the named commit (checked before any run: its ``git rev-parse --short HEAD``
must be the label, and it must be clean). For every case (QIs, k) the trees run in turn, each through its own
``benchmarks.scale frontier`` in its own process (:func:`benchmarks.in_turn.run_in_turn`), under this
interpreter. Writes ``benchmarks/results/commits_<tag>.{csv,md}`` with a ``commit`` column.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from benchmarks.common import provenance_line, write_csv
from benchmarks.in_turn import add_case_arguments, run_in_turn, scale_arguments
from benchmarks.scale import COLUMNS, OUT, write_md


def _checked(label: str, root: str) -> tuple[str, str, str]:
    if not os.path.isdir(os.path.join(root, "benchmarks")):
        raise SystemExit(f"{root}: not a checkout of this project")
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                          check=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True,
                           text=True, check=True).stdout.strip()
    if not head.startswith(label) and not label.startswith(head):
        raise SystemExit(f"{root}: at {head}, not {label}")
    if dirty:
        raise SystemExit(f"{root}: uncommitted changes")
    return label, sys.executable, os.path.abspath(root)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trees", required=True, help="commit=worktree, comma-separated, the first the 'before'")
    add_case_arguments(ap)
    a = ap.parse_args(argv)
    arms = [_checked(*t.split("=", 1)) for t in a.trees.split(",")]
    rows = run_in_turn(arms, a.qis, a.ks, scale_arguments(a), "commit")
    out = os.path.join(OUT, f"commits_{a.tag}")
    write_csv(out + ".csv", rows)
    intro = (provenance_line("commits") + f"; the reduction (`benchmarks.scale frontier`) at "
             f"{' and '.join(label for label, _, _ in arms)}, case by case in turn, one run at a time.")
    write_md(out + ".md", "The Lagrangian reduction at two commits (UCI Adult, 30,162 rows)", rows,
             [("commit", "commit")] + COLUMNS, intro)


if __name__ == "__main__":
    sys.exit(main())
