"""k-map and δ-presence against a population table: the MILP against brute force on random small tables with
random population supersets (values the input lacks included), pop(j) against a direct count, the verifier
against a direct count from the definition, the journalist risk, the CLI end to end, and ARX's Adult subset."""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from helpers import LETTERS, random_hierarchy
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.exact import brute_force
from milp_anon.privacy.risk import journalist_risk
from milp_anon.privacy.verify import class_population_matches, verify_release
from milp_anon.release.result import Timings
from milp_anon.runtime.errors import InputError, VerificationError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
#: the population's values: the input draws from the first ``a`` of them, the population from one more
POP_LETTERS = LETTERS + "d"
DELTAS = [0, 0.1, 0.2, 0.25, 1 / 3, 0.4, 0.5, 0.6, 2 / 3, 0.75, 1]


@st.composite
def population_cases(draw, n=(2, 7), m=(1, 3)):
    """``(frame, population, qi)``: a random input of letters and a population holding its rows (a random
    multiset of them and of rows with a value the input may lack, in random order)."""
    n_, m_ = draw(st.integers(*n)), draw(st.integers(*m))
    a = draw(st.integers(1, 3))
    cell = st.integers(0, a - 1)
    rows = draw(st.lists(st.lists(cell, min_size=m_, max_size=m_), min_size=n_, max_size=n_))
    extra = draw(st.lists(st.lists(st.integers(0, a), min_size=m_, max_size=m_), max_size=8))
    qi = [f"q{c}" for c in range(m_)]
    frame = pd.DataFrame([[POP_LETTERS[v] for v in r] for r in rows], columns=qi)
    pop_rows = [[POP_LETTERS[v] for v in r] for r in rows + extra]
    order = draw(st.permutations(range(len(pop_rows))))
    population = pd.DataFrame([pop_rows[i] for i in order], columns=qi)
    return frame, population, qi


@st.composite
def population_criteria(draw, population):
    kind = draw(st.sampled_from(["kmap", "delta", "both"]))
    out = []
    if kind in ("kmap", "both"):
        out.append(ma.KMap(draw(st.integers(1, 6)), population))
    if kind in ("delta", "both"):
        lo = draw(st.sampled_from(DELTAS))
        hi = draw(st.sampled_from([d for d in DELTAS if d >= lo]))
        out.append(ma.DeltaPresence(lo, hi, population))
    return out


@st.composite
def recodings(draw, qi):
    kind = draw(st.sampled_from(["suppression", "suppression", "hierarchy", "patterns"]))
    if kind == "suppression":
        return None
    if kind == "patterns":
        m = len(qi)
        masks = draw(st.lists(st.lists(st.sampled_from("01"), min_size=m, max_size=m).map("".join), min_size=1,
                              max_size=3))
        return ma.Patterns(masks + ["0" * m])  # with the all-suppressed one, so that every row fits
    hier = {c: draw(random_hierarchy(list(POP_LETTERS))) for c in qi if draw(st.booleans())}
    cost = draw(st.sampled_from(["suppression", "height", "lm"]))
    return ma.Generalization(hier, cost=cost)


def _solve_and_compare(frame, population, qi, criteria, recoding, k=1):
    table = ma.Table.from_frame(frame, qi)
    result = ma.anonymize(table, ma.KAnonymity(k), *criteria, recoding=recoding)
    expected, _ = brute_force(frame[qi].to_numpy(), [ma.KAnonymity(k), *criteria], recoding=recoding, columns=qi)
    if expected is None:
        assert result.status == "infeasible", result.summary()
        assert result.reason
        return result
    assert result.status == "optimal", result.summary()
    assert result.objective == pytest.approx(float(expected), abs=1e-6)
    verify_release(frame, result.table, qi, [ma.KAnonymity(k), *criteria], recoding=recoding,
                   claimed_cost=float(expected))
    return result


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_population_criteria_equal_brute_force(data):
    frame, population, qi = data.draw(population_cases(n=(2, 6)))
    criteria = data.draw(population_criteria(population))
    recoding = data.draw(recodings(qi))
    k = data.draw(st.integers(1, 2))
    _solve_and_compare(frame, population, qi, criteria, recoding, k)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_sparse_tables_equal_brute_force(data):
    """Many row types of one row each: distinct rows over three columns."""
    frame, population, qi = data.draw(population_cases(n=(4, 7), m=(3, 3)))
    frame = frame.drop_duplicates().reset_index(drop=True)
    criteria = data.draw(population_criteria(population))
    _solve_and_compare(frame, population, qi, criteria, None)


