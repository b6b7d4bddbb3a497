"""The large-neighbourhood search (milp_anon.search.lns): verified, never worse, exact on what it re-solves."""

from __future__ import annotations

import dataclasses
import types

import numpy as np
import pandas as pd
import pytest
from helpers import brute, criteria_for, sensitive_tables
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bad_input import run_cli
from test_generalization import generalization_cases

import milp_anon as ma
from milp_anon.exact import brute_force
from milp_anon.exact.brute_force import set_partitions
from milp_anon.heuristics import level_greedy
from milp_anon.pipeline import solve as pipeline
from milp_anon.pipeline.solve import solve as pipeline_solve
from milp_anon.privacy.criteria import group_test
from milp_anon.privacy.verify import verify_release
from milp_anon.release.partition import release_blocks
from milp_anon.release.verified import Release
from milp_anon.runtime.errors import InputError
from milp_anon.runtime.status import Status
from milp_anon.search import lns
from milp_anon.solvers import SolverOptions
from milp_anon.tables.table import SUPPRESSED

OPTIONS = SolverOptions(time_limit=60)


def whole_table(table, request) -> Release:
    return Release.verified(table, request, release_blocks(table, [np.arange(table.n)], request.recoding))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_from_the_whole_table_it_reaches_the_optimum(data):
    """A table below START_ROWS rows is one neighbourhood, re-solved exactly: the brute-force optimum."""
    frame, qi, k = data.draw(sensitive_tables())
    crits = [ma.KAnonymity(k), data.draw(criteria_for(frame, ["p", "frequency", "distinct", "recursive", "t-equal",
                                                             "t-ordered", "t-hier", "t-matrix"]))]
    expected = brute(frame, qi, crits)
    if expected is None:
        return
    table = ma.Table.from_frame(frame, qi, "s")
    request = ma.Request(*crits)
    start = whole_table(table, request)
    better, log = lns.improve(table, request, start, 60, OPTIONS, sub_solve=pipeline_solve)
    v = verify_release(frame, better.table, qi, crits, sensitive=("s",))  # from the definitions
    assert v.cost == pytest.approx(better.objective, abs=1e-9)
    assert better.objective <= start.objective + 1e-9
    assert better.objective == pytest.approx(float(expected), abs=1e-9)
    assert log.start == start.objective and log.end == better.objective


@settings(max_examples=60, deadline=None)
@given(generalization_cases(), st.integers(2, 6))
def test_splices_of_small_neighbourhoods_are_verified_and_never_worse(monkeypatch_rows, case, rows):
    """Neighbourhoods of a few rows each (many splices onto classes left as they were): every table is verified,
    never worse than the start, never below the brute-force optimum."""
    frame, qi, k, rec = case
    table = ma.Table.from_frame(frame, qi)
    res = level_greedy(table, k, rec)
    if res is None:
        return
    request = ma.Request(ma.KAnonymity(k), recoding=rec)
    start = Release.verified(table, request, res[0])
    with monkeypatch_rows(rows):
        better, _ = lns.improve(table, request, start, 60, OPTIONS, sub_solve=pipeline_solve)
    v = verify_release(frame, better.table, qi, [ma.KAnonymity(k)], recoding=rec)
    assert v.cost == pytest.approx(better.objective, abs=1e-9)
    assert better.objective <= start.objective + 1e-9
    expected = brute_force(frame[qi].to_numpy(), [ma.KAnonymity(k)], recoding=rec, columns=qi)[0]
    assert better.objective >= float(expected) - 1e-9


def valid_blocks(table, crits, labels):
    """The classes of ``labels``, each failing class merged into the next until all meet ``crits``
    (closure under union); ``None`` when even the whole table fails."""
    ok = group_test(table, crits)
    k = max(c.min_group_size() for c in crits)
    blocks = [np.flatnonzero(labels == g) for g in np.unique(labels)]
    i = 0
    while i < len(blocks):
        if len(blocks[i]) >= k and ok(blocks[i]):
            i += 1
        elif len(blocks) == 1:
            return None
        else:
            j = i + 1 if i + 1 < len(blocks) else i - 1
            blocks[j] = np.sort(np.concatenate([blocks[i], blocks[j]]))
            del blocks[i]
            i = 0
    return blocks


@settings(max_examples=40, deadline=None)
@given(st.data(), st.integers(2, 6))
def test_t_closeness_sub_problems_compare_with_the_whole_table(monkeypatch_rows, data, rows):
    """t-closeness: neighbourhoods of a few classes each, re-solved against the whole table's distribution
    (``lns.sub_criteria``). Every spliced table passes the verifier on the *whole* table (a sub-problem
    solved against its own distribution would splice in classes that fail there), is never worse than the
    start and never below the brute-force optimum."""
    frame, qi, k = data.draw(sensitive_tables(n=(6, 9)))
    crits = [ma.KAnonymity(k), data.draw(criteria_for(frame, ["t-equal", "t-ordered", "t-hier", "t-matrix"]))]
    table = ma.Table.from_frame(frame, qi, "s")
    labels = np.array(data.draw(st.lists(st.integers(0, 4), min_size=table.n, max_size=table.n)))
    blocks = valid_blocks(table, crits, labels)
    if blocks is None:
        return
    request = ma.Request(*crits)
    start = Release.verified(table, request, release_blocks(table, blocks, request.recoding))
    with monkeypatch_rows(rows):
        better, _ = lns.improve(table, request, start, 60, OPTIONS, sub_solve=pipeline_solve)
    v = verify_release(frame, better.table, qi, crits, sensitive=("s",))
    assert v.cost == pytest.approx(better.objective, abs=1e-9)
    assert better.objective <= start.objective + 1e-9
    assert better.objective >= float(brute(frame, qi, crits)) - 1e-9


