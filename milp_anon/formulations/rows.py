"""How each privacy criterion enters the assignment model.

One class per criterion (the criteria themselves, :mod:`milp_anon.privacy.criteria`,
know nothing of models): its rows, added to an
:class:`~milp_anon.formulations.assignment.AssignmentModel` from grouped
arrays; a size estimate made before anything is built; and two facts the
model needs — whether its coefficients break total unimodularity (then the
assignment variables are integer) and whether it reads the group sizes
``s_j``. The mathematics, and why each form is exact, are in
``formulations/k-anonymity.md``, ``p-sensitivity.md``, ``l-diversity.md``
and ``t-closeness.md``.

``am`` is the model being built (it calls these rows); its class is not
imported here, so that the model's module and this one do not import each other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from milp_anon.privacy.criteria import (
    AverageRisk,
    BetaLikeness,
    Criterion,
    DeltaDisclosure,
    DeltaPresence,
    KAnonymity,
    KMap,
    LDiversity,
    PSensitivity,
    TCloseness,
    entropy_top_share,
    exact,
)
from milp_anon.runtime.errors import InputError

__all__ = ["ClosenessForm", "CriterionRows", "add_gibbs_rows", "closeness_form", "entropy_cut", "rows_of"]


class CriterionRows:
    """A criterion's part of the assignment model (base: adds nothing)."""

    def integer_assignment(self, crit: Criterion) -> bool:
        """Whether the criterion's rows need integer assignment variables."""
        return False

    def group_size(self, crit: Criterion) -> bool:
        """Whether the criterion's rows use the group-size columns ``s_j``."""
        return False

    def estimate(self, crit: Criterion, dims: dict) -> tuple[int, int, int, int]:
        """(variables, constraints, nonzeros, integer variables) added, from ``dims``
        (``C`` candidates, ``P`` pairs, ``V`` values per sensitive column)."""
        return 0, 0, 0, 0

    def add(self, crit: Criterion, am) -> None:
        """Add the criterion's rows to ``am``."""


class KAnonymityRows(CriterionRows):
    """``Σ_u x_uj >= k · y_j`` for every candidate ``j`` (``formulations/k-anonymity.md``)."""

    def estimate(self, crit, dims):
        return 0, dims["C"], dims["P"] + dims["C"], 0

    def add(self, crit: KAnonymity, am):
        C, P = am.cands.n_candidates, am.pair_cand.shape[0]
        am.lm.add_rows("kanon", C, rows=np.concatenate([am.pair_cand, np.arange(C)]),
                       cols=np.concatenate([am.g, am.y]),
                       vals=np.concatenate([np.ones(P), np.full(C, -float(crit.k))]), lower=0.0)


def _add_distinct(am, crit, need: int, tag: str) -> None:
    """Binaries ``z_jσ <= c_jσ`` and ``Σ_σ z_jσ >= need · y_j`` (``formulations/p-sensitivity.md``)."""
    C = am.cands.n_candidates
    for col in crit.columns(am.table):
        cell_cand, _, cvar = am.cells(col)
        n_cells = cell_cand.shape[0]
        z = am.lm.add_vars(f"{tag}{col}_z", n_cells, lower=0, upper=1, integer=True)
        r = np.arange(n_cells)
        am.lm.add_rows(f"{tag}{col}_present", n_cells, rows=np.concatenate([r, r]),
                       cols=np.concatenate([z, cvar]), vals=np.concatenate([np.ones(n_cells), -np.ones(n_cells)]),
                       upper=0.0)
        am.lm.add_rows(f"{tag}{col}", C, rows=np.concatenate([cell_cand, np.arange(C)]),
                       cols=np.concatenate([z, am.y]),
                       vals=np.concatenate([np.ones(n_cells), np.full(C, -float(need))]), lower=0.0)


def _distinct_estimate(dims):
    cells = sum(min(dims["P"], dims["C"] * v) for v in dims["V"])
    return cells, cells + dims["C"], 2 * cells + dims["C"] * 2, cells