def test_a_value_outside_the_input_is_matched_by_star_and_its_hierarchy_node():
    frame = pd.DataFrame({"a": ["1", "2"]})
    population = pd.DataFrame({"a": ["1", "2", "3", "3", "4"]})  # 3 and 4 are not in the input
    hier = {"a": {"1": ["12", "*"], "2": ["12", "*"], "3": ["34", "*"], "4": ["34", "*"]}}
    # '1' and '2' match one record each, '12' two, '*' five: 2-map needs '12' (cost height 1/2 per row)
    r = ma.anonymize(ma.Table.from_frame(frame, "a"), ma.KMap(2, population), recoding=ma.Generalization(hier))
    assert r.status == "optimal" and r.objective == pytest.approx(1.0)
    assert set(r.table["a"]) == {"12"}
    # 3-map: only '*' (all five records) will do
    r = ma.anonymize(ma.Table.from_frame(frame, "a"), ma.KMap(3, population), recoding=ma.Generalization(hier))
    assert set(r.table["a"]) == {"*"}
    # δ-presence in [0.25, 0.4]: '*' holds 2 of 5 (0.4); '12' 2 of 2 fails; singletons 1 of 1 fail
    r = ma.anonymize(ma.Table.from_frame(frame, "a"), ma.DeltaPresence(0.25, 0.4, population),
                     recoding=ma.Generalization(hier))
    assert set(r.table["a"]) == {"*"}


# --- pop(j) and the verifier against direct counts -------------------------------------------------------------

def _direct_matches(tup, population, qi, hier):
    """Population records covered by the released tuple ``tup``, counted one record at a time."""
    total = 0
    for rec in population[qi].astype(str).itertuples(index=False):
        ok = True
        for c, cell, v in zip(qi, tup, rec):
            h = hier.get(c)
            if cell == "*" or cell == v:
                continue
            if h is None or v not in h or cell not in h[v]:
                ok = False
                break
        total += ok
    return total


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_candidate_population_matches_a_direct_count(data):
    from milp_anon.pipeline.solve import prepare

    frame, population, qi = data.draw(population_cases())
    recoding = data.draw(recodings(qi))
    request = ma.Request(ma.KMap(1, population), recoding=recoding)
    instance, _, _ = prepare(ma.Table.from_frame(frame, qi), request, Timings())
    cands = instance.candidates
    hier = {c: dict(h.paths) for c, h in recoding.hierarchies.items()} if isinstance(recoding, ma.Generalization) \
        else {}
    for j in range(cands.n_candidates):
        tup = [lat.names[cands.nodes[j, c]] for c, lat in enumerate(instance.lattices)]
        assert cands.population[j] == _direct_matches(tup, population, qi, hier), tup


@st.composite
def released_tables(draw):
    """``(frame, population, qi, released, hier, recoding)``: the input with random cells suppressed or, with a
    hierarchy, raised to a random ancestor."""
    frame, population, qi = draw(population_cases())
    use_h = draw(st.booleans())
    hier = {c: draw(random_hierarchy(list(POP_LETTERS))) for c in qi if use_h and draw(st.booleans())}
    released = frame.copy()
    for r in range(len(frame)):
        for c in qi:
            v = frame.at[r, c]
            options = [v, "*"] + ([*hier[c][v]] if c in hier else [])
            released.at[r, c] = draw(st.sampled_from(options))
    return frame, population, qi, released, hier, ma.Generalization(hier) if hier else None


