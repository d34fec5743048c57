"""Every hostile input of hostile_cases.INPUTS: one clear line, its exit code, nothing stored,
never an internal error, a traceback or a silent acceptance; docs/hostile.md lists them all."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import pytest
from hostile_cases import FAULTS, INPUTS, Fifo, Hostile

from jvmlab.cli.main import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "hostile.md"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def _experiments(store: Path) -> int:
    if not store.exists():
        return 0
    with sqlite3.connect(store) as conn:
        tables = {r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")}
        return conn.execute("select count(*) from experiment").fetchone()[0] if "experiment" in tables else 0


def test_the_table_ids_are_unique_and_it_only_grows() -> None:
    ids = [c.id for c in INPUTS] + [f.id for f in FAULTS]
    assert len(ids) == len(set(ids))
    assert len(INPUTS) >= 44 and len(FAULTS) >= 8


@pytest.mark.timeout(120)  # a FIFO read or a matrix expanded would hang: fail, not wait 10 minutes
@pytest.mark.parametrize("case", INPUTS, ids=[c.id for c in INPUTS])
def test_hostile_input(case: Hostile, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, content in case.files.items():
        target = tmp_path / name
        if isinstance(content, Fifo):
            os.mkfifo(target)
        elif isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in case.argv]
    code, out, err = _run(argv, capsys)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == case.code, err
    assert "Traceback" not in out + err and "internal error" not in err
    assert len(lines) == 1, err
    assert lines[0].startswith("jvmlab: error: "), lines[0]
    assert case.fragment.replace("{tmp}", str(tmp_path)) in lines[0], lines[0]
    assert not case.absent or case.absent not in out + err
    assert _experiments(tmp_path / "lab.db") == 0, "nothing may be stored"
    assert not (tmp_path / "out.html").exists()


def test_the_doc_lists_every_case_and_no_other() -> None:
    text = DOC.read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z0-9-]+)` \|", text, flags=re.MULTILINE))
    assert listed == {c.id for c in INPUTS} | {f.id for f in FAULTS}
