"""Issue 6: the exact Lagrangian reduction against the whole model on full Adult (30,162 rows).

    python -m benchmarks.scale techniques [--limit SEC]          # 5 QIs: whole model vs reduction, same run
    python -m benchmarks.scale frontier --qis 6,7,8 --ks 2,5,10 [--limit SEC] [--lns 0,0.25]
                                        [--variants after,cumulative-limit,unsmoothed,no-rounding,no-union,no-fit,parallel,
                                                    no-search-beside,no-root-cuts,no-cliques,
                                                    no-round-cliques,no-rank-rows,no-proof-share,
                                                    no-whole-limit,no-hard-end,unchunked,
                                                    per-pair-prices,no-search-memory,no-search-beside-lp,
                                                    no-split-search]
                                        [--recoding suppression|lm|height] [--max-memory-gb GB]

QIs in the order sex, age, race, marital-status, education, native-country,
workclass, occupation (the first ``q``). Each run in its own spawned process,
one at a time (runs never share the cores); ``peak MB`` is the largest memory
the run and its solver children held at one time (sampled every 50 ms from
outside, :class:`milp_anon.runtime.memory.TreePeak`), ``own peak MB`` the run
process's own ``ru_maxrss``. Before 2026-11-29 ``peak MB`` was the run's
``ru_maxrss`` plus its children's, which counts the run's peak twice once a
child ran (a child started by ``subprocess`` inherits its parent's
high-water mark). An optimal result is then certified
(:func:`milp_anon.certify.certify`, outside the run's time and peak): the
``certify`` column says "no solver" when the bounds recomputed from the table
alone reach the objective, "with HiGHS" when the rounds' bounds are needed
too, "FAIL" when a check fails. Writes
``benchmarks/results/scale_reduction_<mode>.{csv,md}``. ``--lns`` lists the
shares of the limit kept for the large-neighbourhood search (one run per
share; default ``auto``, the package's own, what a user gets with no options). A variant switches techniques off in a
:class:`milp_anon.Tuning` given to the run's solve (``tuning=``), or patches a
function in that run's process. ``--variants cumulative-limit`` puts back, in
that run's process, the column generation's master time limit as it was
before 2026-11-24: HiGHS's ``time_limit`` set to the limit alone, which HiGHS
checks against the run time of every earlier master (``after``: as shipped).
``--variants unsmoothed`` puts back the column generation as it was before
2026-11-25: candidates priced at the master's own duals (no Wentges
smoothing), up to 2,000 entering per round, every master run to its optimum
(``smoothing=0``, ``max_add=2000``, ``master_seconds=inf``).
``--variants no-rounding`` turns off the LP rounding (``lp_rounding=False``: the rounds and the
heuristic tables find the incumbents, as before 2026-11-25's second change).
``--variants no-union`` puts back the rounds as they were before 2026-11-25's
third change: each round's model is ``S(G)`` alone, started from the whole
table as one group, and only the first round polishes (no incumbent pairs
added, no polish time handed on: ``round_holds_incumbent=False``,
``polish_shared=False``). Variants combine with ``+``
(``no-rounding+no-union``: the reduction as it was before both).
``--variants no-fit`` puts back what a round too large for ``--max-memory-gb``
did before 2026-11-25's fourth change: it ends the rounds (``after``: the
largest round that fits runs instead).
``--variants unchunked`` prices every candidate's block in one piece, as before
2026-11-29 (``price_chunk=2**62``; ``after``: chunks of 4 M pairs).
``--variants per-pair-prices`` has every round of the column generation compute
and hold the blocks' per-pair values (``take`` and ``forced``, 16 bytes a pair),
as before 2026-11-29's :func:`milp_anon.bounds.lagrangian.block_values` (``after``:
rc, a taken mask and ``L``, the per-pair values once, at the best multipliers).
``--variants parallel`` gives HiGHS both cores (``threads=2``, ``parallel="on"``:
the parallel tree search of HiGHS 1.15 in the rounds, the parallel dual simplex
in the LPs; ``after``: one thread).
``--variants no-search-memory`` starts every call of the search afresh
(``search_memory=False``), the package before 2026-12-02 (``after``: the
search beside each round goes on where the last stopped, skipping the
neighbourhoods it solved, ``milp_anon.search.lns.SearchMemory``).
``--variants no-search-beside-lp`` keeps k-anonymity's column generation in
the run's process with nothing beside it, the package before 2026-12-04
(``search_beside_lp=False``; ``after``: it runs in its own
process and the search, from the rounding of its master's point a quarter
of the way through, runs beside it; ``cumulative-limit`` and
``per-pair-prices`` patch this process's functions, so they keep it here).
``--variants no-split-search`` runs the search after the stage on one core,
the package before 2026-12-04's second change (``split_search=False``;
``after``: where nothing else runs, on two cores, two halves of the classes
searched at once, one in a child process, ``milp_anon.search.lns.improve_split``).
``--variants no-search-beside`` runs no large-neighbourhood search beside the
rounds (``search_beside_rounds=False``), the package before 2026-11-27
(``after``: with ``--lns`` above 0, the search runs in the main process, from the
incumbent, while a round of 100 s or more runs in its own).
``--variants no-root-cuts`` solves every round whole (``round_root_cuts=False``),
the package before 2026-11-28 (``after``: a round of 100 k columns or
more that does not polish goes through its root's cuts,
:mod:`milp_anon.solvers.root_cuts`).
``--variants no-cliques`` adds no conflict cliques to the column generation's
masters (``cliques=False``), the package before 2026-11-28's
second change (``after``: the cliques its converged masters violate enter, and
the bound and the pair bounds are ``L(π, μ)``, :mod:`milp_anon.bounds.conflicts`).
``--variants no-round-cliques`` keeps those cliques out of the rounds' models
(``round_cliques=False``), the package before 2026-11-28's third
change (``after``: each round's model holds them as rows, :func:`milp_anon.reduction.add_clique_rows`).
``--variants no-rank-rows`` adds no rank rows ``Σ_{j ∈ S} y_j <= ⌊|R_S| / k⌋``
after the cliques (``rank_rows=False``), the package before
2026-11-29 (``after``: they enter the masters, the bound and the rounds like
the cliques, :func:`milp_anon.bounds.conflicts.violated_rank_rows`).
``--variants no-proof-share`` keeps the rounds' doubling to the end
(``proof_round_share=1``), the package before 2026-11-29's second
change (``after``: a later round that would hold more than half of ``S(UB)``'s
pairs is the proving round at ``G = UB``).
``--variants no-whole-limit`` gives the search its share after the
reduction even when it runs beside the rounds
(``search_beside_keeps_limit=False``), the package before
2026-11-29's third change (``after``: the reduction keeps the whole limit
then, :func:`milp_anon.reduction.keeps_whole_limit`).
``--variants no-hard-end`` lets a round in its own process run to its own
limit's kill margins (``hard_end_grace=inf``), the package before
2026-11-29's (stop 62) change (``after``: killed at the end of the reduction's
limit, ``hard_end_grace`` later; the limit counted from the solve's call in both).
``--variants feasibility-jump`` gives HiGHS back its feasibility-jump heuristic
in the rounds (the package turns it off in every MIP given a start since
2026-11-27: it ignores the time limit, 7-8 s on a 389 k-column model).
``--recoding lm`` / ``height``: local recoding with the ARX hierarchies of
every QI (that cost), instead of suppression.
"""

