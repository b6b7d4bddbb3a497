"""Shared helpers: random small tables and a from-the-definition cost."""

import numpy as np
import pandas as pd
from hypothesis import strategies as st

import milp_anon as ma

LETTERS = "abc"


@st.composite
def small_tables(draw, n=(4, 10), m=(1, 4), alphabet=(2, 3), k=(2, 4)):
    """(frame, qi, k): a random table of letters and a k."""
    n_ = draw(st.integers(*n))
    m_ = draw(st.integers(*m))
    a = draw(st.integers(*alphabet))
    k_ = draw(st.integers(*k))
    cells = draw(st.lists(st.lists(st.integers(0, a - 1), min_size=m_, max_size=m_), min_size=n_, max_size=n_))
    qi = [f"q{c}" for c in range(m_)]
    frame = pd.DataFrame([[LETTERS[v] for v in row] for row in cells], columns=qi)
    return frame, qi, k_


def frame_from_array(arr, prefix="q"):
    arr = np.asarray(arr)
    return pd.DataFrame(arr.astype(str), columns=[f"{prefix}{c}" for c in range(arr.shape[1])])


def solve_k(frame, qi, k, **kw):
    return ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k), **kw)


# --- sensitive criteria ---------------------------------------------------------------
#: a two-level hierarchy over the sensitive values 1..4 (used for hierarchical EMD)
SENS_HIERARCHY = {"1": ["low", "*"], "2": ["low", "*"], "3": ["high", "*"], "4": ["high", "*"]}
T_GRID = [0, 0.1, 0.125, 0.2, 0.25, 0.3, 1 / 3, 0.4, 0.5, 0.6, 0.75, 1]


@st.composite
def sensitive_tables(draw, n=(4, 9), m=(1, 3), alphabet=(2, 3), values=(2, 4), k=(1, 3)):
    """(frame, qi, k): random QI columns q*, and a sensitive column 's' over '1'..'4'."""
    frame, qi, k_ = draw(small_tables(n=n, m=m, alphabet=alphabet, k=k))
    V = draw(st.integers(*values))
    s = draw(st.lists(st.integers(1, V), min_size=len(frame), max_size=len(frame)))
    frame = frame.copy()
    frame["s"] = [str(v) for v in s]
    return frame, qi, k_


@st.composite
def line_metric(draw, values):
    """A metric over ``values`` from points on a line at multiples of 1/4 (max distance 1)."""
    vals = sorted(values)
    pts = [0, 4] + [draw(st.integers(0, 4)) for _ in vals[2:]]
    pts = draw(st.permutations(pts))
    return pd.DataFrame([[abs(a - b) / 4 for b in pts] for a in pts], index=vals, columns=vals)


@st.composite
def criteria_for(draw, frame, kinds=None):
    """One sensitive criterion on column 's' of ``frame`` (kind drawn from ``kinds``)."""
    kinds = kinds or ["p", "frequency", "distinct", "recursive", "t-equal", "t-ordered", "t-hier", "t-matrix",
                      "t-reference"]
    kind = draw(st.sampled_from(kinds))
    present = sorted(set(frame["s"]))
    if kind == "t-matrix" and len(present) < 2:
        kind = "t-equal"
    if kind == "p":
        return ma.PSensitivity(draw(st.integers(1, 3)))
    if kind == "frequency":
        return ma.LDiversity(draw(st.sampled_from([1, 1.5, 2, 2.5, 3])))
    if kind == "distinct":
        return ma.LDiversity(draw(st.integers(1, 3)), kind="distinct")
    if kind == "recursive":
        return ma.LDiversity(draw(st.integers(1, 3)), kind="recursive", c=draw(st.sampled_from([1, 1.5, 2, 3])))
    t = draw(st.sampled_from(T_GRID))
    if kind == "t-equal":
        return ma.TCloseness(t)
    if kind == "t-ordered":
        return ma.TCloseness(t, distance="ordered")
    if kind == "t-hier":
        return ma.TCloseness(t, distance="hierarchical", hierarchy=SENS_HIERARCHY)
    if kind == "t-reference":
        # a given distribution over '1'..'4': values the table lacks, table values it lacks (count 0)
        counts = draw(st.lists(st.integers(0, 4), min_size=4, max_size=4).filter(any))
        ref = {"s": {str(v + 1): c for v, c in enumerate(counts) if c or draw(st.booleans())}}
        distance = draw(st.sampled_from(["equal", "ordered", "hierarchical"]))
        return ma.TCloseness(t, distance=distance, hierarchy=SENS_HIERARCHY if distance == "hierarchical" else None,
                             reference=ref)
    return ma.TCloseness(t, distance=draw(line_metric(present)))


def brute(frame, qi, criteria):
    from milp_anon.exact import brute_force

    return brute_force(frame[qi].to_numpy(), criteria, {"s": frame["s"].tolist()})[0]


