"""Record suppression (``max_suppressed_records``): the MILP against brute force over withheld sets and
set partitions, and the verifier's treatment of withheld records."""

import numpy as np
import pandas as pd
import pytest
from helpers import LETTERS, criteria_for, random_hierarchy, sensitive_tables, solve_with_oracle
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.exact import brute_force
from milp_anon.privacy.verify import verify_options, verify_release
from milp_anon.runtime.errors import InputError, OptionViolation, VerificationError


@st.composite
def record_cases(draw):
    frame, qi, k = draw(sensitive_tables(n=(3, 8), m=(1, 3), k=(1, 4)))
    criteria = [ma.KAnonymity(k)]
    if draw(st.booleans()):
        criteria.append(draw(criteria_for(frame)))
    recoding, kind = None, draw(st.sampled_from(["suppression", "hierarchy", "patterns"]))
    if kind == "hierarchy":
        recoding = ma.Generalization({qi[0]: draw(random_hierarchy(list(LETTERS[:3])))},
                                     cost=draw(st.sampled_from(["suppression", "height", "lm"])))
    elif kind == "patterns":  # a pattern set without the all-suppressed one: some rows may fit no class
        masks = st.text(alphabet="01", min_size=len(qi), max_size=len(qi)).filter(lambda p: "1" in p)
        recoding = ma.Patterns(sorted(set(draw(st.lists(masks, min_size=1, max_size=3)))))
    return frame, qi, criteria, recoding, draw(st.integers(0, 3))


@settings(max_examples=150, deadline=None)
@given(record_cases())
def test_milp_equals_brute_force(case):
    frame, qi, criteria, recoding, N = case
    r, expected, _ = solve_with_oracle(frame, qi, criteria, recoding, N)
    if expected is None:
        return
    assert r.status == "optimal", r
    assert r.objective == pytest.approx(float(expected), abs=1e-9)
    assert len(r.withheld) <= N and len(r.table) + len(r.withheld) == len(frame)
    # without record suppression the optimum is never lower (withholding only adds choices)
    plain, _ = brute_force(frame[qi].to_numpy(), criteria, {"s": frame["s"].tolist()}, recoding=recoding,
                           columns=qi)
    assert plain is None or plain >= expected


def test_a_record_that_fits_no_class_is_withheld():
    frame = pd.DataFrame({"a": list("aaaab"), "b": list("xxxxy")})
    table = ma.Table.from_frame(frame, ["a", "b"])
    plain = ma.anonymize(table, ma.KAnonymity(2))
    assert plain.cost == 4  # b,y and one a,x row form a class with both cells starred
    r = ma.anonymize(table, ma.KAnonymity(2), max_suppressed_records=1)
    assert r.status == "optimal" and r.cost == 2 and r.withheld == (4,)
    assert list(r.table.index) == [0, 1, 2, 3] and (r.table["a"] == "a").all()
    rep = r.report()
    assert rep["withheld_records"] == 1 and rep["withheld_rows"] == [5]
    assert rep["suppressed_records"] == [5]  # issue 17's contract names them so
    assert "at most 1 withheld records" in rep["criteria"]


def test_withholding_makes_a_small_table_feasible():
    frame = pd.DataFrame({"a": list("abc")})
    table = ma.Table.from_frame(frame, ["a"])
    assert ma.anonymize(table, ma.KAnonymity(4)).status == "infeasible"
    r = ma.anonymize(table, ma.KAnonymity(4), max_suppressed_records=3)
    assert r.status == "optimal" and r.cost == 3 and len(r.table) == 0
    assert ma.anonymize(table, ma.KAnonymity(4), max_suppressed_records=2).status == "infeasible"


def test_t_closeness_compares_with_the_whole_table():
    # withholding the two rows with s = 2 leaves classes of s = 1 only: at EMD 0.5 from the whole table
    frame = pd.DataFrame({"q": list("aabb"), "s": ["1", "1", "2", "2"]})
    table = ma.Table.from_frame(frame, ["q"], "s")
    r = ma.anonymize(table, ma.KAnonymity(2), ma.TCloseness(0.4), max_suppressed_records=2)
    assert r.status == "optimal" and r.cost == 4 and r.withheld == ()  # one class of all four rows


def test_verifier_exempts_withheld_records_and_counts_them():
    original = pd.DataFrame({"a": list("aaab"), "b": list("xxxy")})
    released = original.copy()
    released.loc[3, ["a", "b"]] = "*"
    with pytest.raises(VerificationError, match="fewer than k"):
        verify_release(original, released, ["a", "b"], [ma.KAnonymity(2)])
    mask = np.array([False, False, False, True])
    v = verify_release(original, released, ["a", "b"], [ma.KAnonymity(2)], withheld=mask)
    assert v.cost == 2 and v.n_withheld == 1 and v.class_sizes == (3,)
    assert verify_options(original, released, ["a", "b"], v, max_withheld=1) == 2
    with pytest.raises(OptionViolation, match="1 records withheld, more than 0"):
        verify_options(original, released, ["a", "b"], v, max_withheld=0)
    with pytest.raises(VerificationError, match="not written at the root"):
        verify_release(original, original, ["a", "b"], [ma.KAnonymity(2)], withheld=mask)


@pytest.mark.parametrize("kw, match", [
    ({"max_suppressed_records": -1}, "whole number >= 0"),
    ({"max_suppressed_records": 1.5}, "whole number >= 0"),
    ({"max_suppressed_records": 1, "budget": 3}, "cost objective"),
    ({"max_suppressed_records": 1, "objective": "rows"}, "cost objective"),
])
def test_bad_record_suppression_options(kw, match):
    with pytest.raises(InputError, match=match):
        ma.Request(ma.KAnonymity(2), **kw)
