"""The whole table as a heuristic start (issue 94's fault battery found it): ``best_heuristic`` offered the whole
table as one class unchecked, so where it breaks a criterion — t-closeness against a given ``reference``, which
the whole table need not meet, with record suppression making the request feasible all the same — the verifier
raised ``VerificationError`` (an internal error, exit 1) instead of the candidate being left out. It showed when
a tiny time limit sent the solve to its heuristics."""

import pandas as pd

import milp_anon as ma
from milp_anon.search.starts import best_heuristic


def _case():
    frame = pd.DataFrame({"q": list("aabb"), "s": ["1", "1", "2", "2"]})
    table = ma.Table.from_frame(frame, ["q"], "s")
    crits = [ma.KAnonymity(1), ma.TCloseness(0.25, reference={"s": {"1": 1}})]
    return table, crits


def test_the_whole_table_is_no_start_where_it_breaks_a_criterion():
    table, crits = _case()
    request = ma.Request(*crits, max_suppressed_records=2)
    rel = best_heuristic(table, request)  # raised VerificationError: the whole table is at EMD 0.5 > 0.25
    assert rel is None or rel.cost >= 0


def test_the_request_is_solved():
    table, crits = _case()
    r = ma.anonymize(table, *crits, max_suppressed_records=2)
    assert r.status == "optimal" and r.withheld == (2, 3) and r.cost == 2
