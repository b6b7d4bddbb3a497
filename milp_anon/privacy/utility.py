"""ARX's utility metrics of a released table, computed from the released cells and the original table.

Every metric is read from the table as released — each record recoded on its own, as local recoding releases
it — and never from the model. A released QI cell *covers* a set of the column's values: its own value; every
value for ``*`` and for a hierarchy's root; the values under a hierarchy node; the numbers within a range
``lo-hi`` of an interval column; the members of a value set ``a,b``. A withheld record (record suppression)
counts as a record with every QI cell at its root (ARX releases it as ``*`` in every QI). ``n`` is the number of
input records (withheld ones included), ``m`` the number of QI columns.

Per column (``per_column``) and for the table:

* **loss** (Iyengar 2002; ARX's ``MetricMDNMLoss`` / ``QualityModelColumnOrientedLoss``): a cell loses
  ``(|covered leaves| − 1) / (|D| − 1)``, ``D`` the column's domain — the hierarchy's leaves for a hierarchy
  column, the data's values otherwise; an interval ``lo-hi`` loses its width over the column's range
  ``(hi − lo) / (max − min)``, ``*`` loses 1. A column's loss is the mean over its ``n`` cells and the table's
  the mean over the columns: ARX's normalized value ``(L − min) / (max − min)`` with ``min`` = every cell at
  its value, ``max`` = every cell suppressed, so in ``[0, 1]`` (ARX shows ``1 −`` it as quality).
* **precision** (Sweeney 2002; ``MetricMDNMPrecision``): a cell at level ``l`` of a hierarchy of height ``H``
  loses ``l / H``; a suppression column's ``*`` is level 1 of 1. Interval and value-set columns have no
  levels: their cells form a lattice of height 1 (the value, then every range or set and ``*``), so any
  recoded cell counts 1. Mean over cells and columns, in ``[0, 1]`` (ARX's normalization: min 0, max 1).
* **non_uniform_entropy** (De Waal & Willenborg 1999; Gionis & Tassa 2009; ``MetricMDNUEntropy``): a cell of
  input value ``v`` released as a cell covering ``S`` costs ``−log2(N(v) / N(S))`` bits, with ``N`` counted
  over the whole original column (withheld records included); the value itself costs 0. Summed over the
  cells (bits, the figure ``--cost entropy`` minimizes: ``formulations/generalization.md``). ``normalized``
  divides it by ARX's maximum, every cell suppressed (``Σ_r −log2(N(v_r) / n)``; minimum 0). ARX's
  local-recoding variant (Prasser, Bild & Kuhn, MIE 2016) counts ``N`` level by level over the records
  generalized at least that far; here it is counted over the whole table, Gionis and Tassa's definition.

For the table only:

* **discernibility** (Bayardo & Agrawal 2005; ``MetricSDDiscernability``): ``Σ_E |E|²`` over the released
  classes plus ``n`` for each withheld record. ``normalized``: ARX's ``(DM − DM_in) / (n² − DM_in)``,
  ``DM_in`` the input's own classes' ``Σ |E|²``.
* **aecs**, average equivalence class size (LeFevre, DeWitt & Ramakrishnan 2006; ``MetricSDAECS``):
  ``n / #classes``, the withheld records counting as one class (ARX's output holds them as one group of
  ``*`` rows). ``normalized``: ARX's ``(AECS − AECS_in) / (n − AECS_in)``.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd

from milp_anon.privacy.verify import parse_range
from milp_anon.runtime.errors import VerificationError
from milp_anon.tables.recoding import Generalization
from milp_anon.tables.table import SUPPRESSED

__all__ = ["cell_entropy", "utility_metrics"]


def _num(text: str):
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


class _Column:
    """How the released cells of one QI column read: ``measure(v, cell) -> (loss, precision, covered values)``."""

    def __init__(self, values: np.ndarray, col: str, recoding):
        self.col = col
        self.domain = sorted(set(values.tolist()))
        gen = recoding if isinstance(recoding, Generalization) else None
        self.kind = "suppression"
        if gen is not None and col in gen.intervals:
            self.kind = "interval"
            self.numbers = {v: _num(v) for v in self.domain}
            nums = [x for x in self.numbers.values() if x is not None]
            self.lo, self.hi = (min(nums), max(nums)) if nums else (0.0, 0.0)
        elif gen is not None and col in gen.value_sets:
            self.kind = "set"
        elif gen is not None and col in gen.hierarchies:
            self.kind = "hierarchy"
            self.h = gen.hierarchies[col]
            self.leaves = Counter((lvl, node) for path in self.h.paths.values() for lvl, node in enumerate(path))
            self.n_leaves = len(self.h.paths)

    def root(self, v: str):
        """A withheld record's cell: every value covered, full loss and precision."""
        return 1.0, 1.0, self.domain

    def measure(self, v: str, cell: str):
        if cell == v:
            return 0.0, 0.0, [v]
        if cell == SUPPRESSED and self.kind != "hierarchy":
            return self.root(v)
        if self.kind == "hierarchy":
            path = self.h.paths.get(v)
            if path is None or cell not in path:
                return self._bad(v, cell)
            level, H = path.index(cell), self.h.height
            leaves = self.leaves[(level, cell)]
            loss = (leaves - 1) / (self.n_leaves - 1) if self.n_leaves > 1 else float(level > 0)
            covered = [u for u in self.domain if u in self.h.paths and self.h.paths[u][level] == cell]
            return loss, level / H, covered
        if self.kind == "interval":
            rng = parse_range(cell)
            x = _num(cell) if rng is None else None
            lo, hi = (float(rng[0]), float(rng[1])) if rng is not None else (x, x)
            if lo is None or self.numbers.get(v) is None or not lo <= self.numbers[v] <= hi:
                return self._bad(v, cell)
            span = self.hi - self.lo
            loss = (min(hi, self.hi) - max(lo, self.lo)) / span if span else 0.0
            covered = [u for u in self.domain if self.numbers[u] is not None and lo <= self.numbers[u] <= hi]
            return loss, 1.0, covered
        if self.kind == "set":
            members = {x.strip() for x in cell.split(",")}
            if v not in members:
                return self._bad(v, cell)
            D = len(self.domain)
            loss = (len(members) - 1) / (D - 1) if D > 1 else 0.0
            return loss, 1.0, [u for u in self.domain if u in members]
        return self._bad(v, cell)

    def _bad(self, v, cell):
        raise VerificationError(f"verification failed: QI column {self.col!r} holds {cell!r}, which does not "
                                f"cover the input value {v!r}")