def test_sub_criteria_carry_the_whole_table_s_distribution():
    frame = pd.DataFrame({"a": list("xxyyz"), "s": list("11223")})
    table = ma.Table.from_frame(frame, ["a"], "s")
    given_ref = ma.TCloseness(0.3, reference={"s": {"1": 5, "9": 1}})
    k, t, kept = lns.sub_criteria(table, [ma.KAnonymity(2), ma.TCloseness(0.3), given_ref])
    assert k == ma.KAnonymity(2) and kept == given_ref  # a user's reference is kept as given
    assert t.reference_for("s") == {"1": 2, "2": 2, "3": 1} and t.t == 0.3
    sub = ma.Table.from_frame(frame.iloc[[0, 1]], ["a"], "s")  # holds '1' only: far from the whole table
    assert t.infeasibility(sub) is not None and ma.TCloseness(0.3).infeasibility(sub) is None


@pytest.fixture(scope="module")
def monkeypatch_rows():
    import contextlib

    @contextlib.contextmanager
    def rows(n):
        old = lns.START_ROWS, lns.MIN_ROWS
        lns.START_ROWS = lns.MIN_ROWS = n
        try:
            yield
        finally:
            lns.START_ROWS, lns.MIN_ROWS = old

    return rows


def test_a_small_neighbourhood_regroups_rows_across_classes(monkeypatch):
    """Hand case, k = 2, suppression: the start pairs a1 with b1 and a2 with b2 (every cell of both columns
    suppressed: 8 cells); re-solving the four rows pairs a with a and b with b, suppressing only column w
    (4 cells), which is the optimum. (The two pairs release the same vector, one class of four rows, which
    the refinement splits by v first; it is switched off here to test the sub-problem.)"""
    monkeypatch.setattr(lns, "refine_release", lambda table, criteria, released, deadline=None: (
        released, int((released[list(table.qi)] == SUPPRESSED).to_numpy().sum())))  # the table as it is
    frame = pd.DataFrame({"v": ["a", "b", "a", "b"], "w": ["1", "2", "3", "4"]})
    table = ma.Table.from_frame(frame, ["v", "w"])
    request = ma.Request(ma.KAnonymity(2))
    start = Release.verified(table, request, release_blocks(table, [np.array([0, 1]), np.array([2, 3])],
                                                            request.recoding))
    assert start.objective == 8
    better, log = lns.improve(table, request, start, 60, OPTIONS, sub_solve=pipeline_solve)
    assert better.objective == 4 and better.source == lns.LNS_SOURCE
    assert better.table["v"].tolist() == ["a", "b", "a", "b"] and set(better.table["w"]) == {"*"}
    assert log.improved == 1


def test_a_given_start_is_reported_as_the_warm_start_by_both_stages():
    frame = pd.DataFrame({"v": list("aabbabab"), "w": list("xxyyxyxy")})
    table = ma.Table.from_frame(frame, ["v", "w"])
    request = ma.Request(ma.KAnonymity(2))
    start = whole_table(table, request)
    for reduction in ("lagrangian", "none"):
        req = ma.Request(ma.KAnonymity(2), reduction=reduction)
        res = pipeline.solve(table, req, SolverOptions(time_limit=30), start=start)
        assert res.is_optimal and res.objective < start.objective
        assert res.warm_start_cost == start.cost, reduction


