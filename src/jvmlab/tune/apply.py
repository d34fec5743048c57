"""`jvmlab apply EXP`: the tuned winner as things to paste where the JVM is started.

A java command line, JAVA_TOOL_OPTIONS / JDK_JAVA_OPTIONS exports, a Dockerfile ENV line, a
systemd drop-in, and the commands that build a CDS/AOT archive when the winner uses one.
Flags that only work after an -XX:+Unlock... flag are marked: deploying them means
deploying an experimental or diagnostic option.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from jvmlab.errors import UserError
from jvmlab.model.documents import TunedConfig, TuneDocument

if TYPE_CHECKING:
    from jvmlab.model.stored import StoredCell
    from jvmlab.store.protocol import Store

# A preparation mark the tuner ran as an archive made for the configuration; without the path
# it ran with (an older result), a path of the user's choosing in the same form.
_MARKS = {"@cds-archive": "-XX:SharedArchiveFile=app.jsa", "@aot-cache": "-XX:AOTCache=app.aot"}
_UNLOCKS = ("-XX:+UnlockExperimentalVMOptions", "-XX:+UnlockDiagnosticVMOptions")
# Settings that buy a faster start (or less memory) with the code a long-running process spends
# its life in: a winner on a startup-like objective may be a loser on a server's peak throughput.
_PEAK_TRADES = (
    (re.compile(r"^-XX:TieredStopAtLevel=[0-3]$"), "stops compilation below C2: hot code never reaches "
     "C2 quality, so a long-running process has lower peak throughput"),
    (re.compile(r"^-Xint$"), "runs interpreted only: every long-running process is much slower"),
    (re.compile(r"^-XX:-UseCompiler$"), "turns the JIT compilers off: every long-running process is much slower"),
    (re.compile(r"^-XX:-TieredCompilation$"), "drops tiered compilation (C2 only): slower warm-up"),
    (re.compile(r"^-XX:ReservedCodeCacheSize=\d+[kKmM]?$"), "limits the code cache: a large application "
     "running long may fill it and stop compiling"),
)
# Objectives that measure a long run's steady state: the trade is then what was measured.
_PEAK_OBJECTIVES = ("jmh.", "load.")


def apply_text(doc: TuneDocument | None, java: str, app_args: list[str], experiment_id: int,
               workload: tuple[Sequence[str], Sequence[str]] = ((), ())) -> str:
    """``workload``: the spec's ``[workload] jvm_args`` and ``measurement_only``: the flags marked
    measurement-only are left out of every form (said), the other jvm_args are named as kept."""
    if doc is None:
        raise UserError(f"experiment {experiment_id} is not a tuning run (no tune result stored); "
                        "`jvmlab tune SPEC` makes one")
    points = doc.pareto if len(doc.pareto) > 1 else (doc.winner,)
    out = []
    for i, point in enumerate(points):
        out.append(_one(point, doc, java, app_args, f"Pareto point {i + 1}" if len(points) > 1 else "winner",
                        workload))
    return "\n\n".join(out)


def _workload_notes(flags: list[str], workload: tuple[Sequence[str], Sequence[str]]) -> tuple[list[str], list[str]]:
    """The flags to deploy without the measurement-only ones, and the lines that say which."""
    from jvmlab.spec.model import measurement_only_matches

    jvm_args, marks = workload
    dropped = [f for mark in marks for f in measurement_only_matches(mark, list(jvm_args))]
    kept_common = [f for f in jvm_args if f not in dropped and f in flags]
    notes = []
    if dropped:
        notes.append(f"# left out, measurement only ([workload] measurement_only): {' '.join(dropped)}")
    if kept_common:
        notes.append(f"# from [workload] jvm_args, kept: {' '.join(kept_common)} (mark one needed only to "
                     f"measure with [workload] measurement_only)")
    return [f for f in flags if f not in dropped], notes


def _one(point: TunedConfig, doc: TuneDocument, java: str, app_args: list[str], label: str,
         workload: tuple[Sequence[str], Sequence[str]] = ((), ())) -> str:
    flags, notes = _workload_notes(deployed_flags(point), workload)
    unlocks = [f for f in flags if f in _UNLOCKS]
    opts = " ".join(flags)
    verdict = doc.confirmed_verdict(point)
    lines = [f"# jvmlab tune {label}: {' '.join(point.flags) or '(the JDK defaults)'}", *notes]
    lines += [f"# WARNING: {w}" for w in peak_warnings(point.flags, doc)]
    if verdict:
        lines.append(f"# confirmed against the baseline: {verdict}")
    if unlocks:
        lines.append(f"# NOTE: needs unlocking ({', '.join(unlocks)}): experimental/diagnostic flags")
    lines += ["", "# command line", shlex.join([java, *flags, *app_args]), "",
              "# environment: set ONE of these two, not both (the JVM would read the flags twice)",
              "#   JDK_JAVA_OPTIONS: read by the `java` launcher only (JDK 9+), which prints",
              "#   'NOTE: Picked up JDK_JAVA_OPTIONS: ...' on stderr at each start",
              f"export JDK_JAVA_OPTIONS={shlex.quote(opts)}",
              "#   or JAVA_TOOL_OPTIONS: read by every JVM (also one started through JNI, a jar's own launcher,",
              "#   jcmd and jps), which prints 'Picked up JAVA_TOOL_OPTIONS: ...' on stderr at each start",
              f"# export JAVA_TOOL_OPTIONS={shlex.quote(opts)}", "",
              "# Dockerfile", f"ENV JAVA_TOOL_OPTIONS={_docker_quote(opts)}", "",
              "# systemd drop-in: /etc/systemd/system/<service>.service.d/jvm-tuning.conf",
              "[Service]", f"Environment={_systemd_quote('JAVA_TOOL_OPTIONS=' + opts)}"]
    lines += _archive_commands(flags, java, app_args)
    return "\n".join(lines)


def deployed_flags(point: TunedConfig) -> list[str]:
    """The flags to deploy: those the configuration ran with, its archive's flag included. The
    flags it ran with lack the archive's (the session adds it when it made the archive), so an
    AOT + C1 winner would read ``-XX:TieredStopAtLevel=1`` alone."""
    flags = [_MARKS.get(f, f) for f in point.run_flags or point.flags]
    for mark in (f for f in point.flags if f in _MARKS):
        option = _MARKS[mark].partition("=")[0] + "="
        if not any(f.startswith(option) for f in flags):
            flags.append(_MARKS[mark])
    return flags


def _docker_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _systemd_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%") + '"'


def _archive_commands(flags: list[str], java: str, app_args: list[str]) -> list[str]:
    """Where an archive won: how to build it before deploying the flags that use it."""
    for f in flags:
        if f.startswith("-XX:SharedArchiveFile="):
            path = f.split("=", 1)[1]
            return ["", "# build the CDS archive first (one training run)",
                    shlex.join([java, f"-XX:ArchiveClassesAtExit={path}", *app_args])]
        if f.startswith("-XX:AOTCache="):
            path = f.split("=", 1)[1]
            return ["", "# build the AOT cache first (JDK 25+: one training run)",
                    shlex.join([java, f"-XX:AOTCacheOutput={path}", *app_args])]
    return []


def peak_warnings(flags: Sequence[str], doc: TuneDocument) -> list[str]:
    """Why deploying ``flags`` may cost peak performance, for an objective that did not measure it."""
    objectives = [o.metric for o in doc.objectives]
    if objectives and all(m.startswith(_PEAK_OBJECTIVES) for m in objectives):
        return []
    tuned = ", ".join(objectives) or "the tuned objective"
    return [f"{flag} {why}; it won on {tuned} as measured here: before deploying it to a long-running "
            "server, tune that server's throughput or latency (a [load] objective or a longer run)"
            for flag in flags for pattern, why in _PEAK_TRADES if pattern.match(flag)]


def latest_tuning(experiments: list[tuple[int, bool]]) -> int:
    """The newest experiment that holds a tuning result; ``experiments``: (id, has a tune result)."""
    found = [exp_id for exp_id, tuned in experiments if tuned]
    if not found:
        raise UserError("no tuning experiment in this store: run `jvmlab tune SPEC` first, "
                        "or give an experiment id (`jvmlab results`)")
    return max(found)


def apply_for(db: Store, experiment: int) -> str:
    """What `jvmlab apply` prints for a stored tuning (or `gc advise`) experiment: the winner with
    the JDK it ran on and the arguments after its flags."""
    from dataclasses import replace

    db.experiment(experiment)
    doc, gcfix = db.record(experiment, TuneDocument), None
    if doc is None and (advised := _advised(db, experiment)) is not None:
        doc, gcfix = advised
    cells = db.cells(experiment)
    java, args = "java", []
    if doc is not None:
        key = doc.winner.key
        won = next((c for c in cells if c.levels.get("config") == key
                    or (gcfix is not None and c.levels.get("gcfix") == gcfix)), None)
        if won is not None:
            doc = replace(doc, winner=replace(doc.winner, run_flags=tuple(won.flags)))
            java = str(Path(won.jdk.get("home", "")) / "bin" / "java") if won.jdk.get("home") else "java"
        args = _app_args(db, experiment, won)
    return apply_text(doc, java, args, experiment, _workload_args(db.experiment(experiment).spec_text))


def _workload_args(spec_text: str) -> tuple[list[str], list[str]]:
    """The stored spec's ``[workload] jvm_args`` and ``measurement_only`` (none when unreadable)."""
    import tomllib

    try:
        workload = tomllib.loads(spec_text or "").get("workload") or {}
    except (tomllib.TOMLDecodeError, RecursionError):
        return [], []
    jvm_args, marks = workload.get("jvm_args") or [], workload.get("measurement_only") or []
    jvm_args = jvm_args.split() if isinstance(jvm_args, str) else jvm_args
    return ([str(f) for f in jvm_args if isinstance(f, str)], [str(m) for m in marks if isinstance(m, str)])


