"""Check a milp-anon optimality certificate in exact arithmetic; standard library only.

Usage: ``python certificate_check.py CERT.json`` (or ``python -m milp_anon.certificate_check CERT.json``).
Exit 0: the certificate holds; 1: a check failed (one line names the first); 2: the file is unreadable.
This file imports nothing from milp_anon: copy it anywhere.

The certificate states a k-anonymity assignment problem: ``n_i`` rows of each row type ``i``; candidates ``j``
costing ``w_j`` per row (integers over a common ``denominator``); the (type, candidate) pairs allowed; ``k``.
A solution opens candidates (``y_j``) and sends ``g_ij`` rows of type ``i`` to candidate ``j``: every row
placed, an open candidate holds at least ``k`` rows, cost ``Σ w_j g_ij``. Checked, every number an integer or
a ``Fraction``:

1. the assignment: pairs present, every type's rows all placed, every used candidate holding ``>= k`` rows,
   cost equal to ``objective`` (an upper bound);
2. the packing rows ``Σ_{j ∈ Q} y_j <= r``: valid when the members' rows together number fewer than
   ``(r + 1) k``, or when every two members ``a, b`` hold fewer than ``2k`` rows together (they cannot both
   be open); their multipliers ``μ >= 0``;
3. for the multipliers ``π`` (any ``π`` gives a bound), each candidate's block
   ``rc_j = min {Σ_i (w_j − π_i) g_i : 0 <= g_i <= n_i, Σ g_i >= k}`` (every negative unit, then the
   cheapest until ``k``), ``m_j = Σ_{Q ∋ j} μ_Q``, and ``L(π, μ) = Σ π_i n_i − Σ r_Q μ_Q + Σ_j min(0, rc_j +
   m_j)``, a lower bound; a candidate holding fewer than ``k`` rows is never open;
4. each pair's bound ``b_ij = L − min(0, rc_j + m_j) + rc_ij + m_j`` (``rc_ij``: the block with one unit of
   ``i`` forced in), a lower bound on every solution using the pair; the type bound ``max_i min_j b_ij``;
5. each round at threshold ``G``: every pair with ``⌈b_ij⌉ < G`` whose candidate still holds ``k`` rows
   through such pairs is in the round's restricted model ``K``, so a solution cheaper than ``G`` lies in
   ``K`` and ``OPT >= min(OPT(K), G)``. If ``K`` leaves a row type without a pair (of a candidate holding
   ``k`` rows in ``K``), ``OPT(K) = ∞``; otherwise ``OPT(K) >= claim`` is a solver's word, taken as the
   certificate's ``engine`` record says (which engine re-solved ``K``, and whether it confirmed);
6. the largest of these bounds, rounded up to the grid ``1/denominator``, reaches ``objective``.

On trust: the instance itself (that the pairs are every candidate the table's recoding allows, and the costs
those of the table; ``milp-anon certify`` regenerates them and prints the same ``instance_sha256``), and the
engine's word in 5 where a round needs it.
"""

import argparse
import hashlib
import json
import math
import sys
from fractions import Fraction

INSTANCE_KEYS = ("k", "rows_per_type", "cost", "pairs")


class Failed(Exception):
    """A check that does not hold (its message names it)."""