def cell_entropy(count_v: int, count_covered: int) -> float:
    """The non-uniform entropy of one cell: ``−log2(N(v) / N(S))`` bits (0 when the cell keeps its value)."""
    return 0.0 if count_v == count_covered else -math.log2(count_v / count_covered)


def _sum_squares(frame: pd.DataFrame, qi) -> float:
    if not len(frame):
        return 0.0
    sizes = frame[list(qi)].astype(str).groupby(list(qi), sort=False, dropna=False).size().to_numpy(np.float64)
    return float((sizes**2).sum())


def _n_classes(frame: pd.DataFrame, qi) -> int:
    if not len(frame):
        return 0
    return int(frame[list(qi)].astype(str).groupby(list(qi), sort=False, dropna=False).ngroups)


def utility_metrics(original: pd.DataFrame, released: pd.DataFrame, qi, recoding=None, withheld=None) -> dict:
    """ARX's utility metrics of ``released`` against ``original`` (module docstring).

    ``released`` has the original's rows in the original's order; ``withheld`` is a mask of withheld records
    (their released cells are not read). Returns ``{loss, precision, non_uniform_entropy, discernibility,
    aecs, per_column: {loss, precision, non_uniform_entropy}: {column: value}, normalized:
    {non_uniform_entropy, discernibility, aecs, per_column: {non_uniform_entropy: {column: value}}}}``.
    """
    qi = list(qi)
    n = len(original)
    mask = np.zeros(n, dtype=bool) if withheld is None else np.asarray(withheld, dtype=bool)
    per = {"loss": {}, "precision": {}, "non_uniform_entropy": {}}
    ent_norm = {}
    total_ent = total_max = 0.0
    for c in qi:
        a = original[c].astype(str).to_numpy()
        b = released[c].astype(str).to_numpy()
        col = _Column(a, c, recoding)
        count = Counter(a.tolist())
        loss = prec = ent = ent_max = 0.0
        pairs = Counter(zip(a.tolist(), b.tolist(), mask.tolist()))
        for (v, cell, out), times in pairs.items():
            lo, pr, covered = col.root(v) if out else col.measure(v, cell)
            loss += times * lo
            prec += times * pr
            ent += times * cell_entropy(count[v], sum(count[u] for u in covered))
            ent_max += times * cell_entropy(count[v], n)
        per["loss"][c] = loss / n if n else 0.0
        per["precision"][c] = prec / n if n else 0.0
        per["non_uniform_entropy"][c] = ent
        ent_norm[c] = ent / ent_max if ent_max else 0.0
        total_ent += ent
        total_max += ent_max
    kept = released[~mask]
    n_withheld = int(mask.sum())
    dm = _sum_squares(kept, qi) + float(n_withheld) * n
    dm_in = _sum_squares(original, qi)
    classes = _n_classes(kept, qi) + (1 if n_withheld else 0)
    aecs = n / classes if classes else 0.0
    aecs_in = n / _n_classes(original, qi) if n else 0.0
    m = len(qi)
    return {
        "loss": sum(per["loss"].values()) / m if m else 0.0,
        "precision": sum(per["precision"].values()) / m if m else 0.0,
        "non_uniform_entropy": total_ent,
        "discernibility": dm,
        "aecs": aecs,
        "per_column": per,
        "normalized": {
            "non_uniform_entropy": total_ent / total_max if total_max else 0.0,
            "discernibility": (dm - dm_in) / (n * n - dm_in) if n * n > dm_in else 0.0,
            "aecs": (aecs - aecs_in) / (n - aecs_in) if n > aecs_in else 0.0,
            "per_column": {"non_uniform_entropy": ent_norm},
        },
    }
