"""Bad and odd input through the command line (a subprocess per case) and the API.

Every bad case must answer with its exit code and exactly one line on
stderr — no traceback, no file created or left behind, every input
byte-identical. Each case runs in its own directory holding the same small
inputs, so the check "nothing changed" covers every file there (hidden ones
included). The cases run two at a time, each in a process of its own: a few
as fresh interpreters (``FRESH``), the rest as forks of an interpreter that
imported the package once (``tests/cli_forkserver.py``), which saves about
a second of imports per case.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import queue
import subprocess
import sys

import pandas as pd
import pytest

import milp_anon as ma
from milp_anon.runtime.errors import InputError
from milp_anon.tables.hierarchy import Hierarchy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)}

TABLE = ("sex,age,race,occ,note\n"
         "M,30,w,a,x\nM,30,w,b,x\nF,31,b,a,y\nF,31,b,c,y\nM,32,w,a,z\nM,32,b,b,z\nF,30,w,c,x\nF,33,b,a,y\n")
ANON = "sex,age,race,occ,note\n" + "".join(f"*,*,*,{r.split(',')[3]},{r.split(',')[4]}\n"
                                           for r in TABLE.splitlines()[1:])
FILES = {
    "t.csv": TABLE.encode(),
    "age_h.csv": b"30;30-31;*\n31;30-31;*\n32;32-33;*\n33;32-33;*\n",
    "occ_h.csv": b"a;ab;*\nb;ab;*\nc;c-only;*\n",
    "p.txt": b"111\n000\n110\n",
    "anon.csv": ANON.encode(),
    "suite.toml": b'name = "s"\n[[instances]]\nsource = "synthetic"\n',
    "pop.csv": (TABLE + "M,34,w,a,q\n").encode(),
    "pop_noqi.csv": b"sex,age\nM,30\n",
    "pop_short.csv": TABLE.rsplit("\n", 2)[0].encode() + b"\n",
}
SOLVE = ["solve", "t.csv", "--qi", "sex,age,race", "--k", "2", "--out", "out.csv"]
SOLVE_S = SOLVE + ["--sensitive", "occ"]
GAP = ["gap", "t.csv", "anon.csv", "--qi", "sex,age,race", "--k", "2"]


def _bytes(path, data):
    return lambda d: open(os.path.join(d, path), "wb").write(data)


def _mkdir(path):
    return lambda d: os.mkdir(os.path.join(d, path))


def _symlink(target, name):
    return lambda d: os.symlink(target, os.path.join(d, name))


def _hardlink(target, name):
    return lambda d: os.link(os.path.join(d, target), os.path.join(d, name))


# (id, arguments, setup, exit code, a phrase of the one stderr line)
BAD = [
    # -- the input table ------------------------------------------------------------
    ("input-missing", ["solve", "nope.csv", *SOLVE[2:]], None, 2, "not found"),
    ("input-directory", ["solve", "d", *SOLVE[2:]], _mkdir("d"), 2, "is a directory"),
    ("input-empty", ["solve", "e.csv", *SOLVE[2:]], _bytes("e.csv", b""), 2, "empty"),
    ("input-blank-lines", ["solve", "e.csv", *SOLVE[2:]], _bytes("e.csv", b"\n\n\n"), 2, "empty"),
    ("input-binary", ["solve", "b.csv", *SOLVE[2:]], _bytes("b.csv", b"sex,age\n\x00\x01\x02\n"), 2, "binary"),
    ("input-latin1", ["solve", "l.csv", *SOLVE[2:]], _bytes("l.csv", "sex,age,race\nM,30,é\n".encode("latin-1")), 2,
     "not UTF-8"),
    ("input-ragged", ["solve", "r.csv", *SOLVE[2:]], _bytes("r.csv", b"sex,age,race\nM,30\n"), 2, "line 2 has 2 fields"),
    ("input-unterminated-quote", ["solve", "q.csv", *SOLVE[2:]],
     _bytes("q.csv", b'sex,age,race\nM,30,"oops\nF,31,x\nF,31,x\n'), 2, "line 2: a quoted field"),
    ("input-text-after-quote", ["solve", "q.csv", *SOLVE[2:]], _bytes("q.csv", b'sex,age,race\nM,30,"w"x\n'), 2,
     "malformed CSV"),
    ("input-header-only", ["solve", "h.csv", *SOLVE[2:]], _bytes("h.csv", b"sex,age,race\n"), 2, "no rows"),
    ("input-duplicate-header", ["solve", "h.csv", *SOLVE[2:]], _bytes("h.csv", b"sex,sex,race\nM,1,w\n"), 2,
     "duplicate column"),
    ("input-wrong-sep", ["solve", "t.csv", "--qi", "sex,age", "--k", "2", "--out", "out.csv", "--sep", ";"], None, 2,
     "is --sep right?"),
    ("input-sep-two-chars", [*SOLVE, "--sep", ";;"], None, 2, "one character"),
    ("input-empty-qi-cell", ["solve", "c.csv", *SOLVE[2:]], _bytes("c.csv", b"sex,age,race\nM,,w\nM,3,w\n"), 2,
     "empty cell"),
    ("input-star-in-qi", ["solve", "c.csv", *SOLVE[2:]], _bytes("c.csv", b"sex,age,race\nM,*,w\nM,3,w\n"), 2,
     "suppression marker"),
    ("qi-missing-column", ["solve", "t.csv", "--qi", "sex,zip", "--k", "2", "--out", "out.csv"], None, 2,
     "not in the table: zip"),
    ("qi-empty", ["solve", "t.csv", "--qi", ",", "--k", "2", "--out", "out.csv"], None, 2, "empty"),
    ("qi-twice", ["solve", "t.csv", "--qi", "sex,sex", "--k", "2", "--out", "out.csv"], None, 2, "named twice"),
    ("qi-also-sensitive", [*SOLVE, "--sensitive", "sex"], None, 2, "both quasi-identifier and sensitive"),
    ("sensitive-missing", [*SOLVE, "--sensitive", "zip", "--p", "2"], None, 2, "not in the table: zip"),
    ("sensitive-criterion-alone", [*SOLVE, "--p", "2"], None, 2, "needs a sensitive column"),
    ("no-criterion", ["solve", "t.csv", "--qi", "sex", "--out", "out.csv"], None, 2, "give --k"),
    ("k-map-without-population", [*SOLVE, "--k-map", "2"], None, 2, "need --population"),
    ("delta-without-population", [*SOLVE, "--delta-presence", "0,0.5"], None, 2, "need --population"),
    ("population-without-criterion", [*SOLVE, "--population", "pop.csv"], None, 2, "needs --k-map"),
    ("population-missing-qi", [*SOLVE, "--population", "pop_noqi.csv", "--k-map", "2"], None, 2, "no column(s) race"),
    ("population-not-superset", [*SOLVE, "--population", "pop_short.csv", "--k-map", "2"], None, 2,
     "not a subset of the population"),
    ("population-unreadable", [*SOLVE, "--population", "nope.csv", "--k-map", "2"], None, 2, "--population"),
    ("k-map-zero", [*SOLVE, "--population", "pop.csv", "--k-map", "0"], None, 2, "whole number >= 1"),
    ("delta-malformed", [*SOLVE, "--population", "pop.csv", "--delta-presence", "0.5"], None, 2, "MIN,MAX"),
    ("delta-min-above-max", [*SOLVE, "--population", "pop.csv", "--delta-presence", "0.6,0.4"], None, 2,
     "0 <= MIN <= MAX <= 1"),
    ("delta-above-one", [*SOLVE, "--population", "pop.csv", "--delta-presence", "0,1.5"], None, 2, "MIN,MAX"),
    ("population-gap-not-superset", [*GAP, "--population", "pop_short.csv", "--k-map", "2"], None, 2,
     "not a subset of the population"),
    ("population-inspect-missing-qi", ["inspect", "t.csv", "--qi", "sex,age,race", "--population", "pop_noqi.csv",
                                       "--k-map", "2"], None, 2, "no column(s) race"),
    ("missing-out", ["solve", "t.csv", "--qi", "sex", "--k", "2"], None, 2, "--out"),
    ("unknown-option", [*SOLVE, "--frobnicate"], None, 2, "unrecognized arguments"),
    ("unknown-command", ["frobnicate"], None, 2, "invalid choice"),
    # -- numeric options: 0, negative, not a number, NaN, infinite, huge --------------------------
    *[(f"k-{v}", ["solve", "t.csv", "--qi", "sex", "--k", v, "--out", "out.csv"], None, 2, "--k: expected")
      for v in ("0", "-1", "two", "nan", "1.5")],
    *[(f"time-limit-{v}", [*SOLVE, "--time-limit", v], None, 2, "--time-limit: expected")
      for v in ("0", "-1", "abc", "nan", "inf")],
    *[(f"threads-{v}", [*SOLVE, "--threads", v], None, 2, "--threads: expected") for v in ("0", "-2", "x", "1.5")],
    *[(f"gap-{v}", [*SOLVE, "--gap", v], None, 2, "gap") for v in ("-0.1", "1", "x", "nan")],
    *[(f"p-{v}", [*SOLVE_S, "--p", v], None, 2, "--p: expected") for v in ("0", "-1", "x")],
    *[(f"l-{v}", [*SOLVE_S, "--l", v], None, 2, "--l: expected") for v in ("0", "0.5", "nan", "x")],
    *[(f"c-{v}", [*SOLVE_S, "--l", "2", "--l-kind", "recursive", "--c", v], None, 2, "--c: expected")
      for v in ("0", "-1", "nan")],
    *[(f"t-{v}", [*SOLVE_S, "--t", v], None, 2, "--t: expected") for v in ("-0.1", "1.5", "nan", "x")],
    *[(f"budget-{v}", [*SOLVE, "--budget", v], None, 2, "--budget: expected") for v in ("-1", "nan", "x", "inf")],
    *[(f"{o}-{v}", [*SOLVE, f"--{o}", v], None, 2, f"--{o}: expected")
      for o in ("t-out", "t-out-min", "t-out-max") for v in ("0", "-1", "x")],
    ("t-out-min-above-max", [*SOLVE, "--t-out-min", "3", "--t-out-max", "2"], None, 2, "exceeds"),
    *[(f"max-memory-{v}", [*SOLVE, "--max-memory-gb", v], None, 2, "--max-memory-gb: expected")
      for v in ("0", "-1", "nan")],
    ("max-memory-tiny", [*SOLVE, "--max-memory-gb", "1e-12", "--reduce", "none"], None, 2, "GiB is allowed"),
    ("l-distinct-fraction", [*SOLVE_S, "--l", "2.5", "--l-kind", "distinct"], None, 2, "whole number"),
    ("l-entropy-without-l", [*SOLVE_S, "--l-kind", "entropy"], None, 2, "need --l"),
    *[(f"l-entropy-{v}", [*SOLVE_S, "--l", v, "--l-kind", "entropy"], None, 2, "--l: expected")
      for v in ("0.5", "0", "-2", "nan")],
    ("l-entropy-with-c", [*SOLVE_S, "--l", "2", "--l-kind", "entropy", "--c", "2"], None, 2, "recursive only"),
    ("l-entropy-types-objective", [*SOLVE_S, "--l", "2", "--l-kind", "entropy", "--objective", "types",
                                   "--budget", "100"], None, 2, "generated cuts"),
    ("l-entropy-mps", [*SOLVE_S, "--l", "2", "--l-kind", "entropy", "--mps", "m.mps"], None, 2, "no whole model"),
    ("l-entropy-gap-without-l", [*GAP, "--sensitive", "occ", "--l-kind", "entropy"], None, 2, "need --l"),
    # δ-disclosure, β-likeness, average risk (issue 95)
    *[(f"delta-disclosure-{v}", [*SOLVE_S, "--delta-disclosure", v], None, 2, "--delta-disclosure: expected")
      for v in ("0", "-1", "nan", "x")],
    *[(f"beta-{v}", [*SOLVE_S, "--beta", v], None, 2, "--beta: expected") for v in ("0", "-0.5", "inf", "x")],
    *[(f"average-risk-{v}", [*SOLVE, "--average-risk", v], None, 2, "--average-risk: expected")
      for v in ("0", "-0.1", "1.5", "nan")],
    ("beta-kind-without-beta", [*SOLVE_S, "--beta-kind", "basic"], None, 2, "--beta-kind needs --beta"),
    ("choice-beta-kind", [*SOLVE_S, "--beta", "1", "--beta-kind", "bogus"], None, 2, "invalid choice"),
    ("delta-disclosure-no-sensitive", [*SOLVE, "--delta-disclosure", "1"], None, 2, "needs a sensitive column"),
    ("beta-no-sensitive", [*SOLVE, "--beta", "1"], None, 2, "needs a sensitive column"),
    ("gap-beta-no-sensitive", [*GAP, "--beta", "1"], None, 2, "needs a sensitive column"),
    ("inspect-delta-disclosure-0", ["inspect", "t.csv", "--qi", "sex", "--sensitive", "occ", "--delta-disclosure",
                                    "0"], None, 2, "--delta-disclosure: expected"),
    ("cost-entropy-full-domain", [*SOLVE, "--cost", "entropy", "--scheme", "full-domain"], None, 2,
     "use --scheme local"),
    ("cost-entropy-budget", [*SOLVE, "--cost", "entropy", "--budget", "5"], None, 2, "budget is not offered"),
    # -- choices and combinations -----------------------------------------------------------
    *[(f"choice-{o}", [*SOLVE_S, f"--{o}", "bogus"], None, 2, "invalid choice")
      for o in ("l-kind", "distance", "objective", "reduce", "warm-start", "presolve", "isolate", "cost",
                "criteria-rows")],
    ("objective-types-no-budget", [*SOLVE, "--objective", "types"], None, 2, "needs a budget"),
    ("c-without-recursive", [*SOLVE_S, "--l", "2", "--c", "2"], None, 2, "recursive only"),
    ("order-without-t", [*SOLVE_S, "--order", "a,b,c"], None, 2, "need --t"),
    ("order-misses-value", [*SOLVE_S, "--t", "0.3", "--distance", "ordered", "--order", "a,b"], None, 2,
     "misses value"),
    ("hierarchical-without-file", [*SOLVE_S, "--t", "0.3", "--distance", "hierarchical"], None, 2,
     "needs a hierarchy"),
    ("reduce-lagrangian-not-k", [*SOLVE_S, "--p", "2", "--reduce", "lagrangian"], None, 2, "reduction does not apply"),
    ("criteria-rows-generated-k-alone", [*SOLVE, "--criteria-rows", "generated"], None, 2,
     "criteria's rows cannot be generated"),
    ("warm-start-full-domain", [*SOLVE, "--hierarchy", "age=age_h.csv", "--scheme", "full-domain", "--warm-start",
                                "greedy"], None, 2, "greedy warm start applies to local recoding"),
    # -- solvers ---------------------------------------------------------------------------------
    ("solver-unknown", [*SOLVE, "--solver", "NOPE"], None, 2, "unknown solver"),
    ("solver-not-installed", [*SOLVE, "--solver", "glpk"], None, 2, "not installed"),
    ("solver-empty-name", [*SOLVE, "--solver", ""], None, 2, "unknown solver"),
    ("highs-option-unknown", [*SOLVE, "--highs-option", "nope=1"], None, 2, "HiGHS has no option"),
    ("highs-option-bad-value", [*SOLVE, "--highs-option", "random_seed=x"], None, 2, "takes an integer"),
    ("highs-option-out-of-range", [*SOLVE, "--highs-option", "mip_rel_gap=-1"], None, 2, "refuses"),
    ("highs-option-no-equals", [*SOLVE, "--highs-option", "random_seed"], None, 2, "KEY=VALUE"),
    ("log-is-input", [*SOLVE, "--log", "t.csv"], None, 2, "is the input"),
    ("stdout-twice", [*SOLVE[:-1], "-", "--report", "-"], None, 2, "standard output"),
    ("gap-both-stdin", ["gap", "-", "-", *GAP[3:]], None, 2, "only one of"),
    ("input-damaged-gzip", ["solve", "z.csv.gz", *SOLVE[2:]], _bytes("z.csv.gz", b"\x1f\x8b\x08\x00garbage"), 2,
     "damaged gzip"),
    # -- hierarchies ----------------------------------------------------------------------------
    ("hierarchy-no-equals", [*SOLVE, "--hierarchy", "age"], None, 2, "COL=FILE"),
    ("hierarchy-missing", [*SOLVE, "--hierarchy", "age=nope.csv"], None, 2, "not found"),
    ("hierarchy-directory", [*SOLVE, "--hierarchy", "age=d"], _mkdir("d"), 2, "is a directory"),
    ("hierarchy-binary", [*SOLVE, "--hierarchy", "age=h.csv"], _bytes("h.csv", b"\x00\xff"), 2, "binary"),
    ("hierarchy-latin1", [*SOLVE, "--hierarchy", "age=h.csv"], _bytes("h.csv", "30;é;*\n".encode("latin-1")), 2,
     "not UTF-8"),
    ("hierarchy-empty", [*SOLVE, "--hierarchy", "age=h.csv"], _bytes("h.csv", b""), 2, "empty"),
    ("hierarchy-ragged", [*SOLVE, "--hierarchy", "age=h.csv"], _bytes("h.csv", b"30;x;*\n31;*\n"), 2, "ragged"),
    ("hierarchy-empty-field", [*SOLVE, "--hierarchy", "age=h.csv"], _bytes("h.csv", b"30;;*\n"), 2, "empty field"),
    ("hierarchy-one-level", [*SOLVE, "--hierarchy", "age=h.csv"], _bytes("h.csv", b"30\n31\n"), 2, "single level"),
    ("hierarchy-two-roots", [*SOLVE, "--hierarchy", "age=h.csv"], _bytes("h.csv", b"30;x;r1\n31;y;r2\n"), 2,
     "2 roots"),
    ("hierarchy-not-a-tree", [*SOLVE, "--hierarchy", "age=h.csv"], _bytes("h.csv", b"30;x;a;*\n31;x;b;*\n"), 2,
     "not a tree"),
    ("hierarchy-crossing", [*SOLVE, "--hierarchy", "age=h.csv"],
     _bytes("h.csv", b"30;31;*\n31;30;*\n32;3x;*\n33;3x;*\n"), 2, "ambiguous"),
    ("hierarchy-value-twice", [*SOLVE, "--hierarchy", "age=h.csv"], _bytes("h.csv", b"30;x;*\n30;y;*\n"), 2,
     "listed twice"),
    ("hierarchy-value-missing", [*SOLVE, "--hierarchy", "age=h.csv"], _bytes("h.csv", b"30;x;*\n31;x;*\n"), 2,
     "not in the hierarchy"),
    ("hierarchy-unterminated-quote", [*SOLVE, "--hierarchy", "age=h.csv"], _bytes("h.csv", b'30;"x;*\n31;x;*\n'), 2,
     "malformed"),
    ("hierarchy-not-qi", [*SOLVE, "--hierarchy", "occ=occ_h.csv"], None, 2, "not QI columns"),
    ("hierarchy-twice", [*SOLVE, "--hierarchy", "age=age_h.csv", "--hierarchy", "age=age_h.csv"], None, 2,
     "two hierarchies"),
    ("cost-without-hierarchy", [*SOLVE, "--cost", "lm"], None, 2, "needs at least one --hierarchy"),
    ("sensitive-hierarchy-missing", [*SOLVE_S, "--t", "0.3", "--distance", "hierarchical",
                                     "--sensitive-hierarchy", "nope.csv"], None, 2, "not found"),
    ("sensitive-hierarchy-directory", [*SOLVE_S, "--t", "0.3", "--distance", "hierarchical",
                                       "--sensitive-hierarchy", "d"], _mkdir("d"), 2, "is a directory"),
    ("sensitive-hierarchy-incomplete", [*SOLVE_S, "--t", "0.3", "--distance", "hierarchical",
                                        "--sensitive-hierarchy", "h.csv"], _bytes("h.csv", b"a;ab;*\nb;ab;*\n"), 2,
     "not in the hierarchy"),
    # -- pattern files -----------------------------------------------------------------------------
    ("patterns-missing", [*SOLVE, "--patterns", "nope.txt"], None, 2, "not found"),
    ("patterns-directory", [*SOLVE, "--patterns", "d"], _mkdir("d"), 2, "is a directory"),
    ("patterns-latin1", [*SOLVE, "--patterns", "x.txt"], _bytes("x.txt", "111\né00\n".encode("latin-1")), 2,
     "not UTF-8"),
    ("patterns-binary", [*SOLVE, "--patterns", "x.txt"], _bytes("x.txt", b"111\x00\n"), 2, "binary"),
    ("patterns-empty", [*SOLVE, "--patterns", "x.txt"], _bytes("x.txt", b"# nothing\n"), 2, "pattern"),
    ("patterns-wrong-length", [*SOLVE, "--patterns", "x.txt"], _bytes("x.txt", b"11\n00\n"), 2, "pattern"),
    ("patterns-bad-char", [*SOLVE, "--patterns", "x.txt"], _bytes("x.txt", b"1x1\n000\n"), 2, "pattern"),
    ("patterns-with-hierarchy", [*SOLVE, "--patterns", "p.txt", "--hierarchy", "age=age_h.csv"], None, 2,
     "does not combine"),
    # -- output paths ----------------------------------------------------------------------------
    ("out-is-input", ["solve", "t.csv", "--qi", "sex", "--k", "2", "--out", "t.csv"], None, 2, "is the input"),
    ("out-is-input-other-spelling", ["solve", "t.csv", "--qi", "sex", "--k", "2", "--out", "./d/../t.csv"],
     _mkdir("d"), 2, "is the input"),
    ("out-is-hierarchy", [*SOLVE[:-1], "age_h.csv", "--hierarchy", "age=age_h.csv"], None, 2, "is the input"),
    ("out-is-patterns", [*SOLVE[:-1], "p.txt", "--patterns", "p.txt"], None, 2, "is the input"),
    ("out-is-sensitive-hierarchy", [*SOLVE_S[:-3], "occ_h.csv", "--sensitive", "occ", "--t", "0.5", "--distance",
                                    "hierarchical", "--sensitive-hierarchy", "occ_h.csv"], None, 2, "is the input"),
    ("report-is-input", [*SOLVE, "--report", "t.csv"], None, 2, "is the input"),
    ("report-is-hierarchy", [*SOLVE, "--hierarchy", "age=age_h.csv", "--report", "age_h.csv"], None, 2,
     "is the input"),
    ("mps-is-input", [*SOLVE, "--mps", "t.csv"], None, 2, "is the input"),
    ("lp-is-patterns", [*SOLVE, "--patterns", "p.txt", "--lp", "p.txt"], None, 2, "is the input"),
    ("out-symlink-to-input", [*SOLVE[:-1], "link.csv"], _symlink("t.csv", "link.csv"), 2, "is the input"),
    ("out-hardlink-to-input", [*SOLVE[:-1], "hard.csv"], _hardlink("t.csv", "hard.csv"), 2, "is the input"),
    ("out-symlink-to-hierarchy", [*SOLVE[:-1], "link.csv", "--hierarchy", "age=age_h.csv"],
     _symlink("age_h.csv", "link.csv"), 2, "is the input"),
    ("out-missing-directory", [*SOLVE[:-1], "nodir/out.csv"], None, 2, "directory does not exist"),
    ("out-is-directory", [*SOLVE[:-1], "d"], _mkdir("d"), 2, "is a directory"),
    ("out-equals-report", [*SOLVE, "--report", "out.csv"], None, 2, "same file"),
    ("mps-equals-lp", [*SOLVE, "--mps", "m", "--lp", "m"], None, 2, "same file"),
    ("report-missing-directory", [*SOLVE, "--report", "nodir/r.json"], None, 2, "directory does not exist"),
    ("mps-missing-directory", [*SOLVE, "--mps", "nodir/m.mps"], None, 2, "directory does not exist"),
    ("lp-is-directory", [*SOLVE, "--lp", "d"], _mkdir("d"), 2, "is a directory"),
    ("out-empty-path", [*SOLVE[:-1], ""], None, 2, "empty path"),
    # -- gap ---------------------------------------------------------------------------------------
    ("gap-report-is-original", [*GAP, "--report", "t.csv"], None, 2, "is the input"),
    ("gap-report-is-anonymized", [*GAP, "--report", "anon.csv"], None, 2, "is the input"),
    ("gap-report-missing-directory", [*GAP, "--report", "nodir/r.json"], None, 2, "directory does not exist"),
    ("gap-anonymized-missing", ["gap", "t.csv", "nope.csv", *GAP[3:]], None, 2, "not found"),
    ("gap-anonymized-directory", ["gap", "t.csv", "d", *GAP[3:]], _mkdir("d"), 2, "is a directory"),
    ("gap-anonymized-binary", ["gap", "t.csv", "b.csv", *GAP[3:]], _bytes("b.csv", b"\x00"), 2, "binary"),
    ("gap-fewer-rows", ["gap", "t.csv", "a.csv", *GAP[3:]], _bytes("a.csv", "\n".join(ANON.splitlines()[:-1]).encode()),
     5, "rows"),
    ("gap-reordered-rows", ["gap", "t.csv", "a.csv", *GAP[3:]],
     _bytes("a.csv", "\n".join(ANON.splitlines()[:1] + ANON.splitlines()[1:][::-1]).encode()), 5, ""),
    ("gap-not-an-ancestor", ["gap", "t.csv", "a.csv", *GAP[3:], "--hierarchy", "age=age_h.csv"],
     _bytes("a.csv", ANON.replace("*,*,*,a,x", "*,32-33,*,a,x", 1).encode()), 5, "ancestor"),
    ("gap-carried-column-changed", ["gap", "t.csv", "a.csv", *GAP[3:]],
     _bytes("a.csv", ANON.replace(",x\n", ",CHANGED\n", 1).encode()), 5, "note"),
    ("gap-missing-column", ["gap", "t.csv", "a.csv", *GAP[3:]],
     _bytes("a.csv", b"sex,age,occ,note\n*,*,a,x\n"), 2, "missing race"),
    ("gap-optimum-from-missing", [*GAP, "--optimum-from", "nope.json"], None, 2, "not found"),
    ("gap-optimum-from-not-json", [*GAP, "--optimum-from", "p.txt"], None, 2, "not a JSON report"),
    ("gap-optimum-from-is-report", [*GAP, "--optimum-from", "r.json", "--report", "r.json"],
     _bytes("r.json", b"{}"), 2, "is the input"),
    ("gap-id-missing", [*GAP, "--id", "nope"], None, 2, "no such column"),
    ("gap-ignore-qi", [*GAP, "--ignore", "sex"], None, 2, "cannot be ignored"),
    ("gap-limit-without-flag", [*GAP, "--max-suppressed-records", "2"], None, 2, "needs --record-suppression"),
    ("weight-zero", [*SOLVE, "--weight", "age=0"], None, 2, "finite number > 0"),
    ("weight-malformed", [*SOLVE, "--weight", "age"], None, 2, "takes COL=W"),
    ("weight-not-a-number", [*SOLVE, "--weight", "age=heavy"], None, 2, "takes COL=W"),
    ("weight-not-qi", [*SOLVE, "--weight", "note=2"], None, 2, "not a QI column"),
    ("weight-twice", [*SOLVE, "--weight", "age=2", "--weight", "age=3"], None, 2, "two weights"),
    ("gap-weight-not-qi", [*GAP, "--weight", "occ=2"], None, 2, "not a QI column"),
    ("gap-score-only-optimum-from", [*GAP, "--score-only", "--optimum-from", "r.json"], _bytes("r.json", b"{}"), 2,
     "does not combine with --optimum-from"),
    ("interval-not-numeric", [*SOLVE, "--interval", "race"], None, 2, "is not a number"),
    ("interval-not-qi", [*SOLVE, "--interval", "note"], None, 2, "not QI columns"),
    ("interval-and-value-set", [*SOLVE, "--interval", "age", "--value-set", "age"], None, 2, "interval and as a value-set"),
    ("interval-full-domain", [*SOLVE, "--interval", "age", "--scheme", "full-domain"], None, 2, "local recodings"),
    ("interval-with-patterns", [*SOLVE, "--interval", "age", "--patterns", "p.txt"], None, 2, "--patterns"),
    ("gap-count-missing", [*GAP, "--count", "n"], None, 2, "--count n: no such column"),
    ("solve-max-suppressed-negative", [*SOLVE, "--max-suppressed-records", "-1"], None, 2, "whole number >= 0"),
    ("solve-max-suppressed-with-budget", [*SOLVE, "--max-suppressed-records", "1", "--budget", "3"], None, 2,
     "cost objective"),
    ("solve-scheme-unknown", [*SOLVE, "--scheme", "global"], None, 2, "invalid choice"),
    ("solve-scheme-patterns", [*SOLVE, "--scheme", "full-domain", "--patterns", "p.txt"], None, 2,
     "does not combine with --scheme"),
    ("solve-full-domain-mps", [*SOLVE, "--scheme", "full-domain", "--mps", "m.mps"], None, 2, "no MILP model"),
    ("certify-report-missing", ["certify", "t.csv", "nope.json", "--qi", "sex", "--k", "2"], None, 2, "not found"),
    ("certify-report-not-json", ["certify", "t.csv", "p.txt", "--qi", "sex", "--k", "2"], None, 2,
     "not a JSON report"),
    ("certify-no-multipliers", ["certify", "t.csv", "r.json", "--qi", "sex", "--k", "2"],
     _bytes("r.json", b'{"status": "optimal"}'), 2, "no reduction multipliers"),
    ("certify-sensitive", ["certify", "t.csv", "p.txt", "--qi", "sex", "--k", "2", "--sensitive", "occ"], None, 2,
     "k-anonymity alone"),
    # -- inspect, demo, bench, export ------------------------------------------------------------
    ("inspect-time-limit-negative", ["inspect", "t.csv", "--qi", "sex", "--k", "2", "--lp", "--time-limit", "-1"],
     None, 2, "--time-limit: expected"),
    ("inspect-input-missing", ["inspect", "nope.csv", "--qi", "sex", "--k", "2"], None, 2, "not found"),
    ("demo-bad-qi", ["demo", "--qi", "zip"], None, 2, "not a QI column of Adult"),
    ("demo-k-zero", ["demo", "--k", "0"], None, 2, "--k: expected"),
    ("demo-out-missing-directory", ["demo", "--out", "nodir/o.csv"], None, 2, "directory does not exist"),
    ("bench-suite-missing", ["bench", "nope.toml"], None, 2, "not found"),
    ("bench-suite-directory", ["bench", "d"], _mkdir("d"), 2, "directory"),
    ("bench-suite-binary", ["bench", "b.toml"], _bytes("b.toml", b"\x00\xff\xfe"), 2, ""),
    ("bench-workers-zero", ["bench", "suite.toml", "--workers", "0"], None, 2, "--workers: expected"),
    ("export-time-limit-negative", ["export", "suite.toml", "--dir", "x", "--time-limit", "-1"], None, 2,
     "--time-limit: expected"),
]

# odd but valid inputs: exit 0 and nothing but the output file new
ODD = [
    ("bom-header", ["solve", "b.csv", *SOLVE[2:]], _bytes("b.csv", b"\xef\xbb\xbf" + TABLE.encode())),
    ("crlf", ["solve", "c.csv", *SOLVE[2:]], _bytes("c.csv", TABLE.replace("\n", "\r\n").encode())),
    ("quoted-fields", ["solve", "q.csv", *SOLVE[2:]],
     _bytes("q.csv", TABLE.replace(",x\n", ',"x, with ""quotes""\nand a newline"\n').encode())),
    ("trailing-blank-lines", ["solve", "c.csv", *SOLVE[2:]], _bytes("c.csv", (TABLE + "\n\n").encode())),
    ("no-final-newline", ["solve", "c.csv", *SOLVE[2:]], _bytes("c.csv", TABLE.rstrip("\n").encode())),
    ("tab-separated", ["solve", "c.tsv", *SOLVE[2:], "--sep", "tab"], _bytes("c.tsv", TABLE.replace(",", "\t").encode())),
    ("input-through-symlink", ["solve", "link.csv", *SOLVE[2:]], _symlink("t.csv", "link.csv")),
    ("unicode-values", ["solve", "u.csv", *SOLVE[2:]], _bytes("u.csv", TABLE.replace("M,", "Männlich,").encode())),
    ("out-overwrites-earlier-output", SOLVE, _bytes("out.csv", b"old\n")),
]


def snapshot(d):
    """Every entry under ``d`` (hidden ones too): file bytes' hash, link target, or directory."""
    out = {}
    for root, dirs, files in os.walk(d):
        for name in dirs + files:
            p = os.path.join(root, name)
            rel = os.path.relpath(p, d)
            if os.path.islink(p):
                out[rel] = "link:" + os.readlink(p)
            elif os.path.isdir(p):
                out[rel] = "dir"
            else:
                with open(p, "rb") as fh:
                    out[rel] = hashlib.sha256(fh.read()).hexdigest()
    return out


