"""Shared helpers of the benchmark scripts."""

import csv
import json
import multiprocessing as mp


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
    result as a JSON line.
    """
    rows = []
    ctx = mp.get_context("spawn")
    for job in jobs:
        parent, child = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_call, args=(child, fn, job))
        p.start()
        child.close()
        ok, row = parent.recv()
        p.join()
        if not ok:
            raise RuntimeError(f"run {job} failed: {row}")
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def _call(conn, fn, job):
    import traceback

    try:
        conn.send((True, fn(job)))
    except BaseException:
        conn.send((False, traceback.format_exc()))
    conn.close()


def write_csv(path, rows):
    """Write result rows (dicts with the same keys) as CSV."""
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
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