from __future__ import annotations

import argparse
import math
import os

from .common import ADULT_QI, fmt, run_serial, write_csv, write_md_table

QI = list(ADULT_QI)
OUT = os.path.join(os.path.dirname(__file__), "results")


class _HeldPrices:
    """A column-generation round's blocks as before ``block_values``: the full :class:`BlockPrices` held."""

    def __init__(self, prices):
        self.rc, self.bound, self.taken, self.prices = prices.rc, prices.bound, prices.take > 0, prices


def _per_pair_values(*args, negative_only=False, **kwargs):
    from milp_anon.bounds import lagrangian

    return _HeldPrices(lagrangian.block_prices(*args, **kwargs))  # every block solved: the package before


def run(job):
    import dataclasses
    import resource
    import time

    import milp_anon as ma
    from milp_anon.tables.datasets import load_adult

    q, k, reduction, limit, share, variant, recoding, max_gb = job
    from milp_anon import reduction as _reduction
    engine = dict(threads=1)  # one HiGHS thread: the default solve's
    tuning = ma.Tuning()  # the package as shipped; a variant switches techniques off in it

    def tuned(**changes):
        return dataclasses.replace(tuning, **changes)

    for v in variant.split("+"):
        if v == "cumulative-limit":
            _cumulative_master_limit()
            tuning = tuned(search_beside_lp=False)  # the patch is this process's: the column generation stays here
        elif v == "unsmoothed":
            tuning = tuned(smoothing=0.0, max_add=2000, master_seconds=math.inf)
        elif v == "no-rounding":
            tuning = tuned(lp_rounding=False)
        elif v == "no-union":
            tuning = tuned(round_holds_incumbent=False, polish_shared=False)
        elif v == "no-fit":
            _reduction.LagrangianReduction.fitting_threshold = lambda self, G: None
        elif v == "parallel":
            engine = dict(threads=2, highs_options=(("parallel", "on"),))
        elif v == "feasibility-jump":  # HiGHS's default, which the package turns off in a MIP given a start
            engine = dict(engine, highs_options=tuple(engine.get("highs_options", ()))
                          + (("mip_heuristic_run_feasibility_jump", True),))
        elif v == "no-search-beside":
            tuning = tuned(search_beside_rounds=False)
        elif v == "no-root-cuts":
            tuning = tuned(round_root_cuts=False)
        elif v == "no-cliques":
            tuning = tuned(cliques=False)
        elif v == "no-round-cliques":
            tuning = tuned(round_cliques=False)
        elif v == "no-rank-rows":
            tuning = tuned(rank_rows=False)
        elif v == "no-proof-share":
            tuning = tuned(proof_round_share=1.0)
        elif v == "no-whole-limit":
            tuning = tuned(search_beside_keeps_limit=False)
        elif v == "unchunked":
            tuning = tuned(price_chunk=2**62)
        elif v == "per-pair-prices":
            from milp_anon.bounds import lagrangian

            lagrangian.block_values = _per_pair_values
            tuning = tuned(search_beside_lp=False)  # the patch is this process's: the column generation stays here
        elif v == "no-search-beside-lp":
            tuning = tuned(search_beside_lp=False)
        elif v == "no-search-memory":
            tuning = tuned(search_memory=False)
        elif v == "no-split-search":
            tuning = tuned(split_search=False)
        elif v == "no-hard-end":
            tuning = tuned(hard_end_grace=math.inf)
        elif v != "after":
            raise SystemExit(f"unknown variant {v!r}")
    table = ma.Table.from_frame(load_adult(), qi=QI[:q])
    rec = None
    if recoding != "suppression":
        from milp_anon.tables.datasets import adult_hierarchy_path
        rec = ma.Generalization({c: adult_hierarchy_path(c) for c in QI[:q]}, cost=recoding)
    t = time.perf_counter()
    r = ma.anonymize(table, ma.KAnonymity(k), recoding=rec, reduction=reduction, time_limit=limit,
                     lns=share, max_memory_gb=max_gb, tuning=tuning, **engine)
    wall = time.perf_counter() - t
    red = r.reduction.as_dict() if r.reduction else {}
    rounds = red.get("rounds", [])
    own_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    measured_until = time.time()  # the run's memory with its children: memory.TreePeak, up to here
    certified, certify_s = _certified(table, k, rec, r)  # after the peak: not part of the run
    return {
        "qis": q, "k": k, "recoding": recoding, "reduction": reduction, "variant": variant, "limit": limit, "lns": share,
        "status": r.status,
        "objective": r.objective, "bound": r.bound, "gap": r.gap, "seconds": round(wall, 1),
        "lp_seconds": round(r.timings.lp or 0.0, 1), "lp_bound": red.get("lp_bound"),
        "clique_bound": red.get("clique_bound"), "cliques": len(red.get("cliques") or []),
        "rank_rows": sum(1 for x in red.get("clique_rhs") or [] if x != 1),
        "lp_converged": red.get("lp_converged"), "cg_iterations": red.get("cg_iterations"),
        "master_pairs": red.get("master_pairs"), "full_pairs": red.get("full_pairs", r.size.n_pairs),
        "rounding": red.get("rounding_objective"), "rounding_seconds": red.get("rounding_seconds"),
        "lp_search": _lp_search_cell(red.get("lp_search")),
        "rounds": len(rounds), "round_pairs": "/".join(str(x.get("pairs")) for x in rounds),
        "round_seconds": "/".join(str(x.get("seconds", 0)) for x in rounds),
        "round_G": "/".join(fmt_g(x.get("G")) for x in rounds),
        "round_status": "/".join(str(x.get("status")) for x in rounds),
        "round_objective": "/".join(fmt_g(x.get("objective")) for x in rounds),
        "round_search": "/".join("–" if not x.get("search") else f"{x['search']['start']:g}→{x['search']['end']:g}"
                                 for x in rounds),
        "round_root_cuts": "/".join(_root_cuts_cell(x.get("root_cuts")) for x in rounds),
        "round_cliques": "/".join(str(x.get("cliques") or 0) for x in rounds),
        "memory_kills": sum(1 for x in rounds if x.get("memory_killed")), "solver_status": r.solver_status,
        "source": r.source or "solver",
        "fallback": r.fallback, "own_peak_mb": round(own_peak), "measured_until": measured_until,
        "certified": certified, "certify_seconds": certify_s,
        "search": "–" if r.lns is None else f"{r.lns.start:.6g} → {r.lns.end:.6g} ({r.lns.solved} solved, "
                                            f"{r.lns.improved} improved, {r.lns.known} known"
                                            + (f", {r.lns.epochs} splits" if r.lns.epochs else "") + ")",
    }


