"""IBM J9 / OpenJ9 verbose GC XML (``-Xverbosegc``), old (``<af>``) and R26+ layouts.

Read line by line with attribute regexes rather than an XML parser: real files are often
truncated or concatenated, which an XML parser refuses but this reads to the last event.
A pause is a ``<gc-end durationms=...>`` (R26+) or an ``<af>``/``<sys>`` block's total time;
metronome's heartbeats and synchronous GCs are read by :mod:`jvmlab.gclog.j9_metronome`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import datetime

from jvmlab.gclog import events as ev
from jvmlab.gclog.clock import MonotonicClock
from jvmlab.gclog.events import GcEvent, LogInfo
from jvmlab.gclog.j9_metronome import HEARTBEAT, PERCENTILES_UNMEASURED, SYNC_GC, MetronomeReader
from jvmlab.gclog.state import ParserState

_ATTR = re.compile(r'([\w-]+)="([^"]*)"')
_TAG = re.compile(r"<(/?)([\w-]+)")
# Balanced logs its increments as "partial gc", "global mark phase" and "global garbage collect"
# (OpenJ9 docs, vgclog_examples.md); "partial gen"/"gmp" are kept for older spellings.
_KINDS = {"scavenge": ev.YOUNG, "nursery": ev.YOUNG, "global": ev.FULL, "tenured": ev.FULL,
          "partial gen": ev.MIXED, "partial gc": ev.MIXED, "gmp": ev.OTHER, "global mark phase": ev.OTHER,
          "global garbage collect": ev.FULL}


def _wall(stamp: str) -> float | None:
    for fmt in (None, "%b %d %H:%M:%S %Y", "%a %b %d %H:%M:%S %Y"):
        try:
            if fmt is None:
                return datetime.fromisoformat(stamp).timestamp()
            return datetime.strptime(stamp, fmt).timestamp()
        except ValueError:
            continue
    return None


class J9Parser(ParserState):
    """Streaming parser for OpenJ9 XML; same interface as the HotSpot parsers."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = MonotonicClock()
        self._open: dict[str, object] | None = None  # an old-style <af>/<sys> block
        self._last: dict[str, object] | None = None  # a gc-end waiting for its mem-info
        self._kickoff: float | None = None  # a <concurrent-kickoff> waiting for its reason
        self._kickoff_open = False
        self._concurrent_starts: dict[str, float | None] = {}  # concurrent-X-start -> its time
        self._metronome = MetronomeReader()

    def _t(self, attrs: dict[str, str]) -> float | None:
        stamp = attrs.get("timestamp")
        return self.clock.wall(_wall(stamp) if stamp else None)

    def parse(self, lines: Iterable[str]) -> Iterator[GcEvent | LogInfo]:
        for line in lines:
            if "<" not in line:
                continue
            try:
                for tag in _TAG.finditer(line):
                    yield from self._tag(tag[1] == "/", tag[2], line)
            except ValueError:  # a damaged number: count the line, keep going
                self.not_understood(line)
        yield from self._kicked_off(None)  # a truncated log may end inside a <concurrent-kickoff>
        yield from self._release()

    def _tag(self, closing: bool, name: str, line: str) -> Iterator[GcEvent | LogInfo]:
        if closing:
            if name == "concurrent-kickoff":
                yield from self._kicked_off(None)
            elif name in ("af", "sys") and self._open is not None:
                opened, self._open = self._open, None
                if opened.get("duration_ms") is not None:
                    yield from self._release()
                    self._last = opened
            return
        attrs = dict(_ATTR.findall(line))
        if name == "verbosegc" and "version" in attrs:
            yield LogInfo("jvm_version", attrs["version"])
        elif name == "gc-policy" or (name == "attribute" and attrs.get("name") == "gcPolicy"):
            policy = attrs.get("value") or attrs.get("name", "")
            self.collector = f"OpenJ9 {policy.removeprefix('-Xgcpolicy:')}"
            yield LogInfo("collector", self.collector)
        elif name == "gc-end" and "durationms" in attrs:
            yield from self._release()
            kind = _KINDS.get(attrs.get("type", ""), ev.OTHER)
            t, dur = self._t(attrs), float(attrs["durationms"])
            if t is not None:
                self.clock.started(t - dur / 1000.0)  # <gc-end> is stamped at the pause's end
            self._last = dict(type=ev.PAUSE, kind=kind, t_s=t, duration_ms=dur, name=attrs.get("type", "gc"))
        elif name in ("af", "sys"):
            yield from self._release()
            kind = ev.FULL if name == "sys" else _KINDS.get(attrs.get("type", ""), ev.OTHER)
            self._open = dict(type=ev.PAUSE, kind=kind, t_s=self._t(attrs), duration_ms=None,
                              name=f"{name} {attrs.get('type', '')}".strip(),
                              cause="System.gc()" if name == "sys" else "allocation failure")
        elif name == "time" and "totalms" in attrs and self._open is not None:
            self._open["duration_ms"] = float(attrs["totalms"])
            opened_t = self._open.get("t_s")
            if isinstance(opened_t, float):  # <af>/<sys> are stamped at their start
                self.clock.extend(opened_t + float(attrs["totalms"]) / 1000.0)
        elif name in ("mem-info", "tenured") and "free" in attrs and "total" in attrs:
            target = self._open if self._open is not None else self._last
            if target is not None and "heap_after_mb" not in target:
                total, free = float(attrs["total"]), float(attrs["free"])
                target["heap_after_mb"] = (total - free) / (1 << 20)
                target["heap_committed_mb"] = total / (1 << 20)
        elif name in ("gc-op", "gc") and attrs.get("type") in (HEARTBEAT, SYNC_GC):
            yield from self._metronome_op(attrs)
        elif name in ("quanta", "summary", "quantum"):
            yield from self._metronome.element(name, attrs)
        elif name == "syncgc-info" and self._last is not None and self._last.get("name") == SYNC_GC:
            self._last["cause"] = attrs.get("reason")
        elif name.startswith("concurrent-"):
            yield from self._concurrent(name, attrs, line)
        elif name == "kickoff" and self._kickoff_open:
            yield from self._kicked_off(attrs.get("reason"))

    def _metronome_op(self, attrs: dict[str, str]) -> Iterator[GcEvent | LogInfo]:
        """A heartbeat opens a summary of quanta; a synchronous GC is one full pause."""
        yield from self._release()
        t = self._t(attrs)
        if attrs["type"] == HEARTBEAT:
            if not self._metronome.seen:
                yield LogInfo("percentiles_unmeasured", PERCENTILES_UNMEASURED)
            self._metronome.begin(t)
        elif "timems" in attrs:
            self._last = dict(type=ev.PAUSE, kind=ev.FULL, t_s=t, duration_ms=float(attrs["timems"]), name=SYNC_GC)

    def _concurrent(self, name: str, attrs: dict[str, str], line: str) -> Iterator[GcEvent]:
        """Concurrent work as ``concurrent_phases``: a kickoff (start of concurrent marking,
        counted, with its reason as the cycle's cause) and each ``concurrent-X-start`` /
        ``concurrent-X-end`` pair (e.g. the final concurrent collection), timed by its stamps."""
        t = self._t(attrs)
        if name == "concurrent-kickoff":
            yield from self._kicked_off(None)  # a previous kickoff without its closing tag
            self._kickoff, self._kickoff_open = t, True
            if "/>" in line[line.find("<concurrent-kickoff"):]:
                yield from self._kicked_off(None)
        elif name.endswith("-start"):
            if len(self._concurrent_starts) < 16:
                self._concurrent_starts[name[: -len("-start")]] = t
        elif name.endswith("-end"):
            phase = name[: -len("-end")]
            if phase in self._concurrent_starts:
                started = self._concurrent_starts.pop(phase)
                ms = None if started is None or t is None else (t - started) * 1000.0
                yield GcEvent(ev.PHASE, "concurrent", t, ms, phase)
        elif name != "concurrent-kickoff":
            yield GcEvent(ev.PHASE, "concurrent", t, None, name)  # e.g. concurrent-aborted

    def _kicked_off(self, reason: str | None) -> Iterator[GcEvent]:
        if not self._kickoff_open:
            return
        self._kickoff_open = False
        yield GcEvent(ev.PHASE, "concurrent", self._kickoff, None, "concurrent-kickoff")
        yield GcEvent(ev.CYCLE, "concurrent", self._kickoff, None, "concurrent-kickoff", reason)

    def _release(self) -> Iterator[GcEvent]:
        if self._last is not None:
            last, self._last = self._last, None
            # last: GcEvent's own field names and values, completed by a later element (a plain dict)
            yield GcEvent(**last)  # type: ignore[arg-type]
