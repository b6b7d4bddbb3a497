"""Privacy criteria as composable objects: each a condition on every output group.

A criterion here states

* its parameters, validated when it is made and against a table (:meth:`Criterion.validate`);
* **the group test** :meth:`Criterion.violation`: given the sizes and
  sensitive-value counts of some groups (:class:`GroupCounts`), why the first
  group that fails it fails, or ``None``. It is the one statement of "does
  this group meet the criterion" for the whole-table pre-check, the model's
  check of a solver's assignment, and the heuristics;
* the smallest legal group size and safe pruning of candidates;
* why a table cannot meet it at all (:meth:`Criterion.infeasibility`): every
  criterion here is closed under union of groups, so a request is feasible
  exactly when the whole table, as one group, passes the group test.

How a criterion enters the MILP is :mod:`milp_anon.formulations.rows`. The
verifier (:mod:`milp_anon.privacy.verify`) and brute force
(:mod:`milp_anon.exact.brute_force`) check released tables from the
definitions on their own; they read only the parameters from these objects.

Criteria on a sensitive column apply to each sensitive column of the table
unless ``column=`` names one.
"""

from __future__ import annotations

import decimal
import math
import numbers
from dataclasses import dataclass
from dataclasses import field as dataclasses_field
from fractions import Fraction

import numpy as np
import pandas as pd

from milp_anon.privacy import emd
from milp_anon.runtime.errors import InputError
from milp_anon.tables.hierarchy import Hierarchy

__all__ = ["Criterion", "DeltaPresence", "GroupCounts", "KAnonymity", "KMap", "LDiversity", "PSensitivity",
           "TCloseness", "entropy_at_least", "entropy_top_share", "exact", "failing_groups", "first_violation",
           "group_test"]
__all__ += ["AverageRisk", "BetaLikeness", "DeltaDisclosure"]


def _positive_int(value, what: str) -> int:
    if isinstance(value, bool):
        raise InputError(f"{what} must be a whole number, got {value!r}")
    if not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(value)
        else:
            raise InputError(f"{what} must be a whole number, got {value!r}")
    if value < 1:
        raise InputError(f"{what} must be at least 1, got {value}")
    return int(value)


def _real(value, what: str, lo=None, hi=None) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{what} must be a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or (lo is not None and v < lo) or (hi is not None and v > hi):
        rng = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
        raise InputError(f"{what} must be in {rng}, got {value}")
    return v


#: parameters (t, c, frequency ℓ) are read as the nearest fraction with at most this denominator
MAX_DENOMINATOR = 10**6


def exact(value) -> Fraction:
    """The exact rational a parameter stands for: the nearest fraction with a
    denominator of at most 10^6 (0.2 -> 1/5, 0.3333333333333333 -> 1/3).

    The model, the group test, the verifier and brute force all compare
    against this value, so a group exactly at the bound is legal everywhere.
    """
    f = Fraction(str(value)) if isinstance(value, float) else Fraction(value)
    return f.limit_denominator(MAX_DENOMINATOR)


# --- what a group test sees -------------------------------------------------------------

@dataclass(frozen=True)
class GroupCounts:
    """Sizes and sensitive-value counts of ``G`` groups of one table's rows.

    Attributes
    ----------
    size
        ``(G,)`` rows per group.
    counts
        Per sensitive column of the table, ``(G, V)`` rows per group and value
        code (empty when no criterion needs them).
    whole
        Per sensitive column, ``(V,)`` rows of the whole table per value code.
    columns
        The sensitive columns' names.
    values
        Per sensitive column, the value of each code.
    label
        How to name the groups in a message (``"the whole table"``); groups
        are named by their index otherwise.
    population
        ``(G,)`` per group the population records its released QI tuple covers (k-map, δ-presence), or
        ``None`` where the groups' releases are not known (the population criteria then judge from the
        bounds every release obeys: :class:`KMap`, :class:`DeltaPresence`).
    """

    size: np.ndarray
    counts: tuple
    whole: tuple
    columns: tuple
    values: tuple
    label: str | None = None
    population: np.ndarray | None = None
    #: the records of the table the groups come from, withheld ones included (``None``: the groups' own rows); only
    #: :class:`AverageRisk` reads it, to count withheld records as one class of the table
    records: int | None = None

    @classmethod
    def of(cls, table, size, counts=(), label: str | None = None, population=None) -> GroupCounts:
        """Groups of ``table`` with the given sizes and (optionally) per-column counts and population matches."""
        whole = tuple(np.bincount(table.sensitive_codes[:, s], minlength=len(v)).astype(np.int64)
                      for s, v in enumerate(table.sensitive_values))
        return cls(np.asarray(size, dtype=np.int64), tuple(counts), whole, tuple(table.sensitive),
                   tuple(table.sensitive_values), label,
                   None if population is None else np.asarray(population, dtype=np.int64), int(table.n))

    @classmethod
    def whole_table(cls, table) -> GroupCounts:
        """The whole table as one group."""
        g = cls.of(table, [table.n], label="the whole table")
        return cls(g.size, tuple(w[None, :] for w in g.whole), g.whole, g.columns, g.values, g.label,
                   records=g.records)

    def of_rows(self, table, rows, *, sensitive: bool = True) -> GroupCounts:
        """The rows ``rows`` of ``table`` as one group, sharing this object's table data
        (``sensitive=False``: sizes only)."""
        rows = np.asarray(rows, dtype=np.int64)
        counts = ()
        if sensitive:
            counts = tuple(np.bincount(table.sensitive_codes[rows, s], minlength=len(v))[None, :].astype(np.int64)
                           for s, v in enumerate(table.sensitive_values))
        return GroupCounts(np.array([rows.size], dtype=np.int64), counts, self.whole, self.columns, self.values)

    def group(self, i: int) -> GroupCounts:
        """Group ``i`` alone."""
        return GroupCounts(self.size[i:i + 1], tuple(c[i:i + 1] for c in self.counts), self.whole, self.columns,
                           self.values, self.label, None if self.population is None else self.population[i:i + 1])

    def name(self, i: int) -> str:
        """How group ``i`` is named in a message."""
        return self.label if self.label is not None else f"group {int(i)}"


def first_violation(criteria, groups: GroupCounts) -> str | None:
    """The first criterion's message for the first group that fails it, or ``None``."""
    for crit in criteria:
        why = crit.violation(groups)
        if why:
            return why
    return None


def failing_groups(criteria, groups: GroupCounts) -> np.ndarray:
    """``(G,)`` bool: group ``i`` fails some criterion (each group put to :func:`first_violation` alone)."""
    return np.array([first_violation(criteria, groups.group(i)) is not None for i in range(groups.size.shape[0])],
                    dtype=bool)


def group_test(table, criteria):
    """A predicate on arrays of row indices of ``table``: the rows, as one group, meet every criterion."""
    criteria = list(criteria)
    sensitive = any(c.needs_sensitive for c in criteria)
    base = GroupCounts.of(table, [])  # the table's counts, once
    return lambda rows: first_violation(criteria, base.of_rows(table, rows, sensitive=sensitive)) is None


# --- the criteria -------------------------------------------------------------------------

class Criterion:
    """Base class: a condition on every output group."""

    name = "criterion"
    #: works on a sensitive column (the model then splits the assignment by sensitive values)
    needs_sensitive = False
    #: closure and pattern dominance are exact for it (False: a coarser release than the rows' hull can be needed)
    closure_safe = True
    #: two groups that meet it meet it as one (their union): the searches that splice sub-tables, whose classes
    #: may merge where two pieces release the same tuple, rely on it (False: :class:`DeltaPresence`)
    union_closed = True
    #: a condition on each group alone (False: on the groups together, e.g. :class:`AverageRisk`; one group's test
    #: is then a sufficient condition, and the searches that splice groups do not apply)
    per_group = True

    def min_group_size(self) -> int:
        """Smallest group size any group meeting the criterion can have."""
        return 1

    def applies_to(self, sensitive) -> list[int]:
        """Indices, in the list of sensitive column names ``sensitive``, of the columns the criterion reads."""
        return []

    def columns(self, table) -> list[int]:
        """Indices of the sensitive columns of ``table`` the criterion applies to."""
        return self.applies_to(table.sensitive)

    def validate(self, table) -> None:
        """Raise :class:`InputError` if the criterion cannot be applied to ``table``."""

    def check_recoding(self, recoding) -> None:
        """Raise :class:`InputError` if the criterion is not modeled under ``recoding`` (default: it is)."""

    def violation(self, groups: GroupCounts) -> str | None:  # pragma: no cover - interface
        """Why the first failing group of ``groups`` fails the criterion, or ``None`` if all meet it."""
        raise NotImplementedError

    def infeasibility(self, table) -> str | None:
        """Why no anonymization of ``table`` can meet the criterion (or ``None``).

        The criterion is closed under union: it is met by some release exactly
        when the whole table, as one group, meets it.
        """
        why = self.violation(GroupCounts.whole_table(table))
        return None if why is None else f"{self.describe()}: {why}"

    def prune(self, table, units, cands, min_size: int = 1):
        """Drop candidates that provably cannot host a legal group of at least ``min_size`` rows (default:
        none)."""
        return cands

    def least_sizes(self, table, units, cands, min_size: int = 1) -> np.ndarray | None:
        """``(C,)`` per candidate the least size (at least ``min_size``) a group released as it may have and
        meet the criterion, from its compatible rows alone (``-1``: no such group), or ``None`` when the
        criterion asks no more of a group's size than ``min_size`` (default).

        Exact as a floor: a group released as ``j`` holds only ``j``'s compatible rows, so every legal group
        is one of the sub-multisets these sizes range over (the model's floor rows,
        ``formulations/k-anonymity.md``)."""
        return None

    def describe(self) -> str:
        return self.name