def test_neighbourhoods_are_runs_of_whole_classes():
    rng = np.random.default_rng(3)
    groups = rng.integers(0, 40, size=500)
    released = pd.DataFrame({"a": (groups % 7).astype(str), "b": (groups // 7).astype(str)})
    hoods = lns.neighbourhoods(released, groups, ["b", "a"], 60, 10)
    seen = np.concatenate(hoods)
    assert len(seen) == len(set(seen.tolist()))  # disjoint
    for rows in hoods:
        classes = np.unique(groups[rows])
        assert np.isin(np.flatnonzero(np.isin(groups, classes)), rows).all()  # whole classes only
        assert len(rows) <= 60 or classes.size == 1
        assert len(rows) >= 10


def test_where_it_does_not_apply():
    hier = {"1": ["x", "*"], "2": ["x", "*"]}
    assert lns.unavailable(ma.Request(ma.KAnonymity(2), ma.TCloseness(0.2))) is None
    assert "whole table" in lns.unavailable(ma.Request(ma.KAnonymity(2), budget=3))
    assert "withheld" in lns.unavailable(ma.Request(ma.KAnonymity(2), max_suppressed_records=1))
    assert lns.unavailable(ma.Request(ma.KAnonymity(2), ma.LDiversity(2))) is None
    assert lns.unavailable(ma.Request(ma.KAnonymity(2), ma.TCloseness(0.2, distance="hierarchical",
                                                                      hierarchy=hier))) is None
    assert "full-domain" in lns.unavailable(ma.Request(ma.KAnonymity(2),
                                                       recoding=ma.Suppression(scheme="full-domain")))


@pytest.mark.parametrize("cells", [{"intervals": ["age"]}, {"value_sets": ["age"]}])
def test_sub_problems_price_interval_and_value_set_cells_as_the_whole_table(cells):
    """An interval cell costs its width over the column's range (a value set its size less one over the values
    less one), and a sub-table has its own: the first four rows alone would price the whole table's 4 × 10/70
    (4 × 1/2) at 4 × 1, so a cheaper sub-table could be a dearer table. The sub-problem's weights price them as
    the whole table does; its ``*`` (priced as its covering cell) is written as that cell."""
    frame = pd.DataFrame({"age": ["20", "30", "20", "30", "90", "90"], "c": list("AABBCC")})
    request = ma.Request(ma.KAnonymity(2), recoding=ma.Generalization(**cells))
    assert lns.unavailable(request) is None
    table = ma.Table.from_frame(frame, ["age", "c"])
    cell = "20-30" if "intervals" in cells else "20,30"
    released = frame.assign(age=[cell] * 4 + ["90", "90"])
    whole = Release.verified(table, request, released)
    rows = np.arange(4)
    plain = Release.verified(ma.Table.from_frame(frame.iloc[rows], ["age", "c"]), request,
                             released.iloc[rows].reset_index(drop=True))
    sub_table, sub_request = lns._sub_problem(table, request, rows, lns._sub_request(table, request))
    sub = Release.verified(sub_table, sub_request, released.iloc[rows].reset_index(drop=True))
    # the whole table: 4 cells of width 10 over 70 (of 1 value more over 2); the first four rows alone: 4 × 1
    assert whole.objective == pytest.approx(4 * 10 / 70 if "intervals" in cells else 4 * 1 / 2)
    assert plain.objective == pytest.approx(4.0)
    assert sub.objective == pytest.approx(whole.objective)
    starred = frame.iloc[rows].reset_index(drop=True).assign(age=SUPPRESSED)
    assert Release.verified(sub_table, sub_request, starred).objective == pytest.approx(whole.objective)
    spliced = released.copy()
    spliced.iloc[rows] = lns._in_whole_cells(table, sub_table, request, starred[released.columns])
    assert spliced["age"].tolist()[:4] == [cell] * 4
    assert Release.verified(table, request, spliced).objective == pytest.approx(whole.objective)
    res = ma.anonymize(frame, ma.KAnonymity(2), qi=["age", "c"], recoding=ma.Generalization(**cells),
                       time_limit=30, lns=0.5)
    expected = brute_force(frame[["age", "c"]].to_numpy(), [ma.KAnonymity(2)], recoding=ma.Generalization(**cells),
                           columns=["age", "c"])[0]
    assert res.verified and res.objective == pytest.approx(float(expected))


@st.composite
def cell_tables(draw):
    """A numeric column x (intervals), a letter column y (value sets or suppressed), sometimes a suppressed
    letter column z; k."""
    n = draw(st.integers(4, 9))
    frame = pd.DataFrame({"x": draw(st.lists(st.sampled_from(["-3", "0", "1", "2.5", "4", "10"]), min_size=n,
                                             max_size=n)),
                          "y": draw(st.lists(st.sampled_from(list("abcd")), min_size=n, max_size=n))})
    if draw(st.booleans()):
        frame["z"] = draw(st.lists(st.sampled_from(list("ab")), min_size=n, max_size=n))
    sets = ("y",) if draw(st.booleans()) else ()
    return frame, list(frame.columns), draw(st.integers(2, 3)), ma.Generalization(intervals=("x",), value_sets=sets)


def _block_cost(frame, block, recoding) -> float:
    """A block's cost as one class of the whole table, from the definitions: per row, the block's range of x over
    the table's, its set of y less one over the table's values less one, a star for a varying suppressed column."""
    part = frame.iloc[list(block)]
    x, x_all = part["x"].astype(float), frame["x"].astype(float)
    span = x_all.max() - x_all.min()
    cost = (x.max() - x.min()) / span if span else 0.0
    for col in frame.columns.drop("x"):
        values = part[col].nunique()
        if col in recoding.value_sets:
            cost += (values - 1) / max(frame[col].nunique() - 1, 1)
        else:
            cost += float(values > 1)
    return len(block) * cost


def _least_cost(frame, block, k, recoding) -> float:
    """The least cost of a block's rows over its partitions into parts of k rows or more (whole-table prices)."""
    return min(sum(_block_cost(frame, part, recoding) for part in parts)
               for parts in set_partitions(list(block)) if all(len(p) >= k for p in parts))


@settings(max_examples=40, deadline=None)
@given(cell_tables())
def test_classes_re_solved_alone_reach_their_whole_table_optimum(monkeypatch_rows, case):
    """The start cuts the rows, in the order of x, into blocks of 2k rows (the last takes the rest; blocks
    released alike are one class): each class a neighbourhood alone, whose sub-table has a range and values of its own. The first pass re-solves each at
    whole-table prices, so its table costs the sum of each class's least cost (enumerated here); every table is
    verified, never worse than the start, never below the brute-force optimum."""
    frame, qi, k, recoding = case
    order = np.argsort(frame["x"].astype(float).to_numpy(), kind="stable")
    cuts = list(range(2 * k, len(frame) - k + 1, 2 * k))
    blocks = [b for b in np.split(order, cuts) if b.size]
    table = ma.Table.from_frame(frame, qi)
    request = ma.Request(ma.KAnonymity(k), recoding=recoding)
    start = Release.verified(table, request, release_blocks(table, blocks, recoding))
    classes = [np.flatnonzero(np.asarray(start.groups) == g) for g in np.unique(start.groups)]  # blocks may merge
    first_pass = sum(_least_cost(frame, c, k, recoding) if c.size >= 2 * k else _block_cost(frame, c, recoding)
                     for c in classes)
    found = []
    with monkeypatch_rows(1):
        better, _ = lns.improve(table, request, start, 60, OPTIONS, on_better=found.append,
                                sub_solve=pipeline_solve)
    assert start.objective == pytest.approx(sum(_block_cost(frame, c, recoding) for c in classes))
    if first_pass < start.objective - 1e-9:
        assert found and found[0].objective == pytest.approx(first_pass)
    v = verify_release(frame, better.table, qi, [ma.KAnonymity(k)], recoding=recoding)
    assert v.cost == pytest.approx(better.objective, abs=1e-9)
    assert better.objective <= start.objective + 1e-9
    expected = brute_force(frame[qi].to_numpy(), [ma.KAnonymity(k)], recoding=recoding, columns=qi)[0]
    assert better.objective >= float(expected) - 1e-9


def test_the_pipeline_hands_the_stage_s_release_to_the_search(monkeypatch):
    """A stage that ends at its limit with the whole table (forced here) is improved in the time kept for
    the search: the result is the brute-force optimum, labelled and logged."""
    frame = pd.DataFrame({"v": list("aabbabab"), "w": list("xxyyxyxy")})
    table = ma.Table.from_frame(frame, ["v", "w"])
    real = pipeline._solve_whole
    seen = {}

    def stopped_early(instance, request_, solver, *a, **kw):
        out = real(instance, request_, solver, *a, **kw)
        if "limit" in seen:  # the search's sub-problems come later: left alone
            return out
        seen["limit"] = solver.time_limit
        return dataclasses.replace(out, release=whole_table(table, request_), status=Status.TIME_LIMIT, bound=0.0)

    monkeypatch.setattr(pipeline, "_solve_whole", stopped_early)
    res = ma.anonymize(table, ma.KAnonymity(2), reduction="none", time_limit=40, lns=0.5)
    assert seen["limit"] == pytest.approx(20)  # the stage got the other half
    expected = brute_force(frame.to_numpy(), [ma.KAnonymity(2)])[0]
    assert res.verified and res.source == lns.LNS_SOURCE and res.objective == pytest.approx(float(expected))
    assert res.lns.start == 16 and res.lns.end == res.objective
    assert res.report()["lns"]["end"] == res.objective and "LNS" in res.summary()
    seen.clear()
    off = ma.anonymize(table, ma.KAnonymity(2), reduction="none", time_limit=40)
    assert seen["limit"] == 40 and off.lns is None and off.objective == 16  # no search: the stage's table


def test_options_are_checked_before_any_work(tmp_path):
    with pytest.raises(InputError, match="give a time limit"):
        SolverOptions(lns=0.5)
    with pytest.raises(InputError, match=r"\[0, 1\)"):
        SolverOptions(time_limit=10, lns=1)
    (tmp_path / "t.csv").write_text("a,b\n1,2\n1,2\n")
    for bad in ("fast", True, -0.1):
        with pytest.raises(InputError, match="'auto' or in"):
            SolverOptions(time_limit=10, lns=bad)
    for args in (["--lns", "0.5"], ["--lns", "1", "--time-limit", "5"], ["--lns", "fast", "--time-limit", "5"]):
        proc = run_cli(["solve", "t.csv", "--qi", "a,b", "--k", "2", "--out", "o.csv", *args], tmp_path)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
        assert not (tmp_path / "o.csv").exists()
    proc = run_cli(["solve", "t.csv", "--qi", "a,b", "--k", "2", "--out", "o.csv", "--lns", "auto"], tmp_path)
    assert proc.returncode == 0 and (tmp_path / "o.csv").exists()


def test_auto_searches_only_beside_the_reductions_rounds(monkeypatch):
    """``lns="auto"`` (the default) is a share only where the reduction would keep the whole limit with the search
    beside its rounds, and not on interval or value-set columns; elsewhere 0, so no solve gives the search time of
    its own. A share given is kept."""
    from milp_anon import reduction

    assert SolverOptions().lns == "auto" and SolverOptions(lns="auto").time_limit is None
    request = ma.Request(ma.KAnonymity(2))
    asked = []

    def keeps(request_, solver, n_pairs):
        asked.append((solver.lns, n_pairs))
        return n_pairs >= 100

    monkeypatch.setattr(reduction, "keeps_whole_limit", keeps)
    auto = SolverOptions(time_limit=600)
    assert pipeline.resolve_lns(auto, request, 100).lns == pipeline.AUTO_LNS_SHARE
    assert asked == [(pipeline.AUTO_LNS_SHARE, 100)]  # asked as the share it would run with
    assert pipeline.resolve_lns(auto, request, 99).lns == 0.0
    assert pipeline.resolve_lns(auto, request, None).lns == 0.0 and len(asked) == 2  # no reduction: not asked
    assert pipeline.resolve_lns(SolverOptions(), request, 100).lns == 0.0 and len(asked) == 2  # no time limit
    for cells in ({"intervals": ["x"]}, {"value_sets": ["x"]}):  # measured no gain there: off
        assert pipeline.resolve_lns(auto, ma.Request(ma.KAnonymity(2), recoding=ma.Generalization(**cells)),
                                    100).lns == 0.0
    for share in (0.0, 0.5):
        given = SolverOptions(time_limit=600, lns=share)
        assert pipeline.resolve_lns(given, request, 100) is given


def _relaxed_solution(table, request):
    """R(∅)'s solution (k-anonymity over the request's candidates, no criterion row): its released table,
    classes and which classes fail a criterion."""
    from milp_anon.formulations import build
    from milp_anon.privacy.criteria import failing_groups
    from milp_anon.release.result import Timings
    from milp_anon.runtime.grid import ObjectiveGrid
    from milp_anon.solvers import solve_model

    instance, _, why = pipeline.prepare(table, request, Timings())
    assert not why
    am = build(instance, request)
    owner = am.row_candidates(am.criterion_rows)
    keep = np.ones(am.lm.n_rows, dtype=bool)
    keep[am.criterion_rows[owner >= 0]] = False
    out = solve_model(am.lm.with_rows(keep), SolverOptions(), ObjectiveGrid.for_objective("cost",
                                                                                           instance.candidates.cost))
    g = np.rint(out.x[am.g])
    released, groups, _ = am.release(g)
    return released, groups, failing_groups(request.criteria, am.group_counts(g))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_resolve_failing_keeps_the_passing_classes_and_never_beats_the_optimum(data):
    """Re-solving the failing classes of R(∅)'s solution (growing into their neighbours) gives a verified
    release whenever the problem has one (at worst the sub-table is the whole table), never cheaper than brute
    force, with every row of a passing class released as it was."""
    frame, qi, k = data.draw(sensitive_tables(n=(4, 9), k=(2, 3)))
    criteria = [ma.KAnonymity(k), data.draw(criteria_for(frame))]
    table, expected = ma.Table.from_frame(frame, qi, "s"), brute(frame, qi, criteria)
    if expected is None:
        return
    request = ma.Request(*criteria)
    released, groups, failing = _relaxed_solution(table, request)
    out = lns.resolve_failing(table, request, released, groups, failing, 60.0, SolverOptions(), sub_solve=pipeline_solve)
    if not failing.any():
        assert out is None
        return
    assert out is not None
    rel, rows = out
    assert rel.source == lns.RESOLVE_SOURCE and rel.objective >= expected - 1e-9
    assert np.isin(np.flatnonzero(failing[groups]), rows).all()  # every failing row is re-solved
    untouched = np.setdiff1d(np.arange(table.n), rows)
    assert (rel.table[qi].to_numpy()[untouched] == released[qi].to_numpy()[untouched]).all()
    check = verify_release(frame, rel.table, qi, criteria, sensitive=["s"])
    assert check.cost == pytest.approx(rel.objective)


def test_resolve_failing_grows_into_the_neighbours_when_a_piece_has_no_release():
    """A failing class is re-solved with its neighbour (sorted by released vector); where those rows together
    have no 2-diverse release the piece reaches two classes further, and the class beyond stays as it was."""
    frame = pd.DataFrame({"a": ["a"] * 4 + ["b"] * 4 + ["c"] * 4 + ["d"] * 4 + ["e"] * 6,
                          "s": ["u", "v"] * 8 + ["w"] * 6})
    table = ma.Table.from_frame(frame, ["a"], "s")
    request = ma.Request(ma.KAnonymity(2), ma.LDiversity(2))  # frequency: no value above half a class
    groups = np.repeat([0, 1, 2, 3, 4], [4, 4, 4, 4, 6])
    failing = np.array([False, False, False, False, True])  # "e" holds one value; with "d", 6 "w" of 10 rows
    out = lns.resolve_failing(table, request, frame.copy(), groups, failing, 60.0, SolverOptions(), sub_solve=pipeline_solve)
    assert out is not None
    rel, rows = out
    assert (rows == np.arange(4, 22)).all()  # b, c, d, e: two more classes on the left of the piece {d, e}
    assert (rel.table["a"][:4] == "a").all()
    assert verify_release(frame, rel.table, ["a"], request.criteria, sensitive=["s"]).cost == rel.objective


@settings(max_examples=40, deadline=None)
@given(st.data(), st.integers(2, 6), st.integers(1, 4))
def test_calls_sharing_a_memory_are_verified_never_worse_and_never_below_the_optimum(monkeypatch_rows, data, rows,
                                                                                     cut):
    """The search cut into calls of about ``cut`` sub-problems each (as beside each relaxation), one
    ``SearchMemory`` carried through them, each call from the last one's table: every table verified, never
    worse than the call's start, never below the brute-force optimum; a last call run to its end from the
    first start reaches no worse than that start."""
    frame, qi, k = data.draw(sensitive_tables(n=(6, 9)))
    crits = [ma.KAnonymity(k), data.draw(criteria_for(frame, ["p", "frequency", "distinct", "t-ordered"]))]
    expected = brute(frame, qi, crits)
    if expected is None:
        return
    table = ma.Table.from_frame(frame, qi, "s")
    request = ma.Request(*crits)
    memory = lns.SearchMemory()
    first = rel = whole_table(table, request)
    with monkeypatch_rows(rows):
        for call in range(5):
            asks = [0]

            def stop():  # asked before each sub-problem (and each pass)
                asks[0] += 1
                return call < 4 and asks[0] > cut

            better, log = lns.improve(table, request, rel if call < 4 else first, 60, OPTIONS, stop=stop,
                                      memory=memory, sub_solve=pipeline_solve)
            v = verify_release(frame, better.table, qi, crits, sensitive=("s",))  # from the definitions
            assert v.cost == pytest.approx(better.objective, abs=1e-9)
            assert better.objective <= (rel if call < 4 else first).objective + 1e-9
            assert better.objective >= float(expected) - 1e-9
            rel = better
    assert memory.passes > 0 and memory.owner[0] is table


def test_a_neighbourhood_proven_before_is_skipped_only_while_its_rows_cost_its_optimum(monkeypatch):
    """One neighbourhood (a table below ``START_ROWS`` rows): the first call proves its optimum; a second
    call from that table solves nothing (the rows cost the optimum); a third from the first start again
    solves it (its rows now cost more than the optimum) and reaches the optimum. Without the memory the
    second call solves it again. (The refinement is switched off: it would reach the optimum alone.)"""
    monkeypatch.setattr(lns, "refine_release", lambda table, criteria, released, deadline=None: (
        released, int((released[list(table.qi)] == SUPPRESSED).to_numpy().sum())))  # the table as it is
    frame = pd.DataFrame({"v": ["a", "b", "a", "b"], "w": ["1", "2", "3", "4"]})
    table = ma.Table.from_frame(frame, ["v", "w"])
    request = ma.Request(ma.KAnonymity(2))
    expected = float(brute_force(frame.to_numpy(), [ma.KAnonymity(2)])[0])
    start = Release.verified(table, request, release_blocks(table, [np.array([0, 1]), np.array([2, 3])],
                                                            request.recoding))
    assert start.objective > expected
    memory = lns.SearchMemory()
    first, log1 = lns.improve(table, request, start, 60, OPTIONS, memory=memory, sub_solve=pipeline_solve)
    assert first.objective == pytest.approx(expected) and log1.proven >= 1
    again, log2 = lns.improve(table, request, first, 60, OPTIONS, memory=memory, sub_solve=pipeline_solve)
    assert log2.solved == 0 and log2.known >= 1 and again.objective == pytest.approx(expected)
    third, log3 = lns.improve(table, request, start, 60, OPTIONS, memory=memory, sub_solve=pipeline_solve)
    assert log3.solved >= 1 and third.objective == pytest.approx(expected)
    fresh, log4 = lns.improve(table, request, first, 60, OPTIONS, sub_solve=pipeline_solve)
    assert log4.solved == 1 and log4.known == log4.passes - 1  # afresh: once, then known within the call
    assert memory.passes == log1.passes + log2.passes + log3.passes  # each call went on from the last
    # the memory switched off (``Tuning.search_memory``): the memory given is left alone, the call starts afresh
    off = dataclasses.replace(OPTIONS, tuning=ma.Tuning(search_memory=False))
    _, log5 = lns.improve(table, request, first, 60, off, memory=memory, sub_solve=pipeline_solve)
    assert log5.solved == 1 and memory.passes == log1.passes + log2.passes + log3.passes


def test_a_sub_problem_that_ended_at_its_limit_is_not_asked_again_with_the_same_start(monkeypatch):
    """A sub-problem that reached its limit without a gain is skipped when its rows are released as before
    (identical inputs), solved again once they are released otherwise; a memory of another table or request
    is ignored (a fresh one is used)."""
    frame = pd.DataFrame({"v": list("aabbabab"), "w": list("xxyyxyxy")})
    table = ma.Table.from_frame(frame, ["v", "w"])
    request = ma.Request(ma.KAnonymity(2))
    def unproven(sub, req, options, start=None):  # as if cut at its limit with nothing better than its start
        return types.SimpleNamespace(is_optimal=False, table=None, objective=None)

    monkeypatch.setattr(lns, "refine_release", lambda table, criteria, released, deadline=None: (
        released, int((released[list(table.qi)] == SUPPRESSED).to_numpy().sum())))  # the table as it is
    start = whole_table(table, request)
    memory = lns.SearchMemory()
    _, log = lns.improve(table, request, start, 60, OPTIONS, memory=memory, sub_solve=unproven)
    assert log.solved == 1 and log.known == lns.IDLE_PASSES - 1  # the later passes skip it
    _, log = lns.improve(table, request, start, 60, OPTIONS, memory=memory, sub_solve=unproven)
    assert log.solved == 0
    other = Release.verified(table, request, release_blocks(table, [np.array([0, 1, 2, 4, 6]), np.array([3, 5, 7])],
                                                            request.recoding))
    _, log = lns.improve(table, request, other, 60, OPTIONS, memory=memory, sub_solve=unproven)
    assert log.solved >= 1  # released otherwise: asked again
    copy = ma.Table.from_frame(frame, ["v", "w"])
    _, log = lns.improve(copy, ma.Request(ma.KAnonymity(2)), whole_table(copy, request), 60, OPTIONS, memory=memory, sub_solve=unproven)
    assert log.solved == 1 and log.known == lns.IDLE_PASSES - 1  # another table: the memory left alone
    assert memory.owner[0] is table


def test_every_search_of_a_solve_shares_one_memory(monkeypatch):
    """The pipeline gives every call of the search in one solve the same ``SearchMemory`` (here the search
    after a stage forced to end with the whole table), and a new one to the next solve."""
    frame = pd.DataFrame({"v": list("aabbabab"), "w": list("xxyyxyxy")})
    table = ma.Table.from_frame(frame, ["v", "w"])
    seen = []
    real = lns.improve

    def recording(*a, memory=None, **kw):
        seen.append(memory)
        return real(*a, memory=memory, **kw)

    monkeypatch.setattr(lns, "improve", recording)
    real_whole = pipeline._solve_whole

    def stopped_early(instance, request_, solver, *a, **kw):
        out = real_whole(instance, request_, solver, *a, **kw)
        return dataclasses.replace(out, release=whole_table(table, request_), status=Status.TIME_LIMIT, bound=0.0)

    monkeypatch.setattr(pipeline, "_solve_whole", stopped_early)
    for _ in range(2):
        res = ma.anonymize(table, ma.KAnonymity(2), reduction="none", time_limit=40, lns=0.5)
        assert res.verified and res.lns is not None
    assert len(seen) == 2 and all(isinstance(m, lns.SearchMemory) for m in seen) and seen[0] is not seen[1]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=40), st.permutations(["v", "w"]))
def test_halves_are_unions_of_whole_classes_cut_near_the_middle(labels, order):
    """``halves``: every row in one half, every class in one half, the first half's classes before the
    second's in the sorted order, and the first half the shortest run of sorted classes with half the rows."""
    labels = np.asarray(labels)
    released = pd.DataFrame({"v": [f"v{g % 3}" for g in labels], "w": [f"w{g}" for g in labels]})
    first, second = lns.halves(released, labels, order)
    assert np.array_equal(np.sort(np.concatenate([first, second])), np.arange(labels.size))
    assert not set(labels[first]) & set(labels[second])
    key = {g: tuple(released.loc[np.flatnonzero(labels == g)[0], c] for c in order) for g in set(labels)}
    if second.size:
        assert max(key[g] for g in labels[first]) < min(key[g] for g in labels[second])
    last = max(set(labels[first]), key=key.get)
    assert first.size >= labels.size / 2 > first.size - np.sum(labels == last)


@pytest.fixture
def two_cores(monkeypatch):
    """``improve_split`` on any table of two rows or more, for a second or more, on two cores."""
    monkeypatch.setattr(lns, "SPLIT_MIN_ROWS", 2)
    monkeypatch.setattr(lns, "SPLIT_MIN_SECONDS", 1.0)
    monkeypatch.setattr(lns, "_cores", lambda: 2)


def two_blocks(sensitive: bool):
    """Two blocks of 6 rows (``sex`` F and M) of random ``a``, ``b`` and, with ``sensitive``, ``s`` (12 rows:
    brute force's most)."""
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"sex": ["F"] * 6 + ["M"] * 6, "a": rng.choice(list("xyz"), 12),
                          "b": rng.choice(list("pq"), 12)})
    if sensitive:
        frame["s"] = list("112223") + list("123333")
    return frame, ["sex", "a", "b"]


