"""`jvmlab import hyperfine` on real hyperfine 1.15 --export-json files (see data/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_jvmlab
from jvmlab.importers.hyperfine import import_hyperfine
from jvmlab.importers.store import store_import
from jvmlab.model.documents import ImportDocument
from jvmlab.report.summary import summarize
from jvmlab.store.sql import SqlStore

DATA = Path(__file__).resolve().parent / "data"


def test_a_cell_per_command_and_an_invocation_per_run(tmp_path: Path) -> None:
    path = DATA / "hyperfine-java-version.json"
    raw = json.loads(path.read_text())["results"]
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = store_import(store, import_hyperfine([path]))
    cells = store.cells(exp)
    assert [c.name for c in cells] == ["jdk17-version", "jdk25-version"]
    for cell, result in zip(cells, raw, strict=True):
        walls = [i.wall_s for i in store.invocations(exp) if i.cell_id == cell.id]
        assert walls == pytest.approx(result["times"])
    summary = summarize(store, exp)
    assert summary.cells[0].stats["wall_s"].mean == pytest.approx(raw[0]["mean"])
    assert summary.cells[0].stats["user_s"].n == 0  # per-run CPU is not in the file: unknown, not 0
    assert store.experiment(exp).run_options.block_order == "unknown"
    kept = store.record(exp, ImportDocument)
    assert kept is not None and kept.sources["hyperfine"]["jdk17-version"]["user"] == raw[0]["user"]


def test_non_zero_exit_codes_are_failures_and_parameters_are_levels(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = store_import(store, import_hyperfine([DATA / "hyperfine-exit-codes.json"]))
    cells = store.cells(exp)
    assert [c.levels for c in cells] == [{"code": "0"}, {"code": "3"}]
    failed = [i for i in store.invocations(exp) if i.cell_id == cells[1].id]
    assert len(failed) == 5 and {(i.status, i.reason) for i in failed} == {("failed", "exit code 3")}


def test_cli_import_compare_and_gate(tmp_path: Path) -> None:
    path = str(DATA / "hyperfine-java-version.json")
    for _ in range(2):
        proc = run_jvmlab("import", "hyperfine", path, "--store", "lab.db", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    gate = run_jvmlab("compare", "1", "2", "--store", "lab.db", "--fail-if", "wall_s > +3%", cwd=tmp_path)
    # The same 8 runs twice: no change, but their CI (-38% ... +63%) cannot rule out +3%: inconclusive
    assert gate.returncode == 3 and gate.stdout.startswith("jvmlab gate: INCONCLUSIVE"), gate.stdout + gate.stderr
    lenient = run_jvmlab("compare", "1", "2", "--store", "lab.db", "--fail-if", "wall_s > +100%",
                         cwd=tmp_path)
    assert lenient.returncode == 0 and lenient.stdout.startswith("jvmlab gate: pass"), lenient.stdout
    bad = run_jvmlab("import", "hyperfine", str(DATA / "jmh-jdk17-serial.json"), "--store", "lab.db", cwd=tmp_path)
    assert bad.returncode == 2 and "not a hyperfine --export-json file" in bad.stderr


def test_import_with_a_label_joins_a_series_and_label_from_git_reads_the_commit(tmp_path: Path) -> None:
    """Issue 36 item 1: `import ... --label` makes the import a point of a series (default: its
    name); `--label-from git` takes the commit checked out where jvmlab runs; a --series
    without a label is one line and exit 2."""
    import subprocess

    path = str(DATA / "hyperfine-java-version.json")
    first = run_jvmlab("import", "hyperfine", path, "--store", "lab.db", "--name", "jv", "--label", "build-41",
                       cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    for args in (["init", "-q"], ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty",
                                  "-m", "x"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, timeout=30)
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=tmp_path, check=True,
                          capture_output=True, text=True, timeout=30).stdout.strip()
    second = run_jvmlab("import", "hyperfine", path, "--store", "lab.db", "--name", "jv", "--label-from", "git",
                        "--order", "42", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    a, b = store.series_experiments("jv")
    # lab.db (untracked) is not a change to tracked files: the label is the commit itself
    assert (a.label, a.label_order, b.label, b.label_order) == ("build-41", None, head, 42.0)
    bad = run_jvmlab("import", "hyperfine", path, "--store", "lab.db", "--series", "s", cwd=tmp_path)
    assert bad.returncode == 2 and "--series and --order need a label" in bad.stderr
    outside = run_jvmlab("import", "hyperfine", path, "--store", str(tmp_path / "lab.db"), "--label-from", "git",
                         cwd=tmp_path.parent)
    assert outside.returncode == 2 and "not in a git work tree" in outside.stderr, outside.stderr


@pytest.mark.jvm
def test_export_hyperfine_then_import_round_trips_a_real_run(tmp_path: Path) -> None:
    """Cells keep their names, JVMs and levels (not 300-character command lines), and their runs."""
    spec = tmp_path / "s.toml"
    spec.write_text('name = "rt"\n[workload]\nbuiltin = "hello"\n[jvms]\njdk17 = "17"\n[factors.gc]\n'
                    'g1 = "-XX:+UseG1GC"\nserial = "-XX:+UseSerialGC"\n[run]\ninvocations = 2\nwarmup = 0\n')
    ran = run_jvmlab("run", str(spec), "--store", "a.db", "--quiet", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    out = run_jvmlab("export", "--format", "hyperfine", "--store", "a.db", "-o", "hf.json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    back = run_jvmlab("import", "hyperfine", "hf.json", "--store", "b.db", cwd=tmp_path)
    assert back.returncode == 0, back.stderr
    a, b = SqlStore(f"sqlite:///{tmp_path / 'a.db'}"), SqlStore(f"sqlite:///{tmp_path / 'b.db'}")
    (ea,), (eb,) = [e.id for e in a.experiments()], [e.id for e in b.experiments()]
    assert [(c.name, c.jvm, c.levels) for c in b.cells(eb)] == [(c.name, c.jvm, c.levels) for c in a.cells(ea)]

    def runs(store: SqlStore, exp: int) -> dict[str, list[tuple[float | None, int | None]]]:
        names = {c.id: c.name for c in store.cells(exp)}
        got: dict[str, list[tuple[float | None, int | None]]] = {}
        for i in store.invocations(exp):
            if not i.warmup and i.status == "ok":
                got.setdefault(names[i.cell_id], []).append((i.wall_s, i.max_rss_bytes))
        return got

    ra, rb = runs(a, ea), runs(b, eb)
    assert set(ra) == set(rb)
    for name in ra:
        assert [w for w, _ in sorted(rb[name])] == pytest.approx([w for w, _ in sorted(ra[name])])
        assert [r for _, r in sorted(rb[name])] == [r for _, r in sorted(ra[name])]