@dataclass(frozen=True)
class KAnonymity(Criterion):
    """k-anonymity: every output group has at least ``k`` rows."""

    k: int

    name = "k-anonymity"

    def __post_init__(self):
        object.__setattr__(self, "k", _positive_int(self.k, "k"))

    def min_group_size(self) -> int:
        return self.k

    def violation(self, groups: GroupCounts) -> str | None:
        bad = np.flatnonzero(groups.size < self.k)
        if bad.size:
            i = bad[0]
            return f"{groups.name(i)}: k = {self.k} exceeds the number of rows ({int(groups.size[i])})"
        return None

    def describe(self) -> str:
        return f"{self.k}-anonymity"


class _SensitiveCriterion(Criterion):
    """Shared handling of the sensitive column(s) a criterion applies to."""

    needs_sensitive = True
    column: str | None = None

    def applies_to(self, sensitive) -> list[int]:
        if self.column is None:
            return list(range(len(sensitive)))
        return [list(sensitive).index(self.column)]

    def validate(self, table) -> None:
        if not table.sensitive:
            raise InputError(f"{self.describe()} needs a sensitive column (give --sensitive / sensitive=)")
        if self.column is not None and self.column not in table.sensitive:
            raise InputError(
                f"{self.describe()} names column {self.column!r}, which is not a sensitive column "
                f"(sensitive: {', '.join(table.sensitive)})"
            )

    def _distinct_counts(self, groups: GroupCounts):
        """Per column the criterion reads: ``(column index, (G,) distinct values per group)``."""
        for col in self.applies_to(groups.columns):
            yield col, (groups.counts[col] > 0).sum(axis=1)

    def distinct_failing(self, groups: GroupCounts, need: int) -> np.ndarray:
        """``(G,)`` groups with fewer than ``need`` distinct values in some column the criterion reads."""
        bad = np.zeros(groups.size.shape[0], dtype=bool)
        for _, distinct in self._distinct_counts(groups):
            bad |= distinct < need
        return bad

    def _distinct_violation(self, groups: GroupCounts, need: int, what: str) -> str | None:
        """At least ``need`` distinct values in every group (``what`` names the parameter)."""
        for col, distinct in self._distinct_counts(groups):
            bad = np.flatnonzero(distinct < need)
            if bad.size:
                i = bad[0]
                return (f"{groups.name(i)}: {what} = {need} exceeds the {int(distinct[i])} distinct values of "
                        f"sensitive column {groups.columns[col]!r}")
        return None

    def _prune_distinct(self, table, units, cands, need):
        """Drop candidates whose compatible rows carry fewer than ``need`` distinct values (an int, or a
        callable giving it per sensitive column index).

        Safe: a group released as ``j`` holds only compatible rows; closure
        keeps the compatible set, so no closed candidate is lost wrongly.
        """
        need_of = need if callable(need) else (lambda col: need)
        if all(need_of(col) <= 1 for col in self.columns(table)):
            return cands
        keep = np.ones(cands.n_candidates, dtype=bool)
        for col, m in self._counts_per_candidate(table, units, cands):
            keep &= (m > 0).sum(axis=1) >= need_of(col)
        return cands.subset(keep, stage=f"{self.name} distinct values")

    def _least_sizes(self, table, units, cands, rules) -> np.ndarray | None:
        """The largest of ``rules(col)`` (functions of the ``(C, V)`` compatible rows per value, each giving
        least sizes or ``-1``) over the columns the criterion reads; ``-1`` wherever one rule gives it."""
        least = None
        for col, m in self._counts_per_candidate(table, units, cands):
            for rule in rules(col):
                s = np.asarray(rule(m), dtype=np.int64)
                least = s if least is None else np.where((s < 0) | (least < 0), -1, np.maximum(least, s))
        return least

    @staticmethod
    def _distinct_rule(need: int, min_size: int):
        """Least sizes under "at least ``need`` distinct values": ``need`` rows (one per value), if the
        candidate's compatible rows carry that many values."""
        return lambda m: np.where((m > 0).sum(axis=1) >= need, max(int(min_size), int(need)), -1)

    def _counts_per_candidate(self, table, units, cands):
        """Per sensitive column the criterion reads: ``(column index, (C, V) compatible rows of each value
        per candidate)``."""
        pu, pc = units.expand_pairs(cands.pair_type, cands.pair_cand)
        for col in self.columns(table):
            V = len(table.sensitive_values[col])
            m = np.bincount(pc * V + units.sensitive[pu, col], weights=units.counts[pu],
                            minlength=cands.n_candidates * V)
            yield col, m.reshape(-1, V).astype(np.int64)


def _column_label(column):
    return "" if column is None else f" on {column!r}"


@dataclass(frozen=True)
class PSensitivity(_SensitiveCriterion):
    """p-sensitivity: every group has at least ``p`` distinct sensitive values.

    The same as distinct ℓ-diversity (Bredereck et al. 2013, Def. 3).
    """

    p: int
    column: str | None = None

    name = "p-sensitivity"

    def __post_init__(self):
        object.__setattr__(self, "p", _positive_int(self.p, "p"))

    def min_group_size(self) -> int:
        return self.p

    def violation(self, groups: GroupCounts) -> str | None:
        return self._distinct_violation(groups, self.p, "p")

    def prune(self, table, units, cands, min_size: int = 1):
        return self._prune_distinct(table, units, cands, self.p)

    def least_sizes(self, table, units, cands, min_size: int = 1):
        if self.p <= min_size:
            return None
        return self._least_sizes(table, units, cands, lambda col: [self._distinct_rule(self.p, min_size)])

    def describe(self) -> str:
        return f"{self.p}-sensitivity{_column_label(self.column)}"


@dataclass(frozen=True)
class LDiversity(_SensitiveCriterion):
    """ℓ-diversity of a sensitive column in every group.

    Parameters
    ----------
    l
        ℓ (``>= 1``).
    kind
        ``"frequency"`` (default): every value occurs at most ``|G|/ℓ`` times
        (Bredereck et al. 2013, Def. 4); ``"distinct"``: at least ``ℓ``
        distinct values (= p-sensitivity); ``"recursive"``: with the counts
        sorted ``r_1 >= r_2 >= ...``, ``r_1 < c · (r_ℓ + r_{ℓ+1} + ...)``
        (Machanavajjhala et al.); ``"entropy"``: the entropy of the group's
        sensitive values ``H(G) = −Σ_s q_s log q_s >= log ℓ``, ``q_s`` the
        share of value ``s`` (Machanavajjhala et al., TKDD 2007, Def. 4.1),
        decided exactly (:func:`entropy_at_least`); not linear in the counts:
        modeled by cuts generated where classes fail (``formulations/l-diversity.md``).
    c
        The ``c`` of recursive (c,ℓ)-diversity (``>= 1``).
    column
        Restrict to one sensitive column (default: each sensitive column).
    """

    l: float  # noqa: E741 - the papers' name
    kind: str = "frequency"
    c: float | None = None
    column: str | None = None

    name = "l-diversity"

    def __post_init__(self):
        if self.kind not in ("frequency", "distinct", "recursive", "entropy"):
            raise InputError(f"l-diversity kind must be frequency, distinct, recursive or entropy, got {self.kind!r}")
        if self.kind in ("frequency", "entropy"):
            object.__setattr__(self, "l", _real(self.l, "l", lo=1))
        else:
            object.__setattr__(self, "l", _positive_int(self.l, "l"))
        if self.kind == "recursive":
            if self.c is None:
                raise InputError("recursive (c,l)-diversity needs c")
            object.__setattr__(self, "c", _real(self.c, "c", lo=1))
        elif self.c is not None:
            raise InputError(f"c applies to recursive l-diversity only, not to {self.kind}")

    def min_group_size(self) -> int:
        return math.ceil(self.l - 1e-12)

    def violation(self, groups: GroupCounts) -> str | None:
        if self.kind == "distinct":
            return self._distinct_violation(groups, self.l, "l")
        for col in self.applies_to(groups.columns):
            M, s, name = groups.counts[col], groups.size, groups.columns[col]
            if self.kind == "entropy":
                why = _entropy_violation(self, groups, col)
                if why:
                    return why
                continue
            if self.kind == "frequency":
                # every value at most |G|/ℓ times, with ℓ = a/b: a · max_σ c_σ <= b · |G|
                lr = exact(self.l)
                top = M.max(axis=1)
                bad = np.flatnonzero(lr.numerator * top > lr.denominator * s)
                if bad.size:
                    i = bad[0]
                    value = groups.values[col][int(np.argmax(M[i]))]
                    return (f"{groups.name(i)}: value {value!r} of {name!r} occurs {int(top[i])} times in "
                            f"{int(s[i])} rows, more than {int(s[i])}/l = {s[i] / self.l:.4g}")
            else:
                # r_1 < c · Σ_{i>=ℓ} r_i, with c = a/b: b · r_1 < a · tail
                cr = exact(self.c)
                r = -np.sort(-M, axis=1)
                tail = r[:, self.l - 1:].sum(axis=1)
                bad = np.flatnonzero(~(cr.denominator * r[:, 0] < cr.numerator * tail))
                if bad.size:
                    i = bad[0]
                    return (f"{groups.name(i)}: not recursive ({self.c:g},{self.l})-diverse on {name!r} "
                            f"(r1 = {int(r[i, 0])}, tail from r{self.l} = {int(tail[i])})")
        return None

    def _caps(self):
        """``(a, b, strict)``: every value at most ``b |G| / a`` times (``strict``: fewer), for frequency ℓ
        (``ℓ = a/b``) and recursive (c, 2); else ``None``."""
        if self.kind == "frequency":  # a · c_σ <= b · |G| with ℓ = a/b
            lr = exact(self.l)
            return lr.numerator, lr.denominator, False
        if self.kind == "recursive" and self.l == 2:  # r_1 < c (|G| − r_1): (c + 1) r_1 < c |G|, c = p/q
            cr = exact(self.c)
            return cr.numerator + cr.denominator, cr.numerator, True
        return None

    def least_sizes(self, table, units, cands, min_size: int = 1):
        need, caps = math.ceil(self.l - 1e-12), self._caps()

        def rules(col):
            out = [self._distinct_rule(need, min_size)] if need > 1 else []
            if caps is not None:
                a, b, strict = caps
                out.append(lambda m: least_diverse_size(m, a, b, min_size, strict=strict))
            return out

        return self._least_sizes(table, units, cands, rules)

    def prune(self, table, units, cands, min_size: int = 1):
        cands = self._prune_distinct(table, units, cands, math.ceil(self.l - 1e-12))
        caps = self._caps()
        if caps is None:
            return cands
        a, b, strict = caps
        # no sub-multiset of ``min_size`` rows or more within the caps: exact, since a group released as
        # ``j`` holds only compatible rows (:func:`least_diverse_size`)
        keep = np.ones(cands.n_candidates, dtype=bool)
        for _col, m in self._counts_per_candidate(table, units, cands):
            keep &= least_diverse_size(m, a, b, min_size, strict=strict) >= 0
        return cands.subset(keep, stage=f"{self.name} frequencies") if not keep.all() else cands

    def describe(self) -> str:
        if self.kind == "recursive":
            return f"recursive ({self.c:g},{self.l})-diversity{_column_label(self.column)}"
        return f"{self.kind} {self.l:g}-diversity{_column_label(self.column)}"