class PSensitivityRows(CriterionRows):
    """For fixed ``y, z`` the assignment is p-ROW ASSIGNMENT, a flow with lower
    bounds (Bredereck et al. 2013, Lemma 3): the assignment stays continuous."""

    def estimate(self, crit, dims):
        return _distinct_estimate(dims)

    def add(self, crit: PSensitivity, am):
        _add_distinct(am, crit, crit.p, "psens")


class LDiversityRows(CriterionRows):
    """Distinct: as p-sensitivity. Frequency: ``ℓ · c_jσ <= s_j``. Recursive (c,ℓ):
    ``b·r_σ + a·T_j <= a·s_j − y_j`` with ``T_j >= top_{ℓ−1}(r)`` (``formulations/l-diversity.md``)."""

    def integer_assignment(self, crit: LDiversity) -> bool:
        return crit.kind != "distinct"

    def group_size(self, crit: LDiversity) -> bool:
        return crit.kind != "distinct"

    def estimate(self, crit: LDiversity, dims):
        if crit.kind == "distinct":
            return _distinct_estimate(dims)
        cells = sum(min(dims["P"], dims["C"] * v) for v in dims["V"])
        if crit.kind in ("frequency", "entropy"):  # entropy: the initial cuts (the generated ones come later)
            return 0, cells + dims["C"], 3 * cells, 0
        return cells + 2 * dims["C"], 2 * cells + dims["C"], 8 * cells + 2 * dims["C"], 0

    def add(self, crit: LDiversity, am):
        if crit.kind == "distinct":
            _add_distinct(am, crit, crit.l, "ldiv")
            return
        size = am.size_vars()
        for col in crit.columns(am.table):
            cell_cand, _, cvar = am.cells(col)
            if crit.kind == "entropy":
                _add_entropy_rows(crit, am, col, size)
                continue
            if crit.kind == "frequency":
                # ℓ · c_jσ <= s_j, with ℓ = a/b: a · c_jσ − b · s_j <= 0 (integer coefficients)
                n_cells, lr = cell_cand.shape[0], exact(crit.l)
                r = np.arange(n_cells)
                am.lm.add_rows(f"ldiv{col}_freq", n_cells, rows=np.concatenate([r, r]),
                               cols=np.concatenate([cvar, size[cell_cand]]),
                               vals=np.concatenate([np.full(n_cells, float(lr.numerator)),
                                                    np.full(n_cells, -float(lr.denominator))]), upper=0.0)
            else:
                self._add_recursive(crit, am, col, cell_cand, cvar, size)

    @staticmethod
    def _add_recursive(crit, am, col, cell_cand, cvar, size):
        """``b·r_σ + a·T_j <= a·s_j − y_j`` with ``T_j >= top_{ℓ−1}(r)`` (c = a/b).

        ``top_q(r) = min_λ q·λ + Σ_σ max(0, r_σ − λ)`` (LP duality), so
        ``T_j = q·λ_j + Σ_σ μ_jσ`` with ``μ_jσ >= r_σ − λ_j``, ``μ, λ >= 0``
        is an exact upper description. All counts are integers, so the strict
        ``<`` becomes ``<= −1`` once ``y_j = 1``; an unused candidate has all
        zeros and meets the row with ``y_j = 0``.
        """
        C = am.cands.n_candidates
        n_cells = cell_cand.shape[0]
        frac = exact(crit.c)
        a, b = float(frac.numerator), float(frac.denominator)
        q = crit.l - 1
        r = np.arange(n_cells)
        lm = am.lm
        T = lm.add_vars(f"rdiv{col}_T", C, lower=0)
        if q > 0:
            lam = lm.add_vars(f"rdiv{col}_lambda", C, lower=0)
            mu = lm.add_vars(f"rdiv{col}_mu", n_cells, lower=0)
            # μ_jσ − c_jσ + λ_j >= 0
            lm.add_rows(f"rdiv{col}_mu_def", n_cells, rows=np.concatenate([r, r, r]),
                        cols=np.concatenate([mu, cvar, lam[cell_cand]]),
                        vals=np.concatenate([np.ones(n_cells), -np.ones(n_cells), np.ones(n_cells)]), lower=0.0)
            # T_j − q λ_j − Σ μ_jσ >= 0
            lm.add_rows(f"rdiv{col}_T_def", C, rows=np.concatenate([np.arange(C), np.arange(C), cell_cand]),
                        cols=np.concatenate([T, lam, mu]),
                        vals=np.concatenate([np.ones(C), np.full(C, -float(q)), -np.ones(n_cells)]), lower=0.0)
        # b c_jσ + a T_j − a s_j + y_j <= 0
        lm.add_rows(f"rdiv{col}", n_cells, rows=np.concatenate([r, r, r, r]),
                    cols=np.concatenate([cvar, T[cell_cand], size[cell_cand], am.y[cell_cand]]),
                    vals=np.concatenate([np.full(n_cells, b), np.full(n_cells, a), np.full(n_cells, -a),
                                         np.ones(n_cells)]), upper=0.0)


