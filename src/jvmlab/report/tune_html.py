"""The tuning report as one self-contained HTML file: optimisation history, Pareto front
and parameter importances (plotly figures from plain dicts), confirmation verdicts, and the
trial table, where a candidate that looked better but was measured while the machine drifted
(state ``drift``: never promoted) stands out with the drift and the blocks it was raced in.

Every text from the spec or the store is escaped: flags and reasons are user input.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from jvmlab.errors import UserError
from jvmlab.model.documents import TuneDocument, TunedTrial
from jvmlab.report.page import plotly_js, write_text


def _history(doc: TuneDocument) -> dict[str, Any]:
    trials = [t for t in doc.trials if t.estimate]
    obj = doc.objectives[0].metric
    text = [html.escape(" ".join(t.config.flags)) for t in trials]
    return {"data": [
        {"type": "scatter", "mode": "markers", "name": "trial (estimate)", "x": [t.number + 1 for t in trials],
         "y": [t.estimate[0] for t in trials if t.estimate], "text": text},
        {"type": "scatter", "mode": "lines", "name": "incumbent", "line": {"shape": "hv"},
         "x": [t.number + 1 for t in doc.trials], "y": [t.best_after for t in doc.trials]}],
        "layout": {"title": {"text": f"Optimisation history ({html.escape(obj)})"},
                   "xaxis": {"title": {"text": "trial"}}, "yaxis": {"title": {"text": html.escape(obj)}}}}


def _pareto(doc: TuneDocument) -> dict[str, Any] | None:
    objs = [o.metric for o in doc.objectives]
    if len(objs) < 2:
        return None
    points = [(t, t.estimate) for t in doc.trials if t.estimate]
    front = {" ".join(p.flags) for p in doc.pareto}
    on = [e for t, e in points if " ".join(t.config.flags) in front]
    return {"data": [
        {"type": "scatter", "mode": "markers", "name": "trials", "x": [e[0] for _, e in points],
         "y": [e[1] for _, e in points],
         "text": [html.escape(" ".join(t.config.flags)) for t, _ in points]},
        {"type": "scatter", "mode": "markers", "name": "Pareto front", "marker": {"size": 12, "color": "crimson"},
         "x": [e[0] for e in on], "y": [e[1] for e in on]}],
        "layout": {"title": {"text": "Pareto front"}, "xaxis": {"title": {"text": html.escape(objs[0])}},
                   "yaxis": {"title": {"text": html.escape(objs[1])}}}}


def _importances(doc: TuneDocument) -> dict[str, Any] | None:
    imp = doc.importances
    if not imp:
        return None
    names = sorted(imp, key=lambda k: imp[k])
    return {"data": [{"type": "bar", "orientation": "h", "x": [imp[n] for n in names],
                      "y": [html.escape(n) for n in names]}],
            "layout": {"title": {"text": "Parameter importances (fANOVA)"}}}


_NOT_PROMOTED = ("drift", "disturbed")  # tune.racing.NOT_PROMOTED: looked better, never promoted
_STATE_STYLE = {"promoted": "background:#e6f4ea", "drift": "background:#fdecea;font-weight:bold",
                "disturbed": "background:#fdf3ea;font-weight:bold",
                "infeasible": "color:#777", "undecided": "background:#fff4e0"}
_ORIGIN_TEXT = {"combined": "combined: the best level of each parameter, raced as one",
                "coordinate": "one-factor move: one parameter changed from the incumbent"}


def _state_key(state: str) -> str:
    """The CSS class and style key of a state: "undecided (budget)" -> "undecided"."""
    return state.split(" ", 1)[0]


def _blocks_text(t: TunedTrial) -> str:
    """How many blocks the trial raced and which of the session's blocks they were."""
    if not t.block_range:
        return str(t.blocks)
    first, last = t.block_range
    return f"{t.blocks} (blocks {first}-{last})" if last > first else f"{t.blocks} (block {first})"


