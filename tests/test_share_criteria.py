"""δ-disclosure privacy, β-likeness and average re-identification risk (issue 95): the MILP against brute force,
the group test and the verifier against a direct computation from the papers' definitions, the boundaries, the grid
of shares, the pruning, and the command line end to end."""

import decimal
import json
import os
import re
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from helpers import sensitive_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.exact import brute_force
from milp_anon.pipeline import relaxation, row_generation
from milp_anon.privacy.criteria import GroupCounts, exact, farey_ceil, farey_floor, least_share_size
from milp_anon.privacy.verify import exp_sign, verify_release
from milp_anon.runtime.errors import VerificationError
from milp_anon.search import lns

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
D = decimal.Context(prec=80)
#: δ and β values, some near the logarithms of small ratios (ln 2, ln 3/2, ln 4/3, ln 3, −ln of shares 1/4, 1/3)
DELTAS = [0.1, 0.3, 0.405465, 0.405466, 0.5, 0.693147, 0.693148, 0.8, 1.0, 1.0986122, 1.5, 2.5]
BETAS = [0.1, 0.25, 1 / 3, 0.5, 1.0, 1.2, 1.386294, 1.386295, 2.0, 3.0]
RISKS = [0.1, 0.2, 0.25, 1 / 3, 0.4, 0.5, 0.6, 0.75, 1.0]


def _dec(x: Fraction) -> decimal.Decimal:
    return D.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator))


def _direct(crit, values, classes) -> bool:
    """The definitions, with 80-digit logarithms: every class, every value of the table."""
    n = len(values)
    for rows in classes:
        for v in sorted(set(values)):
            q = Fraction(sum(values[r] == v for r in rows), len(rows))
            p = Fraction(sum(x == v for x in values), n)
            if isinstance(crit, ma.DeltaDisclosure):
                if q == 0 or not abs(D.ln(_dec(q / p))) < _dec(exact(crit.delta)):
                    return False
            elif q > p:
                bound = _dec(exact(crit.beta))
                if crit.kind == "enhanced":
                    bound = min(bound, -D.ln(_dec(p)))
                if _dec((q - p) / p) > bound:
                    return False
    return True


def _agree(frame, qi, criteria, max_withheld=None):
    table = ma.Table.from_frame(frame, qi, "s")
    kw = {} if max_withheld is None else {"max_suppressed_records": max_withheld}
    result = ma.anonymize(table, *criteria, **kw)
    expected = brute_force(frame[qi].to_numpy(), criteria, {"s": frame["s"].tolist()}, max_withheld=max_withheld)[0]
    if expected is None:
        assert result.status == "infeasible", result.summary()
        assert result.reason
        return result
    assert result.status == "optimal", result.summary()
    assert result.objective == expected
    # once more from the outside: the released rows, and the withheld records written at the root ('*')
    withheld = np.zeros(len(frame), dtype=bool)
    withheld[list(result.withheld)] = True
    full = frame.copy()
    full.loc[~withheld, qi] = result.table[qi].to_numpy()
    full.loc[withheld, qi] = "*"
    verify_release(frame, full, qi, list(criteria), sensitive=("s",), claimed_cost=expected,
                   withheld=withheld if max_withheld is not None else None)
    return result


# --- the MILP against brute force ------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_delta_disclosure_equals_brute_force(data):
    frame, qi, k = data.draw(sensitive_tables(n=(4, 9), m=(1, 3), values=(1, 3)))
    crit = ma.DeltaDisclosure(data.draw(st.sampled_from(DELTAS)))
    _agree(frame, qi, [ma.KAnonymity(k), crit])


