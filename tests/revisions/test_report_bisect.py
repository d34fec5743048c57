"""The bisect page and lines: every commit text escaped, the answer first (pure)."""

from __future__ import annotations

from jvmlab.commits.records import BisectOutcome, BisectResult, BisectStep, CommitInfo
from jvmlab.commits.steps import StepVerdict
from jvmlab.report.bisect import bisect_html, summary_lines

EVIL = '<script>alert("x")</script> & <img src=x onerror=1>'


def _result() -> BisectResult:
    commits = [CommitInfo(str(i) * 40, EVIL if i == 2 else f"commit {i}", "2026-01-01T00:00:00+00:00", i)
               for i in range(4)]
    steps = (BisectStep(commits[3], StepVerdict.DIFFER, 2.0, (1.8, 2.2), 16, 1, commits[0], commits[3]),
             BisectStep(commits[1], StepVerdict.SKIPPED, None, None, 0, None, commits[0], commits[3],
                        reason="error: <bad> & worse"),
             BisectStep(commits[2], StepVerdict.LIKE_BAD, 1.9, (1.7, 2.1), 24, 2, commits[0], commits[3],
                        margin=4.5))
    return BisectResult("wall_s", commits[0], commits[3], 3, BisectOutcome.FOUND, steps, commits[2], 1.9, (1.7, 2.1),
                        series=f"s {EVIL}")


def test_the_page_escapes_every_commit_text() -> None:
    page = bisect_html(_result())
    assert "<script" not in page and "<img" not in page and "<bad>" not in page
    assert "&lt;script&gt;" in page and "&lt;bad&gt; &amp; worse" in page
    assert page.count("<circle") == 4 + 3  # a dot per commit, a mark per step


def test_the_lines_give_the_first_bad_commit_with_its_interval_then_every_step() -> None:
    lines = summary_lines(_result())
    assert lines[1].startswith(f"first bad commit: {'2' * 12}")
    assert "1.900x (95% CI 1.700x–2.100x)" in lines[2]
    assert any("skipped: does not build" in line for line in lines)
    assert any("4.50x interference margin" in line for line in lines)
    data = _result().to_json()
    assert data["first_bad"]["ci95"] == [1.7, 2.1] and data["measured_commits"] == 3
    assert [s["verdict"] for s in data["steps"]] == ["differ", "skipped", "like-bad"]
