"""The GC collector on real JVMs: summaries agree with the logs' own pause lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jvmlab.collect.gc import LIGHT_SELECTION, GcCollector, gc_log_args, gc_timelines
from jvmlab.gclog import analyze_paths, summary_metrics
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.process import ProcessResult, Status

# A pause line as the JVM writes it: "GC(3) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(64M) 2.345ms"
# ("y: " / "Y: " prefixes are generational ZGC's). Counted here independently of jvmlab.gclog.
_PAUSE_LINE = re.compile(r"\bGC\(\d+\) (?:[yYoO]: )?Pause\b.* \d+(?:\.\d+)?ms$")


def _pause_lines(log: Path) -> int:
    return sum(1 for line in log.read_text().splitlines() if _PAUSE_LINE.search(line))


def test_flags_per_jdk_generation(jdk17: JdkInfo, tmp_path: Path) -> None:
    async_flag, flag = gc_log_args(jdk17, tmp_path)
    assert async_flag == "-Xlog:async", "JDK 17+ logs off the GC's pauses"
    assert flag == (f'-Xlog:gc,gc+init,gc+start,gc+heap,gc+marking,gc+phases,gc+alloc,gc+stats,safepoint:'
                    f'file="{tmp_path}/gc-%p.log":uptime,level,tags:filecount=0'), "light by default"
    assert gc_log_args(jdk17, tmp_path, "full")[-1] == (
        f'-Xlog:gc*,safepoint:file="{tmp_path}/gc-%p.log":uptime,level,tags:filecount=0')
    jdk8 = JdkInfo(Path("/jdk8"), "1.8.0_392-b08", 8, "x", "OpenJDK 64-Bit Server VM", "HotSpot", True)
    assert gc_log_args(jdk8, tmp_path) == ["-XX:+PrintGCDetails", "-XX:+PrintGCDateStamps",
                                           f"-Xloggc:{tmp_path}/gc-%p.log"]


def test_missing_log_is_a_hazard_only_for_a_successful_run(jdk17: JdkInfo, tmp_path: Path) -> None:
    from jvmlab.model.probe import ProbeContext

    probe = GcCollector().probe(ProbeContext(jdk17, "c", (), tmp_path))
    ok = ProcessResult(Status.OK, None, 0, None, None, 1, 0.0)
    assert [h.kind for h in probe.finish(ok).hazards] == ["gc-log-missing"]
    failed = ProcessResult(Status.FAILED, "exit code 1", 1, None, None, 1, 0.0)
    assert probe.finish(failed).hazards == []


@pytest.mark.jvm
@pytest.mark.parametrize("gc_flag", ["-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseZGC"])
def test_summary_pause_count_matches_the_log(gc_flag: str, jdk17: JdkInfo, classes: Path, tmp_path: Path,
                                             run_java) -> None:
    # A user's own GC log next to ours must keep working.
    own_log = tmp_path / "user-gc.log"
    flags = [gc_flag, "-Xmx64m", "-XX:TieredStopAtLevel=1", f"-Xlog:gc:file={own_log}"]
    run = run_java([GcCollector(keep_logs=True, level="full")], jdk17, tmp_path, flags, ["Garbage", "300"],
                   classpath=classes)
    assert run.result.status == "ok", run.result.reason
    assert own_log.stat().st_size > 0
    [log] = run.ctx.artifacts_dir.glob("gc-*.log")
    expected = _pause_lines(log)
    out = run.collected
    doc = out.documents["gc"]
    assert expected > 0
    assert out.metrics["gc.pause_count"] == expected
    assert doc["pauses"]["count"] == expected
    assert len(out.timelines["gc.pause_ms"].t_s) == expected
    assert out.metrics["gc.pause_max_ms"] >= out.metrics["gc.pause_p50_ms"] > 0
    assert 0 < out.metrics["gc.paused_pct"] < 100
    assert out.timelines["gc.heap_after_mb"].unit == "MB" and out.timelines["gc.heap_after_mb"].values
    if gc_flag == "-XX:+UseZGC":
        assert out.metrics["gc.concurrent_cycles"] > 0
        assert out.metrics["gc.stall_count"] >= 0


@pytest.mark.jvm
def test_log_deleted_when_not_kept_jdk25(jdk25: JdkInfo, classes: Path, tmp_path: Path, run_java) -> None:
    run = run_java([GcCollector(keep_logs=False)], jdk25, tmp_path, ["-XX:+UseZGC", "-Xmx64m"],
                   ["Garbage", "200"], classpath=classes)
    assert run.result.status == "ok", run.result.reason
    assert list(run.ctx.artifacts_dir.glob("gc-*.log")) == []
    doc = run.collected.documents["gc"]
    assert doc["kept"] is False
    assert doc["collector"].startswith("ZGC")
    assert run.collected.metrics["gc.pause_count"] > 0


_GCS = ("-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseSerialGC", "-XX:+UseZGC", "-XX:+UseShenandoahGC")


def _filled_keys(doc: dict, prefix: str = "") -> set[str]:
    """The summary document's keys (nested, dotted) whose value is set: not None, 0 or empty."""
    out: set[str] = set()
    for key, value in doc.items():
        if isinstance(value, dict):
            out |= _filled_keys(value, f"{prefix}{key}.")
        elif value not in (None, 0, [], ""):
            out.add(prefix + key)
    return out


_DECORATED = re.compile(r"^\[[^\]]*\]\[\s*(\w+)\s*\]\[\s*([\w,]+?)\s*\]")
_LIGHT_TAGSETS = {frozenset(s.split("+")) for s in LIGHT_SELECTION.split(",")}


def _tagset(line: str) -> frozenset[str] | None:
    m = _DECORATED.match(line)
    return frozenset(m.group(2).split(",")) if m else None


