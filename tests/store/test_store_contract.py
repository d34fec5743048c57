"""The store contract, run against a real SQLite file (and any other backend given by URL)."""

from __future__ import annotations

import inspect
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.model.collected import Collected, Timeline
from jvmlab.model.documents import (
    DocumentError,
    HeapSweepDocument,
    LoadHistogramDocument,
    ProbeOutcome,
    RunOptionsRecord,
    TuneClusterDocument,
    Verdict,
)
from jvmlab.model.hazards import Hazard
from jvmlab.model.process import ProcessMeasures, ProcessResult, Status
from jvmlab.store import open_store, store_url
from jvmlab.store.migrations import LATEST
from jvmlab.store.protocol import Store
from jvmlab.store.sql import SqlStore
from pg_server import fresh_database

BACKENDS = ["sqlite", "postgresql"]


def _url(backend: str, request: pytest.FixtureRequest, tmp_path: Path, name: str = "lab.db") -> str:
    """A fresh, empty store of this backend: an SQLite file, or a new database on the real
    PostgreSQL server the session started on 127.0.0.1."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / name}"
    return fresh_database(request.getfixturevalue("pg_server"))


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    """The store as every caller gets it: chosen by ``open_store`` from the URL."""
    db = open_store(_url(request.param, request, tmp_path))
    yield db
    db.close()


def _result(wall_s: float = 1.5, status: Status = Status.OK, reason: str | None = None) -> ProcessResult:
    measures = ProcessMeasures(wall_s=wall_s, user_s=1.0, sys_s=0.25, max_rss_bytes=123 << 20, minor_faults=10,
                               major_faults=0, vol_ctx_switches=5, invol_ctx_switches=2, ready_s=None)
    return ProcessResult(status, reason, 0 if status == Status.OK else 1, None, measures, 42, time.time(),
                         stdout_tail="out", stderr_tail="err")


def _experiment(store: Store, spec_hash: str = "h1") -> tuple[int, int]:
    exp = store.create_experiment(name="e", spec_text="[workload]\nbuiltin='hello'\n", spec_hash=spec_hash,
                                  spec_path=None, fingerprint={"kernel": "x"}, seed=1, command_line="jvmlab run",
                                  jvmlab_version="0", artifacts_dir="/tmp")
    cell = store.add_cell(exp, idx=0, name="default", jvm="default", jdk={"home": "/j"}, levels={"heap": "s"},
                          requested_flags=["-Xmx1g"], flags=["-Xmx1g"], final_flags={"MaxHeapSize": "1073741824"},
                          argv=["java", "-Xmx1g"])
    return exp, cell


def test_round_trip_of_everything_an_invocation_carries(store: Store) -> None:
    exp, cell = _experiment(store)
    collected = Collected(metrics={"gc.pause_count": 3.0, "workload.x_ms": 1.25},
                          metric_units={"workload.x_ms": "ms"},
                          timelines={"mem.rss_bytes": Timeline((0.0, 0.1), (1.0, 2.0), "bytes")},
                          documents={"gc": {"pauses": {"count": 3}}},
                          hazards=[Hazard("flag-not-in-effect", "-XX:+UseLargePages: no pages", "hint", "default")])
    inv = store.record_invocation(exp, cell, block=0, position=0, result=_result(), collected=collected,
                                  argv=["java", "-version"], artifacts_dir="/tmp/a", node="tcp://127.0.0.1:9",
                                  host="node-3")
    [got] = store.invocations(exp)
    assert got.id == inv and got.wall_s == 1.5 and got.max_rss_bytes == 123 << 20
    assert (got.node, got.host) == ("tcp://127.0.0.1:9", "node-3")  # where it ran: columns (issue 30 item 5)
    assert got.metrics == {"gc.pause_count": 3.0, "workload.x_ms": 1.25}
    assert got.value("cpu_s") == 1.25 and got.value("gc.pause_count") == 3.0 and got.value("nothing") is None
    assert store.timelines([inv])[inv]["mem.rss_bytes"] == ("bytes", [0.0, 0.1], [1.0, 2.0])
    assert store.documents([inv], "gc") == {inv: {"pauses": {"count": 3}}}
    assert store.metric_units(exp)["workload.x_ms"] == "ms"
    [hazard] = store.hazards(exp)
    assert hazard.kind == "flag-not-in-effect" and hazard.invocation_id == inv
    [c] = store.cells(exp)
    assert c.final_flags == {"MaxHeapSize": "1073741824"} and c.levels == {"heap": "s"}


def test_warmups_and_failures_are_kept_but_separable(store: Store) -> None:
    exp, cell = _experiment(store)
    store.record_invocation(exp, cell, block=-1, position=0, result=_result(), collected=Collected(),
                            argv=["java"], artifacts_dir=None)
    store.record_invocation(exp, cell, block=0, position=0, result=_result(status=Status.FAILED, reason="exit 1"),
                            collected=Collected(), argv=["java"], artifacts_dir=None)
    assert [i.block for i in store.invocations(exp)] == [0]
    assert [i.block for i in store.invocations(exp, include_warmup=True)] == [-1, 0]
    assert store.done_slots(exp) == {(0, -1), (0, 0)}
    assert store.invocation_counts()[exp] == (1, 1)


def test_a_slot_is_stored_once(store: Store) -> None:
    exp, cell = _experiment(store)
    store.record_invocation(exp, cell, block=0, position=0, result=_result(), collected=Collected(),
                            argv=["java"], artifacts_dir=None)
    with pytest.raises(UserError, match="cannot record invocation in store"):
        store.record_invocation(exp, cell, block=0, position=1, result=_result(), collected=Collected(),
                                argv=["java"], artifacts_dir=None)
    assert len(store.invocations(exp)) == 1


def test_find_resumable_and_latest(store: Store) -> None:
    first, _ = _experiment(store, "aaa")
    second, _ = _experiment(store, "bbb")
    assert store.find_resumable("aaa").id == first
    assert store.find_resumable("zzz") is None
    assert store.latest_experiment().id == second
    with pytest.raises(UserError, match="no experiment 999"):
        store.experiment(999)


def _public(cls: type) -> dict[str, inspect.Signature]:
    return {name: inspect.signature(member) for name, member in vars(cls).items()
            if callable(member) and not name.startswith("_")}


def test_the_sql_backend_has_every_method_of_the_store_protocol() -> None:
    """Callers name only ``Store``: each of its methods must exist on the SQL backend with the
    same parameters (names, kinds, defaults), so a caller typed against the protocol works."""
    wanted = _public(Store)
    assert wanted, "the protocol declares no methods"
    have = _public(SqlStore)
    missing = sorted(set(wanted) - set(have))
    assert not missing, f"SqlStore lacks {missing}"
    for name, sig in wanted.items():
        assert list(sig.parameters.values()) == list(have[name].parameters.values()), name
    assert "url" in Store.__annotations__


@pytest.mark.parametrize("backend", BACKENDS)
def test_open_store_chooses_the_backend_by_url(backend: str, request: pytest.FixtureRequest,
                                                tmp_path: Path) -> None:
    url = _url(backend, request, tmp_path)
    db = open_store(url)
    try:
        assert db.url == url and db.experiments() == []
    finally:
        db.close()


def test_schema_version_is_recorded_and_a_newer_database_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'lab.db'}"
    SqlStore(url).close()
    with sqlite3.connect(tmp_path / "lab.db") as conn:
        assert conn.execute("select max(version) from schema_version").fetchone()[0] == LATEST
        conn.execute("insert into schema_version values (?, ?, ?)", (LATEST + 1, time.time(), "future"))
    with pytest.raises(UserError, match="newer than this jvmlab understands"):
        SqlStore(url)


def test_sqlite_runs_in_wal_mode(tmp_path: Path) -> None:
    SqlStore(f"sqlite:///{tmp_path / 'lab.db'}").close()
    with sqlite3.connect(tmp_path / "lab.db") as conn:
        assert conn.execute("pragma journal_mode").fetchone()[0] == "wal"


def test_store_url_and_unwritable_locations(tmp_path: Path) -> None:
    assert store_url(str(tmp_path / "x.db")) == f"sqlite:///{tmp_path / 'x.db'}"
    assert store_url("postgresql://u@127.0.0.1/db") == "postgresql://u@127.0.0.1/db"
    with pytest.raises(UserError, match="does not exist"):
        open_store(str(tmp_path / "missing" / "x.db"))
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(UserError, match="not writable"):
            open_store(str(locked / "x.db"))
    with pytest.raises(UserError, match="no store at"):
        open_store(str(tmp_path / "none.db"), must_exist=True)


WRITER = r'''
import sys, time
from jvmlab.model.collected import Collected
from jvmlab.model.process import ProcessMeasures, ProcessResult, Status
from jvmlab.store import open_store
db = open_store(sys.argv[1])
exp = db.create_experiment(name=sys.argv[2], spec_text="", spec_hash=sys.argv[2], spec_path=None,
                           fingerprint={}, seed=1, command_line="", jvmlab_version="0", artifacts_dir="")
cells = [db.add_cell(exp, idx=i, name=f"c{i}", jvm="j", jdk={}, levels={}, requested_flags=[], flags=[],
                     final_flags={}, argv=None) for i in range(2)]
m = ProcessMeasures(0.1, 0.1, 0.0, 1, 1, 0, 1, 1)
for block in range(25):
    for i, cell in enumerate(cells):
        r = ProcessResult(Status.OK, None, 0, None, m, 1, time.time())
        db.record_invocation(exp, cell, block=block, position=i, result=r,
                             collected=Collected(metrics={"workload.v": float(block)}), argv=["x"], artifacts_dir=None)
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_four_processes_write_one_store_at_once(backend: str, request: pytest.FixtureRequest,
                                                tmp_path: Path) -> None:
    url = _url(backend, request, tmp_path, "shared.db")
    open_store(url).close()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, url, f"exp{i}"]) for i in range(4)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    db = open_store(url)
    exps = db.experiments()
    assert len(exps) == 4
    for exp in exps:
        invs = db.invocations(exp.id)
        assert len(invs) == 50 and all(i.metrics == {"workload.v": float(i.block)} for i in invs)
        assert db.done_slots(exp.id) == {(c, b) for c in range(2) for b in range(25)}
    db.close()
    if backend == "sqlite":
        with sqlite3.connect(tmp_path / "shared.db") as conn:
            assert conn.execute("pragma integrity_check").fetchone()[0] == "ok"


def test_a_full_disk_is_reported_before_anything_runs(tmp_path: Path) -> None:
    """A real, tiny tmpfs filled up (needs root to mount; skipped otherwise)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                                           capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        with pytest.raises(UserError, match="MiB free"):
            open_store(str(mount / "lab.db"))
        assert not (mount / "lab.db").exists()
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_run_options_and_experiment_documents_round_trip(store: Store) -> None:
    exp, _cell = _experiment(store)
    assert store.experiment(exp).run_options == RunOptionsRecord()
    store.set_run_options(exp, RunOptionsRecord(metric="ready_s", until_pct=2.0))
    assert store.experiment(exp).run_options == RunOptionsRecord(metric="ready_s", until_pct=2.0)
    assert store.record(exp, TuneClusterDocument) is None
    store.put_record(exp, TuneClusterDocument(2, ("a", "b")))
    store.put_record(exp, TuneClusterDocument(3, ("c",)))
    assert store.record(exp, TuneClusterDocument) == TuneClusterDocument(3, ("c",))
    assert store.record(exp, HeapSweepDocument) is None  # another kind: not there