@pytest.mark.parametrize("kind", ["basic", "enhanced"])
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_beta_likeness_equals_brute_force(kind, data):
    frame, qi, k = data.draw(sensitive_tables(n=(4, 9), m=(1, 3)))
    crit = ma.BetaLikeness(data.draw(st.sampled_from(BETAS)), kind=kind)
    _agree(frame, qi, [ma.KAnonymity(k), crit])


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_average_risk_equals_brute_force(data):
    frame, qi, k = data.draw(sensitive_tables(n=(4, 9), m=(1, 3), alphabet=(2, 3)))
    crits = [ma.KAnonymity(k), ma.AverageRisk(data.draw(st.sampled_from(RISKS)))]
    if data.draw(st.booleans()):  # with a sensitive criterion beside it
        crits.append(ma.LDiversity(data.draw(st.sampled_from([1.5, 2])), column="s"))
    _agree(frame, qi, crits)


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_average_risk_with_record_suppression_equals_brute_force(data):
    frame, qi, k = data.draw(sensitive_tables(n=(4, 8), m=(1, 3), k=(1, 3)))
    crits = [ma.KAnonymity(k), ma.AverageRisk(data.draw(st.sampled_from(RISKS)))]
    result = _agree(frame, qi, crits, max_withheld=data.draw(st.integers(0, 3)))
    if result.status == "optimal":  # the withheld records are one class of the n records
        classes = len(result.class_sizes) + int(bool(result.withheld))
        assert classes <= crits[1].max_classes(len(frame))


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_share_criteria_with_record_suppression_equal_brute_force(data):
    frame, qi, k = data.draw(sensitive_tables(n=(4, 8), m=(1, 2)))
    crit = data.draw(st.sampled_from([ma.DeltaDisclosure(0.7), ma.BetaLikeness(0.5), ma.BetaLikeness(1, "basic")]))
    _agree(frame, qi, [ma.KAnonymity(k), crit], max_withheld=data.draw(st.integers(1, 2)))


# --- the group test and the verifier against the definitions ---------------------------

@st.composite
def classes_of(draw, n=(2, 14), values=(1, 4), parts=(1, 4)):
    """(values, classes): a column over '1'..'V' and a random partition of its rows."""
    n_ = draw(st.integers(*n))
    V = draw(st.integers(*values))
    vals = [str(draw(st.integers(1, V))) for _ in range(n_)]
    P = draw(st.integers(*parts))
    label = [draw(st.integers(0, P - 1)) for _ in range(n_)]
    classes = [[r for r in range(n_) if label[r] == g] for g in sorted(set(label))]
    return vals, classes


def _share_crit(draw):
    kind = draw(st.sampled_from(["delta", "basic", "enhanced"]))
    if kind == "delta":
        return ma.DeltaDisclosure(draw(st.sampled_from(DELTAS)))
    return ma.BetaLikeness(draw(st.sampled_from(BETAS)), kind=kind)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_verifier_and_group_test_equal_the_definitions(data):
    vals, classes = data.draw(classes_of())
    crit = _share_crit(data.draw)
    expected = _direct(crit, vals, classes)
    label = np.empty(len(vals), dtype=object)
    for g, rows in enumerate(classes):
        label[rows] = f"g{g}"
    frame = pd.DataFrame({"q": label, "s": vals})
    try:
        verify_release(frame, frame.copy(), ["q"], [crit], sensitive=("s",))
        verified = True
    except VerificationError:
        verified = False
    assert verified == expected
    table = ma.Table.from_frame(frame, ["q"], "s")
    codes = {v: i for i, v in enumerate(table.sensitive_values[0])}
    counts = np.zeros((len(classes), len(codes)), dtype=np.int64)
    for g, rows in enumerate(classes):
        for r in rows:
            counts[g, codes[vals[r]]] += 1
    groups = GroupCounts.of(table, [len(rows) for rows in classes], (counts,))
    assert (crit.violation(groups) is None) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=8), st.integers(1, 5), st.sampled_from(RISKS))