@st.composite
def random_hierarchy(draw, values, max_height=3):
    """A random ARX-style hierarchy over ``values`` (dict value -> [level1, ..., '*'])."""
    H = draw(st.integers(1, max_height))
    nodes = list(values)
    paths = {v: [] for v in values}
    parent_of = {v: v for v in values}
    for lvl in range(1, H):
        groups = draw(st.integers(1, max(1, len(nodes))))
        assign = {n: draw(st.integers(0, groups - 1)) for n in nodes}
        names = {g: f"L{lvl}g{g}" for g in range(groups)}
        for v in values:
            parent_of[v] = names[assign[parent_of[v]]]
            paths[v].append(parent_of[v])
        nodes = sorted(set(parent_of[v] for v in values))
    for v in values:
        paths[v].append("*")
    return paths


def hanging_solve(lm, options, grid, hint, on_improving=None, stop_bound=None):
    """A HiGHS stand-in that reports the optimum as an incumbent and then never returns (tests the kill)."""
    import time
    from types import SimpleNamespace

    from milp_anon.solvers.highs import solve_highs

    out = solve_highs(lm, options, grid, hint)
    on_improving(SimpleNamespace(data_out=SimpleNamespace(mip_solution=out.x, objective_function_value=out.objective,
                                                          mip_dual_bound=out.objective - 1)))
    time.sleep(3600)


def bound_then_hanging_solve(lm, options, grid, hint, on_improving=None, stop_bound=None, on_progress=None):
    """A stand-in that tells the parent two dual bounds and a log of root-cut steps (as
    :func:`milp_anon.solvers.root_cuts.solve_by_root_cuts` does after its cuts' LP), finds no solution and never
    returns (tests that a kill keeps the best bound told)."""
    import time

    on_progress(solver_bound=2.25, root_cuts={"cuts": 3, "cut_bound": 2.25})
    on_progress(incumbent=9.0, solver_bound=1.5)  # a weaker one later (HiGHS's on another model) is not taken
    time.sleep(3600)


def solve_with_oracle(frame, qi, criteria, recoding, N, oracle=None):
    """Solve ``frame`` (sensitive column 's') for ``criteria`` under ``recoding`` withholding at most ``N``
    records, and ask ``oracle`` (default: brute force) the same question from the definitions.

    Returns ``(result, expected, witness)``; when the oracle finds no release the result must be
    ``infeasible`` (asserted here) and ``expected`` is ``None``."""
    import milp_anon as ma
    from milp_anon.exact import brute_force

    table = ma.Table.from_frame(frame, qi, "s")
    r = ma.anonymize(table, *criteria, recoding=recoding, max_suppressed_records=N)
    expected, witness = (oracle or brute_force)(frame[qi].to_numpy(), criteria, {"s": frame["s"].tolist()},
                                                recoding=recoding, columns=qi, max_withheld=N)
    if expected is None:
        assert r.status == "infeasible", r
    return r, expected, witness


@st.composite
def generalization_cases(draw):
    frame, qi, k = draw(small_tables(n=(4, 9), m=(1, 3), alphabet=(2, 3), k=(2, 3)))
    hier = {}
    for c in qi:
        if draw(st.booleans()) or len(hier) == 0:
            hier[c] = draw(random_hierarchy(list(LETTERS[:3])))
    cost = draw(st.sampled_from(["suppression", "height", "lm", "weights"]))
    if cost == "weights":
        cost = {}
        for c, h in hier.items():
            H = len(next(iter(h.values())))
            steps = [draw(st.sampled_from([0, 0.5, 1, 2])) for _ in range(H)]
            w = [0.0]
            for s_ in steps:
                w.append(w[-1] + s_)
            cost[c] = w
    return frame, qi, k, ma.Generalization(hier, cost=cost)


def limit_echo_solve(lm, options, grid, hint, on_improving=None, stop_bound=None):
    """A HiGHS stand-in that solves nothing and returns, as its solver status, the time limit it was given."""
    from milp_anon.runtime.status import Status
    from milp_anon.solvers import SolveOutcome

    return SolveOutcome(Status.NO_SOLUTION, None, None, None, repr(options.time_limit), 0.0)


def ceiling_echo_solve(lm, options, grid, hint, on_improving=None, stop_bound=None, ceiling=None):
    """A HiGHS stand-in that waits (at most 30 s) until the ceiling the parent sends falls below 6, and returns the
    values it read, in order, as its solver status."""
    import os
    import time

    from milp_anon.runtime.status import Status
    from milp_anon.solvers import SolveOutcome

    seen = []
    t0 = time.perf_counter()
    marker = os.environ.get("MILP_ANON_TEST_SEEN")  # tells the parent's test what this child has read
    while time.perf_counter() - t0 < 30:
        value = ceiling()
        if not seen or value != seen[-1]:
            seen.append(value)
            if marker and value == 9.0:
                open(marker, "w").close()
        if value < 6:
            break
        time.sleep(0.05)
    return SolveOutcome(Status.NO_SOLUTION, None, None, None, repr(seen), 0.0)


