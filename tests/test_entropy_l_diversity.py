"""Entropy ℓ-diversity (Machanavajjhala et al., TKDD 2007): the exact test against a high-precision computation,
the Gibbs cuts (valid for every diverse group, separating the group they were made from), the MILP by generated
cuts against brute force, and the command line."""

import json
import math
import subprocess
import sys
from collections import Counter
from decimal import Decimal, getcontext

import numpy as np
import pandas as pd
import pytest
from helpers import brute, sensitive_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.exact.brute_force import group_condition
from milp_anon.formulations.rows import CUT_VIOLATION, entropy_cut, gibbs_coefficients
from milp_anon.privacy.criteria import entropy_at_least, entropy_top_share
from milp_anon.privacy.verify import _entropy_diverse, verify_release

ELLS = [1.5, 2, 2.5, 3]


def _direct(counts, ell) -> int:
    """``sign(H − log ℓ)`` from the definition in 80-digit decimals (``0``: within ``1e-60``, a tie)."""
    getcontext().prec = 80
    c = [Decimal(int(x)) for x in counts if x]
    n = sum(c)
    h = -sum((x / n) * (x / n).ln() for x in c)
    d = h - Decimal(str(ell)).ln()
    return 0 if abs(d) < Decimal("1e-60") else (1 if d > 0 else -1)


# --- the exact test ---------------------------------------------------------------------------------

counts_st = st.lists(st.integers(0, 30), min_size=1, max_size=7).filter(any)


@settings(max_examples=400, deadline=None)
@given(counts=counts_st, ell=st.sampled_from([1, 1.5, 2, 2.5, 3, 4, 5, 6, 1.25, 3.7]))
def test_exact_test_and_verifier_agree_with_the_definition(counts, ell):
    d = _direct(counts, ell)
    assert entropy_at_least(counts, ell) == (d >= 0)
    assert _entropy_diverse(counts, ell) == (d >= 0)


@pytest.mark.parametrize("counts,ell", [
    ([1, 1], 2), ([5, 5], 2), ([3, 3, 3], 3), ([7, 7, 7, 7], 4), ([1, 1, 1, 1, 1], 5),
    ([1, 1, 1, 1, 4], 4), ([2, 2, 2, 2, 8], 4),  # not uniform, yet H = log 4 exactly
])
def test_entropy_exactly_log_l_passes(counts, ell):
    assert _direct(counts, ell) == 0  # a tie, by the definition
    assert entropy_at_least(counts, ell) and _entropy_diverse(counts, ell)
    # one row more of the largest value breaks it
    more = list(counts)
    more[int(np.argmax(more))] += 1
    assert not entropy_at_least(more, ell) and not _entropy_diverse(more, ell)


@settings(max_examples=150, deadline=None)
@given(counts=st.lists(st.integers(0, 12), min_size=1, max_size=5).filter(any), ell=st.sampled_from(ELLS))
def test_brute_force_predicate_agrees_with_the_definition(counts, ell):
    vals = [str(v) for v, c in enumerate(counts) for _ in range(c)]
    k, ok = group_condition([ma.LDiversity(ell, kind="entropy")], {"s": vals})
    assert ok(list(range(len(vals)))) == (_direct(counts, ell) >= 0)


# --- the Gibbs cuts -----------------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(good=st.lists(st.integers(0, 25), min_size=5, max_size=5).filter(any),
       bad=st.lists(st.integers(0, 25), min_size=5, max_size=5).filter(any), ell=st.sampled_from(ELLS + [4]))
def test_a_cut_holds_for_every_diverse_group_and_cuts_off_its_own(good, bad, ell):
    if entropy_at_least(bad, ell):
        return
    a = entropy_cut(ell, bad)
    assert a is not None
    # separates: the group it was made from violates it by the margin HiGHS cannot tolerate away
    assert math.fsum(np.asarray(bad) * a) >= CUT_VIOLATION * (1 - 1e-9)
    # valid: a group meeting the criterion meets the cut, with room to spare
    if entropy_at_least(good, ell):
        assert math.fsum(np.asarray(good) * a) < 0


@settings(max_examples=200, deadline=None)
@given(c=st.lists(st.integers(0, 25), min_size=2, max_size=6).filter(lambda x: sum(x) > 0),
       r=st.lists(st.integers(1, 50), min_size=6, max_size=6), ell=st.sampled_from(ELLS))
def test_gibbs_cut_of_any_distribution_is_valid(c, r, ell):
    """Gibbs' inequality: for any full-support ``r`` a diverse group's counts meet
    ``Σ c_s (log r_s + log ℓ) <= 0``."""
    r = np.asarray(r[:len(c)], dtype=float)
    r /= r.sum()
    if entropy_at_least(c, ell):
        assert math.fsum(np.asarray(c) * gibbs_coefficients(ell, r)) < 0


@settings(max_examples=200, deadline=None)
@given(c=st.lists(st.integers(0, 25), min_size=2, max_size=7).filter(lambda x: sum(x) > 0),
       ell=st.sampled_from(ELLS + [4]))
