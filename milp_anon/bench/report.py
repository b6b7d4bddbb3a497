"""Markdown tables and plots of a suite's results (plots need the optional matplotlib)."""

from __future__ import annotations

import os
import platform
import statistics

from milp_anon.bench.methods import EXACT, HEURISTIC

SOLVED = ("optimal",)


def _agg(rows):
    """Per (instance, method): median seconds over repetitions, and the first repetition's result."""
    out: dict = {}
    for r in rows:
        out.setdefault((r["instance"], r["method"]), []).append(r)
    agg = {}
    for key, rs in out.items():
        first = dict(rs[0])
        secs = [x["seconds"] for x in rs if x["seconds"] is not None]
        first["seconds"] = statistics.median(secs) if secs else None
        agg[key] = first
    return agg


def _ordered(rows, key):
    """The distinct values of ``row[key]`` in order of first appearance."""
    return list(dict.fromkeys(r[key] for r in rows))


def _cell(r):
    if r is None:
        return ""
    s = r["status"]
    if s == "skipped":
        return "–"
    cost = "" if r["cost"] is None else f"{r['cost']:g}"
    secs = "" if r["seconds"] is None else f"{r['seconds']:.2f} s"
    tag = {"optimal": "", "feasible": "", "time_limit": " (limit)", "gap_limit": " (gap)", "killed": "killed",
           "error": "ERROR", "infeasible": "infeasible", "no_solution": "none"}.get(s, s)
    if s in ("killed", "error", "infeasible", "no_solution"):
        return f"{tag} {secs}".strip()
    return f"{cost}{tag} · {secs}"


def optimum_of(rs):
    for r in rs:
        if r["status"] == "optimal" and r["cost"] is not None:
            return float(r["cost"])
    for r in rs:
        if r.get("known_optimum") is not None:
            return float(r["known_optimum"])
    return None


def render_markdown(rows, disagreements, suite, plots) -> str:
    agg = _agg(rows)
    methods, insts = _ordered(rows, "method"), _ordered(rows, "instance")
    by_inst = {i: [agg[(i, m)] for m in methods if (i, m) in agg] for i in insts}
    lines = [f"# Benchmark suite `{suite.name}`", "",
             f"Time limit {suite.time_limit:g} s per run, {suite.repetitions} repetition(s) (median seconds), "
             f"{suite.workers} parallel processes; machine: {platform.machine()}, {os.cpu_count()} CPUs, "
             f"Python {platform.python_version()}. Cells: cost · seconds of the method alone (instance "
             "building excluded); `(limit)` = best verified solution at the time limit; `–` = the method does "
             "not apply or the instance is above its size cap; `killed` = still running past the limit.", ""]
    if disagreements:
        lines += ["## ⚠ DISAGREEMENTS", ""] + [f"* **{d['instance']}**: {d['message']}" for d in disagreements]
        lines.append("")
    else:
        lines += ["No disagreement: every proven optimum equals every other and the known optima; no incumbent "
                  "is below and no bound above a proven optimum.", ""]
    lines += ["## All runs", "", "| instance | n | t_in | k | optimum | " + " | ".join(methods) + " |",
              "|---|---|---|---|---|" + "---|" * len(methods)]
    for i in insts:
        rs = by_inst[i]
        opt = optimum_of(rs)
        r0 = rs[0]
        cells = [_cell(agg.get((i, m))) for m in methods]
        lines.append(f"| {i} | {r0['n']} | {r0['t_in']} | {r0['k']} | {'' if opt is None else f'{opt:g}'} | "
                     + " | ".join(cells) + " |")
    lines.append("")
    milp = [m for m in methods if m.startswith("milp")]
    exact = [m for m in methods if any(m == e or m.startswith(e) for e in EXACT)]
    if milp and exact:
        ref = milp[0]
        lines += [f"## Exact algorithms against `{ref}`", "",
                  "Time ratio = exact seconds / MILP seconds on the instances both solved (median, max); "
                  "largest n solved; the smallest instance (n, t_in) where it was killed, hit the limit "
                  "or was above its size cap.", "",
                  "| method | both solved | median ratio | max ratio | largest n solved | first not solved |",
                  "|---|---|---|---|---|---|"]
        for m in exact:
            ratios, solved_n, unsolved_n = [], [], []
            for i in insts:
                a, b = agg.get((i, m)), agg.get((i, ref))
                if a is None:
                    continue
                if a["status"] == "optimal":
                    solved_n.append(a["n"])
                    if b is not None and b["status"] == "optimal" and b["seconds"]:
                        ratios.append(a["seconds"] / max(b["seconds"], 1e-3))
                elif a["status"] in ("killed", "skipped", "time_limit") and a["n"] is not None:
                    if a["status"] != "skipped" or "above" in (a.get("note") or ""):
                        unsolved_n.append((a["n"], a["t_in"]))
            med = f"{statistics.median(ratios):.3g}" if ratios else ""
            mx = f"{max(ratios):.3g}" if ratios else ""
            lines.append(f"| {m} | {len(ratios)} | {med} | {mx} | {max(solved_n) if solved_n else ''} | "
                         f"{'n = %d (t_in %d)' % min(unsolved_n) if unsolved_n else ''} |")
        lines.append("")
    heur = [m for m in methods if any(m == h or m.startswith(h) for h in HEURISTIC)]
    if heur:
        lines += ["## Heuristic gaps to the optimum", "",
                  "Gap = (heuristic cost − optimum) / optimum, on instances with a proven optimum.", "",
                  "| instance | optimum | " + " | ".join(heur) + " |", "|---|---|" + "---|" * len(heur)]
        for i in insts:
            opt = optimum_of(by_inst[i])
            if opt is None:
                continue
            cells = []
            for h in heur:
                r = agg.get((i, h))
                if r is None or r["cost"] is None:
                    cells.append("–")
                else:
                    g = 0.0 if opt == 0 and r["cost"] == 0 else ((r["cost"] - opt) / opt if opt else float("inf"))
                    cells.append(f"{r['cost']:g} ({100 * g:.1f} %)")
            lines.append(f"| {i} | {opt:g} | " + " | ".join(cells) + " |")
        lines.append("")
    if plots is None:
        lines += ["## Plots", "", "Not drawn: matplotlib is not installed (`pip install 'milp-anon[plot]'`).", ""]
    elif plots:
        lines += ["## Plots", ""] + [f"![{name}]({os.path.basename(path)})" for name, path in plots] + [""]
    return "\n".join(lines)


