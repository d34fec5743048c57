"""Scale-out of `run --cluster`: invocations per second against workers, and jvmlab's own cost
per invocation on the client.

Run:  .venv/bin/python bench/cluster.py [--sleep-ms 200] [--blocks-per-worker 4] [--workers 1,2,4,8]

A fake executor that sleeps (no CPU, no JVM) on a LocalCluster of 1, 2, 4, 8 single-thread
workers on 127.0.0.1 (one `jvm` resource each; processes, as on real nodes), an SQLite store in a
temporary folder. Each size runs workers x blocks-per-worker blocks of 2 cells. Prints, side by
side from this one run: invocations/s, the ideal (workers / sleep), their ratio (target >= 0.9 up
to 8 workers), and jvmlab's client time per invocation (preparing, submitting, storing, node
bookkeeping; target < 5 ms), measured around the dispatcher's own methods. Then, per worker
count, where a slot's time went (``jvmlab.cluster.timing``): mean queue, transfer (the node idle
before the slot started: the loss against linear), run, on-node, result and client ms, and the
nodes' busy share. The cluster is ``start_local_cluster``'s quiet nodes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src")]

from distributed import Client  # noqa: E402

from jvmlab.cluster import dispatch  # noqa: E402
from jvmlab.cluster.local import start_local_cluster, stop_local_cluster  # noqa: E402
from jvmlab.cluster.run import run_on_cluster  # noqa: E402
from jvmlab.cluster.timing import NodeBreakdown, node_breakdown  # noqa: E402
from jvmlab.execute.options import RunOptions  # noqa: E402
from jvmlab.model.process import ProcessMeasures, ProcessResult, Status  # noqa: E402
from jvmlab.plan.prepare import prepare  # noqa: E402
from jvmlab.spec.load import parse_spec  # noqa: E402
from jvmlab.store.sql import SqlStore  # noqa: E402

JDK = "/usr/lib/jvm/java-17-openjdk-amd64"


class SleepExecutor:
    """Sleeps for the invocation instead of starting a JVM: the node is busy, the CPU is not."""

    def __init__(self, sleep_s: float) -> None:
        self.sleep_s = sleep_s

    def run(self, plan, probes=()):
        started = time.time()
        time.sleep(self.sleep_s)
        m = ProcessMeasures(wall_s=self.sleep_s, user_s=0.0, sys_s=0.0, max_rss_bytes=None, minor_faults=None,
                            major_faults=None, vol_ctx_switches=None, invol_ctx_switches=None)
        return ProcessResult(Status.OK, None, 0, None, m, None, started)


class Quiet:
    def planned(self, *a): pass
    def starting(self, *a): pass
    def finished(self, *a): pass
    def warn(self, hazard): pass
    def extended(self, *a): pass


CLIENT_S = [0.0]
GATHER_S = [0.0]  # waiting for finished results to come over (one gather per wake-up), apart
SETUP = {"first_s": None, "check_s": 0.0}  # first refresh: nodes' identities taken (once per run)
DISPATCHERS: list = []  # the run's dispatcher, for its slot timings


def timed(method):
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            CLIENT_S[0] += time.perf_counter() - t0
    return wrapper


def timed_gather(method):
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            GATHER_S[0] += time.perf_counter() - t0
    return wrapper


def timed_refresh(method):
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            if SETUP["first_s"] is None:
                SETUP["first_s"] = time.perf_counter()
                SETUP["check_s"] = SETUP["first_s"] - t0
            else:
                CLIENT_S[0] += time.perf_counter() - t0
    return wrapper


def measure(workers: int, blocks_per_worker: int, sleep_s: float, folder: Path) -> dict[str, float]:
    blocks = workers * blocks_per_worker
    text = (f'[workload]\nbuiltin = "hello"\n[jvms]\na = "{JDK}"\nb = "{JDK}"\n'
            f'[collect]\ngc = false\nproc = false\n[run]\ninvocations = {blocks}\nwarmup = 0\n')
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{folder / f'w{workers}.db'}")
    cluster = start_local_cluster(workers)
    client = Client(cluster)
    try:
        client.wait_for_workers(workers, timeout=120)
        CLIENT_S[0] = GATHER_S[0] = 0.0
        SETUP["first_s"] = None
        DISPATCHERS.clear()
        started = time.perf_counter()
        exp = run_on_cluster(plan, store, RunOptions(artifacts_root=folder / f"art{workers}"), Quiet(), client,
                             executor=SleepExecutor(sleep_s))
        ended = time.perf_counter()
    finally:
        stop_local_cluster(cluster, client)  # workers, client, scheduler: no CommClosedError traceback
    n = len(store.invocations(exp))
    return {"n": n, "rate": n / (ended - SETUP["first_s"]), "rate_all": n / (ended - started),
            "client_s": CLIENT_S[0] / n, "gather_s": GATHER_S[0] / n, "check_s": SETUP["check_s"],
            "nodes": node_breakdown(DISPATCHERS[0].timings)}


def _ms(value: float | None) -> str:
    return f"{value * 1000:>9.1f}" if value is not None else f"{'-':>9}"


def breakdown_line(workers: int, nodes: list[NodeBreakdown]) -> str:
    """Means over the nodes' slots (weighted by slots), and the nodes' busy share (least, mean)."""
    slots = sum(n.slots for n in nodes)

    def mean(part: str) -> float | None:
        known = [(getattr(n, part), n.slots) for n in nodes if getattr(n, part) is not None]
        return sum(v * k for v, k in known) / sum(k for _, k in known) if known else None

    shares = [n.busy_share for n in nodes if n.busy_share is not None]
    busy = f"{min(shares):>6.2f} {sum(shares) / len(shares):>6.2f}" if shares else f"{'-':>6} {'-':>6}"
    return (f"{workers:>7} {slots:>6} {_ms(mean('queue_s'))} {_ms(mean('transfer_s'))} {_ms(mean('run_s'))} "
            f"{_ms(mean('on_node_s'))} {_ms(mean('result_s'))} {_ms(mean('client_s'))} {busy}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sleep-ms", type=float, default=200.0)
    parser.add_argument("--blocks-per-worker", type=int, default=4)
    parser.add_argument("--workers", default="1,2,4,8")
    args = parser.parse_args()
    sleep_s = args.sleep_ms / 1000
    for name in ("_assign", "_store", "_progress"):
        setattr(dispatch.Dispatcher, name, timed(getattr(dispatch.Dispatcher, name)))
    dispatch.Dispatcher.refresh = timed_refresh(dispatch.Dispatcher.refresh)
    dispatch.Dispatcher._gather = timed_gather(dispatch.Dispatcher._gather)
    plain_run = dispatch.Dispatcher.run

    def keep_run(self, blocks):
        DISPATCHERS.append(self)
        return plain_run(self, blocks)

    dispatch.Dispatcher.run = keep_run
    print(f"fake executor sleeping {args.sleep_ms:.0f} ms per invocation; {args.blocks_per_worker} blocks of 2 "
          f"cells per worker; SQLite store")
    print("inv/s counts from the end of the node check (each node's identity taken and jvmlab's slot code loaded "
          "on it, once per run: 'check s'); 'ratio all' counts from the start of run_on_cluster (experiment "
          "created, node check included)")
    print(f"{'workers':>7} {'invocations':>11} {'inv/s':>8} {'ideal/s':>8} {'ratio':>6} {'ratio all':>9} "
          f"{'client ms/inv':>13} {'gather ms/inv':>13} {'check s':>8}")
    breakdowns = []
    with tempfile.TemporaryDirectory() as tmp:
        for workers in [int(w) for w in args.workers.split(",")]:
            m = measure(workers, args.blocks_per_worker, sleep_s, Path(tmp))
            ideal = workers / sleep_s
            print(f"{workers:>7} {m['n']:>11.0f} {m['rate']:>8.3f} {ideal:>8.2f} {m['rate'] / ideal:>6.3f} "
                  f"{m['rate_all'] / ideal:>9.3f} {m['client_s'] * 1000:>13.2f} {m['gather_s'] * 1000:>13.2f} "
                  f"{m['check_s']:>8.2f}", flush=True)
            breakdowns.append(breakdown_line(workers, m["nodes"]))
    print("\nwhere a slot's time went (mean ms per slot; transfer = the node idle before the slot started; "
          "busy = task time over each node's span, least and mean node)")
    print(f"{'workers':>7} {'slots':>6} {'queue':>9} {'transfer':>9} {'run':>9} {'on node':>9} {'result':>9} "
          f"{'client':>9} {'busy':>6} {'mean':>6}")
    print("\n".join(breakdowns))
    print("targets: ratio >= 0.90 up to 8 workers; client cost < 5 ms per invocation (preparing, submitting, "
          "storing, node bookkeeping; waiting for results to come over is the gather column)")


if __name__ == "__main__":
    main()
