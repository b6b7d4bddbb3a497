"""Bad input gets one clear error naming the cause; the input is never modified."""

import numpy as np
import pandas as pd
import pytest

import milp_anon as ma
from milp_anon.runtime.errors import InputError


def frame():
    return pd.DataFrame({"a": ["1", "2", "1"], "b": ["x", "x", "y"], "s": ["p", "q", "r"]})


@pytest.mark.parametrize(
    "qi,sensitive,match",
    [
        (["a", "zz"], None, "not in the table: zz"),
        ([], None, "quasi-identifier list is empty"),
        (["a", "a"], None, "named twice"),
        (["a"], "a", "both quasi-identifier and sensitive"),
        (["a"], "nope", "sensitive column"),
    ],
)
def test_bad_roles(qi, sensitive, match):
    with pytest.raises(InputError, match=match):
        ma.Table.from_frame(frame(), qi, sensitive)


def test_empty_table():
    with pytest.raises(InputError, match="no rows"):
        ma.Table.from_frame(frame().iloc[:0], ["a"])


@pytest.mark.parametrize("bad", [np.nan, None, ""])
def test_empty_cells_rejected(bad):
    f = frame().astype(object)
    f.loc[1, "b"] = bad
    with pytest.raises(InputError, match=r"empty cell in column 'b' at data row 2"):
        ma.Table.from_frame(f, ["a", "b"])


def test_empty_cell_in_carried_column_is_fine():
    f = frame().astype(object)
    f.loc[1, "s"] = None
    t = ma.Table.from_frame(f, ["a", "b"])
    r = ma.anonymize(t, ma.KAnonymity(1))
    assert r.table["s"].isna().sum() == 1


def test_star_in_input_rejected():
    f = frame()
    f.loc[0, "a"] = "*"
    with pytest.raises(InputError, match="suppression marker"):
        ma.Table.from_frame(f, ["a", "b"])


def test_duplicate_columns_rejected():
    f = pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"])
    with pytest.raises(InputError, match="duplicate column"):
        ma.Table.from_frame(f, ["a"])


def test_input_frame_not_modified():
    f = pd.DataFrame({"a": [1, 2, 1, 2], "b": ["x", "y", "y", "x"]})
    before = f.copy()
    r = ma.anonymize(ma.Table.from_frame(f, ["a", "b"]), ma.KAnonymity(2))
    pd.testing.assert_frame_equal(f, before)
    assert r.status == "optimal"
    # non-string QI values are released as their string form
    assert set(r.table["a"]) <= {"1", "2", "*"}


@pytest.mark.parametrize("k", [0, -1, 2.5, "3", True])
def test_bad_k(k):
    with pytest.raises(InputError, match="k must"):
        ma.KAnonymity(k)


@pytest.mark.parametrize(
    "kw,match",
    [
        (dict(gap=1.5), "relative gap"),
        (dict(gap=-0.1), "relative gap"),
        (dict(time_limit=0), "time limit"),
        (dict(threads=0), "threads"),
        (dict(solver="NOPE"), "unknown solver"),
    ],
)
def test_bad_solver_options(kw, match):
    t = ma.Table.from_frame(frame(), ["a"])
    with pytest.raises(InputError, match=match):
        ma.anonymize(t, ma.KAnonymity(1), **kw)


def test_csv_reading(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes(b"a;b;c\r\n1;x;007\r\n\r\n2;y;\r\n1;x;3")
    f = ma.read_csv(p, sep=";")
    assert list(f.columns) == ["a", "b", "c"]
    assert f["c"].tolist() == ["007", "", "3"]  # strings, leading zeros kept, no NaN
    assert len(f) == 3


def test_ragged_csv(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("a;b\n1;2\n3\n")
    with pytest.raises(InputError, match="line 3 has 1 fields, the header has 2"):
        ma.read_csv(p, sep=";")


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        ma.read_csv(tmp_path / "nope.csv")


def test_model_too_large_is_refused_before_building(monkeypatch):
    from milp_anon.runtime import memory

    monkeypatch.setattr(memory, "pair_limit", lambda gb: None)  # the models' check here; the layer's: test_sizing

    f = pd.DataFrame({"a": list("abcdefgh") * 4, "b": list("01") * 16})
    t = ma.Table.from_frame(f, ["a", "b"])
    with pytest.raises(ma.ModelTooLargeError, match=r"would need about .* GiB"):
        ma.anonymize(t, ma.KAnonymity(2), max_memory_gb=1e-9, reduction="none")
    # the reduction builds no model when the LP rounding's table meets the bound: optimal, nothing refused
    r = ma.anonymize(t, ma.KAnonymity(2), max_memory_gb=1e-9)
    assert r.status == "optimal" and r.verified and not r.reduction.rounds
    # and when a round is needed it degrades instead: a verified table labelled time_limit
    r = ma.anonymize(t, ma.KAnonymity(2), max_memory_gb=1e-9, tuning=ma.Tuning(lp_rounding=False))
    assert r.status in ("time_limit", "optimal") and r.verified and "GiB" in r.solver_status