def test_the_split_search_splices_both_halves(two_cores):
    """The first split cuts between the two blocks (classes sorted by ``sex`` first); each half is one
    neighbourhood solved exactly, one here and one in the child process, so the first table told is the sum of
    the two blocks' brute-force optima; the last is never above it nor below the whole table's."""
    frame, qi = two_blocks(False)
    table = ma.Table.from_frame(frame, qi)
    request = ma.Request(ma.KAnonymity(2))
    # each block one class (only ``sex`` kept)
    start = Release.verified(table, request, release_blocks(table, [np.arange(6), np.arange(6, 12)],
                                                            request.recoding))
    crits = [ma.KAnonymity(2)]
    f, m = (float(brute_force(frame.iloc[r][qi].to_numpy(), crits)[0]) for r in (slice(0, 6), slice(6, 12)))
    assert start.objective > f + m and start.objective - f > m and start.objective - m > f  # both halves gain
    told = []
    better, log = lns.improve_split(table, request, start, 30, OPTIONS, on_better=lambda r: told.append(r.objective), sub_solve=pipeline_solve)
    assert log.workers == 2 and log.epochs >= 1
    assert told[0] == pytest.approx(f + m)
    v = verify_release(frame, better.table, qi, crits)
    assert v.cost == pytest.approx(better.objective, abs=1e-9)
    assert float(brute_force(frame[qi].to_numpy(), crits)[0]) - 1e-9 <= better.objective <= f + m + 1e-9
    assert log.start == start.objective and log.end == better.objective


