"""The users' workflow: --version, '-' for stdin/stdout, --quiet, progress lines, provenance, .gz input,
one-line reprs, Ctrl-C, HiGHS options, and the README's Python blocks run as written."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from test_bad_input import ENV, FILES, ROOT, SOLVE, TABLE, run_cli

import milp_anon as ma
from milp_anon.runtime.progress import Progress, ProgressPrinter
from milp_anon.tables.datasets import adult_hierarchy_path, adult_path, load_adult

QI5 = "sex,age,race,marital-status,education"


@pytest.fixture
def workdir(tmp_path):
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


@pytest.fixture(scope="module")
def adult_csv(tmp_path_factory):
    p = tmp_path_factory.mktemp("adult") / "adult.csv"
    load_adult().to_csv(p, index=False)
    return p


def test_version(workdir):
    proc = run_cli(["--version"], workdir)
    assert proc.returncode == 0 and proc.stdout.strip() == f"milp-anon {ma.__version__}"


def test_stdin_in_stdout_out_summary_on_stderr(workdir):
    proc = subprocess.run([sys.executable, "-m", "milp_anon", "solve", "-", "--qi", "sex,age,race", "--k", "2",
                           "--out", "-"], input=TABLE, cwd=workdir, env=ENV, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    released = pd.read_csv(__import__("io").StringIO(proc.stdout), dtype=str)
    assert list(released.columns) == ["sex", "age", "race", "occ", "note"] and len(released) == 8
    assert "status        optimal" in proc.stderr
    assert sorted(os.listdir(workdir)) == sorted(FILES)  # nothing written besides stdout


def test_report_to_stdout_with_provenance(workdir):
    proc = run_cli([*SOLVE, "--report", "-"], workdir)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    prov = report["provenance"]
    for key in ("milp_anon_version", "highs_version", "input_sha256", "argv", "started_at"):
        assert prov[key], key
    import hashlib

    assert prov["input_sha256"] == hashlib.sha256(FILES["t.csv"]).hexdigest()
    assert prov["argv"][-2:] == ["--report", "-"] and prov["machine"]["cpus"] >= 1
    assert sum(report["cost_by_column"].values()) == report["objective"]
    assert report["class_sizes"]["min"] >= 2


def test_quiet_prints_nothing(workdir):
    proc = run_cli([*SOLVE, "--quiet"], workdir)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert (workdir / "out.csv").exists()


def test_gzip_input_read_directly(workdir):
    (workdir / "t.csv.gz").write_bytes(gzip.compress(FILES["t.csv"]))
    proc = run_cli(["solve", "t.csv.gz", *SOLVE[2:]], workdir)
    assert proc.returncode == 0, proc.stderr
    plain = ma.Table.from_csv(workdir / "t.csv", "sex,age")
    packed = ma.Table.from_csv(workdir / "t.csv.gz", "sex,age")
    assert plain.frame.equals(packed.frame)
    assert ma.Table.from_csv(adult_path(), "sex,age", sep=";").n == 30162


def test_highs_option_passes_and_a_bad_one_is_refused(workdir):
    ok = run_cli([*SOLVE, "--highs-option", "random_seed=7", "--highs-option", "mip_heuristic_effort=0.2"], workdir)
    assert ok.returncode == 0, ok.stderr
    for bad in ("nope=1", "random_seed=x", "random_seed"):
        proc = run_cli([*SOLVE, "--highs-option", bad], workdir)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "HiGHS" in proc.stderr, proc.stderr


def test_log_file_keeps_the_highs_log(workdir):
    proc = run_cli([*SOLVE, "--reduce", "none", "--log", "h.log"], workdir)
    assert proc.returncode == 0, proc.stderr
    assert "HiGHS" in (workdir / "h.log").read_text()
    assert "Running HiGHS" not in proc.stdout + proc.stderr  # the log goes to the file only, without --verbose


def test_verbose_log_goes_to_stderr_not_stdout(workdir):
    proc = run_cli([*SOLVE, "--reduce", "none", "--verbose"], workdir)
    assert proc.returncode == 0
    # HiGHS's log of the solve ("MIP has 45 rows; …" under 1.15 and 1.16; 1.16 prints its "Running HiGHS"
    # banner when the process makes its first Highs object, which milp_anon.solvers.highs_banner discards)
    assert "MIP has " in proc.stderr and "MIP has " not in proc.stdout and "Running HiGHS" not in proc.stdout


def test_reprs_are_one_line():
    table = ma.Table.from_frame(load_adult(), ["sex", "age"])
    rec = ma.Generalization({"age": adult_hierarchy_path("age")}, cost="lm")
    result = ma.anonymize(table, ma.KAnonymity(5), recoding=rec)
    for obj in (table, rec, rec.hierarchies["age"], result):
        text = repr(obj)
        assert "\n" not in text and len(text) < 200, text


def test_progress_callback_sees_phases_and_bounds():
    table = ma.Table.from_frame(load_adult(), ["sex", "age", "race"])
    seen: list[Progress] = []
    result = ma.anonymize(table, ma.KAnonymity(5), progress=seen.append)
    phases = {p.phase for p in seen}
    assert {"collapse", "candidates"} <= phases
    assert any(p.bound is not None for p in seen)
    assert all(p.bound is None or p.bound <= result.objective + 1e-6 for p in seen)  # bounds are valid
    assert all(b.elapsed >= a.elapsed for a, b in zip(seen, seen[1:]))


def test_printer_writes_a_line_every_period_when_not_a_terminal():
    import io

    stream = io.StringIO()
    with ProgressPrinter(stream, every=0.2, live=False) as printer:
        printer(Progress(phase="solve", elapsed=0.1, incumbent=10, bound=5))
        time.sleep(0.7)
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 3 and all(line.startswith("milp-anon:") and "incumbent 10" in line for line in lines)
    assert "gap 50 %" in lines[0]


def _progress_times(stderr):
    return [float(m.group(1)) for m in re.finditer(r"milp-anon:\s+([\d.]+) s ", stderr)]


def test_a_long_solve_prints_progress_at_least_every_10_s(adult_csv, tmp_path):
    """The contract: stderr not a terminal, a solve over 10 s: a progress line at least every 10 s."""
    t0 = time.monotonic()
    proc = run_cli(["solve", str(adult_csv), "--qi", QI5, "--k", "10", "--reduce", "none", "--time-limit", "12",
                    "--out", "o.csv"], tmp_path)
    wall = time.monotonic() - t0
    assert proc.returncode in (0, 4), proc.stderr
    times = _progress_times(proc.stderr)
    assert times and times[0] <= 10
    assert all(b - a <= 10 for a, b in zip(times, times[1:]))
    assert wall - times[-1] <= 10 + 15  # the last line is not long before the end (verification follows)
    assert all("incumbent" in line and "bound" in line for line in proc.stderr.splitlines()
               if line.startswith("milp-anon:") and " s " in line)


def test_ctrl_c_releases_the_best_verified_table(adult_csv, tmp_path):
    cli = subprocess.Popen([sys.executable, "-m", "milp_anon", "solve", str(adult_csv), "--qi", QI5, "--k", "10",
                            "--reduce", "none", "--out", "o.csv", "--report", "r.json"], cwd=tmp_path, env=ENV,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(8)  # inside HiGHS by now
    cli.send_signal(signal.SIGINT)
    out, err = cli.communicate(timeout=60)
    assert cli.returncode == 4, err
    assert "stopping at the user's request" in err and "Traceback" not in err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["status"] == "time_limit" and report["verified"]
    released = pd.read_csv(tmp_path / "o.csv", dtype=str)
    assert len(released) == 30162


def _readme_blocks():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_readme_python_blocks_run_as_written(tmp_path, monkeypatch):
    """Every Python block of the README, in order, in one namespace, as a reader would paste them."""
    blocks = _readme_blocks()
    assert len(blocks) >= 3
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for i, block in enumerate(blocks):
        t0 = time.perf_counter()
        exec(compile(block, f"README.md python block {i + 1}", "exec"), namespace)
        assert time.perf_counter() - t0 < 120, f"block {i + 1} runs minutes"
    assert isinstance(namespace.get("result"), ma.Result)