@settings(max_examples=80, deadline=None)
@given(case=released_tables(), k=st.integers(1, 5), lo=st.sampled_from(DELTAS), hi=st.sampled_from(DELTAS))
def test_verifier_agrees_with_a_direct_count(case, k, lo, hi):
    frame, population, qi, released, hier, recoding = case
    paths = {c: {v: [v, *p] for v, p in h.items()} for c, h in hier.items()}
    groups = released.groupby(qi, sort=False).size()
    direct = {tup if isinstance(tup, tuple) else (tup,): (size, _direct_matches(tup if isinstance(tup, tuple)
                                                                                 else (tup,), population, qi, paths))
              for tup, size in groups.items()}
    classes, matches = class_population_matches(released, qi, population, recoding)
    assert sorted(matches) == sorted(m for _, m in direct.values())
    kmap_ok = all(m >= k for _, m in direct.values())
    try:
        verify_release(frame, released, qi, [ma.KMap(k, population)], recoding=recoding)
        assert kmap_ok
    except VerificationError:
        assert not kmap_ok
    if lo > hi:
        return
    dlo, dhi = Fraction(lo).limit_denominator(10**6), Fraction(hi).limit_denominator(10**6)
    delta_ok = all(m > 0 and dlo <= Fraction(s, m) <= dhi for s, m in direct.values())
    try:
        verify_release(frame, released, qi, [ma.DeltaPresence(lo, hi, population)], recoding=recoding)
        assert delta_ok
    except VerificationError:
        assert not delta_ok


def test_journalist_risk_from_the_definition():
    population = pd.DataFrame({"a": ["1", "1", "2", "2", "2", "3"], "b": ["x", "y", "x", "x", "y", "x"]})
    released = pd.DataFrame({"a": ["1", "2", "2", "*", "*"], "b": ["*", "x", "x", "x", "*"]})
    # classes: (1,*) matches 2 -> 1/2; (2,x) matches 2 -> 1/2 for two records; (*,x) matches 4 -> 1/4;
    # (*,*) matches 6 -> 1/6, the only one not above 0.2
    risk = journalist_risk(released, population, ["a", "b"])
    assert risk == {"max": 0.5, "average": pytest.approx((0.5 * 3 + 0.25 + 1 / 6) / 5), "records_above": 4}
    withheld = np.array([True, False, False, False, False])
    assert journalist_risk(released, population, ["a", "b"], withheld=withheld)["records_above"] == 3


# --- validation --------------------------------------------------------------------------------------------------

def test_bad_population_input():
    frame = pd.DataFrame({"a": ["1", "1", "2"], "b": ["x", "x", "y"]})
    table = ma.Table.from_frame(frame, ["a", "b"])
    with pytest.raises(InputError, match="no column"):
        ma.anonymize(table, ma.KMap(2, frame[["a"]]))
    with pytest.raises(InputError, match="not a subset"):
        ma.anonymize(table, ma.KMap(2, frame.iloc[[0, 2]]))  # (1, x) twice in the input, once here
    with pytest.raises(InputError, match="not a subset"):
        ma.anonymize(table, ma.DeltaPresence(0, 1, pd.DataFrame({"a": ["1", "1", "3"], "b": ["x", "x", "y"]})))
    with pytest.raises(InputError, match="at least 1"):
        ma.KMap(0, frame)
    with pytest.raises(InputError, match="delta_min <= delta_max"):
        ma.DeltaPresence(0.5, 0.2, frame)
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        ma.DeltaPresence(0.5, 1.5, frame)
    with pytest.raises(InputError, match="interval"):
        ma.Request(ma.KMap(2, frame), recoding=ma.Generalization(intervals=["a"]))
    with pytest.raises(InputError, match="full-domain"):
        ma.Request(ma.KMap(2, frame), recoding=ma.Suppression(scheme="full-domain"))


def test_population_from_a_table_or_a_path(tmp_path):
    frame = pd.DataFrame({"a": ["1", "1", "2"], "b": ["x", "x", "y"]})
    pop = pd.concat([frame, pd.DataFrame({"a": ["2"], "b": ["x"]})], ignore_index=True)
    path = tmp_path / "pop.csv"
    pop.to_csv(path, sep=";", index=False)
    table = ma.Table.from_frame(frame, ["a", "b"])
    by_frame = ma.anonymize(table, ma.KMap(2, pop))
    by_path = ma.anonymize(table, ma.KMap(2, str(path), sep=";"))
    by_table = ma.anonymize(table, ma.KMap(2, ma.Table.from_frame(pop, ["a", "b"])))
    assert by_frame.objective == by_path.objective == by_table.objective == 1  # (2, y) -> (*, y) matches 2


