"""Migration v5: a store written before documents had versions (schema v4, today's JSON
layouts) is rewritten in place, every document of a known kind through its record; the CLI
reads the migrated store as before."""

from __future__ import annotations

import copy
import json
import sqlite3
import time
from pathlib import Path

import pytest

from cli_runner import run_jvmlab
from documents_old import OLD
from jvmlab.errors import UserError
from jvmlab.model.collected import Collected
from jvmlab.model.documents import (
    EXPERIMENT_DOCUMENTS,
    INVOCATION_DOCUMENTS,
    TYPED_AFTER_V5,
    CellIdentityDocument,
    DocumentError,
    FlagEffectDocument,
    GcDocument,
    ImportDocument,
    JfrDocument,
    LoadHistogramDocument,
    MinHeapDocument,
    ProbeOutcome,
    ProgressDocument,
    SpecHistoryDocument,
    TuneDocument,
)
from jvmlab.model.process import ProcessResult, Status
from jvmlab.store.sql import SqlStore


def _v4_store(path: Path) -> tuple[int, int, list[int]]:
    """A store as jvmlab left it at schema v4: the tuning experiment (1) holds every kind of
    experiment document in today's layout, the second (a minimum-heap search) its own, and
    as many invocations of experiment 1 as there are invocation documents, one each; plus a kind without a
    record and a known kind with a malformed body, both to be left alone."""
    db = SqlStore(f"sqlite:///{path}")
    exps = []
    for name in ("tuned", "minheap"):
        exp = db.create_experiment(name=name, spec_text="", spec_hash=name, spec_path=None, fingerprint={}, seed=1,
                                   command_line="", jvmlab_version="0", artifacts_dir=str(path.parent))
        exps.append(exp)
    tuned, minheap = exps
    cell = db.add_cell(tuned, idx=0, name="j17 config=1", jvm="j17", jdk={"home": "/opt/jdk17"},
                       levels={"config": "j17|-XX:+UseSerialGC"}, requested_flags=["-XX:+UseSerialGC"],
                       flags=["-XX:+UseSerialGC"], final_flags={}, argv=None)
    db.add_cell(minheap, idx=0, name="j17 gc=serial", jvm="j17", jdk={}, levels={"gc": "serial"},
                requested_flags=[], flags=[], final_flags={}, argv=None)
    result = ProcessResult(Status.OK, None, 0, None, None, None, time.time())
    invs = [db.record_invocation(tuned, cell, block=b, position=0, result=result, collected=Collected(),
                                 argv=["/opt/jdk17/bin/java", "-XX:+UseSerialGC", "-cp", "/app.jar", "Main"],
                                 artifacts_dir=None) for b in range(len(INVOCATION_DOCUMENTS))]
    db.close()
    with sqlite3.connect(path) as conn:
        for kind in EXPERIMENT_DOCUMENTS:
            exp = minheap if kind == "minheap" else tuned
            conn.execute("insert into experiment_document values (?, ?, ?)", (exp, kind, json.dumps(OLD[kind])))
        conn.execute("insert into experiment_document values (?, 'mystery', '[1, 2]')", (tuned,))
        conn.execute("insert into experiment_document values (?, 'tune', '{\"trials\": 3}')", (minheap,))
        for inv, kind in zip(invs, INVOCATION_DOCUMENTS, strict=True):
            conn.execute("insert into document values (?, ?, ?)", (inv, kind, json.dumps(OLD[kind])))
        conn.execute("alter table invocation drop column host")  # version 6
        conn.execute("delete from schema_version")  # a fresh store records only its version
        conn.execute("insert into schema_version values (4, 0, 'as jvmlab left it before versioned documents')")
    return tuned, minheap, invs


def _raw(path: Path, sql: str, *args: object) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, args).fetchall()


def test_a_v4_store_is_rewritten_in_place_and_reads_back_as_records(tmp_path: Path) -> None:
    path = tmp_path / "lab.db"
    tuned, minheap, invs = _v4_store(path)
    db = SqlStore(f"sqlite:///{path}")
    try:
        for kind, cls in EXPERIMENT_DOCUMENTS.items():
            got = db.record(minheap if kind == "minheap" else tuned, cls)
            assert got == cls.from_json(copy.deepcopy(OLD[kind])), kind
        spec_history = db.record(tuned, SpecHistoryDocument)
        assert spec_history is not None and spec_history.changes[0].cells_added == ("j17 gc=g1",)
        identities = db.record(tuned, CellIdentityDocument)
        assert identities is not None and identities.cells[1].jdk is None  # not recorded: not compared
        imported = db.record(tuned, ImportDocument)
        assert imported is not None and imported.sources["hyperfine"]["jdk17-version"]["user"] == 0.1
        found = db.record(minheap, MinHeapDocument)
        assert found is not None and found.cells[0].result is not None and found.cells[0].result.upper_bytes == 96 << 20
        for inv, (kind, cls) in zip(invs, INVOCATION_DOCUMENTS.items(), strict=True):
            assert db.records(invs, cls) == {inv: cls.from_json(copy.deepcopy(OLD[kind]))}, kind
        assert db.records(invs, LoadHistogramDocument)[invs[1]].counts == {70: 4, 3: 1}
        assert db.records(invs, ProbeOutcome)[invs[2]].heap_bytes == 64 << 20
        with pytest.raises(UserError) as err:  # the malformed one was left as it was, and says so in one line
            db.record(minheap, TuneDocument)
        assert isinstance(err.value, DocumentError) and "\n" not in str(err.value)
        assert f"experiment {minheap}" in str(err.value) and "malformed" in str(err.value)
    finally:
        db.close()
    assert [v for (v,) in _raw(path, "select version from schema_version order by version")] == [4, 5, 6, 7, 8, 9]
    for exp, kind, body in _raw(path, "select experiment_id, kind, body_json from experiment_document"):
        stored = json.loads(body)
        if kind == "mystery" or (kind == "tune" and exp == minheap):
            assert stored in ([1, 2], {"trials": 3}), "a body without a readable record is left untouched"
        else:
            assert stored["version"] == 1, kind
    for _inv, kind, body in _raw(path, "select invocation_id, kind, body_json from document"):
        assert json.loads(body)["version"] == 1, kind


