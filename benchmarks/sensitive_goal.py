"""Issue 13's sensitive goal on UCI Adult: each case proven optimal within the time limit, or its gap.

Sensitive ``occupation``, k = 5, QIs ``sex, age, race, marital-status`` (4;
``--qis 4,5,6`` adds ``education``, then ``native-country``; ``workclass`` is
the 7th: issue 13's hierarchy order without the sensitive ``occupation``): frequency ℓ = 3, distinct ℓ = 3, recursive
(c, ℓ) = (3, 2), p = 3, and t = 0.2, 0.3 under equal, ordered (the ARX
occupation hierarchy's leaf order) and hierarchical (that hierarchy)
distance. Each run is ``request.solve(table, time_limit=..., lns=...)`` as
shipped; ``--lns`` keeps that share of the limit for the large-neighbourhood
search when the solve ends with a gap (a proof in the remaining time is not
affected). One run at a time, each in its own process. A variant switches
techniques off in a :class:`milp_anon.Tuning` given to the run's solve
(``tuning=``; its fields named below), or patches a function in that run's process.

``--variants all-rows`` solves the whole model at once (``criteria_rows="all"``),
the package before the criteria's row generation; ``--variants unsplit`` solves
every ``R(A)`` over unit pairs for all candidates
(``partial_split=False``), the row generation before the
partial split. ``--variants no-criteria-greedy`` switches the pattern greedy
with criteria off in that run's process (its heuristic list is then the
suppression greedy's alone), the package before it. ``--variants no-lp-rounding``
switches the LP relaxation's stage before the whole model off in that run's process
(``milp_anon.pipeline.relaxation.unavailable`` always gives a reason), the package before it.
``--variants lp-alone`` runs that stage's LP without the large-neighbourhood search
beside it (``search_beside_lp_stage=False``), the package before it.
``--variants no-refine`` switches the refinement of the classes off (the
pattern greedy with criteria's table refined, and each pass of the search
refining first: :mod:`milp_anon.heuristics.refine`), the package before it.
``--variants no-slack`` switches the slack LP after the LP relaxation off
(``slack_lp=False``: t-closeness rows tightened by one
row's room, rounded too), the package before it. ``--variants slack-all`` keeps
every candidate open in the slack LP (``lp_rounding.SUPPORT_TOL = -inf``), not
only the groups the first LP opened, the package before it. ``--variants
lp-presolve-off`` solves the LP relaxation without presolve, in pieces, at
any size (``lp_presolve_max_columns=-1``), the package before
presolve for an LP of at most that many columns. ``--variants
no-restricted`` switches the restricted LP before an LP that may not finish
off (``restricted_share=0``), the package before it. ``--variants
no-ball-prune`` keeps the candidates with no integer group of ``k`` rows or more
in the ball ``TV <= t / d_min`` (``TCloseness._far`` keeps every candidate), the
package before that pruning. ``--variants no-frequency-prune`` keeps the
candidates with no group of ``k`` rows or more within frequency ℓ's caps
(``LDiversity.prune`` the distinct rule alone), the package before it.
``--variants no-resolve`` repairs an ``R(A)`` solution only by the restricted
whole model (``resolve_failing=False``), not first by
re-solving its failing classes' rows (``lns.resolve_failing``), the package
before that. ``--variants no-known-bound`` solves every ``R(A)`` from its start
(``at_known_bound=False``), not first for a solution at the
earlier relaxations' bound under that cutoff, the package before it.
``--variants repair-first`` repairs an ``R(A)`` solution before the next
``R(A)`` starts (``repair_beside=False``), not in this
process while that ``R(A)`` runs in its child, the package before it.
``--variants milp-first`` solves ``R(∅)`` as one MILP like every ``R(A)``
(``first_by_reduction=False``), not by the k-anonymity
reduction over the same candidates, the package before it.
``--variants guessed-target`` runs the group blocks' subgradient ascent without
the heuristic table's objective as its target (``upper=None``: the target
guessed above the best bound), the package before it. ``--variants no-floors``
gives every candidate the size floor ``k`` (not its least legal group's), the
package before floor rows. ``--variants no-whole-search`` runs the whole model
after the LP stage without the search beside it
(``search_beside_whole_model=False``), the package before it. ``--variants no-ball-blocks`` gives t-closeness's group blocks no integer block of the
total-variation ball (``ball_blocks=False``) and does not price the blocks at the LP's multipliers
(``blocks_at_lp=False``), the package before them. ``--variants no-emd-blocks`` prices no integer program of each candidate's group under the ordered or the
hierarchical distance (``emd_blocks=False``), the package before it; ``--variants no-whole-pricing``
steps the second ascent with the EMD's blocks as with every other (``second_ascent_whole_pricing=False``), the package
before stop 80; ``--variants repeat-steps`` lets the second ascent solve its starts again and take the steps it
knows again (``known_steps=False``, carried to its process with its options), the package before stop 81.
``--variants no-restricted-model``
solves the LP after the restricted LP even where the restricted LP's optimum shows it cannot
raise the bound (``restricted_model=False``), not the restricted
model in its place, the package before it. ``--variants no-second-ascent``
leaves the time the search does not use idle (``second_ascent=False``) instead of a second ascent of the group blocks, the package before it.
``--variants no-ascent-beside`` runs that second ascent only after the search
after the stage, in what the search leaves (``second_ascent_beside=False``), not beside it on the other core from the search's start, the
package before it. ``--variants no-blocks-rounding`` starts from the heuristic
table alone (``blocks_rounding=False``), not from the rounding of
the group blocks' solutions averaged over the ascent where that is cheaper,
the package before it. ``--variants no-unfinished-skip`` runs the whole LP
after a restricted LP that did not finish under exact group blocks
(``unfinished_lp_skips=False``), not the search and the second
ascent in its time, the package before it. ``--variants no-search-beside`` runs
no search beside the relaxations of the row generation
(``search_beside_row_generation=False``): every ``R(A)`` within the stage's
share of the limit, the search after the stage alone, the package before it.
``--variants no-search-memory`` starts every call of the search afresh
(``search_memory=False``): at the first column order with the first
neighbourhood size, re-solving what the last call solved, the package before
it (``after``: one ``milp_anon.search.lns.SearchMemory`` per solve).

``--variants before,after`` runs every case twice in one run: ``after`` is the
package as it is; ``before`` switches the group blocks off in that run's
process (``milp_anon.reduction.request_blocks`` returns ``None``) and with
them t-closeness's pruning by what every close group holds, which is the
package before them: the k-anonymity LP bound alone.

    python -m benchmarks.sensitive_goal [--time-limit 600] [--qis 4] [--lns 0.25] [--variants after] [--out ...]
"""

