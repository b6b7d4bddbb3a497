"""Progress of a solve: phase, elapsed time, incumbent, bound, gap — while it runs.

The stages report what they know with :func:`report` (a no-op unless someone
listens); a listener is installed for one solve with :func:`reporting`
(``anonymize(..., progress=callback)``; the command line's
:class:`ProgressPrinter`). Every phase change is also logged at INFO on the
``milp_anon.runtime.progress`` logger.

Bounds: in a whole-model solve HiGHS's dual bound is the problem's bound; in
a round of the Lagrangian reduction it bounds only the restricted model, so
the reduction reports its own proven bound and HiGHS's is shown as the
round's (``formulations/reduction.md``).
"""

from __future__ import annotations

import contextlib
import logging
import math
import sys
import threading
import time
from dataclasses import dataclass, replace

from milp_anon.runtime.status import format_gap

__all__ = ["Progress", "ProgressPrinter", "muted", "phase", "relaxed", "report", "reporter", "reporting"]

_log = logging.getLogger("milp_anon.runtime.progress")


@dataclass(frozen=True)
class Progress:
    """One snapshot of a running solve (values of the model's objective, which is minimized)."""

    phase: str = "start"
    elapsed: float = 0.0
    incumbent: float | None = None
    bound: float | None = None
    #: the dual bound of the model a round of the reduction solves now: a bound of that restricted model only,
    #: not of the problem (``formulations/reduction.md``); never shown as the run's bound
    round_bound: float | None = None

    @property
    def gap(self) -> float | None:
        """``(incumbent − bound) / incumbent`` (0 when both are 0), or ``None``."""
        if self.incumbent is None or self.bound is None:
            return None
        if self.incumbent == 0:
            return 0.0 if self.bound >= 0 else None
        return max(0.0, (self.incumbent - self.bound) / abs(self.incumbent))

    def line(self) -> str:
        """One line of text: elapsed, phase, incumbent, bound, gap."""
        fmt = lambda v: "-" if v is None else f"{v:,.6g}"  # noqa: E731
        # one bound: the proven one. A round's restricted model's own bound (``round_bound``) bounds only that
        # model, starts near 0 in each round and may fall between rounds: beside the run's, it reads as the run's
        return (f"{self.elapsed:7.1f} s  {self.phase:<24} incumbent {fmt(self.incumbent)}  bound {fmt(self.bound)}"
                f"  gap {format_gap(self.gap)}")


class _Listener:
    def __init__(self, sink):
        self.sink = sink
        self.t0 = time.perf_counter()
        self.state = Progress()
        self.solver_bound_is_global = True
        self.lock = threading.Lock()

    def update(self, phase=None, incumbent=None, bound=None, solver_bound=None, solver_bound_is_global=None):
        with self.lock:
            s = self.state
            if solver_bound_is_global is not None:
                self.solver_bound_is_global = solver_bound_is_global
            if phase is not None and phase != s.phase:
                _log.info("%s", phase)
                s = replace(s, phase=phase, round_bound=None if not self.solver_bound_is_global else s.round_bound)
            if incumbent is not None and math.isfinite(incumbent) and (s.incumbent is None or incumbent < s.incumbent):
                s = replace(s, incumbent=float(incumbent))
            if solver_bound is not None and math.isfinite(solver_bound):
                if self.solver_bound_is_global:
                    bound = solver_bound if bound is None else max(bound, solver_bound)
                else:
                    s = replace(s, round_bound=float(solver_bound))
            if bound is not None and math.isfinite(bound) and (s.bound is None or bound > s.bound):
                s = replace(s, bound=float(bound))
            self.state = s = replace(s, elapsed=time.perf_counter() - self.t0)
        self.sink(s)


_current: _Listener | None = None
#: per thread: a relaxation's solve in one thread (the row generation's ``R(A)``) does not drop the incumbents
#: a repair beside it reports from another
_relaxing = threading.local()


