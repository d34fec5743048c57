"""End to end on a real JVM: `jvmlab run` stores each collector's document as its versioned
record (progress, proc, flag_effect, jfr, jfr.profile), the results layer reads them back as
records, and the report reads them without an error."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cli_runner import run_jvmlab
from jvmlab.collect.warmup import FLAT, NO_STEADY_STATE, SLOWDOWN, UNCLASSIFIED, WARMUP
from jvmlab.model.documents import (
    INVOCATION_DOCUMENTS,
    FlagEffectDocument,
    JfrDocument,
    JfrProfileDocument,
    ProcDocument,
    ProgressDocument,
)
from jvmlab.results import load_experiment
from jvmlab.results.why import load_why
from jvmlab.store import open_store
from testing_jdks import JDK17_HOME, need

pytestmark = pytest.mark.jvm

SPEC = '''name = "documents"
[workload]
builtin = "chunkgen"
args = ["--threads", "1", "--seconds", "3", "--retain-mb", "16", "--chunk-kb", "64"]
[jvms]
jdk17 = "{home}"
[factors.gc]
serial = ["-XX:+UseSerialGC"]
[run]
invocations = 2
warmup = 0
timeout = "90s"
'''


def test_a_run_stores_each_collectors_document_as_its_record(tmp_path: Path) -> None:
    (tmp_path / "spec.toml").write_text(SPEC.format(home=need(JDK17_HOME)))
    run = run_jvmlab("run", "spec.toml", "--store", "lab.db", "--quiet", "--collect", "jfr", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    store = open_store(str(tmp_path / "lab.db"), must_exist=True)
    try:
        exp = store.latest_experiment().id
        results = load_experiment(store, exp)
        ok = [i.id for i in results.invocations if i.status == "ok"]
        assert len(ok) == 2, [i.reason for i in results.invocations]
        assert set(results.progress) == set(ok)  # chunkgen prints a progress line every second
        for doc in results.progress.values():
            assert isinstance(doc, ProgressDocument) and doc.mode == "cumulative" and (doc.lines or 0) >= 1
            assert doc.klass in (FLAT, WARMUP, SLOWDOWN, NO_STEADY_STATE, UNCLASSIFIED)
        procs = store.records(ok, ProcDocument)
        assert set(procs) == set(ok) and all(p.samples >= 0 for p in procs.values())
        for effects in store.records(ok, FlagEffectDocument).values():
            assert "-XX:+UseSerialGC" in [e.flag for e in effects.effects]
        jfr = store.records(ok, JfrDocument)
        assert set(jfr) == set(ok) and all(d.settings == "default" for d in jfr.values())
        assert set(store.records(ok, JfrProfileDocument)) <= set(ok)
        why = load_why(store, exp)
        assert {n.invocation_id for n in why.jfr} == set(ok)
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "lab.db") as conn:
        stored = conn.execute("select kind, body_json from document").fetchall()
    typed = [(kind, json.loads(body)) for kind, body in stored if kind in INVOCATION_DOCUMENTS]
    assert {kind for kind, _ in typed} >= {"progress", "proc", "flag_effect", "jfr"}
    assert all(body["version"] == 1 for _, body in typed)
    report = run_jvmlab("report", "--store", "lab.db", "--html", "r.html", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "r.html").stat().st_size > 0
