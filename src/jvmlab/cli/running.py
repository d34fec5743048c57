"""Running a prepared plan from the CLI: the one place a command hands a plan to the session
and its driver, chosen here on this machine or a Dask cluster: fixed blocks and `--until`
(`run`, `demo`, `heapsweep`, `demo size`, `gc advise`: :func:`run_plan`, with a progress bar,
then the report), the minimum-heap search (`minheap`, `demo size`: :func:`search_plan`), the container-size search
(`rightsize`: :func:`size_plan`) and the tuner (`tune`, `demo tune`, `gc advise`'s tuning:
:func:`tune_plan`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from jvmlab.cli.console import show_report
from jvmlab.cli.storeargs import default_artifacts, provenance_command_line
from jvmlab.errors import UserError

if TYPE_CHECKING:
    from collections.abc import Callable

    from jvmlab.execute.protocols import PrecisionCheck, RunObserver
    from jvmlab.model.documents import CandidateRecord
    from jvmlab.model.stored import SeriesTag
    from jvmlab.plan.prepare import Plan, PreparedCell
    from jvmlab.plan.revisions import RevisionSet
    from jvmlab.sizing.minheap import ProbeOutcome
    from jvmlab.sizing.rightsize import RightsizeRequest, RightsizeRun
    from jvmlab.sizing.study import MinHeapRequest, MinHeapStudy
    from jvmlab.spec.model import Spec
    from jvmlab.store.protocol import Store
    from jvmlab.tune.engine import TuneResult
    from jvmlab.tune.jvm import JvmMeasurer
    from jvmlab.tune.model import Trial
    from jvmlab.tune.progress import TuneProgress
    from jvmlab.tune.space import TuneConfig
    from jvmlab.tune.tuning import Tuning


def run_plan(plan: Plan, store_value: str | None, *, as_json: bool = False, resume: bool = False,
             until_rel: float | None = None, budget_s: float | None = None,
             max_invocations: int | None = None, metric: str | None = None, artifacts: Path | None = None,
             overrides: dict[str, bool | int | str] | None = None, quiet: bool = False,
             metric_reason: str = "", cluster: str | None = None, artifacts_url: str | None = None,
             series: SeriesTag | None = None, db: Store | None = None, report_on_stderr: bool = False,
             precision_check: PrecisionCheck | None = None, report: bool = True,
             resume_hint: str | None = None, fail_on_empty: bool = False) -> int:
    """Run a prepared plan with a progress bar, then print the report (or JSON). ``db``: a store
    the caller has open already; ``report_on_stderr``: the report goes to stderr and nothing to
    stdout (a command that prints its own document there, e.g. `heapsweep --json`);
    ``precision_check``: a driver's rule for ``--until`` (bisect: a step is decided);
    ``report``: False prints nothing (the driver words the result);
    ``fail_on_empty``: exit 4 after the report when a cell has no successful invocation."""
    from jvmlab.cli.progress import ProgressObserver
    from jvmlab.execute.options import RunOptions, ready_artifacts
    from jvmlab.execute.session import run_experiment
    from jvmlab.report.summary import summarize
    from jvmlab.results.adaptive import store_precision_reached
    from jvmlab.store import open_store, store_url

    artifacts_root = ready_artifacts(artifacts or default_artifacts(db.url if db is not None
                                                                    else store_url(store_value)))
    db = db if db is not None else open_store(store_value)
    _warn_power(plan, until_rel, max_invocations)
    options = RunOptions(
        artifacts_root=artifacts_root, resume=resume,
        command_line=provenance_command_line(), collect_overrides=overrides or {},
        until_rel=until_rel, max_invocations=max_invocations, budget_s=budget_s, metric=metric,
        metric_reason=metric_reason, series=series, resume_hint=resume_hint)
    err_console = Console(stderr=True)
    with ProgressObserver(err_console, quiet=quiet or (not err_console.is_terminal and as_json)) as observer:
        if cluster is not None:
            if plan.revisions is not None:
                raise UserError("[revisions] run on this machine (their worktrees are here); drop --cluster")
            from jvmlab.cluster.run import run_at

            exp_id = run_at(cluster, plan, db, options, observer, artifacts_url)
        else:
            exp_id = run_experiment(plan, db, options, observer,
                                    precision_check=precision_check or store_precision_reached)
    if not report:
        return exp_id
    # The metric just recorded (on --resume without --metric: the run's own), with its reason.
    summary = summarize(db, exp_id, metric)
    from jvmlab.results.why import load_why

    show_report(summary, load_why(db, exp_id, summary.invocations), as_json and not report_on_stderr,
                err_console if report_on_stderr else None)
    if fail_on_empty:
        _fail_on_empty([(cell.name, cell.n, cell.failures) for cell in summary.cells])
    return exp_id


def _fail_on_empty(cells: list[tuple[str, int, int]]) -> None:
    """hyperfine exits non-zero when a command fails; a run whose cell never succeeded exits 4
    (``EXIT_NO_SUCCESS``), after its report: everything is stored, the exit code tells a script."""
    from jvmlab.errors import EXIT_NO_SUCCESS

    empty = [(name, failed) for name, n, failed in cells if n == 0 and failed > 0]
    if not empty:
        return
    said = ", ".join(f"{name!r} ({failed} failed)" for name, failed in empty)
    typer.echo(f"jvmlab: error: no successful invocation in {said}: see the failure reasons above; exit "
               f"{EXIT_NO_SUCCESS} (-i/--ignore-failure: exit 0, failures are data)", err=True)
    raise typer.Exit(EXIT_NO_SUCCESS)


@contextmanager
def revisions_of(spec: Spec, spec_path: Path | None, artifacts: Path | None, store_value: str | None,
                 repo: Path | None = None) -> Iterator[RevisionSet | None]:
    """A spec's ``[revisions]`` checked out and built (None without them); the worktrees are
    removed when the ``with`` ends, however it ends."""
    if spec.revisions is None:
        yield None
        return
    from jvmlab.machine.gitrev import checked_out
    from jvmlab.store import store_url

    root = artifacts or default_artifacts(store_url(store_value))
    spec_dir = spec_path.absolute().parent if spec_path is not None else Path.cwd()
    with checked_out(spec.revisions, spec_dir, root, repo, lambda line: typer.echo(f"jvmlab: {line}", err=True)) \
            as revisions:
        yield revisions


def search_plan(plan: Plan, db: Store, request: MinHeapRequest, *, resume: bool,
                on_probe: Callable[[PreparedCell, ProbeOutcome], None], cluster: str | None = None) -> MinHeapStudy:
    """Hand a minimum-heap search to the session: its probes on this machine, or on a Dask
    cluster's nodes with ``cluster``."""
    from jvmlab.sizing.study import run_min_heap

    artifacts = default_artifacts(db.url) / "minheap"
    if cluster is None:
        return run_min_heap(plan, db, request, artifacts, resume=resume, on_probe=on_probe)
    from jvmlab.cluster.run import on_cluster

    with on_cluster(cluster, plan, db, "minheap --cluster") as runner:
        return run_min_heap(plan, db, request, artifacts, resume=resume, on_probe=on_probe, block_runner=runner)


