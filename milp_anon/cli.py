"""The ``milp-anon`` command line.

Exit codes (a contract users' scripts rely on):

* 0 — optimal (proven, gap 0);
* 1 — internal error (e.g. a solution failed the verifier: a bug, nothing written);
* 2 — bad input (one line on stderr, no output file); also an output that cannot be written at the end (a
  full disk): nothing written, no temporary file left;
* 3 — infeasible (the reason on stderr);
* 4 — stopped by a limit (time, or a user gap > 0): output written only if a
  verified feasible solution exists;
* 5 — ``gap``: the anonymized table is not a valid release (first violation on stderr);
* 6 — ``bench``: exact methods disagree (printed loudly, recorded in the report); ``certify``: a check failed;
* 130 — aborted by a second Ctrl-C (the first one stops the solve: exit 4 with
  the best verified table);
* 143, 129 — ended by SIGTERM, SIGHUP (:mod:`milp_anon.runtime.cleanup`).

Every output is checked before any work and written all or none
(:class:`~milp_anon.tables.files.Outputs`); ``-`` is standard input or output.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import logging
import math
import os
import sys

from milp_anon import certificate_check
from milp_anon._version import __version__
from milp_anon.api import Request
from milp_anon.bench import load_suite, run_suite
from milp_anon.bench.export import export_suite
from milp_anon.bench.runner import render_existing
from milp_anon.certify import certify, exact_certificate
from milp_anon.pipeline.solve import model_format, write_model_file
from milp_anon.privacy.criteria import (
    AverageRisk,
    BetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    KAnonymity,
    KMap,
    LDiversity,
    PSensitivity,
    TCloseness,
)
from milp_anon.release.result import measure_lines
from milp_anon.runtime.cleanup import exit_on_signals
from milp_anon.runtime.errors import InfeasibleRequest, InputError, MilpAnonError, SolverError, VerificationError
from milp_anon.runtime.interrupt import stop_on_sigint
from milp_anon.runtime.progress import ProgressPrinter, reporting
from milp_anon.runtime.status import counted, format_gap
from milp_anon.scoring import score_release
from milp_anon.solvers import SolverOptions
from milp_anon.solvers.options import parse_highs_option
from milp_anon.tables.datasets import ADULT_QI, load_adult
from milp_anon.tables.files import Outputs, read_text, write_stdout
from milp_anon.tables.hierarchy import Hierarchy
from milp_anon.tables.recoding import Generalization, Patterns, Suppression
from milp_anon.tables.table import Table, read_csv

EXIT_OK, EXIT_INTERNAL, EXIT_INPUT, EXIT_INFEASIBLE, EXIT_LIMIT, EXIT_INVALID, EXIT_DISAGREE = 0, 1, 2, 3, 4, 5, 6


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments in one line with exit code 2."""

    def error(self, message):
        # the caller prints "milp-anon: error: ": name the subcommand only ("solve: ..."), never the program twice
        command = self.prog.removeprefix("milp-anon").strip()
        raise InputError(f"{command}: {message}" if command else message)


def _split(s: str | None) -> list[str]:
    if s is None:
        return []
    return [c.strip() for c in s.split(",") if c.strip() != ""]


def _sep(s: str) -> str:
    s = {"\\t": "\t", "tab": "\t"}.get(s, s)
    if len(s) != 1:
        raise InputError(f"--sep must be one character, got {s!r}")
    return s


class _Messages:
    """Where the command's messages go: stdout, or stderr when data goes to stdout; nothing with --quiet."""

    quiet = False
    to_stderr = False
    gone = False


def _say(*lines) -> None:
    """Print a message; a reader that went away (``| head``) is not an error of the command."""
    if _Messages.quiet or _Messages.gone or not lines:
        return
    text = "".join(f"{line}\n" for line in lines)
    if _Messages.to_stderr:
        sys.stderr.write(text)
    elif not write_stdout(text):
        _Messages.gone = True


@contextlib.contextmanager
def _progress_printer():
    """Progress on stderr while solving (none with --quiet)."""
    if _Messages.quiet:
        yield None
        return
    with ProgressPrinter() as printer:
        yield printer


def _table_writer(frame, sep: str):
    def write(fh):
        wr = csv.writer(fh, delimiter=sep, lineterminator="\n")
        wr.writerow(list(frame.columns))
        wr.writerows(frame.astype(str).itertuples(index=False, name=None))

    return write


def _number(kind, low=None, high=None, *, low_open=False, high_open=False, what="a number"):
    """An argparse type: a finite number of ``kind`` within ``[low, high]`` (``*_open``: that end excluded)."""
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if isinstance(v, float) and not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
        if (low is not None and (v < low or (low_open and v == low))) or \
                (high is not None and (v > high or (high_open and v == high))):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return v

    parse.__name__ = what  # argparse names the type in its messages
    return parse


_SHARE = _number(float, 0, 1, high_open=True, what="'auto' or a share in [0, 1)")


def _share_or_auto(text):
    """An argparse type: ``auto`` or a share in ``[0, 1)`` (``--lns``)."""
    return "auto" if text == "auto" else _SHARE(text)


_share_or_auto.__name__ = _SHARE.__name__
_SECONDS = _number(float, 0, low_open=True, what="a positive number of seconds")
_WHOLE = _number(int, 1, what="a whole number >= 1")
_NONNEG = _number(float, 0, what="a number >= 0")
_COUNT = _number(int, 0, what="a whole number >= 0")


def _input_files(args) -> list[str]:
    """Every file the command reads (no output may be one of them)."""
    files = [getattr(args, a, None) for a in ("input", "original", "anonymized", "patterns", "sensitive_hierarchy",
                                              "optimum_from", "report_in", "released", "population")]
    files += [spec.split("=", 1)[1] for spec in getattr(args, "hierarchy", None) or [] if "=" in spec]
    return [f for f in files if f]


