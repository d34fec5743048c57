"""jvmlab's GC log summaries next to GCViewer 1.36's, on the logs of ../shared/gclogs.

    .venv/bin/python bench/gclog_vs_gcviewer.py [--gclogs DIR]

GCViewer's figures are the ones stored in ``REFERENCE-RUNS.tsv`` (GCViewer 1.36, headless
``-t SUMMARY``): a reference, not ground truth (it counts ZGC cycles as pauses and misreads
some JDK 8u logs). Per log: GCViewer's pause count, accumulated pause time and longest
pause, then ours; "max" and "accum" agree when within 1% or within the rounding of the printed
figure. The last lines count how many logs agree on each figure.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.gclog import analyze_paths

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "gclogs"


def _gcviewer(result: str) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for key in ("pauses", "accum", "max", "fullGCPause"):
        m = re.search(rf"\b{key}=([0-9.]+)", result)
        out[key] = float(m.group(1)) if m else None
    return out


def _close(a: float | None, b: float | None, rounding: float = 0.001) -> bool:
    """Within 1%, or within the rounding of GCViewer's printed figure."""
    return a is not None and b is not None and abs(a - b) <= max(rounding, 0.01 * max(abs(a), abs(b)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gclogs", type=Path, default=DEFAULT)
    args = parser.parse_args()
    table = args.gclogs / "REFERENCE-RUNS.tsv"
    if not table.is_file():
        print(f"no {table}: pass --gclogs", file=sys.stderr)
        return 2
    rows = [r for r in csv.DictReader(table.open(), delimiter="\t") if r["tool"].startswith("gcviewer")]
    agree = {"max": 0, "accum": 0, "count": 0}
    compared = 0
    print(f"{'log':58} | {'GCViewer n / accum s / max s':30} | {'jvmlab n / accum s / max s':30} | agree")
    for row in rows:
        ref = _gcviewer(row["result"])
        try:
            [summary] = analyze_paths([args.gclogs / row["file"]])[:1] or [None]
        except UserError as err:
            print(f"{row['file'][-58:]:58} | {row['result'][:30]:30} | refused: {err}")
            continue
        doc = summary.to_json() if summary else {}
        pauses = doc.get("pauses") or {}
        n, total_ms, max_ms = pauses.get("count"), pauses.get("total_ms"), pauses.get("max_ms")
        ours = (n, None if total_ms is None else total_ms / 1000, None if max_ms is None else max_ms / 1000)
        marks = []
        if ref["max"] is not None:
            compared += 1
            for name, a, b, rounding in (("max", ref["max"], ours[2], 0.00001),
                                         ("accum", ref["accum"], ours[1], 0.005),  # printed to 0.01 s
                                         ("count", ref["pauses"], ours[0], 0.0)):
                if _close(a, b, rounding):
                    agree[name] += 1
                    marks.append(name)
        ref_txt = f"{ref['pauses']} / {ref['accum']} / {ref['max']}"
        our_txt = " / ".join("-" if v is None else (f"{v:.5g}") for v in ours)
        print(f"{row['file'][-58:]:58} | {ref_txt:30} | {our_txt:30} | {' '.join(marks)}")
    print(f"\nlogs GCViewer reports a pause maximum for: {compared}")
    for name, count in agree.items():
        print(f"agree on {name}: {count}/{compared}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
