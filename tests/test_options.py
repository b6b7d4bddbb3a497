"""Budget, output homogeneity and objectives against brute force over set partitions."""

import pandas as pd
import pytest
from helpers import LETTERS, random_hierarchy, small_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.exact import brute_force_options, set_partitions


def test_set_partitions_are_bell_numbers():
    assert [sum(1 for _ in set_partitions(range(n))) for n in range(7)] == [1, 1, 2, 5, 15, 52, 203]


@st.composite
def option_cases(draw):
    objective = draw(st.sampled_from(["cost", "rows", "types"]))
    kind = draw(st.sampled_from(["none", "min", "max", "exact"]))
    # with a lower bound on the output types or their maximum, brute force lists every ancestor of
    # every block's values (over-suppression can add a type): up to 16^n releases per partition
    every_release = objective == "types" or kind in ("min", "exact")
    frame, qi, k = draw(small_tables(n=(3, 5 if every_release else 6), m=(1, 2), alphabet=(2, 3), k=(1, 3)))
    opts = {}
    if objective == "types" or draw(st.booleans()):
        opts["budget"] = draw(st.integers(0, 8))
    t = draw(st.integers(1, 4))
    if kind == "min":
        opts["t_out_min"] = t
    elif kind == "max":
        opts["t_out_max"] = t
    elif kind == "exact":
        opts["t_out"] = t
    recoding = None
    if draw(st.booleans()):
        recoding = ma.Generalization({qi[0]: draw(random_hierarchy(list(LETTERS[:3])))},
                                     cost=draw(st.sampled_from(["suppression", "height"])))
    return frame, qi, k, opts, objective, recoding


@settings(max_examples=200)
@given(option_cases())
def test_options_equal_brute_force(case):
    frame, qi, k, opts, objective, recoding = case
    request = ma.Request(ma.KAnonymity(k), recoding=recoding, objective=objective, **opts)
    r = request.solve(ma.Table.from_frame(frame, qi))
    bf_opts = dict(opts)
    if "t_out" in bf_opts:
        bf_opts["t_out_min"] = bf_opts["t_out_max"] = bf_opts.pop("t_out")
    expected, _ = brute_force_options(frame[qi].to_numpy(), [ma.KAnonymity(k)], recoding=recoding, columns=qi,
                                      objective=objective, **bf_opts)
    if expected is None:
        assert r.status == "infeasible", r.summary()
        return
    assert r.status == "optimal", r.summary()
    assert r.objective == pytest.approx(float(expected), abs=1e-9)


@pytest.mark.parametrize(
    "kw,match",
    [
        (dict(objective="types"), "needs a budget"),
        (dict(objective="entropy"), "objective must be"),
        (dict(budget=-1), "budget must be"),
        (dict(t_out=0), "t_out must be"),
        (dict(t_out=2, t_out_max=3), "not both"),
        (dict(t_out_min=3, t_out_max=2), "exceeds"),
    ],
)
def test_bad_options(kw, match):
    with pytest.raises(ma.InputError, match=match):
        ma.Request(ma.KAnonymity(2), **kw)


def test_budget_is_the_decision_version():
    frame = pd.DataFrame({"a": list("xxyyz"), "b": list("11223")})
    t = ma.Table.from_frame(frame, ["a", "b"])
    opt = ma.anonymize(t, ma.KAnonymity(2)).objective
    assert ma.Request(ma.KAnonymity(2), budget=opt).solve(t).status == "optimal"
    r = ma.anonymize(t, ma.KAnonymity(2), budget=opt - 1)
    assert r.status == "infeasible" and r.table is None
