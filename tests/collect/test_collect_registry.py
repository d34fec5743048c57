"""The collector registry: spec keys, --collect names, docs table and the runner's list all
come from it, so a collector registered here (and nowhere else) is validated in the spec,
accepted on the command line and run on a real JVM."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from jvmlab.collect import registry
from jvmlab.collect.base import NullProbe
from jvmlab.collect.registry import BuildContext, CollectorEntry, CollectSettings, Option
from jvmlab.errors import UserError
from jvmlab.execute.options import RunOptions
from jvmlab.execute.session import run_experiment
from jvmlab.model.collected import Collected
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import ProcessResult
from jvmlab.plan.prepare import prepare
from jvmlab.spec.load import parse_spec
from jvmlab.spec.model import Collect
from jvmlab.store.sql import SqlStore

REPO = Path(__file__).resolve().parents[2]


def test_docs_table_is_the_registry() -> None:
    text = (REPO / "docs" / "collectors.md").read_text()
    found = re.search(r"<!-- collectors table[^\n]*-->\n(.*?)\n<!-- end of collectors table -->", text, re.S)
    assert found is not None, "docs/collectors.md lost its generated table markers"
    assert found[1] == registry.docs_table(), (
        "docs/collectors.md differs from the registry; paste the output of\n  .venv/bin/python -c "
        "'from jvmlab.collect.registry import docs_table; print(docs_table())'")


def test_builtin_names_defaults_and_order() -> None:
    assert registry.names() == ["workload_metrics", "gc", "proc", "progress", "jfr", "startup", "flag_effect"]
    defaults = registry.defaults()
    assert defaults["gc"] is True and defaults["jfr"] is False and defaults["proc_interval_ms"] == 100
    assert "jmh" not in defaults  # not switchable: a JMH workload's scores are its result
    help_text = registry.cli_help()
    assert all(name in help_text for name in registry.names()) and "jfr=profile" in help_text


def test_spec_keys_are_checked_against_the_registry() -> None:
    with pytest.raises(UserError, match=r"lab.toml: unknown key 'gcc' in \[collect\] \(did you mean 'gc'\?\)"):
        registry.check_table(Collect(gcc=True), "lab.toml")
    with pytest.raises(UserError, match=r"proc_interval_ms: must be at least 5 \(got 2\)"):
        registry.check_table(Collect(proc_interval_ms=2))
    with pytest.raises(UserError, match="gc: must be true or false"):
        registry.check_table(Collect(gc="yes"))
    assert registry.check_table(Collect(proc=False, jfr=True)).values["jfr"] is True


def test_unknown_collect_key_stops_check_before_any_jdk_is_looked_at() -> None:
    spec = parse_spec('[workload]\nbuiltin = "hello"\n[jvms]\nj = "/no/such/jdk"\n[collect]\nporc = false\n')
    with pytest.raises(UserError, match=r"unknown key 'porc' in \[collect\] \(did you mean 'proc'\?\)"):
        prepare(spec, "", None)


def test_command_line_overrides_come_from_the_registry() -> None:
    assert registry.parse_overrides(["workload-metrics"], ["gc"]) == {"workload_metrics": True, "gc": False}
    with pytest.raises(UserError, match="unknown collector 'jmh'"):
        registry.parse_overrides(["jmh"], [])
    with pytest.raises(UserError, match="proc_interval_ms"):
        CollectSettings(proc_interval_ms=1)


def test_settings_survive_pickling_for_cluster_tasks() -> None:
    import pickle

    settings = CollectSettings(proc=False, jfr_settings="profile")
    again = pickle.loads(pickle.dumps(settings))
    assert again == settings and again.jfr_settings == "profile" and not again.proc


# -- a collector that exists only in this test ------------------------------------------


class _ClassLogProbe(NullProbe):
    """Asks the JVM to log class loading into the invocation's folder, then counts lines."""

    def __init__(self, ctx: ProbeContext, prefix: str) -> None:
        self.path = ctx.artifacts_dir.absolute() / "classlog.txt"
        self.prefix = prefix

    def jvm_args(self) -> list[str]:
        return [f"-Xlog:class+load=info:file={self.path}"]

    def finish(self, result: ProcessResult) -> Collected:
        if not self.path.is_file():
            return Collected()
        count = sum(1 for line in self.path.read_text().splitlines() if f" {self.prefix}" in line)
        return Collected(metrics={"workload.classlog_classes": float(count)},
                         metric_units={"workload.classlog_classes": "count"})


