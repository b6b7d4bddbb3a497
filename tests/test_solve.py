"""Status mapping: 'optimal' only from HiGHS's own Optimal at zero gap."""

import types as _types

import highspy
import numpy as np
import pandas as pd
import pytest

import milp_anon as ma
from milp_anon.formulations import build, read_assignment
from milp_anon.instance.candidates import suppression_candidates
from milp_anon.instance.instance import Instance
from milp_anon.pipeline import solve as pipeline
from milp_anon.release.verified import Release
from milp_anon.runtime.grid import NO_GRID, ObjectiveGrid, relative_gap
from milp_anon.solvers.highs import map_status as _map_highs
from milp_anon.tables.recoding import Suppression
from milp_anon.tables.rowtypes import RowTypes, Units

S = highspy.HighsModelStatus
INTEGERS = ObjectiveGrid(1)


def suppression_instance(table, k):
    """The instance of k-anonymity by suppression of ``table`` (every closed candidate of support >= k)."""
    types = RowTypes.from_table(table)
    units = Units.of(table, types, False)
    return Instance(table, tuple(Suppression().lattices(table)), types, units, suppression_candidates(types, k))


class FakeHighs:
    def __init__(self, status, obj, bound, feasible=True, cutoff=float("inf")):
        self._status, self._obj, self._bound, self._feasible = status, obj, bound, feasible
        self._cutoff = cutoff

    def getOptionValue(self, name):
        assert name == "objective_bound"
        return 0, self._cutoff

    def getModelStatus(self):
        return self._status

    def modelStatusToString(self, s):
        return str(s)

    def getInfo(self):
        return _types.SimpleNamespace(primal_solution_status=2 if self._feasible else 0,
                                      objective_function_value=self._obj, mip_dual_bound=self._bound)

    def getSolution(self):
        return _types.SimpleNamespace(col_value=[0.0])

    def getLp(self):
        return _types.SimpleNamespace(integrality_=[1])


def test_time_limit_is_never_optimal():
    # PuLP maps this to LpStatusOptimal; we must not
    status, x, obj, bound, _ = _map_highs(FakeHighs(S.kTimeLimit, 10.0, 9.2), INTEGERS)
    assert status == "time_limit" and obj == 10.0 and bound == 10.0  # 9.2 rounded up: integral costs
    status, *_ = _map_highs(FakeHighs(S.kTimeLimit, 12.0, 9.2), INTEGERS)
    assert status == "time_limit"


def test_time_limit_without_incumbent():
    status, x, *_ = _map_highs(FakeHighs(S.kTimeLimit, np.inf, -np.inf, feasible=False), INTEGERS)
    assert status == "no_solution" and x is None


def test_optimal_needs_zero_gap():
    assert _map_highs(FakeHighs(S.kOptimal, 10.0, 9.9999999), INTEGERS)[0] == "optimal"
    # integral costs: a bound of 9.5 proves 10 optimal, a bound of 9 does not
    assert _map_highs(FakeHighs(S.kOptimal, 10.0, 9.5), INTEGERS)[0] == "optimal"
    assert _map_highs(FakeHighs(S.kOptimal, 10.0, 9.0), INTEGERS)[0] == "gap_limit"
    # without integral costs, 9.5 is not rounded up
    assert _map_highs(FakeHighs(S.kOptimal, 10.0, 9.5), NO_GRID)[0] == "gap_limit"


def test_cutoff_caps_the_bound():
    # under HiGHS's cutoff (objective_bound) "Optimal" with a solution above it proves only "nothing below the
    # cutoff": HiGHS 1.15.1 said "Optimal 4", dual bound 4, at the cutoff 1.5 where the optimum is 2
    status, _, obj, bound, _ = _map_highs(FakeHighs(S.kOptimal, 4.0, 4.0, cutoff=1.5), INTEGERS)
    assert (status, obj, bound) == ("gap_limit", 4.0, 2.0)
    # a solution below the cutoff: the cutoff changes nothing
    assert _map_highs(FakeHighs(S.kOptimal, 4.0, 4.0, cutoff=4.5), INTEGERS)[:4:3] == ("optimal", 4.0)