def _certified(table, k, rec, r):
    """``milp-anon certify``'s verdict on an optimal result (after the run: not in its wall time or peak):
    "no solver" (the bounds recomputed from the table alone reach the objective), "with HiGHS" (the rounds'
    HiGHS bounds are needed too), "FAIL", or "–" (not optimal, or no reduction); and its seconds."""
    import json
    import time

    import milp_anon as ma
    from milp_anon.certify import certify

    if r.status != "optimal" or r.reduction is None:
        return "–", None
    t = time.perf_counter()
    cert = certify(table, ma.Request(ma.KAnonymity(k), recoding=rec), json.loads(r.to_json()))
    verdict = "FAIL" if not cert.ok else "no solver" if cert.solver_free else "with HiGHS"
    return verdict, round(time.perf_counter() - t, 2)


def _root_cuts_cell(log) -> str:
    """A round's solve through its root's cuts in a few words (``–``: solved whole)."""
    if not log:
        return "–"
    out = f"{log.get('cuts', 0)} cuts"
    if log.get("cut_bound") is not None:
        out += f"; {log['cut_bound']:.2f}"
    if log.get("fixed") is not None:
        out += f"; {log['fixed']:,} / {log['kept']:,} against {log['target']:g}"
    secs = [log.get(k) for k in ("root_seconds", "lp_seconds", "compact_seconds") if log.get(k) is not None]
    return out + "; " + " + ".join(f"{v:.0f}" for v in secs) + " s"


