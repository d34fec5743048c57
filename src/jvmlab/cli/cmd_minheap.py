"""`jvmlab minheap SPEC`: the minimum heap per cell as an interval, optionally followed by a
heap sweep at multiples of it (or at absolute sizes) with knees and an HTML plot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from jvmlab.cli.apps import app
from jvmlab.cli.storeargs import STORE_HELP
from jvmlab.errors import UserError, parse_option
from jvmlab.spec.durations import parse_duration_s, parse_size_bytes

if TYPE_CHECKING:
    from jvmlab.plan.prepare import Plan, PreparedCell
    from jvmlab.sizing.flow import SweepSetup
    from jvmlab.sizing.minheap import ProbeOutcome
    from jvmlab.sizing.results import SweepResult
    from jvmlab.sizing.study import MinHeapRequest, MinHeapStudy
    from jvmlab.store.protocol import Store


@app.command()
def minheap(
    spec: Path = typer.Argument(..., help="Spec file (TOML); each cell (collector x JDK x ...) is searched."),
    lower: str = typer.Option("8m", "--lower", help="Lower bound of -Xmx (expected to fail)."),
    upper: str = typer.Option("1g", "--upper", help="Upper bound of -Xmx (expected to pass)."),
    step: str = typer.Option("1m", "--step", help="Resolution of the answer."),
    repeats: int = typer.Option(5, "--repeats", min=1, max=50, help="Runs that must agree at each end."),
    max_probes: int = typer.Option(80, "--max-probes", min=2, help="Most JVM runs per cell."),
    fail_pattern: str | None = typer.Option(None, "--fail-pattern", help="Regex in the output that means 'too small'."),
    timeout: str | None = typer.Option(None, "--timeout",
                                       help="Per-run timeout meaning 'too small' (default: the spec's)."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    resume: bool = typer.Option(False, "--resume", help="Continue the newest search of this spec and bounds."),
    sweep: bool = typer.Option(False, "--sweep", help="Then run a heap sweep at --multiples of the minimum."),
    multiples: str = typer.Option("1-4:7", "--multiples", help="Sweep multiples: 1,1.5,2 or a ladder 1-4:7."),
    sizes: str | None = typer.Option(None, "--sizes", help="Sweep absolute sizes instead (256m,512m,1g): no search."),
    invocations: int | None = typer.Option(None, "--invocations", min=1, help="Sweep invocations per cell."),
    within: float = typer.Option(5.0, "--within", min=0.0, max=100.0, help="Knee: within this % of the best."),
    metric: str = typer.Option("wall_s", "--metric", help="Time (or throughput) metric of the sweep."),
    html: Path | None = typer.Option(None, "--html", help="Write the sweep's HTML report (plots with CI bands) here."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON on stdout."),
    cluster: str | None = typer.Option(None, "--cluster", help="Run the probes on a Dask scheduler's nodes, e.g. "
                                       "tcp://HOST:8786 (docs/cluster.md)."),
) -> None:
    """Find each cell's minimum heap (bisection, repeated at the boundary); optionally sweep."""
    from jvmlab import metrics as registry
    from jvmlab.plan.prepare import prepare
    from jvmlab.sizing import flow
    from jvmlab.sizing.minheap import MinHeapSettings
    from jvmlab.sizing.study import MinHeapRequest, compile_pattern
    from jvmlab.sizing.sweep import levels_from_sizes, parse_multiples
    from jvmlab.spec.load import load_spec
    from jvmlab.store import check_store_location, open_store

    registry.get(metric)
    if html is not None and not sweep and sizes is None:  # the search alone has no plot: say so, write nothing
        raise UserError(f"--html {html}: the HTML report is the heap sweep's; add --sweep (or --sizes)")
    check_store_location(store)
    lower_b, upper_b, step_b = (parse_option(o, v, parse_size_bytes)
                                for o, v in (("--lower", lower), ("--upper", upper), ("--step", step)))
    settings = MinHeapSettings(lower_b, upper_b, step_b, repeats, max_probes)
    try:
        settings.check()
    except ValueError as err:
        raise UserError(f"--lower/--upper/--step: {err}") from None
    ladder = parse_multiples(multiples)
    compile_pattern(fail_pattern)
    timeout_s = None if timeout is None else parse_option("--timeout", timeout, parse_duration_s)
    parsed, text = load_spec(spec)
    base = prepare(parsed, text, spec)
    db = open_store(store)
    console = Console(stderr=as_json)
    out: dict[str, Any] = {}
    if sizes is not None:
        setup = flow.plan_sweep(base, levels_from_sizes([s for s in sizes.split(",") if s.strip()]),
                                invocations=invocations)
        study = None
    else:
        request = MinHeapRequest(settings, fail_pattern, timeout_s)
        study = search(base, db, request, resume=resume, console=console, cluster=cluster)
        out["minheap"] = study.to_json()
        if not sweep:
            _emit(out, as_json)
            return
        setup = flow.sweep_from_study(base, study, ladder, invocations)
    result = run_sweep(setup, db, metric, within / 100.0, console, as_json, resume=resume)
    out["sweep"] = result.to_json()
    if html is not None:
        from jvmlab.report.heapsweep import write_sweep_html

        rows = [(c.cell_name, c.result) for c in study.cells] if study else []
        written = write_sweep_html(result, html, f"jvmlab heap sweep: {parsed.name or spec.stem}", rows)
        console.print(f"HTML report: {written}")
    _emit(out, as_json)