@pytest.mark.parametrize("kind", ["t-equal", "t-ordered"])
def test_the_split_search_holds_t_closeness_to_the_whole_table(two_cores, kind):
    """Each half is searched against the whole table's distribution (its own differs: the blocks' ``s`` do):
    the spliced table meets t-closeness on the whole table, is never worse than the start nor below the
    brute-force optimum."""
    frame, qi = two_blocks(True)
    table = ma.Table.from_frame(frame, qi, "s")
    crits = [ma.KAnonymity(2), ma.TCloseness(0.3, distance="equal" if kind == "t-equal" else "ordered")]
    request = ma.Request(*crits)
    start = whole_table(table, request)
    blocks = valid_blocks(table, crits, np.repeat([0, 1, 2, 3], 3))
    if blocks is not None and len(blocks) > 1:
        start = Release.verified(table, request, release_blocks(table, blocks, request.recoding))
    better, log = lns.improve_split(table, request, start, 20, OPTIONS, sub_solve=pipeline_solve)
    assert log.epochs >= 1  # split at least once
    v = verify_release(frame, better.table, qi, crits, sensitive=("s",))
    assert v.cost == pytest.approx(better.objective, abs=1e-9)
    assert better.objective <= start.objective + 1e-9
    assert better.objective >= float(brute(frame, qi, crits)) - 1e-9