# --- entropy ℓ-diversity: the exact test and what it implies ---------------------------------

#: the float entropy decides only when it is farther than this from ``log ℓ`` (its error is below 1e-13 for
#: groups of up to 10^9 rows); nearer, the integers decide
ENTROPY_FLOAT_MARGIN = 1e-9


def entropy_at_least(counts, l) -> bool:
    """Whether a group with sensitive-value counts ``counts`` (integers) has entropy ``H >= log ℓ``, exactly.

    With ``n = Σ c_s`` and ``ℓ = a/b`` (:func:`exact`), ``H = log n − (1/n) Σ c_s log c_s``, so
    ``H >= log ℓ  ⟺  a^n · Π c_s^{c_s} <= (b n)^n``, a comparison of integers. The float entropy decides
    first where it lies farther than :data:`ENTROPY_FLOAT_MARGIN` from ``log ℓ``; only nearer are the
    (large) integers formed. An empty group meets it (nothing to disclose)."""
    c = [int(x) for x in np.asarray(counts).ravel() if x > 0]
    n = sum(c)
    if n == 0:
        return True
    lr = exact(l)
    a, b = lr.numerator, lr.denominator
    h = math.log(n) - math.fsum(x * math.log(x) for x in c) / n
    d = h - (math.log(a) - math.log(b))
    if d > ENTROPY_FLOAT_MARGIN:
        return True
    if d < -ENTROPY_FLOAT_MARGIN:
        return False
    prod = 1
    for x in c:
        prod *= x ** x
    return a ** n * prod <= (b * n) ** n


def _entropy_violation(crit, groups: GroupCounts, col: int) -> str | None:
    """The group test of entropy ℓ-diversity on sensitive column ``col``: the first group whose entropy is below
    ``log ℓ`` (:func:`entropy_at_least`), or ``None``."""
    M = groups.counts[col]
    # at least ⌈ℓ⌉ distinct values first (H <= log of the number of values): cheap, and implied
    need = math.ceil(crit.l - 1e-12)
    for i in range(M.shape[0]):
        row = M[i]
        if (row > 0).sum() < need or not entropy_at_least(row, crit.l):
            q = row[row > 0] / max(int(row.sum()), 1)
            h = float(-(q * np.log(q)).sum())
            return (f"{groups.name(i)}: entropy {h:.6g} of {groups.columns[col]!r} below log l = "
                    f"{math.log(crit.l):.6g} (not entropy {crit.l:g}-diverse)")
    return None


def entropy_top_share(l, V: int) -> float:
    """``p*``: in a group with values among ``V`` and entropy ``>= log ℓ``, no value's share exceeds ``p*``, the
    root in ``[1/V, 1]`` of ``h(p) + (1 − p) log(V − 1) = log ℓ`` (``h`` the binary entropy): the largest
    entropy with one share ``p`` is with the others equal, and it falls as ``p`` rises past ``1/V``.

    Returned a little high (bisection to ``1e-12``, then up), so ``q_s <= p*`` holds for every such group; the
    model writes it as a Gibbs cut, valid for any ``p`` (``formulations/l-diversity.md``)."""
    log_l = math.log(exact(l))
    if V < 2 or log_l <= 0:
        return 1.0

    def top(p):  # the largest entropy of a distribution over V values with one share p
        rest = (1.0 - p) / (V - 1)
        return -(p * math.log(p) if p > 0 else 0.0) - ((V - 1) * rest * math.log(rest) if rest > 0 else 0.0)

    lo, hi = 1.0 / V, 1.0
    if top(lo) < log_l:  # fewer values than ℓ: no group meets it
        return 1.0 / V
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if top(mid) >= log_l:
            lo = mid
        else:
            hi = mid
    return min(1.0, hi + 1e-12)


DISTANCES = ("equal", "ordered", "hierarchical")


