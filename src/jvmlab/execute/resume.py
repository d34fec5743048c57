"""How a run was started, kept in the store so that ``--resume`` continues it the same way.

An interrupted ``--until 1%`` run resumed without ``--until`` used to end at once with
unbalanced cells; now the options given at the start (``until_pct``, ``max_invocations``,
``budget_s``, ``collect``, ``no_collect``, ``metric``) are merged into the experiment's run
options and an option not given on the resuming command line is taken from there. The
interruption hint repeats them, so the printed command does the same either way.
"""

from __future__ import annotations

import shlex
from dataclasses import replace

from jvmlab.collect.registry import from_record, override_args
from jvmlab.execute.options import RunOptions
from jvmlab.model.documents import RunOptionsRecord
from jvmlab.plan.metric_choice import DEFAULT_METRIC


def options_record(options: RunOptions, stored: RunOptionsRecord | None = None) -> RunOptionsRecord:
    """The run options worth remembering, over what was ``stored`` (the metric's reason, the
    working directory and an import's source stay)."""
    enable, disable = override_args(options.collect_overrides)  # e.g. ["jfr=profile", "startup"]
    return (stored or RunOptionsRecord()).but(
        until_pct=round(options.until_rel * 100, 6) if options.until_rel is not None else None,
        max_invocations=options.max_invocations, budget_s=options.budget_s,
        collect=tuple(enable), no_collect=tuple(disable), metric=options.metric or DEFAULT_METRIC)


def merge_stored(options: RunOptions, stored: RunOptionsRecord) -> RunOptions:
    """Options for a resumed run: what this command line gave, else what the start gave."""
    until_pct = stored.until_pct
    overrides = dict(options.collect_overrides)
    if not overrides:
        overrides = from_record(list(stored.collect), list(stored.no_collect))
    return replace(
        options,
        until_rel=options.until_rel if options.until_rel is not None else (
            until_pct / 100.0 if until_pct is not None else None),
        max_invocations=options.max_invocations if options.max_invocations is not None else stored.max_invocations,
        budget_s=options.budget_s if options.budget_s is not None else stored.budget_s,
        metric=options.metric or stored.metric or DEFAULT_METRIC,
        collect_overrides=overrides,
    )


def resume_command(spec: str, store_url: str, options: RunOptions) -> str:
    """The command that continues this run, repeating every option that shapes it."""
    argv = ["jvmlab", "run", spec, "--resume", "--store", store_url]
    if options.until_rel is not None:
        argv += ["--until", f"{options.until_rel * 100:g}%"]
    if options.max_invocations is not None:
        argv += ["--max-invocations", str(options.max_invocations)]
    if options.budget_s is not None:
        argv += ["--budget", f"{options.budget_s:g}s"]
    if options.metric and options.metric != DEFAULT_METRIC:
        argv += ["--metric", options.metric]
    enable, disable = override_args(options.collect_overrides)
    for flag, names in (("--collect", enable), ("--no-collect", disable)):
        for name in names:
            argv += [flag, name.replace("_", "-")]
    return shlex.join(argv)
