"""`jvmlab check`, `jvmlab run` and `jvmlab demo`."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from jvmlab.cli.apps import app
from jvmlab.cli.cmd_export import BETWEEN_RUN_SD_HELP, INCONCLUSIVE_HELP, check_inconclusive, run_gate, spread_option
from jvmlab.cli.cmd_minheap import size_demo
from jvmlab.cli.cmd_tune import check_tune, tune_demo
from jvmlab.cli.running import revisions_of, run_plan
from jvmlab.cli.scanargs import ScanCommand, scans
from jvmlab.cli.storeargs import STORE_HELP, default_artifacts
from jvmlab.collect.registry import cli_help as collect_help
from jvmlab.errors import UserError, parse_option
from jvmlab.spec.durations import parse_duration_s

if TYPE_CHECKING:  # annotations only: analyze (scipy) and plan cost ~0.6 s to import
    from jvmlab.analyze.gate import GateCondition
    from jvmlab.spec.model import Spec
    from jvmlab.spec.oneliner import OneLiner

_COLLECT_HELP = collect_help()  # a module-level constant: typer reads option defaults once


@app.command()
def check(spec: Path = typer.Argument(..., help="Spec file (TOML).")) -> None:
    """Validate a spec without running it: syntax, matrix, JDKs, workload, every flag on its JDK."""
    import tempfile

    from jvmlab.plan.power import plan_power
    from jvmlab.plan.prepare import prepare
    from jvmlab.spec.load import load_spec

    parsed, text = load_spec(spec)
    with tempfile.TemporaryDirectory(prefix="jvmlab-check-") as scratch, \
            revisions_of(parsed, spec, Path(scratch), None) as revisions:  # [revisions]: built, then removed
        plan = prepare(parsed, text, spec, revisions=revisions)
    tune_line = None
    if parsed.tune is not None:  # bad [tune]: one line, before output
        from jvmlab.tune.summary import space_line  # imports optuna: only for a [tune] spec

        tune_line = space_line(check_tune(plan))
    from jvmlab.machine.limits import check_limits
    from jvmlab.server.preflight import check_plan

    check_limits(plan)  # cpus/memory beyond this machine, cgroups unusable: refused as `run` refuses them

    server_line = check_plan(plan, lambda line: typer.echo(line, err=True))  # ports, clients (docs/servers.md)
    typer.echo(f"{spec}: ok: {plural(len(plan.cells), 'cell')}, {plural(parsed.run.invocations, 'invocation')} "
               f"per cell (+{parsed.run.warmup} warm-up), order {parsed.run.order}, baseline "
               f"{plan.cells[plan.baseline_index].cell.name!r}")
    # What `run` will start, resolved exactly as `run` resolves it, the collectors' flags included.
    typer.echo(f"  working directory: {plan.workdir}")
    template = plan.cells[0].template  # the hooks are the spec's: the same for every cell
    for line in template.describe_hooks() if template is not None else []:
        typer.echo(f"  hook {line}")
    from jvmlab.execute.experiment import check_commands

    commands = check_commands(plan)
    for pc, command in zip(plan.cells, commands, strict=True):
        unlock = f" (added {' '.join(pc.added_unlocks)})" if pc.added_unlocks else ""
        flags = shlex.join(pc.flags) or "(no flags)"
        typer.echo(f"  {pc.cell.name}: {pc.jdk.vendor} {pc.jdk.version}: {flags}{unlock}")
        for line in command:
            typer.echo(f"    {line}")
        for warning in (*pc.check_warnings, *pc.heap_warnings):
            typer.echo(f"    warning: {warning}")
    if server_line:
        typer.echo(f"  {server_line}")
    if tune_line:
        typer.echo(f"  {tune_line}")
    power = plan_power(plan)
    if power.warn:
        typer.echo(f"warning: {power.message()}")


def plural(n: int, word: str) -> str:
    """``1 cell``, ``2 cells``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def parse_until(value: str | None) -> float | None:
    if value is None:
        return None
    text = value.strip().rstrip("%")
    try:
        number = float(text)
    except ValueError:
        raise UserError(f"--until {value!r}: write a percentage such as 2%") from None
    if not 0 < number < 100:
        raise UserError(f"--until {value!r}: must be between 0% and 100%")
    return number / 100.0


