"""The JMH workload end to end: jmh-samples on real JVMs through the runner and the store,
and a fork whose flags are not its cell's refused (its invocation stored as invalid)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from jvmlab.execute.options import RunOptions
from jvmlab.execute.session import run_experiment
from jvmlab.model.process import InvocationPlan, ProcessMeasures, ProcessResult, Status
from jvmlab.plan.prepare import prepare
from jvmlab.report.jmh import jmh_table
from jvmlab.report.summary import summarize
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore
from jvmlab.workloads.jmh import PATHLESS_COLLECTOR_FLAGS

pytestmark = pytest.mark.jvm
DATA = Path(__file__).resolve().parents[1] / "importers" / "data"


class Quiet:
    def planned(self, *a): pass
    def starting(self, *a): pass
    def finished(self, *a): pass
    def warn(self, hazard): pass
    def extended(self, *a): pass


@pytest.fixture(scope="module")
def samples_lib() -> Path:
    from jvmlab.workloads.jmh_samples import RecipeUnavailable, fetch

    try:
        return fetch()
    except RecipeUnavailable as err:
        pytest.skip(str(err))


def _spec(lib: Path, home: Path, invocations: int = 2) -> str:
    from jvmlab.workloads.jmh_samples import workload_toml

    return (workload_toml(lib, ["JMHSample_01_HelloWorld"], {}, ["-wi", "0", "-i", "2", "-r", "100ms"])
            + f'[jvms]\njdk17 = "{home}"\n[factors.gc]\nserial = "-Xmx128m -XX:+UseSerialGC"\n'
            f'parallel = "-Xmx128m -XX:+UseParallelGC"\n[run]\ninvocations = {invocations}\nwarmup = 0\n')


def test_a_jmh_sample_runs_one_fork_per_invocation_on_a_real_jvm(tmp_path: Path, samples_lib: Path,
                                                                  jdk17_home: Path) -> None:
    text = _spec(samples_lib, jdk17_home)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = run_experiment(plan, store, RunOptions(artifacts_root=tmp_path / "art"), Quiet())
    invocations = store.invocations(exp)
    assert [i.status for i in invocations] == ["ok"] * 4, [i.reason for i in invocations]
    metric = "jmh.JMHSample_01_HelloWorld.wellHelloThere"
    assert store.metric_units(exp)[metric] == "ops/s"
    for inv in invocations:
        result = json.loads((Path(inv.artifacts_dir) / "jmh-result.json").read_text())
        assert result[0]["forks"] == 1 and len(result[0]["primaryMetric"]["rawData"]) == 1
        cell = next(c for c in store.cells(exp) if c.id == inv.cell_id)
        jvmlab_own = [a for a in result[0]["jvmArgs"] if inv.artifacts_dir in a or a in PATHLESS_COLLECTOR_FLAGS]
        assert [a for a in result[0]["jvmArgs"] if a not in jvmlab_own] == cell.flags
        assert inv.metrics[metric] == pytest.approx(result[0]["primaryMetric"]["score"])
    table = jmh_table(summarize(store, exp, metric))
    assert table is not None and [r.metric for r in table.rows] == [metric]
    assert set(table.rows[0].comparisons) == {"jdk17 gc=parallel"} and not table.rows[0].lower_is_better


def test_a_second_jmh_holding_its_lock_does_not_fail_the_invocations(tmp_path: Path, samples_lib: Path,
                                                                     jdk17_home: Path) -> None:
    """JMH's lock file (/tmp/jmh.lock, in java.io.tmpdir) held by another process, as a second JMH holds it."""
    import fcntl

    text = _spec(samples_lib, jdk17_home, invocations=1)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    with Path("/tmp/jmh.lock").open("a") as held:
        try:
            fcntl.lockf(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pass  # another JMH holds it already: the case under test
        exp = run_experiment(plan, store, RunOptions(artifacts_root=tmp_path / "art"), Quiet())
    invocations = store.invocations(exp)
    assert [i.status for i in invocations] == ["ok"] * 2, [i.reason for i in invocations]


class WrongForkExecutor:
    """Writes a real JMH result whose fork ran with other flags (-Xmx256m -XX:+UseSerialGC)."""

    def run(self, plan: InvocationPlan, probes) -> ProcessResult:
        shutil.copy(DATA / "jmh-jdk17-serial.json", plan.artifacts_dir / "jmh-result.json")
        return ProcessResult(Status.OK, None, 0, None, ProcessMeasures(1.0, 0.5, 0.1, 1 << 20, 1, 0, 1, 1),
                             None, time.time())


def test_a_fork_whose_jvm_args_do_not_match_the_cell_is_refused(tmp_path: Path, samples_lib: Path,
                                                               jdk17_home: Path) -> None:
    text = _spec(samples_lib, jdk17_home, invocations=1)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = run_experiment(plan, store, RunOptions(artifacts_root=tmp_path / "art"), Quiet(),
                         executor=WrongForkExecutor())
    by_cell = {c.id: c.name for c in store.cells(exp)}
    results = {by_cell[i.cell_id]: i for i in store.invocations(exp)}
    # serial: -Xmx128m in the cell, -Xmx256m in the fork; parallel: another collector too.
    for name, inv in results.items():
        assert inv.status == "invalid", name
        assert "jvmArgs are not the cell's flags" in (inv.reason or "")
        assert not any(m.startswith("jmh.") for m in inv.metrics)
    assert "added -Xmx256m -XX:+UseSerialGC" in (results["jdk17 gc=parallel"].reason or "")