def _add_solver_args(p):
    p.add_argument("--time-limit", type=_SECONDS, default=None, metavar="SEC", help="solver time limit in seconds")
    p.add_argument("--threads", type=_WHOLE, default=None, metavar="N", help="solver threads")
    p.add_argument("--gap", type=_number(float, 0, 1, high_open=True, what="a relative gap in [0, 1)"), default=0.0, metavar="G",
                   help="relative MIP gap to stop at (default 0: prove optimality)")
    p.add_argument("--solver", default="HiGHS", metavar="NAME",
                   help="PuLP solver name (default HiGHS, in bulk through highspy; e.g. PULP_CBC_CMD)")
    p.add_argument("--no-closure", action="store_true", help="disable closure pruning of candidates")
    p.add_argument("--presolve", default="off", choices=["off", "on"],
                   help="HiGHS presolve (default off: HiGHS 1.15.1 presolve returned wrong optima on our models)")
    p.add_argument("--max-memory-gb", type=_number(float, 0, low_open=True, what="a positive number of GB"), default=None, metavar="GB",
                   help="refuse candidate layers and models whose estimate, with what the process holds, is above "
                        "this many GiB, and stop a solver process once both hold more (default: a layer or model "
                        "estimated above 80%% of available memory)")
    p.add_argument("--isolate", default="auto", choices=["auto", "always", "never"],
                   help="run HiGHS in a child process killed 10 s / 10%% past the time limit "
                        "(default auto: models with >= 100,000 columns under a time limit)")
    p.add_argument("--lns", type=_share_or_auto, default="auto",
                   metavar="SHARE", help="share of --time-limit kept for the large-neighbourhood search that "
                                         "improves the table when the solve ends with a gap (e.g. 0.5; 0: off; "
                                         "default auto: only beside the reduction's rounds, on a second core, "
                                         "where it takes no time from the solve)")
    p.add_argument("--verbose", action="store_true",
                   help="the solver's own log on standard error, and the Lagrangian reduction's steps")
    p.add_argument("--log", default=None, metavar="FILE", help="also keep HiGHS's log in FILE")
    p.add_argument("--highs-option", action="append", default=[], metavar="KEY=VALUE",
                   help="a HiGHS option (repeatable), e.g. random_seed=7, mip_heuristic_effort=0.2")


def _add_criteria_args(p):
    g = p.add_argument_group("criteria on the sensitive column(s) (each applies to every --sensitive column)")
    g.add_argument("--p", type=_WHOLE, default=None, help="p-sensitivity (= distinct l-diversity)")
    g.add_argument("--l", type=_number(float, 1, what="a number >= 1"), default=None, help="l of l-diversity")
    g.add_argument("--l-kind", default="frequency", choices=["frequency", "distinct", "recursive", "entropy"],
                   help="kind of l-diversity (default frequency: no value in more than 1/l of a class's rows; "
                        "entropy: each class's sensitive entropy >= log l; ARX and pycanon default to distinct)")
    g.add_argument("--c", type=_number(float, 0, low_open=True, what="a positive number"), default=None, help="c of recursive (c,l)-diversity")
    g.add_argument("--t", type=_number(float, 0, 1, what="a number in [0, 1]"), default=None, help="t of t-closeness (EMD), in [0, 1]")
    g.add_argument("--distance", default="equal", choices=["equal", "ordered", "hierarchical"],
                   help="ground distance of t-closeness (default equal)")
    g.add_argument("--order", default=None, help="value order for --distance ordered: v1,v2,...")
    g.add_argument("--sensitive-hierarchy", default=None, metavar="FILE",
                   help="ARX hierarchy of the sensitive values for --distance hierarchical")
    g.add_argument("--delta-disclosure", type=_number(float, 0, low_open=True, what="a positive number"), default=None,
                   metavar="D", help="delta-disclosure privacy: |ln(share in class / share in table)| < D per value")
    g.add_argument("--beta", type=_number(float, 0, low_open=True, what="a positive number"), default=None,
                   metavar="B", help="beta-likeness: a value's share in a class at most (1 + B) times its table share")
    g.add_argument("--beta-kind", default=None, choices=["basic", "enhanced"],
                   help="beta-likeness kind (default enhanced: the bound min(B, -ln p), as ARX)")
    g.add_argument("--average-risk", type=_number(float, 0, 1, low_open=True, what="a number in (0, 1]"),
                   default=None, metavar="R", help="average re-identification risk (prosecutor) at most R: "
                   "at most R * n classes (needs no --sensitive)")
    _add_population_args(p)


def _add_population_args(p):
    g = p.add_argument_group("criteria against a population table (the input's rows are a subset of it)")
    g.add_argument("--population", default=None, metavar="FILE",
                   help="the population table: the QI columns at least, read with --sep")
    g.add_argument("--k-map", type=_WHOLE, default=None, metavar="K",
                   help="k-map: every class matches at least K population records")
    g.add_argument("--delta-presence", default=None, metavar="MIN,MAX",
                   help="delta-presence: every class's rows over its matching population records in [MIN, MAX]")


def _delta_range(text: str) -> tuple[float, float]:
    """``MIN,MAX`` of ``--delta-presence``: two numbers with ``0 <= MIN <= MAX <= 1``."""
    parts = text.split(",")
    try:
        lo, hi = (float(x) for x in parts) if len(parts) == 2 else (math.nan, math.nan)
    except ValueError:
        lo = hi = math.nan
    if not (0 <= lo <= hi <= 1):
        raise InputError(f"--delta-presence takes MIN,MAX with 0 <= MIN <= MAX <= 1, got {text!r}")
    return lo, hi


def _population_criteria(args) -> list:
    """k-map and δ-presence from ``--population``, ``--k-map`` and ``--delta-presence``."""
    path, k, delta = getattr(args, "population", None), getattr(args, "k_map", None), getattr(args, "delta_presence",
                                                                                               None)
    if path is None:
        if k is not None or delta is not None:
            raise InputError("--k-map and --delta-presence need --population FILE")
        return []
    if k is None and delta is None:
        raise InputError("--population needs --k-map K or --delta-presence MIN,MAX")
    bounds = _delta_range(delta) if delta is not None else None  # checked before the file is read
    try:
        population = read_csv(path, _sep(args.sep))
    except InputError as exc:
        raise InputError(f"--population: {exc}") from None
    out = [KMap(k, population)] if k is not None else []
    return out + ([DeltaPresence(*bounds, population)] if bounds is not None else [])


