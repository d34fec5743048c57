"""`largepages`: what a bigger page size does to TLB-bound work, with default pages, THP and
hugetlbfs large pages; the verdict gives the cost of one random access and the heap sort's
change, per JDK, with the evidence that THP was in use.

Where the effect lives: in the working set, not the run length. The workload (tlbsort) fills
an array and walks it with dependent random reads (``workload.walk_ns``: ns per access, the
primary metric): over 512 MB with 4 KiB pages nearly every read misses the TLB and pays a page
walk whose own entries (1 MiB of them) miss the caches; with 2 MiB pages the TLB covers far
more. A fixed number of reads gives a cost per access that does not depend on how long the
phase ran. The classic heap sort is kept as a second phase, sized so one invocation stays
short (a heap sort of all 512 MB took 60-90 s on a quiet 2-core machine and was 6.6% (JDK 17)
and 11.4% (JDK 25) faster with THP by hand; a full demo of it needed 35-50 minutes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jvmlab.analyze.compare import MIN_PAIRED_BLOCKS
from jvmlab.machine.fingerprint import meminfo
from jvmlab.model import hazards as hz
from jvmlab.model.jdk import JdkInfo
from jvmlab.scenarios.jdks import factor_table, jvm_name, jvms_table, run_table
from jvmlab.scenarios.model import ScenarioRun
from jvmlab.scenarios.stats import Machine, cell_n, index_cells, key_with, mean_ci, pair_n, ratio_pct
from jvmlab.scenarios.table import Estimate, ScenarioVerdict, empty

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary

WALK = "workload.walk_ns"
HEAPSORT = "workload.heapsort_ms"
PAGES = {"default": [], "thp": ["-XX:+UseTransparentHugePages"], "largepages": ["-XX:+UseLargePages"]}
ANON_HUGE = "mem.peak_anon_huge_bytes"


@dataclass(frozen=True)
class Sizing:
    """One spec's sizes: the array (MiB), million random reads, the heap-sorted prefix (MiB)
    and the blocks (fixed, or the first ones before --until-style stopping)."""

    mb: int
    walk_m: int
    sort_mb: int
    blocks: int
    warmup: int = 0
    until_rel: float | None = None
    max_blocks: int | None = None

    @property
    def heap_mb(self) -> int:
        """The array, the sorted copies, and room for the JVM's own objects."""
        return self.mb + 2 * self.sort_mb + 256


# Full mode: 512 MB walked with 6 million dependent reads (1-2 s) and a heap sort of a 16 MB
# prefix (about 2 s; the whole 512 MB took 60-90 s): one invocation takes about 5 s on a quiet
# 2-core machine. From 8 shared blocks comparisons are paired by block
# (jvmlab.analyze.compare.MIN_PAIRED_BLOCKS), so a slow spell of the machine that hits both
# cells of a block cancels out; then blocks are added until every 95% CI of the walk is within
# +-3% (THP is expected to save 10-50% per read), at most 20 blocks: 2 JDKs x 2 page sizes x
# 20 x ~5 s is about 7 minutes, 10 blocks under 4. 10 first blocks, not 8: with hugetlbfs
# pages reserved there are 6 cells, and 5 Holm-corrected comparisons at 8 paired blocks need
# every sign of every block to agree (5 x 2/256 = 0.039); at 10, 5 x 2/1024 = 0.01.
FULL = Sizing(mb=512, walk_m=6, sort_mb=16, blocks=10, until_rel=0.03, max_blocks=20)
# Quick mode and `demo all`: the full mode's 512 MB array on one JDK (the effect lives in the
# working set: on 128 MB the page tables fit the caches and THP saved only -8% [-20% ... +6%]
# per read in 16 blocks of a lightly loaded run, on 512 MB -37% to -41% in full mode), with
# fewer reads (3 million) and small sorts (4 MB): about 3 s per invocation. 8 blocks, so the
# comparisons are paired by block (MIN_PAIRED_BLOCKS: on a loaded machine a read's cost drifted
# 460-870 ns between blocks while THP's ratio held within each), then blocks are added until
# every CI of the walk is within +-3% of the baseline, at most 16 (a loaded `demo all` had 3 of
# 8 paired blocks go the wrong way).
SHORT_UNTIL = 0.03
SHORT_MAX_BLOCKS = 16
QUICK = Sizing(mb=512, walk_m=3, sort_mb=4, blocks=MIN_PAIRED_BLOCKS, until_rel=SHORT_UNTIL,
               max_blocks=SHORT_MAX_BLOCKS)