def test_the_split_search_runs_on_one_core_where_it_cannot_split(two_cores):
    """No process may be started (``isolate="never"``), or one class holds half the rows: the search of one core."""
    frame, qi = two_blocks(False)
    table = ma.Table.from_frame(frame, qi)
    request = ma.Request(ma.KAnonymity(2))
    start = whole_table(table, request)
    for options in (dataclasses.replace(OPTIONS, isolate="never"), OPTIONS):
        better, log = lns.improve_split(table, request, start, 20, options, sub_solve=pipeline_solve)
        assert log.epochs == 0 and log.workers == (1 if options.isolate == "never" else 2)
        assert better.objective == pytest.approx(float(brute_force(frame[qi].to_numpy(), [ma.KAnonymity(2)])[0]))


def test_the_split_search_prices_each_half_as_the_whole_table(two_cores):
    """Two blocks whose x (intervals) and y (value sets) span less than the whole table's: each half, one class
    at the start, is searched at whole-table prices (its neighbourhoods' weights compose with the half's), so the
    first table told costs the sum of the blocks' least costs (enumerated here). Priced by its own range and
    values, a block would rather split on x (a set of y costs 1 there, as does x's whole range) than on y."""
    frame = pd.DataFrame({"sex": ["F"] * 6 + ["M"] * 6,
                          "x": ["0", "2", "0", "2", "1", "1", "30", "32", "30", "32", "31", "31"],
                          "y": list("ppqqpq") + list("rrssrs")})
    qi, recoding = ["sex", "x", "y"], ma.Generalization(intervals=("x",), value_sets=("y",))
    table = ma.Table.from_frame(frame, qi)
    request = ma.Request(ma.KAnonymity(2), recoding=recoding)
    blocks = [np.arange(6), np.arange(6, 12)]
    start = Release.verified(table, request, release_blocks(table, blocks, recoding))
    f, m = (_least_cost(frame, b, 2, recoding) for b in blocks)
    costs = [_block_cost(frame, b, recoding) for b in blocks]
    assert start.objective == pytest.approx(sum(costs)) and costs[0] > f + 1e-9 and costs[1] > m + 1e-9
    told = []
    better, log = lns.improve_split(table, request, start, 30, OPTIONS, on_better=lambda r: told.append(r.objective),
                                    sub_solve=pipeline_solve)
    assert log.workers == 2 and log.epochs >= 1
    assert told[0] == pytest.approx(f + m)
    v = verify_release(frame, better.table, qi, [ma.KAnonymity(2)], recoding=recoding)
    assert v.cost == pytest.approx(better.objective, abs=1e-9) and better.objective <= f + m + 1e-9