# --- entropy ℓ-diversity: Gibbs cuts (formulations/l-diversity.md, "Entropy ℓ-diversity") ---------------------

#: every Gibbs cut's coefficients are lowered by this: the cut then holds with ``−GIBBS_MARGIN · |G|`` to spare for
#: every entropy ℓ-diverse group, far above the float error of its coefficients (below 1e-13 each)
GIBBS_MARGIN = 1e-10
#: a generated cut is scaled so that the group it was made from violates it by at least this (HiGHS's
#: feasibility tolerances are 1e-7 and 1e-6) ...
CUT_VIOLATION = 1e-4
#: ... by a factor of at most this; a group violating its cut by less is not separated (the row generation stops
#: without a proof)
CUT_MAX_SCALE = 1e6


def gibbs_coefficients(l, r) -> np.ndarray:
    """``log r_s + log ℓ − GIBBS_MARGIN`` per value: the Gibbs cut ``Σ_s c_s (log r_s + log ℓ) <= 0`` of a
    distribution ``r`` (``Σ r <= 1``, every ``r_s > 0``), which every entropy ℓ-diverse group's counts ``c``
    meet: with ``q = c / |G|``, Gibbs' inequality gives ``Σ_s q_s log r_s <= Σ_s q_s log q_s = −H(q) <=
    −log ℓ``; times ``|G|``. Homogeneous: an unused candidate (all counts 0) meets it."""
    lr = exact(l)
    return np.log(np.asarray(r, dtype=float)) + (math.log(lr.numerator) - math.log(lr.denominator)) - GIBBS_MARGIN


def entropy_cut(l, counts) -> np.ndarray | None:
    """The coefficients (one per value code) of a Gibbs cut that the group with ``counts`` (failing entropy
    ℓ-diversity) violates by at least :data:`CUT_VIOLATION`, or ``None`` if none is found.

    ``r`` is the group's own distribution ``q*``, smoothed onto the values it lacks: ``r = (1 − ε) q*`` on its
    values and ``ε`` shared by the others. At ``c*`` the cut's left side is ``n (δ + log(1 − ε)) − n η``
    (``δ = log ℓ − H(q*) > 0``, ``η`` the margin), so ``ε = 1 − e^{−δ/2}`` (at most 1/2) leaves
    ``n δ / 2 − n η``, checked on the coefficients themselves; the row is scaled up to reach
    :data:`CUT_VIOLATION` (by at most :data:`CUT_MAX_SCALE`)."""
    c = np.asarray(counts, dtype=float)
    n = c.sum()
    if n <= 0:
        return None
    present = c > 0
    q = c[present] / n
    delta = math.log(exact(l)) - float(-(q * np.log(q)).sum())
    r = np.zeros(c.shape[0])
    absent = int((~present).sum())
    eps = 0.0 if absent == 0 else min(0.5, -math.expm1(-max(delta, 0.0) / 2)) or 1e-12
    r[present] = (1.0 - eps) * q
    r[~present] = eps / max(absent, 1)
    coef = gibbs_coefficients(l, r)
    violation = math.fsum(c[present] * coef[present])
    if not violation > 0 or violation * CUT_MAX_SCALE < CUT_VIOLATION:
        return None
    return coef * max(1.0, CUT_VIOLATION / violation)


