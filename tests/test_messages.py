"""What the toolkit says while and after it solves: progress lines name the phase that runs, one bound (the
proven one) is shown as the run's, HiGHS's "Interrupted by user" becomes who stopped it, one gap format,
counts in the singular where one, and recodings described by what they cost (issue 94)."""

from __future__ import annotations

import numpy as np
import pandas as pd

import milp_anon as ma
from milp_anon.runtime import progress
from milp_anon.runtime.progress import Progress
from milp_anon.runtime.status import counted, format_gap
from milp_anon.tables.recoding import Generalization


def test_a_phase_that_ends_gives_the_label_back_to_the_enclosing_one():
    seen: list[str] = []
    with progress.reporting(lambda p: seen.append(p.phase)):
        progress.report(phase="round 1, G = 7")
        with progress.phase("build"):
            with progress.phase("verify"):
                pass
            assert seen[-1] == "build"
        assert seen[-1] == "round 1, G = 7"
    assert seen == ["round 1, G = 7", "build", "verify", "build", "round 1, G = 7"]


def test_a_phase_without_a_listener_is_silent():
    with progress.phase("lp"):  # nobody listens: nothing to tell, nothing raised
        pass


def _wide_table(seed: int = 3, n: int = 120) -> ma.Table:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({c: rng.integers(0, 6, n).astype(str) for c in "abcd"})
    return ma.Table.from_frame(frame, list("abcd"))


def test_the_reductions_lp_is_labelled_lp_while_it_runs():
    """Before: the label stayed "candidates" while the column generation ran (the summary then said
    ``candidates 0.03  lp 60.05``)."""
    seen: list[Progress] = []
    result = ma.anonymize(_wide_table(), ma.KAnonymity(3), progress=seen.append)
    assert result.reduction is not None  # the reduction ran
    labels = [p.phase for p in seen]
    assert "lp" in labels
    first_lp = labels.index("lp")
    # between the candidates' end and the LP no label of an ended phase is shown
    assert "candidates" not in labels[first_lp:]


def test_the_progress_line_shows_one_bound_the_proven_one():
    line = Progress(phase="round 2, G = 1600", elapsed=3.0, incumbent=3031.0, bound=2979.0,
                    round_bound=20.0).line()
    assert "bound 2,979" in line and "20" not in line.replace("2,979", "").replace("round 2", "")
    assert "round bound" not in line


def test_one_gap_format_everywhere():
    assert format_gap(0.009346) == "0.935 %"
    assert format_gap(0.128) == "12.8 %"
    assert format_gap(0.0) == "0 %"
    assert format_gap(None) == "-"
    assert format_gap(float("inf")) == "infinite"
    assert Progress(incumbent=100.0, bound=99.0654).line().endswith("gap 0.935 %")


def test_counts_are_singular_where_one():
    assert counted(1, "model") == "1 model" and counted(2, "model") == "2 models"
    assert counted(1, "class", "classes") == "1 class" and counted(1234, "record") == "1,234 records"


def test_an_interval_recoding_is_described_by_the_cost_it_has():
    """Before: ``generalization (height; hierarchies: none; intervals: age)`` although intervals cost their
    width, whatever the hierarchies' cost says."""
    text = Generalization(intervals=["age"]).describe()
    assert "height" not in text and "width" in text and "age" in text
    both = Generalization(hierarchies={"sex": {"m": ["*"], "f": ["*"]}}, intervals=["age"], cost="lm").describe()
    assert "lm; hierarchies: sex" in both and "intervals: age (cost: width" in both


def test_a_restricted_model_stopped_at_its_bound_says_the_pipeline_stopped_it():
    """Before: HiGHS's "Interrupted by user" for a solve the pipeline stopped (its bound reached G)."""
    from milp_anon.pipeline.solve import build_model
    from milp_anon.solvers import StopAtBound, solve_model

    said = set()
    for seed in range(8):
        am = build_model(_wide_table(seed, 60), ma.Request(ma.KAnonymity(4)))
        opt = solve_model(am.lm, ma.SolverOptions())
        assert opt.status == "optimal"
        out = solve_model(am.lm, ma.SolverOptions(), stop_bound=StopAtBound(opt.objective - 2))
        said.add(out.solver_status)
        assert "Interrupted by user" not in out.solver_status
        if out.status != "optimal":
            assert out.solver_status.startswith("stopped by the pipeline: its bound reached")
    assert any(s.startswith("stopped by the pipeline") for s in said), said


def test_inspect_says_what_its_memory_figure_is():
    """Before: the whole model's estimate printed as what a solve needs, also where the solve runs the
    reduction and never builds that model (11.8 GiB printed, 0.9 GiB measured)."""
    table = _wide_table()
    reduced = ma.Request(ma.KAnonymity(3)).inspect(table)
    assert reduced["solved_by"] == "lagrangian reduction" and reduced["process_bytes"] > 0
    whole = ma.Request(ma.KAnonymity(3), reduction="none").inspect(table)
    assert whole["solved_by"] == "whole model"
    sensitive = ma.Table.from_frame(table.frame.assign(s=[str(i % 3) for i in range(table.n)]), list("abcd"), ["s"])
    assert ma.Request(ma.KAnonymity(3), ma.LDiversity(2, kind="distinct")).inspect(sensitive)["solved_by"] \
        == "whole model"


def test_a_bad_argument_names_the_program_once(capsys):
    """Before: ``milp-anon: error: milp-anon: unrecognized arguments: -q``."""
    from milp_anon.cli import main

    assert main(["solve", "in.csv", "--qi", "a", "--out", "o.csv", "-q"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "milp-anon: error: unrecognized arguments: -q"
    assert main(["solve", "in.csv"]) == 2
    assert capsys.readouterr().err.strip().startswith("milp-anon: error: solve: the following arguments")


def test_a_rounds_own_bound_below_the_lp_bound_is_said_to_add_nothing():
    """Before: ``round bound 0`` beside a run bound in the hundreds (HiGHS stopped before its root)."""
    from types import SimpleNamespace

    from milp_anon.release.result import Result, Round

    red = SimpleNamespace(lp_bound=391.99)
    assert Result._round_bound(Round(G=399.0, pairs=10, bound=0.0), red) == \
        "; its restricted model's own bound 0 (below the LP bound: adds nothing)"
    assert Result._round_bound(Round(G=399.0, pairs=10, bound=442.3), red) == "; its restricted model's own bound 442.3"
    assert Result._round_bound(Round(G=399.0, pairs=10), red) == ""


def test_between_the_reductions_steps_the_label_is_fixing_not_start():
    seen: list[str] = []
    ma.anonymize(_wide_table(), ma.KAnonymity(3), progress=lambda p: seen.append(p.phase))
    after_lp = seen[seen.index("lp"):]
    assert "start" not in after_lp and "fixing" in after_lp
