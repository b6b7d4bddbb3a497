"""milp_anon.solvers.highs_banner: no HiGHS banner on standard output, piped or not; no run on the calling thread
refused for its thread count."""

import json
import os
import subprocess
import sys
from importlib import metadata

import pandas as pd
import pytest
from helpers import SENS_HIERARCHY, brute

import milp_anon as ma
from milp_anon.exact import divide_and_conquer
from milp_anon.solvers.highs_banner import new_highs, run_here

ROOT = os.path.join(os.path.dirname(__file__), "..")
HIGHS_116 = tuple(int(x) for x in metadata.version("highspy").split(".")[:2]) >= (1, 16)


def _stdout(code: str) -> str:
    """What ``code`` prints in a fresh process (the package and ``tests/`` importable); it must exit 0."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "tests")]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


# A fresh process's calling thread first runs HiGHS on two threads, as a first run at HiGHS's default leaves it on a
# machine of three cores or more (HiGHS 1.15; two or more from 1.16).
_TWO_THREADS_FIRST = ("import highspy\n"
                      "from milp_anon.solvers.highs_banner import new_highs\n"
                      "first = new_highs(); first.setOptionValue('threads', 2); first.addVar(0.0, 1.0)\n"
                      "assert first.run() == highspy.HighsStatus.kOk\n")


@pytest.mark.skipif(not HIGHS_116, reason="HiGHS before 1.16 prints no banner")
def test_highs_itself_prints_its_banner_on_stdout():
    """What the module guards against (so the next test can fail): a plain first ``Highs()`` prints."""
    assert "HiGHS" in _stdout("import highspy; highspy.Highs(); print('after')")


def test_new_highs_prints_nothing_and_keeps_what_python_printed_first():
    out = _stdout("from milp_anon.solvers.highs_banner import new_highs\n"
                  "print('before', end='')\n"
                  "h = new_highs(); new_highs(); import highspy; highspy.Highs()\n"
                  "print(' after')")
    assert out == "before after\n"


@pytest.mark.parametrize("via_pulp", [False, True])
def test_a_solve_prints_only_what_the_caller_prints(via_pulp):
    """In bulk through highspy, and through PuLP's HiGHS (which makes its own ``Highs``), each the first
    HiGHS object of its process."""
    out = _stdout("import milp_anon as ma, pandas as pd\n"
                  "f = pd.DataFrame({'a': list('aabbc'), 'b': list('xyxyx')})\n"
                  f"r = ma.anonymize(ma.Table.from_frame(f, ['a', 'b']), ma.KAnonymity(2), via_pulp={via_pulp})\n"
                  "print(r.status, r.cost)")
    # ax, bx, cx released as (*, x) and ay, by as (*, y): 5 cells; no two rows agree on both columns
    # and a, b and c never reach two rows of each value of b, so no release suppresses fewer
    assert out == "optimal 5.0\n"


# After _TWO_THREADS_FIRST, the package's runs on that thread: the EMD's integer block programs on the table of
# test_lp_rounding's second-ascent test, and a solve asking for one thread through the reduction (its column
# generation's masters). Before ``run_here`` both asked for one thread and were refused.
_AFTER_TWO_THREADS = _TWO_THREADS_FIRST + """
import json
import pandas as pd, milp_anon as ma
from helpers import SENS_HIERARCHY
from test_lp_rounding import _instance, _lp_duals
from milp_anon.bounds import blocks
frame = pd.DataFrame(FRAME)
criteria = [ma.KAnonymity(3), ma.TCloseness(0.2, distance="hierarchical", hierarchy=SENS_HIERARCHY)]
table, request, instance, why = _instance(frame, ["q0", "q1"], criteria)
pi, lp = _lp_duals(instance, request)
blocks.EMD_BLOCK_SECONDS = 10.0
emd = blocks.request_blocks(instance, request).with_emd_blocks().prices(pi).bound
r = ma.anonymize(ma.Table.from_frame(frame, ["q0", "q1"]), ma.KAnonymity(3), reduction="lagrangian", threads=1,
                 time_limit=60, tuning=ma.Tuning(lp_rounding=False))
print(json.dumps([emd, str(r.status), r.objective, r.reduction.lp_converged]))
"""


def test_runs_on_a_thread_whose_scheduler_has_two_threads_are_not_refused():
    """The EMD's integer blocks reach the brute-force optimum (13, as in ``test_lp_rounding``) and the reduction's
    column generation converges and proves the Blocki–Williams optimum, in a process whose calling thread already
    runs HiGHS on two threads."""
    frame = {"q0": ["1", "2", "0", "2", "0", "1", "2", "0"], "q1": ["1", "1", "0", "0", "0", "1", "0", "1"],
             "s": ["4", "3", "3", "3", "2", "1", "3", "1"]}
    qi, criteria = ["q0", "q1"], [ma.KAnonymity(3), ma.TCloseness(0.2, distance="hierarchical",
                                                                  hierarchy=SENS_HIERARCHY)]
    assert brute(pd.DataFrame(frame), qi, criteria) == 13
    k_optimum = divide_and_conquer(pd.DataFrame(frame)[qi].to_numpy(), 3)[0]
    out = _stdout(_AFTER_TWO_THREADS.replace("FRAME", repr(frame)))
    emd, status, objective, converged = json.loads(out.strip().splitlines()[-1])
    assert emd == pytest.approx(13, abs=1e-6)
    assert status == "optimal" and objective == k_optimum and converged


def test_run_here_refuses_an_object_that_asks_for_a_thread_count():
    h = new_highs()
    h.setOptionValue("threads", 1)
    with pytest.raises(ValueError, match="threads"):
        run_here(h)


def test_pulp_s_highs_refused_its_thread_count_says_so_in_one_line():
    """PuLP runs HiGHS on the calling thread: asked for one thread where that thread already runs two, the solve
    names the cause (not HiGHS's bare "Not Set"); asked for none, or for the thread's own two, it solves."""
    code = (_TWO_THREADS_FIRST + "import pandas as pd, milp_anon as ma\n"
            "t = ma.Table.from_frame(pd.DataFrame({'a': list('aabbc'), 'b': list('xyxyx')}), ['a', 'b'])\n"
            "for threads in (None, 2, 1):\n"
            "    try:\n"
            "        r = ma.anonymize(t, ma.KAnonymity(2), via_pulp=True, threads=threads, reduction='none')\n"
            "        print(threads, r.status, r.cost)\n"
            "    except ma.SolverError as exc:\n"
            "        print(threads, 'SolverError', exc)\n")
    lines = _stdout(code).splitlines()
    # 5 cells: the optimum of test_a_solve_prints_only_what_the_caller_prints's table
    assert lines[:2] == ["None optimal 5.0", "2 optimal 5.0"]
    assert lines[2].startswith("1 SolverError HiGHS through PuLP refused threads=1") and len(lines) == 3
