"""The solver child, signals, closed pipes, the umask and unwritable directories.

Each test runs the toolkit in a subprocess, as a user's script or shell would.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time

import pytest
from test_bad_input import ENV, FILES, ROOT, SOLVE, run_cli, snapshot

HELPERS = os.path.join(ROOT, "tests")


def _state(stat_path: str) -> str:
    """The one-letter state in a /proc ``stat`` file (after the parenthesized command name)."""
    with open(stat_path) as fh:
        return fh.read().rsplit(")", 1)[1].split()[0]


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        return _state(f"/proc/{pid}/stat") != "Z"
    except FileNotFoundError:
        return False


def children(pid: int) -> list[int]:
    out = []
    for task in os.listdir(f"/proc/{pid}/task") if os.path.isdir(f"/proc/{pid}/task") else []:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as fh:
            out += [int(c) for c in fh.read().split()]
    return out


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def _states(pid: int) -> str:
    """Each thread's state and kernel wait channel, and the signal masks: what a stuck process is doing."""
    out = []
    with contextlib.suppress(OSError):
        with open(f"/proc/{pid}/status") as fh:
            out += [line.strip() for line in fh if line.startswith(("State", "Sig", "Shd"))]
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/wchan") as wc:
                out.append(f"task {task}: {_state(f'/proc/{pid}/task/{task}/stat')} in {wc.read()}")
    return "; ".join(out)


def wait_for(cond, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


linux_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc to find children")


@pytest.fixture
def workdir(tmp_path):
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


def test_a_script_without_main_guard_finishes(tmp_path):
    """The isolated child never imports the user's __main__ (spawn did, and the parent then waited forever)."""
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent("""
        import pandas as pd
        import milp_anon as ma
        frame = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx")})
        table = ma.Table.from_frame(frame, ["a", "b"])
        isolated = ma.anonymize(table, ma.KAnonymity(3), time_limit=30, isolate="always")
        here = ma.anonymize(table, ma.KAnonymity(3), isolate="never")
        print(isolated.status, isolated.objective == here.objective, isolated.verified)
    """))
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["optimal", "True", "True"]
    assert "Traceback" not in proc.stderr


HANGING = textwrap.dedent("""
    import signal
    import sys
    # a parent that does not handle the signal, even where the test runs under nohup (SIGHUP inherited as ignored)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.path.insert(0, {helpers!r})
    import pandas as pd
    import milp_anon as ma
    from milp_anon.pipeline import solve as pipeline
    from milp_anon.runtime.grid import ObjectiveGrid
    from milp_anon.solvers.isolated import solve_isolated
    from helpers import hanging_solve
    frame = pd.DataFrame({{"a": list("aabbccddab"), "b": list("xyxyxyxyxx")}})
    am = pipeline.build_model(ma.Table.from_frame(frame, ["a", "b"]), ma.Request(ma.KAnonymity(3)))
    print("solving", flush=True)
    solve_isolated(am.lm, ma.SolverOptions(time_limit=300), ObjectiveGrid(1), None, solve_fn=hanging_solve)
""")


@linux_proc
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGHUP])
def test_the_solver_child_ends_with_its_parent(tmp_path, sig):
    """Whatever ends the parent — a signal it does not handle, or SIGKILL — ends the HiGHS child too."""
    script = tmp_path / "hang.py"
    script.write_text(HANGING.format(helpers=HELPERS))
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    parent = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, env={**ENV, "TMPDIR": str(tmpdir)},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert parent.stdout.readline().strip() == "solving"
        assert wait_for(lambda: children(parent.pid), 30), "no solver child started"
        (child,) = children(parent.pid)
        # signal once the child runs the worker, not in the fork-exec window where the parent blocks signals
        assert wait_for(lambda: b"milp_anon.solvers.worker" in _cmdline(child), 30), "the child never became the worker"
        parent.send_signal(sig)
        try:
            parent.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the parent outlived {sig.name} by 60 s: {_states(parent.pid)}")
        assert wait_for(lambda: not alive(child), 10), "the solver child outlived its parent"
        assert os.listdir(tmpdir) == []  # the model's temporary file went with them
    finally:
        parent.kill()
        parent.wait()


def _adult_csv(path):
    from milp_anon.tables.datasets import load_adult

    load_adult().to_csv(path, index=False)


