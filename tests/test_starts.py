"""Starts (milp_anon.search.starts): a verified release read back onto the model's columns."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import sensitive_tables
from hypothesis import given, settings
from hypothesis import strategies as st
from test_generalization import generalization_cases

import milp_anon as ma
from milp_anon.formulations import build
from milp_anon.instance.instance import Instance, collapse, generate_candidates
from milp_anon.release.partition import release_blocks
from milp_anon.release.verified import Release
from milp_anon.search.starts import release_start


def _model(table, request):
    lattices = request.recoding.lattices(table)
    types, units = collapse(table, request)
    cands = generate_candidates(table, request, types, units, lattices)
    return build(Instance(table, lattices, types, units, cands), request)


def _read_back(table, request, labels):
    """A release of the classes ``labels`` (merged until every class has k rows), read back as a start:
    the start must be complete and release exactly that table at its cost."""
    k = request.min_group_size()
    blocks = [np.flatnonzero(labels == g) for g in np.unique(labels)]
    while len(blocks) > 1 and min(map(len, blocks)) < k:
        i = int(np.argmin([len(b) for b in blocks]))
        j = i + 1 if i + 1 < len(blocks) else i - 1
        blocks[j] = np.sort(np.concatenate([blocks[i], blocks[j]]))
        del blocks[i]
    if len(blocks[0]) < k:
        return
    rel = Release.verified(table, ma.Request(ma.KAnonymity(k), recoding=request.recoding),
                           release_blocks(table, blocks, request.recoding))
    am = _model(table, request)
    idx, vals = release_start(am, rel)
    start = dict(zip(idx.tolist(), vals.tolist()))
    assert all(int(col) in start for col in am.g)  # complete: every g column set
    g = np.array([start[int(col)] for col in am.g])
    released, _, cost = am.release(g.astype(np.int64))
    assert cost == pytest.approx(rel.cost, abs=1e-9)
    # rows of one unit are interchangeable: the same multiset of (original row, released row)
    cols = list(table.qi) + list(table.sensitive)

    def pairs(out):
        return sorted(zip(map(tuple, table.frame[cols].to_numpy().tolist()),
                          map(tuple, out[list(table.qi)].astype(str).to_numpy().tolist())))

    assert pairs(released) == pairs(rel.table)


@settings(max_examples=80, deadline=None)
@given(generalization_cases(), st.data())
def test_a_hierarchy_release_reads_back_exactly(case, data):
    frame, qi, k, rec = case
    table = ma.Table.from_frame(frame, qi)
    labels = np.array(data.draw(st.lists(st.integers(0, 3), min_size=table.n, max_size=table.n)))
    _read_back(table, ma.Request(ma.KAnonymity(k), recoding=rec), labels)


@settings(max_examples=80, deadline=None)
@given(sensitive_tables(), st.data())
def test_a_suppression_release_reads_back_exactly_with_units_split_by_sensitive_value(case, data):
    frame, qi, k = case
    table = ma.Table.from_frame(frame, qi, "s")
    labels = np.array(data.draw(st.lists(st.integers(0, 3), min_size=table.n, max_size=table.n)))
    _read_back(table, ma.Request(ma.KAnonymity(k), ma.PSensitivity(1)), labels)


def test_a_release_outside_the_candidates_gives_a_partial_start_or_none():
    """Rows released as a vector the model has no candidate for: only the other rows' candidates are fixed
    (a partial start), or ``partial=False`` gives no start at all."""
    import pandas as pd

    frame = pd.DataFrame({"a": list("xxyyzz"), "b": list("112233")})
    table = ma.Table.from_frame(frame, ["a", "b"])
    request = ma.Request(ma.KAnonymity(2))
    rel = Release.verified(table, request, release_blocks(table, [np.arange(4), np.arange(4, 6)]))
    lattices = request.recoding.lattices(table)
    types, units = collapse(table, request)
    cands = generate_candidates(table, request, types, units, lattices)
    inst = Instance(table, lattices, types, units, cands)
    full = build(inst, request)
    assert len(release_start(full, rel)[0]) > 0 and release_start(full, rel, partial=False) is not None
    keep = np.ones(cands.n_candidates, dtype=bool)
    keep[np.argmax(cands.capacity)] = False  # (*, *): the first block's vector is gone
    am = build(inst.with_candidates(cands.subset(keep, "test")), request)
    idx, vals = release_start(am, rel)
    assert set(idx.tolist()) <= set(am.y.tolist()) and vals.tolist() == [1.0]  # (z, 3) alone
    assert release_start(am, rel, partial=False) is None
