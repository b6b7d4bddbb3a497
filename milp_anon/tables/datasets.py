"""Bundled datasets (package data; see ``data/adult/NOTICE.md`` for attribution)."""

from __future__ import annotations

import gzip
import io
from importlib import resources

import pandas as pd

from milp_anon.tables.table import parse_csv

ADULT_COLUMNS = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass",
                 "occupation", "salary-class")
#: QI order of the ARX benchmark and of the benchmarks in this repository
ADULT_QI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass",
            "salary-class")


def _data(name: str):
    return resources.files("milp_anon").joinpath("data", "adult", name)


def load_adult() -> pd.DataFrame:
    """UCI Adult as prepared by ARX: 30,162 rows, 9 columns, every value a string."""
    raw = gzip.decompress(_data("adult.csv.gz").read_bytes()).decode("utf-8")
    return parse_csv(io.StringIO(raw, newline=""), sep=";", name="adult.csv")


def adult_path() -> str:
    """Path of the bundled Adult table, ``adult.csv.gz`` (``;``-separated; ``Table.from_csv`` reads it as is)."""
    with resources.as_file(_data("adult.csv.gz")) as p:
        return str(p)


def adult_hierarchy_path(column: str) -> str:
    """Path of the bundled ARX hierarchy file of an Adult column."""
    if column not in ADULT_COLUMNS:
        raise KeyError(column)
    with resources.as_file(_data(f"adult_hierarchy_{column}.csv")) as p:
        return str(p)
