"""The techniques a solve uses (milp_anon.runtime.tuning.Tuning): one frozen value, validated, carried by the solver
options into every stage and child process."""

import dataclasses
import math
import pickle

import pytest

import milp_anon as ma
from milp_anon.runtime.tuning import Tuning


def test_the_shipped_tuning_is_the_default_everywhere():
    assert ma.Tuning is Tuning and "Tuning" in ma.__all__
    assert ma.SolverOptions().tuning == Tuning()
    shipped = Tuning()
    assert all(getattr(shipped, f.name) is True for f in dataclasses.fields(Tuning) if f.type == "bool")
    assert shipped.max_add_most == 4800
    assert (shipped.smoothing, shipped.max_add, shipped.master_seconds, shipped.rank_tail, shipped.price_chunk,
            shipped.master_highs_options, shipped.proof_round_share, shipped.hard_end_grace,
            shipped.lp_presolve_max_columns, shipped.restricted_share) == (0.8, 300, 10.0, 1e-4, 1 << 22, (), 0.5, 3.0,
                                                                         300_000, 0.1)


def test_a_tuning_is_frozen_hashable_and_crosses_a_pipe_inside_the_options():
    tuning = Tuning(cliques=False, smoothing=0.0, master_highs_options={"simplex_strategy": 4})
    assert tuning.master_highs_options == (("simplex_strategy", 4),)  # a dict is kept as pairs
    with pytest.raises(dataclasses.FrozenInstanceError):
        tuning.cliques = True
    options = ma.SolverOptions(time_limit=5, tuning=tuning)
    assert hash(options) == hash(pickle.loads(pickle.dumps(options)))
    assert pickle.loads(pickle.dumps(options)).tuning == tuning
    assert dataclasses.replace(options, time_limit=9).tuning is tuning  # every stage's options keep it


def test_solve_keywords_take_a_tuning():
    table = ma.Table.from_frame(ma.datasets.load_adult().iloc[:200], ["sex", "race"])
    r = ma.anonymize(table, ma.KAnonymity(3), time_limit=30, tuning=Tuning(lp_rounding=False))
    assert r.verified and r.reduction.rounding_objective is None
    assert r.report()["provenance"]["solver_options"]["tuning"]["lp_rounding"] is False


@pytest.mark.parametrize("changes, field", [
    (dict(cliques=1), "cliques"), (dict(search_beside_lp="no"), "search_beside_lp"),
    (dict(smoothing=1.0), "smoothing"), (dict(smoothing=-0.1), "smoothing"), (dict(smoothing=math.nan), "smoothing"),
    (dict(max_add=0), "max_add"), (dict(max_add=2.5), "max_add"), (dict(max_add_most=0), "max_add_most"),
    (dict(master_seconds=0.0), "master_seconds"),
    (dict(rank_tail=-1.0), "rank_tail"), (dict(price_chunk=0), "price_chunk"), (dict(price_chunk=True), "price_chunk"),
    (dict(proof_round_share=-0.5), "proof_round_share"), (dict(hard_end_grace=-1.0), "hard_end_grace"),
    (dict(lp_presolve_max_columns=1.5), "lp_presolve_max_columns"), (dict(restricted_share=1.5), "restricted_share"),
    (dict(master_highs_options=("solver",)), "master_highs_options"),
    (dict(master_highs_options={"threads": 1}), "master_highs_options")])
def test_a_bad_tuning_is_refused_in_one_line(changes, field):
    with pytest.raises(ma.InputError, match=f"tuning.{field}") as err:
        Tuning(**changes)
    assert "\n" not in str(err.value)


def test_the_solver_options_take_only_a_tuning():
    with pytest.raises(ma.InputError, match="tuning must be a milp_anon.Tuning"):
        ma.SolverOptions(tuning={"cliques": False})
    assert Tuning(master_seconds=math.inf, hard_end_grace=math.inf, proof_round_share=1.0,
                  lp_presolve_max_columns=-1, restricted_share=0.0).master_seconds == math.inf