IN_ALL = Sizing(mb=512, walk_m=3, sort_mb=4, blocks=MIN_PAIRED_BLOCKS, warmup=1, until_rel=SHORT_UNTIL,
                max_blocks=SHORT_MAX_BLOCKS)


def hugetlbfs_reserved(meminfo_text: str | None = None) -> bool:
    """True when hugetlbfs pages are reserved, i.e. -XX:+UseLargePages can be in effect."""
    return (meminfo(meminfo_text).get("HugePages_Total") or 0) > 0


def runs(jdks: list[JdkInfo], quick: bool, sizing: Sizing | None = None,
         hugetlbfs: bool | None = None) -> list[ScenarioRun]:
    """The specs to run. Full mode: 512 MB on every JDK found (up to two), sized by precision.

    ``sizing`` (e.g. ``IN_ALL``, for `demo all`, which makes fewer reads) replaces the
    mode's own. The hugetlbfs level is left out of the full mode when no hugetlbfs pages are
    reserved (the JVM would fall back to small pages); the quick mode keeps it to show the
    "not in effect" warning.
    """
    chosen = jdks[:1] if quick else jdks
    pages = dict(PAGES)
    if not quick and not (hugetlbfs_reserved() if hugetlbfs is None else hugetlbfs):
        pages.pop("largepages")
    return [_run(chosen, pages, sizing or (QUICK if quick else FULL))]


def _run(jdks: list[JdkInfo], pages: dict[str, list[str]], s: Sizing) -> ScenarioRun:
    heap = f"{s.heap_mb}m"
    text = f'''name = "demo largepages: tlbsort {s.mb} MB x page size"
description = "Does a bigger page size speed up TLB-bound random reads of {s.mb} MB, and a heap sort?"

[workload]
builtin = "tlbsort"
args = ["--mb", "{s.mb}", "--walk-m", "{s.walk_m}", "--sort-mb", "{s.sort_mb}", "--seed", "42"]

[jvms]
{jvms_table(jdks)}

{factor_table("heap", {f"h{heap}": [f"-Xms{heap}", f"-Xmx{heap}"]})}
{factor_table("pages", pages)}
[matrix]
baseline = {{ jvm = "{jvm_name(jdks[0])}", pages = "default" }}

{run_table(s.blocks, s.warmup, "300s")}'''
    return ScenarioRun("largepages", f"tlbsort {s.mb} MB", text, WALK, "ns per dependent random read (TLB-bound)",
                       until_rel=s.until_rel, max_blocks=s.max_blocks)


def verdict(summary: Summary) -> ScenarioVerdict:
    cells, machine = index_cells(summary), Machine.of(summary)
    size = summary.experiment.name.split("tlbsort ", 1)[-1].split(" x", 1)[0]
    primary = WALK if any(WALK in c.stats for c in cells.values()) else HEAPSORT  # older runs: no walk
    title = (f"Page size on {size}: cost of a random read and heap-sort time against default pages "
             "(95% CI, negative is faster)")
    rows, found, notes = [], [], []
    for key, base in sorted(cells.items()):
        if dict(key).get("pages") != "default":
            continue
        jvm = dict(key)["jvm"]
        rows.append((jvm, "default", _ns(base), "", "", _huge(base), ""))
        for pages in ("thp", "largepages"):
            other = cells.get(key_with(key, pages=pages))
            if other is None:
                continue
            walk, sort = (Estimate.of(ratio_pct(machine, other, base, m), "{:+.1f}%", pair_n(other, base, m))
                          for m in (WALK, HEAPSORT))
            if walk.value is None and sort.value is None:
                continue
            off = bool(other.not_in_effect)
            if off:
                more = f" and {len(other.not_in_effect) - 1} more" if len(other.not_in_effect) > 1 else ""
                notes.append(f"{pages} on {jvm}: the flag was NOT in effect ({other.not_in_effect[0]}{more})")
            main = walk if primary == WALK else sort
            found.append((jvm, pages, main, sort, off))
            answer = "flag NOT in effect" if off else _answer(main)
            rows.append((jvm, pages, _ns(other), walk.text(), sort.text(), _huge(other), answer))
    if not found:
        return empty(title, f"largepages ({size}): no page-size pair had measurements, so nothing can be said.")
    if any(h.kind == hz.PRECISION_NOT_REACHED for h in summary.hazards):
        notes.append("the run stopped at its bound of blocks before every interval was as narrow as planned")
    header = ("JDK", "pages", "ns per read", "random reads", "heap sort", "AnonHugePages", "answer")
    return ScenarioVerdict(title, header, tuple(rows), _conclusion(size, primary, found), tuple(notes))


