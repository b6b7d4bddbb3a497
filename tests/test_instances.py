"""The committed instance library (benchmarks/instances/): its index, its files, its optima, its regeneration."""

from __future__ import annotations

import csv
import hashlib
import os
import time

import highspy
import pytest

from milp_anon.bench import load_suite
from milp_anon.bench.export import INDEX_FIELDS, export_suite

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, "benchmarks", "instances")
SUITE = os.path.join(ROOT, "benchmarks", "suites", "library.toml")


def _index():
    with open(os.path.join(LIB, "index.csv"), newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _sha(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def test_index_columns_files_and_hashes():
    rows = _index()
    assert rows and set(INDEX_FIELDS) <= set(rows[0]) and {"name", "file", "sha256", "status", "objective",
                                                            "bound"} <= set(rows[0])
    assert len({r["name"] for r in rows}) == len(rows)
    for r in rows:
        assert r["status"] in ("optimal", "time_limit")
        assert _sha(os.path.join(LIB, r["file"])) == r["sha256"], r["name"]
        assert float(r["bound"]) <= float(r["objective"]) + 1e-9
        if r["status"] == "optimal":
            assert float(r["bound"]) == float(r["objective"])


@pytest.mark.parametrize("row", [r for r in _index() if r["status"] == "optimal"], ids=lambda r: r["name"])
def test_highs_alone_reproduces_each_optimum(row):
    """Read by HiGHS alone (presolve off, no milp-anon code): the index's optimum."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    h.setOptionValue("time_limit", 120.0)
    assert h.readModel(os.path.join(LIB, row["file"])) == highspy.HighsStatus.kOk
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    assert h.getInfo().objective_function_value == pytest.approx(float(row["objective"]), rel=1e-9, abs=1e-6)


def test_export_regenerates_the_files_byte_identically(tmp_path):
    """A fresh export (another process, another hash seed than the committed one) gives the same bytes."""
    suite = load_suite(SUITE)
    t0 = time.perf_counter()
    export_suite(suite, str(tmp_path), solve_limit=None, compress=True, log=lambda *a: None)
    assert time.perf_counter() - t0 < 120
    committed = {r["file"]: r["sha256"] for r in _index()}
    fresh = [f for f in os.listdir(tmp_path) if f.endswith(".mps.gz")]
    assert len(fresh) == len(suite.instances) == len(committed)
    for f in fresh:
        assert _sha(tmp_path / f) == committed[f], f
