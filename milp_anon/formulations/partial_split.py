"""The row generation's relaxation ``R(A)`` with units split only where criteria read them.

Problem: ``R(A)`` (:mod:`milp_anon.pipeline.row_generation`) is the whole model with
the sensitive criteria's rows kept for the candidates in ``A`` alone. Its
assignment runs over *units* (a row type with one vector of sensitive
values, :class:`~milp_anon.tables.rowtypes.Units`) for every candidate, although a
candidate outside ``A`` has no row that reads sensitive values: which of a
type's units its rows come from changes nothing in ``R(A)``.

Formulation (``formulations/row-generation.md``, "Units split only in A"):
the candidates in ``A`` keep the unit pairs ``g_uj`` with every row of the
whole model; the others get type pairs ``h_ij`` (cost ``w_j``, ``0 <= h_ij
<= n_i y_j``, ``Σ_i h_ij >= k y_j``); the rows ``Σ_j g_uj = n_u`` become
``Σ_{j∈A} g_uj <= n_u`` and the types' rows ``Σ_{u∈i} Σ_{j∈A} g_uj +
Σ_{j∉A} h_ij = n_i`` are added.

Exactness: the MILP has the optimum of ``R(A)``. Summing a solution of
``R(A)``'s unit pairs outside ``A`` per type gives ``h`` with the same cost
(the links and ``k`` rows sum). Conversely, with ``y`` integer, a type's
rows left by ``A`` (``n_u − Σ_{j∈A} g_uj`` per unit) are dealt out to its
``h_ij`` in any order (:meth:`PartialSplit.to_whole`): a unit pair gets at
most ``h_ij``, which is 0 unless ``y_j = 1``, and at most the unit's rows.
So a proven bound of this model is one of ``R(A)``, hence of the problem.

Size: the pairs outside ``A`` count once per type instead of once per unit
(Adult, 5 QIs, occupation: about 4x fewer columns).

Applies to the cost objective without budget, bounds on output groups or
withheld records (their rows read every unit pair; :func:`applies`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from milp_anon.formulations.assignment import AssignmentModel, build
from milp_anon.privacy.criteria import KAnonymity
from milp_anon.solvers.model import LinearModel

__all__ = ["PartialSplit", "applies"]


def applies(request) -> bool:
    """Whether :class:`PartialSplit` is exact for ``request``: the cost objective without side rows."""
    options = request.model
    return options.objective == "cost" and not options.has_side_constraints and not options.withholds


def _lookup(keys: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Index in ``keys`` (distinct) of every entry of ``query`` (each present)."""
    order = np.argsort(keys, kind="stable")
    return order[np.searchsorted(keys[order], query)]