def search(base: Plan, db: Store, request: MinHeapRequest, *, resume: bool, console: Console,
           cluster: str | None = None) -> MinHeapStudy:
    """Run the search with one line per probe (on a Dask cluster's nodes with ``cluster``); print
    the interval table."""
    import time

    from jvmlab.cli.running import search_plan
    from jvmlab.report.heapsweep import minheap_table
    from jvmlab.sizing.eta import ProbeEta

    eta = ProbeEta(request.settings, len(base.cells), time.monotonic())

    def on_probe(pc: PreparedCell, outcome: ProbeOutcome) -> None:
        eta.record(pc.cell.index)
        console.print(f"  {pc.cell.name}: -Xmx{outcome.heap_bytes >> 20}m {outcome.verdict}"
                      + (f" ({outcome.reason[:100]})" if outcome.reason else "")
                      + f" [{eta.line(pc.cell.index, time.monotonic())}]", highlight=False, markup=False)

    study = search_plan(base, db, request, resume=resume, on_probe=on_probe, cluster=cluster)
    if study.resumed_probes:
        console.print(f"resumed: {study.resumed_probes} stored probe(s) replayed")
    minheap_table([(c.cell_name, c.result) for c in study.cells], console)
    return study


def run_sweep(setup: SweepSetup, db: Store, metric: str, within: float, console: Console, as_json: bool,
              resume: bool = False) -> SweepResult:
    """Run the sweep (its report on stderr with --json), print curves and knees."""
    from jvmlab.report.heapsweep import sweep_table
    from jvmlab.sizing.flow import run_sweep as run_it

    result = run_it(setup, db, metric, within, lambda plan, again: _run_plain(plan, db, as_json, metric, again),
                    resume)
    sweep_table(result, console)
    return result


def _emit(out: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(out, indent=2, default=str))


def size_demo(quick: bool, store: str | None, as_json: bool) -> None:
    """`jvmlab demo size`: minimum heaps, a sweep at 1x-4x, 1 vs 2 CPUs at the knee, a verdict."""
    from jvmlab.scenarios.size import run_demo
    from jvmlab.store import open_store

    db = open_store(store)  # checks the location first, as `run` does
    console = Console(stderr=as_json)
    demo = run_demo(quick, db, lambda base, request: search(base, db, request, resume=False, console=console),
                    lambda setup: run_sweep(setup, db, "wall_s", 0.05, console, as_json),
                    lambda plan: _run_plain(plan, db, as_json), lambda line: console.print(line, style="bold"))
    typer.echo(f"\nVerdict (size): {demo.verdict}\n", err=as_json)
    if as_json:
        typer.echo(json.dumps({"minheap": demo.study.to_json(), "sweep": demo.sweep.to_json(),
                               "verdict": demo.verdict}, indent=2, default=str))


def _run_plain(plan: Plan, db: Store, as_json: bool, metric: str = "wall_s", resume: bool = False) -> int:
    """Run a plan as `run` does; its report goes to stderr with --json (stdout is this command's)."""
    from jvmlab.cli.running import run_plan

    return run_plan(plan, db.url, db=db, metric=metric, resume=resume, quiet=as_json, report_on_stderr=as_json)


@app.command("heapsweep")
def heapsweep(
    experiment: int | None = typer.Argument(
        None, help="A stored heap sweep or minimum-heap search (default: the latest)."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    metric: str = typer.Option("wall_s", "--metric", help="Time (or throughput) metric of the sweep."),
    within: float = typer.Option(5.0, "--within", min=0.0, max=100.0, help="Knee: within this % of the best."),
    html: Path | None = typer.Option(None, "--html", help="Write the HTML report (plots with CI bands) here."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON on stdout."),
) -> None:
    """Report a stored heap sweep (curves, CI bands, knees) or minimum-heap search again."""
    from jvmlab.model.documents import HeapSweepDocument
    from jvmlab.report.heapsweep import minheap_table, sweep_table, write_sweep_html
    from jvmlab.sizing.results import load_sweep
    from jvmlab.sizing.study import load_min_heap
    from jvmlab.store import open_store

    db = open_store(store, must_exist=True)
    exp_id = db.experiment(experiment).id if experiment is not None else db.latest_experiment().id
    console = Console(stderr=as_json)
    swept = db.record(exp_id, HeapSweepDocument)
    if swept is None:
        study = load_min_heap(db, exp_id)
        minheap_table([(c.cell_name, c.result) for c in study.cells], console)
        _emit({"minheap": study.to_json()}, as_json)
        return
    result = load_sweep(db, exp_id, metric, within / 100.0)
    sweep_table(result, console)
    source = swept.minheap_experiment
    rows = [(c.cell_name, c.result) for c in load_min_heap(db, source).cells] if source is not None else []
    if html is not None:
        written = write_sweep_html(result, html, f"jvmlab heap sweep: {db.experiment(exp_id).name}", rows)
        console.print(f"HTML report: {written}")
    _emit({"sweep": result.to_json()}, as_json)