# --- the command line ---------------------------------------------------------------------------------------------

def test_cli_end_to_end(tmp_path):
    (tmp_path / "in.csv").write_text("a;b;s\n1;x;p\n2;x;q\n3;x;p\n3;x;q\n")
    (tmp_path / "pop.csv").write_text("a;b\n1;x\n1;y\n2;x\n2;y\n3;x\n3;x\n3;y\n")
    env = {**os.environ, "PYTHONPATH": ROOT}
    cmd = [sys.executable, "-m", "milp_anon", "solve", "in.csv", "--qi", "a,b", "--sep", ";", "--population", "pop.csv",
           "--k-map", "2", "--delta-presence", "0,0.5", "--out", "out.csv"]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    released = pd.read_csv(tmp_path / "out.csv", sep=";", dtype=str)
    population = pd.read_csv(tmp_path / "pop.csv", sep=";", dtype=str)
    original = pd.read_csv(tmp_path / "in.csv", sep=";", dtype=str)
    # every class: at least 2 matching records and at most half of them in the input (from the definition)
    for tup, size in released.groupby(["a", "b"]).size().items():
        m = _direct_matches(tup, population, ["a", "b"], {})
        assert m >= 2 and 2 * size <= m
    assert (released == "*").to_numpy().sum() == 3  # brute force's optimum
    assert brute_force(original[["a", "b"]].to_numpy(), [ma.KMap(2, population), ma.DeltaPresence(0, 0.5, population)],
                       columns=["a", "b"])[0] == 3
    gap = [sys.executable, "-m", "milp_anon", "gap", "in.csv", "out.csv", "--qi", "a,b", "--sep", ";",
           "--population", "pop.csv", "--k-map", "3"]
    done = subprocess.run(gap, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode != 0 and "fewer than k = 3" in done.stderr


# --- ARX's Adult research subset ------------------------------------------------------------------------------

def test_adult_subset_fixture():
    """A slice of ARX's ``adult_subset.csv`` against the matching slice of ``adult.csv`` (tests/data/README.md)."""
    population = ma.read_csv(os.path.join(DATA, "adult_population_sample.csv"), sep=";")
    subset = ma.read_csv(os.path.join(DATA, "adult_subset_sample.csv"), sep=";")
    qi = ["sex", "race", "marital-status"]
    table = ma.Table.from_frame(subset, qi, "occupation", sep=";")
    result = ma.anonymize(table, ma.KMap(10, population), ma.DeltaPresence(0, 0.5, population), time_limit=60)
    assert result.status == "optimal", result.summary()
    verify_release(subset, result.table, qi, [ma.KMap(10, population), ma.DeltaPresence(0, 0.5, population)])
    risk = journalist_risk(result.table, population, qi)
    assert risk["max"] <= 1 / 10


def test_delta_presence_is_not_spliced_by_the_search():
    """δ-presence is not closed under union: the search's pieces, each valid, released the same tuple and merged
    into a class of 2 rows matching 2 records (share 1 > 0.5); the verifier refused it and the solve crashed. The
    search now declines δ-presence (lns.unavailable)."""
    from milp_anon.search import lns

    frame = pd.DataFrame({"q0": list("aaab"), "q1": list("aaba"), "q2": list("abaa")})
    crit = ma.DeltaPresence(0.0, 0.5, frame.copy())
    assert "closed under union" in lns.unavailable(ma.Request(crit))
    r = ma.anonymize(ma.Table.from_frame(frame, ["q0", "q1", "q2"]), crit)
    assert r.status == "optimal" and r.objective == 5
    assert r.objective == brute_force(frame.to_numpy(), [crit], {}, columns=["q0", "q1", "q2"])[0]