def report(**fields) -> None:
    """Tell the listener, if any: ``phase``, ``incumbent``, ``bound`` (proven), ``solver_bound``
    (HiGHS's dual bound), ``solver_bound_is_global``. A listener that fails never breaks the solve."""
    _send(fields, _relaxed_here())


@contextlib.contextmanager
def phase(label: str):
    """The block runs phase ``label``: the listener shows it, then, when the block ends, the label it showed
    before (the enclosing phase's) — a progress line never names a phase that has ended."""
    listener = _current
    before = None if listener is None else listener.state.phase
    report(phase=label)
    try:
        yield
    finally:
        if before is not None and _current is listener:
            report(phase=before)


def reporter():
    """:func:`report` as this thread would call it now (inside :func:`relaxed` or not), for a callback that
    another thread runs (HiGHS's solver thread)."""
    if _relaxed_here():
        return lambda **fields: _send(fields, True)
    return report


def _relaxed_here() -> bool:
    return getattr(_relaxing, "depth", 0) > 0


def _send(fields: dict, relaxing: bool) -> None:
    """:func:`report`'s body; ``relaxing``: inside :func:`relaxed`, where incumbents are dropped."""
    listener = _current
    if listener is None:
        return
    if relaxing and "incumbent" in fields:
        fields = {key: value for key, value in fields.items() if key != "incumbent"}
    try:
        listener.update(**fields)
    except Exception:  # pragma: no cover - a user's callback
        _log.exception("progress callback failed")


def listening() -> bool:
    """Someone listens (solvers subscribe their callbacks only then)."""
    return _current is not None


@contextlib.contextmanager
def reporting(sink):
    """Send every :class:`Progress` of the solves inside the block to ``sink`` (``None``: nobody)."""
    global _current
    if sink is None:
        yield
        return
    previous, _current = _current, _Listener(sink)
    try:
        yield
    finally:
        _current = previous


@contextlib.contextmanager
def relaxed():
    """The solves inside the block are of a relaxation: their bounds are the problem's, their
    incumbents are not (a table of the relaxation may violate the criteria), so those are dropped."""
    _relaxing.depth = getattr(_relaxing, "depth", 0) + 1
    try:
        yield
    finally:
        _relaxing.depth -= 1


@contextlib.contextmanager
def muted():
    """Nobody hears the solves inside the block (a sub-problem's incumbents are not the problem's)."""
    global _current
    previous, _current = _current, None
    try:
        yield
    finally:
        _current = previous


class ProgressPrinter:
    """The command line's progress on stderr.

    On a terminal: one live line, redrawn at most every 0.3 s and erased at
    the end. Otherwise (a log file, a pipe): a plain line every ``every``
    seconds (5 s by default), so a short solve prints nothing and a long
    one is never silent for more than ``every`` seconds.
    """

    def __init__(self, stream=None, *, every: float = 5.0, live: bool | None = None):
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.every = every
        self.latest: Progress | None = None
        self.shown = 0.0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def __call__(self, p: Progress) -> None:
        self.latest = p
        if self.live and time.perf_counter() - self.shown >= 0.3:
            self._show(p, live=True)

    def _show(self, p: Progress, live: bool) -> None:
        with self._lock:
            try:
                if live:
                    self.stream.write("\r\033[K" + p.line()[:160])
                else:
                    self.stream.write(f"milp-anon: {p.line()}\n")
                self.stream.flush()
            except (OSError, ValueError):  # a closed stderr: nothing to tell
                pass
            self.shown = time.perf_counter()

    def _beat(self) -> None:
        t0 = time.perf_counter()
        n = 1
        while not self._stop.wait(max(0.0, t0 + n * self.every - time.perf_counter())):
            n += 1
            p = self.latest or Progress()
            self._show(replace(p, elapsed=time.perf_counter() - t0), live=self.live)

    def __enter__(self) -> ProgressPrinter:
        self._thread = threading.Thread(target=self._beat, name="progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)
        if self.live and self.shown:
            with contextlib.suppress(OSError, ValueError):
                self.stream.write("\r\033[K")
                self.stream.flush()
