"""``python -m benchmarks SUITE.toml [--out DIR] [--workers N]``: the harness (same as ``milp-anon bench``)."""

import sys

from milp_anon.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench"] + sys.argv[1:]))