def test_invocation_records_read_back_typed_and_a_newer_one_is_one_line(store: Store) -> None:
    exp, cell = _experiment(store)
    probe = ProbeOutcome(64 << 20, Verdict.OOM, "java.lang.OutOfMemoryError", 0.5)
    newer = {**LoadHistogramDocument("us", 32, {3: 4}).to_json(), "version": LoadHistogramDocument.VERSION + 1}
    ids = [store.record_invocation(exp, cell, block=b, position=0, result=_result(), collected=Collected(
        documents=docs), argv=[], artifacts_dir=None)
        for b, docs in enumerate(({ProbeOutcome.KIND: probe.to_json()}, {LoadHistogramDocument.KIND: newer}))]
    assert store.records(ids, ProbeOutcome) == {ids[0]: probe}
    with pytest.raises(DocumentError) as err:
        store.records(ids, LoadHistogramDocument)
    line = str(err.value)
    assert "\n" not in line and f"invocation {ids[1]}" in line and "newer than this jvmlab reads" in line


def test_a_version_1_database_is_migrated_in_place(tmp_path: Path) -> None:
    """A store written by jvmlab 0.1 (schema version 1) gains the version-2 column and table and
    keeps its rows."""
    path = tmp_path / "v1.db"
    db = SqlStore(f"sqlite:///{path}")
    exp, _cell = _experiment(db)
    db.close()
    with sqlite3.connect(path) as conn:  # turn it back into a version-1 database
        conn.execute("drop table experiment_document")
        conn.execute("alter table experiment drop column run_options_json")
        conn.execute("drop table node")  # version 3 (cluster nodes)
        conn.execute("alter table invocation drop column node")
        conn.execute("alter table invocation drop column host")  # version 6
        conn.execute("drop index ix_experiment_series")  # version 4 (series over time)
        for column in ("series", "label", "label_order"):
            conn.execute(f"alter table experiment drop column {column}")
        conn.execute("delete from schema_version")
        conn.execute("insert into schema_version values (1, 0, 'initial schema')")
    db = SqlStore(f"sqlite:///{path}")
    try:
        assert db.experiment(exp).name == "e" and db.experiment(exp).run_options == RunOptionsRecord()
        db.set_run_options(exp, RunOptionsRecord(metric="wall_s"))
        db.put_record(exp, TuneClusterDocument(1, ()))
        assert db.experiment(exp).run_options == RunOptionsRecord(metric="wall_s")
    finally:
        db.close()
    with sqlite3.connect(path) as conn:
        versions = [r[0] for r in conn.execute("select version from schema_version order by version")]
        assert versions == [1, 2, 3, 4, 5, 6, 7, 8, 9]