def test_gap_helpers():
    assert relative_gap(0.0, 0.0) == 0.0
    assert relative_gap(10.0, 8.0) == pytest.approx(0.2)
    assert relative_gap(10.0, None) is None
    assert INTEGERS.ceil(8.0000001) == 8.0
    assert INTEGERS.ceil(7.2) == 8.0
    assert INTEGERS.ceil(-np.inf) is None and INTEGERS.ceil(None) is None
    # on the grid, objective and bound are equal within half a step; one step apart they are not
    assert INTEGERS.gap(17000.0000003, 17000.0) == 0.0 and INTEGERS.gap(17001.0, 17000.0) > 0
    assert ObjectiveGrid(10**6).gap(1e5, 1e5 - 1e-6) > 0


def test_fractional_solution_is_repaired_exactly():
    """A feasible but fractional LP point (not a vertex) is re-solved as ROW
    ASSIGNMENT for the same y; the result is integral and verifies.

    Rows a,a,a,a,b,b,b,b with k = 2 and candidates 'a', 'b', '*' all used: the
    point g(A,a)=2.5, g(A,*)=1.5, g(B,b)=3.5, g(B,*)=0.5 is feasible for the
    LP; the best integral assignment for that y puts exactly 2 rows into '*'
    (k = 2 forces it), so the repaired cost is 2 (hand count)."""
    frame = pd.DataFrame({"a": list("aaaabbbb")})
    table = ma.Table.from_frame(frame, ["a"])
    request = ma.Request(ma.KAnonymity(2))
    inst = suppression_instance(table, 2)
    types, cands = inst.types, inst.candidates
    am = build(inst, request)
    name = lambda j: "*" if not cands.keep[j, 0] else table.values[0][cands.codes[j, 0]]  # noqa: E731
    tname = lambda i: table.values[0][types.codes[i, 0]]  # noqa: E731
    value = {("a", "a"): 2.5, ("a", "*"): 1.5, ("b", "b"): 3.5, ("b", "*"): 0.5}
    x = np.zeros(am.lm.n_cols)
    x[am.y] = 1.0
    for p, (i, j) in enumerate(zip(am.pair_unit, am.pair_cand)):
        x[am.g[p]] = value[(tname(i), name(j))]
    g, repaired = read_assignment(am, x, request.criteria, ma.SolverOptions())
    assert repaired == "fractional assignment"
    released, groups, cost = am.release(g)
    Release.verified(table, request, released, cost=cost)  # raises if invalid
    assert cost == 2


def test_gap_option_can_only_weaken_the_claim():
    from milp_anon.tables.datasets import ADULT_QI, load_adult

    t = ma.Table.from_frame(load_adult().head(400), list(ADULT_QI[:6]))
    exact = ma.anonymize(t, ma.KAnonymity(4))
    loose = ma.anonymize(t, ma.KAnonymity(4), gap=0.5)
    assert exact.status == "optimal"
    assert loose.status in ("optimal", "gap_limit")
    assert loose.objective >= exact.objective
    if loose.status == "optimal":
        assert loose.objective == exact.objective


@pytest.mark.parametrize("name", ["highs_presolve_aggregator.mps", "highs_presolve_transport.mps"])
def test_highs_presolve_regression_instances(name):
    """Two small models of this toolkit (t-closeness, hierarchical compact form and
    general transport form) on which HiGHS 1.15.1 with presolve reported a wrong
    'Optimal' objective 2; the optimum is 0 (brute force over partitions, CBC and
    HiGHS without presolve agree). The toolkit's default options must give 0."""
    import pathlib

    from milp_anon.solvers.highs import apply_options

    path = str(pathlib.Path(__file__).parent / "data" / name)
    h = highspy.Highs()
    apply_options(h, ma.SolverOptions())
    h.readModel(path)
    h.run()
    assert h.getModelStatus() == S.kOptimal
    assert h.getInfo().objective_function_value == pytest.approx(0.0)


