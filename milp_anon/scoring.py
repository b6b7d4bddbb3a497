"""Score an externally anonymized table against the proven optimum (or the best bound).

``score_release`` matches the released rows to the original's — by an id
column, by position, or (when records were withheld) in order — checks that
each released row is a recoding of its original (every QI cell its input
value, ``*``, or an ancestor in the column's hierarchy; every other column
unchanged), that every criterion holds (the independent verifier), counts its
cost under the chosen metric, and compares it with the optimum of the same
problem: solved here, or read from a REPORT.json of ``milp-anon solve``.

Record suppression (ARX's and anjana's suppression limit): with
``record_suppression`` the original rows missing from the release are
withheld records — exempt from the criteria, each charged every QI cell —
and so are the released rows whose every QI cell is at its root (ARX writes
a suppressed record as ``*`` in every QI) unless those rows, as one class,
meet every criterion (then they are that class; the cost is the same). The optimum it is compared with may
withhold as many records (``max_withheld``, default: as many as the release
withheld), so the comparison is like for like.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from milp_anon.api import Request
from milp_anon.privacy import verify as _verify
from milp_anon.privacy.risk import risk_report
from milp_anon.privacy.utility import utility_metrics
from milp_anon.runtime.errors import InputError, VerificationError
from milp_anon.tables.files import read_text
from milp_anon.tables.table import Table

__all__ = ["GapReport", "score_release"]


@dataclass
class GapReport:
    """The score of one anonymized table.

    ``optimum`` is set only when it is proven; ``best_known`` is the best
    verified cost found (the optimum when proven) and ``bound`` the proven
    lower bound. ``gap`` is ``(cost − optimum) / optimum`` (0 when both are
    0) against a proven optimum, else ``None``; the true gap then lies
    between ``gap_to_best_known`` = ``(cost − best_known) / best_known`` and
    ``gap_to_bound`` = ``(cost − bound) / bound`` (infinite for a bound of 0
    and a positive cost).
    """

    valid: bool
    cost: float | None
    optimum: float | None
    gap: float | None
    status: str | None
    bound: float | None = None
    gap_to_bound: float | None = None
    best_known: float | None = None
    gap_to_best_known: float | None = None
    violation: str | None = None
    n_rows: int = 0
    n_groups: int | None = None
    withheld_records: int = 0
    max_suppressed_records: int | None = None
    optimum_source: str | None = None
    #: the prosecutor risk and ARX's utility metrics of a valid release (as in ``milp-anon solve``'s REPORT.json)
    risk: dict | None = None
    utility: dict | None = None
    #: columns left out without ``--ignore`` where the reading was unambiguous (:func:`unambiguous_ignores`)
    ignored_columns: list | None = None
    #: scored without an optimum (``--score-only``): the optimum's keys are then ``None``
    score_only: bool = False

    def to_dict(self) -> dict:
        return {k: (None if isinstance(v, float) and math.isinf(v) else v) for k, v in asdict(self).items()}


def _rel(cost, ref):
    if cost is None or ref is None:
        return None
    if ref == 0:
        return 0.0 if cost == 0 else math.inf
    return (float(cost) - float(ref)) / float(ref)


class _Fits:
    """Which input rows each released row can be a recoding of: every QI cell holds the input value
    (:func:`milp_anon.privacy.verify.cell_holds`), every other column equal. Cells are read once per distinct text."""

    def __init__(self, original: pd.DataFrame, released: pd.DataFrame, qi, recoding):
        self.cols = list(original.columns)
        self.qi = set(qi)
        self.recoding = recoding
        self.orig = original.astype(str).to_numpy()
        self.rel = released.astype(str).to_numpy()
        codes, self.values = [], []
        for j in range(len(self.cols)):
            c, v = pd.factorize(self.orig[:, j]) if len(self.orig) else (np.zeros(0, np.int64), np.array([]))
            codes.append(c)
            self.values.append([str(x) for x in v])
        self.codes = np.column_stack(codes) if codes else np.zeros((len(self.orig), 0), np.int64)
        self._cache = {}

    def allowed(self, j: int, cell: str) -> np.ndarray:
        """``(distinct input values of column j,)`` bool: the values ``cell`` can be a recoding of."""
        key = (j, cell)
        if key not in self._cache:
            col = self.cols[j]
            if col in self.qi:
                ok = [_verify.cell_holds(self.recoding, col, v, cell) for v in self.values[j]]
            else:
                ok = [v == cell for v in self.values[j]]
            self._cache[key] = np.array(ok, dtype=bool)
        return self._cache[key]

    def fits(self, i: int, r: int) -> bool:
        return all(self.allowed(j, self.rel[r, j])[self.codes[i, j]] for j in range(len(self.cols)))

    def fitting(self, r: int, rows: np.ndarray) -> np.ndarray:
        """Which of the input ``rows`` released row ``r`` can be a recoding of."""
        ok = np.ones(rows.size, dtype=bool)
        for j in range(len(self.cols)):
            ok &= self.allowed(j, self.rel[r, j])[self.codes[rows, j]]
        return ok


def _match_in_order(fits: _Fits) -> np.ndarray:
    """Original positions of the released rows, matched in order (each released row to the first later
    input row it can be a recoding of); raises :class:`VerificationError` when some released row matches none.

    The first possible match is taken, so among identical candidates the earliest is chosen; a release
    that withholds one of two rows which could both have produced a released row gets the same cost
    either way on the QI columns it keeps."""
    n = len(fits.orig)
    out = np.empty(len(fits.rel), dtype=np.int64)
    i = 0
    for r in range(len(fits.rel)):
        while i < n and not fits.fits(i, r):
            i += 1
        if i == n:
            raise VerificationError(f"verification failed: released data row {r + 1} is not a recoding of any "
                                    "input row after the ones matched before it (rows must keep the input's "
                                    "order; or match them with --id)")
        out[r] = i
        i += 1
    return out


def _match_any(fits: _Fits) -> np.ndarray:
    """Original positions of the released rows under a maximum matching in any order (``-1``: unmatched).

    Rows are grouped into distinct rows on both sides and matched by a maximum flow (networkx) from
    input rows to the released rows they can be a recoding of. Which matching is taken does not change
    the cost (a cell's cost is read from the cell) nor the criteria (the released rows carry the
    sensitive values), so any maximum one scores the release."""
    import networkx as nx

    o_keys, o_inv = np.unique(fits.codes, axis=0, return_inverse=True)
    o_inv = o_inv.ravel()
    r_inv, r_keys = pd.factorize(pd.Series(["\x1f".join(row) for row in fits.rel], dtype=object))
    r_inv = np.asarray(r_inv, dtype=np.int64)
    r_first = np.unique(r_inv, return_index=True)[1]
    o_rows = np.split(np.argsort(o_inv, kind="stable"), np.cumsum(np.bincount(o_inv))[:-1])
    r_rows = np.split(np.argsort(r_inv, kind="stable"), np.cumsum(np.bincount(r_inv))[:-1])
    o_first = np.array([rows[0] for rows in o_rows], dtype=np.int64)
    G = nx.DiGraph()
    for a, rows in enumerate(o_rows):
        G.add_edge("s", ("o", a), capacity=len(rows))
    for b, rows in enumerate(r_rows):
        G.add_edge(("r", b), "t", capacity=len(rows))
        for a in np.flatnonzero(fits.fitting(int(r_first[b]), o_first)):
            G.add_edge(("o", int(a)), ("r", b))
    out = np.full(len(fits.rel), -1, dtype=np.int64)
    if not len(o_keys) or not len(r_keys):
        return out
    _, flow = nx.maximum_flow(G, "s", "t")
    o_next = [0] * len(o_rows)
    for a in range(len(o_rows)):
        for node, f in flow[("o", a)].items():
            f = int(round(f))
            if f <= 0:
                continue
            b = node[1]
            free = r_rows[b][out[r_rows[b]] < 0][:f]
            out[free] = o_rows[a][o_next[a]:o_next[a] + f]
            o_next[a] += f
    return out


def _align(table, released: pd.DataFrame, recoding, *, id_column, record_suppression, any_order=False):
    """The release as a frame of the original's rows in the original's order, and the mask of rows the
    release does not hold (written with every QI cell at its root)."""
    original = table.frame
    n, n_rel = len(original), len(released)
    if any_order:
        pos = _match_any(_Fits(original, released, table.qi, recoding))
        if (pos < 0).any():
            unmatched = int((pos < 0).sum())
            raise VerificationError(f"verification failed: {unmatched} released row(s) are not a recoding of any "
                                    "input row left over by a maximum matching")
        if n_rel < n and not record_suppression:
            raise VerificationError(f"verification failed: the release matches {n_rel} of the input's {n} rows; "
                                    "a tool that withholds records is scored with --record-suppression")
    elif id_column is not None:
        if id_column in table.qi or id_column in table.sensitive:
            raise InputError(f"--id {id_column}: a QI or sensitive column cannot be the row id")
        for name, frame in (("input", original), ("anonymized", released)):
            if id_column not in frame.columns:
                raise InputError(f"--id {id_column}: no such column in the {name} table")
            dup = frame[id_column].astype(str).duplicated()
            if dup.any():
                raise InputError(f"--id {id_column}: the {name} table repeats the id "
                                 f"{frame[id_column].astype(str)[dup].iloc[0]!r}")
        pos = pd.Index(original[id_column].astype(str)).get_indexer(released[id_column].astype(str))
        if (pos < 0).any():
            bad = released[id_column].astype(str).iloc[int(np.flatnonzero(pos < 0)[0])]
            raise InputError(f"--id {id_column}: the anonymized table has id {bad!r}, which the input lacks")
    elif n_rel == n:
        pos = np.arange(n)
    elif n_rel > n:
        raise VerificationError(f"verification failed: {n_rel} released rows for {n} input rows")
    elif not record_suppression:
        raise VerificationError(f"verification failed: {n_rel} released rows for {n} input rows; a tool that "
                                "withholds records (ARX, anjana suppression limits) is scored with "
                                "--record-suppression")
    else:
        pos = _match_in_order(_Fits(original, released, table.qi, recoding))
    missing = np.ones(n, dtype=bool)
    missing[pos] = False
    if missing.any() and not record_suppression:
        raise VerificationError(f"verification failed: the anonymized table lacks {int(missing.sum())} of the "
                                "input's rows; a tool that withholds records is scored with --record-suppression")
    full = original.copy()
    for c, root in _verify.root_names(table.qi, recoding).items():
        col = full[c].astype(object)
        col.iloc[np.flatnonzero(missing)] = root
        full[c] = col
    full.iloc[pos] = released[list(original.columns)].to_numpy()
    return full, missing


def _unwrap_lists(released: pd.DataFrame, qi) -> pd.DataFrame:
    """anonypy writes each QI cell as a one-element Python list (``['23-36']``): a QI column whose every
    cell has that form is read as the cells inside."""
    out = None
    for c in qi:
        if c not in released.columns or not len(released):
            continue
        text = released[c].astype(str)
        inner = text.str.extract(r"^\[(['\"])(.*)\1\]$", expand=True)
        if inner[1].notna().all():
            out = released.copy() if out is None else out
            out[c] = inner[1].to_numpy()
    return released if out is None else out


def _expand_counts(released: pd.DataFrame, col: str, original: pd.DataFrame, id_column) -> pd.DataFrame:
    """Each row repeated its ``col`` times, ``col`` dropped (it must be a whole number >= 1)."""
    if id_column is not None:
        raise InputError("--count releases rows that stand for several records: it does not combine with --id")
    if col not in released.columns:
        raise InputError(f"--count {col}: no such column in the anonymized table")
    if col in original.columns:
        raise InputError(f"--count {col}: the input table has a column {col!r} too")
    raw = released[col].astype(str).str.strip()
    ok = raw.str.fullmatch(r"[0-9]+")
    if not ok.all() or (raw[ok].astype(int) < 1).any():
        bad = raw[~ok].iloc[0] if not ok.all() else raw[raw.astype(int) < 1].iloc[0]
        raise InputError(f"--count {col}: {bad!r} is not a whole number >= 1")
    return released.loc[released.index.repeat(raw.astype(int).to_numpy())].drop(columns=[col]).reset_index(drop=True)


def _optimum_from(path: str, table, request: Request) -> dict:
    """Status, objective and bound of a ``milp-anon solve`` report of the same problem."""
    try:
        rep = json.loads(read_text(path, "report"))
    except json.JSONDecodeError as exc:
        raise InputError(f"--optimum-from {path}: not a JSON report ({exc.msg})") from None
    prov = rep.get("provenance") if isinstance(rep, dict) else None
    if not isinstance(prov, dict) or "status" not in rep:
        raise InputError(f"--optimum-from {path}: not a REPORT.json of milp-anon solve (no provenance)")
    want = {"input_sha256": table.source_sha256, "qi": list(table.qi), "sensitive": list(table.sensitive),
            "criteria": [c.describe() for c in request.criteria], "recoding": request.recoding.describe(),
            "max_suppressed_records": request.model.max_suppressed_records}
    have = {"input_sha256": prov.get("input_sha256"), "qi": (prov.get("table") or {}).get("qi"),
            "sensitive": (prov.get("table") or {}).get("sensitive"), "criteria": prov.get("criteria"),
            "recoding": prov.get("recoding"),
            "max_suppressed_records": (prov.get("model_options") or {}).get("max_suppressed_records")}
    for key, value in want.items():
        if have[key] != value:
            what = "input file (SHA-256)" if key == "input_sha256" else key.replace("_", " ")
            raise InputError(f"--optimum-from {path}: solved another problem: {what} {have[key]!r}, "
                             f"here {value!r}")
    model = prov.get("model_options") or {}
    if model.get("objective", "cost") != "cost" or model.get("budget") is not None:
        raise InputError(f"--optimum-from {path}: solved with another objective or a budget")
    if rep.get("objective") is None:
        raise InputError(f"--optimum-from {path}: holds no solution (status {rep['status']})")
    return {"status": rep["status"], "objective": rep["objective"], "bound": rep.get("bound")}


#: the row numbering anjana adds to its output
INDEX_COLUMN = "index"


def unambiguous_ignores(table, released: pd.DataFrame, id_column=None, ignore=()) -> list[str]:
    """Columns a peer's table differs by that can be left out without ``--ignore``: an added column
    ``index`` (anjana) whose values are distinct whole numbers all in ``0..n−1`` or all in ``1..n`` (``n``
    input rows: a row numbering, also when records were dropped), and the input's columns the release leaves
    out that are neither QI nor sensitive (anonypy keeps only those). Anything else stays an error."""
    original, n, out = table.frame, len(table.frame), []
    skip = set(ignore) | ({id_column} if id_column else set())
    if INDEX_COLUMN in released.columns and INDEX_COLUMN not in original.columns and INDEX_COLUMN not in skip:
        text = released[INDEX_COLUMN].astype(str).str.strip()
        if len(text) and text.str.fullmatch(r"[0-9]+").all():
            nums = text.astype(np.int64)
            if not nums.duplicated().any() and (nums.max() < n or (nums.min() >= 1 and nums.max() <= n)):
                out.append(INDEX_COLUMN)
    roles = set(table.qi) | set(table.sensitive)
    out += [c for c in original.columns if c not in released.columns and c not in roles and c not in skip]
    return out


def _comparable(table, released: pd.DataFrame, recoding, id_column, ignore: list, count_column, auto=()):
    """``(table, released)`` with the same columns in the same order: aggregated rows repeated
    (``count_column``), list cells unwrapped, the ``ignore`` columns dropped from both; bad input raises
    :class:`InputError` naming the column."""
    original = table.frame
    if getattr(recoding, "cell_columns", None):
        recoding.lattices(table)  # interval / value-set columns that cannot hold their cells: bad input
    if count_column is not None:
        released = _expand_counts(released, count_column, original, id_column)
    released = _unwrap_lists(released, table.qi)
    given, ignore = bool(ignore), list(ignore) + [c for c in auto if c not in ignore]
    for c in ignore:
        if c in table.qi or c in table.sensitive:
            raise InputError(f"--ignore {c}: a QI or sensitive column cannot be ignored")
        if c not in original.columns and c not in released.columns:
            raise InputError(f"--ignore {c}: no such column in either table")
        if c == id_column:
            raise InputError(f"--ignore {c}: it is the --id column")
    if ignore:
        frame = original.drop(columns=[c for c in ignore if c in original.columns])
        frame.attrs["sha256"] = table.source_sha256  # the input file is still the one solved
        table = Table.from_frame(frame, list(table.qi), list(table.sensitive) or None, sep=table.sep,
                                 source=table.source)
        released = released.drop(columns=[c for c in ignore if c in released.columns])
        original = table.frame
    if set(released.columns) != set(original.columns):
        missing = [c for c in original.columns if c not in released.columns]
        extra = [c for c in released.columns if c not in original.columns]
        raise InputError("the anonymized table must have the original's columns"
                         + (f"; missing {', '.join(missing)}" if missing else "")
                         + (f"; unexpected {', '.join(extra)}" if extra else "")
                         + ("" if given else " (leave columns out with --ignore COL)"))
    released = released[list(original.columns)].reset_index(drop=True)
    return table, released


def score_release(table, released: pd.DataFrame, criteria, recoding=None, options=None, solve: bool = True, *,
                  id_column: str | None = None, ignore=(), record_suppression: bool = False,
                  count_column: str | None = None,
                  max_withheld: int | None = None, optimum_from: str | None = None,
                  auto_ignore: bool = True) -> GapReport:
    """Check ``released`` against ``table`` and the criteria, and compare its cost with the optimum.

    Parameters
    ----------
    table
        The original :class:`~milp_anon.tables.table.Table`.
    released
        The anonymized rows.
    criteria, recoding
        As for :class:`~milp_anon.api.Request`; the cost metric is the recoding's.
    options
        :class:`~milp_anon.solvers.SolverOptions` for the optimum.
    solve
        Also find the optimum (skipped for an invalid table); ``False`` scores the table alone (validity,
        cost, risk, utility: ``milp-anon gap --score-only``), the optimum's fields left ``None``.
    id_column
        Match rows by this column (in both tables) instead of by position; the input's rows missing from
        the release are then suppressed records, as with ``record_suppression``.
    count_column
        Each released row stands for this column's number of records
        (anonypy's aggregated Mondrian output): the rows are repeated, the
        column dropped, and matched to the input's in any order (a maximum
        bipartite matching).
    ignore
        Columns left out of the comparison (dropped from both tables).
    auto_ignore
        Also leave out, and list in ``ignored_columns``, the columns :func:`unambiguous_ignores` finds (an
        added ``index`` numbering, the input's non-QI, non-sensitive columns the release leaves out).
    record_suppression
        Rows the release lacks, and rows with every QI cell at its root, are
        withheld records (module docstring).
    max_withheld
        The records the optimum may withhold (default: as many as the release).
    optimum_from
        A REPORT.json of ``milp-anon solve`` on the same problem: its status,
        objective and bound are used instead of solving again.
    """
    ignore = list(ignore or ())
    auto = unambiguous_ignores(table, released, id_column, ignore) if auto_ignore else []
    table, released = _comparable(table, released, recoding, id_column, ignore, count_column, auto)
    original = table.frame
    report = GapReport(valid=False, cost=None, optimum=None, gap=None, status=None, n_rows=len(released),
                       ignored_columns=auto or None, score_only=not solve)
    try:
        full, missing = _align(table, released, recoding, id_column=id_column,
                               record_suppression=record_suppression or id_column is not None,
                               any_order=count_column is not None)
    except VerificationError as exc:
        report.violation = str(exc).removeprefix("verification failed: ")
        return report
    # matched by id, the input's rows the release lacks are suppressed records (issue 17's contract for --id)
    record_suppression = record_suppression or (id_column is not None and bool(missing.any()))
    # the rows the release lacks are withheld; rows written at the root in every QI (ARX's marker) are one
    # class when that class meets every criterion, else withheld records too (the same cost either way)
    masks = [None]
    if record_suppression:
        stars = _verify.withheld_rows(full, table.qi, recoding) & ~missing
        masks = [missing, missing | stars] if stars.any() else [missing]
    for withheld in masks:
        n_withheld = 0 if withheld is None else int(withheld.sum())
        limit = (max_withheld if max_withheld is not None else n_withheld) if record_suppression else None
        report.withheld_records, report.max_suppressed_records = n_withheld, limit
        try:
            v = _verify.verify_release(original, full, table.qi, criteria, sensitive=table.sensitive,
                                       recoding=recoding, withheld=withheld)
            if limit is not None and n_withheld > limit:
                raise VerificationError(f"verification failed: {n_withheld} records withheld, more than {limit}")
        except VerificationError as exc:
            report.violation = str(exc).removeprefix("verification failed: ")
            continue
        report.cost, report.n_groups, report.violation = v.cost, v.n_groups, None
        report.risk = risk_report(full, table.qi, criteria, recoding, withheld)
        report.utility = utility_metrics(original, full, table.qi, recoding, withheld)
        break
    request = Request(criteria, recoding=recoding, max_suppressed_records=report.max_suppressed_records)
    got = _optimum_from(optimum_from, table, request) if optimum_from is not None and solve else None
    if report.violation is not None:
        return report
    report.valid = True
    if not solve:
        return report
    if got is not None:
        status, best, bound = got["status"], got["objective"], got["bound"]
        report.optimum_source = optimum_from
    else:
        result = request.solve(table, options)
        status, best, bound = str(result.status), result.cost, result.bound
        report.optimum_source = "solved"
    report.status, report.best_known, report.bound = status, best, bound
    if status == "optimal":
        report.optimum = best
        report.gap = _rel(report.cost, best)
    report.gap_to_best_known = _rel(report.cost, best)
    report.gap_to_bound = _rel(report.cost, bound)
    return report