def test_the_cli_reads_a_migrated_store(tmp_path: Path) -> None:
    """`apply` reads the tune record (winner's cell, JDK home and argv), `heapsweep` the
    minimum-heap record, both from a v4 store migrated by the command itself."""
    tuned, minheap, _ = _v4_store(tmp_path / "lab.db")
    applied = run_jvmlab("apply", str(tuned), "--store", "lab.db", cwd=tmp_path)
    assert applied.returncode == 0, applied.stderr
    assert "/opt/jdk17/bin/java -XX:+UseSerialGC -cp /app.jar Main" in applied.stdout
    assert "confirmed against the baseline: 10% faster" in applied.stdout
    swept = run_jvmlab("heapsweep", str(minheap), "--store", "lab.db", "--json", cwd=tmp_path)
    assert swept.returncode == 0, swept.stderr
    [cell] = json.loads(swept.stdout)["minheap"]["cells"]
    assert (cell["status"], cell["lower_bytes"], cell["upper_bytes"]) == ("found", 64 << 20, 96 << 20)
    assert [p["verdict"] for p in cell["probes"]] == ["oom", "pass"]


def test_a_v6_store_gets_the_documents_typed_after_v5_rewritten(tmp_path: Path) -> None:
    """A store already at v6 (migration v5 ran while progress, jfr, proc, server, gc ... were
    still their collectors' JSON) holds those documents in their old layout: v7 rewrites each through
    its record, the CLI's readers get records back, and a kind v7 does not own is left alone."""
    path = tmp_path / "lab.db"
    db = SqlStore(f"sqlite:///{path}")
    exp = db.create_experiment(name="e", spec_text="", spec_hash="h", spec_path=None, fingerprint={}, seed=1,
                               command_line="", jvmlab_version="0", artifacts_dir=str(tmp_path))
    cell = db.add_cell(exp, idx=0, name="j17", jvm="j17", jdk={}, levels={}, requested_flags=[], flags=[],
                       final_flags={}, argv=None)
    result = ProcessResult(Status.OK, None, 0, None, None, None, time.time())
    kinds = [cls.KIND for cls in TYPED_AFTER_V5]
    documents = {kind: copy.deepcopy(OLD[kind]) for kind in kinds}
    documents["startup"] = {"error": "unified logging needs HotSpot 9+"}  # a kind without a record
    inv = db.record_invocation(exp, cell, block=0, position=0, result=result,
                               collected=Collected(documents=documents), argv=["java"], artifacts_dir=None)
    db.close()
    with sqlite3.connect(path) as conn:
        conn.execute("delete from schema_version")
        conn.execute("insert into schema_version values (6, 0, 'invocation.host')")
    for _inv, kind, body in _raw(path, "select invocation_id, kind, body_json from document"):
        assert json.loads(body) == documents[kind], kind  # the old layouts, as stored up to v6
    db = SqlStore(f"sqlite:///{path}")
    try:
        for cls in TYPED_AFTER_V5:
            assert db.records([inv], cls) == {inv: cls.from_json(copy.deepcopy(OLD[cls.KIND]))}, cls.KIND
        assert db.records([inv], ProgressDocument)[inv].segments[1].mean_rate == 400.0
        assert db.records([inv], FlagEffectDocument)[inv].effects[1].in_effect is False
        assert db.records([inv], JfrDocument)[inv].gc_phases_ms == {"Pause: Young": 4.5}
        assert db.records([inv], GcDocument)[inv].summary["pauses"]["count"] == 3  # the analyzer's JSON kept
        assert db.documents([inv], "startup") == {inv: {"error": "unified logging needs HotSpot 9+"}}
    finally:
        db.close()
    assert [v for (v,) in _raw(path, "select version from schema_version order by version")] == [6, 7, 8, 9]
    stored = {kind: json.loads(body) for _inv, kind, body in _raw(path, "select invocation_id, kind, body_json "
                                                                         "from document")}
    assert stored.pop("startup") == {"error": "unified logging needs HotSpot 9+"}
    assert set(stored) == set(kinds) and all(body["version"] == 1 for body in stored.values())
    assert stored["flag_effect"]["effects"] == OLD["flag_effect"]  # a bare list before, an object now
    assert stored["jvm_warnings"]["lines"] == OLD["jvm_warnings"]