def add_gibbs_rows(am, col: int, cuts, cands: np.ndarray, tag: str) -> np.ndarray:
    """Rows ``Σ_σ a_σ c_jσ <= 0`` of every cut ``a`` in ``cuts`` (coefficients per value code of sensitive
    column ``col``) for every candidate in ``cands`` (indices of ``am``'s), on ``am``'s count cells; returns the
    rows (cut-major)."""
    cuts = [np.asarray(a, dtype=float) for a in cuts]
    cands = np.asarray(cands, dtype=np.int64)
    if not cuts or not cands.size:
        return np.zeros(0, dtype=np.int64)
    cell_cand, cell_val, cvar = am.cells(col)
    at = np.full(am.cands.n_candidates, -1, dtype=np.int64)
    at[cands] = np.arange(cands.size)
    mine = np.flatnonzero(at[cell_cand] >= 0)
    T, K = len(cuts), cands.size
    rows = (np.arange(T)[:, None] * K + at[cell_cand[mine]][None, :]).ravel()
    vals = np.stack([a[cell_val[mine]] for a in cuts]).ravel()
    return am.lm.add_rows(tag, T * K, rows=rows, cols=np.tile(cvar[mine], T), vals=vals, upper=0.0)


def _add_entropy_rows(crit: LDiversity, am, col: int, size: np.ndarray) -> None:
    """The cuts every candidate gets from the start (each a Gibbs cut, :func:`gibbs_coefficients`):

    * per count cell, the cap ``c_jσ <= p* s_j`` (:func:`~milp_anon.privacy.criteria.entropy_top_share` over the
      ``V_j`` values candidate ``j``'s rows carry): the Gibbs cut of ``r = (p*, (1 − p*)/(V_j − 1), ...)``, the
      tangent at the extreme point, written ``(A − B) c_jσ + B s_j <= 0`` with ``A, B`` its two coefficients;
    * where some value's share of the table exceeds ``1/ℓ``, the Gibbs cut of the table's distribution.

    The generated cuts follow in the row generation (:mod:`milp_anon.pipeline.row_generation`)."""
    if exact(crit.l) <= 1:
        return  # H >= 0 = log 1: nothing to ask
    cell_cand, cell_val, cvar = am.cells(col)
    C = am.cands.n_candidates
    V_j = np.bincount(cell_cand, minlength=C)
    A, B = np.zeros(C), np.zeros(C)
    for v in np.unique(V_j[V_j >= 2]):
        p = entropy_top_share(crit.l, int(v))
        if p >= 1.0:
            continue
        a, b = gibbs_coefficients(crit.l, [p, (1.0 - p) / (v - 1)])
        A[V_j == v], B[V_j == v] = a, b
    cap = np.flatnonzero(A[cell_cand] > B[cell_cand])
    if cap.size:
        r = np.arange(cap.size)
        am.lm.add_rows(f"ediv{col}_cap", cap.size, rows=np.concatenate([r, r]),
                       cols=np.concatenate([cvar[cap], size[cell_cand[cap]]]),
                       vals=np.concatenate([(A - B)[cell_cand[cap]], B[cell_cand[cap]]]), upper=0.0)
    whole = np.bincount(am.table.sensitive_codes[:, col], minlength=len(am.table.sensitive_values[col]))
    share = whole / whole.sum()
    if share.max() * float(exact(crit.l)) > 1 and share.min() > 0:
        add_gibbs_rows(am, col, [gibbs_coefficients(crit.l, share)], np.arange(C), f"ediv{col}_table")


