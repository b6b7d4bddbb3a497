"""The sweep's Dask scratch space (issue 94's fault battery found it): a local cluster left
``dask-scratch-space`` in the temporary directory after every ``bench`` run, and after SIGTERM its
scheduler's and workers' directories too. It is now a directory of the run's own, removed at the end and
by SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from test_bad_input import ENV

pytest.importorskip("distributed")

SUITE = """[suite]
name = "scratch"
time_limit = 20
workers = 2

[[instance]]
kind = "synthetic"
n = [8, 9, 10, 11, 12, 13]
m = 3
alphabet = 2
seed = 0
k = 2

[[method]]
name = "milp"
[[method]]
name = "brute_force"
max_rows = 12
"""


def _bench(tmp_path):
    (tmp_path / "suite.toml").write_text(SUITE)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    cmd = [sys.executable, "-m", "milp_anon", "bench", "suite.toml", "--out", "out"]
    return cmd, {**ENV, "TMPDIR": str(tmp)}, tmp


def test_bench_leaves_nothing_in_the_temporary_directory(tmp_path):
    cmd, env, tmp = _bench(tmp_path)
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert os.listdir(tmp) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals")
def test_sigterm_during_bench_leaves_nothing_in_the_temporary_directory(tmp_path):
    cmd, env, tmp = _bench(tmp_path)
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not any(  # the cluster's workers have their directories
                "worker-" in name for _, dirs, _ in os.walk(tmp) for name in dirs):
            time.sleep(0.1)
        assert proc.poll() is None, "the sweep ended before the signal"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM, err
    time.sleep(2)  # the cluster's processes end with the run
    assert os.listdir(tmp) == []