from __future__ import annotations

import argparse
import math
import resource
import time

from benchmarks.common import ADULT_QI, provenance_line, run_serial, write_results

QI_ORDER = list(ADULT_QI[:7])
CASES = ["frequency l=3", "distinct l=3", "recursive c=3 l=2", "p=3", "t=0.2 equal", "t=0.2 ordered",
         "t=0.2 hierarchical", "t=0.3 equal", "t=0.3 ordered", "t=0.3 hierarchical"]


def criterion(case):
    import milp_anon as ma
    from milp_anon.tables.datasets import adult_hierarchy_path
    from milp_anon.tables.hierarchy import Hierarchy

    if case == "frequency l=3":
        return ma.LDiversity(3)
    if case == "distinct l=3":
        return ma.LDiversity(3, kind="distinct")
    if case == "recursive c=3 l=2":
        return ma.LDiversity(2, kind="recursive", c=3)
    if case == "p=3":
        return ma.PSensitivity(3)
    t, distance = case[2:].split()
    hier = Hierarchy.from_csv(adult_hierarchy_path("occupation"))
    kw = {"ordered": {"order": list(hier.paths)}, "hierarchical": {"hierarchy": hier}}.get(distance, {})
    return ma.TCloseness(float(t), distance=distance, **kw)


def _lp_part(label, status, objective, seconds, rounded=None, refined=None, search=None):
    """One LP of the stage: its objective (or status), seconds, rounded and refined tables, the search beside it."""
    return (f"{label} {objective:.6g}" if objective is not None else f"{label} {status}") + f" ({seconds:.0f} s)" \
        + (f", rounded {rounded:.6g}" if rounded is not None else "") \
        + (f", refined {refined:.6g}" if refined is not None else "") \
        + (f", search beside it {search['start']:.6g} → {search['end']:.6g}" if search else "")


