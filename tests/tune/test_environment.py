"""Tune trials get the machine environment `run` gives a cell (real JVMs): the JDK copied to
tmpfs, a CDS archive made once per distinct configuration that asks for one, CPU/memory
limits, and the environment torn down at the end, also when the session is interrupted."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from jvmlab.execute.windows import default_executor
from jvmlab.machine.fingerprint import fingerprint
from jvmlab.model.documents import ArchivesDocument, TuneDocument
from jvmlab.plan.prepare import prepare
from jvmlab.spec.load import parse_spec
from jvmlab.store import open_store
from jvmlab.tune.flow import run_tune
from jvmlab.tune.jvm import JvmMeasurer
from testing_jdks import JDK17_HOME, need

pytestmark = pytest.mark.jvm

SPEC = """
name = "tune-env"
[workload]
builtin = "hello"
[jvms]
default = "{jdk}"
[environment]
{environment}
[tune]
objective = "wall_s"
budget = {{ trials = {trials} }}
min_blocks = 2
max_blocks = 2
confirm_max_blocks = 2
[tune.params.gc]
type = "categorical"
values = {{ serial = "-XX:+UseSerialGC", parallel = "-XX:+UseParallelGC" }}
[tune.params.cds]
type = "categorical"
values = {{ off = "", on = {{ prepare = "cds-archive" }} }}
"""


@pytest.fixture()
def shm_dir() -> Iterator[Path]:
    """A private folder on /dev/shm (tmpfs), removed afterwards."""
    if not Path("/dev/shm").is_dir():
        pytest.skip("no /dev/shm")
    path = Path("/dev/shm") / f"jvmlab-tune-test-{os.getpid()}-{os.urandom(3).hex()}"
    path.mkdir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _session(tmp_path: Path, environment: str, trials: int = 4):
    text = SPEC.format(jdk=need(JDK17_HOME), environment=environment, trials=trials)
    plan = prepare(parse_spec(text), text, None)
    store = open_store(str(tmp_path / "lab.db"))
    exp = store.create_experiment(name="t", spec_text=text, spec_hash=plan.spec_hash, spec_path=None,
                                  fingerprint=fingerprint(plan.jdk_homes), seed=1, command_line="test",
                                  jvmlab_version="test", artifacts_dir=str(tmp_path / "art"))
    return plan, store, exp


def _argv_by_config(store, exp: int) -> dict[str, list[list[str]]]:
    config = {c.id: c.levels["config"] for c in store.cells(exp)}
    out: dict[str, list[list[str]]] = {}
    for inv in store.invocations(exp):
        out.setdefault(config[inv.cell_id], []).append(list(inv.argv))
    return out


def test_trials_run_from_the_tmpfs_copy_with_a_cds_archive_made_once_per_configuration(tmp_path, shm_dir):
    plan, store, exp = _session(tmp_path, f'jdk_location = ["tmpfs"]\ntmpfs_dir = "{shm_dir}"')
    _config, result, _measurer = run_tune(plan, store, exp, tmp_path / "art", default_executor())
    runs = _argv_by_config(store, exp)
    assert sum(map(len, runs.values())) == result.invocations
    copies = list(shm_dir.iterdir())
    assert not copies, copies  # torn down at the end of the session
    for key, argvs in runs.items():
        for argv in argvs:  # every invocation ran the JDK copied to tmpfs, as `run` would
            assert argv[0].startswith(str(shm_dir)), argv[0]
        archived = [a for a in argvs[0] if a.startswith("-XX:SharedArchiveFile=")]
        assert "@cds-archive" not in argvs[0]
        if "@cds-archive" in key:
            assert len(archived) == 1 and all(archived[0] in a for a in argvs)  # the same archive each time
        else:
            assert not archived
    made = sorted((tmp_path / "art" / "cds").glob("*.jsa"))
    with_cds = [k for k in runs if "@cds-archive" in k]
    assert with_cds and len(made) == len(with_cds)  # one training run per distinct configuration
    doc = store.record(exp, ArchivesDocument)
    assert doc is not None and len(doc.archives) == len(with_cds)
    assert all(a.app_classes_from_archive > 0 for a in doc.archives)  # the JVM really used it
    tune_doc = store.record(exp, TuneDocument)
    assert tune_doc is not None
    assert "@cds-archive" not in json.dumps(list(tune_doc.winner.run_flags or ()))


class _Interrupting:
    """The real executor, then a Ctrl-C in the middle of the n-th invocation."""

    def __init__(self, n: int) -> None:
        self.inner, self.n = default_executor(), n

    def run(self, plan, probes=()):
        self.n -= 1
        if self.n < 0:
            raise KeyboardInterrupt
        return self.inner.run(plan, probes)


def test_an_interrupted_session_still_tears_the_environment_down(tmp_path, shm_dir):
    plan, store, exp = _session(tmp_path, f'jdk_location = ["tmpfs"]\ntmpfs_dir = "{shm_dir}"')
    with pytest.raises(KeyboardInterrupt):
        run_tune(plan, store, exp, tmp_path / "art", _Interrupting(3))
    assert len(store.invocations(exp)) == 3
    assert not list(shm_dir.iterdir())  # the tmpfs copy is gone


def test_a_configuration_whose_archive_cannot_be_made_is_a_failed_measurement_not_a_crash(tmp_path):
    plan, store, exp = _session(tmp_path, "")
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "cds").write_text("a file where the archive folder should be")
    with JvmMeasurer(plan, store, exp, tmp_path / "art", default_executor()) as measurer:
        got = measurer.measure("default", ("-XX:+UseSerialGC", "@cds-archive"), 1, 0)
        plain = measurer.measure("default", ("-XX:+UseSerialGC",), 1, 1)
    assert isinstance(got, str) and "cds" in got and "failed" in got
    assert isinstance(plain, dict) and plain["wall_s"] > 0


def _can_make_groups() -> bool:
    from jvmlab.errors import UserError
    from jvmlab.machine import cgroup

    try:
        cgroup.find_hierarchy(["cpu", "memory"])
    except UserError:
        return False
    return True


LIMITED = SPEC.replace('''[tune.params.cds]
type = "categorical"
values = {{ off = "", on = {{ prepare = "cds-archive" }} }}''', '''[tune.params.heap]
type = "categorical"
values = {{ small = "-Xmx64m", big = "-Xmx128m" }}''')


@pytest.mark.skipif(not _can_make_groups(), reason="cgroups cannot be created here (not root?)")
def test_trials_run_inside_the_memory_limit_with_the_jvm_view_of_each_configuration(tmp_path):
    text = LIMITED.format(jdk=need(JDK17_HOME), environment='memory = ["300m"]', trials=3)
    plan = prepare(parse_spec(text), text, None)
    store = open_store(str(tmp_path / "lab.db"))
    exp = store.create_experiment(name="t", spec_text=text, spec_hash=plan.spec_hash, spec_path=None,
                                  fingerprint=fingerprint(plan.jdk_homes), seed=1, command_line="test",
                                  jvmlab_version="test", artifacts_dir=str(tmp_path / "art"))
    run_tune(plan, store, exp, tmp_path / "art", default_executor())
    config = {c.id: c.levels["config"] for c in store.cells(exp)}
    rows = store.invocations(exp)
    assert rows
    for inv in rows:
        key = config[inv.cell_id]
        assert inv.metrics["jvm.memory_limit_bytes"] == 300 * (1 << 20)  # the JVM saw the cgroup limit
        assert inv.metrics["cgroup.peak_bytes"] > 0  # measured in its own group
        heap = 64 if "-Xmx64m" in key else 128 if "-Xmx128m" in key else None
        if heap is not None:  # the view was taken for this configuration, not the plan's cell
            assert inv.metrics["jvm.max_heap_bytes"] == heap * (1 << 20)
