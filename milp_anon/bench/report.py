"""Markdown tables and plots of a suite's results (plots need the optional matplotlib)."""

from __future__ import annotations

import os
import platform
import statistics

from .methods import EXACT, HEURISTIC

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
    if plots:
        lines += ["## Plots", ""] + [f"![{name}]({os.path.basename(path)})" for name, path in plots] + [""]
    return "\n".join(lines)


def render_plots(rows, out_dir) -> list:
    """Runtime vs n and vs t_in per method, a Dolan-Moré performance profile, heuristic gaps."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    agg = _agg(rows)
    methods, insts = _ordered(rows, "method"), _ordered(rows, "instance")
    solvers = [m for m in methods if not any(m == h or m.startswith(h) for h in HEURISTIC)]
    plots = []
    for key, fname in (("n", "runtime_vs_n.png"), ("t_in", "runtime_vs_t_in.png")):
        fig, ax = plt.subplots(figsize=(6, 4))
        drawn = False
        for m in solvers:
            pts = sorted((agg[(i, m)][key], agg[(i, m)]["seconds"]) for i in insts
                         if (i, m) in agg and agg[(i, m)]["status"] == "optimal" and agg[(i, m)]["seconds"])
            if pts:
                ax.scatter([p[0] for p in pts], [p[1] for p in pts], label=m, s=14)
                drawn = True
        if drawn:
            ax.set_yscale("log")
            ax.set_xscale("log")
            ax.set_xlabel(key)
            ax.set_ylabel("seconds to proven optimum")
            ax.legend(fontsize=7)
            fig.tight_layout()
            path = os.path.join(out_dir, fname)
            fig.savefig(path, dpi=110)
            plots.append((f"runtime vs {key}", path))
        plt.close(fig)
    # Dolan-Moré: fraction of instances a method solves within tau x the fastest method's time
    times = {m: {} for m in solvers}
    for i in insts:
        for m in solvers:
            r = agg.get((i, m))
            if r is not None and r["status"] != "skipped":
                times[m][i] = r["seconds"] if r["status"] == "optimal" and r["seconds"] else float("inf")
    common = [i for i in insts if all(i in times[m] for m in solvers)]
    best = {i: min(times[m][i] for m in solvers) for i in common}
    common = [i for i in common if best[i] < float("inf")]
    if common and len(solvers) > 1:
        fig, ax = plt.subplots(figsize=(6, 4))
        for m in solvers:
            ratios = sorted(times[m][i] / max(best[i], 1e-6) for i in common)
            xs = [r for r in ratios if r < float("inf")]
            if xs:
                ax.step(xs + [max(xs) * 10], [(j + 1) / len(common) for j in range(len(xs))] + [len(xs) / len(common)],
                        where="post", label=m)
        ax.set_xscale("log")
        ax.set_xlabel("τ (time / fastest time)")
        ax.set_ylabel("fraction solved within τ")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"performance profile ({len(common)} instances all methods attempt)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(out_dir, "performance_profile.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        plots.append(("performance profile", path))
    heur = [m for m in methods if any(m == h or m.startswith(h) for h in HEURISTIC)]
    data = []
    for i in insts:
        opt = optimum_of([agg[(i, m)] for m in methods if (i, m) in agg])
        if opt is None or opt == 0:
            continue
        data.append((i, [((agg[(i, h)]["cost"] - opt) / opt * 100) if (i, h) in agg and agg[(i, h)]["cost"]
                         is not None else float("nan") for h in heur]))
    if heur and data:
        fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(data)), 4))
        w = 0.8 / len(heur)
        for j, h in enumerate(heur):
            ax.bar([x + j * w for x in range(len(data))], [d[1][j] for d in data], width=w, label=h)
        ax.set_xticks([x + 0.4 - w / 2 for x in range(len(data))])
        ax.set_xticklabels([d[0] for d in data], rotation=60, ha="right", fontsize=6)
        ax.set_ylabel("gap to optimum (%)")
        ax.set_yscale("symlog", linthresh=1)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(out_dir, "heuristic_gaps.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        plots.append(("heuristic gaps", path))
    return plots