def duplicated_case(rng):
    """(frame, k): a table of 60–140 rows repeating 15–40 random QI vectors (3–5 columns, 2–3 values), where
    HiGHS's root separates cuts, and a k of 3–6."""
    m = int(rng.integers(3, 6))
    n_types, n_rows, a = int(rng.integers(15, 40)), int(rng.integers(60, 140)), int(rng.integers(2, 4))
    vectors = rng.integers(0, a, size=(n_types, m))
    rows = vectors[rng.choice(n_types, size=n_rows, p=rng.dirichlet(np.ones(n_types) * 0.5))]
    return frame_from_array(rows), int(rng.integers(3, 7))


def duplicated_tables(seed, count):
    """``count`` pairs (table, k) of :func:`duplicated_case` (every column a QI), from ``seed``."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        frame, k = duplicated_case(rng)
        yield ma.Table.from_frame(frame, list(frame.columns)), k


def every_round_through_root_cuts(mp, **tuning):
    """Reduction rounds of any size through their root's cuts; no polish and no LP rounding, so that rounds run
    and stop at their G. Returns the :class:`~milp_anon.Tuning` to solve with (``lp_rounding`` off, and ``tuning``'s
    fields)."""
    from milp_anon import reduction

    mp.setattr(reduction, "ROOT_CUTS_MIN_COLUMNS", 0)
    mp.setattr(reduction, "ROUND_POLISH", 0.0)
    return ma.Tuning(lp_rounding=False, **tuning)


def quiet_highs(lm):
    """HiGHS holding ``lm``, silent, presolve off (as the package's proofs); ``threads`` left at 0, since the tests
    run it on their own thread (:mod:`milp_anon.solvers.highs_banner`)."""
    h = lm.to_highs()
    for name, value in (("output_flag", False), ("presolve", "off")):
        h.setOptionValue(name, value)
    return h


def memory_hungry_solve(lm, options, grid, hint, on_improving=None, stop_bound=None):
    """A stand-in that reports the optimum as an incumbent, then holds 200 MB more every 0.2 s up to 1.2 GB and
    never returns (tests the kill at the memory allowed)."""
    import time

    import numpy as np

    _tell_optimum(lm, options, grid, hint, on_improving)
    held = []
    for _ in range(6):
        held.append(np.ones(25_000_000))  # 200 MB, touched
        time.sleep(0.2)
    time.sleep(3600)


def idle_solve(lm, options, grid, hint, on_improving=None, stop_bound=None):
    """A stand-in that reports the optimum as an incumbent, then waits without growing (tests that memory held
    by another of the caller's processes counts against the cap)."""
    import time

    _tell_optimum(lm, options, grid, hint, on_improving)
    time.sleep(3600)


def _tell_optimum(lm, options, grid, hint, on_improving):
    """Solve ``lm`` and tell the optimum to ``on_improving`` as an incumbent with the bound one below it."""
    from types import SimpleNamespace

    from milp_anon.solvers.highs import solve_highs

    out = solve_highs(lm, options, grid, hint)
    on_improving(SimpleNamespace(data_out=SimpleNamespace(mip_solution=out.x, objective_function_value=out.objective,
                                                          mip_dual_bound=out.objective - 1)))


def dying_column_generation(job, options, grid, hint=None, on_improving=None, stop_bound=None, on_progress=None):
    """A stand-in for :func:`milp_anon.bounds.lagrangian.column_generation_job` whose process dies at once (tests the
    bounds a reduction keeps when the column generation beside its search gives nothing back)."""
    import os

    os._exit(3)


def emd_transport(p, q, d) -> float:
    """EMD as the plain transportation LP ``min Σ d_στ F_στ`` with margins ``p`` and ``q``, in floats (HiGHS):
    a cross-check of the exact forms that shares nothing with them."""
    import highspy

    V = len(p)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = V * V, 2 * V
    lp.col_cost_ = np.asarray(d, dtype=float).ravel()
    lp.col_lower_ = np.zeros(V * V)
    lp.col_upper_ = np.full(V * V, highspy.kHighsInf)
    lp.row_lower_ = lp.row_upper_ = np.array([float(x) for x in (*p, *q)])
    idx = np.empty(2 * V * V, dtype=np.int32)  # column (σ, τ) is in supply row σ and demand row V + τ
    idx[0::2] = np.repeat(np.arange(V), V)
    idx[1::2] = V + np.tile(np.arange(V), V)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.arange(0, 2 * V * V + 1, 2, dtype=np.int32)
    lp.a_matrix_.index_ = idx
    lp.a_matrix_.value_ = np.ones(2 * V * V)
    h.passModel(lp)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return float(h.getInfo().objective_function_value)
