"""One benchmark run in its own process: ``python -m milp_anon.bench.run_one`` reads the job (JSON) on stdin.

The job is ``{"spec": ..., "method": ..., "time_limit": ...}``; the result
(:func:`milp_anon.bench.runner.run_in_this_process`) is the last line of
stdout, as JSON. Everything else a solver prints goes to stderr.
"""

from __future__ import annotations

import json
import os
import sys

from milp_anon.bench.runner import run_in_this_process


def _plain(v):
    if hasattr(v, "item"):  # numpy scalars
        return v.item()
    return str(v)


def main() -> int:
    job = json.load(sys.stdin)
    out_fd = os.dup(1)
    os.dup2(2, 1)  # solver output never mixes into the result line
    out = run_in_this_process(job["spec"], job["method"], job["time_limit"])
    with os.fdopen(out_fd, "w") as fh:
        fh.write(json.dumps(out, default=_plain) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
