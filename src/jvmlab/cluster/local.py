"""A LocalCluster of quiet nodes (``jvmlab cluster local``, the tests, the bench), and stopping it
without a traceback.

Why quiet: a node's worker process shares the machine with the JVM it runs. Dask's defaults
poll the GIL every 1 ms, sample a statistical profile every 10 ms, check memory every 100 ms and
move tasks between workers; on a busy 2-core machine those threads took CPU from the slots and
delayed each task's start. A node here runs one pinned task at a time, so stealing has nothing
to do, and its data are a few kB, so spilling and the memory monitor have nothing to guard.

Why the stop order: closing the scheduler while its workers are still alive makes each worker's
next heartbeat fail, and Dask logs that as a ``CommClosedError`` traceback (seen once at the end
of a bench run). The workers go first (scaled to zero, waited for, bounded), then the client,
then the scheduler.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

STOP_WAIT_S = 30.0

NODE_CONFIG: dict[str, Any] = {
    "distributed.scheduler.work-stealing": False,  # tasks are pinned to their node: nothing to steal
    "distributed.worker.profile.enabled": False,  # a sampling thread every 10 ms
    "distributed.admin.system-monitor.gil.enabled": False,  # a GIL poll every 1 ms
    "distributed.admin.system-monitor.interval": "2s",  # CPU/memory samples for the dashboard
    "distributed.admin.tick.interval": "500ms",  # the event-loop health check (Dask's default 20 ms)
    "distributed.admin.tick.limit": "10s",  # a busy machine's slow tick is not worth a warning
    "distributed.worker.memory.target": False,  # no spilling: a slot's data are a few kB
    "distributed.worker.memory.spill": False,
    "distributed.worker.memory.pause": False,
    "distributed.worker.memory.terminate": False,
    "distributed.worker.memory.monitor-interval": "10s",
    "distributed.logging.distributed": "error",
}


def start_local_cluster(workers: int, port: int = 0, processes: bool = True) -> Any:
    """A scheduler and ``workers`` single-thread workers (one ``jvm`` resource each) on 127.0.0.1,
    started under :data:`NODE_CONFIG` (a nanny passes the config on to its worker process); no
    dashboard. ``port`` 0: any free port."""
    import dask
    from distributed import LocalCluster

    with dask.config.set(NODE_CONFIG), _workers_ignore_sigint():
        return LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=workers, threads_per_worker=1, resources={"jvm": 1}, host="127.0.0.1",
            scheduler_port=port, dashboard_address=None, processes=processes,
            protocol="tcp", silence_logs=logging.ERROR)


@contextmanager
def _workers_ignore_sigint() -> Iterator[None]:
    """SIGINT ignored while the worker processes start, so they inherit it ignored: Ctrl-C in a
    terminal reaches the whole process group, and a worker would die of it with a traceback
    before this process stops it in order (workers, then the scheduler). Python leaves an
    inherited ignored SIGINT ignored. Only the main thread may change a handler."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def stop_local_cluster(cluster: Any, client: Any | None = None, wait_s: float = STOP_WAIT_S) -> None:
    """Workers first, then ``client`` (if given), then the scheduler; never waits past ``wait_s``."""
    try:
        cluster.scale(0)
        deadline = time.monotonic() + wait_s
        while cluster.scheduler_info.get("workers") and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        if client is not None:
            client.close(timeout=wait_s)
        cluster.close(timeout=wait_s)