@dataclass(frozen=True)
class TCloseness(_SensitiveCriterion):
    """t-closeness: the Earth Mover's Distance between each group's sensitive
    distribution and the whole table's is at most ``t`` (Liang-Yuan Sec. 2.1).

    Parameters
    ----------
    t
        In ``[0, 1]``.
    distance
        Ground metric: ``"equal"`` (``d = 1`` between distinct values; EMD is
        the total variation), ``"ordered"`` (``d(a,b) = |a − b|/(V − 1)`` on
        the value order), ``"hierarchical"`` (``d = level(LCA)/H`` in a value
        hierarchy), or a ``V × V`` matrix (a ``pandas.DataFrame`` indexed by
        the values, or a dict of dicts) that is a metric with values in ``[0, 1]``.
    order
        For ``"ordered"``: the values in order. Default: the distinct values of
        the column sorted numerically, which requires them all to be numbers.
    hierarchy
        For ``"hierarchical"``: an ARX hierarchy (path, DataFrame, dict or
        :class:`~milp_anon.tables.hierarchy.Hierarchy`).
    column
        Restrict to one sensitive column (default: each sensitive column).
    reference
        The distribution each class is compared with, per sensitive column:
        ``{column: {value: count}}`` (e.g. a population's counts; a
        ``pandas.Series`` of counts per value also works as the inner
        mapping). Default: the table's own distribution. Values the table
        does not hold count 0 in every class; table values the reference
        does not list count 0 in the reference. Classes meeting a fixed
        reference are closed under union (EMD to a fixed distribution is
        convex), so every exactness argument of the default holds. The
        large-neighbourhood search uses it: a sub-table is solved against
        the whole table's distribution.

    Notes
    -----
    The group test computes EMD in exact integer arithmetic for the three
    named metrics and with a transport LP for a matrix (:mod:`milp_anon.privacy.emd`).
    """

    t: float
    distance: object = "equal"
    order: tuple | None = None
    hierarchy: object = None
    column: str | None = None
    reference: object = None

    name = "t-closeness"

    def __post_init__(self):
        object.__setattr__(self, "t", _real(self.t, "t", lo=0, hi=1))
        if isinstance(self.distance, str):
            if self.distance not in DISTANCES:
                raise InputError(f"distance must be one of {', '.join(DISTANCES)} or a matrix, got {self.distance!r}")
        if self.distance_kind == "hierarchical":
            if self.hierarchy is None:
                raise InputError("hierarchical distance needs a hierarchy (--sensitive-hierarchy FILE)")
            object.__setattr__(self, "hierarchy", Hierarchy.coerce(self.hierarchy))
        elif self.hierarchy is not None:
            raise InputError("a sensitive hierarchy is only used with distance='hierarchical'")
        if self.order is not None:
            if self.distance_kind != "ordered":
                raise InputError("an order is only used with distance='ordered'")
            order = tuple(str(v) for v in self.order)
            if len(set(order)) != len(order):
                raise InputError("the order lists a value twice")
            object.__setattr__(self, "order", order)
        if self.reference is not None:
            object.__setattr__(self, "reference", _reference(self.reference))

    def reference_for(self, name: str) -> dict | None:
        """The reference counts ``{value: count}`` for sensitive column ``name``, or ``None`` (the table's own)."""
        if self.reference is None:
            return None
        for col, counts in self.reference:
            if col == name:
                return dict(counts)
        return None

    @property
    def distance_kind(self) -> str:
        """``equal``, ``ordered``, ``hierarchical`` or ``matrix``."""
        return self.distance if isinstance(self.distance, str) else "matrix"

    # -- the metric on a column's values --------------------------------------------
    def domain_of(self, values, name: str) -> list[str]:
        """The values of column ``name`` (with the reference's, if one is given) in the order the metric uses."""
        values = [str(v) for v in values]
        ref = self.reference_for(name)
        if ref is not None:
            values = sorted(set(values) | set(ref))
        if self.distance_kind == "ordered":
            if self.order is not None:
                missing = sorted(set(values) - set(self.order))
                extra = [v for v in self.order if v not in set(values)]
                if missing:
                    raise InputError(f"the order for {name!r} misses value(s) {', '.join(map(repr, missing[:5]))}")
                if extra:
                    raise InputError(f"the order for {name!r} lists value(s) not in the column: "
                                     f"{', '.join(map(repr, extra[:5]))}")
                return list(self.order)
            try:
                return sorted(values, key=lambda v: (float(v), v))
            except ValueError:
                raise InputError(
                    f"ordered distance on {name!r}: its values are not all numbers; give the order "
                    "(--order v1,v2,... / order=[...])"
                ) from None
        return values

    def domain(self, table, col) -> list[str]:
        """:meth:`domain_of` sensitive column ``col`` of ``table``."""
        return self.domain_of(table.sensitive_values[col], table.sensitive[col])

    def metric_of(self, values, name: str) -> np.ndarray:
        """The ground-distance matrix over :meth:`domain_of` (the general form's ``d``)."""
        vals = self.domain_of(values, name)
        V = len(vals)
        if self.distance_kind == "equal":
            return 1.0 - np.eye(V)
        if self.distance_kind == "ordered":
            idx = np.arange(V)
            return np.abs(idx[:, None] - idx[None, :]) / max(V - 1, 1)
        if self.distance_kind == "hierarchical":
            return self.hierarchy.distance_matrix(vals)
        # The matrix is checked (metric, max 1) once per domain: the group test asks for it on every call.
        key = (name, tuple(vals))
        cache = self.__dict__.setdefault("_metric_cache", {})
        if key not in cache:
            d = _matrix_metric(self.distance, vals, name)
            d.flags.writeable = False
            cache[key] = d
        return cache[key]

    def metric(self, table, col) -> np.ndarray:
        """:meth:`metric_of` sensitive column ``col`` of ``table``."""
        return self.metric_of(table.sensitive_values[col], table.sensitive[col])

    def validate(self, table) -> None:
        super().validate(table)
        if self.reference is not None:
            extra = [c for c, _ in self.reference if c not in table.sensitive]
            if extra:
                raise InputError(f"the t-closeness reference names column(s) that are not sensitive: "
                                 f"{', '.join(map(repr, extra))}")
        for col in self.columns(table):
            self.domain(table, col)
            if self.distance_kind == "hierarchical":
                self.hierarchy.check_values(self.domain(table, col), table.sensitive[col])
            elif not isinstance(self.distance, str):
                self.metric(table, col)

    # -- what every group meeting it must hold -------------------------------------------
    def necessary_shape(self, table, col: int) -> tuple[int, Fraction | None]:
        """``(D, cap)``: every group meeting the criterion on sensitive column ``col`` holds at least ``D``
        distinct values and no value more than ``cap · |G|`` times (``cap=None``: no cap below 1).

        Let ``d_min`` be the least distance between two distinct values of the domain. A transport plan
        moves at least the total variation ``TV`` between the group's distribution ``q`` and the
        reference ``P``, each unit over a distance ``>= d_min``, so ``EMD >= d_min · TV`` and
        ``TV <= τ = t / d_min``. ``TV >= Σ_{s absent} P_s``, so the values present carry reference mass
        ``>= 1 − τ``: at least as many values as the fewest largest masses reaching it. And
        ``q_s − P_s <= TV`` gives ``q_s <= P_max + τ``, hence also ``D >= ⌈1 / cap⌉``. Both are rounded
        the safe way (a smaller ``D``, a larger ``cap``). Equal distance: ``τ = t``; ordered: ``τ =
        t (V − 1)``, rarely below 1; hierarchical: ``τ = t H / (least LCA level)``.
        """
        ball = self.tv_ball(table, col)
        if ball is None:
            return 0, None
        P, absent, tau = ball
        mass = np.sort(np.concatenate([P, absent]))[::-1]
        need = (1.0 - tau) - 1e-9
        D = 0 if need <= 0 else int(np.searchsorted(np.cumsum(mass), need, side="left")) + 1
        top = mass[0] + tau
        cap = None if top >= 1 else Fraction(math.ceil(top * 1000 + 1e-6), 1000)
        if cap is not None and cap < 1:
            D = max(D, math.ceil(1 / cap))
        else:
            cap = None
        return min(D, mass.shape[0]), cap

    def least_distance(self, table, col: int) -> float | None:
        """``d_min``, the least ground distance between two distinct values of the domain on sensitive column
        ``col`` (``None`` with fewer than two values): every unit of mass a transport plan moves travels at
        least this far."""
        d = self.metric(table, col)
        if d.shape[0] < 2:
            return None
        return float(d[~np.eye(d.shape[0], dtype=bool)].min())

    def tv_ball(self, table, col: int) -> tuple[np.ndarray, np.ndarray, float] | None:
        """``(P, absent, τ)``: every group meeting the criterion on sensitive column ``col`` has a distribution
        within total variation ``τ`` of the reference, ``TV(q, P) <= τ``; ``None`` when no ``τ < 1`` follows
        (fewer than two values, or ``d_min = 0``).

        ``P[c]`` is the reference share of the table's value code ``c``; ``absent`` the shares of the
        domain's values the table does not hold (a given reference's). ``τ = t / d_min`` (``EMD >= d_min ·
        TV``: :meth:`necessary_shape`), rounded up; equal distance: ``τ = t``."""
        values = table.sensitive_values[col]
        dom = self.domain(table, col)
        d_min = self.least_distance(table, col)
        if d_min is None or d_min <= 0:
            return None
        ref = self.reference_for(table.sensitive[col])
        if ref is None:
            counts = np.bincount(table.sensitive_codes[:, col], minlength=len(values))
            ref = {str(v): int(c) for v, c in zip(values, counts)}
        total = float(sum(ref.get(v, 0) for v in dom))
        held = {str(v) for v in values}
        P = np.array([ref.get(str(v), 0) for v in values], dtype=float) / total
        absent = np.array([ref.get(v, 0) for v in dom if v not in held], dtype=float) / total
        tau = (float(self.t) + 1e-9) / d_min + 1e-9  # the matrix metric's group test allows t + 1e-9
        return (P, absent, tau) if tau < 1 else None

    def prune(self, table, units, cands, min_size: int = 1):
        """Two rules on one count of each candidate's compatible rows per value (the pairs are expanded
        to units once): fewer distinct values than :meth:`necessary_shape` asks, then (:meth:`_far`) no
        sub-multiset of ``min_size`` rows within the ball of :meth:`tv_ball`."""
        balls = {col: self.tv_ball(table, col) for col in self.columns(table)}
        if all(b is None for b in balls.values()):
            return cands
        need = {col: self.necessary_shape(table, col)[0] for col in balls}
        distinct = np.ones(cands.n_candidates, dtype=bool)
        near = np.ones(cands.n_candidates, dtype=bool)
        for col, m in self._counts_per_candidate(table, units, cands):
            distinct &= (m > 0).sum(axis=1) >= need[col]
            near &= self._far(m, balls[col], min_size)
        if any(v > 1 for v in need.values()):  # its own stage, as the other sensitive criteria's
            cands = cands.subset(distinct, stage=f"{self.name} distinct values")
            near = near[distinct]
        return cands.subset(near, stage=f"{self.name} ball") if not near.all() else cands

    def least_sizes(self, table, units, cands, min_size: int = 1):
        """The distinct values of :meth:`necessary_shape` and the least size within the ball of :meth:`tv_ball`
        (:func:`least_ball_size`), the larger, per column."""

        def rules(col):
            ball = self.tv_ball(table, col)
            if ball is None:
                return []
            D = self.necessary_shape(table, col)[0]
            out = [self._distinct_rule(D, min_size)] if D > 1 else []
            out.append(lambda m: least_ball_size(m, ball[0], ball[2], min_size))
            return out

        return self._least_sizes(table, units, cands, rules)

    @staticmethod
    def _far(m, ball, min_size: int) -> np.ndarray:
        """``(C,)`` False for the candidates (rows of counts ``m``) none of whose sub-multisets of at least
        ``min_size`` compatible rows lies within ``ball``, which every close group meets: exact, since a
        group released as ``j`` holds only compatible rows (:func:`least_ball_size`)."""
        if ball is None:
            return np.ones(m.shape[0], dtype=bool)
        return least_ball_size(m, ball[0], ball[2], min_size) >= 0

    # -- the group test ---------------------------------------------------------------
    def violation(self, groups: GroupCounts) -> str | None:
        t = exact(self.t)
        for col in self.applies_to(groups.columns):
            name, values = groups.columns[col], groups.values[col]
            dom = self.domain_of(values, name)
            at = {v: i for i, v in enumerate(dom)}
            where = np.array([at[str(v)] for v in values], dtype=np.int64)  # each code's place in dom
            counts = np.zeros((groups.size.shape[0], len(dom)), dtype=np.int64)
            counts[:, where] = groups.counts[col]
            ref = self.reference_for(name)
            if ref is None:
                whole = np.zeros(len(dom), dtype=np.int64)
                whole[where] = groups.whole[col]
            else:
                whole = np.array([ref.get(v, 0) for v in dom], dtype=np.int64)
            s = groups.size
            n = int(whole.sum())
            D = emd.scaled_differences(counts, whole, s)
            if self.distance_kind == "matrix":
                d = self.metric_of(values, name)
                dist = emd.transport_emds(np.outer(s, whole), n * counts, d) / (n * np.maximum(s, 1))
                ok = dist <= float(t) + 1e-9  # the LP is solved in floating point
            else:
                if self.distance_kind == "equal":
                    L, scale = emd.equal_sums(D)
                elif self.distance_kind == "ordered":
                    L, scale = emd.ordered_sums(D)
                else:
                    edges = [idxs for _, _, idxs in self.hierarchy.edges_below(dom)]
                    L, scale = emd.tree_sums(D, edges, self.hierarchy.height)
                ok = emd.within(L, scale, t, n, s)
                dist = L / (scale * n * np.maximum(s, 1))
            bad = np.flatnonzero(~ok)
            if bad.size:
                i = bad[0]
                return f"{groups.name(i)}: EMD {float(dist[i]):.6g} > t = {self.t:g} on {name!r}"
        return None

    def describe(self) -> str:
        dist = self.distance if isinstance(self.distance, str) else "matrix"
        ref = ", against a given distribution" if self.reference is not None else ""
        return f"{self.t:g}-closeness ({dist}{ref}){_column_label(self.column)}"


