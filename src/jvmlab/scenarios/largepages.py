"""`largepages`: heap sort (TLB-bound) and Arrays.sort at two sizes with default pages, THP and
hugetlbfs large pages; the verdict gives each phase's change in percent."""

from __future__ import annotations

from jvmlab.jdk.model import JdkInfo
from jvmlab.scenarios.jdks import factor_table, jvm_name, jvms_table, run_table
from jvmlab.scenarios.model import ScenarioRun
from jvmlab.scenarios.stats import clearly, fmt_interval, index_cells, key_with, ratio_pct

PHASES = ("workload.heapsort_ms", "workload.arrayssort_ms")
PAGES = {"default": [], "thp": ["-XX:+UseTransparentHugePages"], "largepages": ["-XX:+UseLargePages"]}
# tlbsort at 512 MB takes over a minute per run on 2 cores: full mode runs it twice per level.
SIZES_QUICK = ((64, 3),)
SIZES_FULL = ((64, 5), (512, 2))


def runs(jdks: list[JdkInfo], quick: bool, sizes: tuple[tuple[int, int], ...] | None = None) -> list[ScenarioRun]:
    """One spec per array size (workload arguments are fixed per spec); (MiB, invocations)."""
    jdk = jdks[0]
    out = []
    for mb, invocations in sizes or (SIZES_QUICK if quick else SIZES_FULL):
        heap = f"{2 * mb + 128}m"
        text = f'''name = "demo largepages: tlbsort {mb} MB x page size"
description = "Does a bigger page size speed up a TLB-bound sort of {mb} MB?"

[workload]
builtin = "tlbsort"
args = ["--mb", "{mb}", "--seed", "42"]

[jvms]
{jvms_table([jdk])}

{factor_table("heap", {f"h{heap}": [f"-Xms{heap}", f"-Xmx{heap}"]})}
{factor_table("pages", PAGES)}
[matrix]
baseline = {{ jvm = "{jvm_name(jdk)}", pages = "default" }}

{run_table(invocations, 1 if mb <= 128 else 0, "600s")}'''
        out.append(ScenarioRun("largepages", f"tlbsort {mb} MB", text, PHASES[0]))
    return out


def verdict(summary) -> str:
    cells = index_cells(summary)
    size = summary.experiment.name.split("tlbsort ", 1)[-1].split(" x", 1)[0]
    parts = []
    for key, cell in sorted(cells.items()):
        if dict(key).get("pages") != "default":
            continue
        for pages in ("thp", "largepages"):
            other = cells.get(key_with(key, pages=pages))
            if other is None:
                continue
            phases = []
            for metric in PHASES:
                change = ratio_pct(other, cell, metric)
                if change is not None:
                    word = "" if clearly(change) else ", not a clear difference"
                    phases.append(f"{metric.split('.')[1].removesuffix('_ms')} "
                                  f"{fmt_interval(change, '{:+.1f}%')}{word}")
            note = (" (-XX:+UseLargePages was NOT in effect: " + "; ".join(other.not_in_effect) + ")"
                    if other.not_in_effect else "")
            if phases:
                parts.append(f"{pages} vs default pages on {dict(key)['jvm']}: " + ", ".join(phases) + note)
    if not parts:
        return f"largepages ({size}): no page-size pair had measurements, so nothing can be said."
    return (f"Sorting {size} (time change per phase, negative is faster, 95% CI): " + "; ".join(parts)
            + ". Heap sort jumps around the array, so it is the phase where fewer TLB misses should show.")
