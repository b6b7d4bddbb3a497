"""Where a sweep's runs execute: a Dask cluster, or a local pool when Dask is not installed.

:func:`executor` yields an object with ``submit(fn, *args)`` and
``as_completed(futures)``:

* ``scheduler="tcp://HOST:PORT"``: that Dask cluster's workers (they need
  milp-anon installed, the same version);
* no scheduler: a Dask ``LocalCluster`` of ``workers`` single-threaded
  workers (the default; ``pip install 'milp-anon[bench]'``);
* no scheduler and no Dask installed: a local pool of ``workers`` threads
  (said on the console).

Each run is still its own process (:func:`milp_anon.bench.runner.execute`),
killed at its limit, with its own peak memory: a worker only waits for it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import shutil
import tempfile

from milp_anon.runtime.cleanup import committing, track_file, untrack_file
from milp_anon.runtime.errors import InputError

__all__ = ["executor"]



def _dask():
    """The ``distributed`` module, or ``None`` (an extra, imported only for a sweep: it costs 0.45 s)."""
    try:
        import distributed
    except ImportError:  # pragma: no cover - the test extra installs it
        return None
    return distributed


class _DaskPool:
    def __init__(self, client, distributed):
        self.client = client
        self.distributed = distributed

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    def as_completed(self, futures):
        return self.distributed.as_completed(list(futures))


class _ThreadPool:
    def __init__(self, pool):
        self.pool = pool

    def submit(self, fn, *args):
        return self.pool.submit(fn, *args)

    def as_completed(self, futures):
        return concurrent.futures.as_completed(list(futures))


@contextlib.contextmanager
def executor(scheduler: str | None, workers: int):
    """``(pool, description)`` for one sweep; the cluster (if local) is shut down on the way out."""
    distributed = _dask()
    if distributed is None:
        if scheduler:
            raise InputError("--scheduler needs Dask: pip install 'milp-anon[bench]'")
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            yield _ThreadPool(pool), f"{workers} at a time in a local pool (Dask is not installed)"
        return
    if scheduler:
        try:
            client = distributed.Client(scheduler, timeout=30)
        except OSError as exc:
            raise InputError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
        with client:
            n = len(client.scheduler_info()["workers"])
            yield _DaskPool(client, distributed), f"on the Dask cluster {scheduler} ({n} workers)"
        return
    # the cluster's scratch space (Dask's default: dask-scratch-space in the temporary directory, left behind) in
    # a directory of this run's own, removed at the end or by SIGTERM / SIGHUP (milp_anon.runtime.cleanup)
    import dask

    # created and deleted under the signal lock: a SIGTERM in between (the sweep ending as the signal lands,
    # the CI run of stop 97) would find it untracked and leave it
    with committing():
        scratch = tempfile.mkdtemp(prefix=".milp-anon-dask-")
        track_file(scratch)
    try:
        with dask.config.set({"temporary-directory": scratch}), \
                distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                         dashboard_address=None, silence_logs=logging.ERROR,
                                         local_directory=scratch) as cluster, distributed.Client(cluster) as client:
            yield _DaskPool(client, distributed), f"{workers} at a time on a local Dask cluster"
    finally:
        with committing():
            shutil.rmtree(scratch, ignore_errors=True)
            untrack_file(scratch)
