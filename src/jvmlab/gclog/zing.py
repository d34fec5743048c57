"""Azul Zing / Prime ``-Xloggc`` (non-unified) logs: the ``[GCHH : key : value ]`` header.

Zing's own GC log opens with ``GCHH`` lines describing the VM, the OS and Zing's memory
reservation (Azul docs, "Garbage Collector Log File", ZST 5.21 sample). Zing has one
collector, C4 (GPGC), so a GCHH line is enough to name it. Other lines (the HotSpot-style
``Total time for which application threads were stopped`` safepoint lines Azul documents
for Zing's gc.log) are read by the JDK 6-8 parser this one extends.

Not read yet: Zing's per-cycle GPGC lines. No public recorded sample of them was found, so
their layout is not guessed; such lines are counted as not understood.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from jvmlab.gclog.events import GcEvent, LogInfo
from jvmlab.gclog.legacy import LegacyParser

C4 = "C4"
_GCHH = re.compile(r"^(?:\S+: )?(?P<up>\d+[.,]\d+): \[GCHH : (?P<body>.*?) ?\]\s*$")


class ZingParser(LegacyParser):
    """Streaming parser for Zing's GCHH-headed log; same interface as the other parsers."""

    def _line(self, line: str) -> Iterator[GcEvent | LogInfo]:
        if "[GCHH :" in line:
            m = _GCHH.match(line)
            if m is None:
                self.not_understood(line)
                return
            self._time(None, m["up"])
            if self.collector is None:
                self.collector = C4
                yield LogInfo("collector", C4)
            key, sep, value = m["body"].partition(" : ")
            if sep and key.strip() == "Zing release":
                yield LogInfo("jvm_version", value.strip())
            return
        yield from super()._line(line)
