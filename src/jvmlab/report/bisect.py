"""A bisection in words (terminal lines) and as a page (the steps on a timeline of the range).

Takes :class:`jvmlab.commits.records.BisectResult`, never a store; every text put in the page is
HTML-escaped (commit subjects are anyone's words)."""

from __future__ import annotations

from html import escape

from jvmlab.commits.records import BisectOutcome, BisectResult, BisectStep, CommitInfo
from jvmlab.commits.steps import StepVerdict

CONFIDENCE = "95%"


def _ratio(ratio: float | None, ci95: tuple[float, float] | None) -> str:
    if ratio is None:
        return "no ratio (too few values)"
    ci = f" (95% CI {ci95[0]:.3f}x–{ci95[1]:.3f}x)" if ci95 is not None else " (no interval)"
    return f"{ratio:.3f}x{ci}"


def _commit(c: CommitInfo) -> str:
    return f"{c.sha[:12]} {c.subject!r} ({c.date})"


def step_line(step: BisectStep, metric: str) -> str:
    if step.verdict is StepVerdict.SKIPPED:
        return f"{step.commit.sha[:12]}  skipped: does not build: {step.reason}"
    what = "bad vs good" if step.verdict in (StepVerdict.DIFFER, StepVerdict.NO_DIFFERENCE) else "vs good"
    busy = (f"; busy machine: within the {step.margin:.2f}x interference margin `report` applies"
            if step.margin is not None else "")
    if step.delay_s is not None:
        busy = (f"; busy machine: disturbed (run-queue delay {step.delay_s:.2g} s per run): at equal delay "
                "`report` would not call it")
    return (f"{step.commit.sha[:12]}  {step.verdict.value:13} {metric} {what} {_ratio(step.ratio, step.ci95)}, "
            f"{step.invocations} invocations (experiment {step.experiment_id}){busy}")


def summary_lines(result: BisectResult) -> list[str]:
    """The answer first, then every step, then where the runs are."""
    metric = result.metric
    head = f"bisect {result.good.sha[:12]} (good) .. {result.bad.sha[:12]} (bad): {result.n_commits} commits, {metric}"
    if result.outcome is BisectOutcome.FOUND and result.first_bad is not None:
        answer = [f"first bad commit: {_commit(result.first_bad)}",
                  f"  {metric} {_ratio(result.first_bad_ratio, result.first_bad_ci95)} of the good revision's, "
                  f"each step decided at {CONFIDENCE} confidence"]
    elif result.outcome is BisectOutcome.NOTHING:
        step = result.steps[0]
        answer = [f"nothing to find: the bad revision does not differ from the good one in {metric} at "
                  f"{CONFIDENCE} confidence ({_ratio(step.ratio, step.ci95)}, {step.invocations} invocations)"]
    elif result.outcome is BisectOutcome.UNTESTABLE:
        answer = ["cannot tell which commit: only commits that do not build stand between the last good and the "
                  "first bad one; the first bad commit is one of:", *(f"  {_commit(c)}" for c in result.left)]
    else:
        answer = [f"inconclusive: a step reached its cap without being like the good or the bad revision at "
                  f"{CONFIDENCE} confidence; the first bad commit is one of these {len(result.left)}:",
                  *(f"  {_commit(c)}" for c in result.left),
                  "  (rerun with a larger --max-blocks; the steps measured so far are reused)"]
    steps = [f"  {step_line(s, metric)}" for s in result.steps]
    return [head, *answer, f"steps ({len(result.measured)} commits measured):", *steps,
            f"every step is a labelled run of series {result.series!r}: jvmlab history {result.series!r}"]


_COLORS = {StepVerdict.LIKE_GOOD: "#2e7d32", StepVerdict.LIKE_BAD: "#c62828", StepVerdict.DIFFER: "#c62828",
           StepVerdict.NO_DIFFERENCE: "#757575", StepVerdict.INCONCLUSIVE: "#f9a825",
           StepVerdict.SKIPPED: "#9e9e9e"}


def bisect_html(result: BisectResult) -> str:
    """A self-contained page: the commits of the range on a line, each step a mark at its commit
    (colour: its verdict), then the table of steps."""
    width, left, right = 900, 40, 40
    n = max(result.n_commits, 1)

    def x(index: int) -> float:
        return left + (width - left - right) * index / n

    marks = [f'<line x1="{x(0):.1f}" y1="60" x2="{x(n):.1f}" y2="60" stroke="#444" stroke-width="2"/>']
    for i in range(n + 1):
        marks.append(f'<circle cx="{x(i):.1f}" cy="60" r="3" fill="#444"/>')
    for number, step in enumerate(result.steps, start=1):
        color = _COLORS[step.verdict]
        title = escape(f"step {number}: {step.commit.sha[:12]} {step.commit.subject}: {step.verdict.value}")
        marks.append(f'<circle cx="{x(step.commit.index):.1f}" cy="60" r="9" fill="{color}" fill-opacity="0.8">'
                     f"<title>{title}</title></circle>")
        marks.append(f'<text x="{x(step.commit.index):.1f}" y="{35 - 12 * (number % 2)}" text-anchor="middle" '
                     f'font-size="11">{number}</text>')
    if result.first_bad is not None:
        marks.append(f'<text x="{x(result.first_bad.index):.1f}" y="95" text-anchor="middle" font-size="12" '
                     f'fill="#c62828">first bad: {escape(result.first_bad.sha[:12])}</text>')
    svg = f'<svg width="{width}" height="110" role="img" aria-label="steps on the range">{"".join(marks)}</svg>'
    rows = "".join(
        f"<tr><td>{number}</td><td><code>{escape(s.commit.sha[:12])}</code></td><td>{escape(s.commit.subject)}</td>"
        f"<td>{escape(s.commit.date)}</td><td style=\"color:{_COLORS[s.verdict]}\">{escape(s.verdict.value)}</td>"
        f"<td>{escape(_ratio(s.ratio, s.ci95) if s.verdict is not StepVerdict.SKIPPED else s.reason)}</td>"
        f"<td>{s.invocations}</td></tr>"
        for number, s in enumerate(result.steps, start=1))
    answer = "".join(f"<p>{escape(line)}</p>" for line in summary_lines(result)[1:3])
    return ("<!doctype html><html><head><meta charset=\"utf-8\"><title>jvmlab bisect</title>"
            "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;text-align:left}</style></head>"
            f"<body><h1>{escape(summary_lines(result)[0])}</h1>{answer}{svg}"
            "<table><tr><th>step</th><th>commit</th><th>subject</th><th>date</th><th>verdict</th>"
            f"<th>{escape(result.metric)} vs good (95% CI)</th><th>invocations</th></tr>{rows}</table>"
            f"<p>Series {escape(result.series)}: <code>jvmlab history {escape(repr(result.series))}</code></p>"
            "</body></html>\n")
