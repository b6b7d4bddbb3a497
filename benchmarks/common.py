"""Shared helpers of the benchmark scripts."""

import csv
import importlib.metadata
import json
import multiprocessing as mp
import os
import platform
import subprocess
import threading
import time


#: the Adult QIs in the order of issues 13 and 14; every Adult benchmark takes its first ``q`` from here
ADULT_QI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation")


def fmt(v, nd=2):
    """A table cell: thousands separators, ``nd`` decimals for floats, ``–`` for missing."""
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.{nd}f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def run_serial(fn, jobs):
    """Run ``fn(job)`` for every job, one at a time, each in a fresh spawned process.

    One at a time: runs never share the cores. A fresh process: ``ru_maxrss``
    inside ``fn`` is that run's own peak memory. Not a Pool worker (those are
    daemonic and could not start the solver's own child process). Prints each
    result as a JSON line; a dict result gains ``tree_peak_mb``, the run's
    largest memory at one time (:class:`TreePeak`), up to its
    ``measured_until`` (``time.time()``; what ``fn`` does after it, e.g. a
    certification, is left out) when it gives one.
    """
    rows = []
    ctx = mp.get_context("spawn")
    for job in jobs:
        parent, child = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_call, args=(child, fn, job))
        p.start()
        child.close()
        with TreePeak(p.pid) as peak:
            ok, row = parent.recv()
        p.join()
        if not ok:
            raise RuntimeError(f"run {job} failed: {row}")
        if isinstance(row, dict):
            row["tree_peak_mb"] = round(peak.until(row.pop("measured_until", None)) / 2**20)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


class TreePeak:
    """The largest resident memory of a process and its descendants together, sampled every ``interval``
    seconds from outside them (a thread of this process, which only waits meanwhile).

    Why not ``ru_maxrss`` of the run and of its children added: a child started by ``subprocess`` (vfork,
    then exec) inherits its parent's high-water mark as its own ``ru_maxrss`` (Linux keeps ``maxrss``
    across exec), so that sum counts the parent's peak twice once any child ran, and it adds peaks that
    never coincide. Sampling misses only what lives less than ``interval``.
    """

    def __init__(self, pid: int, interval: float = 0.05):
        import psutil

        self.proc, self.interval = psutil.Process(pid), interval
        self.samples: list[tuple[float, int]] = []  # (time.time(), bytes)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        import psutil

        while not self._stop.is_set():
            try:
                procs = [self.proc] + self.proc.children(recursive=True)
            except psutil.Error:
                return
            total = 0
            for q in procs:
                try:
                    total += q.memory_info().rss
                except psutil.Error:
                    pass
            self.samples.append((time.time(), total))
            self._stop.wait(self.interval)

    def until(self, end: float | None = None) -> int:
        """The largest sample (bytes), of those taken up to ``end`` (``None``: all)."""
        return max((b for t, b in self.samples if end is None or t <= end), default=0)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _call(conn, fn, job):
    import traceback

    try:
        conn.send((True, fn(job)))
    except BaseException:
        conn.send((False, traceback.format_exc()))
    conn.close()


def write_csv(path, rows):
    """Write result rows as CSV; the columns are every key of any row, in order of first appearance (rows of
    different variants may carry different keys; a missing one is an empty cell)."""
    fields = list(dict.fromkeys(key for r in rows for key in r))
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


def write_md_table(path, title, columns, rows, cell=None, intro=None):
    """Write ``rows`` as a markdown table: ``columns`` are ``(key, header)``; ``cell(key, value)`` formats
    a value (default :func:`fmt`); ``intro`` is a paragraph between the title and the table."""
    cell = cell or (lambda key, v: fmt(v))
    with open(path, "w") as fh:
        fh.write(f"# {title}\n\n")
        if intro:
            fh.write(intro + "\n\n")
        fh.write("| " + " | ".join(h for _, h in columns) + " |\n|" + "---|" * len(columns) + "\n")
        for r in rows:
            fh.write("| " + " | ".join(cell(key, r.get(key)) for key, _ in columns) + " |\n")


def run_to_files(fn, jobs, stem, title, columns):
    """:func:`run_serial`, then ``stem.csv`` and ``stem.md`` (a table of ``columns``); returns the rows."""
    rows = run_serial(fn, jobs)
    write_csv(stem + ".csv", rows)
    write_md_table(stem + ".md", title, columns, rows)
    return rows


def result_cell(key, v):
    """A cell of a solve-result table: ``gap`` in %, ``objective``/``bound`` with 3 decimals, ``peak_mb``
    whole, text as is, the rest by :func:`fmt`."""
    if key == "gap":
        return "–" if v is None else f"{100 * v:.2f} %"
    if key in ("objective", "bound"):
        return fmt(v, 3)
    if key == "peak_mb":
        return fmt(v, 0)
    return v if isinstance(v, str) else fmt(v)


def provenance_line(script: str) -> str:
    """``Generated by `python -m benchmarks.SCRIPT` at commit ...; machine, cores, highspy; date``."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    return (f"Generated by `python -m benchmarks.{script}` at commit {commit}; {platform.machine()}, "
            f"{os.cpu_count()} cores, highspy {importlib.metadata.version('highspy')}; {time.strftime('%Y-%m-%d')}")


def write_results(stem, rows, title, columns, intro):
    """``stem.csv`` and ``stem.md`` (a :func:`result_cell` table of ``columns`` under ``intro``)."""
    os.makedirs(os.path.dirname(stem) or ".", exist_ok=True)
    write_csv(stem + ".csv", rows)
    write_md_table(stem + ".md", title, columns, rows, result_cell, intro)
    print(f"wrote {stem}.md and {stem}.csv")


def pct(x):
    """A share as a percentage cell (``–`` when missing)."""
    return "–" if x is None else f"{100 * x:,.1f} %"


def optimum_cells(r, nd=2, status=False):
    """The ``optimum (or best known / bound)`` and ``gap`` cells of a row of ``milp-anon gap`` results
    (keys ``optimum``, ``gap``, ``best known``, ``bound``, ``gap to bound``; ``status`` appends the
    optimum solve's status to a best-known cell)."""
    if r["optimum"] is not None:
        return fmt(r["optimum"], nd), pct(r["gap"])
    if r["best known"] is not None:
        tail = f" ({r['status']})" if status else ""
        return f"{fmt(r['best known'], nd)} / bound {fmt(r['bound'], nd)}{tail}", f"≤ {pct(r['gap to bound'])}"
    return "–", "–"


def validity_cell(r):
    """``yes``, or ``no:`` and the violation."""
    return "yes" if r["valid"] else "no: " + str(r["violation"])