@pytest.mark.parametrize("criteria, recoding", [
    ([ma.KAnonymity(3)], None),
    ([ma.KAnonymity(2), ma.LDiversity(2)], None),
    ([ma.KAnonymity(3)], "patterns"),
    ([ma.KAnonymity(2)], "generalization"),
])
def test_never_empty_handed(monkeypatch, criteria, recoding):
    """A solver stop without an incumbent returns the best verified heuristic table, as time_limit."""
    from milp_anon.solvers import SolveOutcome

    frame = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx"), "s": list("1212121212")})
    if recoding == "patterns":
        recoding = ma.Patterns(["11", "10", "00"])
    elif recoding == "generalization":
        recoding = ma.Generalization({"a": {"a": ["ab", "*"], "b": ["ab", "*"], "c": ["cd", "*"],
                                            "d": ["cd", "*"]}})
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    exact = ma.anonymize(table, *criteria, recoding=recoding)
    from milp_anon import reduction
    from milp_anon.pipeline import row_generation

    for stage in (pipeline, reduction, row_generation):  # the whole model, the reduction's rounds, R(A)
        monkeypatch.setattr(stage, "solve_model",
                            lambda *a, **k: SolveOutcome("no_solution", None, None, 1.0, "Time limit reached", 1.0))
    for warm in ("greedy", "none"):  # a greedy warm start is a (start, cost) pair, never the fallback itself
        r = ma.anonymize(table, *criteria, recoding=recoding, time_limit=1, reduction="none", warm_start=warm)
        assert r.verified and r.table is not None
        assert r.fallback in ("suppression greedy", "pattern greedy", "pattern greedy with criteria",
                              "pattern greedy with criteria, refined", "suppression greedy, refined", "level greedy",
                              "mondrian", "whole table", "whole table, refined")
        assert r.source == r.fallback
        if r.status == "optimal":  # sensitive criteria: the relaxation's bound reaches the heuristic's table
            assert len(criteria) > 1 and r.objective == exact.objective == r.bound
        else:
            assert r.status == "time_limit" and r.objective >= exact.objective and r.gap > 0
    if len(criteria) == 1:
        assert r.bound == 1.0 and r.bound_source is None
    else:  # sensitive criteria under a time limit: the k-anonymity LP bound when it is larger
        # (the solver's bound there is that of a relaxation R(A) of the row generation, named as such)
        assert 1.0 <= r.bound <= exact.objective
        assert (r.bound == 1.0) == (r.bound_source == pipeline.ROW_GENERATION_SOURCE)
    # with the Lagrangian reduction (k alone): the bound is the larger of the LP bound and the solver's
    if len(criteria) == 1 and recoding is None:
        r = ma.anonymize(table, *criteria, recoding=recoding, time_limit=1, reduction="lagrangian")
        assert r.verified and r.table is not None and r.fallback
        assert r.reduction.lp_bound - 1e-9 <= r.bound <= exact.objective <= r.objective
        assert r.status == ("optimal" if r.objective == r.bound else "time_limit")


def test_isolated_solve_matches_in_process():
    frame = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx")})
    table = ma.Table.from_frame(frame, ["a", "b"])
    a = ma.anonymize(table, ma.KAnonymity(3))
    b = ma.anonymize(table, ma.KAnonymity(3), time_limit=30, isolate="always")
    assert a.status == b.status == "optimal" and a.objective == b.objective and b.verified


def test_hard_time_limit_kills_a_hung_solver_and_keeps_the_incumbent():
    """HiGHS stuck past its limit (seen in its root IPM): the process is killed, the incumbent kept."""
    import time

    from helpers import hanging_solve

    from milp_anon.solvers.highs import watchdog_margin
    from milp_anon.solvers.isolated import hard_limit_margin, solve_isolated

    frame = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx")})
    table = ma.Table.from_frame(frame, ["a", "b"])
    am = pipeline.build_model(table, ma.Request(ma.KAnonymity(3)))
    opts = ma.SolverOptions(time_limit=1)
    t0 = time.perf_counter()
    out = solve_isolated(am.lm, opts, INTEGERS, None, solve_fn=hanging_solve)
    wall = time.perf_counter() - t0
    assert wall < 1 + watchdog_margin(1) + hard_limit_margin(1) + 10
    assert out.status == "time_limit" and out.x is not None and out.bound == out.objective - 1
    assert "killed" in out.solver_status


