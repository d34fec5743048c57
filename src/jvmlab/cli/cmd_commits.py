"""`jvmlab gate` (two revisions measured interleaved, judged as `compare --fail-if`) and
`jvmlab bisect` (the first commit where a metric changed). docs/bisect.md, docs/ci-gate.md."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import typer

from jvmlab.cli.apps import app
from jvmlab.cli.cmd_export import INCONCLUSIVE_HELP, check_inconclusive
from jvmlab.cli.running import revisions_of, run_plan
from jvmlab.cli.storeargs import STORE_HELP, default_artifacts

BUILD_HELP = ("Build command run in each revision's worktree (in the spec's folder there), e.g. "
              "'./gradlew jar' (split as a shell would, never run by one unless --shell). "
              "Default: \\[revisions] build.")
REPO_HELP = "The git repository (default: \\[revisions] repo, else the repository of the spec's folder)."
STEP_UNTIL = 0.01  # the session's --until seam carries a driver's stopping rule; the rule ignores the target


@app.command()
def gate(
    spec: Path = typer.Argument(..., help="Spec file (TOML); its workload's paths mean the spec's folder in each "
                                "revision."),
    base: str = typer.Option(..., "--base", help="The base revision (e.g. origin/main, a sha)."),
    head: str = typer.Option("HEAD", "--head", help="The revision under test (default HEAD)."),
    fail_if: list[str] = typer.Option(["wall_s > +5%"], "--fail-if", help="\"METRIC > +N%\", \"METRIC < -N%\" or "
                                      "\"METRIC worse N%\" (as `compare --fail-if`). Repeatable. Default: "
                                      "wall_s > +5%."),
    build: str | None = typer.Option(None, "--build", help=BUILD_HELP),
    shell: bool = typer.Option(False, "--shell", help="Run --build with /bin/sh -c."),
    repo: Path | None = typer.Option(None, "--repo", help=REPO_HELP),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    artifacts: Path | None = typer.Option(None, "--artifacts", help="Folder for worktrees, outputs and logs."),
    until: str | None = typer.Option(None, "--until", help="Add blocks until the CI half-width is within this, "
                                     "e.g. 2% (fewer inconclusive gates)."),
    max_invocations: int | None = typer.Option(None, "--max-invocations", min=1, help="Budget: measured "
                                               "invocations in all."),
    summary_md: Path | None = typer.Option(None, "--summary-md", help="Write a Markdown summary (for a pull-request "
                                           "comment) here."),
    inconclusive: str = typer.Option("fail", "--inconclusive", help=INCONCLUSIVE_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """CI gate on two revisions: build both beside your checkout, measure them interleaved in one
    experiment, exit 0 pass, 1 fail (head surely worse beyond the threshold, or head does not
    build), 3 inconclusive."""
    from jvmlab.analyze.gate import parse_condition
    from jvmlab.cli.cmd_run import parse_until
    from jvmlab.commits.gate import gate_revisions, with_revisions
    from jvmlab.plan.prepare import prepare
    from jvmlab.report.gate import summary_line, summary_markdown
    from jvmlab.report.page import write_text
    from jvmlab.spec.load import load_spec
    from jvmlab.store import open_store

    conditions = [parse_condition(text) for text in fail_if]
    check_inconclusive(inconclusive)
    until_rel = parse_until(until)
    parsed, text = load_spec(spec)
    parsed = with_revisions(parsed, {"base": base, "head": head}, repo, build, shell)
    db = open_store(store)
    with revisions_of(parsed, spec, artifacts, store) as revisions:
        assert revisions is not None
        not_built = {t.level: t.record for t in revisions.failed}
        if not_built:
            code = 1 if "head" in not_built else 3
            for level, record in not_built.items():
                typer.echo(f"jvmlab gate: {'FAIL' if level == 'head' else 'INCONCLUSIVE'}: {level} "
                           f"{record.sha[:12]} does not build: {record.build_error}", err=True)
            raise typer.Exit(code)
        plan = prepare(parsed, text, spec, revisions=revisions)
        exp_id = run_plan(plan, store, db=db, until_rel=until_rel, max_invocations=max_invocations,
                          metric=conditions[0].metric if "*" not in conditions[0].metric else None,
                          artifacts=artifacts, quiet=quiet, report_on_stderr=True)
    result = gate_revisions(db, exp_id, conditions)
    shas = {t.level: t.record.sha[:12] for t in revisions.trees}
    where = f"[base {base} {shas['base']} -> head {head} {shas['head']}, interleaved in experiment #{exp_id}]"
    typer.echo(summary_line(result, exp_id, exp_id, inconclusive, where=where))
    if summary_md is not None:
        what = (f"head `{_md(head)}` ({shas['head']}) against base `{_md(base)}` ({shas['base']}), measured "
                f"interleaved in experiment #{exp_id}")
        write_text(summary_md, summary_markdown(result, exp_id, exp_id, inconclusive, what=what))
    raise typer.Exit(result.exit_code_for(inconclusive))


def _md(text: str) -> str:
    """A revision name inside Markdown backticks (no backtick, pipe or HTML)."""
    return "".join(c for c in text if c not in "`|<>\n")


@app.command()
def bisect(
    spec: Path = typer.Argument(..., help="Spec file (TOML) with one JVM and no factors."),
    good: str = typer.Option(..., "--good", help="A revision without the change (older)."),
    bad: str = typer.Option(..., "--bad", help="A revision with it (newer; default HEAD)."),
    build: str | None = typer.Option(None, "--build", help=BUILD_HELP),
    shell: bool = typer.Option(False, "--shell", help="Run --build with /bin/sh -c."),
    metric: str = typer.Option("wall_s", "--metric", help="The metric that changed (`jvmlab metrics`)."),
    repo: Path | None = typer.Option(None, "--repo", help=REPO_HELP),
    max_blocks: int = typer.Option(30, "--max-blocks", min=2, help="A step's cap: blocks (invocations per "
                                   "revision) before it is called inconclusive."),
    series: str | None = typer.Option(None, "--series", help="The series the steps are labelled runs of "
                                      "(default: '<spec name> bisect')."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    artifacts: Path | None = typer.Option(None, "--artifacts", help="Folder for worktrees, outputs and logs."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    html_out: Path | None = typer.Option(None, "--html", help="Write the steps on a timeline to this file."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Find the first commit between --good and --bad where METRIC changed: each step measures a
    midpoint interleaved with both ends until it is like one of them (95% confidence) or its cap;
    a commit that does not build is skipped. Exit 0 when named, 3 when not."""
    from jvmlab import metrics as registry
    from jvmlab.commits.bisect import BisectRequest, StepRun
    from jvmlab.commits.bisect import bisect as run_bisect
    from jvmlab.machine.gitrev import BuildCommand
    from jvmlab.plan.prepare import Plan
    from jvmlab.report.bisect import bisect_html, summary_lines
    from jvmlab.report.page import write_text
    from jvmlab.spec.load import load_spec
    from jvmlab.store import open_store, store_url

    registry.get(metric)
    parsed, text = load_spec(spec)
    db = open_store(store)
    root = artifacts or default_artifacts(store_url(store))
    command = shlex.join(sys.argv[1:]) if len(sys.argv) > 1 else "bisect ..."  # the same command resumes

    def measure(plan: Plan, step: StepRun) -> int:
        return run_plan(plan, store, db=db, resume=step.resume, until_rel=STEP_UNTIL,
                        max_invocations=step.max_invocations, metric=metric, artifacts=root, quiet=quiet,
                        series=step.series, precision_check=step.decided, report=False,
                        resume_hint=f"jvmlab {command}")

    request = BisectRequest(parsed, text, spec, good, bad, metric=metric,
                            repo=repo.absolute() if repo is not None else None,
                            build=BuildCommand.of(build, shell) if build is not None else None,
                            max_blocks=max_blocks, series=series)
    result = run_bisect(request, db, measure, root, say=lambda line: typer.echo(f"jvmlab: {line}", err=True))
    if html_out is not None:
        write_text(html_out, bisect_html(result))
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:
        for line in summary_lines(result):
            typer.echo(line)
    raise typer.Exit(result.exit_code)