class _ClassLogCollector:
    name = "classlog"

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def probe(self, ctx: ProbeContext) -> _ClassLogProbe:
        return _ClassLogProbe(ctx, self.prefix)


def _build(ctx: BuildContext) -> _ClassLogCollector:
    return _ClassLogCollector(str(ctx.settings.classlog_prefix))


@pytest.fixture
def classlog() -> Iterator[CollectorEntry]:
    entry = registry.register(CollectorEntry(
        "classlog", "classes loaded, from -Xlog:class+load", "`workload.classlog_classes`", _build,
        default_on=False, options=(Option("classlog_prefix", "java.lang.", "count classes of this package"),)))
    yield entry
    registry.REGISTRY.pop("classlog")


def test_a_registered_collector_is_in_the_names_the_defaults_and_the_docs(classlog: CollectorEntry) -> None:
    assert "classlog" in registry.names() and registry.defaults()["classlog_prefix"] == "java.lang."
    assert "`classlog` | off" in registry.docs_table() and "classlog (off by default)" in registry.cli_help()
    assert registry.parse_overrides(["classlog"], []) == {"classlog": True}
    with pytest.raises(UserError, match=r"did you mean 'classlog_prefix'"):
        registry.check_table(Collect(classlog_prefx="x"))
    with pytest.raises(ValueError, match="taken"):
        registry.register(CollectorEntry("other", "", options=(Option("classlog_prefix", "", ""),)))


@pytest.mark.jvm
def test_a_registered_collector_runs_on_a_real_jvm(classlog: CollectorEntry, jdk17_home: Path,
                                                   tmp_path: Path) -> None:
    text = f'''
[workload]
builtin = "hello"
[jvms]
j = "{jdk17_home}"
[run]
invocations = 2
warmup = 0
[collect]
proc = false
flag_effect = false
classlog_prefix = "java.util."
'''
    plan = prepare(parse_spec(text), text, None, check_flags=False)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")

    class Quiet:
        def planned(self, *a: object) -> None: ...
        def starting(self, *a: object) -> None: ...
        def finished(self, *a: object) -> None: ...
        def warn(self, hazard: object) -> None: ...
        def extended(self, *a: object) -> None: ...

    options = RunOptions(artifacts_root=tmp_path / "art", collect_overrides=registry.parse_overrides(["classlog"], []))
    exp = run_experiment(plan, store, options, Quiet())
    invs = store.invocations(exp)
    assert len(invs) == 2 and all(i.status == "ok" for i in invs)
    counts = [i.metrics.get("workload.classlog_classes") for i in invs]
    assert all(c is not None and c > 20 for c in counts), counts  # HelloWorld loads dozens of java.util classes
    assert store.metric_units(exp)["workload.classlog_classes"] == "count"
    # the built-in collectors kept running beside it (gc on by default), proc was switched off
    assert len(store.documents([i.id for i in invs], "gc")) == 2
    assert not any(name.startswith("mem.") for i in invs for name in i.metrics)


def test_overrides_round_trip_through_the_stored_run_options() -> None:
    """A resumed run repeats `--collect jfr=profile` as such (it once came back as two names,
    `jfr` and `jfr_settings`, and the second is not a collector)."""
    from jvmlab.execute.resume import merge_stored, options_record, resume_command
    from jvmlab.model.documents import RunOptionsRecord

    given = registry.parse_overrides(["jfr=profile", "startup"], ["proc"])
    options = RunOptions(artifacts_root=Path("/tmp/a"), collect_overrides=given)
    record = options_record(options)
    assert record.collect == ("jfr=profile", "startup") and record.no_collect == ("proc",)
    again = merge_stored(RunOptions(artifacts_root=Path("/tmp/a")), record)
    assert again.collect_overrides == given
    assert "--collect jfr=profile --collect startup --no-collect proc" in resume_command("s.toml", "lab.db", options)
    old = merge_stored(RunOptions(artifacts_root=Path("/tmp/a")),
                       RunOptionsRecord.from_json({"collect": ["jfr", "jfr_settings"]}))
    assert old.collect_overrides == {"jfr": True}
