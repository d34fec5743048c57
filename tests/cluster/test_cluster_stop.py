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


def test_ctrl_c_on_cluster_local_stops_it_without_a_traceback() -> None:
    """Ctrl-C in a terminal reaches the whole process group: the worker processes too. They
    used to die of it with KeyboardInterrupt tracebacks; now they ignore it and the command
    stops them in order."""
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from cli_runner import interruptible, signal_state

    jvmlab = str(Path(sys.executable).with_name("jvmlab"))
    proc = subprocess.Popen([jvmlab, "cluster", "local", "--workers", "2", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=interruptible)
    try:
        assert proc.stdout is not None
        lines = []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not any("Ctrl-C" in line for line in lines):
            lines.append(proc.stdout.readline())
        assert any("Ctrl-C" in line for line in lines), lines
        time.sleep(1.0)
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole group
        _, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, (proc.returncode, err[-2000:], signal_state())
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
    assert "stopping the cluster" in err
