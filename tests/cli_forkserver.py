"""Run ``milp-anon`` command lines as forks of one interpreter that imported the package once.

The bad-input matrix runs about 200 command lines; a fresh interpreter per
case spent most of the matrix's time importing numpy, pandas, PuLP and
highspy. This server imports :mod:`milp_anon.cli` once and **never runs a
solver itself**, so each fork starts as clean as a fresh interpreter that
has just imported the package (no HiGHS thread pool, no open files, no
state from an earlier case), then does what ``python -m milp_anon`` does:
:func:`milp_anon.cli.run`. Each case's child gets its own working
directory, stdin from ``/dev/null`` and its own stdout / stderr files.

Protocol (one JSON object per line): the test writes
``{"cwd", "args", "out", "err", "timeout"}`` on the server's stdin and
reads ``{"code"}`` back on its stdout (``code`` is ``-9`` when the case was
killed at its timeout). A few cases of the matrix still run as real fresh
interpreters (``tests/test_bad_input.py``), so the entry point itself stays
covered.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

import milp_anon.cli  # noqa: F401  (the import every case shares)


def _child(req) -> None:
    os.chdir(req["cwd"])
    fds = [os.open(os.devnull, os.O_RDONLY),
           os.open(req["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
           os.open(req["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    sys.stdin = open(0, closefd=False)
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", closefd=False)
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", closefd=False)
    sys.argv = ["milp-anon", *req["args"]]
    code = 1
    try:
        milp_anon.cli.run()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 — an uncaught error is what the test must see
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
    os._exit(code)


def _wait(pid: int, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return -9
        time.sleep(0.01)


def main() -> None:
    protocol = sys.stdout
    for line in sys.stdin:
        req = json.loads(line)
        protocol.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(req)
        protocol.write(json.dumps({"code": _wait(pid, float(req.get("timeout", 300)))}) + "\n")
        protocol.flush()


if __name__ == "__main__":
    main()
