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
from typing import Any

from jvmlab.collect.registry import from_record, override_args
from jvmlab.execute.options import RunOptions

DEFAULT_METRIC = "wall_s"


def options_record(options: RunOptions) -> dict[str, Any]:
    """The run options worth remembering, under the store's key names."""
    return {
        "until_pct": round(options.until_rel * 100, 6) if options.until_rel is not None else None,
        "max_invocations": options.max_invocations,
        "budget_s": options.budget_s,
        "collect": override_args(options.collect_overrides)[0],  # e.g. ["jfr=profile", "startup"]
        "no_collect": override_args(options.collect_overrides)[1],
        "metric": options.metric or DEFAULT_METRIC,
    }


def merge_stored(options: RunOptions, stored: dict[str, Any]) -> RunOptions:
    """Options for a resumed run: what this command line gave, else what the start gave."""
    until_pct = stored.get("until_pct")
    overrides = dict(options.collect_overrides)
    if not overrides:
        overrides = from_record(stored.get("collect") or [], stored.get("no_collect") or [])
    return replace(
        options,
        until_rel=options.until_rel if options.until_rel is not None else (
            until_pct / 100.0 if until_pct is not None else None),
        max_invocations=options.max_invocations if options.max_invocations is not None else stored.get(
            "max_invocations"),
        budget_s=options.budget_s if options.budget_s is not None else stored.get("budget_s"),
        metric=options.metric or stored.get("metric") or DEFAULT_METRIC,
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
