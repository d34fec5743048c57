"""Migration v8: the experiment's run options, an untyped map before, are rewritten through
their record (``RunOptionsRecord``, version 2); what is not an option (a minimum-heap search's
``"kind"`` and request, which its ``minheap`` document keeps) is dropped; a map the record
cannot read is left as it was."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from jvmlab.model.documents import ImportedFrom, RunOptionsRecord
from jvmlab.store.migrations import LATEST
from jvmlab.store.sql import SqlStore

OLD = {
    "run": {"until_pct": 1.5, "max_invocations": None, "budget_s": 60.0, "collect": ["jfr=profile"],
            "no_collect": [], "metric": "wall_s", "metric_reason": "--metric given", "workdir": "/w"},
    "minheap": {"until_pct": None, "metric": "wall_s", "kind": "minheap", "lower_bytes": 8388608,
                "upper_bytes": 1073741824, "step_bytes": 1048576, "repeats": 1, "max_probes": 30,
                "fail_pattern": None, "timeout_s": None},
    "import": {"imported": {"source": "jmh", "files": ["a.json"]}, "block_order": "unknown",
               "unknown": ["the block order"], "metric": "jmh.score"},
    "bad": {"until_pct": "soon"},
}


def _v7_store(path: Path) -> dict[str, int]:
    db = SqlStore(f"sqlite:///{path}")
    ids = {name: db.create_experiment(name=name, spec_text="", spec_hash=name, spec_path=None, fingerprint={},
                                      seed=1, command_line="", jvmlab_version="0", artifacts_dir="")
           for name in OLD}
    db.close()
    with sqlite3.connect(path) as conn:
        for name, options in OLD.items():
            conn.execute("update experiment set run_options_json = ? where id = ?", (json.dumps(options), ids[name]))
        conn.execute("delete from schema_version")  # a fresh store has one row: the latest version
        conn.execute("insert into schema_version values (7, 0, 'invocation documents typed after v5')")
    return ids


def test_run_options_become_records_and_a_minheap_search_loses_its_kind(tmp_path: Path) -> None:
    path = tmp_path / "v7.db"
    ids = _v7_store(path)
    db = SqlStore(f"sqlite:///{path}")  # migrates
    try:
        assert db.experiment(ids["run"]).run_options == RunOptionsRecord(
            until_pct=1.5, budget_s=60.0, collect=("jfr=profile",), metric="wall_s", metric_reason="--metric given",
            workdir="/w")
        assert db.experiment(ids["minheap"]).run_options == RunOptionsRecord(metric="wall_s")
        assert db.experiment(ids["import"]).run_options.imported == ImportedFrom("jmh", ("a.json",))
    finally:
        db.close()
    with sqlite3.connect(path) as conn:
        stored = dict(conn.execute("select id, run_options_json from experiment").fetchall())
        assert conn.execute("select max(version) from schema_version").fetchone()[0] == LATEST >= 8
    assert json.loads(stored[ids["minheap"]]) == {"version": 2, "metric": "wall_s"}
    assert json.loads(stored[ids["bad"]]) == OLD["bad"], "what the record cannot read is left as it was"
