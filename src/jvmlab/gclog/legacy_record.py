"""One closed JDK 6-8 collection record (``[GC ... , 0.0106 secs]``) read into event fields.

Split from the line-level parser (legacy.py) because the record's own grammar (kind,
cause, failure, heap and young-generation figures) is independent of how records are
found in the stream.
"""

from __future__ import annotations

import re

from jvmlab.gclog import events as ev
from jvmlab.gclog.decorators import transition_mb

HEAP_KEYS = ("heap_before_mb", "heap_after_mb", "heap_committed_mb")  # the GcEvent fields of a transition
END = re.compile(r", (?P<secs>\d+[.,]\d+) secs\]")
TIMES = re.compile(r" ?\[Times: [^\]\[]*\]")
_TRIPLE = re.compile(r"(?P<b>\d+(?:[.,]\d+)?)(?P<bu>[BKMG])->(?P<a>\d+(?:[.,]\d+)?)(?P<au>[BKMG])"
                     r"\((?P<c>\d+(?:[.,]\d+)?)(?P<cu>[BKMG])\)")
# CMS -verbose:gc initial mark / remark: "[GC 15645K(21888K), 0.0010369 secs]" (no arrow).
_NO_ARROW = re.compile(r"^(?:GC|GC \([^)]*\)) +\d+[KMG]\(\d+[KMG]\), \d")
_YOUNG = re.compile(r"(?:ParNew|PSYoungGen|DefNew|ASParNew|YoungGen)(?: \([^)]*\))?: "
                    r"(?P<b>\d+)K->(?P<a>\d+)K(?:\((?P<c>\d+)K\))?")
_FAILURES = (("promotion failed", "promotion failed"), ("concurrent mode failure", "concurrent mode failure"),
             ("to-space exhausted", "to-space exhausted"), ("to-space overflow", "to-space exhausted"),
             ("concurrent mode interrupted", "concurrent mode interrupted"))


_OLD_COLLECTED = re.compile(r"\[CMS(?:[:( ]|\d)")


def kind_of(text: str, full: bool) -> str:
    """The by_kind key of a record, from the collector's words (``text`` starts at ``GC``).

    A ``[GC ...`` record that also collects the CMS old generation (``[CMS: ...`` after a
    promotion failure, or ``[CMS (concurrent mode failure)``) is a full collection.
    """
    if full or _OLD_COLLECTED.search(text):
        return ev.FULL
    if "initial-mark" in text or "CMS Initial Mark" in text or "CMS-initial-mark" in text:
        return ev.INITIAL_MARK
    if "remark" in text or "Remark" in text:
        return ev.REMARK
    if text.startswith("GC cleanup") or text.startswith(" cleanup"):
        return ev.CLEANUP
    if "(mixed)" in text or "(partial)" in text:
        return ev.MIXED
    return ev.YOUNG


def no_arrow(body: str) -> bool:
    """A CMS initial mark or remark as ``-verbose:gc`` prints it: a heap size, no transition."""
    return _NO_ARROW.match(body) is not None


def cause_of(text: str) -> str | None:
    m = re.match(r"(?:GC pause |GC |Full GC )?\((?P<c>[^)]*\)?)\)", text)
    return m["c"] if m else None


def failure_of(body: str) -> str | None:
    """The failure the record reports (promotion failed, concurrent mode failure, ...)."""
    if "(" not in body and "-" not in body:
        return None
    for needle, name in _FAILURES:
        if needle in body:
            return name
    return None


def name_tail(what: str) -> str:
    """A readable pause name: the words and parenthesised labels before the first figure."""
    m = re.match(r"[^\d\[,]*", what)
    return (m.group(0) if m else "").rstrip(" ,")[:60]


def closed(body: str, end: int) -> bool:
    """True when the brackets opened before ``end`` are balanced (``body`` keeps its ``[``)."""
    return body.count("[", 0, end) <= body.count("]", 0, end)


def heap_fields(body: str) -> dict[str, float | None]:
    """Whole-heap and young-generation figures of a record (Metaspace/Perm excluded)."""
    out: dict[str, float | None] = {}
    heap = None
    for m in _TRIPLE.finditer(body):
        before = body[max(0, m.start() - 14):m.start()]
        if "Metaspace" in before or "Perm" in before:
            continue
        heap = m
    if heap is not None and "Heap: " not in body:
        out.update(zip(HEAP_KEYS, transition_mb(heap), strict=True))
    young = _YOUNG.search(body)
    if young is not None:
        out.update(young_before_mb=int(young["b"]) / 1024, young_after_mb=int(young["a"]) / 1024)
    return out


def collector_hint(body: str) -> str | None:
    for needle, name in (("PSYoungGen", "Parallel"), ("DefNew", "Serial"), ("ParNew", "CMS"), ("GC pause", "G1")):
        if needle in body:
            return name
    return None
