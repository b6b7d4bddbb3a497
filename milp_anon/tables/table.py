"""Tables and column roles.

A :class:`Table` holds the input rows as strings, the roles of the columns
(quasi-identifiers, sensitive columns, columns carried through untouched) and
an integer encoding of the quasi-identifier (QI) columns for the combinatorial
layer. It validates its input once, so that every later stage may assume a
clean table.

Empty-cell policy: a QI or sensitive cell that is empty (``""``), NaN or None
is bad input and rejected with the column and row named; a QI cell equal to
the suppression marker ``*`` is rejected too, because a released ``*`` must
always mean "suppressed". Cells of carried columns may hold anything and are
copied to the output unchanged.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from milp_anon.runtime.errors import InputError
from milp_anon.tables.files import read_text_and_digest

SUPPRESSED = "*"


def _as_list(columns: str | Sequence[str] | None, what: str) -> list[str]:
    if columns is None:
        return []
    if isinstance(columns, str):
        columns = [c for c in columns.split(",")] if "," in columns else [columns]
    out = [str(c).strip() for c in columns]
    if any(c == "" for c in out):
        raise InputError(f"empty column name in the {what} list")
    return out


def read_csv(path: str | os.PathLike, sep: str = ",") -> pd.DataFrame:
    """Read a delimited file with every value as a string.

    ``"-"`` reads standard input; gzip, bzip2 and xz files are read as
    they are (``adult.csv.gz``). The first line is the header. Quoting follows the CSV convention (``"``);
    a quote left open at the end of the file is an error naming the line
    where its field started. A UTF-8 byte-order mark is removed, a trailing
    ``\\r`` is stripped from every field (files with CRLF line endings),
    blank lines are skipped, and a line whose number of fields differs from
    the header's is an :class:`InputError` naming the line.
    """
    if not isinstance(sep, str) or len(sep) != 1:
        raise InputError(f"the delimiter must be one character, got {sep!r}")
    text, digest = read_text_and_digest(path, "input file")
    frame = parse_csv(io.StringIO(text, newline=""), sep=sep, name="standard input" if path == "-" else str(path))
    frame.attrs["sha256"] = digest  # the input's fingerprint, for provenance
    return frame


def _records(stream: Iterable[str], sep: str, name: str):
    """``(line where the record starts, fields)`` for every record of delimited text."""
    reader = csv.reader(stream, delimiter=sep, strict=True)
    while True:
        start = reader.line_num + 1
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            if "unexpected end of data" in str(exc):
                raise InputError(f"{name}: line {start}: a quoted field starts there and is never closed "
                                 "(an unterminated \" runs to the end of the file)") from None
            raise InputError(f"{name}: line {reader.line_num}: malformed CSV ({exc})") from None
        yield start, fields


def parse_csv(stream: Iterable[str], sep: str = ",", name: str = "<table>") -> pd.DataFrame:
    """Parse delimited text (an open file or lines) as :func:`read_csv` does."""
    # strip trailing \r (csv keeps it inside a field when the file mixes endings)
    numbered = [(line, [f[:-1] if f.endswith("\r") else f for f in r]) for line, r in _records(stream, sep, name)]
    numbered = [(line, r) for line, r in numbered if r and not (len(r) == 1 and r[0] == "")]
    if not numbered:
        raise InputError(f"{name}: the file is empty (no header line)")
    (_, header), body = numbered[0], numbered[1:]
    for line, r in body:
        if len(r) != len(header):
            raise InputError(
                f"{name}: line {line} has {len(r)} fields, the header has {len(header)} "
                f"(delimiter {sep!r}; is --sep right?)"
            )
    if len(set(header)) != len(header):
        dup = sorted({c for c in header if header.count(c) > 1})
        raise InputError(f"{name}: duplicate column name(s) in the header: {', '.join(dup)}")
    if not body:
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in header})
    return pd.DataFrame([r for _, r in body], columns=header, dtype=object)


@dataclass(frozen=True)
class Table:
    """An input table with column roles and an integer encoding of its QIs.

    Parameters
    ----------
    frame
        The input rows (a private copy; QI and sensitive columns as strings).
    qi
        The quasi-identifier columns, in the order the model uses.
    sensitive
        The sensitive columns (possibly none).
    codes
        ``(n, m)`` array: ``codes[r, c]`` is the index of row ``r``'s value
        in ``values[c]``.
    values
        Per QI column, the sorted distinct values (strings).
    sep
        The delimiter the table was read with (used when it is written).
    """

    frame: pd.DataFrame
    qi: tuple[str, ...]
    sensitive: tuple[str, ...]
    codes: np.ndarray
    values: tuple[np.ndarray, ...]
    sep: str = ","
    source: str | None = None
    sensitive_codes: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]  # (n, s); set in __post_init__
    sensitive_values: tuple[np.ndarray, ...] = field(default=(), repr=False)
    #: SHA-256 of the file the table was read from (``None`` for a DataFrame)
    source_sha256: str | None = field(default=None, repr=False)

    # -- construction -----------------------------------------------------
    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        qi: str | Sequence[str],
        sensitive: str | Sequence[str] | None = None,
        *,
        sep: str = ",",
        source: str | None = None,
    ) -> Table:
        """Validate ``frame`` and encode its QI columns (``frame`` is not modified)."""
        if not isinstance(frame, pd.DataFrame):
            raise InputError(f"expected a pandas DataFrame, got {type(frame).__name__}")
        qi_l = _as_list(qi, "quasi-identifier")
        sens_l = _as_list(sensitive, "sensitive")
        where = f"{source}: " if source else ""
        columns = [str(c) for c in frame.columns]
        if len(set(columns)) != len(columns):
            dup = sorted({c for c in columns if columns.count(c) > 1})
            raise InputError(f"{where}duplicate column name(s) in the table: {', '.join(dup)}")
        if not qi_l:
            raise InputError("the quasi-identifier list is empty: name at least one QI column")
        for what, lst in (("quasi-identifier", qi_l), ("sensitive", sens_l)):
            if len(set(lst)) != len(lst):
                dup = sorted({c for c in lst if lst.count(c) > 1})
                raise InputError(f"column(s) named twice in the {what} list: {', '.join(dup)}")
            missing = [c for c in lst if c not in columns]
            if missing:
                hint = "; the header has a single column: is --sep right?" if len(columns) == 1 else ""
                raise InputError(
                    f"{where}{what} column(s) not in the table: {', '.join(missing)} "
                    f"(columns are: {', '.join(columns)}{hint})"
                )
        both = [c for c in qi_l if c in sens_l]
        if both:
            raise InputError(f"column(s) both quasi-identifier and sensitive: {', '.join(both)}")
        if len(frame) == 0:
            raise InputError(f"{where}the table has no rows")

        out = frame.copy()
        out.columns = columns
        out = out.reset_index(drop=True)
        for c in qi_l + sens_l:
            col = out[c]
            bad = col.isna().to_numpy().copy()
            as_str = col.astype(object).where(~bad, "").map(lambda v: v if isinstance(v, str) else str(v))
            bad |= (as_str == "").to_numpy()
            if bad.any():
                r = int(np.flatnonzero(bad)[0])
                raise InputError(
                    f"{where}empty cell in column {c!r} at data row {r + 1} "
                    f"({int(bad.sum())} empty cell(s) in that column); fill or drop them first"
                )
            if c in qi_l and (as_str == SUPPRESSED).any():
                r = int(np.flatnonzero((as_str == SUPPRESSED).to_numpy())[0])
                raise InputError(
                    f"{where}column {c!r} holds the suppression marker '*' at data row {r + 1}; "
                    "an input QI value may not be '*'"
                )
            out[c] = as_str.astype(object)

        codes, values = _encode(out, qi_l)
        s_codes, s_values = _encode(out, sens_l) if sens_l else (np.zeros((len(out), 0), np.int32), ())
        return cls(
            frame=out,
            qi=tuple(qi_l),
            sensitive=tuple(sens_l),
            codes=codes,
            values=values,
            sep=sep,
            source=source,
            sensitive_codes=s_codes,
            sensitive_values=s_values,
            source_sha256=frame.attrs.get("sha256"),
        )

    @classmethod
    def from_csv(
        cls,
        path: str | os.PathLike,
        qi: str | Sequence[str],
        sensitive: str | Sequence[str] | None = None,
        *,
        sep: str = ",",
    ) -> Table:
        """Read ``path`` (every value a string) and validate it as :meth:`from_frame`."""
        frame = read_csv(path, sep=sep)
        return cls.from_frame(frame, qi, sensitive, sep=sep, source=str(path))

    def __repr__(self) -> str:  # one line, not the rows
        sens = f"; sensitive {', '.join(self.sensitive)}" if self.sensitive else ""
        src = f"; from {self.source}" if self.source else ""
        return f"Table({self.n} rows; QI {', '.join(self.qi)}{sens}{src})"

    # -- properties ---------------------------------------------------------
    @property
    def n(self) -> int:
        """Number of rows."""
        return int(self.codes.shape[0])

    @property
    def m(self) -> int:
        """Number of quasi-identifier columns."""
        return int(self.codes.shape[1])

    @property
    def carried(self) -> tuple[str, ...]:
        """Columns that are neither QI nor sensitive: copied to the output unchanged."""
        roles = set(self.qi) | set(self.sensitive)
        return tuple(c for c in self.frame.columns if c not in roles)

    @property
    def cardinalities(self) -> np.ndarray:
        """Number of distinct values of each QI column."""
        return np.array([len(v) for v in self.values], dtype=np.int64)


def _encode(frame: pd.DataFrame, columns: Iterable[str]) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    cols = list(columns)
    codes = np.empty((len(frame), len(cols)), dtype=np.int32)
    values = []
    for c_idx, c in enumerate(cols):
        vals, inv = np.unique(frame[c].to_numpy(dtype=object).astype(str), return_inverse=True)
        codes[:, c_idx] = inv.ravel()
        values.append(vals.astype(object))
    return codes, tuple(values)