class TClosenessRows(CriterionRows):
    """Transport variables (Liang-Yuan Thm. 9) in the compact exact form of each
    metric, all scaled by ``n · s_j`` so the coefficients are integers except
    ``t`` (``formulations/t-closeness.md``)."""

    def integer_assignment(self, crit):
        return True

    def group_size(self, crit):
        return True

    def estimate(self, crit: TCloseness, dims):
        per = 0
        for V in dims["V"]:
            if crit.distance_kind in ("equal", "ordered"):
                per += V
            elif crit.distance_kind == "hierarchical":
                per += 2 * V
            else:
                per += V * V
        return dims["C"] * per, dims["C"] * per, 4 * dims["C"] * per + dims["P"], 0

    def add(self, crit: TCloseness, am):
        size = am.size_vars()
        table = am.table
        C = am.cands.n_candidates
        for col in crit.columns(table):
            cell_cand, cell_val, cvar = am.cells(col)
            form = closeness_form(crit, table, col)
            # every row below is scaled by n = Σ N (the reference's total; the table's rows by default)
            cells = (cell_cand, form.code_pos[cell_val], cvar)
            tag = f"tclose{col}"
            if form.scale is None:  # the matrix metric
                self._add_transport(crit, am, col, tag, cells, size, form.N)
                continue
            if form.groups is None:  # equal
                u = self._excess_rows(am, tag, cells, size, form.N)
            else:
                name = f"{tag}_cum" if crit.distance_kind == "ordered" else f"{tag}_edge"
                u = self._mass_rows(am, name, cells, size, form.N, form.groups)
            scale = form.scale
            E = u.shape[0] // C
            # Σ_e u_je <= scale · t · n · s_j with t = a/b:  b Σ_e u_je − a · scale · n · s_j <= 0.
            # Every u is |integer| at a vertex, so a violation is >= 1, far above solver tolerances.
            tr = exact(crit.t)
            am.lm.add_rows(tag, C, rows=np.concatenate([np.repeat(np.arange(C), E), np.arange(C)]),
                           cols=np.concatenate([u, size]),
                           vals=np.concatenate([np.full(C * E, float(tr.denominator)),
                                                np.full(C, -float(tr.numerator) * scale * form.N.sum())]), upper=0.0)
            am.closeness_rows.append((list(am.lm.row_blocks)[-1], crit.t, _room(crit, table, col)))

    @staticmethod
    def _excess_rows(am, tag, cells, size, N):
        """Equal distance, EMD = Σ_σ max(0, P_σ − Q_σ): ``v_jσ >= N_σ s_j − n c_jσ`` (the ``v`` columns)."""
        cell_cand, cell_pos, cvar = cells
        C, V, n = am.cands.n_candidates, N.shape[0], float(N.sum())
        v = am.lm.add_vars(f"{tag}_v", C * V, lower=0)
        rows_c = cell_cand * V + cell_pos
        rows_all = np.arange(C * V)
        am.lm.add_rows(f"{tag}_v_def", C * V, rows=np.concatenate([rows_all, rows_c, rows_all]),
                       cols=np.concatenate([v, cvar, size[np.repeat(np.arange(C), V)]]),
                       vals=np.concatenate([np.ones(C * V), np.full(rows_c.shape[0], n), -np.tile(N, C)]), lower=0.0)
        return v

    @staticmethod
    def _mass_rows(am, name, cells, size, N, groups):
        """Rows ``u_{j,e} >= ±Σ_{σ∈group e}(n c_jσ − N_σ s_j)`` for the value groups ``groups``
        (lists of positions); returns the ``u`` columns (C × E)."""
        cell_cand, cell_pos, cvar = cells
        lm, C, V, n = am.lm, am.cands.n_candidates, N.shape[0], float(N.sum())
        E = len(groups)
        u = lm.add_vars(name, C * E, lower=0)
        member = np.zeros((E, V), dtype=bool)
        for e, grp in enumerate(groups):
            member[e, grp] = True
        # entries from count cells: cell (j, σ) appears in row (j, e) for every e containing σ
        e_of, cell_of = np.nonzero(member[:, cell_pos])
        rows_c = cell_cand[cell_of] * E + e_of
        # size column per (j, e): coefficient −Σ_{σ∈e} N_σ
        NS = member.astype(float) @ N
        jj = np.repeat(np.arange(C), E)
        ee = np.tile(np.arange(E), C)
        rows_all = np.arange(C * E)
        for sign, label in ((1.0, "pos"), (-1.0, "neg")):
            lm.add_rows(f"{name}_{label}", C * E, rows=np.concatenate([rows_all, rows_c, rows_all]),
                        cols=np.concatenate([u, cvar[cell_of], size[jj]]),
                        vals=np.concatenate([np.ones(C * E), np.full(rows_c.shape[0], -sign * n), sign * NS[ee]]),
                        lower=0.0)
        return u

    @staticmethod
    def _add_transport(crit, am, col, tag, cells, size, N):
        """General metric: transport ``F_jστ`` (Liang-Yuan Thm. 9), net flow = n c_jσ − N_σ s_j."""
        cell_cand, cell_pos, cvar = cells
        lm, C, n = am.lm, am.cands.n_candidates, float(N.sum())
        d = crit.metric(am.table, col)
        V = N.shape[0]
        src, dst = np.nonzero(~np.eye(V, dtype=bool))
        A = src.shape[0]
        F = lm.add_vars(f"{tag}_F", C * A, lower=0)
        jj = np.repeat(np.arange(C), A)
        aa = np.tile(np.arange(A), C)
        # conservation per (j, σ): Σ_τ F_στ − Σ_τ F_τσ − n c_jσ + N_σ s_j = 0
        rows_out = jj * V + src[aa]
        rows_in = jj * V + dst[aa]
        rows_c = cell_cand * V + cell_pos
        rows_s = np.arange(C * V)
        lm.add_rows(f"{tag}_flow", C * V, rows=np.concatenate([rows_out, rows_in, rows_c, rows_s]),
                    cols=np.concatenate([F, F, cvar, size[np.repeat(np.arange(C), V)]]),
                    vals=np.concatenate([np.ones(C * A), -np.ones(C * A), np.full(rows_c.shape[0], -n),
                                         np.tile(N, C)]), lower=0.0, upper=0.0)
        tr = exact(crit.t)
        lm.add_rows(tag, C, rows=np.concatenate([jj, np.arange(C)]), cols=np.concatenate([F, size]),
                    vals=np.concatenate([np.tile(d[src, dst], C) * tr.denominator,
                                         np.full(C, -float(tr.numerator) * n)]), upper=0.0)
        am.closeness_rows.append((list(lm.row_blocks)[-1], crit.t, _room(crit, am.table, col)))


