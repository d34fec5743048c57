"""Stopping a LocalCluster (``jvmlab cluster local``, the bench) without a traceback.

Why: closing the scheduler while its workers are still alive makes each worker's next heartbeat
fail, and Dask logs that as a ``CommClosedError`` traceback (seen once at the end of a bench run).
The workers go first (scaled to zero, waited for, bounded), then the client, then the scheduler.
"""

from __future__ import annotations

import time
from typing import Any

STOP_WAIT_S = 30.0


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