@linux_proc
def test_sigterm_ends_the_cli_its_child_and_its_temporary_files(tmp_path):
    """SIGTERM during an isolated solve with --mps staged: exit 143, one line, no process, no file left."""
    _adult_csv(tmp_path / "adult.csv")
    before = snapshot(tmp_path)
    cli = subprocess.Popen([sys.executable, "-m", "milp_anon", "solve", "adult.csv", "--qi",
                            "sex,age,race,marital-status,education", "--k", "10", "--out", "out.csv",
                            "--report", "r.json", "--mps", "m.mps", "--reduce", "none", "--isolate", "always",
                            "--time-limit", "200"], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: children(cli.pid), 120), "no solver child started"
        (child,) = children(cli.pid)
        assert [f for f in os.listdir(tmp_path) if f.startswith(".milp-anon-")]  # the MPS, staged
        cli.send_signal(signal.SIGTERM)
        out, err = cli.communicate(timeout=30)
    finally:
        cli.kill()
        cli.wait()
    assert cli.returncode == 128 + signal.SIGTERM
    assert err.splitlines() == ["milp-anon: stopped by SIGTERM"]
    assert wait_for(lambda: not alive(child), 10)
    assert snapshot(tmp_path) == before  # no output, no hidden temporary file


@linux_proc
def test_under_nohup_a_hangup_does_not_end_the_run(workdir):
    """`nohup milp-anon solve ...`: SIGHUP inherited as ignored stays ignored; the run finishes and writes its table.
    The whole model (``--reduce none``): the reduction proves this table without a solver round (its clique bound
    meets the LP rounding's table), so it would start no child."""
    cli = subprocess.Popen([sys.executable, "-m", "milp_anon", *SOLVE, "--reduce", "none", "--isolate", "always",
                            "--time-limit", "60"],
                           cwd=workdir, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    try:
        # the solver child exists only after the command line installed its signal handlers
        assert wait_for(lambda: children(cli.pid), 60), "no solver child started"
        cli.send_signal(signal.SIGHUP)
        out, err = cli.communicate(timeout=120)
    finally:
        cli.kill()
        cli.wait()
    assert cli.returncode == 0, err
    assert "stopped by" not in err
    assert (workdir / "out.csv").read_text().startswith("sex,age,race,occ,note")


def test_a_closed_stdout_loses_nothing(workdir):
    """`milp-anon solve ... | head -1`: the table and the report are written first; exit 0, no traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "milp_anon", *SOLVE, "--report", "r.json"], cwd=workdir, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader went away before anything was printed
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert err == ""
    assert (workdir / "out.csv").read_text().startswith("sex,age,race,occ,note")
    assert '"status": "optimal"' in (workdir / "r.json").read_text()


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_outputs_honour_the_umask(workdir, umask):
    proc = run_cli([*SOLVE, "--report", "r.json", "--mps", "m.mps"], workdir, preexec_fn=lambda: os.umask(umask))
    assert proc.returncode == 0, proc.stderr
    for name in ("out.csv", "r.json", "m.mps"):
        assert stat.S_IMODE(os.stat(workdir / name).st_mode) == 0o666 & ~umask, name


@pytest.fixture
def readonly_dir(tmp_path):
    """A directory nobody, root included, can create a file in: mode 555, or ``chattr +i`` as root."""
    d = tmp_path / "ro"
    d.mkdir()
    if os.geteuid() != 0:
        d.chmod(0o555)
        undo = ["chmod", "755", str(d)]
    else:
        try:
            subprocess.run(["chattr", "+i", str(d)], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError):
            pytest.skip("running as root without chattr +i: no way to make a directory read-only for root")
        undo = ["chattr", "-i", str(d)]
    try:
        yield d
    finally:
        subprocess.run(undo, check=False)


@pytest.mark.parametrize("option", ["--out", "--report", "--mps", "--lp"])
def test_an_unwritable_output_is_refused_before_solving(workdir, readonly_dir, option):
    args = [*SOLVE[:-2], "--out", "out.csv"]
    target = str(readonly_dir / "x")
    args = [*SOLVE[:-2], "--out", target] if option == "--out" else [*args, option, target]
    before = snapshot(workdir)
    proc = run_cli(args, workdir)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "cannot write in" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""  # refused before any work
    assert snapshot(workdir) == before


def test_gap_report_unwritable_is_refused_before_solving(workdir, readonly_dir):
    proc = run_cli(["gap", "t.csv", "anon.csv", "--qi", "sex,age,race", "--k", "2", "--report",
                    str(readonly_dir / "r.json")], workdir)
    assert proc.returncode == 2 and "cannot write in" in proc.stderr and proc.stdout == ""