def tune_plan(plan: Plan, db: Store, exp_id: int, artifacts: Path, *, client: object = None,
              on_measurer: Callable[[JvmMeasurer], None] = lambda _m: None,
              on_trial: Callable[[Trial, Tuning], None] | None = None, progress: TuneProgress | None = None,
              optuna_storage: str | None = None) -> tuple[TuneConfig, TuneResult, JvmMeasurer]:
    """Hand a tuning plan to the session: its measurer drives it on this machine, or on a Dask
    ``client``'s nodes (a local resume of a run started on a cluster keeps its block numbering).
    ``on_measurer``: told the measurer before the first trial (the cluster's nodes)."""
    from jvmlab.execute.windows import default_executor
    from jvmlab.tune.cluster_measure import measurer_for
    from jvmlab.tune.flow import run_tune

    measurer = measurer_for(db, plan, exp_id, artifacts, client)
    if measurer is not None:
        on_measurer(measurer)
    return run_tune(plan, db, exp_id, artifacts, default_executor(), on_trial, measurer, progress, optuna_storage)


def size_plan(base: Plan, db: Store, request: RightsizeRequest, *, resume: bool,
              on_candidate: Callable[[CandidateRecord], None], resume_hint: str, series: SeriesTag | None,
              observer: RunObserver) -> RightsizeRun:
    """Hand a container-size search to the session (on this machine: its cgroups are made here)."""
    from jvmlab.sizing.rightsize import run_rightsize

    return run_rightsize(base, db, request, (default_artifacts(db.url) / "rightsize").absolute(), resume=resume,
                         on_candidate=on_candidate, resume_hint=resume_hint, series=series, observer=observer)


def _warn_power(plan: Plan, until_rel: float | None, max_invocations: int | None) -> None:
    """Say before any JVM starts when no verdict of this plan can be significant."""
    from jvmlab.plan.power import plan_power

    check = plan_power(plan, until=until_rel is not None, max_invocations=max_invocations)
    if check.warn:
        typer.echo(f"jvmlab: warning: {check.message()}", err=True)
