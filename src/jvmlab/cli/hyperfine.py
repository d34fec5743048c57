"""hyperfine's options that jvmlab does not take, each with jvmlab's way of doing the same.

A new user types ``jvmlab run --export-json x.json 'java ...'`` as they would hyperfine; the
usage error then says what to write instead (`cli/main.py`, ``_usage_error``).
"""

from __future__ import annotations

_EXPORT = "jvmlab stores every run; afterwards `jvmlab export --format {fmt} -o FILE`"
_HOOK = "--hook {kind}=COMMAND ({when}; split as a shell would, never run by one)"
_RUNS = "--runs N (measured invocations per cell), or --until 2% to add blocks until the CI is that narrow"

_OUTPUT = "every invocation's stdout and stderr are kept in the artifacts folder (--artifacts)"
_SHELL = ("jvmlab runs a command without a shell (as hyperfine -N); a spec's [workload] shell = true runs one "
          "through a shell")
_UNITS = "`jvmlab metrics` lists the metrics and their units; --metric picks one"

HINTS: dict[str, str] = {name: said for names, said in (
    (("--export-json",), _EXPORT.format(fmt="hyperfine") + " (hyperfine's JSON schema)"),
    (("--export-csv",), _EXPORT.format(fmt="csv")),
    (("--export-markdown", "--export-asciidoc", "--export-orgmode"), _EXPORT.format(fmt="markdown")),
    (("--setup", "-s"), _HOOK.format(kind="setup", when="once before the first invocation")),
    (("--prepare", "-p"), _HOOK.format(kind="before_each", when="before each invocation")),
    (("--conclude", "-C"), _HOOK.format(kind="after_each", when="after each invocation")),
    (("--cleanup", "-c"), _HOOK.format(kind="cleanup", when="once after the last invocation")),
    (("--min-runs", "-m"), _RUNS),
    (("--max-runs", "-M"), _RUNS + "; --max-invocations N caps the whole run"),
    (("--show-output", "--output"), _OUTPUT),
    (("--shell", "-S"), _SHELL),
    (("-N",), "jvmlab never starts a shell for a command: drop -N"),
    (("--command-name",), "-n/--name NAME (one per command)"),
    (("--parameter-list",), "-L NAME V1,V2,..."),
    (("--time-unit", "-u"), _UNITS),
    (("--style",), "--quiet (-q) drops the progress bar; --json prints the summary as JSON"),
) for name in names}


def hint(option: str | None) -> str:
    """``; jvmlab's way: ...`` for a hyperfine option, else nothing."""
    if option is None:
        return ""
    said = HINTS.get(option.partition("=")[0])
    return f"; hyperfine's {option.partition('=')[0]} in jvmlab: {said}" if said else ""
