"""Check a flag list against a real JDK before spending minutes on a matrix.

One ``java <flags> -XX:+PrintFlagsFinal -version`` run validates every form of option at
once (``-XX:``, ``-Xmx``, ``-Xlog:``, ``-D``, ``--add-opens ...``) because the JVM itself
parses them, and its table says what each flag finally is and why (command line, ergonomic,
default). Diagnostic and experimental flags get their unlock flag prepended automatically;
the result records which unlocks were added so reports can show the exact command line.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.jdk import openj9
from jvmlab.jdk.cache import JdkCache
from jvmlab.jdk.flagcheck import FlagCheck
from jvmlab.jdk.flagerrors import (
    UNLOCK_DIAGNOSTIC,
    UNLOCK_EXPERIMENTAL,
    Rejection,
    jvm_warnings,
    read_rejection,
)
from jvmlab.jdk.flagtable import parse_flags_final
from jvmlab.jdk.heap import judge_heap, machine_memory_bytes, without_pre_touch
from jvmlab.jdk.proc import JavaRun, run_java
from jvmlab.model.jdk import JdkInfo

CHECK_TIMEOUT_S = 60.0
MAX_UNLOCK_RETRIES = 2  # one per unlock kind (diagnostic, experimental)
CHECK_WORKERS = 2

# Options whose value is the next argv element.
OPTIONS_WITH_VALUE = frozenset({
    "--add-opens", "--add-exports", "--add-reads", "--add-modules", "--module-path", "-p",
    "--upgrade-module-path", "--patch-module", "--limit-modules", "--enable-native-access",
    "-cp", "-classpath", "--class-path", "-javaagent", "-agentlib", "-agentpath",
})
# Options that choose what to run or print instead of running: not flags for a workload.
NOT_FLAGS = frozenset({
    "-jar", "-m", "--module", "--source", "-version", "--version", "-showversion",
    "--show-version", "-help", "--help", "-h", "-?", "-X", "--help-extra", "--list-modules",
    "--describe-module", "-d", "--dry-run",
})


def check_flags(jdk: JdkInfo, flags: Sequence[str], *, cache: JdkCache | None = None) -> FlagCheck:
    """Validate ``flags`` on ``jdk`` with one JVM start (two or three if unlocks are needed).

    Raises UserError naming the JDK, the flag, the JVM's message and a close suggestion.
    """
    given = list(flags)
    check_tokens(given)
    heap = judge_heap(given, machine_memory_bytes())
    if heap.error is not None:
        raise UserError(f"{jdk.describe()}: {heap.error}")
    if jdk.vm_kind == "OpenJ9":  # no PrintFlagsFinal, and unknown -XX: options are ignored by default
        return openj9.check_flags(jdk, given, _run, rejection_line)
    current = list(given)
    added: list[str] = []
    for _ in range(MAX_UNLOCK_RETRIES + 1):
        # Checked, never done: pre-touching a 4 GB heap to validate a flag takes a minute.
        checked = without_pre_touch(current)
        run = _run(jdk, [*checked, "-XX:+PrintFlagsFinal", "-version"])
        if run.ok:
            return _result(current, added, run, heap.warnings, pre_touch=checked != current)
        rejection = read_rejection(run, given, lambda: flag_names(jdk, cache=cache))
        if rejection.unlock is None or rejection.unlock in added:
            raise UserError(rejection_line(jdk, given, rejection))
        # Prepended even if the user gave it later in the list: the JVM wants it first.
        current.insert(0, rejection.unlock)
        added.insert(0, rejection.unlock)
    raise UserError(rejection_line(jdk, given, rejection))


def check_many(
    pairs: Iterable[tuple[JdkInfo, Sequence[str]]], *, cache: JdkCache | None = None
) -> list[FlagCheck]:
    """check_flags for several (JDK, flags) pairs, two at a time; results in input order.

    All checks run to the end; the first failure in input order is then raised.
    """
    items = list(pairs)

    def one(pair: tuple[JdkInfo, Sequence[str]]) -> FlagCheck | UserError:
        try:
            return check_flags(pair[0], pair[1], cache=cache)
        except UserError as exc:
            return exc

    pool = ThreadPoolExecutor(max_workers=CHECK_WORKERS)
    try:
        outcomes = list(pool.map(one, items))
    finally:  # stopped (Ctrl-C, SIGTERM): the checks not started are dropped, not waited for
        pool.shutdown(wait=False, cancel_futures=True)
    for outcome in outcomes:
        if isinstance(outcome, UserError):
            raise outcome
    return [outcome for outcome in outcomes if isinstance(outcome, FlagCheck)]


def flag_names(jdk: JdkInfo, *, cache: JdkCache | None = None) -> tuple[str, ...]:
    """All -XX flag names this JDK knows (diagnostic and experimental too); cached per JDK."""
    cache = JdkCache() if cache is None else cache
    cached = cache.get(jdk.home, "flag_names")
    if isinstance(cached, list):
        return tuple(str(name) for name in cached)
    args = [UNLOCK_DIAGNOSTIC, UNLOCK_EXPERIMENTAL, "-XX:+PrintFlagsFinal", "-version"]
    names = tuple(sorted(parse_flags_final(_run(jdk, args).stdout)))
    if names:
        cache.put(jdk.home, "flag_names", list(names))
    return names


def check_tokens(flags: Sequence[str]) -> None:
    """Refuse argv elements that are not JVM options (a class name, ``-jar app.jar``, ...)."""
    expects_value = False
    for token in flags:
        if expects_value:
            expects_value = False
            continue
        if token in NOT_FLAGS:
            raise UserError(
                f"{token} is not a JVM flag (it chooses what the JVM runs); give the workload separately"
            )
        if not token.startswith("-"):
            raise UserError(
                f"{token!r} is not a JVM flag (flags start with '-'); check the flag list for a stray word"
            )
        expects_value = token in OPTIONS_WITH_VALUE
    if expects_value:
        raise UserError(f"{flags[-1]} needs a value after it; add it as the next flag element")


def rejection_line(jdk: JdkInfo, flags: Sequence[str], rejection: Rejection) -> str:
    """One line: JDK, flag, the JVM's words, suggestion, what to do next."""
    what = rejection.flag if rejection.flag is not None else f'the flags "{" ".join(flags)}"'
    hint = f" (did you mean {rejection.suggestion!r}?)" if rejection.suggestion else ""
    todo = "fix or remove the flag" if rejection.flag is not None else "make the flags consistent"
    return f"{jdk.describe()} rejects {what}: {rejection.message}{hint}; {todo}"


def _run(jdk: JdkInfo, args: list[str]) -> JavaRun:
    # A scratch working directory: relative paths in flags (-Xlog:gc:file=gc.log) land there.
    with tempfile.TemporaryDirectory(prefix="jvmlab-flags-") as scratch:
        return run_java(jdk.java, args, timeout_s=CHECK_TIMEOUT_S, cwd=Path(scratch))


def _result(flags: list[str], added: list[str], run: JavaRun, heap_warnings: tuple[str, ...] = (),
            pre_touch: bool = False) -> FlagCheck:
    rows = parse_flags_final(run.stdout)
    values = {name: row.value for name, row in rows.items()}
    origins = {name: row.origin for name, row in rows.items()}
    if pre_touch:  # the check switched it off; the cell runs with it on, as the user asked
        values["AlwaysPreTouch"], origins["AlwaysPreTouch"] = "true", "command line"
    return FlagCheck(
        flags=tuple(flags),
        added_unlocks=tuple(added),
        final_values=values,
        origins=origins,
        kinds={name: row.kind for name, row in rows.items()},
        warnings=jvm_warnings(run),
        heap_warnings=heap_warnings,
    )