def test_a_half_that_cannot_read_its_cells_searches_on_one_core(two_cores):
    """A class released as ``a,b,c`` holds no ``c``: the half holding it has no such cell (its values are a and
    b), so the search does not split and searches the whole table on one core, to the brute-force optimum."""
    frame = pd.DataFrame({"y": list("aaaaaab") + list("ccccc"), "z": ["u"] * 12})
    recoding = ma.Generalization(value_sets=("y",))
    table = ma.Table.from_frame(frame, ["y", "z"])
    request = ma.Request(ma.KAnonymity(2), recoding=recoding)
    start = Release.verified(table, request, frame.assign(y=["a,b,c"] * 7 + ["c"] * 5))
    better, log = lns.improve_split(table, request, start, 20, OPTIONS, sub_solve=pipeline_solve)
    assert log.epochs == 0 and better.objective < start.objective
    expected = brute_force(frame.to_numpy(), [ma.KAnonymity(2)], recoding=recoding, columns=["y", "z"])[0]
    assert better.objective == pytest.approx(float(expected))


@pytest.mark.parametrize("beside", [True, False])
def test_the_reduction_gets_the_resolved_share(monkeypatch, beside):
    """The solve hands the reduction the share ``"auto"`` resolves to, and its table is verified either way."""
    from milp_anon import reduction

    seen = []

    class Spy(reduction.LagrangianReduction):
        def __init__(self, instance, request, solver, *args, **kwargs):
            seen.append(solver.lns)
            super().__init__(instance, request, solver, *args, **kwargs)

    monkeypatch.setattr(reduction, "LagrangianReduction", Spy)
    monkeypatch.setattr(reduction, "keeps_whole_limit", lambda request, solver, n_pairs: beside)
    frame = pd.DataFrame({"a": list("xxyyzzxy"), "b": list("11223312")})
    res = ma.anonymize(frame, ma.KAnonymity(2), qi=["a", "b"], time_limit=30)
    assert seen == [pipeline.AUTO_LNS_SHARE if beside else 0.0]
    assert res.verified and res.status == ma.Status.OPTIMAL
