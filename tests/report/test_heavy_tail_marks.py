"""A heavy-tailed cell's mean interval is marked, and warned about, in every output."""

from __future__ import annotations

import io
import json
from dataclasses import replace

from rich.console import Console

from jvmlab.analyze.tails import BCA_HEAVY_TAIL
from jvmlab.report import terminal
from jvmlab.report.export import export_text
from jvmlab.report.html import render_html
from jvmlab.report.summary import HEAVY_TAIL_MARK, Summary, summarize
from jvmlab.report.trust import HEAVY_TAIL, heavy_tail_hazards


def _marked(synthetic) -> tuple[Summary, str]:
    """The synthetic experiment with one cell's BCa interval of the compared metric marked
    heavy-tailed (as :func:`jvmlab.analyze.describe.describe` marks it), the way summary_of
    adds the warning."""
    store, exp_id, _ = synthetic
    s = summarize(store, exp_id)
    name = s.cells[0].cell.name
    stats = {**s.analysis.stats, name: replace(s.analysis.stats[name], mean_ci_kind=BCA_HEAVY_TAIL)}
    analysis = replace(s.analysis, stats=stats)
    cells = tuple(replace(c, stats={**c.stats, s.metric: stats[name]}) if c.cell.name == name else c
                  for c in s.cells)
    return replace(s, analysis=analysis, cells=cells, hazards=s.hazards + heavy_tail_hazards(analysis)), name


def test_markdown_json_terminal_and_html_say_it(synthetic) -> None:
    s, name = _marked(synthetic)
    md = export_text(s, "markdown")
    row = next(line for line in md.splitlines() if line.startswith(f"| {name} |"))
    assert HEAVY_TAIL_MARK.strip() in row
    assert f"[{HEAVY_TAIL}]" in md and "bca-heavy-tail" in md
    doc = json.loads(json.dumps(s.to_json()))  # the JSON summary (report --json)
    assert any(w["kind"] == HEAVY_TAIL for w in doc["warnings"])
    cell = next(c for c in doc["cells"] if c["name"] == name)
    assert cell["ci95_kind"][s.metric] == BCA_HEAVY_TAIL
    out = io.StringIO()
    terminal.render(s, Console(file=out, width=240, color_system=None))
    text = out.getvalue()
    assert HEAVY_TAIL_MARK.strip() in text and f"[{HEAVY_TAIL}]" in text
    page = render_html(s)
    assert HEAVY_TAIL_MARK.strip() in page and f"[{HEAVY_TAIL}]" in page


def test_cell_names_in_the_warning_are_escaped_in_html(synthetic) -> None:
    s, name = _marked(synthetic)
    evil = "<script>alert(2)</script>"
    stats = {(evil if k == name else k): v for k, v in s.analysis.stats.items()}
    hazards = heavy_tail_hazards(replace(s.analysis, stats=stats))
    page = render_html(replace(s, hazards=s.hazards + hazards))
    assert evil not in page and "&lt;script&gt;alert(2)&lt;/script&gt;" in page
