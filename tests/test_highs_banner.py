"""milp_anon.solvers.highs_banner: no HiGHS banner on standard output, piped or not."""

import os
import subprocess
import sys
from importlib import metadata

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..")
HIGHS_116 = tuple(int(x) for x in metadata.version("highspy").split(".")[:2]) >= (1, 16)


def _stdout(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                          timeout=120).stdout


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
