"""The JFR collector: a Flight Recording per invocation, read after the child has exited.

Opt-in (``[collect] jfr = true`` or ``--collect jfr``): JFR costs startup time (its own
classes load while the VM is created) and a little throughput (``bench/jfr_overhead.py``).
Each invocation writes ``<artifacts>/recording.jfr`` (absolute path) with jvmlab's ``default``
(the JDK's default.jfc with the execution samplers at 100 ms instead of 20 ms: no throughput
cost that a quiet bench could see, against 2-3%; :mod:`jvmlab.collect.jfr_settings`), the JDK's own ``default``
(``jdk-default``) or its ``profile``, plus safepoint and deoptimization events (JDK 17+
accepts per-event settings on the command line). After exit jvmlab's own reader of the
binary format reads the events we use (:mod:`jvmlab.collect.jfr_read`; the JDK's ``jfr print``
for a chunk it cannot read, with a ``jfr-reader-fallback`` warning), and
:mod:`jvmlab.collect.jfr_parse` digests them. The results are ``jfr.*``
metrics, ``documents["jfr"]`` (GC phase totals, reasons for missing metrics) and
``documents["jfr.profile"]`` (collapsed execution and allocation stacks, aggregated per
cell by :mod:`jvmlab.profile`).

A run that ends before the recording is usable (killed, too short to dump, no ``jfr``
tool) keeps its other data: the jfr metrics are ``None`` and a ``jfr-unusable`` hazard says why.
"""

from __future__ import annotations

import time
from pathlib import Path

from jvmlab.collect.base import NullProbe
from jvmlab.collect.jfr_parse import digest_events, jfr_tool
from jvmlab.collect.jfr_read import read_recording
from jvmlab.collect.jfr_settings import SAMPLER_PERIOD, SETTINGS, JfrSettings, resolve_settings
from jvmlab.errors import UserError
from jvmlab.model import hazards
from jvmlab.model.collected import Collected
from jvmlab.model.documents import JfrDocument, JfrProfileDocument
from jvmlab.model.hazards import Hazard
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import ProcessResult

RECORDING = "recording.jfr"
# Events the stock settings leave off or filter by a threshold; cheap (a few per second).
EXTRA_EVENTS = ("jdk.SafepointBegin#enabled=true", "jdk.SafepointBegin#threshold=0ms",
                "jdk.SafepointStateSynchronization#enabled=true",
                "jdk.SafepointStateSynchronization#threshold=0ms",
                "jdk.Deoptimization#enabled=true", "jdk.Deoptimization#stackTrace=false")


def recording_args(feature: int, settings: str, path: Path) -> list[str]:
    """``-XX:StartFlightRecording`` writing ``path`` (absolute) at exit with ``settings``."""
    parts = [f"filename={path.resolve()}", f"settings={settings}", "dumponexit=true"]
    if feature >= 17:
        parts.extend(EXTRA_EVENTS)
    return ["-XX:StartFlightRecording:" + ",".join(parts)]


class JfrProbe(NullProbe):
    """Adds the recording flag; after the run, digests the recording."""

    def __init__(self, ctx: ProbeContext, settings: str, keep: bool) -> None:
        self.ctx = ctx
        self.settings = settings
        self.keep = keep
        self.path = ctx.artifacts_dir / RECORDING
        self.used: JfrSettings | None = None

    def jvm_args(self) -> list[str]:
        if self.ctx.jdk.vm_kind == "OpenJ9" or self.ctx.jdk.feature < 11:
            return []
        self.used = resolve_settings(self.settings, self.ctx.jdk.home)
        return recording_args(self.ctx.jdk.feature, self.used.argument, self.path)

    def finish(self, result: ProcessResult) -> Collected:
        if self.ctx.jdk.vm_kind == "OpenJ9" or self.ctx.jdk.feature < 11:
            return _unusable(f"{self.ctx.jdk.vm_kind} {self.ctx.jdk.feature} has no Flight Recorder",
                             hazards.COLLECTOR_UNSUPPORTED)
        if not self.path.is_file() or self.path.stat().st_size == 0:
            return _unusable(f"no recording was written ({result.status.value}: the run ended before "
                             f"JFR could dump it)")
        try:
            return self._digest()
        except (ValueError, UserError) as err:
            return _unusable(f"{self.path.name}: {err}")
        finally:
            if not self.keep:
                self.path.unlink(missing_ok=True)

    def _digest(self) -> Collected:
        try:
            tool: Path | None = jfr_tool(self.ctx.jdk.home)
        except UserError:
            tool = None  # only needed for a chunk our reader cannot read
        began = time.perf_counter()
        events = read_recording(self.path, tool)
        found = digest_events(events.by_type)
        used = self.used
        doc = JfrDocument(
            metrics=dict(found.metrics), missing=dict(found.missing), gc_phases_ms=dict(found.gc_phases_ms),
            recording_s=found.recording_s, settings=used.name if used else self.settings,
            settings_argument=used.argument if used else None,
            sampler_period=SAMPLER_PERIOD if used and used.file is not None else None,
            settings_note=(used.note or None) if used else None, file=str(self.path) if self.keep else None,
            chunks=events.chunks, read_s=time.perf_counter() - began,
            reader="jvmlab" if not events.fallbacks else "jvmlab + jfr print", fallbacks=tuple(events.fallbacks))
        profile = JfrProfileDocument(dict(found.cpu_stacks), dict(found.alloc_stacks))
        return Collected(metrics=found.metrics, hazards=fallback_warnings(self.path, events.fallbacks), documents={
            JfrDocument.KIND: doc.to_json(), JfrProfileDocument.KIND: profile.to_json()})


def fallback_warnings(path: Path, fallbacks: list[str]) -> list[Hazard]:
    """A ``jfr-reader-fallback`` warning when chunks were read by ``jfr print`` (none otherwise)."""
    if not fallbacks:
        return []
    return [Hazard(hazards.JFR_READER_FALLBACK,
                   f"jfr: {len(fallbacks)} chunk(s) of {path.name} read with the JDK's jfr print instead of "
                   f"jvmlab's reader: {'; '.join(fallbacks)}",
                   hint="the metrics are the same, the read was slower; please report the JDK")]


def _unusable(reason: str, kind: str = hazards.JFR_UNUSABLE) -> Collected:
    return Collected(documents={JfrDocument.KIND: JfrDocument(error=reason).to_json()},
                     hazards=[Hazard(kind, f"jfr: {reason}",
                                     hint="jfr metrics of this invocation are not measured")])


class JfrCollector:
    """Makes one :class:`JfrProbe` per invocation."""

    name = "jfr"

    def __init__(self, settings: str = "default", keep_recordings: bool = True) -> None:
        if settings not in SETTINGS:
            raise UserError(f"[collect] jfr_settings = {settings!r}: choose {' or '.join(SETTINGS)}")
        self.settings = settings
        self.keep = keep_recordings

    def probe(self, ctx: ProbeContext) -> JfrProbe:
        return JfrProbe(ctx, self.settings, self.keep)