def lp_summary(lr) -> str:
    """The LP relaxation stage's column: the restricted LP, the LP, the slack LP, the model skipped."""
    if lr is None:
        return "–"
    parts = []
    if lr.restricted_status is not None:
        parts.append(_lp_part(f"restricted LP ({lr.restricted_pairs} pairs)", lr.restricted_status,
                              lr.restricted_objective, lr.restricted_seconds, lr.restricted_rounded,
                              lr.restricted_refined, lr.restricted_search))
    if lr.model_status is not None:  # the restricted model in place of the LP
        parts.append(_lp_part(f"restricted model ({lr.model_pairs} pairs)", lr.model_status, lr.model_objective,
                              lr.model_seconds, None, None, lr.model_search))
    if not lr.lp_status.startswith("skipped"):
        lp = _lp_part("LP (presolved)" if lr.lp_presolve else "LP", lr.lp_status, lr.lp_objective, lr.lp_seconds,
                      lr.rounded, None, lr.search)
        if lr.lp_bound is not None and lr.lp_objective is None:
            lp = lp.replace(" s)", f" s), dual bound {lr.lp_bound:.6g}", 1)
        parts.append(lp)
    if lr.slack_status is not None:
        parts.append(_lp_part("slack LP", lr.slack_status, lr.slack_objective, lr.slack_seconds, lr.slack_rounded,
                              lr.slack_refined, lr.slack_search))
    whole = "" if not lr.whole_search else \
        f"; search beside the whole model {lr.whole_search['start']:.6g} → {lr.whole_search['end']:.6g}"
    return "; ".join(parts) + (", model skipped" if lr.model_skipped else "") + whole


