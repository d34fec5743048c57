"""`jvmlab apply EXP`: the tuned winner as things to paste where the JVM is started.

A java command line, JAVA_TOOL_OPTIONS / JDK_JAVA_OPTIONS exports, a Dockerfile ENV line, a
systemd drop-in, and the commands that build a CDS/AOT archive when the winner uses one.
Flags that only work after an -XX:+Unlock... flag are marked: deploying them means
deploying an experimental or diagnostic option.
"""

from __future__ import annotations

import shlex
from typing import Any

from jvmlab.errors import UserError

# A preparation mark the tuner ran as an archive made for the configuration; without the path
# it ran with (an older result), a path of the user's choosing in the same form.
_MARKS = {"@cds-archive": "-XX:SharedArchiveFile=app.jsa", "@aot-cache": "-XX:AOTCache=app.aot"}
_UNLOCKS = ("-XX:+UnlockExperimentalVMOptions", "-XX:+UnlockDiagnosticVMOptions")


def apply_text(doc: dict[str, Any] | None, java: str, app_args: list[str], experiment_id: int) -> str:
    if not doc:
        raise UserError(f"experiment {experiment_id} is not a tuning run (no tune result stored); "
                        "`jvmlab tune SPEC` makes one")
    points = doc["pareto"] if len(doc.get("pareto", [])) > 1 else [doc["winner"]]
    out = []
    for i, point in enumerate(points):
        out.append(_one(point, doc, java, app_args, f"Pareto point {i + 1}" if len(points) > 1 else "winner"))
    return "\n\n".join(out)


def _one(point: dict[str, Any], doc: dict[str, Any], java: str, app_args: list[str], label: str) -> str:
    flags: list[str] = [_MARKS.get(f, f) for f in point.get("run_flags") or point["flags"]]
    unlocks = [f for f in flags if f in _UNLOCKS]
    opts = " ".join(flags)
    verdict = next((c["verdicts"].get("baseline") for c in doc.get("confirmations", [])
                    if c["config"]["flags"] == point["flags"]), None)
    lines = [f"# jvmlab tune {label}: {' '.join(point['flags']) or '(the JDK defaults)'}"]
    if verdict:
        lines.append(f"# confirmed against the baseline: {verdict}")
    if unlocks:
        lines.append(f"# NOTE: needs unlocking ({', '.join(unlocks)}): experimental/diagnostic flags")
    lines += ["", "# command line", shlex.join([java, *flags, *app_args]), "",
              "# environment: set ONE of these two, not both (the JVM would read the flags twice)",
              "#   JDK_JAVA_OPTIONS: read by the `java` launcher only (JDK 9+), silently",
              f"export JDK_JAVA_OPTIONS={shlex.quote(opts)}",
              "#   or JAVA_TOOL_OPTIONS: read by every JVM (also one started through JNI, a jar's own launcher,",
              "#   jcmd and jps), which prints 'Picked up JAVA_TOOL_OPTIONS: ...' on stderr at each start",
              f"# export JAVA_TOOL_OPTIONS={shlex.quote(opts)}", "",
              "# Dockerfile", f"ENV JAVA_TOOL_OPTIONS={_docker_quote(opts)}", "",
              "# systemd drop-in: /etc/systemd/system/<service>.service.d/jvm-tuning.conf",
              "[Service]", f"Environment={_systemd_quote('JAVA_TOOL_OPTIONS=' + opts)}"]
    lines += _archive_commands(flags, java, app_args)
    return "\n".join(lines)


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
