"""Did each requested flag take effect? Evidence per ``-XX`` flag of the cell, per invocation.

Evidence, cheapest first:

* the cell's final flag table (``-XX:+PrintFlagsFinal``, captured once per cell): a value
  other than the requested one (booleans; numbers differing by more than 1 %, so the
  JVM's alignment of sizes does not count) means the JVM overrode it;
* the JVM's own warnings on stdout/stderr and in the GC log ("Ignoring option X",
  "X disabled ...", archive errors); a deprecation warning is noted, not a failure;
* measurements: ``+UseTransparentHugePages`` needs AnonHugePages > 0 at some sample of
  the /proc sampler; ``+AlwaysPreTouch`` needs a peak RSS (the larger of the sampler's and
  the kernel's ``ru_maxrss``) of at least 80 % of the final InitialHeapSize;
  ``-XX:SharedArchiveFile=`` / ``-XX:AOTCache=`` need classes loaded from a shared archive
  (``-Xlog:class+load`` into the artifacts folder, JDK 9+ only; this counts any mapped
  archive, so a JDK that falls back to its default archive would still count).

A flag with any negative evidence is not in effect: a ``flag-not-in-effect`` hazard and an
entry in ``documents["flag_effect"]``. Measurements come from the /proc and GC probes of the
same invocation; they finish before this probe (see ``build_collectors``).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path

from jvmlab.collect.base import NullProbe
from jvmlab.collect.gc import GcCollector, GcProbe
from jvmlab.collect.proc import ProcCollector, ProcProbe
from jvmlab.model.collected import Collected
from jvmlab.model.documents import FlagEffectDocument, FlagEvidence, JvmWarningsDocument
from jvmlab.model.hazards import FLAG_NOT_IN_EFFECT, Hazard
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import ProcessResult

PRETOUCH_SHARE = 0.8
_MAX_LINES = 100
_XX = re.compile(r"^-XX:(?:(?P<sign>[+-])(?P<bool>\w+)|(?P<name>\w+)=(?P<value>.*))$")
_SIZE = re.compile(r"^(\d+)([kKmMgGtT]?)$")
_SCALE = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_PREFILTER = ("arning", "rror", "gnoring", "eprecated", "nable to", "ailed to", "disabled")
_IGNORING = re.compile(r"Ignoring option (?:-XX:[+-]?)?(\w+)")
_DISABLED = re.compile(r"\b(\w+) disabled\b")
_DEPRECATED = re.compile(r"Option (?:-XX:[+-]?)?(\w+) was deprecated")
_ARCHIVE_ERROR = re.compile(r"shared archive|AOT cache|AOTCache|shared spaces|CDS archive|\.jsa\b",
                            re.IGNORECASE)
_ARCHIVE_FLAGS = ("SharedArchiveFile", "AOTCache")
_HINTS = {
    "UseTransparentHugePages": "THP must be `madvise` or `always` in /sys/kernel/mm/transparent_hugepage/enabled",
    "UseLargePages": "reserve hugetlbfs pages (sysctl vm.nr_hugepages) or use -XX:+UseTransparentHugePages",
    "AlwaysPreTouch": "check the heap size flags and that the machine has the memory free",
    "SharedArchiveFile": "recreate the archive with this exact JDK, flags and class path",
    "AOTCache": "recreate the AOT cache with this exact JDK, flags and class path",
}


@dataclass(frozen=True)
class Observed:
    """Measurements of the invocation that bear on flags (None: not measured)."""

    peak_anon_huge_bytes: int | None = None
    peak_rss_bytes: int | None = None
    shared_classes: int | None = None


def requested_flags(flags: tuple[str, ...] | list[str]) -> dict[str, tuple[str, str]]:
    """``-XX`` flags as name -> (flag text, value); booleans as "true"/"false"; last wins."""
    found: dict[str, tuple[str, str]] = {}
    for flag in flags:
        match = _XX.match(flag)
        if match is None:
            continue
        if match.group("bool"):
            found[match.group("bool")] = (flag, "true" if match.group("sign") == "+" else "false")
        else:
            found[match.group("name")] = (flag, match.group("value"))
    return found


def _number(text: str) -> float | None:
    match = _SIZE.match(text.strip())
    return None if match is None else float(int(match.group(1)) * _SCALE[match.group(2).lower()])


def _from_final(name: str, wanted: str, final: dict[str, str]) -> tuple[bool | None, str] | None:
    value = final.get(name)
    if value is None:
        return None
    if wanted in ("true", "false"):
        return (value == wanted, f"final value {value}" if value == wanted
                else f"requested {wanted}, final value {value}")
    a, b = _number(wanted), _number(value)
    if a is None or b is None:
        return None
    same = abs(a - b) <= 0.01 * max(abs(a), abs(b), 1.0)
    return (same, f"final value {value}" if same else f"requested {wanted}, final value {value}")


def _from_warnings(name: str, lines: list[str]) -> list[tuple[bool | None, str]]:
    found: list[tuple[bool | None, str]] = []
    for line in lines:
        text = line.strip()[:300]
        if any(m.group(1) == name for m in _IGNORING.finditer(line)) or \
                any(m.group(1) == name for m in _DISABLED.finditer(line)):
            found.append((False, f"JVM warning: {text}"))
        elif any(m.group(1) == name for m in _DEPRECATED.finditer(line)):
            found.append((None, f"JVM warning: {text}"))
        elif name in _ARCHIVE_FLAGS and _ARCHIVE_ERROR.search(line):
            found.append((False, f"JVM message: {text}"))
    return found


def _from_measures(name: str, wanted: str, final: dict[str, str], seen: Observed) -> tuple[bool, str] | None:
    if name == "UseTransparentHugePages" and wanted == "true" and seen.peak_anon_huge_bytes is not None:
        mib = seen.peak_anon_huge_bytes / (1 << 20)
        return (True, f"AnonHugePages peaked at {mib:.0f} MiB") if seen.peak_anon_huge_bytes > 0 else (
            False, "AnonHugePages stayed 0 during the run")
    if name == "AlwaysPreTouch" and wanted == "true" and seen.peak_rss_bytes is not None:
        initial = _number(final.get("InitialHeapSize", ""))
        if initial:
            share = seen.peak_rss_bytes / initial
            return (share >= PRETOUCH_SHARE, f"peak RSS {seen.peak_rss_bytes / (1 << 20):.0f} MiB is "
                    f"{share:.0%} of InitialHeapSize {initial / (1 << 20):.0f} MiB")
    if name in _ARCHIVE_FLAGS and seen.shared_classes is not None:
        return (seen.shared_classes > 0, f"{seen.shared_classes} classes loaded from a shared archive")
    return None


def evaluate(requested: dict[str, tuple[str, str]], final: dict[str, str], lines: list[str],
             seen: Observed) -> list[FlagEvidence]:
    """Evidence per requested flag (pure: the probe's tests feed it directly)."""
    results = []
    for name, (text, wanted) in requested.items():
        items: list[tuple[bool | None, str]] = [
            item for item in (_from_final(name, wanted, final), _from_measures(name, wanted, final, seen))
            if item is not None]
        items.extend(_from_warnings(name, lines) if wanted != "false" else [])
        negative = [e for ok, e in items if ok is False]
        if negative:
            results.append(FlagEvidence(text, False, "; ".join(negative)))
        elif any(ok for ok, _ in items):
            results.append(FlagEvidence(text, True, "; ".join(e for _, e in items)))
        else:
            results.append(FlagEvidence(text, None, "; ".join(e for _, e in items) or "nothing to check"))
    return results


def count_shared_classes(artifacts_dir: Path) -> int | None:
    """Classes loaded "source: shared objects file" in the class-load logs; None without a log."""
    logs = list(artifacts_dir.glob("classload-*.log"))
    if not logs:
        return None
    count = 0
    for log in logs:
        with open(log, "rb") as f:
            for _ in range(10_000_000):
                block = f.read(1 << 20)
                if not block:
                    break
                count += block.count(b"source: shared objects file")
    return count


class FlagEffectProbe(NullProbe):
    """Watches output for JVM warnings; after the run, judges each requested flag."""

    def __init__(self, ctx: ProbeContext, proc: ProcProbe | None, gc: GcProbe | None) -> None:
        self.ctx = ctx
        self.proc = proc
        self.gc = gc
        self.requested = requested_flags(ctx.flags)
        self.lines: list[str] = []
        self._lock = threading.Lock()
        loggable = ctx.jdk.feature >= 9 and ctx.jdk.vm_kind != "OpenJ9"
        self.archive = any(n in self.requested for n in _ARCHIVE_FLAGS) and loggable
        self.class_log = (self.archive or ctx.class_log) and loggable  # every cell alike (ProbeContext)

    def jvm_args(self) -> list[str]:
        if not self.class_log:
            return []
        target = self.ctx.artifacts_dir / "classload-%p.log"
        return [f'-Xlog:class+load=info:file="{target}":uptime,level,tags:filecount=0']

    def on_line(self, stream: str, t_s: float, line: str) -> None:
        if len(self.lines) < _MAX_LINES and any(word in line for word in _PREFILTER):
            with self._lock:
                self.lines.append(line)

    def finish(self, result: ProcessResult) -> Collected:
        if not self.requested:
            return Collected()
        with self._lock:
            lines = list(self.lines)
        if self.gc is not None:
            lines.extend(self.gc.warning_lines)
        seen = Observed(
            peak_anon_huge_bytes=self.proc.peak_anon_huge_bytes if self.proc else None,
            peak_rss_bytes=peak_rss(self.proc.peak_rss_bytes if self.proc else None,
                                    result.measures.max_rss_bytes if result.measures else None),
            shared_classes=count_shared_classes(self.ctx.artifacts_dir) if self.archive else None)
        results = evaluate(self.requested, self.ctx.final_flags, lines, seen)
        for log in self.ctx.artifacts_dir.glob("classload-*.log"):
            log.unlink(missing_ok=True)
        hazards = [Hazard(FLAG_NOT_IN_EFFECT, f"{r.flag}: {r.evidence}",
                          hint=_HINTS.get(requested_name(r.flag), "see the JVM's warnings in the "
                                          "invocation's stdout/stderr"))
                   for r in results if r.in_effect is False]
        documents = {FlagEffectDocument.KIND: FlagEffectDocument(tuple(results)).to_json()}
        if lines:
            documents[JvmWarningsDocument.KIND] = JvmWarningsDocument(tuple(line.strip()[:300]
                                                                            for line in lines)).to_json()
        return Collected(documents=documents, hazards=hazards)


def peak_rss(sampled: int | None, exact: int | None) -> int | None:
    """The larger of the /proc sampler's peak and the kernel's exact one (wait4's ru_maxrss).
    Why both: a run shorter than a few sampling intervals can end between samples while its
    RSS is still growing (a 0.43-s JVM pre-touching 1 GiB: the sampler's last look saw 809 MiB,
    the kernel 1108 MiB), and the sampler alone then called ``+AlwaysPreTouch`` not in effect."""
    found = [v for v in (sampled, exact) if v is not None]
    return max(found) if found else None


def requested_name(flag: str) -> str:
    """``-XX:+UseLargePages`` -> ``UseLargePages``; other text unchanged."""
    match = _XX.match(flag)
    if match is None:
        return flag
    return match.group("bool") or match.group("name")


class FlagEffectCollector:
    """Needs the /proc and GC collectors of the same experiment (either may be None)."""

    name = "flag_effect"

    def __init__(self, proc: ProcCollector | None = None, gc: GcCollector | None = None) -> None:
        self.proc = proc
        self.gc = gc

    def probe(self, ctx: ProbeContext) -> FlagEffectProbe:
        return FlagEffectProbe(ctx, self.proc.probe_for(ctx) if self.proc else None,
                               self.gc.probe_for(ctx) if self.gc else None)