def _reference(reference) -> tuple:
    """``{column: {value: count}}`` as a sorted tuple of ``(column, ((value, count), ...))``, validated."""
    if isinstance(reference, tuple):  # already normalized (dataclasses.replace)
        reference = {c: dict(v) for c, v in reference}
    if not isinstance(reference, dict) or not reference:
        raise InputError("the t-closeness reference must be a non-empty mapping {column: {value: count}}")
    out = []
    for col, counts in reference.items():
        if isinstance(counts, pd.Series):
            counts = counts.to_dict()
        if not isinstance(counts, dict) or not counts:
            raise InputError(f"the t-closeness reference for {col!r} must be a non-empty mapping {{value: count}}")
        pairs = []
        for v, c in counts.items():
            if isinstance(c, bool) or not isinstance(c, numbers.Integral) or c < 0:
                raise InputError(f"the t-closeness reference count of {v!r} in {col!r} must be a whole number "
                                 f">= 0, got {c!r}")
            pairs.append((str(v), int(c)))
        if len({v for v, _ in pairs}) != len(pairs):
            raise InputError(f"the t-closeness reference for {col!r} lists a value twice")
        if sum(c for _, c in pairs) == 0:
            raise InputError(f"the t-closeness reference for {col!r} has no counts")
        out.append((str(col), tuple(sorted(pairs))))
    return tuple(sorted(out))


def _matrix_metric(matrix, vals, name) -> np.ndarray:
    """A user's distance matrix over ``vals``, validated as a metric with max 1."""
    if isinstance(matrix, dict):
        matrix = pd.DataFrame(matrix)
    if isinstance(matrix, pd.DataFrame):
        m = matrix.copy()
        m.index = [str(i) for i in m.index]
        m.columns = [str(c) for c in m.columns]
        missing = [v for v in vals if v not in m.index or v not in m.columns]
        if missing:
            raise InputError(f"the distance matrix has no entry for value {missing[0]!r} of {name!r}")
        d = m.loc[vals, vals].to_numpy(dtype=float)
    else:
        d = np.asarray(matrix, dtype=float)
        if d.shape != (len(vals), len(vals)):
            raise InputError(f"the distance matrix is {d.shape}, {name!r} has {len(vals)} values")
    if not np.all(np.isfinite(d)) or np.any(d < 0):
        raise InputError("the distance matrix must be finite and non-negative")
    if np.any(np.abs(np.diag(d)) > 0) or not np.allclose(d, d.T):
        raise InputError("the distance matrix must be symmetric with a zero diagonal")
    if d.size and d.max() > 1 + 1e-12:
        raise InputError(f"distances must be at most 1 (normalized), got {d.max():g}")
    V = len(vals)
    for k in range(V):
        if np.any(d > d[:, [k]] + d[[k], :] + 1e-12):
            raise InputError("the distance matrix violates the triangle inequality")
    return d


def _least_size(m: np.ndarray, min_size: int, holds, chunk: int) -> np.ndarray:
    """``(C,)`` per row of ``m`` (``(C, V)`` rows available per value) the least size ``s`` from
    ``max(min_size, 1)`` to ``Σ m`` for which ``holds(m_rows, s)`` (vectorized over (row, size) pairs, run
    ``chunk`` pairs at a time), or ``-1``."""
    m = np.asarray(m, dtype=np.int64)
    C = m.shape[0]
    S = m.sum(axis=1)
    lo = max(int(min_size), 1)
    least = np.full(C, -1, dtype=np.int64)
    rows = np.flatnonzero(S >= lo)
    span = S[rows] - lo + 1
    none = np.iinfo(np.int64).max
    start = 0
    while start < rows.size:
        stop = start + max(1, int(np.searchsorted(np.cumsum(span[start:]), chunk, side="right")))
        js, reps = rows[start:stop], span[start:stop]
        j = np.repeat(js, reps)
        size = lo + np.arange(j.size) - np.repeat(np.cumsum(reps) - reps, reps)
        ok = holds(m[j], size)
        first = np.full(C, none)
        np.minimum.at(first, j[ok], size[ok])
        hit = js[first[js] < none]
        least[hit] = first[hit]
        start = stop
    return least


def least_ball_size(m: np.ndarray, P: np.ndarray, tau: float, min_size: int, chunk: int = 1 << 18) -> np.ndarray:
    """``(C,)`` per row of ``m`` (``(C, V)`` rows available per value) the least size ``s >= min_size`` of a
    sub-multiset ``c <= m`` with ``TV(c / s, P) <= tau``, or ``-1`` if there is none.

    For a size ``s``, ``s · TV = s − Σ_σ min(c_σ, P_σ s)``, so the question is the most "coverage"
    ``Σ_σ min(c_σ, P_σ s)`` that ``s`` rows reach. A value's rows add ``1`` each up to ``⌊P_σ s⌋``,
    then ``frac(P_σ s)``, then ``0``: non-increasing, so the ``s`` largest marginals over all values
    (each value's taken as a prefix) are optimal — ``Σ_σ min(m_σ, ⌊P_σ s⌋)`` ones, then the largest
    fractions of the values with a row left. Every size up to ``Σ m`` is scanned: ``O(V log V)`` per
    (row, size) pair. ``P`` may sum to less than 1 (a reference's values the table lacks); the test
    errs towards keeping (``1e-9`` per row)."""
    V = np.asarray(m).shape[1]

    def holds(mj, s):
        Ps = P[None, :] * s[:, None]
        fl = np.floor(Ps)
        F = np.minimum(mj, fl).sum(axis=1)
        frac = np.where(mj > fl, Ps - fl, 0.0)
        top = np.cumsum(-np.sort(-frac, axis=1), axis=1)
        r = np.clip(s - F, 0, V).astype(np.int64)
        cover = np.minimum(F, s) + np.where(r > 0, top[np.arange(s.size), np.maximum(r - 1, 0)], 0.0)
        return cover >= (1.0 - tau) * s - 1e-9 * s

    return _least_size(m, min_size, holds, chunk)


def least_diverse_size(m: np.ndarray, a: int, b: int, min_size: int, chunk: int = 1 << 18, *,
                       strict: bool = False) -> np.ndarray:
    """``(C,)`` per row of ``m`` the least size ``s >= min_size`` of a sub-multiset ``c <= m`` with every
    value at most ``s / ℓ`` times (frequency ℓ-diversity, ``ℓ = a/b``: ``a · c_σ <= b · s``; ``strict``:
    ``a · c_σ < b · s``, recursive (c, 2)-diversity with ``a = c + 1, b = c``), or ``-1``. ``s`` rows with
    every count at most ``q = ⌊b s / a⌋`` (strict: ``⌊(b s − 1) / a⌋``) exist exactly when
    ``Σ_σ min(m_σ, q) >= s``; integers throughout."""
    def holds(mj, s):
        q = (b * s - 1) // a if strict else (b * s) // a
        return np.minimum(mj, q[:, None]).sum(axis=1) >= s

    return _least_size(m, min_size, holds, chunk)


# --- criteria against a population table: k-map and δ-presence ------------------------------------------------

def population_frame(population, sep: str = ",") -> pd.DataFrame:
    """The population table as a DataFrame of strings: a DataFrame, a :class:`~milp_anon.tables.table.Table`
    (its rows) or the path of a delimited file (read with ``sep``, as the input is)."""
    from milp_anon.tables.table import Table, read_csv  # the tables layer, below this one

    if isinstance(population, Table):
        population = population.frame
    elif isinstance(population, (str, bytes)) or hasattr(population, "__fspath__"):
        population = read_csv(population, sep=sep)
    if not isinstance(population, pd.DataFrame):
        raise InputError(f"the population must be a DataFrame, a Table or a file path, got {type(population).__name__}")
    frame = population.copy()
    frame.columns = [str(c) for c in frame.columns]
    return frame.astype(object).apply(lambda col: col.map(lambda v: v if isinstance(v, str) else str(v)))


