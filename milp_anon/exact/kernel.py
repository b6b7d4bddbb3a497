"""Blocki-Williams kernelization for k-anonymity with few attributes.

Problem: optimal k-anonymity on a table with ``m`` columns over a small
alphabet.

Lemma 2 (Blocki-Williams 2010): if a row ``r`` occurs at least
``k(2k-1)·G`` times, where ``G`` is the number of ways ``r`` can be released
(``2^m`` with suppression), some optimal solution has a group made of copies
of ``r`` alone. Algorithm 1 therefore peels groups ``<r, k>`` (cost 0) off
every row type occurring more than ``T = k·2k·G`` times, until each occurs
at most ``T`` times; an optimal solution of the remaining kernel plus the
peeled groups is optimal (Lemma 3). The kernel has at most
``T · t_in <= k(2k)(2c)^m`` rows; time ``O(nm)``.

The pigeonhole argument of Lemma 2 only uses that ``r`` has ``G`` possible
releases, so it holds with ``G = ∏_c (H_c + 1)`` for hierarchies of heights
``H_c`` (monotone costs) and with ``G = |P|`` for pattern-guided
k-anonymity.
"""

from __future__ import annotations

import numpy as np

from milp_anon.tables.recoding import Generalization, Patterns


def releases_per_row(m: int, recoding=None, columns=None) -> int:
    """``G``: the number of ways one row can be released under ``recoding``."""
    if isinstance(recoding, Patterns):
        return len(recoding.patterns)
    if isinstance(recoding, Generalization):
        if recoding.cell_columns:
            raise ValueError("the Blocki-Williams kernel is stated for hierarchies and suppression, not for "
                             "interval or value-set cells")
        g = 1
        for name in columns or []:
            h = recoding.hierarchies.get(name)
            g *= (h.height + 1) if h is not None else 2
        return g
    return 2 ** m


def kernelize(table, k: int, recoding=None, columns=None):
    """Blocki-Williams Algorithm 1.

    Returns
    -------
    (kernel_rows, peeled)
        Indices of the rows that remain (the kernel), and the peeled groups:
        tuples of ``k`` identical rows, each released unchanged at cost 0.
    """
    arr = np.asarray(table, dtype=object)
    n, m = arr.shape
    threshold = k * (2 * k) * releases_per_row(m, recoding, columns)
    by_type: dict = {}
    for r in range(n):
        by_type.setdefault(tuple(arr[r]), []).append(r)
    kernel, peeled = [], []
    for rows in by_type.values():
        rows = list(rows)
        while len(rows) > threshold:
            peeled.append(tuple(rows[:k]))
            rows = rows[k:]
        kernel.extend(rows)
    return sorted(kernel), peeled


def kernel_then(table, k: int, solver, recoding=None, columns=None):
    """Kernelize, solve the kernel with ``solver(kernel_table, k, recoding, columns)``, add the peeled groups.

    ``solver`` is any exact algorithm returning ``(cost, blocks)`` (e.g.
    :func:`~milp_anon.exact.divide_and_conquer`).
    """
    arr = np.asarray(table, dtype=object)
    kernel, peeled = kernelize(arr, k, recoding, columns)
    if not kernel:
        return 0, peeled
    cost, blocks = solver(arr[kernel], k, recoding, columns)
    if cost is None:
        return None, None
    return cost, [tuple(kernel[i] for i in b) for b in blocks] + peeled
