"""Words and files for a rightsize search: the chosen size with its figures and intervals, the
proof (each smaller neighbour measured and not meeting), the candidates table, the JSON, a
Kubernetes container block (``resources`` and ``env`` with ``JAVA_TOOL_OPTIONS``) and an HTML
page. Takes the stored :class:`RightsizeDocument`, never a store."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from jvmlab import metrics as registry
from jvmlab.model.documents import CandidateRecord, GoalFigures, RightsizeDocument
from jvmlab.report.page import write_text
from jvmlab.sizing.rightsize_search import Grid, Size

MONOTONICITY = ("assumed: more CPU or memory never makes the goal's metric worse; a size that misses (or "
                "dies for a reason other than memory) rules out every size with no more CPU and no more "
                "memory, and a JVM dying for memory rules out every smaller memory; those are not run")


def size_of(c: CandidateRecord) -> Size:
    return Size(c.cpus, c.memory_bytes)


def goals_text(doc: RightsizeDocument) -> str:
    return " and ".join(f"{g.metric} {g.comparison} {g.bound:g}" for g in doc.request.goals)


def k8s_cpu(cpus: float) -> str:
    """CPUs in Kubernetes units: whole CPUs as a number ("2"), fractions in millicores ("250m")."""
    millis = round(cpus * 1000)
    return str(millis // 1000) if millis % 1000 == 0 else f"{millis}m"


def k8s_memory(size_bytes: int) -> str:
    """Bytes in Kubernetes binary units: "1Gi", "512Mi", "1536Ki", or bytes."""
    for unit, shift in (("Gi", 30), ("Mi", 20), ("Ki", 10)):
        if size_bytes % (1 << shift) == 0:
            return f"{size_bytes >> shift}{unit}"
    return str(size_bytes)


def figures_text(f: GoalFigures) -> str:
    metric = registry.get(f.metric)
    if f.mean is None:
        return f"{f.metric} not measured"
    ci = f" (95% CI {metric.format(f.ci95[0])} .. {metric.format(f.ci95[1])})" if f.ci95 is not None else ""
    bounds = (f"; decided on {metric.format(f.lower)} .. {metric.format(f.upper)}"
              if f.lower is not None and f.upper is not None else "")
    return f"{f.metric} {metric.format(f.mean)}{ci}, n={f.n}{bounds}"


def candidate_words(c: CandidateRecord) -> str:
    """What one candidate showed: its figures, or why it failed, or what implied it."""
    if c.phase == "implied" and c.implied_by is not None:
        return f"not run: implied by {Size(*c.implied_by).label}"
    if c.verdict == "fails":
        return f"fails: {c.reason}"
    parts = [figures_text(f) for f in c.goals]
    if c.reason:
        parts.append(c.reason)
    return "; ".join(parts) or (c.reason or "")


def proof(doc: RightsizeDocument) -> list[tuple[str, CandidateRecord | None]]:
    """The chosen size's next smaller neighbour in each dimension, as measured."""
    chosen = doc.chosen_candidate
    if chosen is None:
        return []
    grid = Grid.of(doc.request.cpus, doc.request.memory_bytes)
    by_size = {size_of(c): c for c in doc.candidates}
    return [(dim, by_size.get(n) if n is not None else None) for dim, n in grid.smaller_neighbours(size_of(chosen))]


def conclusion(doc: RightsizeDocument) -> str:
    """One line: the chosen size and its proof, or that no size meets the goal."""
    goal = goals_text(doc)
    chosen = doc.chosen_candidate
    if not doc.finished:
        return f"the search for {goal} did not finish (resume it with --resume)"
    if chosen is None:
        largest = doc.candidates[-1] if doc.candidates else None
        worst = f": the largest, {size_of(largest).label}, {largest.verdict}" if largest is not None else ""
        return f"no size meets {goal}{worst}"
    steps = []
    for dim, n in proof(doc):
        if n is None:
            steps.append(f"no smaller {dim} in the grid")
        else:
            steps.append(f"{size_of(n).label} {n.verdict}")
    line = f"{size_of(chosen).label} meets {goal}; proof: " + ", ".join(steps)
    if any(n is not None and n.verdict == "undecided" for _, n in proof(doc)):
        line += " (incomplete: an undecided neighbour may meet; raise --max-invocations)"
    cheaper = [c for c in doc.candidates if c.cost < chosen.cost and c.verdict == "undecided"]
    if cheaper:
        line += f"; cheaper but undecided: {', '.join(size_of(c).label for c in cheaper)}"
    return line


