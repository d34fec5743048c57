"""`jvmlab gc compare`: seeded simulations for the statistics, real logs and a real SQLite
store for the command (files, folders, experiments), bad input as one line with exit 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from jvmlab.cli.main import main
from jvmlab.gclog import analyze_paths
from jvmlab.gclog.compare import (
    BETTER,
    METRICS,
    NO_CI,
    SAME,
    WORSE,
    compare_metric,
    compare_sets,
)
from jvmlab.model.collected import Collected
from jvmlab.model.process import ProcessResult, Status
from jvmlab.store.sql import SqlStore

DATA = Path(__file__).resolve().parents[1] / "data" / "gclogs"
TOTAL = next(m for m in METRICS if m.key == "pause_total_ms")
THROUGHPUT = next(m for m in METRICS if m.key == "throughput_pct")


def _docs(rng: np.random.Generator, n: int, total_ms: float, sd: float) -> list[dict]:
    return [{"pauses": {"total_ms": float(v)}, "throughput_pct": 100.0 - float(v) / 100.0}
            for v in rng.normal(total_ms, sd, n)]


def test_clear_improvement_is_better_with_the_true_ratio_inside() -> None:
    rng = np.random.default_rng(7)
    c = compare_metric(TOTAL, _docs(rng, 10, 100.0, 5.0), _docs(rng, 10, 80.0, 5.0), seed=1)
    assert c.verdict == BETTER and c.ci is not None and c.ci[0] < 0.8 < c.ci[1]
    t = compare_metric(THROUGHPUT, _docs(rng, 10, 100.0, 5.0), _docs(rng, 10, 300.0, 5.0), seed=1)
    assert t.verdict == WORSE  # throughput is higher-is-better: lower throughput is worse


def test_interval_covers_the_true_ratio_about_95_percent() -> None:
    """Seeded simulation: 200 pairs of sets of 8 logs with a true ratio of 1.25."""
    rng = np.random.default_rng(11)
    hits = 0
    reps = 200
    for k in range(reps):
        c = compare_metric(TOTAL, _docs(rng, 8, 100.0, 10.0), _docs(rng, 8, 125.0, 12.5), seed=k, n_boot=1000)
        assert c.ci is not None
        hits += c.ci[0] <= 1.25 <= c.ci[1]
    assert 0.88 <= hits / reps <= 0.995


def test_same_distribution_rarely_gets_a_verdict() -> None:
    rng = np.random.default_rng(3)
    verdicts = [compare_metric(TOTAL, _docs(rng, 8, 100.0, 10.0), _docs(rng, 8, 100.0, 10.0), seed=k,
                               n_boot=1000).verdict for k in range(100)]
    assert verdicts.count(SAME) >= 85


def test_one_log_per_side_gives_a_ratio_but_no_interval() -> None:
    (a,) = analyze_paths([DATA / "jdk17-g1-oneline.log"])
    (b,) = analyze_paths([DATA / "jdk17-parallel-oneline.log"])
    rows = {c.metric: c for c in compare_sets([a.to_json()], [b.to_json()])}
    total = rows["pause_total_ms"]
    assert total.ratio == pytest.approx(b.pauses.total / a.pauses.total, rel=1e-9)
    assert total.ci is None and total.verdict == NO_CI and "2+ logs per side" in (total.reason or "")


def _folder(tmp_path: Path, name: str, logs: list[str]) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for log in logs:
        shutil.copy(DATA / log, folder / log)
    return folder


def test_cli_compares_folders_in_json_and_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _folder(tmp_path, "g1", ["jdk17-g1-oneline.log", "jdk25-g1-oneline.log", "jdk17-g1-details.log.gz"])
    b = _folder(tmp_path, "<b>serial", ["jdk17-serial-oneline.log", "jdk25-serial-oneline.log",
                                        "jdk17-serial-details.log.gz"])
    (b / "notes.txt").write_text("not a GC log\n")
    out = tmp_path / "cmp.html"
    with pytest.raises(SystemExit) as done:
        main(["gc", "compare", str(a), str(b), "--json", "--html", str(out)])
    assert done.value.code == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["a"]["logs"]) == 3 and len(doc["b"]["logs"]) == 3
    total = next(m for m in doc["metrics"] if m["metric"] == "pause_total_ms")
    assert total["n_a"] == total["n_b"] == 3 and total["ci"] is not None
    assert any("notes.txt" in n for n in doc["notes"])
    page = out.read_text(encoding="utf-8")
    assert "&lt;b&gt;serial" in page and "<b>serial" not in page
    assert "B / A per metric" in page


def _store_with_gc_docs(db: Path, cells: dict[str, list[str]]) -> int:
    store = SqlStore(f"sqlite:///{db}")
    exp_id = store.create_experiment(
        name="gc", spec_text="", spec_hash="h", spec_path=None, fingerprint={}, seed=1,
        command_line="jvmlab run gc.toml", jvmlab_version="test", artifacts_dir="")
    for idx, (name, logs) in enumerate(cells.items()):
        cell_id = store.add_cell(exp_id, idx=idx, name=name, jvm="17", jdk={"feature": 17}, levels={},
                                 requested_flags=[], flags=[], final_flags={}, argv=["java"])
        for block, log in enumerate(logs):
            (summary,) = analyze_paths([DATA / log])
            result = ProcessResult(status=Status.OK, reason=None, exit_code=0, signal=None, measures=None,
                                   pid=None, started_at=1.7e9 + block)
            store.record_invocation(exp_id, cell_id, block=block, position=idx, result=result,
                                    collected=Collected(documents={"gc": summary.to_json()}), argv=["java"],
                                    artifacts_dir=None)
    return exp_id


def test_cli_compares_experiment_cells(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "lab.db"
    exp = _store_with_gc_docs(db, {"g1": ["jdk17-g1-oneline.log", "jdk25-g1-oneline.log"],
                                   "parallel": ["jdk17-parallel-oneline.log", "jdk25-parallel-oneline.log"]})
    with pytest.raises(SystemExit) as done:
        main(["gc", "compare", f"{exp}:g1", f"{exp}:parallel", "--store", str(db), "--json"])
    assert done.value.code == 0
    doc = json.loads(capsys.readouterr().out)
    count = next(m for m in doc["metrics"] if m["metric"] == "pause_count")
    expected = [analyze_paths([DATA / f"jdk{v}-parallel-oneline.log"])[0].pause_count for v in (17, 25)]
    assert count["n_b"] == 2 and count["mean_b"] == pytest.approx(np.mean(expected))
    with pytest.raises(SystemExit) as done:
        main(["gc", "compare", str(exp), f"{exp}:g1", "--store", str(db)])
    assert done.value.code == 2
    assert "has 2 cells" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["/no/such.log", "/no/other.log"], ["x y", "1"]])
def test_cli_bad_sides_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["gc", "compare", *args, "--store", str(tmp_path / "none.db")])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


SPEC = """name = "gc compare e2e"
[workload]
builtin = "chunkgen"
args = ["--threads", "1", "--seconds", "2", "--retain-mb", "16", "--chunk-kb", "64"]
[jvms]
jdk17 = "/usr/lib/jvm/java-17-openjdk-amd64"
[factors.gc]
g1 = "-XX:+UseG1GC -Xmx32m"
serial = "-XX:+UseSerialGC -Xmx32m"
[run]
invocations = 2
warmup = 0
timeout = "120s"
"""


@pytest.mark.jvm
@pytest.mark.slow
def test_gc_compare_two_cells_of_a_real_experiment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not Path("/usr/lib/jvm/java-17-openjdk-amd64/bin/java").is_file():
        pytest.skip("needs OpenJDK 17")
    (tmp_path / "gc.toml").write_text(SPEC)
    db = tmp_path / "lab.db"
    with pytest.raises(SystemExit) as done:
        main(["run", str(tmp_path / "gc.toml"), "--store", str(db), "-q"])
    assert done.value.code == 0
    capsys.readouterr()
    store = SqlStore(f"sqlite:///{db}")
    exp = store.latest_experiment().id
    names = sorted(c.name for c in store.cells(exp))
    with pytest.raises(SystemExit) as done:
        main(["gc", "compare", f"{exp}:{names[0]}", f"{exp}:{names[1]}", "--store", str(db), "--json"])
    assert done.value.code == 0
    doc = json.loads(capsys.readouterr().out)
    count = next(m for m in doc["metrics"] if m["metric"] == "pause_count")
    assert count["n_a"] == count["n_b"] == 2 and count["mean_a"] > 0 and count["mean_b"] > 0
    assert len(doc["a"]["logs"]) == 2
