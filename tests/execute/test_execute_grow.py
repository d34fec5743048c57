"""Issue 13, item 3: an experiment grows cells after creation. A spec that gains a factor level,
resumed, adds cells to the stored experiment: the old cells keep their stored invocations and
index, only the new cell runs; a spec that changes a stored cell is refused with one line.
Real JVMs (the built-in HelloWorld, one block), a real SQLite file, the real command line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cli_runner import run_jvmlab
from jvmlab.model.documents import SpecChange, SpecHistoryDocument
from jvmlab.plan.prepare import spec_hash as hash_of

pytestmark = [pytest.mark.jvm, pytest.mark.slow]

HEAD = '''name = "grow"
[workload]
builtin = "hello"
[jvms]
j17 = "{home}"
[factors.gc]
'''
TAIL = '''[run]
invocations = 1
warmup = 0
'''
SERIAL = 'serial = "-XX:+UseSerialGC"\n'
PARALLEL = 'parallel = "-XX:+UseParallelGC"\n'
G1 = 'g1 = "-XX:+UseG1GC"\n'


def _rows(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def _history(db: Path) -> tuple[SpecChange, ...]:
    body = _rows(db, "select body_json from experiment_document where kind = 'spec_history'")[0][0]
    return SpecHistoryDocument.from_json(json.loads(body)).changes


def _run(tmp_path: Path, spec: Path, *extra: str):
    return run_jvmlab("run", str(spec), "--store", "lab.db", "--quiet", *extra, cwd=tmp_path, timeout=240)


def test_a_grown_spec_adds_cells_and_a_changed_cell_is_refused(tmp_path: Path, jdk17_home: Path) -> None:
    spec = tmp_path / "spec.toml"
    db = tmp_path / "lab.db"
    spec.write_text(HEAD.format(home=jdk17_home) + SERIAL + PARALLEL + TAIL)
    first = _run(tmp_path, spec)
    assert first.returncode == 0, first.stderr
    before = _rows(db, "select i.id, c.name, i.started_at, i.status from invocation i join cell c on c.id = i.cell_id")
    assert sorted(r[1] for r in before) == ["j17 gc=parallel", "j17 gc=serial"]

    # A new level in the middle of the factor: the stored cells keep their index, the new one follows.
    spec.write_text(HEAD.format(home=jdk17_home) + SERIAL + G1 + PARALLEL + TAIL)
    grown = _run(tmp_path, spec, "--resume")
    assert grown.returncode == 0, grown.stderr
    assert _rows(db, "select count(*) from experiment") == [(1,)]
    cells = dict(_rows(db, "select name, idx from cell"))
    assert cells == {"j17 gc=serial": 0, "j17 gc=parallel": 1, "j17 gc=g1": 2}
    after = _rows(db, "select i.id, c.name, i.started_at, i.status from invocation i join cell c on c.id = i.cell_id")
    assert set(before) <= set(after), "the old cells' invocations are kept as they were"
    new = [r for r in after if r not in before]
    assert [(r[1], r[3]) for r in new] == [("j17 gc=g1", "ok")], "only the new cell ran"
    g1_argv = json.loads(_rows(db, "select i.argv_json from invocation i join cell c on c.id = i.cell_id "
                                   "where c.name = 'j17 gc=g1'")[0][0])
    assert "-XX:+UseG1GC" in g1_argv
    spec_text, spec_hash = _rows(db, "select spec_text, spec_hash from experiment")[0]
    assert 'g1 = "-XX:+UseG1GC"' in spec_text
    assert spec_hash == hash_of(spec.read_text()), "the experiment is found by the grown spec's hash"
    kinds = [k for (k,) in _rows(db, "select kind from hazard")]
    assert "cells-added" in kinds
    history = _history(db)
    assert [list(h.cells_added) for h in history] == [["j17 gc=g1"]]
    assert 'g1 = ' not in history[0].spec_text

    # The grown spec resumed again: found by its (new) hash, nothing left to run.
    again = _run(tmp_path, spec, "--resume")
    assert again.returncode == 0, again.stderr
    assert len(_rows(db, "select id from invocation")) == 3

    # One more block planned (no new cell): resumed, it runs only that block; the spec text follows.
    more = TAIL.replace("invocations = 1", "invocations = 2")
    spec.write_text(HEAD.format(home=jdk17_home) + SERIAL + G1 + PARALLEL + more)
    longer = _run(tmp_path, spec, "--resume")
    assert longer.returncode == 0, longer.stderr
    assert sorted(_rows(db, "select block, count(*) from invocation group by block")) == [(0, 3), (1, 3)]
    history = _history(db)
    assert [list(h.cells_added) for h in history] == [["j17 gc=g1"], []]

    # A stored cell changed (its level's flags): refused with one line, exit 2, nothing stored.
    spec.write_text(HEAD.format(home=jdk17_home) + 'serial = "-XX:+UseSerialGC -Xmx64m"\n' + G1 + PARALLEL + more)
    changed = _run(tmp_path, spec, "--resume")
    assert changed.returncode == 2, changed.stderr
    errors = [ln for ln in changed.stderr.splitlines() if "error" in ln]
    assert len(errors) == 1 and "Traceback" not in changed.stderr, changed.stderr
    assert "changes its cell 'j17 gc=serial'" in errors[0] and "-Xmx64m" in errors[0]
    assert len(_rows(db, "select id from invocation")) == 6

    # A stored cell dropped: refused too.
    spec.write_text(HEAD.format(home=jdk17_home) + SERIAL + G1 + more)
    dropped = _run(tmp_path, spec, "--resume")
    assert dropped.returncode == 2 and "no longer makes" in dropped.stderr, dropped.stderr