class _PopulationCriterion(Criterion):
    """A condition on each class's released QI tuple against a population table (Sweeney's k-map; Nergiz,
    Atzori and Clifton's δ-presence), the input being a subset of the population (a research sample).

    A population record *matches* a class when its QI values are covered by the class's released tuple
    (a value, ``*``, a hierarchy node above it). Under local recoding a class is a candidate ``j`` (a
    generalized tuple) and its matches ``pop(j)`` are fixed by ``j`` alone; classes released as overlapping
    tuples (``(a, *)`` and ``(*, b)``) share the population records both cover, each counting them. This is
    the reading for local recoding; ARX states both models for global recoding, where the classes partition
    the population. The model prunes and constrains candidates by ``pop(j)``
    (:func:`milp_anon.instance.candidates.population_matches`, ``formulations/population.md``).

    Closure and pattern dominance are not exact here (a tuple coarser than its rows' hull covers more of
    the population, which k-map may need), so they are off when such a criterion is given; interval and
    value-set cells (enumerated as hulls) and full-domain generalization are not modeled.
    """

    closure_safe = False
    sep: str = ","

    def _set_population(self):
        object.__setattr__(self, "population", population_frame(self.population, self.sep))

    @property
    def n_population(self) -> int:
        """``N``, the population's records."""
        return int(len(self.population))

    def population_types(self, qi) -> tuple[np.ndarray, np.ndarray]:
        """``(values, counts)``: the population's distinct QI tuples over ``qi`` (``(T, m)`` strings) and how
        often each occurs."""
        key = tuple(qi)
        cache = self.__dict__.setdefault("_types_cache", {})
        if key not in cache:
            if len(self.population) == 0:
                cache[key] = (np.zeros((0, len(key)), dtype=object), np.zeros(0, dtype=np.int64))
            else:
                vc = self.population[list(key)].value_counts(sort=False)
                values = np.array([t if isinstance(t, tuple) else (t,) for t in vc.index], dtype=object)
                cache[key] = (values.reshape(len(vc), len(key)), vc.to_numpy().astype(np.int64))
        return cache[key]

    def validate(self, table) -> None:
        qi = list(table.qi)
        missing = [c for c in qi if c not in self.population.columns]
        if missing:
            raise InputError(f"the population table has no column(s) {', '.join(missing)}: it needs the QI columns "
                             f"({', '.join(qi)})")
        have = self.population[qi].value_counts()
        need = table.frame[qi].value_counts()
        held = have.reindex(need.index, fill_value=0).to_numpy()
        short = np.flatnonzero(need.to_numpy() > held)
        if short.size:
            i = short[0]
            t = need.index[i]
            values = ", ".join(f"{c}={v}" for c, v in zip(qi, t if isinstance(t, tuple) else (t,)))
            raise InputError(f"the input is not a subset of the population table: QI values ({values}) occur "
                             f"{int(need.iloc[i])} time(s) in the input, {int(held[i])} in the population")

    def check_recoding(self, recoding) -> None:
        from milp_anon.tables.recoding import Generalization

        if getattr(recoding, "scheme", "local") == "full-domain":
            raise InputError(f"{self.describe()} is modeled for local recoding, not for full-domain generalization")
        if isinstance(recoding, Generalization):
            if recoding.cell_columns:
                raise InputError(f"{self.describe()} is not modeled with interval or value-set columns (a class's "
                                 "cell may have to cover population values beyond its rows' hull)")
            for col, h in recoding.hierarchies.items():
                if col in self.population.columns:
                    absent = sorted(set(self.population[col]) - set(h.paths))
                    if absent:
                        raise InputError(f"the population table's value {absent[0]!r} of {col!r} is not in that "
                                         "column's hierarchy")

    def _matches(self, cands) -> np.ndarray:
        pop = getattr(cands, "population", None)
        if pop is None:  # pragma: no cover - generate_candidates sets it
            raise RuntimeError(f"{self.describe()}: the candidates' population matches were not computed")
        return np.asarray(pop, dtype=np.int64)

    def _population_note(self) -> str:
        return f" against a population of {self.n_population} records"


@dataclass(frozen=True)
class KMap(_PopulationCriterion):
    """k-map (Sweeney; ARX's ``KMap`` with a population table): every released class matches at least ``k``
    records of the population — the population records whose QI values its released tuple covers.

    ``population``: a DataFrame, a :class:`~milp_anon.tables.table.Table` or a file path (read with ``sep``)
    holding the QI columns; the input's rows must be a sub-multiset of it on the QIs. Under local recoding
    (:class:`_PopulationCriterion`) a class released as candidate ``j`` matches ``pop(j)`` records, so the
    criterion is exactly "``j`` may be opened only if ``pop(j) >= k``": candidate pruning and nothing else.
    A coarser tuple matches more records (monotone), and a class matches at least its own rows (the input
    is in the population), so a class of ``k`` rows or more meets it however it is released.
    """

    k: int
    population: object = dataclasses_field(compare=False, repr=False)
    sep: str = ","

    name = "k-map"

    def __post_init__(self):
        object.__setattr__(self, "k", _positive_int(self.k, "k of k-map"))
        self._set_population()

    def violation(self, groups: GroupCounts) -> str | None:
        if groups.population is None:  # unknown release: it matches at least the group's own rows
            bad = np.flatnonzero(groups.size < self.k)
            if bad.size:
                i = bad[0]
                return (f"{groups.name(i)}: {int(groups.size[i])} rows, fewer than k = {self.k}, and the population "
                        "records its release matches are not known here (k-map)")
            return None
        bad = np.flatnonzero(groups.population < self.k)
        if bad.size:
            i = bad[0]
            return (f"{groups.name(i)}: its release matches {int(groups.population[i])} population records, fewer "
                    f"than k = {self.k} (k-map)")
        return None

    def infeasibility(self, table) -> str | None:
        # the fully suppressed tuple matches all N records and any tuple matches at most N
        if self.n_population < self.k:
            return f"{self.describe()}: the population has {self.n_population} records, fewer than k = {self.k}"
        return None

    def prune(self, table, units, cands, min_size: int = 1):
        """Drop the candidates matching fewer than ``k`` population records: exact (the criterion itself)."""
        keep = self._matches(cands) >= self.k
        return cands if keep.all() else cands.subset(keep, stage="k-map population")

    def describe(self) -> str:
        return f"{self.k}-map{self._population_note()}"