def _lp_search_cell(said) -> str:
    """The search beside the column generation: when the master's point came, its rounding, the search's end."""
    if not said:
        return "–"
    return f"{said['guide_seconds']:g} s: {said['rounding']:g} → {said['search']['end']:g}"


def _cumulative_master_limit():
    """The master's limit before the fix: the option is the limit alone (HiGHS sums every run's time)."""
    import highspy
    import numpy as np

    from milp_anon.bounds.lagrangian import RestrictedMaster

    def solve(self, time_limit, cap=None):  # no cap then either
        if time_limit is not None:
            self.h.setOptionValue("time_limit", float(time_limit))
        self.h.run()
        if self.h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        return float(self.h.getInfo().objective_function_value), np.asarray(self.h.getSolution().row_dual,
                                                                            dtype=float)

    RestrictedMaster.solve = solve


def fmt_g(g):
    return "–" if g is None else f"{g:g}"


COLUMNS = [("qis", "QIs"), ("k", "k"), ("recoding", "recoding"), ("reduction", "reduction"), ("variant", "variant"), ("limit", "limit s"),
           ("lns", "lns"),
           ("status", "status"),
           ("objective", "cost"), ("bound", "bound"), ("gap", "gap"), ("seconds", "wall s"),
           ("lp_seconds", "LP s"), ("lp_bound", "LP bound"), ("clique_bound", "LP + cliques"),
           ("cliques", "cliques"), ("rank_rows", "of them rank rows"), ("cg_iterations", "CG rounds"),
           ("lp_converged", "LP converged"), ("master_pairs", "master pairs"),
           ("rounding", "LP rounding"), ("rounding_seconds", "rounding s"),
           ("lp_search", "search beside the LP (point handed over at; its rounding → the search's table)"),
           ("full_pairs", "all pairs"), ("round_pairs", "pairs per round"), ("round_G", "G per round"),
           ("round_seconds", "s per round"),
           ("round_status", "round status"), ("round_objective", "incumbent per round"),
           ("round_search", "search beside the round"),
           ("round_root_cuts",
            "root cuts per round (cuts; cuts' LP bound; columns fixed / kept against the target τ; s root + LP + compact)"),
           ("round_cliques", "clique rows per round"),
           ("source", "released by"), ("search", "search"),
           ("memory_kills", "rounds killed at the memory allowed"), ("tree_peak_mb", "peak MB"), ("own_peak_mb", "own peak MB"), ("certified", "certify"), ("certify_seconds", "certify s")]