_SOLVED = "optimal"


def _runtime_panels(plt, agg, insts, solvers, key, out_dir, fname):
    """Seconds vs ``key`` (n or t_in), one panel per k; runs without a proven optimum marked where they stopped."""
    # a killed run records no sizes: take them from the instance's other runs
    sizes = {}
    for (i, _), r in agg.items():
        for f in ("n", "t_in", "k"):
            if r.get(f) is not None:
                sizes.setdefault(i, {}).setdefault(f, r[f])
    agg = {(i, m): {**sizes.get(i, {}), **{f: v for f, v in r.items() if v is not None}} for (i, m), r in agg.items()}
    ks = sorted({agg[(i, m)]["k"] for i in insts for m in solvers if (i, m) in agg and agg[(i, m)].get("k")})
    if not ks:
        return None
    fig, axes = plt.subplots(1, len(ks), figsize=(3.6 * len(ks), 3.6), sharey=True, squeeze=False)
    colors = {m: f"C{j}" for j, m in enumerate(solvers)}
    drawn = False
    for ax, k in zip(axes[0], ks):
        xs_all = set()
        for m in solvers:
            runs = [agg[(i, m)] for i in insts if (i, m) in agg and agg[(i, m)].get("k") == k
                    and agg[(i, m)]["status"] != "skipped" and agg[(i, m)]["seconds"]]
            done = sorted((r[key], r["seconds"]) for r in runs if r["status"] == _SOLVED)
            stopped = sorted((r[key], r["seconds"]) for r in runs if r["status"] != _SOLVED)
            if done:
                ax.scatter([p[0] for p in done], [p[1] for p in done], s=12, color=colors[m], label=m)
            if stopped:
                ax.scatter([p[0] for p in stopped], [p[1] for p in stopped], marker="x", s=30, color=colors[m],
                           label=f"{m}: stopped, no proof")
            drawn |= bool(done or stopped)
            xs_all.update(p[0] for p in done + stopped)
        ax.set_xscale("log")
        if 0 < len(xs_all) <= 8:  # a narrow range has no labelled decade: label the sizes drawn
            ax.set_xticks(sorted(xs_all))
            ax.set_xticklabels([f"{v:g}" for v in sorted(xs_all)], fontsize=6, rotation=45)
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.set_title(f"k = {k}", fontsize=9)
        ax.set_xlabel(key)
    axes[0][0].set_ylabel("seconds")
    if not drawn:
        plt.close(fig)
        return None
    handles = {}
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(handles.values(), handles.keys(), fontsize=6, loc="upper center", ncol=min(4, len(handles)),
               bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout(rect=(0, 0, 1, 0.86))
    path = os.path.join(out_dir, fname)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def render_plots(rows, out_dir) -> list | None:
    """Runtime vs n and vs t_in (one panel per k), a Dolan-Moré performance profile, heuristic gaps.

    Every run is drawn: a run without a proven optimum (time limit, killed,
    error) is marked where it stopped, and counts as never solved in the
    profile; a heuristic gap of 0 and "no table" look different. ``None``
    when matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # said in the report and on the console, not silent
        return None
    agg = _agg(rows)
    methods, insts = _ordered(rows, "method"), _ordered(rows, "instance")
    solvers = [m for m in methods if not any(m == h or m.startswith(h) for h in HEURISTIC)]
    plots = []
    for key, fname in (("n", "runtime_vs_n.png"), ("t_in", "runtime_vs_t_in.png")):
        path = _runtime_panels(plt, agg, insts, solvers, key, out_dir, fname)
        if path:
            plots.append((f"runtime vs {key}, one panel per k", path))
    # Dolan-Moré over every instance some exact method attempted: a failure or a skip is never solved
    attempted = [i for i in insts if any((i, m) in agg and agg[(i, m)]["status"] != "skipped" for m in solvers)]
    inf = float("inf")
    times = {m: {i: (agg[(i, m)]["seconds"] if (i, m) in agg and agg[(i, m)]["status"] == _SOLVED
                     and agg[(i, m)]["seconds"] else inf) for i in attempted} for m in solvers}
    best = {i: min(times[m][i] for m in solvers) for i in attempted}
    if attempted and len(solvers) > 1:
        fig, ax = plt.subplots(figsize=(6.5, 4))
        top = 1.0
        for m in solvers:
            ratios = sorted(times[m][i] / max(best[i], 1e-6) for i in attempted if best[i] < inf)
            finite = [r for r in ratios if r < inf]
            top = max([top] + finite)
            if finite:
                ys = [(j + 1) / len(attempted) for j in range(len(finite))]
                ax.step([1.0] + finite + [top * 10], [0.0] + ys + [ys[-1]], where="post",
                        label=f"{m} ({len(finite)}/{len(attempted)})")
        ax.set_xscale("log")
        ax.set_xlim(1, top * 10)
        ax.set_xlabel("τ (time / fastest method's time)")
        ax.set_ylabel("fraction of all instances solved within τ")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"performance profile over {len(attempted)} instances\n"
                     "(a time limit, a kill, an error or a skip counts as never solved)", fontsize=8)
        ax.legend(fontsize=6)
        fig.tight_layout()
        path = os.path.join(out_dir, "performance_profile.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        plots.append(("performance profile", path))
    heur = [m for m in methods if any(m == h or m.startswith(h) for h in HEURISTIC)]
    data = []  # (instance, optimum, [gap % | None (no table) | inf (optimum 0, cost > 0)])
    for i in insts:
        opt = optimum_of([agg[(i, m)] for m in methods if (i, m) in agg])
        if opt is None:
            continue
        gaps = []
        for h in heur:
            r = agg.get((i, h))
            if r is None or r["cost"] is None or r["status"] == "skipped":
                gaps.append(None)
            elif opt == 0:
                gaps.append(0.0 if r["cost"] == 0 else inf)
            else:
                gaps.append((r["cost"] - opt) / opt * 100)
        data.append((i, opt, gaps))
    if heur and data:
        fig, ax = plt.subplots(figsize=(max(7, 0.35 * len(data)), 4.5))
        finite = [g for _, _, gs in data for g in gs if g is not None and g < inf]
        ceiling = max(finite + [1.0]) * 3
        for j, h in enumerate(heur):
            xs = [x + (j - (len(heur) - 1) / 2) * 0.22 for x in range(len(data))]
            pts = [(x, d[2][j]) for x, d in zip(xs, data)]
            color = f"C{j}"
            ax.scatter([x for x, g in pts if g is not None and g < inf], [g for _, g in pts if g is not None and g < inf],
                       s=18, color=color, label=h)
            na = [x for x, g in pts if g is None]
            ax.scatter(na, [-0.6] * len(na), s=18, marker="x", color=color, alpha=0.5)
            infinite = [x for x, g in pts if g == inf]
            ax.scatter(infinite, [ceiling] * len(infinite), s=24, marker="^", color=color)
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_xticks(range(len(data)))
        ax.set_xticklabels([d[0] for d in data], rotation=70, ha="right", fontsize=5)
        ax.set_yscale("symlog", linthresh=1)
        ax.set_ylim(-1, ceiling * 2)
        ax.set_ylabel("gap to the optimum (%)")
        ax.set_title("heuristic gaps: ● gap (0 = optimal table), × no table / not applicable (below 0), "
                     "▲ optimum 0 but cost > 0", fontsize=7)
        ax.legend(fontsize=6)
        fig.tight_layout()
        path = os.path.join(out_dir, "heuristic_gaps.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        plots.append(("heuristic gaps", path))
    return plots