def test_the_caller_s_end_kills_a_solver_before_its_own_margins_run_out():
    """A child given the rest of its caller's limit (the reduction's last round) and overrunning it: killed at the
    caller's end (``hard_end``), not only after its own limit's margins (15 % of a long limit), keeping the
    incumbent and its bound (without it, the kill after the margins: the test above)."""
    import time

    from helpers import hanging_solve

    from milp_anon.solvers.isolated import solve_isolated

    frame = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx")})
    am = pipeline.build_model(ma.Table.from_frame(frame, ["a", "b"]), ma.Request(ma.KAnonymity(3)))
    t0 = time.perf_counter()
    out = solve_isolated(am.lm, ma.SolverOptions(time_limit=300), INTEGERS, None, solve_fn=hanging_solve,
                         hard_end=t0 + 4.0)
    wall = time.perf_counter() - t0
    grace = ma.Tuning().hard_end_grace
    assert 4.0 + grace <= wall < 4.0 + grace + 10  # its own margins: after 345 s
    assert out.status == "time_limit" and out.x is not None and out.bound == out.objective - 1
    assert "killed at the caller's end" in out.solver_status


def test_a_solver_outgrowing_the_memory_allowed_is_killed_and_keeps_its_incumbent():
    """``max_memory_bytes``: the child is killed as soon as it and this process hold more than allowed, long before
    its time limit, keeping the incumbent and bound it told; the outcome says why (``memory_killed``)."""
    import time

    from helpers import memory_hungry_solve

    from milp_anon.runtime.memory import resident_memory_bytes
    from milp_anon.solvers.isolated import solve_isolated

    frame = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx")})
    am = pipeline.build_model(ma.Table.from_frame(frame, ["a", "b"]), ma.Request(ma.KAnonymity(3)))
    cap = resident_memory_bytes() + 0.7 * 2**30  # the child's interpreter and two or three of its 200-MB steps
    t0 = time.perf_counter()
    out = solve_isolated(am.lm, ma.SolverOptions(time_limit=300), INTEGERS, None, solve_fn=memory_hungry_solve,
                         max_memory_bytes=cap, hard_end=t0 + 30.0)
    assert time.perf_counter() - t0 < 30
    assert out.memory_killed and "killed at the memory allowed" in out.solver_status
    assert out.status == "time_limit" and out.x is not None and out.bound == out.objective - 1
    # without a cap the same child is killed at its time limit only (here: by its caller's end)
    out = solve_isolated(am.lm, ma.SolverOptions(time_limit=300), INTEGERS, None, solve_fn=memory_hungry_solve,
                         hard_end=time.perf_counter() + 2.0)
    assert not out.memory_killed and "killed at the caller's end" in out.solver_status


def test_memory_held_by_another_process_of_the_run_counts_against_the_cap():
    """The cap is the run's, not the child's alone: a sibling process of this one (as a large-neighbourhood
    sub-model's beside a round) holding 1 GiB gets a small child killed under a cap of this process plus
    0.6 GiB; counting this process and the child alone (as before) it ran to its caller's end."""
    import subprocess
    import sys
    import time

    from helpers import idle_solve

    from milp_anon.runtime.memory import resident_memory_bytes
    from milp_anon.solvers.isolated import solve_isolated

    frame = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx")})
    am = pipeline.build_model(ma.Table.from_frame(frame, ["a", "b"]), ma.Request(ma.KAnonymity(3)))
    cap = resident_memory_bytes() + 0.6 * 2**30
    sibling = subprocess.Popen([sys.executable, "-c", "import time; b = b'x' * (1 << 30); time.sleep(120)"])
    try:
        t0 = time.perf_counter()
        while resident_memory_bytes(sibling.pid) < 0.9 * 2**30 and time.perf_counter() - t0 < 30:
            time.sleep(0.05)
        t0 = time.perf_counter()
        out = solve_isolated(am.lm, ma.SolverOptions(time_limit=300), INTEGERS, None, solve_fn=idle_solve,
                             max_memory_bytes=cap, hard_end=t0 + 20.0)
        assert time.perf_counter() - t0 < 20
        # (killed at its first read, before it told an incumbent: the sibling alone is past the cap)
        assert out.memory_killed and "killed at the memory allowed" in out.solver_status
    finally:
        sibling.kill()
        sibling.wait()


