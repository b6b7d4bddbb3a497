"""Cross-check released tables against pycanon, an independent implementation.

pycanon pins old numpy/pandas, so it lives in its own virtual environment;
``make test`` creates it and sets ``MILP_ANON_PYCANON``. pycanon treats ``*``
as an ordinary value, which is exactly the released classes' semantics.
It computes t-closeness with ordered distance for numeric columns and equal
distance for text columns.
"""

import json
import os
import subprocess
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import milp_anon as ma
from milp_anon.privacy.verify import emd_equal, emd_ordered
from milp_anon.tables.datasets import load_adult

PYCANON = os.environ.get("MILP_ANON_PYCANON")
pytestmark = pytest.mark.skipif(not PYCANON, reason="MILP_ANON_PYCANON not set (make test sets it)")


def our_measures(frame, qi, s, numeric):
    """k, distinct l and max EMD of a released table, from the definitions (exact)."""
    classes = frame.groupby(qi).indices.values()
    vals = frame[s].to_numpy()
    dom = sorted(set(vals), key=(lambda v: int(v)) if numeric else None)
    n = len(frame)
    P = [Fraction(int((vals == v).sum()), n) for v in dom]
    emd = emd_ordered if numeric else emd_equal
    ks, ls, ts = [], [], []
    for rows in classes:
        ks.append(len(rows))
        ls.append(len(set(vals[rows])))
        Q = [Fraction(int((vals[rows] == v).sum()), len(rows)) for v in dom]
        ts.append(emd(P, Q))
    return min(ks), min(ls), float(max(ts))


def cases():
    adult = load_adult()
    sub = adult.iloc[::10].reset_index(drop=True)  # 3,017 rows
    age_num = sub.assign(agegroup=(sub["age"].astype(int) // 20).astype(str))
    rng = np.random.default_rng(7)
    small = pd.DataFrame({"a": rng.choice(list("xyz"), 60), "b": rng.choice(list("uv"), 60),
                          "c": rng.choice(list("pqr"), 60), "s": rng.choice(list("12345"), 60)})
    return [
        ("adult k=5", sub, ["sex", "race", "marital-status"], "occupation", False, [ma.KAnonymity(5)]),
        ("adult k=3 l=3", sub, ["sex", "race", "marital-status"], "occupation", False,
         [ma.KAnonymity(3), ma.LDiversity(3, kind="distinct")]),
        ("adult t=0.3 equal", adult.iloc[::50].reset_index(drop=True), ["sex", "race", "salary-class"],
         "occupation", False, [ma.KAnonymity(2), ma.TCloseness(0.3)]),
        ("adult t=0.1 ordered", age_num, ["sex", "race", "salary-class"], "agegroup", True,
         [ma.KAnonymity(2), ma.TCloseness(0.1, distance="ordered")]),
        ("random k+l+t", small, ["a", "b", "c"], "s", True,
         [ma.KAnonymity(3), ma.LDiversity(2, kind="distinct"), ma.TCloseness(0.3, distance="ordered")]),
        ("random t equal", small, ["a", "b", "c"], "s", False, [ma.TCloseness(0.25)]),
    ]


def test_released_tables_agree_with_pycanon(tmp_path):
    jobs, expected = [], []
    for i, (name, frame, qi, s, numeric, crits) in enumerate(cases()):
        table = ma.Table.from_frame(frame[qi + [s]], qi, s)
        r = ma.anonymize(table, *crits, time_limit=120)
        assert r.status == "optimal", (name, r.summary())
        path = tmp_path / f"r{i}.csv"
        r.table.to_csv(path, sep=";", index=False)
        jobs.append({"csv": str(path), "sep": ";", "qi": qi, "sensitive": s, "numeric": numeric})
        expected.append((name, crits, our_measures(r.table, qi, s, numeric)))
    spec = tmp_path / "jobs.json"
    spec.write_text(json.dumps(jobs))
    proc = subprocess.run([PYCANON, os.path.join(os.path.dirname(__file__), "pycanon_runner.py"), str(spec)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    for (name, crits, (k, l_, t)), pc in zip(expected, got):
        # the same numbers from two implementations
        assert pc["k"] == k, name
        assert pc["l"] == l_, name
        assert pc["t"] == pytest.approx(t, abs=1e-9), name
        # and the requested criteria hold by pycanon's measure
        for c in crits:
            if isinstance(c, ma.KAnonymity):
                assert pc["k"] >= c.k, name
            elif isinstance(c, ma.LDiversity):
                assert pc["l"] >= c.l, name
            elif isinstance(c, ma.TCloseness):
                assert pc["t"] <= c.t + 1e-9, name
