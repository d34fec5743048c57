"""Read a JVM's refusal of its options and turn it into one actionable line.

The JVM already says what is wrong ("Unrecognized VM option 'Foo'", "Did you mean ...?",
"is diagnostic and must be enabled via ..."); we keep its words, name the flag that caused
them, and add a close suggestion when the JVM gave none.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from jvmlab.jdk.proc import JavaRun

UNLOCK_DIAGNOSTIC = "-XX:+UnlockDiagnosticVMOptions"
UNLOCK_EXPERIMENTAL = "-XX:+UnlockExperimentalVMOptions"

_NEEDS_UNLOCK = re.compile(r"VM option '(\w+)' is (diagnostic|experimental) and must be enabled")
_DID_YOU_MEAN = re.compile(r"Did you mean '(?:\(\+/-\))?([^'=]+)(?:=<value>)?'\?\s*")
_VM_OPTION = re.compile(r"VM option '([^'=]+)")
_UNRECOGNIZED_LAUNCHER = re.compile(r"Unrecognized option: (\S+)")
_LOG_PREFIX = re.compile(r"^(?:\[[^\]]*\])+\s*")
JVM_BOILERPLATE = (  # the launcher's words around the JVM's own
    "Error: Could not create the Java Virtual Machine.",
    "Error: A fatal exception has occurred. Program will exit.",
    "Error occurred during initialization of VM",
)
_NOISE_PREFIXES = ("Error: The unlock option must precede", "Picked up ")

# Launcher options for suggestions on "Unrecognized option: ..." (the VM has no table of them).
LAUNCHER_OPTIONS = (
    "-Xmx", "-Xms", "-Xmn", "-Xss", "-Xint", "-Xcomp", "-Xbatch", "-Xmixed", "-Xrs", "-Xnoclassgc",
    "-Xshare:off", "-Xshare:auto", "-Xshare:on", "-Xlog", "-Xverify:none", "-Xcheck:jni",
    "-Xdiag", "-Xinternalversion", "--add-opens", "--add-exports", "--add-modules",
    "--add-reads", "--enable-preview", "--enable-native-access", "--module-path",
    "--illegal-access", "-verbose:gc", "-verbose:class", "-ea", "-esa", "-server",
)


@dataclass(frozen=True)
class Rejection:
    """Why the JVM refused: its own words, the culprit (None if it names none), a suggestion."""

    message: str
    flag: str | None
    suggestion: str | None
    unlock: str | None  # the unlock flag that would make the JVM accept, if that is all it needs


def needed_unlock(run: JavaRun) -> str | None:
    """The unlock flag a diagnostic/experimental option asks for, if that is the complaint."""
    match = _NEEDS_UNLOCK.search(run.stderr + run.stdout)
    if match is None:
        return None
    return UNLOCK_DIAGNOSTIC if match.group(2) == "diagnostic" else UNLOCK_EXPERIMENTAL


def read_rejection(
    run: JavaRun, flags: Sequence[str], flag_names: Callable[[], Sequence[str]]
) -> Rejection:
    """Parse a failed run; ``flag_names`` is called only when a suggestion needs the table."""
    text = run.stderr + "\n" + run.stdout
    hinted = _DID_YOU_MEAN.search(text)
    message = (jvm_message(_DID_YOU_MEAN.sub("\n", text)) if run.returncode is not None
               else "the JVM did not finish starting in time")
    flag = culprit(text, flags)
    suggestion = None
    if flag is not None and hinted is not None:
        suggestion = rename_flag(flag, hinted.group(1))
    elif flag is not None and "Unrecognized VM option" in text:
        close = difflib.get_close_matches(xx_name(flag) or "", list(flag_names()), n=1, cutoff=0.6)
        suggestion = rename_flag(flag, close[0]) if close else None
    elif flag is not None and _UNRECOGNIZED_LAUNCHER.search(text):
        close = difflib.get_close_matches(flag, LAUNCHER_OPTIONS, n=1, cutoff=0.6)
        suggestion = close[0] if close else None
    return Rejection(message, flag, suggestion, needed_unlock(run))


def jvm_message(text: str) -> str:
    """The JVM's informative lines joined with '; ' (launcher boilerplate dropped)."""
    lines: list[str] = []
    for raw in text.splitlines():
        line = _LOG_PREFIX.sub("", raw.strip()).strip().rstrip(".")
        if not line or f"{line}." in JVM_BOILERPLATE or line in JVM_BOILERPLATE or line.startswith(_NOISE_PREFIXES):
            continue
        if line not in lines:
            lines.append(line)
    return "; ".join(lines) or "the JVM exited with an error and no message"


def culprit(text: str, flags: Sequence[str]) -> str | None:
    """The user's flag the JVM complains about: by VM option name, else quoted verbatim."""
    for match in _VM_OPTION.finditer(text):
        for flag in flags:
            if xx_name(flag) == match.group(1):
                return flag
    launcher = _UNRECOGNIZED_LAUNCHER.search(text)
    if launcher and launcher.group(1) in flags:
        return launcher.group(1)
    verbatim = [flag for flag in flags if len(flag) > 2 and flag in text]
    return max(verbatim, key=len) if verbatim else None


def xx_name(flag: str) -> str | None:
    """``-XX:+Foo`` / ``-XX:-Foo`` / ``-XX:Foo=1`` -> ``Foo``; None for other forms."""
    if not flag.startswith("-XX:"):
        return None
    body = flag[4:].lstrip("+-")
    return body.split("=", 1)[0] or None


def rename_flag(flag: str, name: str) -> str:
    """The user's flag with the VM option name replaced, keeping its +/- or =value."""
    if not flag.startswith("-XX:"):
        return name
    body = flag[4:]
    if body[:1] in "+-" and body[:1]:
        return f"-XX:{body[0]}{name}"
    if "=" in body:
        return f"-XX:{name}={body.split('=', 1)[1]}"
    return f"-XX:+{name}"


_VM_WARNING = re.compile(r"^.*?\bVM warning: (.*)$")
_LOG_WARNING = re.compile(r"^(?:\[[^\]]*\])*\[warning\](?:\[[^\]]*\])*\s*(.*)$")


def jvm_warnings(run: JavaRun) -> tuple[str, ...]:
    """Warnings of a JVM that started anyway ("Ignoring option ...", "UseLargePages disabled ...").

    They matter: a flag the JVM ignores is a flag whose effect the experiment will not see.
    """
    found: list[str] = []
    for raw in (run.stderr + "\n" + run.stdout).splitlines():
        line = raw.strip()
        match = _VM_WARNING.match(line) or _LOG_WARNING.match(line)
        if match and match.group(1).strip() and match.group(1).strip() not in found:
            found.append(match.group(1).strip())
    return tuple(found)
