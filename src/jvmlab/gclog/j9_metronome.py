"""OpenJ9 metronome (``-Xgcpolicy:metronome``) verbose GC: heartbeats of quanta, synchronous GCs.

Metronome collects in short stop-the-world quanta spread over time and does not log each
one: each heartbeat (written once the VM's ``verbosegcCycleTime`` has passed, at a phase
change, or before a synchronous GC) summarises the quanta since the previous one. OpenJ9
prints it as (``VerboseHandlerOutputRealtime`` in eclipse-openj9/openj9)::

    <gc-op id="5" type="heartbeat" contextid="4" timestamp="...">
      <quanta quantumCount="12" quantumType="mark" minTimeMs="0.412" meanTimeMs="1.208"
              maxTimeMs="2.996" maxTimestampMs="612.104" />

and older J9 releases (``VerboseEventMetronomeGCEnd``) as ``<gc type="heartbeat" ...>``
with ``<summary quantumcount="12">`` and ``<quantum minms=".." meanms=".." maxms=".." />``.

Each quantum is a pause, so a heartbeat gives ``quantumCount`` pause events whose count,
total (count x mean), shortest and longest are the logged ones. The log has no other
durations: the quanta between the shortest and the longest are given the mean of the rest,
so the pause count, total and maximum are exact; the log's pause percentiles are reported
as not measured (``PERCENTILES_UNMEASURED``, ``docs/jdks.md``). A synchronous GC
(``<gc-op type="syncgc" timems=..>``, metronome falling back to a stop-the-world
collection) is one full pause of that duration.
"""

from __future__ import annotations

from jvmlab.gclog import events as ev
from jvmlab.gclog.events import GcEvent

PERCENTILES_UNMEASURED = ("metronome logs each heartbeat's quanta as count, min, mean and max only: "
                          "pause count, total and max are measured, percentiles are not")
HEARTBEAT = "heartbeat"
SYNC_GC = "syncgc"
QUANTUM_NAME = "metronome quantum"
MAX_QUANTA = 1_000_000  # one heartbeat; a damaged count above this is refused, not expanded


def quanta_pauses(t_s: float | None, count: int, min_ms: float, mean_ms: float, max_ms: float,
                  phase: str | None = None) -> list[GcEvent]:
    """The pauses of one heartbeat summary, with its exact count, total, shortest and longest.

    Raises ValueError on a count or times that cannot come from a real heartbeat (the
    parser counts such a line as not understood)."""
    if count < 0 or count > MAX_QUANTA or min(min_ms, mean_ms, max_ms) < 0 or not min_ms <= max_ms:
        raise ValueError(f"impossible heartbeat: {count} quanta, {min_ms}/{mean_ms}/{max_ms} ms")
    name = f"{QUANTUM_NAME} ({phase})" if phase else QUANTUM_NAME
    if count == 0:
        return []
    if count == 1:
        return [GcEvent(ev.PAUSE, ev.OTHER, t_s, max_ms, name)]
    durations = [min_ms, max_ms]
    if count > 2:
        rest = (count * mean_ms - min_ms - max_ms) / (count - 2)
        durations += [min(max(rest, min_ms), max_ms)] * (count - 2)
    return [GcEvent(ev.PAUSE, ev.OTHER, t_s, ms, name) for ms in durations]


class MetronomeReader:
    """The heartbeat state between elements: the older layout puts the count and the times
    on two elements (``<summary>`` then ``<quantum>``); the phase on newer ones is inline."""

    def __init__(self) -> None:
        self.seen = False  # a heartbeat was read: the log's percentiles are not measured
        self.beat_t: float | None = None
        self.in_beat = False
        self.count: int | None = None

    def begin(self, t_s: float | None) -> None:
        self.beat_t, self.in_beat, self.count, self.seen = t_s, True, None, True

    def element(self, name: str, attrs: dict[str, str]) -> list[GcEvent]:
        """Pauses from one element inside a heartbeat (``quanta``, ``summary``, ``quantum``)."""
        if not self.in_beat:
            return []
        if name == "quanta" and "quantumCount" in attrs:
            self.in_beat = False
            return quanta_pauses(self.beat_t, int(attrs["quantumCount"]), _ms(attrs, "minTimeMs"),
                                 _ms(attrs, "meanTimeMs"), _ms(attrs, "maxTimeMs"), attrs.get("quantumType"))
        if name == "summary" and "quantumcount" in attrs:
            self.count = int(attrs["quantumcount"])
        elif name == "quantum" and "meanms" in attrs and self.count is not None:
            self.in_beat = False
            return quanta_pauses(self.beat_t, self.count, _ms(attrs, "minms"), _ms(attrs, "meanms"),
                                 _ms(attrs, "maxms"))
        return []


def _ms(attrs: dict[str, str], key: str) -> float:
    """A time attribute; ValueError (the parser's "not understood") when it is missing."""
    if key not in attrs:
        raise ValueError(f"heartbeat without {key}")
    return float(attrs[key])