def _advised(db: Store, experiment: int) -> tuple[TuneDocument, str] | None:
    """A `gc advise` experiment's advised fix as the winner `apply` prints (its cell's flags
    are the current flags plus the fix), with the fix's name; None when it is no advise run."""
    from jvmlab.model.documents import GcAdviseDocument

    doc = db.record(experiment, GcAdviseDocument)
    if doc is None:
        return None
    winner = doc.winner
    if winner is None:
        raise UserError(f"experiment {experiment}: gc advise found no fix that removed its findings without "
                        f"a cost; nothing to apply (`jvmlab report {experiment}`)")
    cell = next((c for c in db.cells(experiment) if c.levels.get("gcfix") == winner.name), None)
    flags = tuple(cell.requested_flags) if cell is not None else winner.flags
    return TuneDocument.of_winner(TunedConfig({}, cell.jvm if cell else "", flags)), winner.name


def _app_args(db: Store, experiment: int, cell: StoredCell | None) -> list[str]:
    """What follows the flags in a stored argv of the winner (classpath, main class, args)."""
    if cell is None:
        return []
    inv = next((i for i in db.invocations(experiment) if i.cell_id == cell.id), None)
    if inv is None:
        return []
    argv = list(inv.argv)
    rest = argv[1:]
    for i, arg in enumerate(rest):
        if not arg.startswith("-") or arg in ("-cp", "-classpath", "-jar", "--class-path"):
            return rest[i:]
    return []