def render_rightsize(doc: RightsizeDocument, experiment_id: int, console: Console) -> None:
    table = Table(title=f"rightsize: {goals_text(doc)} (cheapest first; cost = {doc.request.cpu_weight:g} x CPUs "
                        f"+ {doc.request.memory_weight:g} x GiB)")
    for col in ("size", "cost", "verdict", "how", "JVM saw", "figures / reason"):
        table.add_column(col, overflow="fold")
    for c in doc.candidates:
        if c.verdict == "not-run" and c.reason is None:
            continue
        seen = []
        if c.jvm_processors is not None:
            seen.append(f"{c.jvm_processors} CPU")
        if c.jvm_max_heap_bytes is not None:
            seen.append(f"heap {c.jvm_max_heap_bytes / (1 << 20):.0f} MiB")
        mark = " (chosen)" if doc.chosen_candidate is c else ""
        table.add_row(size_of(c).label + mark, f"{c.cost:.3g}", c.verdict, c.phase, ", ".join(seen) or "-",
                      candidate_words(c))
    console.print(table)
    console.print(f"monotonicity {MONOTONICITY}.", highlight=False)
    chosen = doc.chosen_candidate
    if chosen is not None:
        console.print(f"chosen: {size_of(chosen).label}; " + "; ".join(figures_text(f) for f in chosen.goals)
                      + f"; JVM options: {' '.join(chosen.jvm_options) or '(none: the JVM sizes itself)'}",
                      highlight=False, markup=False)
    console.print(f"rightsize (experiment {experiment_id}): {conclusion(doc)}", highlight=False, markup=False)


def candidate_json(c: CandidateRecord) -> dict[str, Any]:
    return {"cpus": c.cpus, "memory_bytes": c.memory_bytes, "verdict": c.verdict, "phase": c.phase,
            "cost": c.cost, "metric": {f.metric: f.mean for f in c.goals},
            "ci95": {f.metric: list(f.ci95) if f.ci95 is not None else None for f in c.goals},
            "reason": c.reason, "invocations": c.invocations, "jvm_options": list(c.jvm_options),
            "jvm_processors": c.jvm_processors, "jvm_max_heap_bytes": c.jvm_max_heap_bytes,
            "implied_by": list(c.implied_by) if c.implied_by is not None else None,
            "goals": [f.body() for f in c.goals]}


def rightsize_json(doc: RightsizeDocument, experiment_id: int) -> dict[str, Any]:
    chosen = doc.chosen_candidate
    return {"experiment_id": experiment_id, "goals": [g.body() for g in doc.request.goals],
            "weights": {"cpu": doc.request.cpu_weight, "memory_gib": doc.request.memory_weight},
            "jvm_sizing": doc.request.jvm_sizing, "finished": doc.finished,
            "chosen": candidate_json(chosen) if chosen is not None else None,
            "proof": [{"dimension": dim, **(candidate_json(n) if n is not None else {"none": True})}
                      for dim, n in proof(doc)],
            "candidates": [candidate_json(c) for c in doc.candidates], "conclusion": conclusion(doc)}


def k8s_text(doc: RightsizeDocument, experiment_id: int) -> str:
    """The container's ``resources`` (requests = limits: the size proven) and ``env`` with
    JAVA_TOOL_OPTIONS, as YAML to merge into a Deployment's container."""
    chosen = doc.chosen_candidate
    if chosen is None:
        return f"# jvmlab rightsize (experiment {experiment_id}): {conclusion(doc)}\n"
    cpu, memory = k8s_cpu(chosen.cpus), k8s_memory(chosen.memory_bytes)
    lines = [f"# jvmlab rightsize, experiment {experiment_id}: {conclusion(doc)}",
             "resources:", "  requests:", f'    cpu: "{cpu}"', f"    memory: {memory}",
             "  limits:", f'    cpu: "{cpu}"', f"    memory: {memory}"]
    if chosen.jvm_options:
        lines += ["env:", "  - name: JAVA_TOOL_OPTIONS", f"    value: {json.dumps(' '.join(chosen.jvm_options))}"]
    return "\n".join(lines) + "\n"


def write_html(doc: RightsizeDocument, experiment_id: int, path: Path) -> Path:
    """A self-contained page: the conclusion, the candidates table and the Kubernetes block."""
    rows = "".join(
        f"<tr><td>{html.escape(size_of(c).label)}</td><td>{c.cost:.3g}</td><td>{html.escape(c.verdict)}</td>"
        f"<td>{html.escape(c.phase)}</td><td>{html.escape(candidate_words(c))}</td></tr>"
        for c in doc.candidates)
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>jvmlab rightsize {experiment_id}</title>"
            "<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:4px}</style></head><body>"
            f"<h1>rightsize: {html.escape(goals_text(doc))}</h1><p>{html.escape(conclusion(doc))}</p>"
            f"<p>Monotonicity {html.escape(MONOTONICITY)}.</p><table><tr><th>size</th><th>cost</th><th>verdict</th>"
            f"<th>how</th><th>figures / reason</th></tr>{rows}</table>"
            f"<h2>Kubernetes</h2><pre>{html.escape(k8s_text(doc, experiment_id))}</pre></body></html>")
    return write_text(path, page)


__all__ = ["conclusion", "k8s_cpu", "k8s_memory", "k8s_text", "render_rightsize", "rightsize_json",
           "write_html"]
