"""The model-size estimate and the memory check (milp_anon/formulations/sizing.py, milp_anon/runtime/memory.py)."""

import pytest

import milp_anon as ma
from milp_anon.formulations import build, sizing
from milp_anon.pipeline.solve import prepare as _prepare
from milp_anon.release.result import Timings
from milp_anon.runtime import memory
from milp_anon.tables.datasets import load_adult


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

    monkeypatch.setattr(memory, "resident_memory_bytes", lambda: 0)
    sizing.check_memory(instance, request.criteria, gb, pulp_model=False)
    monkeypatch.setattr(memory, "resident_memory_bytes", lambda: need)
    with pytest.raises(ma.ModelTooLargeError, match="this process holds"):
        sizing.check_memory(instance, request.criteria, gb, pulp_model=False)
    monkeypatch.setattr(memory, "available_memory_bytes", lambda: int(gb * 2**30 / 0.8))
    sizing.check_memory(instance, request.criteria, None, pulp_model=False)


def test_resident_memory_is_read():
    assert memory.resident_memory_bytes() > 0


def test_the_tree_peak_counts_a_grandchild_beside_its_parents():
    """A run's peak is what its process and every descendant held at one time: a grandchild holding 300 MiB
    under a waiting parent counts (read from ``/proc``, not from the parent's ``ru_maxrss``)."""
    import subprocess
    import sys

    hold = 300 << 20
    grandchild = f"b = bytearray({hold}); import time; print('held', flush=True); time.sleep(1.5)"
    child = ("import subprocess, sys; "
             f"subprocess.run([sys.executable, '-c', {grandchild!r}], check=True)")
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    with memory.TreePeak(proc.pid, interval=0.02) as peak:
        assert proc.stdout.readline().strip() == "held"
        now = memory.tree_resident_bytes(proc.pid)
        proc.communicate()
    assert proc.returncode == 0
    assert now >= hold and memory.resident_memory_bytes(proc.pid) == 0  # gone: nothing read
    assert peak.until() >= hold
    assert peak.until(end=peak.samples[0][0]) < hold  # the first sample: the grandchild not yet holding it


@pytest.mark.parametrize("recoding", [None, "patterns", "hierarchies", "intervals"])
def test_the_candidate_layer_is_refused_while_it_is_enumerated(monkeypatch, recoding):
    """The pairs themselves count against the memory allowed (BYTES_PER_PAIR each, beside what the process
    holds): an allowance one pair short of the layer stops the enumeration with the error, before any model
    or bound; an allowance for exactly the layer passes. Suppression, patterns, hierarchies and cells alike."""
    from milp_anon.tables.datasets import adult_hierarchy_path

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
    monkeypatch.setattr(memory, "resident_memory_bytes", lambda: held)
    table = ma.Table.from_frame(load_adult().iloc[:600], list(qi))
    for fit, short in ((pairs, False), (pairs - 1, True)):
        gb = (held + fit * memory.BYTES_PER_PAIR) / 2**30
        assert memory.pair_limit(gb) == fit
        req = ma.Request(ma.KAnonymity(3), recoding=rec, max_memory_gb=gb)
        if short:
            with pytest.raises(ma.ModelTooLargeError, match=r"candidate layer would hold at least [\d,]+ \(row type"):
                _prepare(table, req, Timings())
        else:
            instance, _, _ = _prepare(table, req, Timings())
            assert instance.candidates.n_pairs == pairs
