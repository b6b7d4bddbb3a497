"""The benchmark harness: suites in TOML, methods run in parallel processes, results and reports.

Entry points: ``milp-anon bench SUITE.toml`` / ``python -m benchmarks SUITE.toml``
and ``milp-anon export SUITE.toml --dir DIR``.
"""

from milp_anon.bench.runner import run_suite
from milp_anon.bench.suite import Problem, Suite, load_suite

__all__ = ["Problem", "Suite", "load_suite", "run_suite"]
