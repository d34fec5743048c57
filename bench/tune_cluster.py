"""`tune --cluster`: wall time of one tuning run on 1 worker against 2 (and more) workers.

Run:  .venv/bin/python bench/tune_cluster.py [--sleep-ms 100] [--workers 1,2] [--trials 6]

A fake executor that sleeps (no CPU, no JVM) for each invocation, its value read from the
configuration's ``-Dfake.mean_s`` flag with 5% seeded noise, on a LocalCluster of single-thread
worker processes on 127.0.0.1 (one `jvm` resource each), an SQLite store in a temporary folder.
The same [tune] spec and seed on each size. Prints, side by side from one run: the tuning
loop's wall time (after the nodes are checked), invocations run (a wider run measures blocks a
decided race no longer needs), nodes' busy time, the winner, and the speed-up against 1 worker.
Where it comes from: a race's blocks (and the confirmation's) run one per node at a time.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src")]

import numpy as np  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

from jvmlab.model.process import ProcessMeasures, ProcessResult, Status  # noqa: E402
from jvmlab.plan.prepare import prepare  # noqa: E402
from jvmlab.spec.load import parse_spec  # noqa: E402
from jvmlab.store.sql import SqlStore  # noqa: E402
from jvmlab.tune.cluster_measure import ClusterMeasurer  # noqa: E402
from jvmlab.tune.flow import run_tune  # noqa: E402

JDK = "/usr/lib/jvm/java-17-openjdk-amd64"
SPEC = """
name = "bench-tune-cluster"
[workload]
builtin = "hello"
[jvms]
a = "{jdk}"
[collect]
gc = false
proc = false
[tune]
objective = "wall_s"
seed = 3
budget = {{ trials = {trials} }}
min_blocks = 3
max_blocks = 8
confirm_max_blocks = 16
[tune.params.speed]
type = "categorical"
values = {{ a = "-Dfake.mean_s=1.2", b = "-Dfake.mean_s=1.0", c = "-Dfake.mean_s=0.8", d = "-Dfake.mean_s=0.9" }}
[tune.params.extra]
type = "categorical"
values = {{ x = "-Dfake.extra=1", y = "-Dfake.extra=2" }}
"""


class SleepSurface:
    """Sleeps for the invocation; wall_s = mean_s x 5% noise seeded by the slot's folder."""

    def __init__(self, sleep_s: float) -> None:
        self.sleep_s = sleep_s

    def run(self, plan, probes=()):
        started = time.time()
        mean_s = next((float(a.split("=", 1)[1]) for a in plan.argv if a.startswith("-Dfake.mean_s=")), 1.0)
        sigma = math.sqrt(math.log1p(0.05 ** 2))
        rng = np.random.default_rng(zlib.crc32(str(plan.artifacts_dir).encode()))
        wall_s = mean_s * float(rng.lognormal(-sigma * sigma / 2, sigma))
        time.sleep(self.sleep_s)
        m = ProcessMeasures(wall_s=wall_s, user_s=0.0, sys_s=0.0, max_rss_bytes=None, minor_faults=None,
                            major_faults=None, vol_ctx_switches=None, invol_ctx_switches=None)
        return ProcessResult(Status.OK, None, 0, None, m, None, started)


def measure(workers: int, trials: int, sleep_s: float, folder: Path) -> tuple[float, float, int, float, str, str]:
    text = SPEC.format(jdk=JDK, trials=trials)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{folder / f'w{workers}.db'}")
    exp = store.create_experiment(name="bench", spec_text=text, spec_hash=plan.spec_hash, spec_path=None,
                                  fingerprint={}, seed=0, command_line="bench", jvmlab_version="bench",
                                  artifacts_dir=str(folder))
    with LocalCluster(n_workers=workers, threads_per_worker=1, resources={"jvm": 1}, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0", processes=True) as cluster, Client(cluster) as client:
        client.wait_for_workers(workers, timeout=120)
        measurer = ClusterMeasurer(plan, store, exp, folder / f"art{workers}", client, executor=SleepSurface(sleep_s))
        checks = [0.0]
        check = measurer.rejected

        def timed_check(jvm: str, flags: tuple[str, ...]) -> str | None:  # real JVM starts on the client
            t0 = time.perf_counter()
            try:
                return check(jvm, flags)
            finally:
                checks[0] += time.perf_counter() - t0

        measurer.rejected = timed_check  # type: ignore[method-assign]
        started = time.perf_counter()
        _, result, _ = run_tune(plan, store, exp, folder / f"art{workers}", None, measurer=measurer)
        wall = time.perf_counter() - started
    return (wall, checks[0], measurer.measured, measurer.busy_s, f"{measurer.blocks_run}/{measurer.rounds}",
            " ".join(result.winner.flags))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sleep-ms", type=float, default=100.0)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--trials", type=int, default=6)
    args = parser.parse_args()
    print(f"fake executor sleeping {args.sleep_ms:.0f} ms per invocation; {args.trials} trials; SQLite store; "
          f"'wall s': the tuning loop; 'checks s': its flag checks (real JVM starts on the client, the same "
          f"whatever the workers); 'loop s' = wall - checks; speed-ups against 1 worker; 'blocks/rounds': "
          f"blocks run over rounds sent to the nodes (the parallelism the races allowed)")
    print(f"{'workers':>7} {'wall s':>7} {'checks s':>8} {'loop s':>7} {'invocations':>11} {'busy s':>7} "
          f"{'blocks/rounds':>13} {'speed-up':>8} {'loop speed-up':>13}  winner")
    base = None
    with tempfile.TemporaryDirectory() as tmp:
        for workers in [int(w) for w in args.workers.split(",")]:
            wall, checks, n, busy, rounds, winner = measure(workers, args.trials, args.sleep_ms / 1000, Path(tmp))
            base = base or (wall, wall - checks)
            print(f"{workers:>7} {wall:>7.1f} {checks:>8.1f} {wall - checks:>7.1f} {n:>11} {busy:>7.1f} {rounds:>13} "
                  f"{base[0] / wall:>7.2f}x {base[1] / (wall - checks):>12.2f}x  {winner}")


if __name__ == "__main__":
    main()