@dataclass(frozen=True)
class ClosenessForm:
    """t-closeness on one sensitive column in its compact exact form (``formulations/t-closeness.md``):
    ``Σ_e |Σ_{σ∈e} (n c_σ − N_σ s)| <= scale · t · n · s`` over the mass ``groups`` (lists of positions in
    the metric's order), or, where ``groups`` is ``None`` under the equal distance, ``Σ_σ max(0, N_σ s − n c_σ)
    <= t · n · s`` (``scale`` 1); the matrix metric has no compact form (``groups`` and ``scale`` ``None``).

    ``code_pos`` is each value code's position in the metric's order, ``N`` the reference's count per
    position (the table's own by default), ``n = Σ N``."""

    code_pos: np.ndarray
    N: np.ndarray
    groups: list | None
    scale: float | None


def closeness_form(crit: TCloseness, table, col: int) -> ClosenessForm:
    """The compact exact form of ``crit`` on sensitive column ``col`` of ``table`` (:class:`ClosenessForm`): what
    the model's rows (:class:`TClosenessRows`) and the group blocks (:func:`~milp_anon.bounds.blocks.emd_blocks`) both
    write."""
    dom = crit.domain(table, col)
    pos = {v: i for i, v in enumerate(dom)}
    code_pos = np.array([pos[str(v)] for v in table.sensitive_values[col]], dtype=np.int64)
    ref = crit.reference_for(table.sensitive[col])
    if ref is None:  # the table's own distribution
        N = np.bincount(code_pos[table.sensitive_codes[:, col]], minlength=len(dom)).astype(float)
    else:
        N = np.array([ref.get(v, 0) for v in dom], dtype=float)
    if crit.distance_kind == "equal":
        return ClosenessForm(code_pos, N, None, 1.0)
    if crit.distance_kind == "ordered":  # EMD = (1/(V−1)) Σ_{a<V−1} |Σ_{b<=a}(Q_b − P_b)|
        return ClosenessForm(code_pos, N, [list(range(a + 1)) for a in range(len(dom) - 1)],
                             float(max(len(dom) - 1, 1)))
    if crit.distance_kind == "hierarchical":  # tree EMD = Σ_edges |mass below the edge| / (2H)
        return ClosenessForm(code_pos, N, [idxs for _, _, idxs in crit.hierarchy.edges_below(dom)],
                             2.0 * crit.hierarchy.height)
    return ClosenessForm(code_pos, N, None, None)


