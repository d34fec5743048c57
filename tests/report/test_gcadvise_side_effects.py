"""`gc advise` says what a fix cost besides its finding (issue 45: DisableExplicitGC raised peak
RSS 78 -> 196 MiB unsaid) and when a finding's severity changed under the fix."""

from __future__ import annotations

from jvmlab.plan.advise import FixLevel
from jvmlab.report.gcadvise import Advice, FixAdvice, MetricEffect, SideEffect, lines
from jvmlab.results.advise import STILL, count_finding


def _doc(finding: str, severity: str, count: int) -> dict:
    return {"findings": [{"id": finding, "severity": severity, "evidence": {"count": count}}]}


def test_a_fix_lists_its_side_effects_and_a_finding_whose_severity_changed() -> None:
    before = count_finding("explicit-gc", "current", [_doc("explicit-gc", "error", 9)] * 3)
    after = count_finding("explicit-gc", "fix", [_doc("explicit-gc", "warn", 2)] * 3)
    assert (before.severity, after.severity) == ("error", "warn")
    side = (SideEffect("max_rss_bytes", 78 << 20, 196 << 20, "2.5x more memory (95% CI 2.3-2.7x)"),
            SideEffect("cpu_s", 1.2, 1.21, ""))
    fix = FixAdvice(FixLevel("no-explicit", ("-XX:+DisableExplicitGC",), ("explicit-gc",), ("",), "x"),
                    ((before, after, STILL, "in both"),), MetricEffect("wall_s", 0.9, (0.85, 0.95), "10% faster"),
                    MetricEffect("gc.pause_p99_ms", 1.0, (0.9, 1.1), ""), side)
    text = [t for t, _ in lines(Advice(4, "wall_s", (fix,)))]
    assert any(t.startswith("  explicit-gc: ") and t.endswith("; severity error -> warn") for t in text)
    assert "  side effect: peak RSS 78 -> 196 MiB: 2.5x more memory (95% CI 2.3-2.7x)" in text
    assert "  side effect: CPU time 1.2 -> 1.21 s: no clear difference" in text
    assert fix.to_json()["side_effects"][0] == {"metric": "max_rss_bytes", "current_mean": 78 << 20,
                                                "fix_mean": 196 << 20, "change": "2.5x more memory (95% CI 2.3-2.7x)"}
    same = count_finding("explicit-gc", "fix", [_doc("explicit-gc", "error", 2)] * 3)
    fix_same = FixAdvice(fix.level, ((before, same, STILL, ""),), fix.metric, fix.pause_p99)
    assert not any("severity" in t for t, _ in lines(Advice(4, "wall_s", (fix_same,))))