def _add_recoding_args(p):
    g = p.add_argument_group("recoding (default: suppression)")
    g.add_argument("--hierarchy", action="append", default=[], metavar="COL=FILE",
                   help="ARX hierarchy of a QI column (repeatable); QI columns without one are suppressed")
    g.add_argument("--cost", default=None, choices=["suppression", "height", "lm", "entropy"],
                   help="node cost with hierarchies (default height); entropy: non-uniform entropy in bits, "
                        "also without hierarchies (cell suppression)")
    g.add_argument("--patterns", default=None, metavar="FILE",
                   help="pattern-guided suppression: one pattern per line, 1/□ keep, 0/☆ suppress, in --qi order")
    g.add_argument("--interval", action="append", default=[], metavar="COL",
                   help="numeric QI whose cells may be inclusive ranges lo-hi of data values (repeatable; cost: "
                        "width over the column's range; formulations/intervals.md)")
    g.add_argument("--value-set", action="append", default=[], metavar="COL",
                   help="categorical QI whose cells may be sets a,b of its values (repeatable; cost: "
                        "(|S| - 1)/(|D| - 1))")
    g.add_argument("--weight", action="append", default=[], metavar="COL=W",
                   help="per-column importance (repeatable): every cell cost of QI column COL times W > 0 "
                        "(suppression and generalization alike; gap scores with the same weights)")
    g.add_argument("--scheme", default="local", choices=["local", "full-domain"],
                   help="local (default): each row recoded on its own (the MILP); full-domain: one level per column "
                        "for every row, as ARX's and anjana's global recoding (an exact lattice search)")


def _add_option_args(p):
    g = p.add_argument_group("model options")
    g.add_argument("--budget", type=_NONNEG, default=None, metavar="S",
                   help="decision version: total cost at most S (infeasible otherwise)")
    g.add_argument("--t-out", type=_WHOLE, default=None, metavar="N", help="exactly N output types")
    g.add_argument("--t-out-min", type=_WHOLE, default=None, metavar="N", help="at least N output types")
    g.add_argument("--t-out-max", type=_WHOLE, default=None, metavar="N", help="at most N output types")
    g.add_argument("--max-suppressed-records", type=_COUNT, default=None, metavar="N",
                   help="record suppression: withhold up to N records, each exempt from the criteria (ARX's "
                        "definition) at the cost of all its QI cells; withheld records are left out of OUT.csv "
                        "and listed in the report")
    g.add_argument("--objective", default="cost", choices=["cost", "rows", "types"],
                   help="minimize cost (default) or rows with a recoded cell; "
                        "or maximize output types (needs --budget)")
    g.add_argument("--reduce", default="auto", choices=["auto", "lagrangian", "none"],
                   help="exact Lagrangian reduced-cost fixing for k-anonymity alone (default auto: where it "
                        "applies; none: build the whole model; formulations/reduction.md)")
    g.add_argument("--criteria-rows", default="auto", choices=["auto", "generated", "all"],
                   help="sensitive criteria: generated (default auto: where it applies) solves relaxations that "
                        "hold the criteria's rows only for candidates whose groups failed them, until one solution "
                        "meets every criterion; all: the whole model at once; formulations/row-generation.md")
    g.add_argument("--warm-start", default="none", choices=["none", "greedy"],
                   help="start HiGHS from a verified greedy table (suppression: the plain suppression greedy, any "
                        "criteria; patterns: the pattern greedy, k only; hierarchies: the level greedy (k only) and "
                        "Mondrian; intervals and value sets: Mondrian)")


def _request(args, criteria):
    return Request(criteria, recoding=_recoding(args), closure=not args.no_closure, budget=args.budget,
                   t_out=args.t_out, t_out_min=args.t_out_min, t_out_max=args.t_out_max, objective=args.objective,
                   warm_start=args.warm_start, reduction=args.reduce,
                   criteria_rows=getattr(args, "criteria_rows", "auto"),
                   max_memory_gb=getattr(args, "max_memory_gb", None),
                   max_suppressed_records=args.max_suppressed_records)


def _weights(args) -> dict:
    """``--weight COL=W ...`` as ``{COL: W}``: each a QI column, ``W`` a finite number > 0, once."""
    out: dict[str, float] = {}
    qi = _split(getattr(args, "qi", "") or "")
    for spec in getattr(args, "weight", None) or []:
        col, eq, text = spec.partition("=")
        col = col.strip()
        try:
            w = float(text)
        except ValueError:
            w = math.nan
        if not eq or not col or not math.isfinite(w) or w <= 0:
            raise InputError(f"--weight takes COL=W with W a finite number > 0, got {spec!r}")
        if col not in qi:
            raise InputError(f"--weight {spec}: {col!r} is not a QI column (--qi)")
        if col in out:
            raise InputError(f"--weight: column {col!r} is given two weights")
        out[col] = w
    return out


