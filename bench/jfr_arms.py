"""The arms of ``bench/jfr_overhead.py``: what each adds to the JVM's command line, and the
settings files derived from the JDK's own ``default.jfc`` that switch single event groups off.

Why derived files: the cost of the ``default`` profile is the sum of its event groups; turning
one group off at a time (everything else exactly as jvmlab records it) locates the cost.
A derived file is the cell JDK's ``lib/jfr/default.jfc`` with ``enabled`` set to ``false`` for
the chosen events (JDK 11+ reads a settings file by path; ``jfr configure`` is JDK 17+ only).
"""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from jvmlab.collect.jfr import recording_args
from jvmlab.collect.jfr_parse import EVENTS as READ
from jvmlab.collect.jfr_settings import EventFilter, derive_jfc, never, resolve_settings, sampler_periods

__all__ = ["ARMS", "Arm", "derive_jfc", "enabled_events", "event_counts"]

SAMPLING = frozenset({"jdk.ExecutionSample", "jdk.NativeMethodSample"})
ALLOCATION = frozenset({"jdk.ObjectAllocationSample", "jdk.OldObjectSample", "jdk.ObjectAllocationInNewTLAB",
                        "jdk.ObjectAllocationOutsideTLAB"})
THREAD_WAITS = frozenset({"jdk.ThreadPark", "jdk.ThreadSleep", "jdk.JavaMonitorEnter", "jdk.JavaMonitorWait",
                          "jdk.JavaMonitorInflate"})


def _gc(name: str, control: str | None) -> bool:
    """The GC group: every event the JDK's own controls call ``gc-enabled-*`` (collections, phases,
    per-worker ``GCPhaseParallel``, heap and metaspace summaries, tenuring, PLAB promotion)."""
    return (control or "").startswith("gc-enabled") or name in ("jdk.GarbageCollection", "jdk.SystemGC")


@dataclass(frozen=True)
class Arm:
    """One way to run the workload. ``collector`` runs jvmlab's own collector with those settings;
    otherwise ``off`` (events to turn off in a copy of the JDK's default.jfc, None for the file
    as it is) and ``extras`` (jvmlab's extra events on the command line, as the collector adds them)."""

    name: str
    what: str
    collector: str | None = None
    off: EventFilter | None = None
    extras: bool = True
    options: tuple[str, ...] = ()
    recording: str = ""  # appended to the -XX:StartFlightRecording option
    periods: tuple[tuple[str, str], ...] = ()  # (event, new period) in the derived file, e.g. a slower sampler

    @property
    def derived(self) -> bool:
        """Does this arm record with a settings file derived from the JDK's default.jfc?"""
        return self.off is not None or bool(self.periods)

    def settings_file(self, jdk_home: Path, folder: Path) -> Path:
        """The arm's derived settings file in ``folder`` (``derived`` arms only)."""
        return derive_jfc(jdk_home / "lib" / "jfr" / "default.jfc", folder / f"{self.name}.jfc",
                          self.off or never, dict(self.periods))

    def settings_argument(self, jdk_home: Path, folder: Path) -> str:
        """What ``settings=`` names for this arm: the collector's own choice (jvmlab's ``default``
        is a derived file in jvmlab's cache), the arm's derived file, or the JDK's ``default``."""
        if self.collector:
            return resolve_settings(self.collector, jdk_home).argument
        return str(self.settings_file(jdk_home, folder)) if self.derived else "default"

    def jvm_args(self, feature: int, jdk_home: Path, folder: Path, recording: Path) -> list[str]:
        """The JVM options of this arm (the collector's own come from its probe instead)."""
        settings = self.settings_argument(jdk_home, folder)
        if self.extras:
            (arg,) = recording_args(feature, settings, recording)
        else:
            arg = f"-XX:StartFlightRecording:filename={recording.resolve()},settings={settings},dumponexit=true"
        return [*self.options, arg + self.recording]


ARMS: dict[str, Arm] = {a.name: a for a in (
    Arm("default", "the collector as jvmlab runs it: jvmlab's default (the JDK's default.jfc with the execution "
        "samplers at 100 ms) plus its safepoint and deopt events", collector="default"),
    Arm("jdk-collector", "the collector with jfr_settings=jdk-default: the JDK's own default.jfc (20-ms "
        "sampler) plus jvmlab's safepoint and deopt events", collector="jdk-default"),
    Arm("profile", "the collector with settings=profile", collector="profile"),
    Arm("jdk-default", "the JDK's default.jfc alone, without jvmlab's extra events", extras=False),
    Arm("bare", "JFR recording with every event off: the recorder's fixed cost (threads, buffers)",
        off=lambda name, control: True, extras=False),
    Arm("no-sampling", "default without jdk.ExecutionSample/NativeMethodSample (the 20 ms stack sampler)",
        off=lambda name, control: name in SAMPLING),
    Arm("no-alloc", "default without jdk.ObjectAllocationSample and jdk.OldObjectSample (the allocation "
        "slow-path hooks)", off=lambda name, control: name in ALLOCATION),
    Arm("no-gc", "default without the GC events (collections, phases, per-worker GCPhaseParallel, heap "
        "summaries)", off=_gc),
    Arm("no-waits", "default without thread park/sleep/monitor events (20 ms thresholds)",
        off=lambda name, control: name in THREAD_WAITS),
    Arm("no-old", "default without jdk.OldObjectSample", off=lambda name, control: name == "jdk.OldObjectSample"),
    Arm("read", "default with only the events jvmlab reads (jvmlab.collect.jfr_parse.EVENTS) left on",
        off=lambda name, control: name not in READ),
    Arm("sampler-100ms", "the JDK's default with the execution samplers (jdk.ExecutionSample, "
        "jdk.NativeMethodSample) every 100 ms instead of 20 ms: jvmlab's default, derived in the bench's folder",
        periods=tuple(sampler_periods().items())),
    Arm("memory", "default with disk=false (kept in memory, written once at exit)", recording=",disk=false"),
    Arm("depth16", "default with -XX:FlightRecorderOptions:stackdepth=16 (64 stock)",
        options=("-XX:FlightRecorderOptions:stackdepth=16",)),
)}


def enabled_events(jfc: Path) -> set[str]:
    """The events a settings file switches on (tests and the bench's sanity check)."""
    return {e.get("name", "") for e in ET.parse(jfc).getroot().iter("event")
            if any(s.get("name") == "enabled" and (s.text or "").strip() == "true" for s in e.iter("setting"))}


_SUMMARY_LINE = re.compile(r"^\s+(jdk\.\w+)\s+(\d+)\s+(\d+)\s*$")


def event_counts(jfr: Path, recording: Path) -> dict[str, tuple[int, int]]:
    """Events per type in a recording, as ``jfr summary`` counts them: name -> (count, bytes)."""
    out = subprocess.run([str(jfr), "summary", str(recording)], capture_output=True, text=True, timeout=300,
                         check=False).stdout
    return {m.group(1): (int(m.group(2)), int(m.group(3)))
            for m in map(_SUMMARY_LINE.match, out.splitlines()) if m}