def _trial_rows(doc: TuneDocument) -> str:
    """One row per trial: its flags, outcome, blocks, ratio (CI) and the reason, all escaped."""
    rows = []
    for t in doc.trials:
        ratio = "-" if t.ratio is None else f"{t.ratio:.3f}"
        if t.ci:
            ratio += f" ({t.ci[0]:.3f}..{t.ci[1]:.3f})"
        state = t.state
        reason = t.reason or ""
        if state in _NOT_PROMOTED:
            reason = f"not promoted: {reason}"
        key = _state_key(state)
        origin = _ORIGIN_TEXT.get(t.origin, t.origin)
        rows.append(f"<tr class='state-{html.escape(key)} origin-{html.escape(t.origin)}' "
                    f"style='{_STATE_STYLE.get(key, '')}'><td>{t.number + 1}</td>"
                    f"<td><code>{html.escape(' '.join(t.config.flags) or '(defaults)')}</code></td>"
                    f"<td>{html.escape(origin)}</td>"
                    f"<td>{html.escape(state)}</td><td>{html.escape(_blocks_text(t))}</td>"
                    f"<td>{html.escape(ratio)}</td><td>{html.escape(reason)}</td></tr>")
    return "".join(rows)


def _trial_table(doc: TuneDocument) -> str:
    trials = doc.trials
    said = ((sum(t.state == "drift" for t in trials), "looked better but {were} measured while the machine drifted: "
             "marked <b>drift</b>, never promoted."),
            (sum(t.state == "disturbed" for t in trials), "looked better only by what the run-queue delay explains "
             "(other processes made one side wait more): marked <b>disturbed</b>, with the measured delay, never "
             "promoted."),
            (sum(_state_key(t.state) == "undecided" for t in trials), "stopped by the budget or the block cap before "
             "the race could decide: marked <b>undecided</b> with the interval reached, not called worse."),
            (sum(t.origin == "combined" for t in trials), "put the best level of each parameter together "
             "(<b>combined</b>): good single changes often add up."))
    note = "".join(f"<p>{n} trial{'s' if n != 1 else ''} {text.format(were='were' if n != 1 else 'was')}</p>"
                   for n, text in said if n)
    return ("<h2>Trials</h2>" + note + "<table border='1' cellspacing='0' cellpadding='3'><tr><th>#</th>"
            "<th>flags</th><th>origin</th><th>outcome</th><th>blocks raced</th><th>ratio to incumbent (95% CI)</th>"
            f"<th>reason</th></tr>{_trial_rows(doc)}</table>")


def tune_html(doc: TuneDocument, title: str) -> str:
    figures = [f for f in (_history(doc), _pareto(doc), _importances(doc)) if f is not None]
    divs = []
    for i, fig in enumerate(figures):
        body = json.dumps(fig).replace("</", "<\\/")  # no "</script>" inside a script
        divs.append(f'<div id="fig{i}" style="height:420px"></div><script>'
                    f'(function(f){{Plotly.newPlot("fig{i}", f.data, f.layout);}})({body});</script>')
    verdicts = "".join(
        f"<li><b>{html.escape(c.label)}</b> "
        f"<code>{html.escape(' '.join(c.config.flags) or '(defaults)')}</code>"
        f"<ul>{''.join(f'<li>vs {html.escape(k)}: {html.escape(v)}</li>' for k, v in c.verdicts.items())}</ul></li>"
        for c in doc.confirmations)
    hazards = "".join(f"<li>{html.escape(h)}</li>" for h in doc.hazards)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<script>{plotly_js()}</script></head><body><h1>Tuning: {html.escape(title)}</h1>"
            f"<p>{len(doc.trials)} trials, {doc.invocations} invocations.</p>"
            + (f"<p>Winner: {html.escape(doc.winner_why)}</p>" if doc.winner_why else "") +
            f"<h2>Confirmation</h2><ul>{verdicts}</ul>{''.join(divs)}{_trial_table(doc)}"
            + (f"<h2>Warnings</h2><ul>{hazards}</ul>" if hazards else "") + "</body></html>")


def write_tune_html(path: Path, doc: TuneDocument | None, title: str) -> None:
    if doc is None:
        raise UserError("no tune result to report")
    write_text(path, tune_html(doc, title))
