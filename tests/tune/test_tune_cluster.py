"""`tune --cluster` on a real Dask LocalCluster of two single-thread workers on 127.0.0.1, with a
seeded fake executor (the statistics) that makes one node slower: the known better configuration
wins, every block of the race ran whole on one node, nothing is stored twice, a resume measures
nothing, a task failing on a node is an infeasible trial with its reason, and a cluster whose
workers vanish stops with one line instead of waiting forever."""

from __future__ import annotations

import math
import time
import zlib
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest

from cli_runner import run_jvmlab
from jvmlab.errors import UserError
from jvmlab.model.process import InvocationPlan, ProcessMeasures, ProcessResult, Status
from jvmlab.plan.prepare import prepare
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore
from jvmlab.tune.cluster_measure import ClusterMeasurer, stored_width
from jvmlab.tune.flow import run_tune

distributed = pytest.importorskip("distributed")

SPEC = """
name = "tune-cluster"
[workload]
builtin = "hello"
[jvms]
a = "{home}"
[tune]
objective = "wall_s"
seed = 11
budget = {{ trials = {trials} }}
min_blocks = 3
max_blocks = 6
confirm_max_blocks = 12
[tune.params.speed]
type = "categorical"
values = {{ slow = "-Dfake.mean_s=1.3", same = "-Dfake.mean_s=1.0", fast = "-Dfake.mean_s=0.7" }}
"""


class SurfaceExecutor:
    """``-Dfake.mean_s`` is the configuration's true wall time; a node in ``offsets`` is slower by
    that factor (what same-node pairing must cancel); 5% log-normal noise seeded by the slot's
    artifacts folder relative to the run's (unique per cell and block), so a re-run gives the same value.
    ``fail_on``: a flag whose invocations raise on the node (a task failing there)."""

    name = "fake-surface"

    def __init__(self, offsets: dict[str, float], seed: int = 0, sleep_s: float = 0.002,
                 fail_on: str | None = None) -> None:
        self.offsets, self.seed, self.sleep_s, self.fail_on = offsets, seed, sleep_s, fail_on

    def run(self, plan: InvocationPlan, probes=()) -> ProcessResult:
        from distributed import get_worker

        if self.fail_on is not None and self.fail_on in plan.argv:
            raise RuntimeError("the node could not start it")
        mean_s = next((float(a.split("=", 1)[1]) for a in plan.argv if a.startswith("-Dfake.mean_s=")), 1.0)
        sigma = math.sqrt(math.log1p(0.05 ** 2))
        slot = "/".join(Path(plan.artifacts_dir).parts[-3:])  # exp-N/cell-K/bB: the same in every tmp folder
        rng = np.random.default_rng([self.seed, zlib.crc32(slot.encode())])
        wall_s = mean_s * float(rng.lognormal(-sigma * sigma / 2, sigma)) * self.offsets.get(get_worker().address, 1.0)
        time.sleep(self.sleep_s)
        measures = ProcessMeasures(wall_s=wall_s, user_s=wall_s * 0.8, sys_s=wall_s * 0.1, max_rss_bytes=64 << 20,
                                   minor_faults=1000, major_faults=0, vol_ctx_switches=10, invol_ctx_switches=1)
        return ProcessResult(Status.OK, None, 0, None, measures, None, time.time())


def _cluster(workers: int) -> distributed.LocalCluster:
    return distributed.LocalCluster(n_workers=workers, threads_per_worker=1, resources={"jvm": 1}, processes=False,
                                    protocol="tcp", host="127.0.0.1", dashboard_address="127.0.0.1:0")


def _plan(home: Path, trials: int = 5):
    text = SPEC.format(home=home, trials=trials)
    return prepare(parse_spec(text), text, None)


def _experiment(store: SqlStore, plan) -> int:
    return store.create_experiment(name="tune-cluster", spec_text=plan.spec_text, spec_hash=plan.spec_hash,
                                   spec_path=None, fingerprint={}, seed=0, command_line="test",
                                   jvmlab_version="test", artifacts_dir=str(store.url))


def _tune(plan, store, exp, art, client, executor):
    measurer = ClusterMeasurer(plan, store, exp, art, client, executor=executor)
    _config, result, measurer = run_tune(plan, store, exp, art, None, measurer=measurer)
    return result, measurer


def test_the_better_config_wins_on_two_nodes_with_every_block_whole_on_one_node(tmp_path: Path,
                                                                                  jdk17_home: Path) -> None:
    _better_config_wins(SqlStore(f"sqlite:///{tmp_path / 'lab.db'}"), tmp_path, jdk17_home)


