"""milp_anon.solvers.mps: the package's own MPS writer (the instance library's files under every HiGHS release)."""

import os
from importlib import metadata

import highspy
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from milp_anon.solvers.highs import new_highs
from milp_anon.solvers.mps import write_mps

HIGHS_116 = tuple(int(x) for x in metadata.version("highspy").split(".")[:2]) >= (1, 16)

#: numbers that 15 significant digits do not give back (HiGHS 1.15's writer) and a few exact ones
VALUES = [1.0, -1.0, 2.0, 5.0, -11.0, 0.5, 1 / 3, 0.1, 4 / 99, -2.75, 1e-5, 123456.789, 7e12]


@st.composite
def models(draw, free_rows=True, empty_columns=True):
    """A random model with every row kind (E, L, G, ranged, and N when ``free_rows``), every bound kind of
    continuous and integer columns, empty columns of zero cost (when ``empty_columns``), and numbers that
    15 digits do not give back."""
    n_rows, n_cols = draw(st.integers(1, 6)), draw(st.integers(1, 8))
    num = st.sampled_from(VALUES)
    inf = np.inf
    cols = draw(st.lists(st.tuples(st.sampled_from(["lo0", "fx", "fr", "box", "mi", "lo", "bv", "int", "li"]),
                                   num, st.booleans()), min_size=n_cols, max_size=n_cols))
    lower, upper, integer, cost = [], [], [], []
    for kind, v, has_cost in cols:
        lo, up, is_int = {"lo0": (0.0, inf, False), "fx": (v, v, False), "fr": (-inf, inf, False),
                          "box": (min(0.0, v), max(0.0, v) + 1.0, False), "mi": (-inf, v, False),
                          "lo": (v, inf, False), "bv": (0.0, 1.0, True), "int": (0.0, 9.0, True),
                          "li": (-3.0, inf, True)}[kind]
        lower.append(lo)
        upper.append(up)
        integer.append(is_int)
        cost.append(v if has_cost else 0.0)
    dense = np.array(draw(st.lists(st.lists(st.sampled_from([0.0, 0.0] + VALUES), min_size=n_rows,
                                            max_size=n_rows), min_size=n_cols, max_size=n_cols)))
    kinds = ["E", "L", "G", "R"] + (["N"] if free_rows else [])
    rlo, rup = [], []
    for kind, v in draw(st.lists(st.tuples(st.sampled_from(kinds), num), min_size=n_rows, max_size=n_rows)):
        rlo.append({"E": v, "L": -inf, "G": v, "R": v - 2.5, "N": -inf}[kind])
        rup.append({"E": v, "L": v, "G": inf, "R": v, "N": inf}[kind])
    if not empty_columns:
        for j in range(n_cols):
            if cost[j] == 0 and not dense[j].any():
                dense[j, 0] = 1.0
    start = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))])
    index = np.concatenate([np.flatnonzero(dense[j]) for j in range(n_cols)]).astype(np.int64)
    value = np.concatenate([dense[j][dense[j] != 0] for j in range(n_cols)])
    return dict(cost=np.array(cost), lower=np.array(lower), upper=np.array(upper), integer=np.array(integer),
                row_lower=np.array(rlo), row_upper=np.array(rup), start=start, index=index, value=value)


def _to_highs(a):
    h = new_highs()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = a["cost"].shape[0], a["row_lower"].shape[0]
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = a["cost"], a["lower"], a["upper"]
    lp.row_lower_, lp.row_upper_ = a["row_lower"], a["row_upper"]
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = lp.num_col_, lp.num_row_
    lp.a_matrix_.start_, lp.a_matrix_.index_ = a["start"].astype(np.int32), a["index"].astype(np.int32)
    lp.a_matrix_.value_ = a["value"]
    if a["integer"].any():
        lp.integrality_ = [highspy.HighsVarType.kInteger if f else highspy.HighsVarType.kContinuous
                           for f in a["integer"]]
    h.passModel(lp)
    return h


@settings(max_examples=60, deadline=None)
@given(models(free_rows=False))
def test_highs_reads_the_file_back_as_the_same_model(tmp_path_factory, a):
    """Every number reads back as itself (``%.17g``), under any HiGHS release: costs, bounds, matrix and
    integrality, empty columns included."""
    path = str(tmp_path_factory.mktemp("mps") / "m.mps")
    write_mps(a, path)
    h = new_highs()
    assert h.readModel(path) in (highspy.HighsStatus.kOk, highspy.HighsStatus.kWarning)
    lp = h.getLp()
    np.testing.assert_array_equal(np.asarray(lp.col_cost_), a["cost"])
    np.testing.assert_array_equal(np.asarray(lp.col_lower_), a["lower"])
    np.testing.assert_array_equal(np.asarray(lp.col_upper_), a["upper"])
    np.testing.assert_array_equal(np.asarray(lp.row_lower_), a["row_lower"])
    np.testing.assert_array_equal(np.asarray(lp.row_upper_), a["row_upper"])
    np.testing.assert_array_equal(np.asarray(lp.a_matrix_.start_), a["start"])
    np.testing.assert_array_equal(np.asarray(lp.a_matrix_.index_), a["index"])
    np.testing.assert_array_equal(np.asarray(lp.a_matrix_.value_), a["value"])
    read_int = np.array([v == highspy.HighsVarType.kInteger for v in lp.integrality_]) if len(lp.integrality_) \
        else np.zeros(a["cost"].shape[0], dtype=bool)
    np.testing.assert_array_equal(read_int, a["integer"])


@pytest.mark.skipif(not HIGHS_116, reason="HiGHS before 1.16 writes 15 significant digits")
@settings(max_examples=60, deadline=None)
@given(models(empty_columns=False))
def test_the_bytes_are_highs_1_16s_own(tmp_path_factory, a):
    """Byte for byte what HiGHS 1.16's writer gives for the same model, free rows included (empty columns
    of zero cost excluded: :mod:`milp_anon.solvers.mps` gives them their integer markers, HiGHS does not)."""
    d = tmp_path_factory.mktemp("mps")
    write_mps(a, str(d / "ours.mps"))
    h = _to_highs(a)
    h.writeModel(str(d / "highs.mps"))
    assert (d / "ours.mps").read_bytes() == (d / "highs.mps").read_bytes()


def test_a_package_model_is_written_as_highs_1_15_wrote_it_when_its_numbers_are_whole(tmp_path):
    """A committed library file written by HiGHS 1.15 (whole numbers only: 15 and 17 digits agree) is
    the writer's output for the same instance (the full check is ``test_instances.py``'s regeneration)."""
    import gzip

    from milp_anon.api import Request
    from milp_anon.bench.suite import build_problem, load_suite
    from milp_anon.pipeline.solve import build_model
    root = os.path.join(os.path.dirname(__file__), "..", "benchmarks")
    spec = next(s for s in load_suite(os.path.join(root, "suites", "library.toml")).instances
                if s["name"] == "adult-2qi-k5")
    p = build_problem(spec)
    am = build_model(p.table, Request(p.criteria, recoding=p.recoding, **p.model_options))
    write_mps(am.lm.arrays(), str(tmp_path / "m.mps"))
    with gzip.open(os.path.join(root, "instances", "adult-2qi-k5.mps.gz"), "rb") as fh:
        assert (tmp_path / "m.mps").read_bytes() == fh.read()
