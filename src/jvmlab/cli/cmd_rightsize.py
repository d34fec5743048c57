"""`jvmlab rightsize SPEC`: the smallest container (CPUs x memory) whose JVM meets the goals,
proven by its smaller neighbours, with a Kubernetes block (docs/rightsize.md)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from jvmlab.cli.apps import app
from jvmlab.cli.storeargs import STORE_HELP
from jvmlab.errors import UserError

if TYPE_CHECKING:
    from jvmlab.model.documents import CandidateRecord
    from jvmlab.model.hazards import Hazard
    from jvmlab.model.process import ProcessResult
    from jvmlab.plan.prepare import PreparedCell
    from jvmlab.plan.schedule import Slot


def parse_cpus(text: str) -> tuple[float, ...]:
    try:
        values = tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        values = ()
    if not values or any(not 0 < v <= 4096 for v in values):
        raise UserError(f"--cpus {text!r}: give CPU counts above 0, e.g. 0.25,0.5,1,2")
    return values


def parse_memory(text: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    from jvmlab.spec.durations import parse_size_bytes

    sizes = tuple(v.strip() for v in text.split(",") if v.strip())
    try:
        parsed = tuple(parse_size_bytes(v) for v in sizes)
    except ValueError as err:
        raise UserError(f"--memory {text!r}: {err}") from None
    if not sizes or any(b < 16 << 20 for b in parsed):
        raise UserError(f"--memory {text!r}: give sizes of at least 16m, e.g. 256m,512m,1g")
    if len(set(parsed)) != len(parsed):
        raise UserError(f"--memory {text!r}: a size is given twice")
    return sizes, parsed


def parse_shares(text: str | None) -> tuple[int, ...]:
    if text is None:
        return ()
    try:
        values = tuple(sorted({int(v) for v in text.split(",") if v.strip()}))
    except ValueError:
        values = ()
    if not values or any(not 1 <= v <= 100 for v in values):
        raise UserError(f"--heap-share {text!r}: give percentages of the memory limit, e.g. 50,75")
    return values


class _Lines:
    """One line per invocation as it ends, and each warning (a search can run for minutes)."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def planned(self, experiment_id: int, total: int, already_done: int, open_ended: bool = False) -> None: ...

    def starting(self, cell: PreparedCell, slot: Slot) -> None: ...

    def finished(self, cell: PreparedCell, slot: Slot, result: ProcessResult) -> None:
        wall = f" {result.measures.wall_s:.2f} s" if result.measures is not None else ""
        why = f" ({result.reason[:100]})" if result.reason else ""
        self.console.print(f"    {cell.cell.name} #{slot.block + 1}: {result.status}{wall}{why}",
                           highlight=False, markup=False)

    def warn(self, hazard: Hazard) -> None:
        self.console.print(f"    warning: {hazard.detail}", highlight=False, markup=False)

    def extended(self, added: int, note: str) -> None: ...


