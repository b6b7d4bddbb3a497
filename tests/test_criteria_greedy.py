"""The pattern greedy with sensitive criteria (milp_anon.heuristics.criteria_greedy): its tables meet the
criteria (independent verifier), cost what they suppress and never less than the optimum (brute force); it
splits a row type where the plain suppression greedy cannot; it is the sensitive requests' heuristic."""

import numpy as np
import pandas as pd
from helpers import brute, criteria_for, sensitive_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.heuristics import criteria_pattern_greedy, suppression_greedy
from milp_anon.privacy.criteria import group_test
from milp_anon.privacy.verify import verify_release
from milp_anon.search.starts import all_masks, best_heuristic, heuristic_tables
from milp_anon.tables.table import SUPPRESSED


def _stars(released, qi):
    return int((released[qi].astype(str) == SUPPRESSED).to_numpy().sum())


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_tables_meet_the_criteria_and_cost_at_least_the_optimum(data):
    frame, qi, k = data.draw(sensitive_tables(n=(4, 12), m=(1, 3), k=(1, 3)))
    criteria = [ma.KAnonymity(k), data.draw(criteria_for(frame))]
    table = ma.Table.from_frame(frame, qi, "s")
    out = criteria_pattern_greedy(table, criteria, all_masks(len(qi)))
    whole_ok = group_test(table, criteria)(np.arange(len(frame)))
    assert (out is None) == (not whole_ok)
    if out is None:
        return
    released, cost = out
    v = verify_release(frame, released, qi, criteria, sensitive=["s"])  # raises on a violation
    assert v.cost == cost == _stars(released, qi)
    assert (released["s"] == frame["s"]).all()
    assert cost >= brute(frame, qi, criteria)


def test_an_instance_is_trimmed_to_its_diverse_part():
    """Frequency 2-diversity, k = 2. Type (a, a) holds x, x, y and fails; without one x it meets ℓ = 2, so
    x, y stay unsuppressed and the other x joins (a, c)'s y under (a, *): 2 stars, the optimum. Left whole,
    (a, a) would go to (a, *) with (a, c), 4 stars; the plain suppression greedy never splits it."""
    frame = pd.DataFrame({"q1": ["a"] * 6, "q2": ["a", "a", "a", "b", "b", "c"],
                          "s": ["x", "x", "y", "y", "z", "y"]})
    table = ma.Table.from_frame(frame, ["q1", "q2"], "s")
    criteria = [ma.KAnonymity(2), ma.LDiversity(2)]
    released, cost = criteria_pattern_greedy(table, criteria, all_masks(2))
    assert cost == 2 == brute(frame, ["q1", "q2"], criteria)
    kept_aa = (released["q2"].iloc[:3] == "a").to_numpy()
    assert kept_aa.sum() == 2 and sorted(frame["s"].iloc[:3][kept_aa]) == ["x", "y"]
    assert released["q2"].iloc[5] == SUPPRESSED and released["q1"].iloc[5] == "a"
    assert suppression_greedy(table, criteria)[1] > cost


def test_the_all_suppressed_group_borrows_what_it_lacks():
    """Frequency 2-diversity, k = 2, one QI. Groups a (x, y, y, z) and b (x, z) meet ℓ = 2 and c (x) is left
    alone: the all-'*' group {x} borrows a y from a (which keeps x, y, z): 2 stars. Dissolving a group
    into it instead would cost at least 3."""
    frame = pd.DataFrame({"q": list("aaaabbc"), "s": ["x", "y", "y", "z", "x", "z", "x"]})
    table = ma.Table.from_frame(frame, ["q"], "s")
    criteria = [ma.KAnonymity(2), ma.LDiversity(2)]
    released, cost = criteria_pattern_greedy(table, criteria, all_masks(1))
    assert cost == 2
    star = released["q"] == SUPPRESSED
    assert sorted(frame["s"][star]) == ["x", "y"] and frame["q"][star].tolist().count("a") == 1


def test_sensitive_requests_get_it_as_a_heuristic():
    frame = pd.DataFrame({"q1": ["a"] * 6, "q2": ["a", "a", "a", "b", "b", "c"],
                          "s": ["x", "x", "y", "y", "z", "y"]})
    table = ma.Table.from_frame(frame, ["q1", "q2"], "s")
    request = ma.Request(ma.KAnonymity(2), ma.LDiversity(2))
    names = [n for n, _, _ in heuristic_tables(table, request)]
    # the suppression greedy's table (q2 suppressed in a class of 6 rows) is also refined (2 stars), and the
    # whole table as one class
    assert names == ["suppression greedy", "pattern greedy with criteria", "suppression greedy, refined",
                     "whole table, refined"]
    best = best_heuristic(table, request)
    assert best.source == "pattern greedy with criteria" and best.cost == 2
    assert [n for n, _, _ in heuristic_tables(table, ma.Request(ma.KAnonymity(2)))] == \
        ["suppression greedy", "pattern greedy"]
