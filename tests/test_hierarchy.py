"""ARX hierarchy files: validation with clear messages."""

import pytest

from milp_anon.runtime.errors import InputError
from milp_anon.tables.hierarchy import Hierarchy


def write(tmp_path, text, name="h.csv"):
    p = tmp_path / name
    p.write_bytes(text.encode())
    return p


def test_reads_arx_format_with_crlf(tmp_path):
    h = Hierarchy.from_csv(write(tmp_path, "flu;resp;*\r\ncold;resp;*\r\ncancer;other;*"))
    assert h.height == 2 and h.root == "*"
    assert h.lca_level("flu", "cold") == 1 and h.lca_level("flu", "cancer") == 2
    assert h.distance_matrix(["flu", "cold", "cancer"]).tolist() == [[0, 0.5, 1], [0.5, 0, 1], [1, 1, 0]]


@pytest.mark.parametrize(
    "text,match",
    [
        ("a;x;*\nb;*\n", "ragged rows"),
        ("a;x;*\nb;y;top\n", "2 roots"),
        # a leaf named like an inner node: a released 'x' could be the value x or a generalized a
        ("a;x;*\nb;y;*\nx;z;*\n", "ambiguous"),
        ("30;31;*\n31;30;*\n", "ambiguous"),  # paths that cross
        ("a;a;*\nb;b;*\n", "ambiguous"),  # a value repeated one level up
        ("a;x;*\na;y;*\n", "listed twice"),
        ("a;x;r1\nb;x;r2\n", "not a tree"),
        ("a\nb\n", "single level"),
        ("a;;*\n", "empty field"),
    ],
)
def test_malformed(tmp_path, text, match):
    p = write(tmp_path, text)
    if match is None:
        Hierarchy.from_csv(p)
        return
    with pytest.raises(InputError, match=match):
        Hierarchy.from_csv(p)


def test_missing_value_names_value_column_and_file(tmp_path):
    p = write(tmp_path, "a;x;*\nb;x;*\n", "disease.csv")
    h = Hierarchy.from_csv(p)
    with pytest.raises(InputError, match=r"value 'c' of column 'd' is not in the hierarchy .*disease.csv"):
        h.check_values(["a", "c"], "d")


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        Hierarchy.from_csv(tmp_path / "nope.csv")
