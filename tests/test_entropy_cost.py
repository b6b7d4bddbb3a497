"""``cost="entropy"``: non-uniform entropy as the objective.

The optimum against a brute force written here from the definition (every partition of the rows into classes of
at least k, each class released as its cheapest common cell; a cell of value v covering S costs
log2 N(S) − log2 N(v), N over the whole column), the report's objective against ARX's metric
(``utility_metrics``), the CLI end to end (solve, then gap) and what is refused.
"""

import json
import math
import subprocess
import sys
from collections import Counter
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from helpers import LETTERS, random_hierarchy, small_tables
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.exact.brute_force import set_partitions
from milp_anon.privacy.utility import utility_metrics
from milp_anon.runtime.errors import InputError


def _entropy_optimum(frame, qi, k, hier, max_withheld=0):
    """The least entropy of a k-anonymous release, by listing every partition (and withheld set)."""
    n = len(frame)
    cols = {c: frame[c].astype(str).tolist() for c in qi}
    count = {c: Counter(v) for c, v in cols.items()}

    def cell_cost(c, rows):  # a class's cells of column c released as their lowest common cell
        vals = {cols[c][r] for r in rows}
        if len(vals) == 1:
            return 0.0
        h = hier.get(c)
        if h is None:
            covered = n
        else:
            lvl = next(lv for lv in range(len(next(iter(h.values()))) + 1)
                       if len({([v] + h[v])[lv] for v in vals}) == 1)
            node = ([next(iter(vals))] + h[next(iter(vals))])[lvl]
            covered = sum(cnt for u, cnt in count[c].items() if ([u] + h[u])[lvl] == node)
        return sum(math.log2(covered) - math.log2(count[c][cols[c][r]]) for r in rows)

    best = math.inf
    for size in range(max_withheld + 1):
        for out in combinations(range(n), size):
            rest = [r for r in range(n) if r not in out]
            withheld = sum(math.log2(n) - math.log2(count[c][cols[c][r]]) for r in out for c in qi)
            if not rest:
                best = min(best, withheld)
                continue
            for part in set_partitions(rest):
                if min(len(b) for b in part) < k:
                    continue
                best = min(best, withheld + sum(cell_cost(c, b) for b in part for c in qi))
    return None if best == math.inf else best


def _metric(frame, result, qi, recoding):
    """ARX's non-uniform entropy of the released table (withheld records at the root)."""
    full = frame.copy().astype(object)
    kept = [i for i in range(len(frame)) if i not in set(result.withheld)]
    full.loc[kept, qi] = result.table[qi].to_numpy()
    mask = np.zeros(len(frame), dtype=bool)
    mask[list(result.withheld)] = True
    return utility_metrics(frame, full, qi, recoding, mask)


@st.composite
def entropy_cases(draw):
    frame, qi, k = draw(small_tables(n=(3, 7), m=(1, 3), alphabet=(2, 3), k=(2, 3)))
    hier = {c: draw(random_hierarchy(list(LETTERS[:3]))) for c in qi if draw(st.booleans())}
    return frame, qi, k, hier


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entropy_cases())
def test_optimum_equals_brute_force_and_the_metric(case):
    frame, qi, k, hier = case
    rec = ma.Generalization(hier, cost="entropy")
    r = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k), recoding=rec)
    want = _entropy_optimum(frame, qi, k, hier)
    if want is None:
        assert r.status == "infeasible"
        return
    assert r.status == "optimal"
    assert r.objective == pytest.approx(want, abs=1e-6)
    u = _metric(frame, r, qi, rec)
    assert r.objective == pytest.approx(u["non_uniform_entropy"], abs=1e-9)
    for c in qi:
        assert r.cost_by_column[c] == pytest.approx(u["per_column"]["non_uniform_entropy"][c], abs=1e-9)
    assert r.bound <= r.objective + 1e-6 and r.bound == pytest.approx(r.objective, abs=1e-5)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entropy_cases(), st.integers(1, 2))
def test_record_suppression_matches_brute_force(case, max_withheld):
    frame, qi, k, hier = case
    rec = ma.Generalization(hier, cost="entropy")
    r = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k), recoding=rec,
                     max_suppressed_records=max_withheld)
    want = _entropy_optimum(frame, qi, k, hier, max_withheld)
    if want is None:
        assert r.status == "infeasible"
        return
    assert r.status == "optimal"
    assert r.objective == pytest.approx(want, abs=1e-6)
    assert r.objective == pytest.approx(_metric(frame, r, qi, rec)["non_uniform_entropy"], abs=1e-9)


