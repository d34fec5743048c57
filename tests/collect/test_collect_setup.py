"""Which collectors run, in which order, from the settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.collect.setup import CollectSettings, build_collectors
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.probe import ProbeContext


def _names(settings: CollectSettings, regex: str | None = r"(?P<units>\d+)") -> list[str]:
    return [c.name for c in build_collectors(settings, regex)]


def test_defaults_are_all_on_with_flag_effect_last() -> None:
    assert _names(CollectSettings()) == ["workload_metrics", "gc", "proc", "progress", "flag_effect"]


def test_switches_and_missing_progress_regex() -> None:
    assert _names(CollectSettings(), None) == ["workload_metrics", "gc", "proc", "flag_effect"]
    assert _names(CollectSettings(gc=False, proc=False, flag_effect=False, progress=False)) == ["workload_metrics"]


def test_flag_effect_probe_sees_the_same_invocations_proc_and_gc_probes(tmp_path: Path) -> None:
    jdk = JdkInfo(Path("/jdk"), "17", 17, "x", "OpenJDK 64-Bit Server VM", "HotSpot", True)
    collectors = build_collectors(CollectSettings(proc_interval_ms=20), None)
    ctx = ProbeContext(jdk, "c", ("-XX:+AlwaysPreTouch",), tmp_path)
    probes = {c.name: c.probe(ctx) for c in collectors}
    assert probes["flag_effect"].proc is probes["proc"]
    assert probes["flag_effect"].gc is probes["gc"]
    assert probes["proc"].interval_s == pytest.approx(0.02)