def run_one(job):
    n_qi, case, k, time_limit, share, variant = job
    import dataclasses

    import milp_anon as ma
    from milp_anon import reduction
    from milp_anon.pipeline import relaxation
    from milp_anon.pipeline import solve as pipeline
    from milp_anon.tables.datasets import load_adult

    # the techniques a variant switches off (its solve's tuning); the variants that patch functions do so in this
    # process only (run_serial spawns one per run)
    off = {"lp-alone": dict(search_beside_lp_stage=False), "no-slack": dict(slack_lp=False),
           "lp-presolve-off": dict(lp_presolve_max_columns=-1), "no-whole-pricing": dict(second_ascent_whole_pricing=False),
           "repeat-steps": dict(known_steps=False), "no-emd-blocks": dict(emd_blocks=False),
           "no-ball-blocks": dict(ball_blocks=False, blocks_at_lp=False),
           "no-whole-search": dict(search_beside_whole_model=False), "no-restricted-model": dict(restricted_model=False),
           "no-second-ascent": dict(second_ascent=False), "no-ascent-beside": dict(second_ascent_beside=False),
           "no-blocks-rounding": dict(blocks_rounding=False), "no-unfinished-skip": dict(unfinished_lp_skips=False),
           "no-search-beside": dict(search_beside_row_generation=False), "no-search-memory": dict(search_memory=False),
           "no-restricted": dict(restricted_share=0.0), "no-resolve": dict(resolve_failing=False),
           "no-known-bound": dict(at_known_bound=False), "repair-first": dict(repair_beside=False),
           "milp-first": dict(first_by_reduction=False), "unsplit": dict(partial_split=False)}
    tuning = dataclasses.replace(ma.Tuning(), **off.get(variant, {}))
    if variant == "before":  # this process only (run_serial spawns one per run)
        from milp_anon.privacy.criteria import Criterion, TCloseness

        reduction.request_blocks = lambda instance, request: None
        TCloseness.prune = Criterion.prune  # nor t-closeness's distinct-values pruning
    if variant == "no-criteria-greedy":  # the heuristics before the pattern greedy with criteria
        from milp_anon.search import starts

        starts.criteria_pattern_greedy = lambda *a, **k: None
    if variant == "no-lp-rounding":  # no LP relaxation and rounding before the whole model
        from milp_anon.pipeline import relaxation

        relaxation.unavailable = lambda request, solver: "switched off by the benchmark"
    if variant == "no-refine":  # no refinement of the classes (the start's and the search's), the package before
        from milp_anon.search import lns, starts
        from milp_anon.tables.table import SUPPRESSED

        def unrefined(table, criteria, released, deadline=None):  # the table as it is, and its cost
            return released, int((released[list(table.qi)] == SUPPRESSED).to_numpy().sum())

        lns.refine_release = unrefined
        starts.refine_release = unrefined
    if variant == "slack-all":  # the slack LP over every candidate (the package before the restriction)
        from milp_anon.search import lp_rounding

        lp_rounding.SUPPORT_TOL = -math.inf
    if variant == "no-ball-prune":  # keep candidates with no integer group in the ball (the package before)
        import numpy as np

        from milp_anon.privacy.criteria import TCloseness

        TCloseness._far = staticmethod(lambda m, ball, min_size: np.ones(m.shape[0], dtype=bool))
    if variant == "no-frequency-prune":  # keep candidates with no frequency-diverse group (the package before)
        from milp_anon.privacy.criteria import LDiversity, _SensitiveCriterion

        LDiversity.prune = lambda self, table, units, cands, min_size=1: _SensitiveCriterion._prune_distinct(
            self, table, units, cands, math.ceil(self.l - 1e-12))
    if variant == "guessed-target":  # the ascent's target guessed, not the heuristic table's cost (the package before)
        from milp_anon import reduction

        real_block_bounds = reduction.block_bounds

        def guessed(*args, upper=None, **kwargs):
            return real_block_bounds(*args, **kwargs)

        reduction.block_bounds = guessed
    if variant == "no-floors":  # every candidate's size floor k, not its least legal group's (the package before)
        import numpy as np

        from milp_anon.bounds import blocks
        from milp_anon.formulations import assignment

        def k_floors(instance, request):
            return np.full(instance.candidates.n_candidates, request.min_group_size(), dtype=np.int64)

        assignment.group_floors = blocks.group_floors = k_floors

    table = ma.Table.from_frame(load_adult(), QI_ORDER[:n_qi], "occupation")
    crit = criterion(case)
    t0 = time.perf_counter()
    rows = "all" if variant == "all-rows" else "auto"  # all-rows: the whole model, as before row generation
    r = ma.Request(ma.KAnonymity(k), crit, criteria_rows=rows).solve(table, time_limit=time_limit, lns=share,
                                                                     tuning=tuning)
    ln = r.lns
    source = {None: "HiGHS", pipeline.K_BOUND_SOURCE: "k-anonymity LP",
              pipeline.BLOCK_BOUND_SOURCE: "group blocks", pipeline.BLOCK_LP_SOURCE: "group blocks at the LP's multipliers",
              pipeline.ROW_GENERATION_SOURCE: "row generation",
              relaxation.LP_BOUND_SOURCE: "LP relaxation"}[
        r.bound_source]
    rg = r.row_generation
    models = "–" if rg is None else (f"{len(rg.iterations)} ({rg.iterations[-1].active if rg.iterations else 0} "
                                     f"of {rg.candidates})" + ("" if rg.converged else ", handed over" if rg.handed_over
                                                              else ", not converged"))
    beside = [it for it in (rg.iterations if rg is not None else []) if it.searched is not None]
    if beside:  # the search beside the relaxations (tuning.search_beside_row_generation): its best table and time
        models += (f"; search beside {len(beside)}: {beside[-1].searched:.6g} in "
                   f"{sum(it.search_seconds for it in beside):.0f} s")
    lr = r.lp_rounding
    lp = lp_summary(lr)
    return {"qis": n_qi, "case": crit.describe(), "k": k, "variant": variant, "status": r.status,
            "objective": r.objective, "bound": r.bound, "gap": r.gap, "bound_from": source,
            "released_by": r.source, "models": models, "start": r.warm_start_cost, "lp_rounding": lp,
            "lns": "–" if ln is None else f"{ln.start:.6g} → {ln.end:.6g} ({ln.solved} solved, {ln.improved} "
                                          f"improved, {ln.refined} refined, {ln.known} known)",
            "blocks_rounding": "–" if r.blocks_rounding is None else
            (f"{r.blocks_rounding['rounded']} ({r.blocks_rounding['steps']} steps"
             f"{', refined ' + format(r.blocks_rounding['refined'], 'g') if r.blocks_rounding['refined'] else ''}, "
             f"{r.blocks_rounding['seconds']:.1f} s{', the start' if r.blocks_rounding['used'] else ''})"),
            "second_ascent": "–" if r.second_ascent is None else
            (f"{r.second_ascent['start']:.2f} → {r.second_ascent['bound']:.2f} ({r.second_ascent['steps']} steps, "
             f"{r.second_ascent['seconds']:.0f} s{', beside the search' if r.second_ascent.get('beside') else ''})"),
            "phases": " / ".join(f"{k} {v:.0f}" for k, v in r.timings.as_dict().items()
                                 if k not in ("total", "collapse", "candidates") and v is not None and v >= 0.5),
            "wall_s": time.perf_counter() - t0, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def cases_and_qis(ap, a):
    """The ``--cases`` and ``--qis`` arguments, checked (``ap.error`` on an unknown case or QI count)."""
    cases = [c.strip() for c in a.cases.split(",")]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        ap.error(f"unknown case(s): {', '.join(unknown)}")
    qis = [int(q) for q in a.qis.split(",")]
    if any(not 1 <= q <= len(QI_ORDER) for q in qis):
        ap.error(f"--qis takes 1 to {len(QI_ORDER)} QIs ({', '.join(QI_ORDER)})")
    return cases, qis


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--qis", default="4")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--lns", type=float, default=0.25)
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated subset of the cases")
    ap.add_argument("--variants", default="after", help="comma-separated: before (no group blocks), all-rows (the whole model instead of row "
                                                      "generation), unsplit (R(A) without the partial split), "
                                                      "no-criteria-greedy (without the pattern greedy with criteria), "
                                                      "no-lp-rounding (without the LP relaxation's stage), no-refine (without the refinement), "
                                                      "no-slack (without the slack LP), slack-all (the slack LP "
                                                      "over every candidate), "
                                                      "lp-alone (the LP without the search "
                                                      "beside it), no-ball-prune (without the ball pruning), "
                                                      "no-frequency-prune (without frequency ℓ's size pruning), no-resolve (R(A) "
                                                      "repaired without re-solving its failing classes), no-known-bound, repair-first, "
                                                      "milp-first (R(∅) as one MILP, not by the reduction), after")
    ap.add_argument("--out", default="benchmarks/results/sensitive_goal")
    a = ap.parse_args(argv)
    cases, qis = cases_and_qis(ap, a)
    variants = [v.strip() for v in a.variants.split(",")]
    known = ("before", "all-rows", "unsplit", "no-criteria-greedy", "no-lp-rounding", "lp-alone", "no-refine",
             "no-slack", "slack-all", "lp-presolve-off", "no-restricted", "no-ball-prune",
             "no-frequency-prune", "no-resolve", "no-known-bound", "repair-first", "milp-first", "guessed-target",
             "no-floors", "no-restricted-model", "no-second-ascent", "no-ascent-beside",
             "no-blocks-rounding", "no-unfinished-skip", "no-search-beside", "no-search-memory",
             "no-whole-search", "no-ball-blocks", "no-emd-blocks", "no-whole-pricing",
             "repeat-steps", "after")
    if any(v not in known for v in variants):
        ap.error("variants are " + ", ".join(f"'{v}'" for v in known[:-1]) + f" and '{known[-1]}'")
    jobs = [(q, c, a.k, a.time_limit, a.lns, v) for q in qis for c in cases for v in variants]
    rows = run_serial(run_one, jobs)
    intro = (f"{provenance_line('sensitive_goal')}; sensitive occupation, k = {a.k}, QIs in the order "
             f"{', '.join(QI_ORDER)}; time limit {a.time_limit:g} s per run, `lns={a.lns:g}`; one run at a time, "
             "each in its own process. Peak MB is the parent process (an isolated HiGHS child is not counted).")
    cols = [("qis", "QIs"), ("case", "criterion (with k)"), ("variant", "variant"), ("status", "status"), ("objective", "objective"),
            ("bound", "bound"), ("gap", "gap"), ("bound_from", "bound from"), ("released_by", "released by"),
            ("start", "heuristic start"), ("blocks_rounding", "blocks' rounding"), ("models", "row generation: models (A of candidates)"),
            ("lp_rounding", "LP rounding"), ("lns", "search"), ("second_ascent", "second ascent (L)"),
            ("phases", "phases s"), ("wall_s", "total s"),
            ("peak_mb", "peak MB")]
    write_results(a.out, rows, "Issue 13's sensitive cases on UCI Adult (30,162 rows)", cols, intro)


if __name__ == "__main__":
    main()