def test_average_risk_verifier_equals_the_definition(sizes, withheld, risk):
    """The mean of 1/|class| over the records (the withheld ones one class) against R, both ways."""
    crit = ma.AverageRisk(risk)
    label = [f"g{g}" for g, s in enumerate(sizes) for _ in range(s)] + ["*"] * withheld
    frame = pd.DataFrame({"q": label})
    mask = np.array([x == "*" for x in label])
    classes = sizes + [withheld]
    mean = sum(Fraction(1, c) for c in classes for _ in range(c)) / len(label)
    try:
        verify_release(frame, frame.copy(), ["q"], [crit], withheld=mask)
        ok = True
    except VerificationError:
        ok = False
    assert ok == (mean <= exact(risk))
    groups = GroupCounts(np.array(sizes), (), (), (), (), None, records=len(label))
    assert (crit.violation(groups) is None) == ok


@settings(max_examples=300, deadline=None)
@given(st.fractions(min_value=-8, max_value=8, max_denominator=1000), st.fractions(min_value=0, max_value=3000,
                                                                                    max_denominator=1000))
def test_exp_sign_equals_decimal(x, r):
    if x == 0:
        return
    e = D.exp(_dec(x))
    assert exp_sign(x, r) == (1 if e > _dec(r) else -1)


@settings(max_examples=200, deadline=None)
@given(st.fractions(min_value=0, max_value=3, max_denominator=500), st.integers(1, 25))
def test_farey_floor_and_ceil_equal_enumeration(x, N):
    grid = sorted({Fraction(a, b) for b in range(1, N + 1) for a in range(0, 4 * b + 1)})
    assert farey_floor(x, N) == max(f for f in grid if f <= x)
    assert farey_ceil(x, N) == min(f for f in grid if f >= x)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_least_share_size_is_the_least_legal_sub_multiset(data):
    """The pruning's least size against every sub-multiset of the available rows (so no legal group is cut)."""
    V = data.draw(st.integers(1, 3))
    whole = [data.draw(st.integers(1, 5)) for _ in range(V)]
    m = [data.draw(st.integers(0, w)) for w in whole]
    crit = _share_crit(data.draw)
    min_size = data.draw(st.integers(1, 3))
    lo_n, lo_d, hi_n, hi_d, missing = crit.bounds("s", [str(v) for v in range(V)], np.array(whole), sum(whole))
    got = int(least_share_size(np.array([m]), lo_n, lo_d, hi_n, hi_d, min_size, missing=missing)[0])
    vals = [str(v) for v in range(V) for _ in range(whole[v])]
    best = -1
    for c in np.ndindex(*[x + 1 for x in m]):
        s = sum(c)
        if s < min_size or (best >= 0 and s >= best):
            continue
        rows = [i for v in range(V) for i in [vals.index(str(v)) + j for j in range(c[v])]]
        if _direct(crit, vals, [rows]):
            best = s
    assert got == best


# --- boundaries -------------------------------------------------------------------------

def _holds(crit, vals, classes):
    """(verifier, group test, brute force's block test) on one partition."""
    label = np.empty(len(vals), dtype=object)
    for g, rows in enumerate(classes):
        label[rows] = f"g{g}"
    frame = pd.DataFrame({"q": label, "s": vals})
    try:
        verify_release(frame, frame.copy(), ["q"], [crit], sensitive=("s",))
        v = True
    except VerificationError:
        v = False
    table = ma.Table.from_frame(frame, ["q"], "s")
    codes = {x: i for i, x in enumerate(table.sensitive_values[0])}
    counts = np.zeros((len(classes), len(codes)), dtype=np.int64)
    for g, rows in enumerate(classes):
        for r in rows:
            counts[g, codes[vals[r]]] += 1
    g = crit.violation(GroupCounts.of(table, [len(r) for r in classes], (counts,))) is None
    from milp_anon.exact.brute_force import group_condition
    _, ok = group_condition([crit], {"s": vals})
    b = all(ok(tuple(rows)) for rows in classes)
    return v, g, b