@dataclass(frozen=True)
class DeltaPresence(_PopulationCriterion):
    """δ-presence (Nergiz, Atzori and Clifton, SIGMOD 2007; ARX's ``DPresence``): for every released class,
    ``δ_min <= |input rows in the class| / |population records matching the class| <= δ_max``.

    ``population`` as for :class:`KMap`. Under local recoding a class released as candidate ``j`` with
    ``s_j`` rows must have ``δ_min · pop(j) <= s_j <= δ_max · pop(j)``, i.e. ``⌈δ_min pop(j)⌉ <= s_j <=
    ⌊δ_max pop(j)⌋`` (``s_j`` is whole). The bounds are read as exact rationals (:func:`exact`). Not
    closed under union here: with overlapping classes the whole table as one group (ratio ``n/N``) can fail
    while finer classes meet it, so the whole-table pre-check only refuses ``δ_max = 0``.
    """

    union_closed = False  # a mediant of shares in [δ_min, δ_max] stays in it, but matches are not additive here

    dmin: float
    dmax: float
    population: object = dataclasses_field(compare=False, repr=False)
    sep: str = ","

    name = "delta-presence"

    def __post_init__(self):
        object.__setattr__(self, "dmin", _real(self.dmin, "delta_min of delta-presence", lo=0, hi=1))
        object.__setattr__(self, "dmax", _real(self.dmax, "delta_max of delta-presence", lo=0, hi=1))
        if self.dmin > self.dmax:
            raise InputError(f"delta-presence needs delta_min <= delta_max, got {self.dmin:g} > {self.dmax:g}")
        self._set_population()

    def size_bounds(self, pop) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)``: the sizes a class matching ``pop`` population records may have, ``⌈δ_min pop⌉`` to
        ``⌊δ_max pop⌋`` (integers)."""
        pop = np.asarray(pop, dtype=np.int64)
        a, b = exact(self.dmin), exact(self.dmax)
        return -((-a.numerator * pop) // a.denominator), (b.numerator * pop) // b.denominator

    def violation(self, groups: GroupCounts) -> str | None:
        s = groups.size
        if groups.population is None:  # unknown release: s <= matches <= N, so the ratio is in [s/N, 1]
            lo, hi = self.size_bounds(np.full(s.shape, self.n_population))[0], self.size_bounds(s)[1]
            bad = np.flatnonzero((s < lo) | (s > hi))
            if bad.size:
                i = bad[0]
                return (f"{groups.name(i)}: {int(s[i])} rows, and the population records its release matches are "
                        f"not known here (delta-presence in [{self.dmin:g}, {self.dmax:g}])")
            return None
        lo, hi = self.size_bounds(groups.population)
        bad = np.flatnonzero((s < lo) | (s > hi))
        if bad.size:
            i = bad[0]
            return (f"{groups.name(i)}: {int(s[i])} rows of {int(groups.population[i])} matching population records, "
                    f"a share outside [{self.dmin:g}, {self.dmax:g}] (delta-presence)")
        return None

    def infeasibility(self, table) -> str | None:
        # every class holds a row and matches at most N records: its share is > 0
        if exact(self.dmax) == 0:
            return f"{self.describe()}: delta_max = 0, and every class's share of its population records is above 0"
        return None

    def _least(self, cands, min_size: int) -> np.ndarray:
        lo, hi = self.size_bounds(self._matches(cands))
        lo = np.maximum(lo, max(int(min_size), 1))
        return np.where(lo <= np.minimum(hi, cands.capacity), lo, -1)

    def prune(self, table, units, cands, min_size: int = 1):
        """Drop the candidates no group of ``min_size`` to ``cap_j`` compatible rows can be released as: exact
        (a group released as ``j`` holds only ``j``'s compatible rows)."""
        keep = self._least(cands, min_size) >= 0
        return cands if keep.all() else cands.subset(keep, stage="delta-presence population")

    def least_sizes(self, table, units, cands, min_size: int = 1):
        return self._least(cands, min_size)

    def describe(self) -> str:
        return f"({self.dmin:g}, {self.dmax:g})-presence{self._population_note()}"


# --- bounds on a class's sensitive shares relative to the table's (δ-disclosure, β-likeness) -----------------------
#
# Both criteria bound, per sensitive value σ, the class's share q = c_σ/|G| by the table's share p_σ: an interval
# lo_σ <= q <= hi_σ whose ends may be irrational (e^{±δ} p, p (1 − ln p)). A class of at most N rows has q in the
# Farey set F_N (fractions a/b with b <= N), so each end is replaced by the nearest point of F_N on its inner side:
# for an irrational u, q < u ⇔ q <= max{f ∈ F_N : f < u}, and that fraction is found from rational bounds L < u < U
# (decimal's correctly rounded exp and ln, widened by a proven margin) once no point of F_N lies in [L, U] — which
# happens at some precision, u being irrational. An irrational u is never a share, so "<" and "<=" agree on it.
# The group test, the model rows and the pruning all compare integers with these fractions; the verifier and brute
# force decide the definitions by their own arithmetic.

def _farey_neighbours(x: Fraction, N: int) -> tuple[Fraction, Fraction]:
    """The consecutive fractions of F_N (denominators ``<= N``) around ``x >= 0``, whose denominator exceeds ``N``:
    the two last semiconvergents of ``x``'s continued fraction (determinant 1, denominators summing above ``N``)."""
    p0, q0, p1, q1 = 0, 1, 1, 0
    n, d = x.numerator, x.denominator
    while True:
        a = n // d
        q2 = q0 + a * q1
        if q2 > N:
            break
        p0, q0, p1, q1 = p1, q1, p0 + a * p1, q2
        n, d = d, n - a * d
    k = (N - q0) // q1
    b1, b2 = Fraction(p0 + k * p1, q0 + k * q1), Fraction(p1, q1)
    return (b1, b2) if b1 < b2 else (b2, b1)


def farey_floor(x: Fraction, N: int) -> Fraction:
    """``max{a/b <= x : 1 <= b <= N}`` for a rational ``x >= 0``."""
    return x if x.denominator <= N else _farey_neighbours(x, N)[0]


def farey_ceil(x: Fraction, N: int) -> Fraction:
    """``min{a/b >= x : 1 <= b <= N}`` for a rational ``x >= 0``."""
    return x if x.denominator <= N else _farey_neighbours(x, N)[1]


def _decimal(x: Fraction) -> decimal.Decimal:
    return decimal.Decimal(x.numerator) / decimal.Decimal(x.denominator)


def exp_interval(x: Fraction, prec: int) -> tuple[Fraction, Fraction]:
    """Rationals ``L < e^x < U``: decimal's exp is correctly rounded at ``prec`` digits (relative error
    ``<= 5·10^-prec``), after ``x`` is rounded to ``prec`` digits (which moves ``e^x`` by a factor within
    ``1 ± 10|x|·10^-prec``); the margin ``(|x| + 2)·10^(2−prec)`` covers both."""
    with decimal.localcontext() as ctx:
        ctx.prec, ctx.Emax, ctx.Emin = prec, decimal.MAX_EMAX, decimal.MIN_EMIN
        r = Fraction(_decimal(x).exp())
    eps = (abs(x) + 2) / Fraction(10) ** (prec - 2)
    return r * (1 - eps), r * (1 + eps)


def ln_interval(p: Fraction, prec: int) -> tuple[Fraction, Fraction]:
    """Rationals ``L < ln p < U`` for a rational ``p > 0``: as :func:`exp_interval`, an absolute margin
    ``(|ln p| + 2)·10^(2−prec)`` over decimal's correctly rounded ln."""
    with decimal.localcontext() as ctx:
        ctx.prec = prec
        r = Fraction(_decimal(p).ln())
    eps = (abs(r) + 3) / Fraction(10) ** (prec - 2)
    return r - eps, r + eps


def _settle(interval, N: int, below: bool) -> Fraction:
    """For an irrational ``u`` given by ``interval(prec) -> (L, U)`` (``L < u < U``): ``max{f ∈ F_N : f < u}``
    (``below``) or ``min{f ∈ F_N : f > u}``, at the first precision where no point of F_N lies in ``[L, U]``."""
    prec = 40
    while prec <= 1 << 16:
        lo, hi = interval(prec)
        if below:
            f = farey_floor(max(hi, Fraction(0)), N)
            if f <= lo:
                return f
        else:
            f = farey_ceil(max(lo, Fraction(0)), N)
            if f >= hi:
                return f
        prec *= 2
    raise ArithmeticError("a share bound could not be separated from the grid")  # pragma: no cover


class _ShareBounds(_SensitiveCriterion):
    """Shared part of the criteria that bound each sensitive value's share in a class by its share in the table:
    per value ``lo_σ |G| <= c_σ <= hi_σ |G|`` with ``lo, hi`` fractions of the grid F_N (module comment above)."""

    reference: object = None

    def _init_reference(self):
        if self.reference is not None:
            object.__setattr__(self, "reference", _reference(self.reference))

    def reference_for(self, name: str) -> dict | None:
        """The reference counts ``{value: count}`` for sensitive column ``name``, or ``None`` (the table's own)."""
        for col, counts in self.reference or ():
            if col == name:
                return dict(counts)
        return None

    def validate(self, table) -> None:
        super().validate(table)
        extra = [c for c, _ in self.reference or () if c not in table.sensitive]
        if extra:
            raise InputError(f"the {self.name} reference names column(s) that are not sensitive: "
                             f"{', '.join(map(repr, extra))}")

    def value_bounds(self, p: Fraction, N: int) -> tuple[Fraction, Fraction]:  # pragma: no cover - interface
        """``(lo, hi)`` on the share of a value whose table share is ``p``, on the grid F_N."""
        raise NotImplementedError

    def bounds(self, name: str, values, whole, N: int):
        """``(lo_num, lo_den, hi_num, hi_den, missing)`` for sensitive column ``name`` (value codes ``values``, the
        table's counts ``whole``) and classes of at most ``N`` rows: integer arrays per value code, and whether a
        value of the reference the table lacks must occur in every class (no non-empty class meets it then)."""
        ref = self.reference_for(name)
        counts = {str(v): int(c) for v, c in zip(values, whole)} if ref is None else ref
        total = sum(counts.values())
        key = (name, tuple(sorted(counts.items())), tuple(map(str, values)), int(N))
        cache = self.__dict__.setdefault("_bounds_cache", {})
        if key not in cache:
            N = max(int(N), 1)
            lohi = [self.value_bounds(Fraction(counts.get(str(v), 0), total), N) for v in values]
            held = {str(v) for v in values}
            missing = any(self.value_bounds(Fraction(c, total), N)[0] > 0 for v, c in counts.items()
                          if v not in held and c > 0)
            arr = [np.array([getattr(b[i], part) for b in lohi], dtype=np.int64)
                   for i in (0, 1) for part in ("numerator", "denominator")]
            cache[key] = (*arr, missing)
        return cache[key]

    def bounds_for(self, table, col: int):
        """:meth:`bounds` of sensitive column ``col`` of ``table`` (classes of at most ``table.n`` rows)."""
        whole = np.bincount(table.sensitive_codes[:, col], minlength=len(table.sensitive_values[col]))
        return self.bounds(table.sensitive[col], table.sensitive_values[col], whole, table.n)

    def violation(self, groups: GroupCounts) -> str | None:
        for col in self.applies_to(groups.columns):
            name, values = groups.columns[col], groups.values[col]
            lo_n, lo_d, hi_n, hi_d, missing = self.bounds(name, values, groups.whole[col], int(groups.whole[col].sum()))
            M, s = groups.counts[col], groups.size[:, None]
            over = M * hi_d[None, :] > hi_n[None, :] * s
            under = M * lo_d[None, :] < lo_n[None, :] * s
            bad = np.flatnonzero((over | under).any(axis=1) | (missing & (groups.size > 0)))
            if bad.size:
                i = bad[0]
                if not (over[i] | under[i]).any():
                    return f"{groups.name(i)}: a value of the reference on {name!r} is absent ({self.describe()})"
                v = int(np.flatnonzero(over[i] | under[i])[0])
                side = "above" if over[i, v] else "below"
                return (f"{groups.name(i)}: value {values[v]!r} of {name!r} has share {int(M[i, v])}/{int(s[i, 0])}, "
                        f"{side} what {self.describe()} allows")
        return None

    def least_sizes(self, table, units, cands, min_size: int = 1):
        def rules(col):
            lo_n, lo_d, hi_n, hi_d, missing = self.bounds_for(table, col)
            return [lambda m: least_share_size(m, lo_n, lo_d, hi_n, hi_d, min_size, missing=missing)]

        return self._least_sizes(table, units, cands, rules)

    def prune(self, table, units, cands, min_size: int = 1):
        # no sub-multiset of ``min_size`` rows or more within the bounds: exact, since a group released as ``j``
        # holds only ``j``'s compatible rows (:func:`least_share_size`)
        keep = np.ones(cands.n_candidates, dtype=bool)
        for col, m in self._counts_per_candidate(table, units, cands):
            lo_n, lo_d, hi_n, hi_d, missing = self.bounds_for(table, col)
            keep &= least_share_size(m, lo_n, lo_d, hi_n, hi_d, min_size, missing=missing) >= 0
        return cands.subset(keep, stage=f"{self.name} shares") if not keep.all() else cands


def least_share_size(m, lo_n, lo_d, hi_n, hi_d, min_size: int, chunk: int = 1 << 18, *,
                     missing: bool = False) -> np.ndarray:
    """``(C,)`` per row of ``m`` (``(C, V)`` rows available per value) the least size ``s >= min_size`` of a
    sub-multiset ``c <= m`` with ``lo_σ s <= c_σ <= hi_σ s`` for every value (``lo = lo_n/lo_d``, ``hi = hi_n/hi_d``),
    or ``-1``. Integers ``c_σ ∈ [⌈lo_σ s⌉, min(m_σ, ⌊hi_σ s⌋)]`` summing to ``s`` exist exactly when every interval
    is non-empty and ``s`` lies between the sums of their ends; integers throughout. ``missing``: no such group."""
    m = np.asarray(m, dtype=np.int64)
    if missing:
        return np.full(m.shape[0], -1, dtype=np.int64)

    def holds(mj, s):
        S = s[:, None]
        need = (lo_n[None, :] * S + lo_d[None, :] - 1) // lo_d[None, :]
        cap = np.minimum(mj, (hi_n[None, :] * S) // hi_d[None, :])
        return (need <= cap).all(axis=1) & (need.sum(axis=1) <= s) & (cap.sum(axis=1) >= s)

    return _least_size(m, min_size, holds, chunk)


@dataclass(frozen=True)
class DeltaDisclosure(_ShareBounds):
    """δ-disclosure privacy (Brickell & Shmatikov, KDD 2008, Def. 4): for every sensitive value ``s`` of the table
    and every class ``G``, ``|ln(p(s|G) / p(s|T))| < δ``, with ``p(s|T)`` the value's share in the whole table.

    As in the paper, a value absent from a class gives ``ln 0 = −∞`` and fails: every class holds every value of
    the table. The logarithm is natural. ARX's ``DDisclosurePrivacy`` differs on both: it uses ``log2`` (its δ is
    ours divided by ``ln 2``) and skips the values absent from a class, so a class meeting this meets ARX's at
    ``δ / ln 2``. The bounds ``e^{−δ} p < q < e^{δ} p`` are irrational for ``δ > 0`` (Lindemann), so no class
    sits on them; they are decided exactly on the grid of shares (:func:`exp_interval`, :func:`_settle`).

    Parameters
    ----------
    delta
        ``δ > 0``, read as :func:`exact` (a fraction).
    column
        Restrict to one sensitive column (default: each sensitive column).
    reference
        ``{column: {value: count}}``: the distribution ``p(·|T)`` instead of the table's own (as
        :class:`TCloseness`'s; the large-neighbourhood search gives a sub-table the whole table's).
    """

    delta: float
    column: str | None = None
    reference: object = None

    name = "delta-disclosure privacy"

    def __post_init__(self):
        object.__setattr__(self, "delta", _real(self.delta, "delta", lo=0))
        if self.delta <= 0:
            raise InputError(f"delta must be > 0, got {self.delta}")
        self._init_reference()

    def value_bounds(self, p: Fraction, N: int) -> tuple[Fraction, Fraction]:
        if p == 0:  # ln(q / 0) = +∞ for q > 0: the value must stay out of every class
            return Fraction(0), Fraction(0)
        d = exact(self.delta)
        lo = _settle(lambda prec: tuple(p * x for x in exp_interval(-d, prec)), N, below=False)
        hi = _settle(lambda prec: tuple(p * x for x in exp_interval(d, prec)), N, below=True)
        return lo, min(hi, Fraction(1))

    def describe(self) -> str:
        return f"{self.delta:g}-disclosure privacy{_column_label(self.column)}"


BETA_KINDS = ("basic", "enhanced")


@dataclass(frozen=True)
class BetaLikeness(_ShareBounds):
    """β-likeness (Cao & Karras, VLDB 2012, Def. 2 and 4): for every sensitive value ``s`` with ``q = p(s|G) > p =
    p(s|T)``, basic: ``(q − p)/p <= β``; enhanced: ``(q − p)/p <= min(β, −ln p)``. Values under their table share
    are not bounded.

    So ``q <= p (1 + β)`` (rational: exact) or, enhanced, ``q <= p (1 − ln p)`` where ``−ln p < β`` (irrational for
    ``p < 1``: decided on the grid of shares, :func:`_settle`; ``−ln p = β`` cannot hold for a rational ``β > 0``).
    The same as ARX's ``BasicBLikeness`` and ``EnhancedBLikeness``. The default kind is ``"enhanced"``, as in ARX
    and the paper's recommendation (it bounds the gain on rare values more tightly; it implies basic).

    Parameters
    ----------
    beta
        ``β > 0``, read as :func:`exact`.
    kind
        ``"enhanced"`` (default) or ``"basic"``.
    column, reference
        As :class:`DeltaDisclosure`'s.
    """

    beta: float
    kind: str = "enhanced"
    column: str | None = None
    reference: object = None

    name = "beta-likeness"

    def __post_init__(self):
        if self.kind not in BETA_KINDS:
            raise InputError(f"beta-likeness kind must be basic or enhanced, got {self.kind!r}")
        object.__setattr__(self, "beta", _real(self.beta, "beta", lo=0))
        if self.beta <= 0:
            raise InputError(f"beta must be > 0, got {self.beta}")
        self._init_reference()

    def value_bounds(self, p: Fraction, N: int) -> tuple[Fraction, Fraction]:
        if p == 0:  # (q − 0)/0 = ∞ for q > 0
            return Fraction(0), Fraction(0)
        b = exact(self.beta)
        if self.kind == "enhanced" and p < 1:
            prec = 40
            while True:  # min(β, −ln p) = −ln p  ⇔  p > e^{−β} (never equal: e^{−β} is irrational)
                lo, hi = exp_interval(-b, prec)
                if hi < p or lo > p:
                    break
                prec *= 2
            if hi < p:
                def interval(prec):
                    a, z = ln_interval(p, prec)
                    return p * (1 - z), p * (1 - a)

                return Fraction(0), min(_settle(interval, N, below=True), Fraction(1))
        return Fraction(0), min(farey_floor(p * (1 + b), N), Fraction(1))

    def describe(self) -> str:
        return f"{self.kind} {self.beta:g}-likeness{_column_label(self.column)}"


# --- average re-identification risk ------------------------------------------------------------------------------

@dataclass(frozen=True)
class AverageRisk(Criterion):
    """Average re-identification risk in the prosecutor model (ARX's ``AverageReidentificationRisk``): the average,
    over the table's records, of ``1 / |class of the record|`` is at most ``R``. A class of ``s`` records adds
    ``s · 1/s = 1``, so the average is (number of classes) / ``n``: at most ``⌊R n⌋`` classes.

    With record suppression the withheld records count as one class, and ``n`` is every record of the table
    (ARX's ``HashGroupifyDistribution``: the suppressed tuples form one class). It is a condition on the groups
    together, not on each (:attr:`Criterion.per_group` is ``False``): one group tested alone meets it when
    ``1 <= R |G|``, which every group meeting makes sufficient. Merging classes lowers their number, so it is
    closed under union: feasible exactly when the whole table, one class, meets it (``R n >= 1``).

    Parameters
    ----------
    risk
        ``R`` in ``(0, 1]``, read as :func:`exact`.
    """

    risk: float

    name = "average re-identification risk"
    per_group = False

    def __post_init__(self):
        object.__setattr__(self, "risk", _real(self.risk, "average risk", lo=0, hi=1))
        if self.risk <= 0:
            raise InputError(f"average risk must be in (0, 1], got {self.risk}")

    def max_classes(self, n: int) -> int:
        """``⌊R n⌋``: the most classes ``n`` records may form."""
        r = exact(self.risk)
        return (r.numerator * int(n)) // r.denominator

    def violation(self, groups: GroupCounts) -> str | None:
        used = int((groups.size > 0).sum())
        held = int(groups.size.sum())
        n = held if groups.records is None else int(groups.records)
        classes = used + int(n > held)  # the withheld records: one class
        if classes > self.max_classes(n):
            who = groups.label or (f"group {0}" if groups.size.shape[0] == 1 else f"{used} groups")
            return (f"{who}: {classes} classes over {n} records, an average re-identification risk of "
                    f"{classes / max(n, 1):.4g} > {self.risk:g}")
        return None

    def describe(self) -> str:
        return f"average re-identification risk <= {self.risk:g}"