def test_top_share_caps_every_diverse_group(c, ell):
    if entropy_at_least(c, ell):
        assert max(c) / sum(c) <= entropy_top_share(ell, len(c)) + 1e-12


def test_top_share_at_the_extreme_point():
    # two values, ℓ = 2: only the even split is 2-diverse
    assert entropy_top_share(2, 2) == pytest.approx(0.5, abs=1e-6)
    p = entropy_top_share(3, 6)
    rest = (1 - p) / 5
    assert -(p * math.log(p) + 5 * rest * math.log(rest)) == pytest.approx(math.log(3), abs=1e-9)


# --- the MILP by generated cuts against brute force ---------------------------------------------------

def _agree(frame, qi, criteria, **kw):
    table = ma.Table.from_frame(frame, qi, "s")
    result = ma.anonymize(table, *criteria, **kw)
    expected = brute(frame, qi, criteria)
    if expected is None:
        assert result.status == "infeasible", result.summary()
    else:
        assert result.status == "optimal", result.summary()
        assert result.objective == expected
        verify_release(frame, result.table, qi, list(criteria), sensitive=("s",), claimed_cost=expected)
    return result


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_entropy_equals_brute_force(data):
    frame, qi, k = data.draw(sensitive_tables(n=(4, 8)))
    _agree(frame, qi, [ma.KAnonymity(k), ma.LDiversity(data.draw(st.sampled_from(ELLS)), kind="entropy")])


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_entropy_equals_brute_force_sparse(data):
    """Many row types of one row each (three QI columns over three letters)."""
    frame, qi, k = data.draw(sensitive_tables(n=(5, 8), m=(3, 3), alphabet=(3, 3), values=(3, 4)))
    _agree(frame, qi, [ma.KAnonymity(k), ma.LDiversity(data.draw(st.sampled_from(ELLS)), kind="entropy")])


@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_entropy_with_every_row_from_the_start_equals_brute_force(data):
    """``criteria_rows="all"`` (the sub-problems of the search): every candidate holds the cuts from the start."""
    frame, qi, k = data.draw(sensitive_tables(n=(4, 7)))
    _agree(frame, qi, [ma.KAnonymity(k), ma.LDiversity(data.draw(st.sampled_from(ELLS)), kind="entropy")],
           criteria_rows="all")


def test_entropy_generates_cuts_until_the_table_passes():
    rng = np.random.default_rng(1)
    n = 40
    frame = pd.DataFrame({"a": rng.integers(0, 4, n).astype(str), "b": rng.integers(0, 3, n).astype(str),
                          "s": rng.choice(list("wxyz"), n, p=[.5, .2, .2, .1])})
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    r = ma.anonymize(table, ma.KAnonymity(2), ma.LDiversity(2, kind="entropy"))
    assert r.status == "optimal" and r.objective == r.bound
    assert len(r.row_generation.iterations) >= 2  # the first relaxation's table failed somewhere
    for rows in r.table.groupby(["a", "b"]).indices.values():
        assert _direct(Counter(frame["s"].iloc[rows]).values(), 2) >= 0


def test_entropy_infeasible_when_the_whole_table_fails():
    frame = pd.DataFrame({"a": list("xxyy"), "s": list("1112")})
    r = ma.anonymize(ma.Table.from_frame(frame, ["a"], "s"), ma.LDiversity(2, kind="entropy"))
    assert r.status == "infeasible" and "entropy" in r.reason


def test_entropy_model_is_not_written_whole(tmp_path):
    frame = pd.DataFrame({"a": list("xxyy"), "s": list("1212")})
    request = ma.Request(ma.LDiversity(2, kind="entropy"))
    with pytest.raises(ma.InputError, match="no whole model"):
        request.write_model(ma.Table.from_frame(frame, ["a"], "s"), str(tmp_path / "m.mps"))
    assert not (tmp_path / "m.mps").exists()


# --- the command line ---------------------------------------------------------------------------------

def test_cli_solve_and_gap_with_entropy(tmp_path):
    rng = np.random.default_rng(3)
    n = 30
    frame = pd.DataFrame({"age": rng.integers(20, 24, n).astype(str), "sex": rng.choice(["m", "f"], n),
                          "occ": rng.choice(list("abcd"), n)})
    src = tmp_path / "t.csv"
    frame.to_csv(src, index=False)
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    base = [sys.executable, "-m", "milp_anon"]
    crit = ["--qi", "age,sex", "--sensitive", "occ", "--k", "2", "--l", "2.5", "--l-kind", "entropy"]
    p = subprocess.run([*base, "solve", str(src), *crit, "--out", str(out), "--report", str(report)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    rep = json.loads(report.read_text())
    assert rep["status"] == "optimal"
    released = pd.read_csv(out, dtype=str)
    for rows in released.groupby(["age", "sex"]).indices.values():
        assert _direct(Counter(frame["occ"].iloc[rows]).values(), 2.5) >= 0
    g = subprocess.run([*base, "gap", str(src), str(out), *crit, "--optimum-from", str(report)],
                       capture_output=True, text=True, timeout=300)
    assert g.returncode == 0, g.stderr
