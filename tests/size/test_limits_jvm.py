"""[environment] cpus / memory on real JVMs: each invocation in its own cgroup, the JVM's view
recorded, an OOM kill by the limit recorded as such, and a clear refusal where cgroups cannot
be made."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.execute.options import RunOptions
from jvmlab.execute.session import run_experiment
from jvmlab.machine import cgroup
from jvmlab.machine.limits import parse_view
from jvmlab.plan.prepare import prepare
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore
from testing_cgroups import needs_cgroups


class Quiet:
    def planned(self, *a): pass
    def starting(self, *a): pass
    def finished(self, *a): pass
    def warn(self, hazard): pass
    def extended(self, *a): pass




def _run(tmp_path: Path, text: str) -> tuple[SqlStore, int]:
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    return store, run_experiment(plan, store, RunOptions(artifacts_root=tmp_path / "art"), Quiet())


def _leftover_groups() -> list[Path]:
    mounts = cgroup._cgroup_mounts()
    own = cgroup._own_paths()
    roots = [mounts[c] / own.get(c, "/").lstrip("/") for c in ("cpu", "memory", "cpuset") if c in mounts]
    return [p for r in roots if r.is_dir() for p in r.glob(f"jvmlab-{os.getpid()}-*")]


@pytest.mark.jvm
@needs_cgroups
def test_cpus_1_and_2_are_what_the_jvm_believes(tmp_path: Path, jdk17_home: Path) -> None:
    text = f'''[workload]
builtin = "busy"
args = ["--ms", "50"]
[jvms]
j17 = "{jdk17_home}"
[environment]
cpus = [1, 2]
memory = ["512m"]
[run]
invocations = 1
warmup = 0
'''
    store, exp = _run(tmp_path, text)
    by_cell = {c.id: c for c in store.cells(exp)}
    seen = {}
    for inv in store.invocations(exp):
        assert inv.status == "ok", inv.reason
        seen[dict(by_cell[inv.cell_id].levels)["cpus"]] = inv.metrics
    assert seen["1"]["jvm.active_processors"] == 1
    assert seen["2"]["jvm.active_processors"] == 2
    assert seen["1"]["jvm.memory_limit_bytes"] == 512 << 20
    # default heap is a quarter of the limit the JVM saw, not of the machine's RAM
    assert seen["1"]["jvm.max_heap_bytes"] <= 128 << 20
    assert seen["1"]["cgroup.oom_kills"] == 0
    assert _leftover_groups() == []


@pytest.mark.jvm
@needs_cgroups
def test_cpuset_mode_pins_to_one_cpu(tmp_path: Path, jdk25_home: Path) -> None:
    text = f"""[workload]
builtin = "busy"
args = ["--ms", "20"]
[jvms]
j25 = "{jdk25_home}"
[environment]
cpus = [1]
cpu_limit = "cpuset"
[run]
invocations = 1
warmup = 0
"""
    store, exp = _run(tmp_path, text)
    [inv] = store.invocations(exp)
    assert inv.status == "ok", inv.reason
    assert inv.metrics["jvm.active_processors"] == 1
    assert "cgroup.oom_kills" not in inv.metrics  # no memory limit, no memory group


@pytest.mark.jvm
@needs_cgroups
def test_an_oom_kill_by_the_memory_limit_is_recorded_as_such(tmp_path: Path, jdk17_home: Path) -> None:
    text = f'''[workload]
builtin = "busy"
[jvms]
j17 = "{jdk17_home}"
[factors.heap]
big = "-Xms512m -Xmx512m -XX:+AlwaysPreTouch"
[environment]
memory = ["96m"]
[run]
invocations = 1
warmup = 0
max_consecutive_failures = 1
'''
    store, exp = _run(tmp_path, text)
    [inv] = store.invocations(exp)
    assert inv.status == "signaled"
    assert inv.reason.startswith("OOM-killed by the cgroup memory limit of 96 MiB"), inv.reason
    assert inv.metrics["cgroup.oom_kills"] >= 1
    assert inv.metrics["jvm.memory_limit_bytes"] == 96 << 20
    assert _leftover_groups() == []


def test_no_cgroups_is_refused_before_anything_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                    jdk17_home: Path) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    text = f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n[environment]\ncpus = [1]\n'
    with pytest.raises(UserError, match="only root can create"):
        _run(tmp_path, text)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    assert store.experiments() == []


def test_jvm_view_is_read_from_flags_and_container_trace() -> None:
    text = """[0.001s][trace][os,container] CPU Quota count based on quota/period: 1
[0.001s][trace][os,container] OSContainer::active_processor_count: 1
[0.001s][trace][os,container] Memory Limit is: 536870912
     int ActiveProcessorCount                     = -1                                        {product} {default}
   size_t MaxHeapSize                              = 134217728                                 {product} {ergonomic}
"""
    view = parse_view(text)
    assert (view.active_processors, view.memory_limit_bytes, view.max_heap_bytes) == (1, 512 << 20, 128 << 20)
    assert view.active_processor_count_flag == -1
    assert parse_view("nothing").active_processors is None


def test_sizes_and_cpu_lists() -> None:
    assert cgroup.parse_size_bytes("4g") == 4 << 30 and cgroup.parse_size_bytes("512M") == 512 << 20
    assert cgroup.expand_cpu_list("0-2,5") == [0, 1, 2, 5]
    with pytest.raises(ValueError):
        cgroup.parse_size_bytes("lots")


def test_v2_files_written_and_read(tmp_path: Path) -> None:
    """cgroup v2 is not mounted with controllers here: check the files jvmlab writes and reads
    against a folder laid out like the unified root (the kernel's files are plain files)."""
    (tmp_path / "cgroup.subtree_control").write_text("")
    (tmp_path / "cpuset.cpus.effective").write_text("0-3\n")
    hierarchy = cgroup.Hierarchy(2, {"memory": tmp_path, "cpu": tmp_path})
    group = cgroup.create(hierarchy, "g1", cgroup.Limits(cpus=1.5, memory_bytes=96 << 20))
    folder = tmp_path / "g1"
    assert (folder / "memory.max").read_text() == str(96 << 20)
    assert (folder / "cpu.max").read_text() == "150000 100000"
    assert set((tmp_path / "cgroup.subtree_control").read_text().split()) == {"+memory", "+cpu"}
    assert group.procs_files == [folder / "cgroup.procs"]
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    (folder / "memory.peak").write_text("1234\n")
    assert group.oom_kills() == 1 and group.peak_bytes() == 1234
    argv = cgroup.enter_argv(group, ["/usr/bin/java", "-version"])
    assert argv[:3] == ["/bin/sh", "-c", cgroup.ENTER_SCRIPT] and argv[-3:] == ["--", "/usr/bin/java", "-version"]
    pinned = cgroup.create(cgroup.Hierarchy(2, {"cpuset": tmp_path}), "g2", cgroup.Limits(cpus=2, cpu_mode="cpuset"))
    assert (tmp_path / "g2" / "cpuset.cpus").read_text() == "0,1"
    for f in list(folder.iterdir()) + list((tmp_path / "g2").iterdir()):
        f.unlink()
    group.remove()
    pinned.remove()
    assert not folder.exists()
