"""The startup collector: where a JVM's startup went, from two of its own logs.

``-Xlog:startuptime`` (HotSpot 9+) times the phases of VM creation; its "Create VM" line
ends VM init. ``-Xlog:class+load`` names every class with its source: the CDS or AOT
archive ("shared objects file", "AOT cache"), the JDK's modules (``jrt:/``), the
application's class path (``file:``/``jar:``), or generated at run time. The first class
outside the JDK's packages after the launcher's ``LauncherHelper`` is the main class: its
uptime is "time to main" (with an AOT cache the main class itself comes from the archive). The
``ready`` marker's time comes from the executor (``ready_s``) and is added by the report.

Per source the collector gives the count of classes and the span of uptime between the
first and the last class loaded from it (the log has no per-class duration). Both logs go
into the invocation's artifacts folder; the JVM writes them, so they cost a few hundred
microseconds of formatting per thousand classes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from jvmlab.collect.base import NullProbe
from jvmlab.model.collected import Collected
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import ProcessResult

SOURCES = ("archive", "jdk", "app", "other")
STARTUP_LOG = "startuptime.log"
CLASS_LOG = "classload.log"
_UPTIME = re.compile(r"^\[(\d+(?:\.\d+)?)s\]\s*(.*)$")
_PHASE = re.compile(r"^(.*), (\d+(?:\.\d+)?) secs$")
_MAX_LINES = 2_000_000
LAUNCHER = "sun.launcher.LauncherHelper"
JDK_PACKAGES = ("java.", "javax.", "jdk.", "sun.", "com.sun.")


@dataclass
class StartupDigest:
    """Phases (name -> seconds, in log order), VM init end and class counts per source."""

    phases_s: dict[str, float] = field(default_factory=dict)
    jvm_init_s: float | None = None
    to_main_s: float | None = None
    classes: dict[str, int] = field(default_factory=dict)
    spans_s: dict[str, float] = field(default_factory=dict)

    def metrics(self) -> dict[str, float]:
        out: dict[str, float] = {}
        if self.jvm_init_s is not None:
            out["startup.jvm_init_s"] = self.jvm_init_s
        if self.to_main_s is not None:
            out["startup.to_main_s"] = self.to_main_s
        for source in SOURCES:
            if self.classes:
                out[f"startup.classes_{source}"] = float(self.classes.get(source, 0))
            if source in self.spans_s:
                out[f"startup.load_span_{source}_s"] = self.spans_s[source]
        return out


def class_source(source: str) -> str:
    """Which of :data:`SOURCES` a ``source:`` text of ``-Xlog:class+load`` belongs to."""
    if source.startswith(("shared objects file", "AOT")):
        return "archive"
    if source.startswith("jrt:/"):
        return "jdk"
    if source.startswith(("file:", "jar:")):
        return "app"
    return "other"


def parse_startuptime(text: str, digest: StartupDigest) -> None:
    for line in text.splitlines():
        m = _UPTIME.match(line)
        phase = _PHASE.match(m.group(2)) if m else None
        if m is None or phase is None:
            continue
        name, secs = phase.group(1), float(phase.group(2))
        digest.phases_s[name] = digest.phases_s.get(name, 0.0) + secs
        if name == "Create VM":
            digest.jvm_init_s = float(m.group(1))


def parse_class_load(lines: Iterable[str], digest: StartupDigest) -> None:
    """Count classes per source; first/last uptime per source; the main class's uptime.

    The main class is the first class after ``sun.launcher.LauncherHelper`` outside the
    JDK's packages (with an AOT cache it comes from the archive, not the class path); when
    the launcher class is not seen, the first class from the class path.
    """
    first: dict[str, float] = {}
    last: dict[str, float] = {}
    launcher_seen = False
    main_s: float | None = None
    for n, line in enumerate(lines):
        if n >= _MAX_LINES:
            break
        m = _UPTIME.match(line)
        if not m or " source: " not in m.group(2):
            continue
        t = float(m.group(1))
        name, text = m.group(2).split(" source: ", 1)
        source = class_source(text)
        digest.classes[source] = digest.classes.get(source, 0) + 1
        first.setdefault(source, t)
        last[source] = t
        if name == LAUNCHER:
            launcher_seen = True
        elif launcher_seen and main_s is None and not name.startswith(JDK_PACKAGES):
            main_s = t
    digest.spans_s = {s: last[s] - first[s] for s in first}
    digest.to_main_s = main_s if main_s is not None else first.get("app")


def startup_args(artifacts_dir: Path) -> list[str]:
    return [f"-Xlog:startuptime:file={(artifacts_dir / STARTUP_LOG).resolve()}:uptime",
            f"-Xlog:class+load=info:file={(artifacts_dir / CLASS_LOG).resolve()}:uptime"]


def read_logs(artifacts_dir: Path) -> StartupDigest:
    digest = StartupDigest()
    startup, classes = artifacts_dir / STARTUP_LOG, artifacts_dir / CLASS_LOG
    if startup.is_file():
        parse_startuptime(startup.read_text("utf-8", "replace"), digest)
    if classes.is_file():
        with classes.open(encoding="utf-8", errors="replace") as fh:
            parse_class_load(fh, digest)
    return digest


class StartupProbe(NullProbe):
    def __init__(self, ctx: ProbeContext) -> None:
        self.ctx = ctx

    def supported(self) -> bool:
        return self.ctx.jdk.vm_kind != "OpenJ9" and self.ctx.jdk.feature >= 9

    def jvm_args(self) -> list[str]:
        return startup_args(self.ctx.artifacts_dir) if self.supported() else []

    def finish(self, result: ProcessResult) -> Collected:
        if not self.supported():
            return Collected(documents={"startup": {"error": "unified logging needs HotSpot 9+"}})
        digest = read_logs(self.ctx.artifacts_dir)
        doc = {"phases_s": digest.phases_s, "classes": digest.classes, "spans_s": digest.spans_s,
               "jvm_init_s": digest.jvm_init_s, "to_main_s": digest.to_main_s}
        if digest.jvm_init_s is None:
            doc["missing"] = {"startup.jvm_init_s": "no 'Create VM' line in -Xlog:startuptime"}
        return Collected(metrics=digest.metrics(), documents={"startup": doc})


class StartupCollector:
    name = "startup"

    def probe(self, ctx: ProbeContext) -> StartupProbe:
        return StartupProbe(ctx)