def _has_ci(e: Estimate) -> bool:
    return e.value is not None and math.isfinite(e.value[1]) and math.isfinite(e.value[2])


def _answer(e: Estimate) -> str:
    """The table's answer; an estimate without an interval (one block) is not "no effect"."""
    return "no CI: too few blocks" if e.value is not None and not _has_ci(e) else e.answer()


def _ns(cell: Any) -> str:
    """The mean cost of one random read with its CI, or "-" without a walk."""
    value = mean_ci(cell, WALK)
    return "-" if value is None else Estimate(value, "{:.0f}", cell_n(cell, WALK)).text()


def _huge(cell: Any) -> str:
    """Evidence that huge pages backed the heap: the peak AnonHugePages of the JVM (mean over
    invocations), "not sampled" when the /proc sampler did not measure it."""
    st = cell.stats.get(ANON_HUGE)
    if st is None or st.mean is None:
        return "not sampled"
    return f"{st.mean / (1 << 20):.0f} MiB"


def _conclusion(size: str, primary: str, found: list[tuple[str, str, Estimate, Estimate, bool]]) -> str:
    """One sentence: the clear changes of the primary phase, then what is not resolved and
    how many blocks (one invocation per cell each) would resolve it."""
    what = f"A random read of {size}" if primary == WALK else f"The heap sort of {size}"
    real = [(jvm, pages, main) for jvm, pages, main, _, off in found if not off]
    clear = [f"{main.value[0]:+.1f}% with {pages} on {jvm}" for jvm, pages, main in real if main.clear and main.value]
    text = f"{what} changed " + ", ".join(clear) if clear else f"{what}: no page size gave a clear change"
    unclear = [(jvm, pages, main) for jvm, pages, main in real if not main.clear]
    if unclear:
        needs = [n for _, _, e in unclear if (n := e.needed()) is not None]
        blocks = min(e.n for _, _, e in unclear)
        why = (f"about {max(needs)} blocks would be needed" if needs else "too few blocks for an interval"
               if not all(_has_ci(e) for _, _, e in unclear) else "no effect seen")
        text += (f"; not resolved for {', '.join(f'{p} on {j}' for j, p, _ in unclear)} after "
                 f"{blocks} block{'s' if blocks != 1 else ''} ({why})")
    if primary == WALK:
        text += _heap_sort_clause(found)
    off = [f"{pages} on {jvm}" for jvm, pages, _, _, was_off in found if was_off]
    if off:
        text += f"; {', '.join(off)} not in effect"
    return text + "."


def _heap_sort_clause(found: list[tuple[str, str, Estimate, Estimate, bool]]) -> str:
    """The classic phase in a few words: its clear changes, and where it is not clear."""
    real = [(jvm, pages, sort) for jvm, pages, _, sort, off in found if not off and sort.value is not None]
    if not real:
        return ""
    clear = [f"{s.value[0]:+.1f}% with {p} on {j}" for j, p, s in real if s.clear and s.value]
    unclear = [f"{p} on {j}" for j, p, s in real if not s.clear]
    parts = ([f"changed {', '.join(clear)}"] if clear else []) + (
        [f"was not clear for {', '.join(unclear)}"] if unclear else [])
    return "; the heap sort " + " and ".join(parts)