def write_md(path, title, rows, columns=COLUMNS, intro=None):
    def cell(key, v):
        return f"{100 * v:.3f} %" if key == "gap" and v is not None else fmt(v)

    write_md_table(path, title, columns, rows, cell, intro)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["techniques", "frontier"])
    ap.add_argument("--qis", default="6,7,8")
    ap.add_argument("--ks", default="2,5,10")
    ap.add_argument("--limit", type=float, default=None)
    ap.add_argument("--lns", default="auto",
                    help="shares of the limit for the large-neighbourhood search, e.g. 0,0.25; auto: the package's "
                         "default (what a user gets with no options)")
    ap.add_argument("--variants", default="after",
                    help="after (as shipped), cumulative-limit, unsmoothed, no-rounding, no-union, no-fit, parallel, ...; "
                         "combine with +")
    ap.add_argument("--recoding", default="suppression", choices=["suppression", "lm", "height"])
    ap.add_argument("--max-memory-gb", type=float, default=None,
                    help="the model option max_memory_gb (a round estimated above it is not built)")
    ap.add_argument("--tag", default=None, help="suffix of the output files (default: the mode)")
    args = ap.parse_args(argv)
    ks = [int(x) for x in args.ks.split(",")]
    shares = [x if x == "auto" else float(x) for x in args.lns.split(",")]
    variants = args.variants.split(",")
    if args.mode == "techniques":
        limit = args.limit or 300.0
        jobs = [(5, k, red, limit, share, v, args.recoding, args.max_memory_gb) for k in ks
                for red in ("none", "lagrangian") for share in shares for v in variants]
        title = f"Whole model vs Lagrangian reduction, Adult 5 QIs, limit {limit:g} s (one run, same machine)"
    else:
        limit = args.limit or 600.0
        jobs = [(int(q), k, "lagrangian", limit, share, v, args.recoding, args.max_memory_gb)
                for q in args.qis.split(",") for k in ks for share in shares for v in variants]
        title = f"Lagrangian reduction on Adult, limit {limit:g} s per run (one run, same machine)"
    if args.recoding != "suppression":
        title += f", ARX hierarchies ({args.recoding})"
    rows = run_serial(run, jobs)
    tag = args.tag or args.mode
    write_csv(os.path.join(OUT, f"scale_reduction_{tag}.csv"), rows)
    write_md(os.path.join(OUT, f"scale_reduction_{tag}.md"), title, rows)


if __name__ == "__main__":
    main()
