"""Heuristic tables for a request, and starts for the solver: one policy.

Which heuristics run (:func:`heuristic_tables`) is decided here only:

* suppression: the plain suppression greedy (any criteria) and, with at most
  ``ALL_MASKS_MAX_M`` QIs, the pattern greedy over every suppression mask
  (for k-anonymity alone) or its variant that trims each pattern instance to
  its largest part meeting the sensitive criteria
  (:func:`~milp_anon.heuristics.criteria_pattern_greedy`); with sensitive
  criteria, each of their tables refined as well
  (:func:`~milp_anon.heuristics.refine.refine_release`: classes split by a
  suppressed column where the parts meet the criteria), and the whole table
  as one class refined (a top-down split);
* pattern-guided suppression (k-anonymity alone): the pattern greedy over the patterns;
* interval and value-set cells: strict Mondrian (its classes at their hulls) and, with an interval column and
  k-anonymity alone, the interval split (:func:`~milp_anon.heuristics.interval_split`: groups on the other QIs
  cut into segments of consecutive values);
* hierarchies (and suppressed columns beside them): strict Mondrian with the
  hierarchies (any criteria) and, for k-anonymity alone, the level greedy
  (:func:`~milp_anon.heuristics.level_greedy`: the pattern greedy over
  generalization levels), so the incumbent generalizes instead of suppressing.

Their verified tables serve three purposes: the warm start
(``warm_start="greedy"``, :func:`warm_start`), the fallback when a solve ends
without a verified table or with a poorer one (:func:`best_heuristic`, which
also considers the whole table as one group — feasible whenever the request
passed the whole-table pre-check), and the benchmark harness's heuristic
methods. The whole table as one group is also every model's default start
(:func:`whole_table_start`).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from milp_anon.heuristics import (
    criteria_pattern_greedy,
    interval_split,
    level_greedy,
    mondrian,
    pattern_greedy,
    suppression_greedy,
)
from milp_anon.heuristics.refine import refine_release
from milp_anon.privacy.criteria import group_test
from milp_anon.release.partition import release_blocks
from milp_anon.release.verified import Release
from milp_anon.runtime.errors import MilpAnonError, OptionViolation, VerificationError
from milp_anon.tables.recoding import Generalization, Patterns, Suppression

__all__ = ["ALL_MASKS_MAX_M", "all_masks", "best_heuristic", "heuristic_tables", "interval_split_applies",
           "release_pairs", "release_start", "warm_start", "whole_table_start"]

#: the pattern greedy tries every one of the 2^m suppression masks up to this many QIs
ALL_MASKS_MAX_M = 16


def all_masks(m: int) -> np.ndarray:
    """``(2^m, m)`` every keep-mask over ``m`` QIs."""
    return np.array(list(itertools.product([True, False], repeat=m)), dtype=bool).reshape(-1, m)


def heuristic_tables(table, request) -> list[tuple[str, object, float]]:
    """``(name, released table, cost)`` of every heuristic that applies to ``request`` (module docstring)."""
    out = []
    k = request.min_group_size()
    if isinstance(request.recoding, Suppression):
        sensitive = any(c.needs_sensitive for c in request.criteria)
        res = suppression_greedy(table, request.criteria)
        if res is not None:
            out.append(("suppression greedy", *res))
        if request.k_alone and table.m <= ALL_MASKS_MAX_M:
            res = pattern_greedy(table, k, all_masks(table.m))
            if res is not None:
                out.append(("pattern greedy", *res))
        elif table.m <= ALL_MASKS_MAX_M and sensitive:
            res = criteria_pattern_greedy(table, request.criteria, all_masks(table.m))
            if res is not None:
                out.append(("pattern greedy with criteria", *res))
        if sensitive and request.recoding.scheme == "local":
            # each greedy's table refined: its large classes split where the parts meet the criteria; and
            # the whole table as one class refined, which splits top-down (fewest values first)
            for name, released, cost in list(out):
                refined = refine_release(table, request.criteria, released)
                if refined[1] < cost:
                    out.append((f"{name}, refined", *refined))
            if group_test(table, request.criteria)(np.arange(table.n)):
                out.append(("whole table, refined",
                            *refine_release(table, request.criteria, release_blocks(table, [np.arange(table.n)]))))
    elif isinstance(request.recoding, Generalization):
        if request.k_alone and not request.recoding.cell_columns:
            res = level_greedy(table, k, request.recoding)
            if res is not None:
                out.append(("level greedy", *res))
        if interval_split_applies(request):
            res = interval_split(table, k, request.recoding)
            if res is not None:
                out.append(("interval split", *res))
        res = mondrian(table, request.criteria, request.recoding)
        if res is not None:
            out.append(("mondrian", *res))
    elif isinstance(request.recoding, Patterns) and request.k_alone:
        res = pattern_greedy(table, k, request.recoding.masks(table))
        if res is not None:
            out.append(("pattern greedy", *res))
    return out


def interval_split_applies(request) -> bool:
    """Whether :func:`heuristic_tables` runs the interval split: k-anonymity alone with an interval column."""
    return request.k_alone and bool(getattr(request.recoding, "intervals", ()))


def _best(candidates, table, request) -> Release | None:
    """The best of ``candidates`` that pass the verifier and the options.

    A table that fails a criterion is a bug of its heuristic and raises; one
    outside a budget or a bound on the number of groups is merely not used.
    """
    best = None
    sign = -1.0 if request.model.objective == "types" else 1.0  # "types" is maximized
    for name, released, cost in candidates:
        try:
            # the heuristics count cells unweighted: with column weights (or the entropy cost) the verifier's
            # recount is the cost
            rel = Release.verified(table, request, released, cost=None if request.recoding.recounted else cost,
                                   source=name)
        except OptionViolation:
            continue
        if best is None or sign * rel.objective < sign * best.objective - 1e-9:
            best = rel
    return best


def best_heuristic(table, request, *, whole_table: bool = True) -> Release | None:
    """The best verified heuristic table for ``request`` (and the whole table as one group), or ``None``."""
    try:
        candidates = heuristic_tables(table, request)
    except VerificationError:
        raise
    except MilpAnonError:  # a heuristic that cannot handle this input gives no table
        candidates = []
    # the whole table as one class only where it meets the criteria: with record suppression a request can be
    # feasible while it does not (t-closeness against a given reference), and its hull may fail k-map or δ-presence
    if whole_table and group_test(table, request.criteria)(np.arange(table.n)):
        try:
            candidates.append(("whole table", release_blocks(table, [np.arange(table.n)], request.recoding), None))
        except MilpAnonError:  # e.g. no pattern suppresses every column that varies
            pass
    return _best(candidates, table, request)


def whole_table_candidate(cands, n: int) -> int | None:
    """The cheapest candidate that can hold all ``n`` rows (the closure of the whole table), or ``None``."""
    full = np.flatnonzero(cands.capacity == n)
    return None if full.size == 0 else int(full[np.argmin(cands.cost[full])])


def whole_table_start(am):
    """The whole table as one group, as a sparse start ``(indices, values)``, or ``None``.

    Every criterion is closed under union and the request passed the
    whole-table pre-check, so releasing every row as the cheapest candidate
    of capacity ``n`` (the closure of the whole table) is feasible.
    """
    root = whole_table_candidate(am.cands, am.table.n)
    if root is None:
        return None
    return am.start(np.where(am.pair_cand == root, am.units.counts[am.pair_unit], 0))


def release_pairs(instance, pair_unit: np.ndarray, pair_cand: np.ndarray, release: Release):
    """The rows of a verified release per assignment pair ``(pair_unit, pair_cand)`` of ``instance``'s
    candidates, and the candidate of every row (``-1`` where its released vector is not a candidate).

    Each released cell is read as the node of its column's lattice that
    holds the row's value and bears that text (the lowest such ancestor; an
    interval or value-set cell by its text). Rows whose released vector is
    not a candidate are left out of the counts.
    """
    table, c = instance.table, instance.candidates
    lat = instance.lattices
    levels = np.full((table.n, table.m), -1, dtype=np.int64)
    nodes = np.full((table.n, table.m), -1, dtype=np.int64)
    for col, lattice in enumerate(lat):
        text = release.table[table.qi[col]].astype(str).to_numpy()
        names = np.asarray(lattice.names, dtype=object).astype(str)
        for lv in range(lattice.height, -1, -1):  # the lowest matching level wins
            anc = lattice.anc[table.codes[:, col], lv]
            hit = names[anc] == text
            levels[hit, col], nodes[hit, col] = lv, anc[hit]
        if lattice.cells is not None:  # proper cells are nobody's ancestor: found by their text
            miss = np.flatnonzero(levels[:, col] < 0)
            by_name = pd.Series(np.arange(len(names)), index=names)
            by_name = by_name[~by_name.index.duplicated(keep="last")]  # as the dict it replaced: the last
            node = pd.Series(text[miss]).map(by_name).fillna(-1).to_numpy(dtype=np.int64)
            found = node >= 0
            levels[miss[found], col] = np.asarray(lattice.level)[node[found]]
            nodes[miss[found], col] = node[found]
    # each row's (levels, nodes) against the candidates' keys, in one np.unique over both
    described = np.flatnonzero(np.all(levels >= 0, axis=1))
    keys = np.vstack([np.hstack([c.levels, c.nodes]).astype(np.int64),
                      np.hstack([levels[described], nodes[described]])])
    _, inv = np.unique(keys, axis=0, return_inverse=True)
    inv = inv.ravel()
    cand_of_key = np.full(inv.max() + 1 if inv.size else 0, -1, dtype=np.int64)
    cand_of_key[inv[:c.n_candidates][::-1]] = np.arange(c.n_candidates)[::-1]  # the first candidate of a key
    cand_of_row = np.full(table.n, -1, dtype=np.int64)
    cand_of_row[described] = cand_of_key[inv[c.n_candidates:]]
    ok = cand_of_row >= 0
    # rows per (unit, candidate) pair: pairs looked up by a sorted key
    C = max(c.n_candidates, 1)
    pair_key = pair_unit.astype(np.int64) * C + pair_cand
    order = np.argsort(pair_key, kind="stable")
    row_key = instance.units.row_unit[ok].astype(np.int64) * C + cand_of_row[ok]
    at = order[np.minimum(np.searchsorted(pair_key, row_key, sorter=order), max(order.shape[0] - 1, 0))]
    if row_key.size and not np.array_equal(pair_key[at], row_key):  # pragma: no cover - a row's candidate holds it
        raise VerificationError("a released row maps to a candidate that is not compatible with it")
    return np.bincount(at, minlength=pair_cand.shape[0]).astype(float), cand_of_row


def release_start(am, release: Release, *, partial: bool = True):
    """Map a verified release onto the model's columns as a start (:func:`release_pairs`).

    Rows whose released vector is not a kept candidate are left out; then
    only the candidates used by the others are fixed (HiGHS completes a
    partial start), or, with ``partial=False``, ``None`` is returned.
    """
    g, cand_of_row = release_pairs(am.instance, am.pair_unit, am.pair_cand, release)
    if np.all(cand_of_row >= 0):
        return am.start(g)
    if not partial:
        return None
    have = np.unique(cand_of_row[cand_of_row >= 0])  # fix only the candidates that are fully described
    return am.y[have], np.ones(have.shape[0])


def warm_start(am, request):
    """``(start, cost)`` from the best verified heuristic table (``warm_start="greedy"``), or ``None``."""
    best = best_heuristic(am.table, request, whole_table=False)
    if best is None:
        return None
    return release_start(am, best), best.cost
