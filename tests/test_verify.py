"""The verifier rejects every kind of bad release (it is written from the definitions)."""

import numpy as np
import pandas as pd
import pytest
from helpers import small_tables, solve_k
from hypothesis import given, settings
from hypothesis import strategies as st

from milp_anon.privacy.verify import verify_k_anonymity
from milp_anon.runtime.errors import VerificationError


@pytest.fixture
def solved():
    frame = pd.DataFrame({"a": list("xxyyz"), "b": list("11223"), "other": list("pqrst")})
    r = solve_k(frame, ["a", "b"], 2)
    assert r.status == "optimal"
    return frame, r


def test_accepts_the_solution(solved):
    frame, r = solved
    v = verify_k_anonymity(frame, r.table, ["a", "b"], 2, claimed_cost=r.objective)
    assert v.cost == r.objective and v.min_group_size >= 2


def test_rejects_wrong_cost(solved):
    frame, r = solved
    with pytest.raises(VerificationError, match="claimed cost"):
        verify_k_anonymity(frame, r.table, ["a", "b"], 2, claimed_cost=r.objective - 1)


def test_rejects_small_class(solved):
    frame, _ = solved
    with pytest.raises(VerificationError, match="fewer than k"):
        verify_k_anonymity(frame, frame.copy(), ["a", "b"], 2)


def test_rejects_changed_value(solved):
    frame, r = solved
    bad = r.table.copy()
    bad.loc[0, "a"] = "y"
    with pytest.raises(VerificationError, match="neither the input"):
        verify_k_anonymity(frame, bad, ["a", "b"], 1)


def test_rejects_changed_carried_column(solved):
    frame, r = solved
    bad = r.table.copy()
    bad.loc[2, "other"] = "zzz"
    with pytest.raises(VerificationError, match="non-QI column"):
        verify_k_anonymity(frame, bad, ["a", "b"], 2)


def test_rejects_reordered_rows(solved):
    frame, r = solved
    bad = r.table.iloc[::-1].reset_index(drop=True)
    with pytest.raises(VerificationError):
        verify_k_anonymity(frame, bad, ["a", "b"], 2)


def test_rejects_missing_row(solved):
    frame, r = solved
    with pytest.raises(VerificationError, match="released rows"):
        verify_k_anonymity(frame, r.table.iloc[:-1], ["a", "b"], 2)


@settings(max_examples=40)
@given(small_tables(k=(2, 3)), st.data())
def test_unstarring_a_cell_is_caught_or_harmless(case, data):
    """Restoring one suppressed cell either breaks k-anonymity or lowers the cost,
    and the verifier agrees with a direct recount either way."""
    frame, qi, k = case
    r = solve_k(frame, qi, k)
    if r.status != "optimal" or r.objective == 0:
        return
    stars = np.argwhere((r.table[qi] == "*").to_numpy())
    i, c = stars[data.draw(st.integers(0, len(stars) - 1))]
    bad = r.table.copy()
    bad.iloc[i, bad.columns.get_loc(qi[c])] = frame.iloc[i][qi[c]]
    sizes = bad.groupby(qi).size()
    if sizes.min() < k:
        with pytest.raises(VerificationError):
            verify_k_anonymity(frame, bad, qi, k)
    else:  # a valid table one star cheaper would contradict optimality
        pytest.fail("found a k-anonymous table cheaper than the proven optimum")