def run_cli(args, cwd, *, timeout=300, **kw):
    return subprocess.run([sys.executable, "-m", "milp_anon", *args], cwd=cwd, env=ENV, capture_output=True,
                          text=True, timeout=timeout, **kw)


#: cases that still run as a fresh interpreter each (``python -m milp_anon``): the entry point itself
#: stays covered; the rest run as forks of a pre-imported interpreter (``tests/cli_forkserver.py``)
FRESH = {"input-missing", "input-binary", "out-is-input", "demo-bad-qi", "certify-no-multipliers", "crlf", "tab-separated"}


class ForkServer:
    """One ``tests/cli_forkserver.py`` process: runs a command line as a fork and returns like ``subprocess.run``."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "cli_forkserver.py")], env=ENV,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, args, cwd, timeout=300):
        out, err = cwd + ".stdout", cwd + ".stderr"  # beside the case's directory, not in it
        self.proc.stdin.write(json.dumps({"cwd": cwd, "args": list(args), "out": out, "err": err,
                                          "timeout": timeout}) + "\n")
        self.proc.stdin.flush()
        code = json.loads(self.proc.stdout.readline())["code"]
        with open(out, encoding="utf-8", errors="replace") as fo, open(err, encoding="utf-8", errors="replace") as fe:
            return subprocess.CompletedProcess(args, code, fo.read(), fe.read())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _prepare(base, name, setup):
    d = os.path.join(base, name)
    os.mkdir(d)
    for fname, data in FILES.items():
        with open(os.path.join(d, fname), "wb") as fh:
            fh.write(data)
    if setup is not None:
        setup(d)
    return d


def _run_case(base, name, args, setup, servers):
    d = _prepare(base, name, setup)
    before = snapshot(d)
    if name in FRESH:
        proc = run_cli(args, d)
    else:
        server = servers.get()
        try:
            proc = server.run(args, d)
        finally:
            servers.put(server)
    return proc, before, snapshot(d)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every command-line case, two at a time (module docstring: forks of a pre-imported interpreter)."""
    base = str(tmp_path_factory.mktemp("cases"))
    cases = [(c[0], c[1], c[2]) for c in BAD] + [(c[0], c[1], c[2]) for c in ODD]
    servers = queue.Queue()
    started = [ForkServer() for _ in range(2)]
    for s in started:
        servers.put(s)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            futures = {name: pool.submit(_run_case, base, name, args, setup, servers) for name, args, setup in cases}
            return {name: f.result() for name, f in futures.items()}
    finally:
        for s in started:
            s.close()


