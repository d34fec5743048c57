"""`largepages`: heap sort (TLB-bound) and Arrays.sort at two sizes with default pages, THP and
hugetlbfs large pages; the verdict gives each phase's change in percent."""

from __future__ import annotations

from typing import Any

from jvmlab.machine.thp import meminfo
from jvmlab.model.jdk import JdkInfo
from jvmlab.scenarios.jdks import factor_table, jvm_name, jvms_table, run_table
from jvmlab.scenarios.model import ScenarioRun
from jvmlab.scenarios.stats import index_cells, key_with, pair_n, ratio_pct
from jvmlab.scenarios.table import Estimate, ScenarioVerdict, empty

PHASES = ("workload.heapsort_ms", "workload.arrayssort_ms")
PAGES = {"default": [], "thp": ["-XX:+UseTransparentHugePages"], "largepages": ["-XX:+UseLargePages"]}
# Where the effect lives: by hand on this 2-core machine a 512 MB heap sort was 6.6% (JDK 17) and
# 11.4% (JDK 25) faster with THP, while 64-128 MB runs gave +-15% intervals. One 512 MB run takes
# 60-90 s on a quiet machine. The full mode runs 8 blocks: from 8 shared blocks the comparison is
# paired by block (jvmlab.analyze.compare.MIN_PAIRED_BLOCKS), so a slow spell of the machine that
# hits both cells of a block cancels out. A first run here with 5 blocks, while the load average
# fell from 18 to 1, gave heap sorts of 56-390 s and intervals of -79% ... +203%: unpaired, that
# drift swamps a 6-11% effect. With the heap sort's in-process CV of ~2% on a quiet machine the
# paired CI is about +-2-3% at 8 blocks; when it is not (a noisy machine) the verdict says how many
# invocations would resolve it.
SIZES_QUICK = ((64, 3),)
SIZES_FULL = ((512, 8),)
FULL_HEAPSORT_CV = 0.02  # the planning figure behind SIZES_FULL


def hugetlbfs_reserved(meminfo_text: str | None = None) -> bool:
    """True when hugetlbfs pages are reserved, i.e. -XX:+UseLargePages can be in effect."""
    return (meminfo(meminfo_text).get("HugePages_Total") or 0) > 0


def runs(jdks: list[JdkInfo], quick: bool, sizes: tuple[tuple[int, int], ...] | None = None,
         hugetlbfs: bool | None = None) -> list[ScenarioRun]:
    """One spec per array size (workload arguments are fixed per spec); (MiB, invocations).

    Full mode: 512 MB on every JDK found (up to two). The hugetlbfs level is left out when no
    hugetlbfs pages are reserved: the JVM would fall back to small pages, and each run costs
    minutes; the quick mode keeps it to show the "not in effect" warning.
    """
    chosen = jdks[:1] if quick else jdks
    pages = dict(PAGES)
    if not quick and not (hugetlbfs_reserved() if hugetlbfs is None else hugetlbfs):
        pages.pop("largepages")
    out = []
    for mb, invocations in sizes or (SIZES_QUICK if quick else SIZES_FULL):
        heap = f"{2 * mb + 128}m"
        text = f'''name = "demo largepages: tlbsort {mb} MB x page size"
description = "Does a bigger page size speed up a TLB-bound sort of {mb} MB?"

[workload]
builtin = "tlbsort"
args = ["--mb", "{mb}", "--seed", "42"]

[jvms]
{jvms_table(chosen)}

{factor_table("heap", {f"h{heap}": [f"-Xms{heap}", f"-Xmx{heap}"]})}
{factor_table("pages", pages)}
[matrix]
baseline = {{ jvm = "{jvm_name(chosen[0])}", pages = "default" }}

{run_table(invocations, 1 if mb <= 128 else 0, "900s")}'''
        out.append(ScenarioRun("largepages", f"tlbsort {mb} MB", text, PHASES[0], "heap-sort phase time"))
    return out


def verdict(summary: Any) -> ScenarioVerdict:
    cells = index_cells(summary)
    size = summary.experiment.name.split("tlbsort ", 1)[-1].split(" x", 1)[0]
    title = f"Sorting {size}: time change per phase against default pages (95% CI, negative is faster)"
    rows, heap, notes = [], [], []
    for key, cell in sorted(cells.items()):
        if dict(key).get("pages") != "default":
            continue
        for pages in ("thp", "largepages"):
            other = cells.get(key_with(key, pages=pages))
            if other is None:
                continue
            phases = [Estimate(ratio_pct(other, cell, m), "{:+.1f}%", pair_n(other, cell, m)) for m in PHASES]
            if all(p.value is None for p in phases):
                continue
            if other.not_in_effect:
                notes.append(f"{pages} on {dict(key)['jvm']}: -XX:+UseLargePages was NOT in effect ("
                             + "; ".join(other.not_in_effect) + ")")
            heap.append((dict(key)["jvm"], pages, phases[0], bool(other.not_in_effect)))
            answer = "flag NOT in effect" if other.not_in_effect else phases[0].answer()
            rows.append((dict(key)["jvm"], pages, *(p.text() for p in phases), answer))
    if not rows:
        return empty(title, f"largepages ({size}): no page-size pair had measurements, so nothing can be said.")
    header = ("JDK", "pages", "heap sort", "Arrays.sort", "heap sort answer")
    return ScenarioVerdict(title, header, tuple(rows), _conclusion(heap), tuple(notes))


def _conclusion(heap: list[tuple[str, str, Estimate, bool]]) -> str:
    """One sentence on the heap sort, the phase where fewer TLB misses should show."""
    real = [(jvm, pages, e) for jvm, pages, e, off in heap if not off]
    clear = [f"{pages} {e.value[0]:+.1f}% on {jvm}" for jvm, pages, e in real if e.clear and e.value]
    unclear = [(jvm, pages, e) for jvm, pages, e in real if not e.clear]
    text = ("Heap sort (random access, TLB-bound): " + ", ".join(clear)) if clear else \
        "Heap sort (random access, TLB-bound): no page size gave a clear change"
    if unclear:
        needs = [n for _, _, e in unclear if (n := e.needed()) is not None]
        text += (f"; not resolved for {', '.join(f'{p} on {j}' for j, p, _ in unclear)}"
                 + (f" (about {max(needs)} invocations per cell would be needed)" if needs else ""))
    return text + "."