def test_the_whole_model_is_given_its_stage_s_end_as_its_hard_end(monkeypatch):
    """The whole model's solve gets the end of the time left to it as its hard end (its process is killed just
    after it at the latest); with no limit, none."""
    import time

    frame = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx")})
    table = ma.Table.from_frame(frame, ["a", "b"])
    ends, real = [], pipeline.solve_model

    def recording(*args, hard_end=None, **kwargs):
        ends.append((hard_end, time.perf_counter(), args[1].time_limit))
        return real(*args, hard_end=hard_end, **kwargs)

    monkeypatch.setattr(pipeline, "solve_model", recording)
    t0 = time.perf_counter()
    r = ma.anonymize(table, ma.KAnonymity(3), reduction="none", time_limit=60)
    assert r.status == "optimal" and len(ends) == 1
    end, called, limit = ends[0]
    assert 0 < limit <= 60 and end == pytest.approx(called + limit, abs=0.5)
    assert end <= t0 + 60 + 0.5
    ends.clear()
    ma.anonymize(table, ma.KAnonymity(3), reduction="none")
    assert ends[0][0] is None


def test_a_killed_solver_keeps_the_best_bound_it_told():
    """A child that overruns its limit after proving a bound (through its root's cuts, say) and before any
    solution: the kill keeps the best bound it told, on the grid, and the log of its steps."""
    from helpers import bound_then_hanging_solve

    from milp_anon.solvers.isolated import solve_isolated

    frame = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx")})
    am = pipeline.build_model(ma.Table.from_frame(frame, ["a", "b"]), ma.Request(ma.KAnonymity(3)))
    out = solve_isolated(am.lm, ma.SolverOptions(time_limit=1), INTEGERS, None, solve_fn=bound_then_hanging_solve)
    assert out.status == "no_solution" and out.x is None and "killed" in out.solver_status
    assert out.bound == 3.0 and out.root_cuts == {"cuts": 3, "cut_bound": 2.25}


def test_the_ceiling_known_to_the_parent_reaches_the_child_as_it_falls(tmp_path, monkeypatch):
    """A table found beside an isolated solve (the search beside a round): each lower cost reaches the child's
    solver while it runs, which reads it as ``ceiling``; a solver without that keyword is not given it."""
    from helpers import ceiling_echo_solve, limit_echo_solve

    from milp_anon.solvers.isolated import solve_isolated

    frame = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx")})
    am = pipeline.build_model(ma.Table.from_frame(frame, ["a", "b"]), ma.Request(ma.KAnonymity(3)))
    marker = tmp_path / "seen"
    monkeypatch.setenv("MILP_ANON_TEST_SEEN", str(marker))  # the child says when it has read 9: no race on its start
    # the search finds a cheaper table once the child runs with the first one
    out = solve_isolated(am.lm, ma.SolverOptions(time_limit=60), INTEGERS, None, solve_fn=ceiling_echo_solve,
                         ceiling=lambda: 5.0 if marker.exists() else 9.0)
    seen = eval(out.solver_status)
    assert seen[-1] == 5.0 and all(v in (float("inf"), 9.0, 5.0) for v in seen) and 9.0 in seen
    out = solve_isolated(am.lm, ma.SolverOptions(time_limit=30), INTEGERS, None, solve_fn=limit_echo_solve,
                         ceiling=lambda: 5.0)
    assert 0 < float(out.solver_status) < 30


