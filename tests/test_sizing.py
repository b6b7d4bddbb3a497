"""The model-size estimate and the memory check (milp_anon/sizing.py)."""

import pytest

import milp_anon as ma
from milp_anon import sizing
from milp_anon.datasets import load_adult
from milp_anon.formulations import build
from milp_anon.pipeline import _prepare
from milp_anon.result import Timings


def _instance(request, n=400, qi=("sex", "age", "race")):
    table = ma.Table.from_frame(load_adult().iloc[:n], list(qi))
    instance, _, why = _prepare(table, request, Timings())
    assert instance is not None and not why
    return instance


def test_the_estimate_counts_the_built_k_anonymity_model():
    """For k-anonymity the estimate's columns, rows and nonzeros are those of the model as built."""
    request = ma.Request(ma.KAnonymity(3))
    instance = _instance(request)
    est = sizing.estimate(instance, request.criteria)
    lm = build(instance, request).lm
    assert (est.n_variables, est.n_constraints, est.n_nonzeros, est.n_integer) == \
        (lm.n_cols, lm.n_rows, lm.n_nonzeros, lm.n_integer)


def test_an_explicit_limit_counts_what_the_process_holds(monkeypatch):
    """With max_memory_gb the process's resident memory counts against the allowance; without it (80 % of
    the memory available, which already leaves the process's own out) it does not."""
    request = ma.Request(ma.KAnonymity(3))
    instance = _instance(request)
    need = sizing.estimate(instance, request.criteria).bytes_highs
    gb = 1.5 * need / 2**30  # room for the model, and for half of it again

    monkeypatch.setattr(sizing, "resident_memory_bytes", lambda: 0)
    sizing.check_memory(instance, request.criteria, gb, pulp_model=False)
    monkeypatch.setattr(sizing, "resident_memory_bytes", lambda: need)
    with pytest.raises(ma.ModelTooLargeError, match="this process holds"):
        sizing.check_memory(instance, request.criteria, gb, pulp_model=False)
    monkeypatch.setattr(sizing, "available_memory_bytes", lambda: int(gb * 2**30 / 0.8))
    sizing.check_memory(instance, request.criteria, None, pulp_model=False)


def test_resident_memory_is_read():
    assert sizing.resident_memory_bytes() > 0


@pytest.mark.parametrize("recoding", [None, "patterns", "hierarchies", "intervals"])
def test_the_candidate_layer_is_refused_while_it_is_enumerated(monkeypatch, recoding):
    """The pairs themselves count against the memory allowed (BYTES_PER_PAIR each, beside what the process
    holds): an allowance one pair short of the layer stops the enumeration with the error, before any model
    or bound; an allowance for exactly the layer passes. Suppression, patterns, hierarchies and cells alike."""
    from milp_anon.datasets import adult_hierarchy_path

    qi = ("sex", "age", "race")
    rec = None
    if recoding == "patterns":
        rec = ma.Patterns(["111", "101", "001", "000"])
    elif recoding == "hierarchies":
        rec = ma.Generalization({c: adult_hierarchy_path(c) for c in qi}, cost="lm")
    elif recoding == "intervals":  # the cells' hulls: counted once they are all enumerated
        rec = ma.Generalization({"sex": adult_hierarchy_path("sex")}, intervals=("age",), value_sets=("race",))
    request = ma.Request(ma.KAnonymity(3), recoding=rec)
    pairs = _instance(request, n=600, qi=qi).candidates.n_pairs
    held = 10 * 2**20
    monkeypatch.setattr(sizing, "resident_memory_bytes", lambda: held)
    table = ma.Table.from_frame(load_adult().iloc[:600], list(qi))
    for fit, short in ((pairs, False), (pairs - 1, True)):
        gb = (held + fit * sizing.BYTES_PER_PAIR) / 2**30
        assert sizing.pair_limit(gb) == fit
        req = ma.Request(ma.KAnonymity(3), recoding=rec, max_memory_gb=gb)
        if short:
            with pytest.raises(ma.ModelTooLargeError, match=r"candidate layer would hold at least [\d,]+ \(row type"):
                _prepare(table, req, Timings())
        else:
            instance, _, _ = _prepare(table, req, Timings())
            assert instance.candidates.n_pairs == pairs