def _room(crit: TCloseness, table, col: int) -> float:
    """The EMD one row moves at least, when it moves (the slack LP's room): the metric's least distance, 1
    for a domain of one value."""
    d_min = crit.least_distance(table, col)
    return 1.0 if d_min is None else d_min


class KMapRows(CriterionRows):
    """k-map: ``y_j = 0`` where ``pop(j) < k`` (``formulations/population.md``). The candidate layer has already
    dropped those candidates (:meth:`KMap.prune`), so this adds rows only where a caller kept them."""

    def estimate(self, crit, dims):
        return 0, 0, 0, 0

    def add(self, crit: KMap, am):
        bad = np.flatnonzero(np.asarray(am.cands.population) < crit.k)
        if bad.size:
            am.lm.add_rows("kmap", bad.size, rows=np.arange(bad.size), cols=am.y[bad], vals=np.ones(bad.size),
                           upper=0.0)


class DeltaPresenceRows(CriterionRows):
    """δ-presence: ``⌈δ_min pop(j)⌉ y_j <= Σ_u g_uj <= ⌊δ_max pop(j)⌋ y_j`` (``formulations/population.md``).

    The class's size is whole, so the rounded bounds are the criterion itself; for fixed ``y`` they are
    integral bounds on the arc of candidate ``j`` in ROW ASSIGNMENT's flow, so ``g`` stays continuous (as for
    k-anonymity's row)."""

    def estimate(self, crit, dims):
        return 0, 2 * dims["C"], 2 * (dims["P"] + dims["C"]), 0

    def add(self, crit: DeltaPresence, am):
        C, P = am.cands.n_candidates, am.pair_cand.shape[0]
        lo, hi = crit.size_bounds(am.cands.population)
        rows, cols = np.concatenate([am.pair_cand, np.arange(C)]), np.concatenate([am.g, am.y])
        am.lm.add_rows("dpresence_min", C, rows=rows, cols=cols,
                       vals=np.concatenate([np.ones(P), -lo.astype(float)]), lower=0.0)
        am.lm.add_rows("dpresence_max", C, rows=rows, cols=cols,
                       vals=np.concatenate([np.ones(P), -hi.astype(float)]), upper=0.0)


_ROWS = {KAnonymity: KAnonymityRows(), PSensitivity: PSensitivityRows(), LDiversity: LDiversityRows(),
         TCloseness: TClosenessRows(), KMap: KMapRows(), DeltaPresence: DeltaPresenceRows()}


