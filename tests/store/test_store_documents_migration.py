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
    CellIdentityDocument,
    DocumentError,
    ImportDocument,
    LoadHistogramDocument,
    MinHeapDocument,
    ProbeOutcome,
    SpecHistoryDocument,
    TuneDocument,
)
from jvmlab.model.process import ProcessResult, Status
from jvmlab.store.sql import SqlStore


def _v4_store(path: Path) -> tuple[int, int, list[int]]:
    """A store as jvmlab left it at schema v4: the tuning experiment (1) holds every kind of
    experiment document in today's layout, the second (a minimum-heap search) its own, and
    three invocations of experiment 1 one invocation document each; plus a kind without a
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
                                 artifacts_dir=None) for b in range(3)]
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
    assert [v for (v,) in _raw(path, "select version from schema_version order by version")] == [4, 5, 6]
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