def test_basic_beta_at_the_bound_is_legal():
    # p = 1/4; a class of 4 with 2 x: q = 1/2, (q − p)/p = 1 = β exactly
    vals = ["x", "x", "y", "y", "y", "y", "y", "y"]
    classes = [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert _holds(ma.BetaLikeness(1, "basic"), vals, classes) == (True, True, True)
    assert _holds(ma.BetaLikeness(0.999999, "basic"), vals, classes) == (False, False, False)


def test_enhanced_beta_takes_minus_ln_p_when_smaller():
    # p = 1/4, −ln p = 1.3863 < β = 2: q <= p (1 − ln p) = 0.59657; 3 of 5 (0.6) fails, 4 of 7 (0.571) holds
    vals = ["x"] * 7 + ["y"] * 21
    bad = [[0, 1, 2, 7, 8], list(range(3, 7)) + list(range(9, 28))]
    good = [[0, 1, 2, 3, 7, 8, 9], list(range(4, 7)) + list(range(10, 28))]
    assert _holds(ma.BetaLikeness(2), vals, bad) == (False, False, False)
    assert _holds(ma.BetaLikeness(2), vals, good) == (True, True, True)
    assert _holds(ma.BetaLikeness(2, "basic"), vals, bad) == (True, True, True)  # 0.6 <= 3/4


@pytest.mark.parametrize("delta", [0.6931471805599453, 0.693147, 0.693148, 0.4054651081081644, 0.405465, 0.405466])
def test_delta_disclosure_at_ln_of_the_share_ratio(delta):
    """The largest |ln(q/p)| of the partition is exactly ln 2 (ln 3/2): legal exactly when the rational δ exceeds it,
    decided here in 80 digits."""
    if delta > 0.5:  # p(x) = 1/4; class A: 2 x of 4 (q/p = 2), 2 y (2/3); class B: 2 x of 12 (2/3), 10 y (10/9)
        vals = ["x"] * 4 + ["y"] * 12
        classes = [[0, 1, 4, 5], [2, 3] + list(range(6, 16))]
        top = decimal.Decimal(2)
    else:  # p(x) = 1/3; class A: 3 x of 6 (3/2), 3 y (3/4); class B: 5 x of 18 (5/6), 13 y (13/12)
        vals = ["x"] * 8 + ["y"] * 16
        classes = [[0, 1, 2, 8, 9, 10], [3, 4, 5, 6, 7] + list(range(11, 24))]
        top = decimal.Decimal(3) / 2
    expected = _dec(exact(delta)) > D.ln(top)
    assert _direct(ma.DeltaDisclosure(delta), vals, classes) == expected
    assert _holds(ma.DeltaDisclosure(delta), vals, classes) == (expected,) * 3


def test_delta_disclosure_needs_every_value_in_every_class():
    vals = ["x", "y", "x", "y", "z"]
    assert _holds(ma.DeltaDisclosure(5), vals, [[0, 1], [2, 3, 4]]) == (False, False, False)
    assert _holds(ma.DeltaDisclosure(5), vals, [[0, 1, 2, 3, 4]]) == (True, True, True)


def test_average_risk_at_the_bound():
    frame = pd.DataFrame({"q": list("aabbccdd")})
    for risk, ok in ((0.5, True), (0.49, False), (0.375, False)):
        crit = ma.AverageRisk(risk)  # 4 classes of 2 over 8 records: average risk 1/2
        try:
            verify_release(frame, frame.copy(), ["q"], [crit])
            v = True
        except VerificationError:
            v = False
        assert v == ok == (crit.violation(GroupCounts(np.array([2, 2, 2, 2]), (), (), (), (), None, records=8)) is None)


def test_average_risk_infeasible_below_one_class():
    table = ma.Table.from_frame(pd.DataFrame({"q": list("abcd")}), ["q"])
    r = ma.anonymize(table, ma.AverageRisk(0.2))
    assert r.status == "infeasible" and "average re-identification risk" in r.reason


# --- where the pipeline's routes apply --------------------------------------------------

def test_routes_that_splice_or_round_groups_refuse_average_risk():
    table = ma.Table.from_frame(pd.DataFrame({"q": list("aabb"), "s": list("1212")}), ["q"], "s")
    request = ma.Request(ma.KAnonymity(2), ma.AverageRisk(0.5), ma.LDiversity(2))
    solver = ma.SolverOptions(time_limit=10)
    assert "average re-identification risk" in row_generation.unavailable(request, solver)
    assert "average re-identification risk" in relaxation.unavailable(request, solver)
    assert "average re-identification risk" in lns.unavailable(request)
    assert not request.k_alone  # so the Lagrangian reduction (k-anonymity alone) does not run either
    for crit in (ma.DeltaDisclosure(1), ma.BetaLikeness(1)):
        assert row_generation.unavailable(ma.Request(ma.KAnonymity(2), crit), solver) is None
    subs = lns.sub_criteria(table, [ma.DeltaDisclosure(1), ma.BetaLikeness(1)])
    assert all(c.reference == (("s", (("1", 2), ("2", 2))),) for c in subs)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_sub_table_with_the_reference_tests_classes_as_the_whole_table(data):
    """What the large-neighbourhood search relies on: a class of a sub-table, tested against the whole table's
    distribution given as the reference, passes exactly when it passes in the whole table."""
    vals, classes = data.draw(classes_of(n=(4, 12), parts=(2, 4)))
    crit = _share_crit(data.draw)
    frame = pd.DataFrame({"q": ["a"] * len(vals), "s": vals})
    whole = ma.Table.from_frame(frame, ["q"], "s")
    sub = lns.sub_criteria(whole, [crit])[0]
    rows = classes[0]
    sub_table = ma.Table.from_frame(frame.iloc[rows], ["q"], "s")
    got = sub.violation(GroupCounts.whole_table(sub_table)) is None
    assert got == _direct(crit, vals, [rows])


# --- the command line end to end ---------------------------------------------------------

TABLE = ("age,zip,occ\n" + "".join(f"{a},{z},{o}\n" for a, z, o in [
    (30, 1, "a"), (30, 1, "b"), (31, 1, "a"), (31, 2, "c"), (32, 2, "a"), (32, 2, "b"), (33, 3, "c"), (33, 3, "a"),
    (34, 3, "b"), (34, 1, "a")]))


@pytest.mark.parametrize("flags", [["--delta-disclosure", "1.2"], ["--beta", "1"], ["--beta", "0.8", "--beta-kind",
                                                                                      "basic"],
                                   ["--average-risk", "0.3"]])
def test_cli_solve_writes_a_release_that_passes_and_gap_scores_it(tmp_path, flags):
    src = tmp_path / "t.csv"
    src.write_text(TABLE)
    env = {**os.environ, "PYTHONPATH": ROOT}
    base = ["--qi", "age,zip", "--sensitive", "occ", "--k", "2", *flags]
    out, rep = tmp_path / "out.csv", tmp_path / "r.json"
    run = subprocess.run([sys.executable, "-m", "milp_anon", "solve", str(src), *base, "--out", str(out), "--report",
                          str(rep)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    report = json.loads(rep.read_text())
    assert report["status"] == "optimal"
    original, released = pd.read_csv(src, dtype=str), pd.read_csv(out, dtype=str)
    crit = {"--delta-disclosure": lambda v: ma.DeltaDisclosure(float(v)),
            "--beta": lambda v: ma.BetaLikeness(float(v), kind=flags[3] if len(flags) > 2 else "enhanced"),
            "--average-risk": lambda v: ma.AverageRisk(float(v))}[flags[0]](flags[1])
    verify_release(original, released, ["age", "zip"], [ma.KAnonymity(2), crit], sensitive=("occ",))
    gap = subprocess.run([sys.executable, "-m", "milp_anon", "gap", str(src), str(out), *base,
                          "--optimum-from", str(rep)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert gap.returncode == 0, gap.stderr
    assert re.search(r"^valid\s+yes", gap.stdout, re.M) and re.search(r"^gap\s+0 %", gap.stdout, re.M), gap.stdout