def test_the_isolated_solver_s_limit_counts_its_own_start_up():
    """The child's solver gets the parent's limit less the child's start-up (an interpreter, imports, the model
    read back), so a round's limit covers its whole process, not only the solver's run."""
    from helpers import limit_echo_solve

    from milp_anon.solvers.isolated import solve_isolated

    frame = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx")})
    am = pipeline.build_model(ma.Table.from_frame(frame, ["a", "b"]), ma.Request(ma.KAnonymity(3)))
    out = solve_isolated(am.lm, ma.SolverOptions(time_limit=30), INTEGERS, None, solve_fn=limit_echo_solve)
    assert 0 < float(out.solver_status) < 30


@pytest.mark.parametrize("hint, user, expected", [
    (True, None, False),  # a start: the jump heuristic is off
    (False, None, True),  # no start: HiGHS's default
    (True, True, True),   # the caller's own option wins
])
def test_the_feasibility_jump_is_off_in_a_mip_given_a_start(monkeypatch, hint, user, expected):
    """HiGHS's feasibility jump ignores the time limit (7-8 s on a 389 k-column round): a MIP given a start,
    whose incumbent it already has, runs without it, unless the caller's ``highs_options`` name it."""
    from milp_anon.search.starts import whole_table_start
    from milp_anon.solvers import highs as highs_module

    made = []

    def recorded():
        h = highspy.Highs()
        made.append(h)
        return h

    monkeypatch.setattr(highs_module, "new_highs", recorded)
    frame = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx")})
    am = pipeline.build_model(ma.Table.from_frame(frame, ["a", "b"]), ma.Request(ma.KAnonymity(3)))
    options = ma.SolverOptions(highs_options={} if user is None else {highs_module.FEASIBILITY_JUMP: user})
    out = highs_module.solve_highs(am.lm, options, INTEGERS, whole_table_start(am) if hint else None)
    assert out.status == "optimal"
    assert made[-1].getOptionValue(highs_module.FEASIBILITY_JUMP)[1] is expected


def test_time_left_takes_the_elapsed_wall_clock_off_the_limit():
    from milp_anon.solvers.highs import MIN_SOLVE_SECONDS
    from milp_anon.solvers.worker import time_left

    opts = ma.SolverOptions(time_limit=10)
    assert time_left(opts, 100.0, 103.5).time_limit == 6.5
    assert time_left(opts, 100.0, 99.0).time_limit == 10  # a clock stepped back takes nothing off
    assert time_left(opts, 100.0, 130.0).time_limit == MIN_SOLVE_SECONDS  # used up: the solver stops at once
    assert time_left(ma.SolverOptions(), 100.0, 130.0).time_limit is None


def test_time_limit_releases_the_better_heuristic(monkeypatch):
    """A poor incumbent at the time limit (the whole-table start) is replaced by a better verified heuristic."""
    from milp_anon.solvers import SolveOutcome

    frame = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx")})
    table = ma.Table.from_frame(frame, ["a", "b"])
    request = ma.Request(ma.KAnonymity(2), reduction="none")  # its whole-table start
    real = pipeline.solve_model

    def whole_table_only(lm, options, grid=INTEGERS, hint=None, **_):
        h = real(lm, ma.SolverOptions(), grid, hint=hint)
        x = np.zeros(lm.n_cols)
        idx, val = hint
        x[idx] = val
        return SolveOutcome("time_limit", x, None, 1.0, "Time limit reached", h.seconds)

    monkeypatch.setattr(pipeline, "solve_model", whole_table_only)
    r = request.solve(table, time_limit=5)
    assert r.status == "time_limit" and r.verified and r.fallback
    assert r.objective < 20  # the whole table costs 2 stars x 10 rows


