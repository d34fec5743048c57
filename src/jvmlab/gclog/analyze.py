"""Entry points: analyse files into summaries, or stream one file's events."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.files import check_regular
from jvmlab.gclog import detect, linefold, linescan
from jvmlab.gclog.events import GcEvent, LogInfo
from jvmlab.gclog.findings_fold import LogFold
from jvmlab.gclog.j9 import J9Parser
from jvmlab.gclog.legacy import LegacyParser
from jvmlab.gclog.reader import iter_chunks, lines_of, read_head
from jvmlab.gclog.summary import LogSummary
from jvmlab.gclog.unified import UnifiedParser
from jvmlab.gclog.zing import ZingParser

Parser = UnifiedParser | LegacyParser | J9Parser | ZingParser


_PARSERS: dict[str, Callable[[], Parser]] = {detect.UNIFIED: UnifiedParser, detect.LEGACY: LegacyParser,
                                              detect.J9: J9Parser, detect.ZING: ZingParser}


def _feed(parser: Parser, paths: Iterable[Path], fold: LogFold | None = None) -> Iterator[GcEvent | LogInfo]:
    """The parser's records of ``paths``; ``fold`` (the summary's) also sees each chunk of text.
    The unified parser reads whole chunks (pre-filtered by the compiled filter), the others lines."""
    unified = isinstance(parser, UnifiedParser)
    keep = linescan.prefilter() if unified else None
    chunks: Iterator[str] = (c for p in paths for c in iter_chunks(p, keep=keep))
    if fold is not None:
        chunks = _seen(fold, chunks)
    return parser.parse(chunks if unified else lines_of(chunks))


def _seen(fold: LogFold, chunks: Iterator[str]) -> Iterator[str]:
    for chunk in chunks:
        fold.text(chunk)
        yield chunk


def iter_events(path: Path) -> Iterator[GcEvent]:
    """The typed pause / cycle / stall / pacing / safepoint events of one file, in log order."""
    path = Path(path)
    parser = _PARSERS[detect.detect_format(path)]()
    for item in _feed(parser, [path]):
        if isinstance(item, GcEvent):
            yield item


def analyze_paths(paths: list[Path]) -> list[LogSummary]:
    """Summarise files: rotated sets are read as one log, unrelated logs separately.

    Raises UserError (one line naming the file) for a missing, unreadable or non-GC file.
    """
    if not paths:
        raise UserError("no GC log given; pass one or more files written by -Xlog:gc*")
    heads: dict[Path, str] = {}
    formats: dict[Path, str] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            raise UserError(f"{path}: is a folder; pass the GC log files in it (e.g. {path}/gc*.log)")
        if not path.exists():
            raise UserError(f"{path}: no such file; check the path")
        check_regular(path, "GC log")
        heads[path] = read_head(path)
        formats[path] = detect.detect_format(path, heads[path])
    summaries = []
    for group in detect.group_rotated(list(heads), heads):
        # Members of a rotated set of different formats are really unrelated logs.
        by_format: dict[str, list[Path]] = {}
        for path in group:
            by_format.setdefault(formats[path], []).append(path)
        for fmt, members in by_format.items():
            summaries.append(summarize(members, fmt))
    return summaries


def summarize(paths: list[Path], fmt: str) -> LogSummary:
    """Read the files of one log (in order) into a summary, in constant memory."""
    parser = _PARSERS[fmt]()
    summary = LogSummary(files=list(paths), format=fmt)
    if not (isinstance(parser, UnifiedParser) and linefold.fold(paths, summary, parser)):
        parser, summary = _PARSERS[fmt](), LogSummary(files=list(paths), format=fmt)  # afresh if it gave up
        add = summary.add
        for item in _feed(parser, paths, summary.fold):
            add(item)
    summary.fold.finish()
    summary.collector = summary.collector or parser.collector or summary.fold.collector_hint
    if summary.collector in ("ZGC", "Shenandoah") and parser.generational:
        summary.collector += " (generational)"
    summary.span_s = parser.clock.span_s
    summary.span_from = parser.clock.span_from
    summary.jvm_runs = parser.clock.runs
    summary.unparsed_lines = parser.unparsed
    summary.unparsed_samples = parser.samples
    return summary
