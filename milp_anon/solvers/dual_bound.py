"""A lower bound from any row multipliers of a linear model: weak duality, evaluated in numpy.

Problem. ``min c·x`` s.t. ``r_lo <= A x <= r_up``, ``l <= x <= u``. For *any* multipliers ``y`` (one per
row) every feasible ``x`` has

    c·x = yᵀA x + dᵀx >= Σ_r min(y_r r_lo_r, y_r r_up_r) + Σ_j min(d_j l_j, d_j u_j),   d = c − Aᵀy,

when ``y_r >= 0`` only on rows with a finite lower side and ``y_r <= 0`` only on rows with a finite upper
side (the multipliers are first clipped to that). So the right-hand side bounds the LP's optimum, and the
MILP's, whatever ``y`` is: nothing rests on the solver's status or tolerances, only on this sum
(Neumaier and Shcherbina, "Safe bounds in linear and mixed-integer linear programming", Math. Program.
99 (2004), the same argument). With the LP's optimal duals it is the LP's optimum.

Why. HiGHS's interior point on the whole t-closeness model reaches the LP optimum, then stalls in its
last digits ("no progress") and hands over to a dual simplex clean-up from scratch that takes most of the
time (3 QIs: 11.7 s, then 5.9 s more). Without the clean-up HiGHS reports the model status Unknown and no
bound; its duals, evaluated here, give the optimum's value all the same (8,903.4252 at 3 QIs, the
simplex's optimum to 1e-11).

Columns with no upper bound (the criteria's auxiliary columns) would make a term ``d_j u_j = −∞`` for any
``d_j < 0``, however small; :func:`implied_upper` first derives finite upper bounds that every feasible
point satisfies, by activity-based propagation over the rows (a row ``Σ a_i x_i <= b`` gives, for
``a_j > 0``, ``x_j <= (b − Σ_{i≠j} min a_i x_i) / a_j``).

A dual simplex stopped by the clock stands at multipliers that HiGHS computed for perturbed costs, so
some auxiliary column has a small negative reduced cost, and times its implied bound (``~10⁸``) that can
cost thousands; :func:`repaired` moves the multipliers of the rows private to such a column towards zero
until its reduced cost is 0, and the bound is the larger of the two sums (4 QIs, 0.2-closeness
(hierarchical), the simplex stopped at 15 / 45 / 60 s: 3,780 → 4,403, 3,729 → 4,403, 942 → 2,372).

Rounding: floating-point sums are widened by a relative margin (:data:`MARGIN`) before the bound is
used, and implied upper bounds are widened the same way.

Complexity: ``O(nnz)`` per propagation round and for the bound.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MARGIN", "bound_and_reduced_costs", "dual_bound", "implied_upper", "repaired"]

#: relative widening of every floating-point sum and implied bound (far above double rounding)
MARGIN = 1e-9


def implied_upper(a: dict, rounds: int = 3) -> np.ndarray:
    """Upper bounds of every column of the model arrays ``a`` (:meth:`LinearModel.arrays`) that every
    point satisfying its rows and bounds meets: the given ones, tightened by ``rounds`` rounds of
    activity-based propagation (``inf`` where no row bounds a column)."""
    n = a["start"].shape[0] - 1
    col = np.repeat(np.arange(n), np.diff(a["start"]))
    row, val = a["index"], a["value"]
    R = a["row_lower"].shape[0]
    lo, up = a["lower"], a["upper"].astype(float).copy()
    for _ in range(rounds):
        before = up.copy()
        for v, rhs in ((val, a["row_upper"]), (-val, -a["row_lower"])):  # Σ v x <= rhs
            with np.errstate(invalid="ignore"):
                least = np.where(v > 0, v * lo[col], v * up[col])  # each entry's least contribution
            unbounded = ~np.isfinite(least)
            n_unbounded = np.bincount(row, weights=unbounded, minlength=R)
            finite_sum = np.bincount(row, weights=np.where(unbounded, 0.0, least), minlength=R)
            own = np.where(unbounded, 0.0, least)
            usable = (v > 0) & np.isfinite(rhs[row]) & (n_unbounded[row] - unbounded == 0)
            slack = rhs[row] - (finite_sum[row] - own)
            bound = np.full(row.shape[0], np.inf)
            bound[usable] = slack[usable] / v[usable]
            bound = bound + MARGIN * (1.0 + np.abs(bound))
            tight = np.full(n, np.inf)
            np.minimum.at(tight, col, bound)
            up = np.minimum(up, tight)
        if np.array_equal(up, before):
            break
    return np.maximum(up, lo)


def dual_bound(a: dict, y: np.ndarray, upper: np.ndarray | None = None) -> float:
    """The weak-duality bound (module docstring) of the model arrays ``a`` at row multipliers ``y``, with
    column upper bounds ``upper`` (default: the model's; :func:`implied_upper` for finite ones); ``-inf``
    when a term is unbounded. Valid for every ``y``; lowered by :data:`MARGIN` of its terms' magnitude.

    The larger of the sums at ``y`` and at ``y`` with its private rows repaired (:func:`repaired`): both
    are weak-duality bounds, so the larger is one too."""
    col, y = _columns_and_signed(a, y)
    if y is None:
        return -np.inf
    up = a["upper"] if upper is None else upper
    fixed = _repair(a, col, y)
    at_y = _sum(a, col, y, up)
    return at_y if fixed is y else max(at_y, _sum(a, col, fixed, up))  # ``y`` itself when nothing moved


def bound_and_reduced_costs(a: dict, y: np.ndarray, upper: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """The weak-duality bound at ``y`` (sign-clipped, not repaired) and the reduced costs ``d = c − Aᵀy`` of
    that same ``y``: every feasible ``x`` has ``c·x >= bound + d_j (x_j − l_j)`` for each column ``j`` with
    ``d_j > 0`` (its own term of the sum, above its least value), which is what reduced-cost fixing rests
    on. ``(-inf, d)`` when a term is unbounded."""
    col, y = _columns_and_signed(a, y)
    if y is None:
        return -np.inf, np.zeros(a["start"].shape[0] - 1)
    return _sum(a, col, y, a["upper"] if upper is None else upper), _reduced(a, col, y)


def _columns_and_signed(a, y):
    """Each entry's column, and ``y`` sign-clipped (:func:`_signed`), or ``None`` for a ``y`` of the wrong
    shape or with a non-finite entry."""
    col = np.repeat(np.arange(a["start"].shape[0] - 1), np.diff(a["start"]))
    y = np.asarray(y, dtype=float)
    if y.shape != a["row_lower"].shape or not np.isfinite(y).all():
        return col, None
    return col, _signed(a, y)


def repaired(a: dict, y: np.ndarray) -> np.ndarray:
    """``y`` (sign-clipped as in the bound) with the multipliers of the rows private to a column without a
    given upper bound moved towards zero, as far as that column's negative reduced cost needs.

    Why. Such a column (the criteria's auxiliary ``v``/``u`` columns) enters the bound as ``d_j · u_j``
    with an implied ``u_j`` near ``10⁸`` (its rows are scaled by ``n · s_j``), so a dual simplex stopped
    with ``d_j = −10⁻⁵`` (HiGHS perturbs the costs) loses a thousand units on one column. Each such
    column has definition rows that hold no other column without a given upper bound (``v_jσ + n c_jσ −
    N_σ s_j >= 0``); moving their multipliers towards zero keeps the signs allowed and raises ``d_j`` to 0,
    at the price of a change, bounded by the finite bounds, on the other columns of those rows. The
    deficit is taken from a column's private rows in proportion to what each can give."""
    n = a["start"].shape[0] - 1
    col = np.repeat(np.arange(n), np.diff(a["start"]))
    return _repair(a, col, _signed(a, np.asarray(y, dtype=float)))


def _signed(a, y):
    """Multipliers clipped to the signs weak duality allows: ``>= 0`` only on a finite lower side, ``<= 0``
    only on a finite upper side."""
    rl, ru = a["row_lower"], a["row_upper"]
    y = np.where(np.isfinite(rl), y, np.minimum(y, 0.0))
    return np.where(np.isfinite(ru), y, np.maximum(y, 0.0))


def _reduced(a, col, y):
    return a["cost"] - np.bincount(col, weights=a["value"] * y[a["index"]], minlength=a["cost"].shape[0])


def _repair(a, col, y):
    row, val = a["index"], a["value"]
    d = _reduced(a, col, y)
    free = ~np.isfinite(a["upper"])
    n_free = np.bincount(row, weights=free[col], minlength=y.shape[0])
    give = val * y[row]  # setting y_r to 0 raises d_j by a_rj y_r
    entry = free[col] & (d[col] < 0) & (n_free[row] == 1) & (give > 0)
    if not entry.any():
        return y
    total = np.bincount(col[entry], weights=give[entry], minlength=d.shape[0])
    share = np.zeros(d.shape[0])
    short = (d < 0) & (total > 0)
    with np.errstate(over="ignore"):  # a denormal total: the share is 1
        share[short] = np.minimum(1.0, -d[short] / total[short])
    out = y.copy()
    out[row[entry]] = y[row[entry]] * (1.0 - share[col[entry]])  # towards zero: the sign stays allowed
    return out


def _sum(a, col, y, up):
    rl, ru = a["row_lower"], a["row_upper"]
    row_terms = np.where(y > 0, y * np.where(np.isfinite(rl), rl, 0.0), y * np.where(np.isfinite(ru), ru, 0.0))
    d = _reduced(a, col, y)
    with np.errstate(invalid="ignore"):
        col_terms = np.where(d > 0, d * a["lower"], np.where(d < 0, d * up, 0.0))
    if not np.isfinite(col_terms).all():
        return -np.inf
    terms = np.concatenate([row_terms, col_terms])
    # the sum's own rounding, and that of every reduced cost times the bound it multiplies
    used = np.where(d > 0, np.abs(a["lower"]), np.where(d < 0, np.abs(up), 0.0))
    spread = np.bincount(col, weights=np.abs(a["value"] * y[a["index"]]), minlength=d.shape[0]) + np.abs(a["cost"])
    scale = np.abs(terms).sum() + float(spread @ used)
    return float(terms.sum()) - MARGIN * (1.0 + scale)