def _as_light(full_log: Path, out: Path) -> Path:
    """The lines of a gc* log that the light selection logs (each tag set exactly, info level):
    the light log of the same run, so both summaries read the same collections."""
    kept, keep = [], False
    for line in full_log.read_text().splitlines(keepends=True):
        tags = _tagset(line)
        if tags is not None:
            keep = tags in _LIGHT_TAGSETS
        if keep:
            kept.append(line)
    out.write_text("".join(kept))
    return out


def _summary(log: Path) -> tuple[dict, dict, dict]:
    summary = analyze_paths([log])[0]
    return summary_metrics(summary), gc_timelines(log), summary.to_json()


@pytest.mark.jvm
@pytest.mark.parametrize("gc_flag", _GCS)
@pytest.mark.parametrize("jdk_name", ["jdk17", "jdk25"])
def test_light_log_keeps_the_summary(jdk_name: str, gc_flag: str, request: pytest.FixtureRequest, classes: Path,
                                     tmp_path: Path, run_java) -> None:
    """gc_log = "light" (the default) lists the tag sets the summary reads instead of gc*: a JVM
    that runs young, mixed and full collections and marking cycles gives the same metrics, the
    same timelines and the same filled fields of the summary from both logs.

    Both summaries are of ONE run: its gc* log, and the lines of it that the light selection
    logs (a real light run checks that the JVM logs exactly those tag sets). Two runs of their
    own differ in which collections and cycles they had (a Shenandoah run whose smallest heap
    after a GC was 0 MB, another's 1 MB), so comparing two runs failed on loaded machines."""
    jdk: JdkInfo = request.getfixturevalue(jdk_name)
    flags = [gc_flag, "-Xmx64m", "-XX:TieredStopAtLevel=1"]
    runs = {level: run_java([GcCollector(keep_logs=True, level=level)], jdk, tmp_path / level, flags,
                            ["Churn", "400", "560"], classpath=classes) for level in ("full", "light")}
    for run in runs.values():
        assert run.result.status == "ok", run.result.reason
    [log] = runs["light"].ctx.artifacts_dir.glob("gc-*.log")
    text = log.read_text()
    assert "[gc,metaspace" not in text and "[gc,heap,exit" not in text and "[gc,init" in text  # light, really
    assert {t for line in text.splitlines() if (t := _tagset(line)) is not None} <= _LIGHT_TAGSETS
    light = runs["light"].collected
    assert light.documents["gc"]["gc_log"] == "light" and runs["full"].collected.documents["gc"]["gc_log"] == "full"
    [full_log] = runs["full"].ctx.artifacts_dir.glob("gc-*.log")
    full_metrics, full_timelines, full_doc = _summary(full_log)
    cut_metrics, cut_timelines, cut_doc = _summary(_as_light(full_log, tmp_path / "cut.log"))
    assert set(cut_metrics) == set(full_metrics), set(cut_metrics) ^ set(full_metrics)
    assert set(cut_timelines) == set(full_timelines) >= {"gc.pause_ms", "gc.heap_after_mb"}
    missing = _filled_keys(full_doc) - _filled_keys(cut_doc)
    assert not missing, f"light loses {sorted(missing)}"
    assert light.metrics["gc.pause_count"] == _pause_lines(log) > 0
    assert light.metrics["gc.pause_max_ms"] >= light.metrics["gc.pause_p50_ms"] > 0
    assert 0 < light.metrics["gc.paused_pct"] < 100
    doc = light.documents["gc"]
    assert doc["heap_settings_mb"]["heap_max_mb"] == 64 and doc["jvm_version"].startswith(str(jdk.feature))
    if "ZGC" in gc_flag:
        assert light.metrics["gc.concurrent_cycles"] > 0 and "heap_soft_max_mb" in doc["heap_settings_mb"]
    elif "Shenandoah" in gc_flag:
        assert "[gc,stats" in text and doc["pacing"]["count"] > 0  # its pacing table (gc+stats) is read
    elif "G1" in gc_flag:
        assert light.metrics["gc.concurrent_cycles"] > 0 and doc["concurrent_phases"]  # gc+marking
    else:  # Parallel, Serial: the generations' sizes (gc+heap)
        assert light.metrics["gc.alloc_rate_mb_s"] > 0 and doc["promotion_rate_mb_s"] is not None


def test_light_flags(jdk17: JdkInfo, tmp_path: Path) -> None:
    assert gc_log_args(jdk17, tmp_path, "light")[-1] == (
        f'-Xlog:gc,gc+init,gc+start,gc+heap,gc+marking,gc+phases,gc+alloc,gc+stats,safepoint:'
        f'file="{tmp_path}/gc-%p.log":uptime,level,tags:filecount=0')


def test_gc_log_setting_reaches_the_flags(jdk17: JdkInfo, tmp_path: Path) -> None:
    from jvmlab.collect.setup import CollectSettings, build_collectors
    from jvmlab.errors import UserError
    from jvmlab.model.probe import ProbeContext
    from jvmlab.spec.model import Collect

    ctx = ProbeContext(jdk17, "c", (), tmp_path)
    for spec, selection in ((Collect(), "-Xlog:gc,gc+init,"), (Collect(gc_log="light"), "-Xlog:gc,gc+init,"),
                            (Collect(gc_log="full"), "-Xlog:gc*,")):
        [gc] = [c for c in build_collectors(CollectSettings.from_spec(spec), None) if c.name == "gc"]
        assert gc.probe(ctx).jvm_args()[-1].startswith(selection)
    with pytest.raises(UserError, match="gc_log: choose light or full"):
        CollectSettings.from_spec(Collect(gc_log="medium"))