def test_the_same_on_a_postgresql_store(tmp_path: Path, jdk17_home: Path, pg_server) -> None:
    from pg_server import fresh_database

    _better_config_wins(SqlStore(fresh_database(pg_server)), tmp_path, jdk17_home)


def _better_config_wins(store: SqlStore, tmp_path: Path, jdk17_home: Path) -> None:
    plan = _plan(jdk17_home)
    exp = _experiment(store, plan)
    art = tmp_path / "art"
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        slow = sorted(client.scheduler_info(n_workers=-1)["workers"])[1]
        executor = SurfaceExecutor({slow: 1.25})  # one node 25% slower: pooled, it would swamp 0.7 vs 1.0 noise
        result, measurer = _tune(plan, store, exp, art, client, executor)
        assert measurer.width == 2 and stored_width(store, exp) == 2
        assert "-Dfake.mean_s=0.7" in result.winner.flags
        _ratio, (lo, hi) = result.confirmations[0].against["baseline"]
        assert lo <= 0.7 <= hi and "faster" in result.confirmations[0].verdicts["baseline"]

        invocations = store.invocations(exp)
        assert measurer.measured == len(invocations) == result.invocations
        assert max(Counter((i.cell_id, i.block) for i in invocations).values()) == 1
        nodes = store.invocation_nodes(exp)
        per_block: dict[int, set[str | None]] = defaultdict(set)
        for inv in invocations:
            per_block[inv.block].add(nodes[inv.id])
        assert all(len(names) == 1 and None not in names for names in per_block.values())
        assert {n for names in per_block.values() for n in names} == set(store.nodes(exp))  # both nodes took blocks

        again, replay = _tune(plan, store, exp, art, client, executor)  # --resume: all read back
    assert replay.measured == 0 and replay.replayed == result.invocations
    assert again.winner == result.winner and len(store.invocations(exp)) == len(invocations)


def test_a_task_failing_on_its_node_is_an_infeasible_trial_with_the_reason(tmp_path: Path, jdk17_home: Path) -> None:
    plan = _plan(jdk17_home, trials=3)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = _experiment(store, plan)
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        result, _ = _tune(plan, store, exp, tmp_path / "art", client,
                          SurfaceExecutor({}, fail_on="-Dfake.mean_s=1.3"))
    infeasible = [t for t in result.trials if "-Dfake.mean_s=1.3" in t.config.flags]
    assert infeasible and all(t.state == "infeasible" and "could not start it" in (t.reason or "")
                              for t in infeasible)
    failed = [i for i in store.invocations(exp) if i.status != "ok"]
    assert failed and all("could not start it" in (i.reason or "") for i in failed)


def test_workers_that_vanish_stop_the_run_with_one_line(tmp_path: Path, jdk17_home: Path) -> None:
    plan = _plan(jdk17_home)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = _experiment(store, plan)
    with _cluster(1) as cluster, distributed.Client(cluster) as client:
        measurer = ClusterMeasurer(plan, store, exp, tmp_path / "art", client, executor=SurfaceExecutor({}),
                                   node_wait_s=3.0)
        cluster.scale(0)
        deadline = time.monotonic() + 20
        while client.scheduler_info(n_workers=-1)["workers"] and time.monotonic() < deadline:
            time.sleep(0.1)
        started = time.monotonic()
        with pytest.raises(UserError, match="no usable Dask worker for 3 s") as stopped:
            measurer.measure("a", ("-Dfake.mean_s=1.0",), block=1, position=0)
    assert time.monotonic() - started < 15 and "--resume" in str(stopped.value)
    assert store.invocations(exp) == []


class KillOnce(SurfaceExecutor):
    """SIGKILLs its worker process the first time it runs ``kill_on`` (a marker file says it did)."""

    def __init__(self, marker: Path, kill_on: str) -> None:
        super().__init__({})
        self.marker, self.kill_on = marker, kill_on

    def run(self, plan: InvocationPlan, probes=()) -> ProcessResult:
        import os
        import signal

        if self.kill_on in plan.argv:
            try:
                os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                pass
            else:
                os.kill(os.getpid(), signal.SIGKILL)
        return super().run(plan, probes)


