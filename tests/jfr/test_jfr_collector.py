"""The jfr and startup collectors on real JVMs (17 and 25), short runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab import metrics
from jvmlab.collect.jfr import JfrCollector
from jvmlab.collect.startup import StartupCollector
from jvmlab.model import hazards
from jvmlab.profile.stacks import frame_shares, merge_stacks

pytestmark = pytest.mark.jvm


def _hottest(cpu: dict[str, float]) -> tuple[str, float]:
    """The frame with the largest self share of a profile, and that share."""
    frame, (self_share, _) = max(frame_shares(merge_stacks([cpu])).items(), key=lambda kv: (kv[1][0], kv[0]))
    return frame, self_share


@pytest.mark.parametrize("jdk_name", ["jdk17", "jdk25"])
def test_recording_gives_metrics_and_the_hot_method_on_top(request, jdk_name, jfr_classes, run_jvm,
                                                           tmp_path: Path) -> None:
    jdk = request.getfixturevalue(jdk_name)
    run = run_jvm([JfrCollector("profile"), StartupCollector()], jdk, tmp_path, ["JfrWork", "2"], jfr_classes)
    assert run.result.status.value == "ok"
    got = run.collected
    assert "jfr" in got.documents and "error" not in got.documents["jfr"], got.documents.get("jfr")
    for name in ("jfr.exec_samples", "jfr.safepoint_count", "jfr.gc_pause_total_ms", "jfr.deopt_count",
                 "jfr.lock_contention_ms"):
        assert name in got.metrics, name
        metrics.get(name)  # every metric the collector writes is registered
    # 10-ms sampler for 2 s; a loaded machine gave the 100-ms sampler 5 where ~30 are due (the next test)
    assert got.metrics["jfr.exec_samples"] > 5
    assert got.metrics["jfr.safepoint_count"] >= 1
    assert 0 < got.metrics["jfr.recording_start_s"] < run.result.measures.wall_s
    for name, reason in got.documents["jfr"]["missing"].items():
        assert name not in got.metrics and reason
    cpu = got.documents["jfr.profile"]["cpu"]
    leaf, share = _hottest(cpu)
    assert leaf == "JfrWork.hotLoop" and share > 0.5
    startup = got.documents["startup"]
    assert startup["jvm_init_s"] and startup["jvm_init_s"] > 0
    assert startup["classes"]["app"] >= 1 and startup["classes"]["jdk"] + startup["classes"]["archive"] > 100
    assert got.metrics["startup.to_main_s"] > 0
    assert (tmp_path / "artifacts" / "recording.jfr").is_file()


def test_default_samples_every_100_ms_and_still_finds_the_hot_method(jdk17, jfr_classes, run_jvm,
                                                                      tmp_path: Path) -> None:
    """jvmlab's default (100-ms samplers) against the JDK's own default (20 ms) on one busy thread
    for 3 s: about 30 samples against about 150 on a quiet machine. How many a run gets depends on
    the load (a loaded run had 5 against 46: the sampler takes only threads it finds running), so
    what is asserted is what a 100-ms period bounds (at most ~45 in the run) and the order."""
    ours = run_jvm([JfrCollector()], jdk17, tmp_path / "ours", ["JfrWork", "3"], jfr_classes)
    stock = run_jvm([JfrCollector("jdk-default")], jdk17, tmp_path / "stock", ["JfrWork", "3"], jfr_classes)
    doc = ours.collected.documents["jfr"]
    assert doc["settings"] == "default" and doc["sampler_period"] == "100 ms", doc
    assert doc["settings_argument"].endswith(".jfc") and Path(doc["settings_argument"]).is_absolute()
    assert stock.collected.documents["jfr"]["settings_argument"] == "default"
    few, many = ours.collected.metrics["jfr.exec_samples"], stock.collected.metrics["jfr.exec_samples"]
    assert 1 <= few <= 45 and many > few, (few, many)
    leaf, share = _hottest(ours.collected.documents["jfr.profile"]["cpu"])
    assert leaf == "JfrWork.hotLoop" and share > 0.5


def test_a_run_that_ends_before_the_dump_has_no_jfr_metrics_but_a_reason(jdk17, jfr_classes, run_jvm,
                                                                          tmp_path: Path) -> None:
    run = run_jvm([JfrCollector()], jdk17, tmp_path, ["JfrHalt"], jfr_classes)
    got = run.collected
    assert run.result.status.value == "ok"
    assert not any(k.startswith("jfr.") for k in got.metrics)
    assert "no recording was written" in got.documents["jfr"]["error"]
    assert [h.kind for h in got.hazards] == [hazards.JFR_UNUSABLE]


def test_settings_are_checked() -> None:
    from jvmlab.errors import UserError

    with pytest.raises(UserError, match="default or jdk-default or profile"):
        JfrCollector("verbose")
    assert hazards.JFR_UNUSABLE == "jfr-unusable"


@pytest.mark.parametrize("jdk_name", ["jdk17", "jdk25"])
def test_startup_counts_archive_classes_only_with_cds(request, jdk_name, jfr_classes, run_jvm,
                                                      tmp_path: Path) -> None:
    jdk = request.getfixturevalue(jdk_name)
    on = run_jvm([StartupCollector()], jdk, tmp_path / "on", ["JfrWork", "0"], jfr_classes)
    off = run_jvm([StartupCollector()], jdk, tmp_path / "off", ["JfrWork", "0"], jfr_classes, ["-Xshare:off"])
    assert on.collected.metrics["startup.classes_archive"] > 100
    assert off.collected.metrics["startup.classes_archive"] == 0
    assert off.collected.metrics["startup.classes_jdk"] > on.collected.metrics["startup.classes_jdk"]
    assert off.collected.metrics["startup.classes_app"] == on.collected.metrics["startup.classes_app"] >= 1
    for run in (on, off):
        m = run.collected.metrics
        assert 0 < m["startup.jvm_init_s"] <= m["startup.to_main_s"]
        assert "Create VM" in run.collected.documents["startup"]["phases_s"]