def test_series_labels_round_trip_and_values_come_in_a_fixed_number_of_queries(store: Store) -> None:
    """Schema v4: an experiment is a labelled point of a series; ``series_values`` reads every
    ok measured value of a series (process columns, cpu_s, collected metrics) in two queries."""
    from sqlalchemy import event

    from jvmlab.model.stored import SeriesTag

    ids = []
    for k, label in enumerate(["c1", "c2", "c3"]):
        exp, cell = _experiment(store, spec_hash=f"h{k}")
        for block in range(2):
            store.record_invocation(exp, cell, block=block, position=0, result=_result(wall_s=1.0 + k),
                                    collected=Collected(metrics={"workload.x_ms": 5.0 + k}), argv=["java"],
                                    artifacts_dir=None)
        store.record_invocation(exp, cell, block=-1, position=0, result=_result(wall_s=99.0),
                                collected=Collected(), argv=["java"], artifacts_dir=None)  # warm-up: left out
        store.record_invocation(exp, cell, block=2, position=0, result=_result(wall_s=77.0, status=Status.FAILED),
                                collected=Collected(), argv=["java"], artifacts_dir=None)  # failed: left out
        store.set_series(exp, SeriesTag(label, None, 10.0 - k if k else None), "e")
        ids.append(exp)
    other, _ = _experiment(store, spec_hash="other")
    store.set_series(other, SeriesTag("x", "elsewhere"), "e")
    got = store.experiment(ids[1])
    assert (got.series, got.label, got.label_order) == ("e", "c2", 9.0)
    assert store.experiment(ids[0]).label_order is None
    assert store.series_names() == {"e": 3, "elsewhere": 1}
    assert [e.id for e in store.series_experiments("e")] == ids
    assert store.series_metric_units("e") == {"workload.x_ms": ""}
    statements: list[str] = []

    def count(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
        statements.append(statement)

    engine = store.engine  # type: ignore[attr-defined]
    event.listen(engine, "before_cursor_execute", count)
    values = store.series_values("e", ["wall_s", "cpu_s", "workload.x_ms"])
    event.remove(engine, "before_cursor_execute", count)
    assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 2
    assert sorted(v for i, c, m, v in values if m == "wall_s") == [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
    assert sorted({(i, m) for i, _, m, _ in values}) == sorted((i, m) for i in ids
                                                              for m in ("wall_s", "cpu_s", "workload.x_ms"))
    assert all(v == 1.25 for _, _, m, v in values if m == "cpu_s")
    assert {c for _, c, _, _ in values} == {"default"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_version_3_store_gains_the_series_columns_in_place(backend: str, request: pytest.FixtureRequest,
                                                               tmp_path: Path) -> None:
    """Migration 4 on SQLite and on a real PostgreSQL: a store at version 3 (as jvmlab left it
    before series existed) keeps its rows and gains series, label and label_order."""
    from sqlalchemy import create_engine, text

    from jvmlab.model.stored import SeriesTag

    url = _url(backend, request, tmp_path)
    db = SqlStore(url)
    exp, _cell = _experiment(db)
    db.close()
    engine = create_engine(url)
    with engine.begin() as conn:  # back to version 3
        conn.execute(text("DROP INDEX ix_experiment_series"))
        for column in ("series", "label", "label_order"):
            conn.execute(text(f"ALTER TABLE experiment DROP COLUMN {column}"))
        conn.execute(text("ALTER TABLE invocation DROP COLUMN host"))  # version 6
        conn.execute(text("DELETE FROM schema_version"))  # a fresh store records only its version
        conn.execute(text("INSERT INTO schema_version VALUES (3, 0, 'as jvmlab 0.1 with cluster nodes')"))
    engine.dispose()
    db = SqlStore(url)
    try:
        assert db.experiment(exp).label is None and db.series_names() == {}
        db.set_series(exp, SeriesTag("abc123", "nightly", 3.0), "e")
        got = db.experiment(exp)
        assert (got.series, got.label, got.label_order, got.name) == ("nightly", "abc123", 3.0, "e")
    finally:
        db.close()
    engine = create_engine(url)
    with engine.connect() as conn:
        versions = [r[0] for r in conn.execute(text("SELECT version FROM schema_version ORDER BY version"))]
        assert versions == [3, 4, 5, 6, 7, 8, 9]
    engine.dispose()
