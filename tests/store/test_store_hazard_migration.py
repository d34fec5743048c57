"""Migration v9: a busy machine's numbers become hazard columns. Rows stored before as words
("other processes used 40% of the CPU during block 3 (steal 5%)") get their numbers from the
words, once, in the migration; after it, a hazard's numbers are written and read as numbers."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from jvmlab.model import hazards as hz
from jvmlab.model.hazards import Hazard, MachineLoad
from jvmlab.store.sql import SqlStore

_OLD_ROWS = [
    ("other processes used 40% of the CPU during block 3 (steal 5%)", MachineLoad(2, 0.4, 0.05)),
    ("other processes used 90% of the CPU during the warm-up", MachineLoad(-1, 0.9)),
    ("other processes used 70% of the CPU during block -1", MachineLoad(-1, 0.7)),  # an older warm-up
    ("node tcp://127.0.0.1:4 busy: other processes used 30% of the CPU during block 1",
     MachineLoad(0, 0.3, node="tcp://127.0.0.1:4")),
    ("machine busy: other processes used 55% of the CPU during the block", MachineLoad(None, 0.55)),
]


def _v7_store(path: Path) -> int:
    db = SqlStore(f"sqlite:///{path}")
    exp = db.create_experiment(name="e", spec_text="", spec_hash="h", spec_path=None, fingerprint={}, seed=1,
                               command_line="", jvmlab_version="0", artifacts_dir=str(path.parent))
    db.close()
    with sqlite3.connect(path) as conn:
        for column in ("block", "other_share", "steal_share", "run_delay_s", "node"):
            conn.execute(f"alter table hazard drop column {column}")
        for words, _ in _OLD_ROWS:
            conn.execute("insert into hazard (experiment_id, kind, detail, hint) values (?, 'busy-machine', ?, '')",
                         (exp, words))
        conn.execute("insert into hazard (experiment_id, kind, detail, hint) values (?, 'drift', 'x', '')", (exp,))
        conn.execute("delete from schema_version")
        conn.execute("insert into schema_version values (7, 0, 'invocation documents typed after v5')")
    return exp


def test_a_v7_stores_busy_words_become_numbers_once(tmp_path: Path) -> None:
    path = tmp_path / "lab.db"
    exp = _v7_store(path)
    db = SqlStore(f"sqlite:///{path}")
    try:
        rows = db.hazards(exp)
    finally:
        db.close()
    assert [h.load for h in rows if h.kind == hz.BUSY_MACHINE] == [load for _, load in _OLD_ROWS]
    assert [h.load for h in rows if h.kind == hz.DRIFT] == [None]


def test_a_hazards_numbers_round_trip_as_numbers(tmp_path: Path) -> None:
    db = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    try:
        exp = db.create_experiment(name="e", spec_text="", spec_hash="h", spec_path=None, fingerprint={}, seed=1,
                                   command_line="", jvmlab_version="0", artifacts_dir=str(tmp_path))
        load = MachineLoad(4, 0.61, 0.02, 0.85, "n1")
        db.add_hazard(exp, Hazard(hz.BUSY_MACHINE, "words with no numbers", "hint", load=load))
        assert [h.load for h in db.hazards(exp)] == [load]
    finally:
        db.close()