def test_bound_rounded_up_to_the_objective_grid():
    """Generalization costs in halves: HiGHS's bound 2.9999993 for an optimum of 3 is 3 on the 1/2 grid."""
    grid = ObjectiveGrid.of_costs
    assert grid([0, 0.5, 1.5]) == ObjectiveGrid(2) and grid([1 / 3, 2 / 3]) == ObjectiveGrid(3)
    assert grid([0.0, 1.0, 2.0]) == ObjectiveGrid(1) and grid(np.array([0, 1, 2])) == ObjectiveGrid(1)
    assert grid([np.pi]) == NO_GRID
    assert ObjectiveGrid(2).ceil(2.9999993) == 3.0 and ObjectiveGrid(2).ceil(2.6) == 3.0
    assert ObjectiveGrid(2).ceil(2.4) == 2.5 and NO_GRID.ceil(2.4) == pytest.approx(2.4, abs=1e-6)
    # the tolerance only ever weakens a bound, and never by a whole step
    assert ObjectiveGrid(10**6).ceil(0.25) == 0.25 and ObjectiveGrid(1).ceil(17000.001) == 17000.0
    frame = pd.DataFrame({"q0": list("aaaabbb"), "q1": list("bbbbabb")})
    rec = ma.Generalization({"q0": {"a": ["*"], "b": ["*"], "c": ["*"]}}, cost={"q0": [0.0, 0.5]})
    r = ma.anonymize(ma.Table.from_frame(frame, ["q0", "q1"]), ma.KAnonymity(2), recoding=rec)
    assert r.status == "optimal" and r.gap == 0


@pytest.mark.parametrize("bulk", [True, False])
def test_highs_bound_at_a_limit_certifies_a_table_found_elsewhere(monkeypatch, bulk):
    """The whole model stops at a limit without an incumbent but with HiGHS's dual bound; the fallback
    heuristic's table reaches it: optimal through highspy (the same branch-and-bound bound as at its
    Optimal), time_limit through PuLP (only that solver's own Optimal certifies) and when the bound is short.
    By hand: (c, y) joins the two (b, y) rows with a suppressed (3 cells); the a-rows stay (0 cells)."""
    from milp_anon.search.starts import best_heuristic
    from milp_anon.solvers import SolveOutcome

    frame = pd.DataFrame({"a": list("aabbc"), "b": list("xxyyy")})
    table = ma.Table.from_frame(frame, ["a", "b"])
    request = ma.Request(ma.KAnonymity(2), reduction="none")
    assert best_heuristic(table, request).objective == 3 == ma.anonymize(table, ma.KAnonymity(2)).objective
    for bound, expected in ((3.0, "optimal" if bulk else "time_limit"), (2.0, "time_limit")):
        monkeypatch.setattr(pipeline, "solve_model", lambda *a, b=bound, **k: SolveOutcome(
            "time_limit", None, None, b, "Time limit reached", 1.0))
        options = ma.SolverOptions() if bulk else ma.SolverOptions(solver="PULP_CBC_CMD")
        r = request.solve(table, options)
        assert r.verified and r.objective == 3 and r.bound == bound and r.status == expected


@pytest.mark.parametrize("isolate", ["never", "always"])
def test_an_lp_hands_back_its_basis_and_starts_from_one(isolate):
    """An LP's outcome carries its final basis (also from its own process); given as the hint, the simplex
    starts there: from the optimal basis it needs no iteration, from nothing it cannot finish in none."""
    from milp_anon.solvers import Basis, SolverOptions, solve_model

    rng = np.random.default_rng(11)
    frame = pd.DataFrame({"a": rng.integers(0, 4, 50).astype(str), "b": rng.integers(0, 3, 50).astype(str),
                          "s": rng.choice(list("uvwxy"), 50)})
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    request = ma.Request(ma.KAnonymity(3), ma.TCloseness(0.3))
    instance, _, _ = pipeline.prepare(table, request, pipeline.Timings())
    lp = build(instance, request).lm.relaxed()
    opts = SolverOptions(isolate=isolate, time_limit=60)
    first = solve_model(lp, opts)
    assert first.status == ma.Status.OPTIMAL and isinstance(first.basis, Basis)
    assert first.basis.col_status.shape == (lp.n_cols,) and first.basis.row_status.shape == (lp.n_rows,)
    none = SolverOptions(isolate=isolate, time_limit=60, highs_options={"simplex_iteration_limit": 0})
    again = solve_model(lp, none, hint=first.basis)
    assert again.status == ma.Status.OPTIMAL and abs(again.objective - first.objective) <= 1e-6
    assert solve_model(lp, none).status != ma.Status.OPTIMAL