def instance_sha256(cert: dict) -> str:
    """SHA-256 of the instance's fields in canonical JSON: the fingerprint ``milp-anon certify`` prints."""
    part = {key: cert[key] for key in INSTANCE_KEYS}
    return hashlib.sha256(json.dumps(part, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise Failed(what)


def _ints(values, what: str, low=None) -> list:
    _need(isinstance(values, list) and all(type(v) is int and (low is None or v >= low) for v in values),
          f"{what}: not a list of integers" + ("" if low is None else f" >= {low}"))
    return values


def _scaled(obj, what: str) -> tuple:
    """``(numerators, denominator)`` of an array of rationals over one denominator."""
    _need(isinstance(obj, dict), f"{what}: missing")
    d = obj.get("denominator")
    _need(type(d) is int and d >= 1, f"{what}: the denominator is not an integer >= 1")
    return _ints(obj.get("numerators"), what), d


def blocks(cert: dict, pi: list, mu: list, S: int) -> tuple:
    """``(L·S, [b_ij·S or None])`` for ``π = pi/S`` and packing multipliers ``μ = mu/S``, in integers.

    ``None``: the pair's candidate holds fewer than ``k`` rows and is never open (no bound needed)."""
    k, n = cert["k"], cert["rows_per_type"]
    wd, D = cert["cost"]["numerators"], cert["cost"]["denominator"]
    W = [w * (S // D) for w in wd]  # w_j · S
    pt, pc = cert["pairs"]["type"], cert["pairs"]["candidate"]
    rows = cert.get("packing_rows") or {"members": [], "rhs": []}
    m = [0] * len(W)
    for q, members in enumerate(rows["members"]):
        for j in members:
            m[j] += mu[q]
    by_cand: list = [[] for _ in W]
    for p, j in enumerate(pc):
        by_cand[j].append(p)
    forced: list = [None] * len(pt)
    term = [0] * len(W)
    for j, ps in enumerate(by_cand):
        if sum(n[pt[p]] for p in ps) < k:
            continue
        v = {p: W[j] - pi[pt[p]] for p in ps}
        order = sorted(ps, key=v.__getitem__)
        rc = sum(n[pt[p]] * v[p] for p in ps if v[p] < 0)
        units = neg_units = sum(n[pt[p]] for p in ps if v[p] < 0)
        taken, dearest = {p for p in ps if v[p] < 0}, 0
        for p in order:
            if units >= k:
                break
            if v[p] >= 0:
                take = min(n[pt[p]], k - units)
                rc, units, dearest = rc + take * v[p], units + take, v[p]
                taken.add(p)
        for p in ps:  # one unit of the pair forced in: free if taken; else it replaces the dearest or is added
            forced[p] = rc if p in taken else rc + v[p] - (dearest if neg_units < k else 0)
        term[j] = min(0, rc + m[j])
    rhs = rows["rhs"]
    L = sum(pi[i] * n[i] for i in range(len(n))) - sum(r * u for r, u in zip(rhs, mu)) + sum(term)
    return L, [None if f is None else L - term[j] + f + m[j] for f, j in zip(forced, pc)]


def _ticks(x: int, S: int, D: int) -> int:
    """``⌈(x/S)·D⌉``: ``x/S`` rounded up to the grid, counted in steps ``1/D``."""
    return -((-x * D) // S)


def _packing_ok(members, r, held, n, k) -> bool:
    """Whether ``Σ_{j ∈ members} y_j <= r`` holds in every solution (``held[j]``: the types ``j`` can hold)."""
    if sum(n[i] for i in set().union(*(held[j] for j in members))) < (r + 1) * k:
        return True
    return all(sum(n[i] for i in held[a] | held[b]) < 2 * k for x, a in enumerate(members) for b in members[x + 1:])


def check(cert: dict) -> list:
    """Every check of the module docstring, in order; the lines said. Raises :class:`Failed` at the first
    that does not hold."""
    _need(isinstance(cert, dict) and cert.get("format") == "milp-anon certificate 1", "not a certificate (format)")
    k = cert.get("k")
    _need(type(k) is int and k >= 1, "k is not an integer >= 1")
    n = _ints(cert.get("rows_per_type"), "rows_per_type", 1)
    wd, D = _scaled(cert.get("cost"), "cost per row of each candidate")
    pt, pc = _ints(cert["pairs"].get("type"), "pair types", 0), _ints(cert["pairs"].get("candidate"), "pairs", 0)
    _need(len(pt) == len(pc) and all(i < len(n) for i in pt) and all(j < len(wd) for j in pc),
          "pairs: a type or candidate out of range")
    _need(len(set(zip(pt, pc))) == len(pt), "pairs: a pair listed twice")
    _need(cert.get("instance_sha256") == instance_sha256(cert), "instance_sha256 does not match the instance")
    said = [f"instance: {len(n):,} row types ({sum(n):,} rows), {len(wd):,} candidates, {len(pt):,} pairs, k = {k}, "
            f"SHA-256 {cert['instance_sha256']}"]
    rows_of = cert.get("problem", {}).get("n_rows")
    _need(rows_of is None or rows_of == sum(n), f"the row types hold {sum(n)} rows, the table {rows_of}")
    # 1. the assignment (upper side)
    a = cert["assignment"]
    ap, ag = _ints(a.get("pairs"), "assignment pairs", 0), _ints(a.get("rows"), "assignment rows", 1)
    _need(len(ap) == len(ag) and len(set(ap)) == len(ap) and all(p < len(pt) for p in ap),
          "assignment: pairs out of range, repeated, or not one count each")
    placed, held_by = [0] * len(n), {}
    for p, g in zip(ap, ag):
        placed[pt[p]] += g
        held_by[pc[p]] = held_by.get(pc[p], 0) + g
    wrong = [i for i in range(len(n)) if placed[i] != n[i]]
    _need(not wrong, f"assignment: row type {wrong[:1]} has {placed[wrong[0]] if wrong else 0} rows placed, "
                     f"not {n[wrong[0]] if wrong else 0}")
    small = sorted(j for j, g in held_by.items() if g < k)
    _need(not small, f"assignment: candidate {small[:1]} holds {held_by[small[0]] if small else 0} rows < k = {k}")
    cost = sum(g * wd[pc[p]] for p, g in zip(ap, ag))  # in steps 1/D
    objective = Fraction(cert["objective"])
    _need(objective == Fraction(cost, D), f"assignment costs {Fraction(cost, D)}, the certificate says {objective}")
    said.append(f"assignment: every row placed, {len(held_by):,} classes of >= {k} rows, cost {objective}")
    # 2. the packing rows
    rows = cert.get("packing_rows") or {"members": [], "rhs": [], "multipliers": {"numerators": [], "denominator": 1}}
    mu, dmu = _scaled(rows.get("multipliers"), "packing row multipliers")
    members, rhs = rows.get("members"), _ints(rows.get("rhs"), "packing row rhs", 1)
    _need(isinstance(members, list) and len(members) == len(rhs) == len(mu), "packing rows: lengths differ")
    _need(all(v >= 0 for v in mu), "packing rows: a multiplier μ < 0")
    held: list = [set() for _ in wd]
    for i, j in zip(pt, pc):
        held[j].add(i)
    for q, (Q, r) in enumerate(zip(members, rhs)):
        _ints(Q, f"packing row {q}", 0)
        _need(len(set(Q)) == len(Q) and all(j < len(wd) for j in Q), f"packing row {q}: members repeated or absent")
        _need(_packing_ok(Q, r, held, n, k), f"packing row {q} (Σ y_j <= {r} over {Q}) is not valid: its members "
                                             f"can hold {r + 1} groups of k = {k}")
    said.append(f"packing rows: {len(members):,} valid, multipliers μ >= 0")
    # 3. and 4. L(π, μ) and the pair bounds, scaled by S to integers
    pin, dpi = _scaled(cert.get("multipliers"), "multipliers π")
    _need(len(pin) == len(n), f"{len(pin)} multipliers for {len(n)} row types")
    S = math.lcm(D, dpi, dmu)
    L, b = blocks(cert, [x * (S // dpi) for x in pin], [x * (S // dmu) for x in mu], S)
    lower = _ticks(L, S, D)
    said.append(f"L(π, μ) = {Fraction(L, S)} ≈ {float(Fraction(L, S)):,.6f}: OPT >= {Fraction(lower, D)}")
    best: dict = {}
    for p, i in enumerate(pt):
        if b[p] is not None:
            best[i] = min(best.get(i, b[p]), b[p])
    _need(len(best) == len(n), "a row type has no pair of a candidate holding k rows")
    type_bound = max(_ticks(x, S, D) for x in best.values())
    said.append(f"type bound max_i min_j b_ij: OPT >= {Fraction(type_bound, D)}")
    lower = max(lower, type_bound)
    # 5. the rounds
    unconfirmed = []
    for r, rnd in enumerate(cert.get("rounds") or [], 1):
        G = Fraction(rnd["G"])
        _need((G * D).denominator == 1, f"round {r}: G = {G} is not on the grid 1/{D}")
        Gt, K = int(G * D), set(_ints(rnd.get("pairs"), f"round {r} pairs", 0))
        below = [p for p in range(len(pt)) if b[p] is not None and _ticks(b[p], S, D) < Gt]
        cap: dict = {}
        for p in below:
            cap[pc[p]] = cap.get(pc[p], 0) + n[pt[p]]
        out = [p for p in below if cap[pc[p]] >= k and p not in K]
        _need(not out, f"round {r}: pair {out[:1]} has a bound below G = {G} but is not in the restricted model")
        capK: dict = {}
        for p in K:
            _need(p < len(pt), f"round {r}: pair {p} out of range")
            capK[pc[p]] = capK.get(pc[p], 0) + n[pt[p]]
        covered = {pt[p] for p in K if capK[pc[p]] >= k}
        if len(covered) < len(n):
            said.append(f"round {r}: {len(K):,} pairs hold every pair below G; a row type has none: OPT >= {G}")
            lower = max(lower, Gt)
            continue
        eng = rnd.get("engine") or {}
        if eng.get("confirmed") is True:
            reach = min(Fraction(eng["claim"]), G)
            said.append(f"round {r}: {len(K):,} pairs hold every pair below G = {G}; {eng.get('engine')} confirmed "
                        f"OPT(K) >= {eng['claim']} (on trust): OPT >= {reach}")
            lower = max(lower, math.ceil(reach * D))
        else:
            unconfirmed.append(r)
            said.append(f"round {r}: {len(K):,} pairs hold every pair below G = {G}; OPT(K) NOT confirmed")
    # 6. the bounds against the objective
    _need(lower <= cost, f"the lower bound {Fraction(lower, D)} exceeds the assignment's cost {objective}: "
                         "contradiction")
    _need(lower == cost, f"the lower bound {Fraction(lower, D)} does not reach the objective {objective}"
                         + (f" (round {unconfirmed} not confirmed by a second engine)" if unconfirmed else ""))
    claimed = cert.get("lower_bound")
    _need(claimed is None or Fraction(claimed) <= Fraction(lower, D), f"claimed lower bound {claimed} not shown")
    said.append(f"OPTIMAL: the lower bound reaches the assignment's cost {objective}")
    return said


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Check a milp-anon optimality certificate (exact arithmetic).")
    parser.add_argument("certificate", metavar="CERT.json")
    parser.add_argument("--quiet", action="store_true", help="only the verdict line")
    args = parser.parse_args(argv)
    try:
        with open(args.certificate, encoding="utf-8") as fh:
            cert = json.load(fh)
    except (OSError, ValueError) as exc:
        print(f"certificate_check: cannot read {args.certificate}: {exc}", file=sys.stderr)
        return 2
    try:
        said = check(cert)
    except Failed as exc:
        print(f"FAIL: {exc}")
        return 1
    except (KeyError, TypeError, ValueError, ZeroDivisionError, AttributeError) as exc:
        print(f"FAIL: malformed certificate ({type(exc).__name__}: {exc})")
        return 1
    print("\n".join(said if not args.quiet else said[-1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
