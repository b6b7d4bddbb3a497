"""A user's HiGHS cutoff (``objective_bound``) never makes a claim the cutoff does not support: against brute force on
random small tables, below the optimum no table is called optimal unless it is one, no bound passes the
optimum and the request is not called infeasible; above it the optimum is found and proven."""

from helpers import brute, criteria_for, sensitive_tables
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import milp_anon as ma


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sensitive_tables(n=(4, 8), m=(1, 3), k=(1, 3)), st.data())
def test_user_cutoff_against_brute_force(case, data):
    frame, qi, k = case
    criteria = [ma.KAnonymity(max(k, 2))] if data.draw(st.booleans()) else [ma.KAnonymity(k),
                                                                           data.draw(criteria_for(frame))]
    optimum = brute(frame, qi, criteria)
    if optimum is None:
        return
    table = ma.Table.from_frame(frame, qi, "s")
    reduction = data.draw(st.sampled_from(["auto", "none"]))
    below = ma.anonymize(table, *criteria, reduction=reduction, highs_options={"objective_bound": optimum - 0.5})
    assert below.bound is None or below.bound <= optimum
    assert below.status != ma.Status.INFEASIBLE  # a table exists: only none below the cutoff
    if below.status == ma.Status.OPTIMAL:
        assert below.cost == optimum
    above = ma.anonymize(table, *criteria, reduction=reduction, highs_options={"objective_bound": optimum + 0.5})
    assert above.status == ma.Status.OPTIMAL and above.cost == optimum
