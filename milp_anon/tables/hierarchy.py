"""Value generalization hierarchies in ARX's CSV format.

A file has no header, ``;`` as delimiter and one line per leaf value::

    value;level1;level2;...;top

Column 0 is the original value (level 0), column ``l`` its generalization at
level ``l``; the last column is the root. A text names one node: the same
text at two levels is refused (a released ``31`` that may be the value 31 or
a generalized 30 could not be read back). The file must
describe a tree (every node at level ``l`` has one parent at level ``l + 1``)
with all leaves at the same depth ``H`` and a single root.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from milp_anon.runtime.errors import InputError
from milp_anon.tables.files import read_text


@dataclass(frozen=True)
class Hierarchy:
    """A validated generalization hierarchy.

    Attributes
    ----------
    paths
        ``{leaf: (leaf, level1, ..., root)}``.
    height
        ``H``, the number of generalization steps (levels − 1).
    source
        Where it came from (file name), for error messages.
    """

    paths: dict
    height: int
    source: str = "<hierarchy>"

    @classmethod
    def from_rows(cls, rows, source: str = "<hierarchy>") -> Hierarchy:
        rows = [[str(v) for v in r] for r in rows]
        if not rows:
            raise InputError(f"hierarchy {source} is empty")
        depth = len(rows[0])
        for i, r in enumerate(rows):
            if len(r) != depth:
                raise InputError(
                    f"hierarchy {source}: line {i + 1} has {len(r)} levels, line 1 has {depth} (ragged rows)"
                )
            if any(v == "" for v in r):
                raise InputError(f"hierarchy {source}: line {i + 1} has an empty field")
        if depth < 2:
            raise InputError(f"hierarchy {source} has a single level: it needs at least a value and a root")
        paths: dict[str, tuple] = {}
        parent: dict[tuple[int, str], str] = {}
        for i, r in enumerate(rows):
            if r[0] in paths and paths[r[0]] != tuple(r):
                raise InputError(f"hierarchy {source}: value {r[0]!r} listed twice with different ancestors")
            paths[r[0]] = tuple(r)
            for lvl in range(depth - 1):
                node, par = (lvl, r[lvl]), r[lvl + 1]
                if parent.setdefault(node, par) != par:
                    raise InputError(
                        f"hierarchy {source} is not a tree: {r[lvl]!r} at level {lvl} has two parents "
                        f"({parent[node]!r} and {par!r}, line {i + 1})"
                    )
        # a released text must name one node: the verifier and `gap` read a cell by its text
        level_of: dict[str, tuple[int, int]] = {}
        for i, r in enumerate(rows):
            for lvl, text in enumerate(r):
                if level_of.setdefault(text, (lvl, i))[0] != lvl:
                    first_lvl, first_line = level_of[text]
                    raise InputError(
                        f"hierarchy {source}: {text!r} is a node at level {first_lvl} (line {first_line + 1}) and "
                        f"at level {lvl} (line {i + 1}); a released {text!r} would be ambiguous: give each level "
                        "its own text")
        roots = {r[-1] for r in rows}
        if len(roots) != 1:
            raise InputError(f"hierarchy {source} has {len(roots)} roots ({', '.join(sorted(roots)[:3])}...)")
        return cls(paths=paths, height=depth - 1, source=source)

    @classmethod
    def from_csv(cls, path: str | os.PathLike, sep: str = ";") -> Hierarchy:
        """Read an ARX hierarchy file (no header)."""
        text = read_text(path, "hierarchy file")
        try:
            rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=sep, strict=True))
        except csv.Error as exc:
            raise InputError(f"hierarchy file {path}: malformed ({exc})") from None
        rows = [[f[:-1] if f.endswith("\r") else f for f in r] for r in rows]
        rows = [r for r in rows if r and not (len(r) == 1 and r[0] == "")]
        return cls.from_rows(rows, source=str(path))

    @classmethod
    def coerce(cls, value, source: str = "<hierarchy>") -> Hierarchy:
        """A :class:`Hierarchy` from a path, a DataFrame, a dict ``{leaf: [ancestors...]}`` or itself."""
        if isinstance(value, Hierarchy):
            return value
        if isinstance(value, (str, os.PathLike)):
            return cls.from_csv(value)
        if isinstance(value, pd.DataFrame):
            return cls.from_rows(value.astype(str).to_numpy().tolist(), source)
        if isinstance(value, dict):
            return cls.from_rows([[k, *v] for k, v in value.items()], source)
        raise InputError(f"cannot read a hierarchy from {type(value).__name__}")

    def __repr__(self) -> str:  # one line, not every path
        return f"Hierarchy({self.source!r}, {len(self.paths)} values, height {self.height})"

    @property
    def root(self) -> str:
        return next(iter(self.paths.values()))[-1]

    def check_values(self, values, column: str) -> None:
        """Every data value must be a leaf; the error names value, column and file."""
        missing = [v for v in values if v not in self.paths]
        if missing:
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            raise InputError(
                f"value {missing[0]!r} of column {column!r} is not in the hierarchy {self.source}{more}"
            )

    def lca_level(self, a: str, b: str) -> int:
        """Level of the lowest common ancestor of leaves ``a`` and ``b`` (0 when equal)."""
        pa, pb = self.paths[a], self.paths[b]
        for lvl in range(self.height + 1):
            if pa[lvl] == pb[lvl]:
                return lvl
        return self.height  # pragma: no cover - single root

    def distance_matrix(self, values) -> np.ndarray:
        """``d(a, b) = level(LCA(a, b)) / H`` over ``values`` (the hierarchical ground metric)."""
        V = len(values)
        d = np.zeros((V, V))
        for i in range(V):
            for j in range(V):
                d[i, j] = self.lca_level(values[i], values[j]) / self.height
        return d

    def edges_below(self, values):
        """Tree edges (non-root nodes present above ``values``) and the leaves below each.

        Returns a list of ``(level, node, [indices into values])``.
        """
        below = {}
        for idx, v in enumerate(values):
            for lvl in range(self.height):
                below.setdefault((lvl, self.paths[v][lvl]), []).append(idx)
        return [(lvl, node, idxs) for (lvl, node), idxs in sorted(below.items())]
