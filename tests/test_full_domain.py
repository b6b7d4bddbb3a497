"""Full-domain generalization (one level per column for every row): the bounded lattice search against
exhaustion over every level vector and every withheld set."""

import pandas as pd
import pytest
from helpers import LETTERS, random_hierarchy, sensitive_tables, solve_with_oracle
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.exact import brute_force_full_domain


@st.composite
def full_domain_cases(draw):
    frame, qi, k = draw(sensitive_tables(n=(3, 7), m=(1, 3), k=(1, 3)))
    N = draw(st.sampled_from([None, 0, 1, 2, 3]))
    criteria = [ma.KAnonymity(k)]
    kinds = ["p", "distinct"] if N else ["p", "distinct", "frequency", "recursive", "t"]
    kind = draw(st.sampled_from(kinds + ["none"]))
    if kind == "p":
        criteria.append(ma.PSensitivity(draw(st.integers(1, 3))))
    elif kind == "distinct":
        criteria.append(ma.LDiversity(draw(st.integers(1, 3)), kind="distinct"))
    elif kind == "frequency":
        criteria.append(ma.LDiversity(draw(st.sampled_from([1.5, 2]))))
    elif kind == "recursive":
        criteria.append(ma.LDiversity(2, kind="recursive", c=draw(st.sampled_from([1, 2, 3]))))
    elif kind == "t":
        criteria.append(ma.TCloseness(draw(st.sampled_from([0.2, 0.4, 0.6]))))
    hier = {c: draw(random_hierarchy(list(LETTERS[:3]))) for c in qi if draw(st.booleans())}
    if hier:
        recoding = ma.Generalization(hier, cost=draw(st.sampled_from(["suppression", "height", "lm"])),
                                     scheme="full-domain")
    else:
        recoding = ma.Suppression(scheme="full-domain")
    return frame, qi, criteria, recoding, N


@settings(max_examples=150, deadline=None)
@given(full_domain_cases())
def test_search_equals_exhaustion(case):
    frame, qi, criteria, recoding, N = case
    table = ma.Table.from_frame(frame, qi, "s")
    r, expected, _ = solve_with_oracle(frame, qi, criteria, recoding, N, oracle=brute_force_full_domain)
    if expected is None:
        return
    assert r.status == "optimal" and r.gap == 0, r
    assert r.objective == pytest.approx(float(expected), abs=1e-9)
    assert len(r.withheld) <= (N or 0)
    # one level per column: every released row of a column is at the same level of its hierarchy
    assert set(r.full_domain["levels"]) == set(qi)
    # local recoding relaxes full-domain recoding: its optimum is never higher
    local = ma.anonymize(table, *criteria, recoding=_local(recoding), max_suppressed_records=N)
    assert local.status == "optimal" and local.objective <= r.objective + 1e-9


def _local(recoding):
    if isinstance(recoding, ma.Generalization):
        return ma.Generalization(recoding.hierarchies, cost=recoding.cost)
    return ma.Suppression()


def test_adult_full_domain_with_a_suppression_limit():
    frame = ma.datasets.load_adult()
    qi = ["sex", "age", "race"]
    table = ma.Table.from_frame(frame, qi)
    hier = {c: ma.datasets.adult_hierarchy_path(c) for c in qi}
    fd = ma.Generalization(hier, cost="lm", scheme="full-domain")
    plain = ma.anonymize(table, ma.KAnonymity(5), recoding=fd)
    limited = ma.anonymize(table, ma.KAnonymity(5), recoding=fd, max_suppressed_records=300)
    local = ma.anonymize(table, ma.KAnonymity(5), recoding=ma.Generalization(hier, cost="lm"))
    assert plain.status == limited.status == local.status == "optimal"
    assert local.objective <= limited.objective <= plain.objective
    assert 0 < len(limited.withheld) <= 300 and len(limited.table) == len(frame) - len(limited.withheld)
    # every released value of a column sits at the reported level of its hierarchy
    for col, level in limited.full_domain["levels"].items():
        h = ma.Hierarchy.coerce(hier[col])
        assert set(limited.table[col]) <= {p[level] for p in h.paths.values()}
    assert limited.full_domain["evaluated"] <= limited.full_domain["lattice_nodes"]


@pytest.mark.parametrize("kw, match", [
    (dict(max_suppressed_records=1, crit=ma.LDiversity(2)), "covers k-anonymity"),
    (dict(budget=3), "cost objective"),
    (dict(objective="rows"), "cost objective"),
])
def test_what_the_search_does_not_cover_is_refused(kw, match):
    crit = kw.pop("crit", ma.PSensitivity(2))
    with pytest.raises(ma.InputError, match=match):
        ma.Request(ma.KAnonymity(2), crit, recoding=ma.Suppression(scheme="full-domain"), **kw)


def test_full_domain_has_no_milp_model(tmp_path):
    table = ma.Table.from_frame(pd.DataFrame({"a": list("aabb")}), ["a"])
    req = ma.Request(ma.KAnonymity(2), recoding=ma.Suppression(scheme="full-domain"))
    with pytest.raises(ma.InputError, match="no MILP model"):
        req.write_model(table, str(tmp_path / "m.mps"))
    assert not (tmp_path / "m.mps").exists()
    with pytest.raises(ma.InputError, match="scheme must be"):
        ma.Suppression(scheme="global")