def test_sparse_table_all_row_types_of_size_one():
    frame = pd.DataFrame({"q0": list("abcdef"), "q1": list("aabbcd")})
    rec = ma.Generalization(cost="entropy")
    r = ma.anonymize(ma.Table.from_frame(frame, ["q0", "q1"]), ma.KAnonymity(2), recoding=rec)
    assert r.status == "optimal"
    assert r.objective == pytest.approx(_entropy_optimum(frame, ["q0", "q1"], 2, {}), abs=1e-6)


def test_adult_first_rows_objective_is_the_metric():
    from milp_anon.tables.datasets import adult_hierarchy_path, load_adult

    frame = load_adult().head(200).reset_index(drop=True)
    qi = ["sex", "age", "race"]
    for rec in (ma.Generalization(cost="entropy"),
                ma.Generalization({"age": adult_hierarchy_path("age"), "race": adult_hierarchy_path("race")},
                                  cost="entropy"),
                ma.Generalization(value_sets=["race"], cost="entropy", weights={"sex": 2})):
        r = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(5), recoding=rec, time_limit=60)
        assert r.status in ("optimal", "time_limit")
        u = _metric(frame, r, qi, rec)
        w = dict(rec.weights)
        want = sum(w.get(c, 1) * u["per_column"]["non_uniform_entropy"][c] for c in qi)
        assert r.objective == pytest.approx(want, rel=1e-9)
        assert r.bound <= r.objective + 1e-6
        assert "bits of non-uniform entropy" in r.summary()


def test_node_costs_are_monotone_and_the_offset_is_the_constant():
    from milp_anon.tables.datasets import adult_hierarchy_path, load_adult
    from milp_anon.tables.recoding import entropy_offset

    frame = load_adult().head(300)
    table = ma.Table.from_frame(frame, ["age", "race"])
    rec = ma.Generalization({"age": adult_hierarchy_path("age")}, cost="entropy")
    for c, lat in enumerate(rec.lattices(table)):
        col = frame[table.qi[c]].astype(str)
        for v_idx in range(lat.anc.shape[0]):
            costs = lat.cost[lat.anc[v_idx]]
            assert np.all(np.diff(costs) >= -1e-12)  # a coarser node covers a superset
            assert costs[0] == pytest.approx(math.log2((col == str(table.values[c][v_idx])).sum()))
            assert costs[-1] == pytest.approx(math.log2(len(frame)))
    off = entropy_offset(table)
    for col in table.qi:
        counts = frame[col].astype(str).value_counts()
        assert off[col] == pytest.approx(float((counts * np.log2(counts)).sum()))
    assert rec.cost_offset(table) == pytest.approx(sum(off.values()))


def test_refused():
    with pytest.raises(InputError, match="scheme local"):
        ma.Generalization(cost="entropy", scheme="full-domain")
    table = ma.Table.from_frame(pd.DataFrame({"q": list("aabb")}), ["q"])
    with pytest.raises(InputError, match="budget"):
        ma.anonymize(table, ma.KAnonymity(2), recoding=ma.Generalization(cost="entropy"), budget=3)


def test_cli_solve_then_gap(tmp_path):
    from milp_anon.tables.datasets import load_adult

    src = tmp_path / "in.csv"
    load_adult().head(150).to_csv(src, index=False)
    out, rep, gap_rep = tmp_path / "out.csv", tmp_path / "r.json", tmp_path / "g.json"
    base = [sys.executable, "-m", "milp_anon"]
    args = ["--qi", "sex,age,race", "--k", "5", "--cost", "entropy"]
    run = subprocess.run([*base, "solve", str(src), *args, "--out", str(out), "--report", str(rep),
                          "--time-limit", "60"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "bits of non-uniform entropy" in run.stdout
    report = json.loads(rep.read_text())
    assert report["objective"] == pytest.approx(report["utility"]["non_uniform_entropy"], rel=1e-9)
    run = subprocess.run([*base, "gap", str(src), str(out), *args, "--optimum-from", str(rep),
                          "--report", str(gap_rep)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    g = json.loads(gap_rep.read_text())
    assert g["cost"] == pytest.approx(report["objective"], rel=1e-9)
    assert g["gap"] == pytest.approx(0.0, abs=1e-9)