class ShareBoundsRows(CriterionRows):
    """δ-disclosure and β-likeness: ``lo_σ s_j <= c_jσ <= hi_σ s_j`` per count cell, with ``lo = a/b`` and
    ``hi = a'/b'`` on the grid of shares (:meth:`~milp_anon.privacy.criteria._ShareBounds.bounds`): ``b c − a s >= 0``
    and ``b' c − a' s <= 0``, integer coefficients. A candidate without a cell of a value whose ``lo > 0`` gets
    ``s_j <= 0`` (it cannot host a group). Exact: every class of at most ``n`` rows meets the criterion exactly when
    its integer counts meet these rows (``formulations/share-bounds.md``); the caps break the flow structure, so the
    assignment is integer."""

    def integer_assignment(self, crit) -> bool:
        return True

    def group_size(self, crit) -> bool:
        return True

    def estimate(self, crit, dims):
        cells = sum(min(dims["P"], dims["C"] * v) for v in dims["V"])
        return 0, 2 * cells + dims["C"], 4 * cells + dims["C"], 0

    def add(self, crit, am):
        size = am.size_vars()
        C = am.cands.n_candidates
        for col in crit.columns(am.table):
            cell_cand, cell_val, cvar = am.cells(col)
            lo_n, lo_d, hi_n, hi_d, missing = crit.bounds_for(am.table, col)
            for tag, num, den, keep, bound in (("hi", hi_n, hi_d, hi_n < hi_d, "upper"), ("lo", lo_n, lo_d, lo_n > 0,
                                                                                         "lower")):
                k = np.flatnonzero(keep[cell_val])
                if not k.size:
                    continue
                am.lm.add_rows(f"share{col}_{tag}", k.size, rows=np.concatenate([np.arange(k.size)] * 2),
                               cols=np.concatenate([cvar[k], size[cell_cand[k]]]),
                               vals=np.concatenate([den[cell_val[k]].astype(float), -num[cell_val[k]].astype(float)]),
                               **{bound: 0.0})
            # candidates lacking a cell of a value every group must hold (or a reference's value the table lacks)
            V = lo_n.shape[0]
            has = np.zeros((C, V), dtype=bool)
            has[cell_cand, cell_val] = True
            shut = np.flatnonzero(((lo_n[None, :] > 0) & ~has).any(axis=1) | missing)
            if shut.size:
                am.lm.add_rows(f"share{col}_shut", shut.size, rows=np.arange(shut.size), cols=size[shut],
                               vals=1.0, upper=0.0)


class AverageRiskRows(CriterionRows):
    """``Σ_j y_j (+ z) <= ⌊R n⌋``: the open candidates are at least the released classes (a used candidate is
    open, by the link rows), and distinct candidates are distinct released vectors; with record suppression a
    binary ``z >= [some record withheld]`` (``Σ_u r_u <= N z``) counts the withheld records as one class
    (``formulations/k-anonymity.md``, "Average re-identification risk"). A row over every candidate: the
    row generation, which keeps rows per candidate, does not apply (:attr:`Criterion.per_group`)."""

    def estimate(self, crit, dims):
        return 1, 2, dims["C"] + 2, 1

    def add(self, crit, am):
        C = am.cands.n_candidates
        top = float(crit.max_classes(am.table.n))
        if am.withheld is None or not am.max_withheld:
            am.lm.add_rows("avg_risk", 1, rows=np.zeros(C, np.int64), cols=am.y, vals=1.0, upper=top)
            return
        z = am.lm.add_vars("avg_risk_z", 1, lower=0, upper=1, integer=True)
        U = am.withheld.shape[0]
        am.lm.add_rows("avg_risk_withheld", 1, rows=np.zeros(U + 1, np.int64), cols=np.concatenate([am.withheld, z]),
                       vals=np.concatenate([np.ones(U), [-float(am.max_withheld)]]), upper=0.0)
        am.lm.add_rows("avg_risk", 1, rows=np.zeros(C + 1, np.int64), cols=np.concatenate([am.y, z]), vals=1.0,
                       upper=top)


_ROWS.update({DeltaDisclosure: ShareBoundsRows(), BetaLikeness: ShareBoundsRows(), AverageRisk: AverageRiskRows()})


def rows_of(crit: Criterion) -> CriterionRows:
    """The model rows of ``crit`` (by its class or a base class)."""
    for cls in type(crit).__mro__:
        if cls in _ROWS:
            return _ROWS[cls]
    raise InputError(f"no model rows for the criterion {crit.describe()}")