def test_the_fresh_interpreter_cases_exist():
    assert FRESH <= {c[0] for c in BAD} | {c[0] for c in ODD}


def test_the_matrix_has_at_least_100_distinct_bad_inputs():
    names = [c[0] for c in BAD]
    assert len(set(names)) == len(names) >= 100
    plain = [tuple(c[1]) for c in BAD if c[2] is None]  # cases with a file of their own differ by that file
    assert len(set(plain)) == len(plain)  # distinct command lines, not renamed copies


@pytest.mark.parametrize("name,args,setup,code,phrase", BAD, ids=[c[0] for c in BAD])
def test_bad_input_one_line_nothing_written(runs, name, args, setup, code, phrase):
    proc, before, after = runs[name]
    err = proc.stderr.splitlines()
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert len(err) == 1 and err[0].startswith("milp-anon:"), proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert phrase in err[0], err[0]
    assert after == before  # nothing created, nothing left behind, every input byte-identical


@pytest.mark.parametrize("name,args,setup", ODD, ids=[c[0] for c in ODD])
def test_odd_input_is_read(runs, name, args, setup):
    proc, before, after = runs[name]
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed == {"out.csv"}
    assert "optimal" in proc.stdout


def test_bom_is_stripped_from_the_header(tmp_path):
    p = tmp_path / "b.csv"
    p.write_bytes(b"\xef\xbb\xbf" + TABLE.encode())
    assert ma.Table.from_csv(p, "sex,age").frame.columns[0] == "sex"