@dataclass
class PartialSplit:
    """``R(A)`` over unit pairs for the candidates in ``A`` and type pairs for the rest."""

    whole: AssignmentModel
    #: the model of ``A``'s candidates alone (their criterion rows, unit pairs), extended in place
    part: AssignmentModel
    #: the relaxation: ``part``'s model with its unit rows relaxed and the type-pair block added
    lm: LinearModel
    #: candidates (of ``whole``) in ``A`` and outside it
    inside: np.ndarray
    outside: np.ndarray
    #: columns ``y_j`` of the candidates outside ``A``, and of their type pairs ``h_ij``
    y_rest: np.ndarray
    h: np.ndarray
    #: the type pairs outside ``A``: type, candidate (of ``whole``) and that candidate's place in ``outside``
    rest_type: np.ndarray
    rest_cand: np.ndarray
    rest_at: np.ndarray
    #: every pair of ``whole``: whether its candidate is in ``A``, and its index among ``part``'s pairs
    #: (where it is) or among the type pairs (where it is not)
    in_part: np.ndarray
    index: np.ndarray

    @classmethod
    def build(cls, whole: AssignmentModel, request, active: np.ndarray) -> PartialSplit:
        """The relaxation for the candidates ``active`` (a bool per candidate of ``whole``)."""
        inst, cands, units = whole.instance, whole.cands, whole.units
        types = inst.types
        active = np.asarray(active, dtype=bool)
        inside, outside = np.flatnonzero(active), np.flatnonzero(~active)
        part = build(inst.with_candidates(cands.subset(active, "row generation")), request)
        lm = part.lm
        # Σ_{j∈A} g_uj <= n_u: the unit's other rows go to type pairs
        b = list(lm.row_blocks).index("assign")
        lm.row_lower[b] = np.zeros_like(lm.row_lower[b])
        rest = ~active[cands.pair_cand]
        rt, rc = cands.pair_type[rest], cands.pair_cand[rest]
        n_t = types.counts.astype(float)
        col = np.full(cands.n_candidates, -1, dtype=np.int64)
        col[outside] = np.arange(outside.shape[0])
        at = col[rc]  # each type pair's candidate among the outside ones
        R, H = outside.shape[0], rt.shape[0]
        y_rest = lm.add_vars("y_rest", R, lower=0, upper=1, integer=True)
        h = lm.add_vars("h", H, lower=0, upper=n_t[rt], cost=cands.cost[rc], integer=part.integer)
        T = types.t_in
        lm.add_rows("assign_type", T, rows=np.concatenate([units.unit_type[part.pair_unit], rt]),
                    cols=np.concatenate([part.g, h]), vals=1.0, lower=n_t, upper=n_t)
        ks = [c.k for c in request.criteria if isinstance(c, KAnonymity)]
        if ks and R:
            lm.add_rows("kanon_rest", R, rows=np.concatenate([at, np.arange(R)]), cols=np.concatenate([h, y_rest]),
                        vals=np.concatenate([np.ones(H), np.full(R, -float(max(ks)))]), lower=0.0)
        hr = np.arange(H)
        lm.add_rows("link_rest", H, rows=np.concatenate([hr, hr]), cols=np.concatenate([h, y_rest[at]]),
                    vals=np.concatenate([np.ones(H), -n_t[rt]]), upper=0.0)
        # where every pair of the whole model lies here
        U = units.n_units
        in_part = active[whole.pair_cand]
        new_id = np.full(cands.n_candidates, -1, dtype=np.int64)
        new_id[inside] = np.arange(inside.shape[0])
        index = np.empty(whole.pair_cand.shape[0], dtype=np.int64)
        p, q = whole.pair_cand[in_part], whole.pair_unit[in_part]
        index[in_part] = _lookup(part.pair_cand * U + part.pair_unit, new_id[p] * U + q)
        p, q = whole.pair_cand[~in_part], units.unit_type[whole.pair_unit[~in_part]]
        index[~in_part] = _lookup(rc * T + rt, p * T + q)
        return cls(whole, part, lm, inside, outside, y_rest, h, rt, rc, at, in_part, index)

    def to_whole(self, x: np.ndarray) -> np.ndarray:
        """A column vector of the whole model (``y`` and ``g``; 0 elsewhere) for this model's ``x``.

        The pairs in ``A`` are copied; each type's rows that ``A`` leaves are
        dealt out to its type pairs in unit order (the module docstring)."""
        whole, units = self.whole, self.whole.units
        U = units.n_units
        out = np.zeros(whole.lm.n_cols)
        out[whole.y[self.inside]] = x[self.part.y]
        out[whole.y[self.outside]] = x[self.y_rest]
        g = np.zeros(whole.pair_cand.shape[0])
        gp = x[self.part.g]
        g[self.in_part] = gp[self.index[self.in_part]]
        # rows of each unit left to the type pairs, laid end to end in unit (hence type) order
        left = np.maximum(units.counts - np.bincount(self.part.pair_unit, weights=gp, minlength=U), 0.0)
        unit_end = np.cumsum(left)
        first = np.searchsorted(units.unit_type, np.arange(self.whole.instance.types.t_in + 1))
        base = np.concatenate([[0.0], unit_end])[first]  # where each type starts, and the last end
        order = np.lexsort((self.rest_cand, self.rest_type))
        t = self.rest_type[order]
        hv = np.maximum(x[self.h][order], 0.0)
        cum = np.cumsum(hv)
        start_of_type = np.concatenate([[0.0], cum])[np.searchsorted(t, t)]
        pair_end = np.minimum(base[t] + cum - start_of_type, base[t + 1])
        cuts = np.unique(np.concatenate([[0.0], unit_end, pair_end]))
        length = np.diff(cuts)
        mid = cuts[:-1] + 0.5 * length
        u = np.searchsorted(unit_end, mid, side="right")
        k = np.searchsorted(pair_end, mid, side="right")
        ok = (length > 1e-9) & (u < U) & (k < t.shape[0])
        u, k, length = u[ok], k[ok], length[ok]
        same = units.unit_type[u] == t[k]
        u, k, length = u[same], k[same], length[same]
        keys = whole.pair_cand * U + whole.pair_unit
        pairs = _lookup(keys, self.rest_cand[order][k] * U + u)
        np.add.at(g, pairs, length)
        out[whole.g] = g
        return out

    def hint(self, hint) -> tuple[np.ndarray, np.ndarray] | None:
        """A start of the whole model (full vector or ``(indices, values)``) as a start of this one."""
        if hint is None:
            return None
        whole = self.whole
        if isinstance(hint, tuple):
            x = np.zeros(whole.lm.n_cols)
            x[np.asarray(hint[0])] = np.asarray(hint[1], dtype=float)
        else:
            x = np.asarray(hint, dtype=float)
        g = x[whole.g]
        gp = np.zeros(self.part.pair_cand.shape[0])
        gp[self.index[self.in_part]] = g[self.in_part]
        idx, val = self.part.start(gp)
        hv = np.bincount(self.index[~self.in_part], weights=g[~self.in_part], minlength=self.h.shape[0])
        per = np.bincount(self.rest_at, weights=hv, minlength=self.outside.shape[0])
        return (np.concatenate([idx, self.y_rest, self.h]),
                np.concatenate([val, (per > 0).astype(float), hv]))
