"""Stopping a LocalCluster: workers first, then the client, then the scheduler, with no error
logged by Dask (closing the scheduler under live workers logged a CommClosedError traceback)."""

from __future__ import annotations

import logging
import time

import pytest

from jvmlab.cluster.local import stop_local_cluster

distributed = pytest.importorskip("distributed")


def test_stop_takes_the_workers_down_first_and_logs_no_error(caplog: pytest.LogCaptureFixture) -> None:
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, resources={"jvm": 1}, processes=False,
                                       protocol="tcp", host="127.0.0.1", dashboard_address="127.0.0.1:0")
    client = distributed.Client(cluster)
    client.wait_for_workers(2, timeout=60)
    assert client.submit(sum, [1, 2], pure=False).result(timeout=60) == 3
    caplog.set_level(logging.WARNING, logger="distributed")
    started = time.monotonic()
    stop_local_cluster(cluster, client, wait_s=20)
    assert time.monotonic() - started < 45, "bounded: 20 s for the workers, then the client and scheduler"
    assert cluster.status.name == "closed" and client.status == "closed"
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]