@app.command(cls=ScanCommand)
def run(
    ctx: typer.Context,
    spec: list[str] = typer.Argument(..., help="A spec file (TOML), or one or more commands as hyperfine takes "
                                          "them: 'java -XX:+UseG1GC -jar app.jar' 'java -XX:+UseParallelGC -jar "
                                          "app.jar' (one cell per command; docs/oneliners.md)."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the JSON summary on stdout."),
    resume: bool = typer.Option(False, "--resume", help="Continue the newest experiment of this spec."),
    until: str | None = typer.Option(None, "--until",
                                     help="Add blocks until every 95% CI half-width is within this, e.g. 2%."),
    max_invocations: int | None = typer.Option(None, "--max-invocations", min=1,
                                               help="Budget: measured invocations in all."),
    budget: str | None = typer.Option(None, "--budget", help="Budget: wall time, e.g. 10m."),
    metric: str | None = typer.Option(None, "--metric", help="Metric to compare (`jvmlab metrics` lists them). "
                                                       "Default: wall_s, or on --resume the run's own."),
    artifacts: Path = typer.Option(None, "--artifacts", help="Folder for outputs and logs (default: beside an SQLite "
                                                             "store, named after it: lab.db -> lab-artifacts/)."),
    enable: list[str] = typer.Option([], "--collect", help=_COLLECT_HELP),
    disable: list[str] = typer.Option([], "--no-collect", help="Switch a collector off."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    baseline_experiment: int | None = typer.Option(None, "--baseline-experiment",
                                            help="CI gate: a stored experiment to compare this run with."),
    fail_if: list[str] = typer.Option([], "--fail-if", help="With --baseline-experiment: \"METRIC > +N%\" "
                                      "(see `jvmlab compare --help`); exit 1 on a real regression."),
    summary_md: Path | None = typer.Option(None, "--summary-md", help="With --fail-if: write a Markdown summary here."),
    inconclusive: str = typer.Option("fail", "--inconclusive", help=INCONCLUSIVE_HELP),
    spread: str | None = typer.Option(None, "--between-run-sd", help="With --baseline-experiment: "
                                      + BETWEEN_RUN_SD_HELP[0].lower() + BETWEEN_RUN_SD_HELP[1:]),
    cluster: str | None = typer.Option(None, "--cluster", help="Run on a Dask scheduler, e.g. tcp://HOST:8786 "
                                                        "(see docs/cluster.md)."),
    artifacts_url: str | None = typer.Option(None, "--artifacts-url", help="With --cluster: a shared folder "
                                             "(file:///PATH) where nodes leave every artifact."),
    label: str | None = typer.Option(None, "--label", help="This run's point in a series over time (a commit, "
                                     "a JDK build, a date); see `jvmlab history`."),
    label_from: str | None = typer.Option(None, "--label-from", help="'git': label with the current commit."),
    series: str | None = typer.Option(None, "--series", help="With --label: the series (default: the spec's name)."),
    order: float | None = typer.Option(None, "--order", help="With --label: its place in the series (default: "
                                       "order of arrival)."),
    names: list[str] = typer.Option([], "-n", "--name", help="One-liner: a cell name per command ({NAME} of a "
                                    "scan filled in). Default: what differs between the commands."),
    parameter_list: tuple[str, str] | None = typer.Option(None, "-L", "--parameter-list", help="One-liner: NAME "
                                                          "V1,V2,...: one command per value, {NAME} replaced "
                                                          "(repeatable: every combination)."),
    parameter_scan: tuple[str, int, int] | None = typer.Option(None, "-P", "--parameter-scan", help="One-liner: "
                                                               "NAME MIN MAX: integers, {NAME} replaced (repeatable)."),
    parameter_step: int = typer.Option(1, "-D", "--parameter-step-size", min=1, help="With -P: the step."),
    jvm: list[str] = typer.Option([], "--jvm", help="One-liner: NAME=SELECTOR (as in \\[jvms]); the command's java "
                                  "is replaced by each JDK's."),
    flags: list[str] = typer.Option([], "--flags", help="One-liner: NAME=\"FLAGS\", a level of the flags factor."),
    invocations: int | None = typer.Option(None, "--invocations", "--runs", "-r", min=1, help="One-liner: measured "
                                           "invocations per cell (as \\[run] invocations; default 10)."),
    warmup: int | None = typer.Option(None, "--warmup", "-w", min=0, help="One-liner: warm-up invocations per cell."),
    hook: list[str] = typer.Option([], "--hook", help="One-liner: KIND=COMMAND, KIND one of setup, before_each, "
                                   "after_each, cleanup (split as a shell would, never run by one)."),
    save_spec: Path | None = typer.Option(None, "--save-spec", help="One-liner: write the equivalent spec here "
                                          "and stop (then `jvmlab run FILE`)."),
    ignore_failure: bool = typer.Option(False, "--ignore-failure", "-i", help="Exit 0 even when a cell has no "
                                        "successful invocation (default: exit 4 then, as hyperfine exits non-zero)."),
    revisions: str | None = typer.Option(None, "--revisions", help="One-liner: REV,REV,... git revisions of "
                                         "the repository here as a factor, each built in its own worktree "
                                         "(docs/bisect.md)."),
    build: str | None = typer.Option(None, "--build", help="One-liner with --revisions: the build command run "
                                     "in each revision's worktree (split as a shell would, never run by one)."),
) -> None:
    """Run an experiment: every cell as fresh JVMs in a fair order; store each invocation."""
    from jvmlab import metrics as registry
    from jvmlab.cluster.share import check_artifacts_url
    from jvmlab.collect.registry import parse_overrides
    from jvmlab.plan.metric_choice import run_metric_reason
    from jvmlab.plan.prepare import prepare
    from jvmlab.spec.load import load_spec
    from jvmlab.store import check_store_location

    until_rel = parse_until(until)
    budget_s = None if budget is None else parse_option("--budget", budget, parse_duration_s)
    check_artifacts_url(artifacts_url, cluster)
    if metric is not None:
        registry.get(metric)
    # Recorded with the metric so `report` compares the same one; a bare --resume keeps the
    # reason recorded when the run started.
    metric_reason = run_metric_reason(metric or "wall_s", given=metric is not None) if metric or not resume else ""
    overrides = parse_overrides(enable, disable)  # --collect gc, --no-collect proc, --collect jfr=profile
    check_store_location(store)
    conditions = _gate_conditions(store, baseline_experiment, fail_if)
    from jvmlab.machine.gitlabel import series_tag

    tag = series_tag(label, label_from, series, order, Path.cwd())
    check_inconclusive(inconclusive)
    sd = spread_option(spread)
    if spread is not None and baseline_experiment is None:
        raise UserError("--between-run-sd goes with --baseline-experiment: it is the spread between the two runs")
    del parameter_list, parameter_scan  # in help only: ScanCommand takes every -L and -P (scans)
    one = one_liner(spec, names, *scans(ctx), parameter_step, jvm, flags, invocations, warmup, hook, revisions,
                    build)
    if one is None:
        if save_spec is not None:
            raise UserError("--save-spec turns a one-liner into a spec; this is a spec already")
        parsed, text = load_spec(Path(spec[0]))
        spec_path: Path | None = Path(spec[0])
    else:
        parsed, text, spec_path = _one_liner_spec(one, save_spec, artifacts, store)
        if save_spec is not None:
            typer.echo(f"wrote {save_spec}; run it with: jvmlab run {shlex.quote(str(save_spec))}")
            return
    with revisions_of(parsed, spec_path, artifacts, store) as checked:  # [revisions]: worktrees, built
        plan = prepare(parsed, text, spec_path, revisions=checked)
        exp_id = run_plan(plan, store, as_json=as_json, resume=resume, until_rel=until_rel, budget_s=budget_s,
                          max_invocations=max_invocations, metric=metric, artifacts=artifacts, overrides=overrides,
                          quiet=quiet, metric_reason=metric_reason, cluster=cluster, artifacts_url=artifacts_url,
                          series=tag, fail_on_empty=not ignore_failure and not conditions)
    if conditions and baseline_experiment is not None:  # _gate_conditions: conditions come with a baseline
        from jvmlab.store import open_store

        raise typer.Exit(run_gate(open_store(store), baseline_experiment, exp_id, conditions, summary_md,
                                  to_stderr=as_json, inconclusive=inconclusive, between_run_sd=sd))


def one_liner(targets: list[str], names: list[str], parameter_list: list[tuple[str, str]],
              parameter_scan: list[tuple[str, int, int]], step: int, jvm: list[str], flags: list[str],
              invocations: int | None, warmup: int | None, hooks: list[str], revisions: str | None = None,
              build: str | None = None) -> OneLiner | None:
    """The one-liner the arguments describe, or None for a spec file (a ``.toml`` argument)."""
    from jvmlab.spec.hooks import HOOK_KINDS
    from jvmlab.spec.oneliner import OneLiner, is_command, parse_assignment

    specs = [t for t in targets if not is_command(t) or _names_a_file(t)]
    given = [o for o, v in (("-n", names), ("-L", parameter_list), ("-P", parameter_scan), ("--jvm", jvm),
                            ("--flags", flags), ("--invocations", invocations), ("--warmup", warmup),
                            ("--hook", hooks), ("--revisions", revisions), ("--build", build)) if v]
    if specs:
        if len(targets) > 1:
            raise UserError("give one spec file, or commands (not both, not two specs)")
        if given:
            raise UserError(f"{given[0]} goes with a one-liner (commands); in a spec, write it in the TOML")
        return None
    kinds = [parse_assignment(h, "--hook") for h in hooks]
    bad = [k for k, _ in kinds if k not in HOOK_KINDS]
    if bad:
        raise UserError(f"--hook {bad[0]}=...: the kinds are {', '.join(HOOK_KINDS)}")
    lists = tuple((name, tuple(v for v in values.split(",") if v)) for name, values in parameter_list)
    ranges = tuple((name, low, high, step) for name, low, high in parameter_scan)
    revs = tuple(r.strip() for r in (revisions or "").split(",") if r.strip())
    if revisions is not None and not revs:
        raise UserError("--revisions: give revisions separated by commas, e.g. main,HEAD")
    return OneLiner(tuple(targets), tuple(names), lists, ranges, tuple(parse_assignment(j, "--jvm") for j in jvm),
                    tuple(parse_assignment(f, "--flags") for f in flags), invocations, warmup, tuple(kinds),
                    revs, build)


def _names_a_file(argument: str) -> bool:
    """A folder or a readable, non-executable file is a spec whatever its name (``spec.txt``):
    ``load_spec`` then says what is wrong with it; an executable (``./bench.sh``) is a command."""
    path = Path(argument)
    try:
        if path.exists() and not path.is_dir() and not path.is_file():
            return True  # a FIFO or a device: load_spec refuses it in one line
        return path.is_dir() or (path.is_file() and not os.access(path, os.X_OK))
    except (OSError, ValueError):  # too long for a file name, or a NUL in it: a command
        return False


def _one_liner_spec(one: OneLiner, save_spec: Path | None, artifacts: Path | None,
                    store: str | None) -> tuple[Spec, str, Path]:
    """The one-liner's spec, written as a file: to ``--save-spec``, else into the artifacts
    folder (``one-liners/HASH.toml``), so the experiment has a spec file like any other and
    Ctrl-C's resume command names it. Its relative paths still mean the folder typed in."""
    import hashlib

    from jvmlab.spec.load import parse_spec
    from jvmlab.spec.oneliner import oneliner_toml
    from jvmlab.store import store_url

    folder = (save_spec.absolute().parent if save_spec is not None
              else (artifacts or default_artifacts(store_url(store))).absolute() / "one-liners")
    text = oneliner_toml(one, Path.cwd(), folder, absolute=save_spec is None)
    parsed = parse_spec(text, "the one-liner")
    path = save_spec or folder / f"{hashlib.sha256(text.encode()).hexdigest()[:12]}.toml"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise UserError(f"cannot write the one-liner's spec {path}: {err.strerror or err}") from None
    return parsed, text, path


def _gate_conditions(store: str | None, baseline: int | None, fail_if: list[str]) -> list[GateCondition]:
    """Check the gate's options before anything runs (bad syntax or a missing baseline: exit 2)."""
    from jvmlab.analyze.gate import parse_condition

    conditions = [parse_condition(text) for text in fail_if]
    if bool(conditions) != (baseline is not None):
        raise UserError("--fail-if and --baseline-experiment go together: the gate compares this run "
                        "with a stored experiment")
    if baseline is not None:
        from jvmlab.store import open_store

        open_store(store, must_exist=True).experiment(baseline)
    return conditions



@app.command()
def demo(
    name: str | None = typer.Argument(None, help="A scenario (see `jvmlab demo --list`); none: the quick default."),
    quick: bool = typer.Option(False, "--quick", help="A shorter version of the scenario."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the JSON summary on stdout."),
    list_: bool = typer.Option(False, "--list", help="List the scenarios."),
) -> None:
    """Run a built-in experiment on the JDKs found here (default: AlwaysPreTouch on/off, 1 GB heap)."""
    from jvmlab.plan.prepare import prepare
    from jvmlab.report.summary import summarize
    from jvmlab.scenarios import scenario_names, scenario_runs, scenario_verdict
    from jvmlab.scenarios.model import ScenarioSkipped
    from jvmlab.spec.load import parse_spec
    from jvmlab.store import open_store

    if list_:
        for scenario, description in scenario_names().items():
            typer.echo(f"{scenario:12} {description}")
        from jvmlab.store import store_url

        url = store_url(store)
        typer.echo(f"\nResults go to {url}; outputs and logs to {default_artifacts(url).absolute()}/")
        return
    if name == "size":  # staged: each step's spec is made from the previous step's result
        size_demo(quick, store, as_json)
        return
    if name == "tune":  # a search, not a fixed matrix: see jvmlab.cli.cmd_tune
        tune_demo(quick, store)
        return
    try:
        runs = scenario_runs(name or "default", quick)
    except ScenarioSkipped as skipped:
        typer.echo(f"jvmlab: skipped scenario {name}: {skipped}", err=True)
        return
    for scenario_run in runs:
        plan = prepare(parse_spec(scenario_run.toml, f"scenario {name or 'default'}: {scenario_run.title}"),
                       scenario_run.toml, None)
        exp_id = run_plan(plan, store, as_json=as_json, metric=scenario_run.metric,
                          metric_reason=scenario_run.metric_reason, until_rel=scenario_run.until_rel,
                          max_invocations=scenario_run.max_invocations(len(plan.cells)))
        if name is not None:
            db = open_store(store)
            table = scenario_verdict(scenario_run.scenario, summarize(db, exp_id), db)
            typer.echo(f"\nVerdict ({scenario_run.scenario}, {scenario_run.title}):\n{table}\n", err=as_json)
