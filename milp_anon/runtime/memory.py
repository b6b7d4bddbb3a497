"""Memory of this process and its children, and the candidate layer's allowance in it.

With an explicit ``max_memory_gb`` the allowance is for the whole run: what
this process already holds (it keeps the instance while HiGHS solves, in this
process or in a child) counts against it too.
"""

from __future__ import annotations

import os
import threading
import time

from milp_anon.runtime.errors import ModelTooLargeError

__all__ = ["BYTES_PER_PAIR", "TreePeak", "allowance", "available_memory_bytes", "beside_held", "cap_bytes",
           "layer_too_large", "pair_limit", "resident_memory_bytes", "tree_resident_bytes"]

#: bytes this process holds per (type, candidate) pair of the candidate layer, models aside, at its peak: the
#: pairs (16), the Lagrangian reduction's block prices at the best multipliers (16; during the column
#: generation a one-byte mask per outcome, :func:`milp_anon.bounds.lagrangian.block_values`; priced in chunks,
#: ``Tuning.price_chunk``), its master's column per pair (9), the LP point (8),
#: the pair bounds and their sorted copy (16), the incumbent's rows per pair (8), masks and the copies the
#: enumeration concatenates. Measured: Adult, 8 QIs with hierarchies (``lm``), k = 2, 63.9 M pairs, a 600-s
#: run's own peak 7,263 MiB, 119 bytes per pair with the interpreter and the table
#: (``benchmarks/results/scale_reduction_layer_8qi_lm.md``); 128 leaves a margin. At k = 5 (63.4 M pairs) the
#: run's tree peaked at 121 bytes a pair once the column generation's rounds held no per-pair prices, 140 before,
#: above the cap (``benchmarks/results/scale_reduction_pricing_8qi_lm_k5.md``)
BYTES_PER_PAIR = 128



def available_memory_bytes() -> int:
    """MemAvailable from /proc/meminfo (or physical memory) in bytes."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def resident_memory_bytes(pid="self") -> int:
    """The resident memory now of this process (or of process ``pid``) from ``/proc/<pid>/statm``, or 0 where it
    cannot be read (the process is gone, or no ``/proc``)."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _children(pid) -> list[int]:
    """The child processes of ``pid`` (any of its threads may have started one), from ``/proc``; none where it
    cannot be read."""
    kids: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as fh:
                    kids.extend(int(c) for c in fh.read().split())
            except (OSError, ValueError):
                pass
    except OSError:
        pass
    return kids


def tree_resident_bytes(pid="self") -> int:
    """The resident memory now of process ``pid`` and all its descendants together (a run with its solver's
    process), from ``/proc``; 0 where nothing can be read."""
    pid = os.getpid() if pid == "self" else pid
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        total += resident_memory_bytes(p)
        todo.extend(_children(p))
    return total


class TreePeak:
    """The largest resident memory a process and its descendants held at one time, sampled every ``interval``
    seconds (:func:`tree_resident_bytes`) by a thread of a process that only waits on them meanwhile.

    Why not ``ru_maxrss`` of the run and of its children: a child started by ``subprocess`` (vfork, then exec)
    inherits its parent's high-water mark as its own ``ru_maxrss`` (Linux keeps ``maxrss`` across exec), so
    the children's figure is at least the parent's peak once any child ran, their sum counts the parent
    twice, and their maximum leaves out what the parent held while its solver's child ran. Sampling misses
    only what lives less than ``interval``.
    """

    def __init__(self, pid: int, interval: float = 0.05):
        self.pid, self.interval = pid, interval
        self.samples: list[tuple[float, int]] = []  # (time.time(), bytes)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self._stop.is_set():
            held = tree_resident_bytes(self.pid)
            if held:
                self.samples.append((time.time(), held))
            self._stop.wait(self.interval)

    def until(self, end: float | None = None) -> int:
        """The largest sample (bytes) of those taken up to ``end`` (``time.time()``; ``None``: all)."""
        return max((b for t, b in self.samples if end is None or t <= end), default=0)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def cap_bytes(max_memory_gb: float | None) -> float | None:
    """An explicit ``max_memory_gb`` in bytes (what a solver's process and this one may hold together), or ``None``."""
    return max_memory_gb * 2**30 if max_memory_gb else None


def allowance(max_memory_gb: float | None) -> tuple[float, int]:
    """``(limit, held)`` in bytes: the memory allowed and what this process holds against it (see
    :func:`milp_anon.formulations.sizing.check_memory`)."""
    held = resident_memory_bytes() if max_memory_gb else 0
    limit = cap_bytes(max_memory_gb) or 0.8 * available_memory_bytes()
    return limit, held


def beside_held(held: int) -> str:
    """What this process holds, in a refusal's words (nothing when it does not count: no explicit limit)."""
    return f" beside the {held / 2**30:.1f} GiB this process holds" if held else ""


def pair_limit(max_memory_gb: float | None) -> int:
    """The most (type, candidate) pairs the candidate layer may hold in the memory allowed (at
    :data:`BYTES_PER_PAIR` each, beside what this process holds now)."""
    limit, held = allowance(max_memory_gb)
    return max(0, int((limit - held) // BYTES_PER_PAIR))


def layer_too_large(n_pairs: int, max_memory_gb: float | None, *, partial: bool = False) -> ModelTooLargeError:
    """The refusal of a candidate layer of ``n_pairs`` pairs (``partial``: at least that many, where the
    enumeration stopped)."""
    limit, held = allowance(max_memory_gb)
    more = "at least " if partial else ""
    return ModelTooLargeError(
        f"the candidate layer would hold {more}{n_pairs:,} (row type, candidate) pairs, {more}"
        f"{n_pairs * BYTES_PER_PAIR / 2**30:.2f} GiB{beside_held(held)}, but {limit / 2**30:.2f} GiB is allowed; use fewer QI "
        "columns, shallower hierarchies or a larger k"
    )