# -- the API: InputError naming the cause, before any work -----------------------------------------
@pytest.fixture
def table():
    return ma.Table.from_frame(pd.read_csv(__import__("io").StringIO(TABLE), dtype=str), ["sex", "age", "race"], "occ")


@pytest.mark.parametrize("path,phrase", [(None, "NoneType"), (3, "int"), (3.5, "float"), (b"t.csv", "bytes"),
                                         ("", "empty path")])
def test_api_table_from_csv_refuses_what_is_not_a_path(path, phrase):
    with pytest.raises(InputError, match=phrase):
        ma.Table.from_csv(path, "sex")


def test_api_table_from_csv_directory(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        ma.Table.from_csv(tmp_path, "sex")


@pytest.mark.parametrize("options,phrase", [
    (dict(foo=1), "unknown option"),
    (dict(time_limit=float("nan")), "time limit"),
    (dict(time_limit=-1), "time limit"),
    (dict(threads=0), "threads"),
    (dict(gap=1.5), "gap"),
    (dict(budget=float("nan")), "budget"),
    (dict(t_out=0), "t_out"),
    (dict(max_memory_gb=float("nan")), "memory"),
    (dict(solver="glpk"), "not installed"),
    (dict(solver="NOPE"), "unknown solver"),
    (dict(isolate="sometimes"), "isolate"),
    (dict(objective="types"), "needs a budget"),
])
def test_api_anonymize_refuses_bad_options(table, options, phrase):
    with pytest.raises(InputError, match=phrase):
        ma.anonymize(table, ma.KAnonymity(2), **options)


@pytest.mark.parametrize("make,phrase", [
    (lambda: ma.KAnonymity(0), "at least 1"),
    (lambda: ma.LDiversity(float("nan")), "l"),
    (lambda: ma.LDiversity(0.5, kind="entropy"), "l must be in"),
    (lambda: ma.LDiversity(2, kind="entropy", c=2), "recursive"),
    (lambda: ma.TCloseness(2), "t must be in"),
    (lambda: ma.PSensitivity(1.5), "whole number"),
    (lambda: ma.DeltaDisclosure(0), "delta must be > 0"),
    (lambda: ma.BetaLikeness(-1), "beta must be"),
    (lambda: ma.BetaLikeness(1, kind="strong"), "basic or enhanced"),
    (lambda: ma.AverageRisk(0), "average risk must be in"),
    (lambda: ma.AverageRisk(1.5), "average risk must be in"),
    (lambda: Hierarchy.from_rows([["30", "31", "*"], ["31", "30", "*"]]), "ambiguous"),
])
def test_api_bad_objects(make, phrase):
    with pytest.raises(InputError, match=phrase):
        make()


@pytest.mark.parametrize("patterns", [["1x1"], ["11"], []])
def test_api_bad_patterns(table, patterns):
    with pytest.raises(InputError, match="pattern"):
        ma.anonymize(table, ma.KAnonymity(2), recoding=ma.Patterns(patterns))


def test_api_write_model_checks_the_path_first(table, tmp_path):
    request = ma.Request(ma.KAnonymity(2))
    with pytest.raises(InputError, match="directory does not exist"):
        request.write_model(table, str(tmp_path / "nodir" / "m.mps"))
    with pytest.raises(InputError, match="is a directory"):
        request.write_model(table, str(tmp_path))
    with pytest.raises(InputError, match="give format"):
        request.write_model(table, str(tmp_path / "m.txt"))
    assert os.listdir(tmp_path) == []
    request.write_model(table, str(tmp_path / "m.mps"))
    assert os.listdir(tmp_path) == ["m.mps"]


def test_api_inspect_time_limit(table):
    with pytest.raises(InputError, match="time limit"):
        ma.Request(ma.KAnonymity(2)).inspect(table, lp=True, time_limit=-1)