@pytest.mark.slow
def test_a_worker_killed_mid_slot_reruns_its_block_elsewhere_and_loses_nothing(tmp_path: Path,
                                                                              jdk17_home: Path) -> None:
    import sys

    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # worker processes cannot import this file
    plan = _plan(jdk17_home, trials=3)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = _experiment(store, plan)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, resources={"jvm": 1}, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster, \
            distributed.Client(cluster) as client:
        client.wait_for_workers(2, timeout=120)
        result, _ = _tune(plan, store, exp, tmp_path / "art", client,
                          KillOnce(tmp_path / "killed", "-Dfake.mean_s=0.7"))
    assert (tmp_path / "killed").exists()
    assert any("re-runs on another node" in h for h in result.hazards)
    invocations = store.invocations(exp)
    assert max(Counter((i.cell_id, i.block) for i in invocations).values()) == 1
    assert all(i.status == "ok" for i in invocations) and len(invocations) == result.invocations
    assert any("its pairs span two nodes" in h for h in result.hazards)  # said, since its node offset no longer cancels
    assert "-Dfake.mean_s=0.7" in result.winner.flags


@pytest.mark.jvm
def test_tune_with_an_unreachable_scheduler_is_one_line_exit_2_and_creates_nothing(tmp_path: Path,
                                                                                   jdk17_home: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "tune.toml").write_text(SPEC.format(home=jdk17_home, trials=2))
    proc = run_jvmlab("tune", "tune.toml", "--store", "lab.db", "--cluster", f"tcp://127.0.0.1:{port}",
                      cwd=tmp_path, timeout=120)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and "cannot reach the Dask scheduler" in lines[0], proc.stderr
    assert not (tmp_path / "lab-artifacts").exists()
    if (tmp_path / "lab.db").exists():
        with pytest.raises(UserError):  # no experiment was created
            SqlStore(f"sqlite:///{tmp_path / 'lab.db'}").latest_experiment()


class BusyNeighbour(SurfaceExecutor):
    """Another process (not a child: double-forked) burns CPU while the invocation runs."""

    def __init__(self) -> None:
        super().__init__({}, sleep_s=0.8)

    def run(self, plan: InvocationPlan, probes=()) -> ProcessResult:
        import os

        child = os.fork()
        if child == 0:
            if os.fork() == 0:
                end = time.monotonic() + 0.8
                while time.monotonic() < end:
                    pass
            os._exit(0)
        os.waitpid(child, 0)
        return super().run(plan, probes)


def test_a_node_busy_with_other_processes_is_named_for_its_block(tmp_path: Path, jdk17_home: Path) -> None:
    plan = _plan(jdk17_home)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = _experiment(store, plan)
    with _cluster(1) as cluster, distributed.Client(cluster) as client:
        measurer = ClusterMeasurer(plan, store, exp, tmp_path / "art", client, executor=BusyNeighbour())
        got = measurer.measure_blocks({1: [("a", ("-Dfake.mean_s=1.0",))]})
        node = next(iter(measurer.nodes))
        said = measurer.block_hazards()
    assert isinstance(got[1][0], dict)
    assert len(said) == 1 and said[0].startswith(f"node {node} busy: other processes used")


def test_a_node_with_another_jdk_build_is_refused_and_the_tuning_runs_on_the_others(tmp_path: Path,
                                                                                     jdk17_home: Path) -> None:
    import os
    import subprocess
    import sys

    from jvmlab.cluster.node import JDK_MAP_ENV

    other = tmp_path / "jdk17-other"
    other.mkdir()
    (other / "release").write_text((jdk17_home / "release").read_text().replace(
        'JAVA_RUNTIME_VERSION="', 'JAVA_RUNTIME_VERSION="0-other-'))
    plan = _plan(jdk17_home, trials=2)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = _experiment(store, plan)
    with _cluster(1) as cluster, distributed.Client(cluster) as client:
        odd = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", cluster.scheduler_address,
                                "--nthreads", "1", "--resources", "jvm=1", "--host", "127.0.0.1",
                                "--no-dashboard", "--no-nanny"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, JDK_MAP_ENV: f"{jdk17_home}={other}"})
        try:
            client.wait_for_workers(2, timeout=60)
            result, measurer = _tune(plan, store, exp, tmp_path / "art", client, SurfaceExecutor({}))
        finally:
            odd.terminate()
            odd.wait(timeout=30)
    refused = {n: why for n, (_, why) in store.nodes(exp).items() if why}
    assert len(refused) == 1 and measurer.width == 1
    (name, why), = refused.items()
    assert "another build" in why and "JAVA_RUNTIME_VERSION" in why
    assert any(h.endswith(f"node {name} refused: {why}") for h in result.hazards)
    assert name not in set(store.invocation_nodes(exp).values()) and store.invocations(exp)