def _recoding(args):
    weights = _weights(args)
    specs = getattr(args, "hierarchy", []) or []
    intervals = [c for spec in getattr(args, "interval", None) or [] for c in _split(spec)]
    value_sets = [c for spec in getattr(args, "value_set", None) or [] for c in _split(spec)]
    if getattr(args, "patterns", None):
        if intervals or value_sets:
            raise InputError("--patterns is a suppression recoding: it does not combine with --interval/--value-set")
        if specs or args.cost:
            raise InputError("--patterns is a suppression recoding: it does not combine with --hierarchy/--cost")
        if getattr(args, "scheme", "local") != "local":
            raise InputError("--patterns recodes each row by a pattern: it does not combine with --scheme full-domain")
        text = read_text(args.patterns, "patterns file")
        return Patterns([ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")],
                        weights=weights)
    if not specs and not intervals and not value_sets and getattr(args, "cost", None) != "entropy":
        if getattr(args, "cost", None):
            raise InputError("--cost needs at least one --hierarchy COL=FILE")
        return Suppression(scheme=getattr(args, "scheme", "local"), weights=weights)
    if getattr(args, "cost", None) not in (None, "entropy") and not specs:
        raise InputError("--cost sets hierarchy node costs: it needs at least one --hierarchy COL=FILE")
    hier = {}
    for spec in specs:
        if "=" not in spec:
            raise InputError(f"--hierarchy takes COL=FILE, got {spec!r}")
        col, path = spec.split("=", 1)
        col = col.strip()
        if col in hier:
            raise InputError(f"two hierarchies for column {col!r}")
        hier[col] = Hierarchy.from_csv(path)
    return Generalization(hier, cost=args.cost or "height", scheme=getattr(args, "scheme", "local"),
                          intervals=tuple(intervals), value_sets=tuple(value_sets), weights=weights)


def _add_table_args(p, *, sep_help="delimiter for reading and writing (default ',')"):
    p.add_argument("--qi", required=True, help="comma-separated quasi-identifier columns")
    p.add_argument("--k", type=_WHOLE, default=None, help="k of k-anonymity (default 1 when another criterion is given)")
    p.add_argument("--sensitive", default=None, help="comma-separated sensitive column(s), carried unchanged")
    p.add_argument("--sep", default=",", help=sep_help)


def _add_output_args(p):
    g = p.add_argument_group("messages")
    g.add_argument("--quiet", action="store_true", help="print nothing but errors (and data sent to '-')")


def _add_solve_command(sub) -> None:
    """The ``solve`` command's flags."""
    s = sub.add_parser("solve", help="anonymize a CSV table optimally")
    s.set_defaults(l_kind="frequency")
    s.add_argument("input", metavar="INPUT.csv", help="the table (.csv, .csv.gz, .bz2, .xz; '-': standard input)")
    _add_table_args(s)
    s.add_argument("--out", required=True, metavar="OUT.csv", help="anonymized table ('-': standard output)")
    s.add_argument("--report", default=None, metavar="REPORT.json",
                   help="machine-readable report ('-': standard output)")
    _add_criteria_args(s)
    _add_recoding_args(s)
    _add_option_args(s)
    s.add_argument("--mps", default=None, metavar="MODEL.mps", help="also write the model as MPS")
    s.add_argument("--lp", default=None, metavar="MODEL.lp", help="also write the model as LP")
    _add_solver_args(s)
    _add_output_args(s)


def _add_inspect_command(sub) -> None:
    """The ``inspect`` command's flags."""
    i = sub.add_parser("inspect", help="sizes of the model without solving")
    i.add_argument("input", metavar="INPUT.csv", help="the table (.csv, .csv.gz, .bz2, .xz; '-': standard input)")
    _add_table_args(i, sep_help="delimiter of the table (default ',')")
    i.add_argument("--json", action="store_true", help="print JSON instead of text")
    i.add_argument("--no-closure", action="store_true", help="disable closure pruning of candidates")
    i.add_argument("--lp", action="store_true",
                   help="also solve the LP bound by column generation and report the pairs the Lagrangian "
                        "reduction keeps (with p-sensitivity or l-diversity also the Lagrangian bound of the "
                        "exact group blocks; with t-closeness that of what every close group must hold, where "
                        "that asks more than k)")
    i.add_argument("--time-limit", type=_SECONDS, default=None, metavar="SEC", help="time limit of --lp")
    _add_criteria_args(i)
    _add_recoding_args(i)
    _add_option_args(i)
    _add_output_args(i)


def _add_demo_command(sub) -> None:
    """The ``demo`` command's flags."""
    d = sub.add_parser("demo", help="solve the bundled UCI Adult table optimally")
    d.add_argument("--qi", default="sex,age,race,marital-status", help="QI columns of Adult")
    d.add_argument("--k", type=_WHOLE, default=5, help="k of k-anonymity (default 5)")
    d.add_argument("--out", default=None, metavar="OUT.csv", help="also write the anonymized table")
    _add_solver_args(d)
    _add_output_args(d)


def _add_gap_command(sub) -> None:
    """The ``gap`` command's flags."""
    g = sub.add_parser("gap", help="score an anonymized table: validity, cost, optimum and gap")
    g.set_defaults(l_kind="frequency")
    g.add_argument("original", metavar="ORIGINAL.csv", help="the input table ('-': standard input)")
    g.add_argument("anonymized", metavar="ANONYMIZED.csv", help="the release to score ('-': standard input)")
    _add_table_args(g, sep_help="delimiter of both files (default ',')")
    g.add_argument("--report", default=None, metavar="R.json", help="machine-readable report ('-': standard output)")
    m = g.add_argument_group("matching the release to the input")
    m.add_argument("--id", default=None, metavar="COL",
                   help="match rows by this id column (in both tables) instead of by position; the input's rows "
                        "missing from the anonymized table are suppressed records, each costing all its QI cells")
    m.add_argument("--ignore", action="append", default=[], metavar="COL",
                   help="leave this column out of the comparison (repeatable, or comma-separated)")
    m.add_argument("--count", default=None, metavar="COL",
                   help="each release row stands for COL records (anonypy's aggregated Mondrian output); rows are "
                        "then matched to the input's by a bipartite matching, in any order")
    m.add_argument("--record-suppression", action="store_true",
                   help="rows the release lacks, and rows with every QI cell '*' (or its hierarchy's root), are "
                        "withheld records (ARX, anjana): exempt from the criteria, charged all their QI cells")
    m.add_argument("--max-suppressed-records", type=_COUNT, default=None, metavar="N",
                   help="with --record-suppression or --id: the records the optimum may withhold (default: as many as "
                        "the release withheld)")
    m.add_argument("--optimum-from", default=None, metavar="REPORT.json",
                   help="take the optimum (or bound) from a report of 'milp-anon solve' on the same input, "
                        "criteria and recoding instead of solving again")
    m.add_argument("--score-only", action="store_true",
                   help="score the release alone (validity, cost, risk, utility) without computing an optimum; "
                        "the report's optimum keys are null")
    _add_criteria_args(g)
    _add_recoding_args(g)
    _add_solver_args(g)
    _add_output_args(g)


def _add_bench_command(sub) -> None:
    """The ``bench`` command's flags."""
    b = sub.add_parser("bench", help="run a benchmark suite (TOML)")
    b.add_argument("suite", metavar="SUITE.toml", help="the suite file")
    b.add_argument("--out", default=None, metavar="DIR", help="results directory (default benchmarks/results/<suite>)")
    b.add_argument("--workers", type=_WHOLE, default=None, help="parallel processes (default: the suite's)")
    b.add_argument("--render-only", action="store_true",
                   help="no runs: re-render report.md and the plots from DIR/results.json")
    b.add_argument("--resume", action="store_true",
                   help="keep the runs already in DIR/results.csv (each run is appended as it ends) and run the rest")
    b.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on this Dask cluster (tcp://HOST:PORT; default: a local Dask cluster of --workers)")


def _add_certify_command(sub) -> None:
    """The ``certify`` command's flags."""
    c = sub.add_parser("certify", help="re-check a reduction's Lagrangian bound and fixing from the table alone "
                                       "(no solver); --certificate: write an exact certificate")
    c.add_argument("original", metavar="ORIGINAL.csv", help="the input table of the solve")
    c.add_argument("report_in", metavar="REPORT.json", help="the solve's report (with reduction multipliers)")
    c.add_argument("--certificate", default=None, metavar="CERT.json",
                   help="also write an exact certificate, which python -m milp_anon.certificate_check CERT.json "
                        "(standard library only) re-checks; needs --released")
    c.add_argument("--released", default=None, metavar="RELEASED.csv",
                   help="the solve's released table (its --out, same delimiter): the certificate's assignment")
    c.add_argument("--engine", choices=("cbc", "scip"), default="cbc",
                   help="second engine re-solving the restricted model a certificate needs (default cbc; "
                        "scip needs the 'scip' extra)")
    c.add_argument("--engine-time-limit", type=_NONNEG, default=600.0, metavar="SEC",
                   help="the second engine's time limit (default 600; 0: none)")
    _add_table_args(c, sep_help="delimiter of ORIGINAL.csv and RELEASED.csv (default ',')")
    _add_recoding_args(c)
    _add_output_args(c)


def _add_export_command(sub) -> None:
    """The ``export`` command's flags."""
    e = sub.add_parser("export", help="write a suite's models as MPS with JSON sidecars")
    e.add_argument("suite", metavar="SUITE.toml", help="the suite file")
    e.add_argument("--dir", required=True, metavar="DIR", help="directory for the MPS files and sidecars")
    e.add_argument("--time-limit", type=_NONNEG, default=None, metavar="SEC",
                   help="solve each instance this long to record its optimum or bound (default: the suite's "
                        "time_limit; 0: do not solve)")
    e.add_argument("--gzip", action="store_true", help="write MODEL.mps.gz (deterministic: no time stamp)")


def build_parser() -> argparse.ArgumentParser:
    """The command line: one sub-parser per command (``_add_<command>_command``)."""
    parser = _Parser(prog="milp-anon", description=(
        "Provably optimal table anonymization as mixed-integer programs: k-anonymity, p-sensitivity, "
        "l-diversity and t-closeness, by cell suppression, generalization hierarchies or patterns; "
        "every released table passes an independent verifier."),
        epilog="'-' as INPUT.csv reads standard input; --out - / --report - write to standard output "
               "(the summary then goes to standard error). Exit codes: 0 optimal, 2 bad input, 3 infeasible, "
               "4 stopped by a limit, 5 invalid table (gap), 6 disagreement (bench) or a failed certificate, "
               "1 internal error.")
    parser.add_argument("--version", action="version", version=f"milp-anon {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    _add_solve_command(sub)
    _add_inspect_command(sub)
    _add_demo_command(sub)
    _add_gap_command(sub)
    _add_bench_command(sub)
    _add_certify_command(sub)
    _add_export_command(sub)
    return parser


def _criteria(args):
    """Criteria objects from the command line; ``--k`` defaults to 1 when another criterion is given."""
    crits = []
    p = getattr(args, "p", None)
    l_ = getattr(args, "l", None)
    t = getattr(args, "t", None)
    if p is not None:
        crits.append(PSensitivity(p))
    if l_ is not None:
        kind = args.l_kind
        if kind in ("distinct", "recursive") and float(l_) != int(l_):
            raise InputError(f"--l must be a whole number for {kind} l-diversity, got {l_:g}")
        crits.append(LDiversity(int(l_) if kind not in ("frequency", "entropy") else l_, kind=kind,
                                c=args.c if kind == "recursive" else None))
        if args.c is not None and kind != "recursive":
            raise InputError("--c applies to --l-kind recursive only")
    elif getattr(args, "c", None) is not None or getattr(args, "l_kind", None) not in (None, "frequency"):
        raise InputError("--l-kind and --c need --l")
    if t is not None:
        order = _split(args.order) if args.order else None
        crits.append(TCloseness(t, distance=args.distance, order=order, hierarchy=args.sensitive_hierarchy))
    elif getattr(args, "order", None) or getattr(args, "sensitive_hierarchy", None):
        raise InputError("--order and --sensitive-hierarchy need --t")
    crits += _share_criteria(args)
    crits += _population_criteria(args)
    if args.k is None and not crits:
        raise InputError("give --k (the k of k-anonymity) or another criterion (--p, --l, --t, --k-map, "
                         "--delta-presence)")
    return [KAnonymity(args.k if args.k is not None else 1)] + crits


def _share_criteria(args) -> list:
    """δ-disclosure, β-likeness and average risk from the command line (issue 95)."""
    out = []
    if getattr(args, "delta_disclosure", None) is not None:
        out.append(DeltaDisclosure(args.delta_disclosure))
    if getattr(args, "beta", None) is not None:
        out.append(BetaLikeness(args.beta, kind=args.beta_kind or "enhanced"))
    elif getattr(args, "beta_kind", None) is not None:
        raise InputError("--beta-kind needs --beta")
    if getattr(args, "average_risk", None) is not None:
        out.append(AverageRisk(args.average_risk))
    return out


def _options(args):
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", stream=sys.stderr)
    highs = [parse_highs_option(text) for text in args.highs_option]
    if args.log:  # the log to the file; to the console (standard error) only with --verbose
        highs += [("output_flag", True), ("log_to_console", bool(args.verbose)), ("log_file", args.log)]
    return SolverOptions(solver=args.solver, time_limit=args.time_limit, threads=args.threads, gap=args.gap,
                         msg=args.verbose, presolve=args.presolve, isolate=args.isolate, highs_options=tuple(highs),
                         lns=args.lns)


def _finish(result, outputs: Outputs, out_path, report_path, sep) -> int:
    """Write every output (all or none), then say what happened; the exit code."""
    if result.status == "infeasible":
        code = EXIT_INFEASIBLE
    elif result.status == "optimal":
        code = EXIT_OK
    else:
        code = EXIT_LIMIT
    writers = {}
    if result.table is not None and out_path:
        writers[out_path] = _table_writer(result.table, sep)
    if report_path:
        writers[report_path] = lambda fh: fh.write(result.to_json() + "\n")
    written = outputs.commit(writers)  # before anything is printed: a closed stdout never loses a result
    if result.status == "infeasible":
        print(f"milp-anon: infeasible: {result.reason or result.solver_status}", file=sys.stderr)
    if result.table is None and out_path:
        print(f"milp-anon: {result.status}: no verified solution, {out_path} not written", file=sys.stderr)
    _say(result.summary(), *(f"wrote {p}" for p in written))
    return code


def cmd_solve(args) -> int:
    sep = _sep(args.sep)
    qi = _split(args.qi)
    with Outputs(_input_files(args)) as outputs:
        out = outputs.add(args.out, "output")
        report = outputs.add(args.report, "report")
        outputs.add(args.log, "log file")
        _Messages.to_stderr = outputs.to_stdout
        models = [(p, model_format(p, fmt)) for p, fmt in
                  ((outputs.add(args.mps, "MPS file"), "mps"), (outputs.add(args.lp, "LP file"), "lp")) if p]
        criteria = _criteria(args)
        options = _options(args)
        request = _request(args, criteria)
        table = Table.from_csv(args.input, qi, _split(args.sensitive) or None, sep=sep)
        try:
            # the whole model, before the solve (an infeasible request has none: the solve says why);
            # renamed into place with the other outputs once the solve returned
            for path, fmt in models:
                write_model_file(table, request, outputs.staging(path), fmt)
        except InfeasibleRequest:
            for path, _ in models:
                outputs.drop(path)
        with _progress_printer() as printer:
            result = request.solve(table, options, progress=printer)
        return _finish(result, outputs, out, report, sep)


def cmd_inspect(args) -> int:
    sep = _sep(args.sep)
    criteria = _criteria(args)
    table = Table.from_csv(args.input, _split(args.qi), _split(args.sensitive) or None, sep=sep)
    info = _request(args, criteria).inspect(table, lp=args.lp, time_limit=args.time_limit)
    if args.json:
        _say(json.dumps(info, indent=2))
        return EXIT_OK
    _say(f"rows          {info['n_rows']}   QI columns {info['m']}   t_in {info['t_in']}"
          + (f"   units {info['n_units']}" if "n_units" in info else ""))
    _say(f"criteria      {', '.join(info['criteria'])}")
    if info["infeasible"]:
        _say(f"infeasible    {info['infeasible']}")
        return EXIT_OK
    c = dict(info["candidates"])
    extra = "".join(f"  after {k} {v}" for k, v in c.items()
                    if k not in ("generated", "support", "closure_only", "kept"))
    _say(f"candidates    generated {c.pop('generated')}  after support {c.pop('support')}  "
          f"after closure {c.pop('closure_only')}  after both {c.pop('kept')}{extra}")
    _say(f"pairs         {info['n_pairs']} assignment pairs (unit, candidate)")
    _say(f"model         {info['n_variables']} variables ({info['n_integer']} integer), "
          f"{info['n_constraints']} constraints, {info['n_nonzeros']} nonzeros (estimated before building)")
    held = info["process_bytes"]
    highs, pulp = (info["bytes_highs"] + held) / 2**20, (info["bytes_pulp"] + held) / 2**20
    if info.get("solved_by") == "lagrangian reduction":
        # the whole model is never built here: its estimate is an upper bound, never a reason to refuse
        _say(f"memory        at most about {highs:,.0f} MiB: the whole model's estimate with HiGHS and the "
             f"{held / 2**20:,.0f} MiB this process holds ({pulp:,.0f} MiB with a PuLP model); a solve runs the "
             "Lagrangian reduction, which never builds the whole model and checks each restricted model it builds "
             "against the memory allowed")
    else:
        _say(f"memory        about {highs:,.0f} MiB to solve with HiGHS, {pulp:,.0f} MiB with a PuLP model (the "
             f"model, and the {held / 2**20:,.0f} MiB this process holds with the candidates; checked against the "
             "memory allowed before the model is built)")
    lag = info.get("lagrangian")
    if lag:
        _say(f"LP bound      {lag['lp_bound']:.4f} by column generation ({lag['iterations']} rounds, "
              f"{lag['seconds']:.1f} s, {'converged' if lag['converged'] else 'stopped at the limit'}); "
              f"master {lag['master_candidates']} candidates, {lag['master_pairs']} pairs")
        if "clique_bound" in lag:
            _say(f"clique bound  {lag['clique_bound']:.4f} with {lag['cliques']} conflict cliques"
                 + (f" and {lag['rank_rows']} rank rows" if lag.get("rank_rows") else "") + " in the master")
        if "block_bound" in lag:
            _say(f"block bound   {lag['block_bound']:.4f} by subgradient ascent from {lag['block_start']:.4f} "
                  f"({lag['ascent_steps']} steps, {lag['ascent_seconds']:.1f} s)")
        kept = "  ".join(f"G={g}: {v['pairs']} pairs/{v['candidates']} candidates"
                         for g, v in lag["kept_below"].items())
        _say(f"fixing        (row type, candidate) pairs, of {lag['type_pairs']}, that a solution cheaper than G "
             f"may use: {kept}")
        if lag["relaxation"] != "k-anonymity":
            _say(f"relaxation    {lag['relaxation']}; reduction rounds {lag['rounds']}")
    return EXIT_OK


def cmd_demo(args) -> int:
    qi = _split(args.qi)
    bad = [c for c in qi if c not in ADULT_QI]
    if bad:
        raise InputError(f"not a QI column of Adult: {', '.join(bad)} (choose from {', '.join(ADULT_QI)})")
    with Outputs() as outputs:
        out = outputs.add(args.out, "output")
        outputs.add(args.log, "log file")
        _Messages.to_stderr = outputs.to_stdout
        request = Request(_criteria(args), closure=not args.no_closure, max_memory_gb=args.max_memory_gb)
        options = _options(args)
        frame = load_adult()
        _say(f"UCI Adult (ARX preparation): {len(frame)} rows; QIs {', '.join(qi)}; sensitive occupation; "
             f"k = {args.k}")
        table = Table.from_frame(frame, qi, "occupation", sep=";", source="adult.csv")
        with _progress_printer() as printer:
            result = request.solve(table, options, progress=printer)
        code = _finish(result, outputs, out, None, ";")
    if result.table is not None:
        t = result.table
        sizes = t.groupby(list(qi)).size().sort_values()
        starred = t[(t[qi] == "*").any(axis=1)]
        _say(f"\nsmallest classes (verified: every class has >= {args.k} rows):", sizes.head(5).to_string(),
             f"\n{len(starred)} of {len(t)} rows have a suppressed cell; a few of them:",
             starred.head(8).to_string(index=False))
    return code


def cmd_gap(args) -> int:
    sep = _sep(args.sep)
    if args.original == "-" and args.anonymized == "-":
        raise InputError("only one of ORIGINAL.csv and ANONYMIZED.csv can be '-' (standard input)")
    with Outputs(_input_files(args)) as outputs:
        report = outputs.add(args.report, "report")
        outputs.add(args.log, "log file")
        _Messages.to_stderr = outputs.to_stdout
        criteria = _criteria(args)
        recoding = _recoding(args)
        options = _options(args)
        table = Table.from_csv(args.original, _split(args.qi), _split(args.sensitive) or None, sep=sep)
        released = read_csv(args.anonymized, sep)
        for crit in criteria:  # bad input (e.g. a sensitive criterion without --sensitive), not an invalid release
            crit.validate(table)
        if args.max_suppressed_records is not None and not args.record_suppression and args.id is None:
            raise InputError("--max-suppressed-records needs --record-suppression (or --id)")
        ignore = [c for spec in args.ignore for c in _split(spec)]
        if args.score_only and args.optimum_from is not None:
            raise InputError("--score-only computes no optimum: it does not combine with --optimum-from")
        with _progress_printer() as printer, reporting(printer):
            rep = score_release(table, released, criteria, recoding, options, solve=not args.score_only,
                                id_column=args.id, ignore=ignore,
                                count_column=args.count,
                                record_suppression=args.record_suppression,
                                max_withheld=args.max_suppressed_records, optimum_from=args.optimum_from)
        written = outputs.commit({report: lambda fh: fh.write(json.dumps(rep.to_dict(), indent=2) + "\n")}
                                 if report else None)
    if rep.ignored_columns:
        left = [c for c in rep.ignored_columns if c != "index"]
        _say("ignored    " + "; ".join(([] if len(left) == len(rep.ignored_columns) else
                                         ["index (the release's row numbering)"])
                                        + ([f"{', '.join(left)} (not in the release, neither QI nor sensitive)"]
                                           if left else [])))
    if not rep.valid:
        print(f"milp-anon: invalid anonymized table: {rep.violation}", file=sys.stderr)
        code = EXIT_INVALID
    else:
        _say(*_gap_lines(rep))
        code = EXIT_OK
    _say(*(f"wrote {p}" for p in written))
    return code


def _pct(x) -> str:
    return "n/a" if x is None else format_gap(x)


def _gap_lines(rep) -> list[str]:
    """The gap summary: "optimum" only for a proven optimum, else best known, bound and the gap's range."""
    withheld = ("" if rep.max_suppressed_records is None
                else f", {counted(rep.withheld_records, 'withheld record')}")
    lines = [f"valid      yes ({counted(rep.n_groups, 'class', 'classes')}{withheld})", f"cost       {rep.cost:,.6g}"]
    lines += measure_lines(rep.risk, rep.utility, width=11)
    if rep.score_only:
        return lines + ["optimum    not computed (--score-only)"]
    src = "" if rep.optimum_source in (None, "solved") else f"; from {rep.optimum_source}"
    limit = ("" if rep.max_suppressed_records is None
             else f"; may withhold {counted(rep.max_suppressed_records, 'record')}")
    if rep.optimum is not None:
        lines += [f"optimum    {rep.optimum:,.6g} (proven optimal{limit}{src})", f"gap        {_pct(rep.gap)}"]
    elif rep.best_known is not None:
        lines += [f"best known {rep.best_known:,.6g} ({rep.status}: not proven optimal{limit}{src})",
                  f"bound      {'-' if rep.bound is None else f'{rep.bound:,.6g}'}",
                  f"gap        between {_pct(rep.gap_to_best_known)} (to the best known) and "
                  f"{_pct(rep.gap_to_bound)} (to the bound)"]
    else:
        lines += [f"optimum    unknown ({rep.status})"]
    return lines


def cmd_bench(args) -> int:
    suite = load_suite(args.suite)
    out = args.out or os.path.join("benchmarks", "results", suite.name)
    res = render_existing(suite, out) if args.render_only else run_suite(suite, out, workers=args.workers,
                                                                         resume=args.resume, log=_say,
                                                                         scheduler=args.scheduler)
    _say(f"wrote {out}/results.csv, results.json, report.md")
    if res["disagreements"]:
        print(f"milp-anon: {len(res['disagreements'])} DISAGREEMENT(S) between exact methods; see {out}/report.md",
              file=sys.stderr)
        return EXIT_DISAGREE
    return EXIT_OK


def cmd_certify(args) -> int:
    if args.sensitive:
        raise InputError("certify covers the reduction of k-anonymity alone (no --sensitive)")
    if args.certificate is not None and args.released is None:
        raise InputError("--certificate needs --released RELEASED.csv (the assignment it certifies)")
    with Outputs(_input_files(args)) as outputs:
        path = outputs.add(args.certificate, "certificate")
        if path == "-":
            raise InputError("--certificate needs a file, not '-'")
        try:
            report = json.loads(read_text(args.report_in, "report"))
        except json.JSONDecodeError as exc:
            raise InputError(f"{args.report_in}: not a JSON report ({exc.msg})") from None
        table = Table.from_csv(args.original, _split(args.qi), None, sep=_sep(args.sep))
        request = Request([KAnonymity(args.k or 1)], recoding=_recoding(args))
        cert = certify(table, request, report)
        _say(*cert.lines())
        if not cert.ok:
            print("milp-anon: the certificate does not check (see the FAIL lines)", file=sys.stderr)
            return EXIT_DISAGREE
        if not cert.solver_free:
            _say(f"certified: L(π) and the fixing of every round recomputed from the table; with the HiGHS bounds "
                 f"above, the optimum is at least {cert.lower_bound:,.6g}")
        else:  # the Lagrangian bound alone reached the verified table (rounds, if any, only found it)
            _say(f"certified without any solver: L(π) and the type bound, recomputed from the table, show the "
                 f"optimum is at least {cert.lower_bound:,.6g}")
        if path is None:
            return EXIT_OK
        return _write_certificate(args, outputs, path, table, request, report)


def _write_certificate(args, outputs: Outputs, path: str, table, request, report: dict) -> int:
    """The exact certificate (:func:`~milp_anon.certify.exact_certificate`) written to ``path`` whole, then
    re-checked by :mod:`milp_anon.certificate_check`: exit 0 when it holds (every round it needs confirmed by the
    second engine), else 6 (the file is still written, so what was not confirmed can be re-solved)."""
    released = read_csv(args.released, _sep(args.sep))
    cert = exact_certificate(table, request, report, released, engine=args.engine,
                             engine_time_limit=args.engine_time_limit or None)
    for rnd in cert["rounds"]:
        eng = rnd["engine"]
        if eng is not None:
            _say(f"engine {eng['engine']}: the restricted model over {len(rnd['pairs']):,} pairs, {eng['status']} "
                 f"({eng.get('value', 'no value')}) in {eng['seconds']:,.3g} s: OPT(K) >= {eng['claim']} "
                 + ("confirmed" if eng["confirmed"] else "UNCONFIRMED"))
    written = outputs.commit({path: lambda fh: json.dump(cert, fh, separators=(",", ":"))})
    try:
        said, failed = certificate_check.check(cert), None
    except certificate_check.Failed as exc:
        said, failed = [], str(exc)
    _say(*(f"exact     {line}" for line in said), *(f"wrote {p}" for p in written))
    if failed is not None:
        print(f"milp-anon: the exact certificate does not hold: {failed}", file=sys.stderr)
        return EXIT_DISAGREE
    return EXIT_OK


def cmd_export(args) -> int:
    suite = load_suite(args.suite)
    limit = suite.time_limit if args.time_limit is None else args.time_limit
    export_suite(suite, args.dir, solve_limit=limit or None, compress=args.gzip, log=_say)
    _say(f"wrote {len(suite.instances)} instances to {args.dir}")
    return EXIT_OK


def main(argv=None) -> int:
    """Run one command (``argv``: the arguments after the program name); the exit code."""
    parser = build_parser()
    _Messages.quiet = _Messages.to_stderr = _Messages.gone = False
    try:
        args = parser.parse_args(argv)
        _Messages.quiet = bool(getattr(args, "quiet", False))
        handler = {"solve": cmd_solve, "inspect": cmd_inspect, "demo": cmd_demo, "gap": cmd_gap, "bench": cmd_bench,
                   "export": cmd_export, "certify": cmd_certify}[args.command]
        if args.command in ("solve", "demo", "gap"):  # Ctrl-C: the best verified table so far, exit 4
            with stop_on_sigint():
                return handler(args)
        return handler(args)
    except InputError as exc:
        print(f"milp-anon: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except VerificationError as exc:
        print(f"milp-anon: internal error (please report): {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    except SolverError as exc:
        print(f"milp-anon: solver error: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    except MilpAnonError as exc:  # pragma: no cover
        print(f"milp-anon: error: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    except KeyboardInterrupt:
        print("milp-anon: interrupted", file=sys.stderr)
        return 130


def _native_stdout_to_stderr() -> None:
    """Anything written to file descriptor 1 by native code (HiGHS's log, CBC) goes to stderr; ``print`` keeps stdout."""
    try:
        real = os.dup(sys.stdout.fileno())
        sys.stdout.flush()
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real stdout (embedded): leave it
        return
    sys.stdout = open(real, "w", buffering=1, encoding=sys.stdout.encoding or "utf-8", errors="replace",
                      newline=None, closefd=True)


def run() -> None:
    """The ``milp-anon`` program: SIGTERM and SIGHUP end it cleanly (:mod:`milp_anon.runtime.cleanup`), native
    output goes to stderr, then :func:`main`."""
    exit_on_signals()
    _native_stdout_to_stderr()
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()