@app.command()
def rightsize(
    spec: Path = typer.Argument(..., help="Spec file (TOML) of one configuration (one JDK, one level per factor)."),
    slo: list[str] = typer.Option(..., "--slo", help="A goal: METRIC < or > NUMBER, e.g. 'wall_s < 4', "
                                  "'load.latency_p99_ms < 50'; repeat for several."),
    cpus: str = typer.Option(..., "--cpus", help="CPU limits to try (CFS quota, fractions allowed): 0.25,0.5,1,2."),
    memory: str = typer.Option(..., "--memory", help="Memory limits to try: 256m,512m,1g."),
    jvm_sizing: str = typer.Option("auto", "--jvm-sizing", help="auto: drop the spec's heap sizing so the JVM "
                                   "sizes itself to the container (or --heap-share); keep: the spec's flags."),
    heap_share: str | None = typer.Option(None, "--heap-share", help="With auto: heap shares of the limit to try "
                                          "in order (-XX:MaxRAMPercentage), e.g. 50,75."),
    cpu_weight: float = typer.Option(9.0, "--cpu-weight", min=0.0, help="Cost of one CPU."),
    memory_weight: float = typer.Option(1.0, "--memory-weight", min=0.0, help="Cost of one GiB."),
    invocations: int = typer.Option(3, "--invocations", min=2, max=100, help="Invocations before the first look."),
    max_invocations: int = typer.Option(9, "--max-invocations", min=2, max=200,
                                        help="Most invocations per size; then it is undecided."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    resume: bool = typer.Option(False, "--resume", help="Continue the newest search of this spec and settings."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout."),
    k8s: Path | None = typer.Option(None, "--k8s", help="Write the container's resources and env (YAML) here."),
    html: Path | None = typer.Option(None, "--html", help="Write an HTML page of the search here."),
    label: str | None = typer.Option(None, "--label", help="This search's point in a series over time (a commit, "
                                     "a JDK build); see `jvmlab history`."),
    series: str | None = typer.Option(None, "--series", help="With --label: the series (default: the search's name)."),
) -> None:
    """Find the smallest CPU x memory size whose JVM meets every goal, with the proof."""
    from jvmlab.cli.running import size_plan
    from jvmlab.plan.prepare import prepare
    from jvmlab.report.rightsize import k8s_text, render_rightsize, rightsize_json, write_html
    from jvmlab.sizing.goals import parse_goal
    from jvmlab.sizing.rightsize import RightsizeRequest
    from jvmlab.sizing.rightsize_plan import refuse_unsizable
    from jvmlab.sizing.rightsize_search import Weights
    from jvmlab.spec.load import load_spec
    from jvmlab.store import check_store_location, open_store

    if jvm_sizing not in ("auto", "keep"):
        raise UserError(f"--jvm-sizing {jvm_sizing!r}: give auto or keep")
    if max_invocations < invocations:
        raise UserError(f"--max-invocations {max_invocations} is below --invocations {invocations}")
    from jvmlab.machine.gitlabel import series_tag

    tag = series_tag(label, None, series, None, Path.cwd())
    goals = tuple(parse_goal(s) for s in slo)
    memory_texts, memory_bytes = parse_memory(memory)
    request = RightsizeRequest(goals, parse_cpus(cpus), memory_texts, memory_bytes, jvm_sizing,
                               parse_shares(heap_share), Weights(cpu_weight, memory_weight), invocations,
                               max_invocations)
    check_store_location(store)
    parsed, text = load_spec(spec)
    base = prepare(parsed, text, spec)
    refuse_unsizable(base, jvm_sizing, request.heap_shares)
    db = open_store(store)
    console = Console(stderr=as_json)

    def said(c: CandidateRecord) -> None:
        from jvmlab.report.rightsize import candidate_words, size_of

        console.print(f"  {size_of(c).label}: {c.verdict} ({c.phase}) {candidate_words(c)}",
                      highlight=False, markup=False)

    again = ["jvmlab", "rightsize", str(spec), *[x for s in slo for x in ("--slo", s)], "--cpus", cpus,
             "--memory", memory, "--jvm-sizing", jvm_sizing, *(["--heap-share", heap_share] if heap_share else []),
             "--cpu-weight", f"{cpu_weight:g}", "--memory-weight", f"{memory_weight:g}",
             "--invocations", str(invocations), "--max-invocations", str(max_invocations),
             *(["--label", label] if label else []), *(["--series", series] if series else []),
             "--store", store or db.url, "--resume"]
    done = size_plan(base, db, request, resume=resume, on_candidate=said, resume_hint=shlex.join(again), series=tag,
                     observer=_Lines(console))
    render_rightsize(done.document, done.experiment_id, console)
    if k8s is not None:
        k8s.write_text(k8s_text(done.document, done.experiment_id), encoding="utf-8")
        console.print(f"Kubernetes resources and env: {k8s}", highlight=False)
    if html is not None:
        console.print(f"HTML report: {write_html(done.document, done.experiment_id, html)}", highlight=False)
    if as_json:
        typer.echo(json.dumps(rightsize_json(done.document, done.experiment_id), indent=2))
