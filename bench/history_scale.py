"""History scale (issue 36 item 5): a series of 1,000 labels x 20 cells reports in under 5 s
from SQLite and from PostgreSQL.

Run: .venv/bin/python bench/history_scale.py [--labels 1000] [--cells 20] [--runs 3]
     [--backend sqlite|postgresql|both] [--pg-url postgresql+psycopg://...] [--keep DIR]

The series is generated (not timed) straight into the store's tables in one transaction:
one experiment per label, every cell with ``--runs`` measured invocations, wall_s around
1 s with 1% noise and one or two steps per cell at seeded labels. Without ``--pg-url`` a
throw-away PostgreSQL server is started on 127.0.0.1 (tests/pg_server.py) and stopped.

Timed, as `jvmlab history SERIES` does it: load + change points (``load_history``: two
queries, then per cell the statistics), the terminal text, the JSON, and the HTML page; the
total of load + text and load + HTML are printed against the 5 s target as ratios (below 1.0
= within target), with the CPU time of the load for a machine shared with other work (the
PostgreSQL server's own CPU is not in it). Figures taken on a loaded machine say so.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from jvmlab.report.history import history_json, render_text
from jvmlab.report.history_html import write_history_html
from jvmlab.results.history import load_history
from jvmlab.store import schema as t
from jvmlab.store.sql import SqlStore

TARGET_S = 5.0
SERIES = "scale"


def generate(store: SqlStore, labels: int, cells: int, runs: int, seed: int = 1) -> dict[str, list[int]]:
    """Write the series; return each cell's true step labels."""
    rng = np.random.default_rng(seed)
    names = [f"cell{k:02d}" for k in range(cells)]
    steps = {n: sorted(rng.choice(np.arange(50, labels - 50), size=int(rng.integers(1, 3)), replace=False).tolist())
             for n in names}
    now = time.time()
    with store.engine.begin() as conn:
        conn.execute(t.experiment.insert(), [dict(
            id=i + 1, name=SERIES, spec_text="", spec_hash=f"h{i}", fingerprint_json="{}", created_at=now + i,
            status="done", seed=1, series=SERIES, label=f"{i:07x}") for i in range(labels)])
        conn.execute(t.cell.insert(), [dict(
            id=i * cells + k + 1, experiment_id=i + 1, idx=k, name=n, jvm="j", jdk_json="{}", levels_json="{}",
            requested_flags_json="[]", flags_json="[]", final_flags_json="{}")
            for i in range(labels) for k, n in enumerate(names)])
        rows = []
        for i in range(labels):
            for k, n in enumerate(names):
                level = 1.0 * 1.05 ** sum(1 for s in steps[n] if i >= s)
                for b, wall in enumerate(level + rng.normal(0, 0.01, runs)):
                    rows.append(dict(experiment_id=i + 1, cell_id=i * cells + k + 1, block=b, position=k,
                                     warmup=False, started_at=now, status="ok", wall_s=float(wall),
                                     user_s=float(wall) * 0.8, sys_s=0.1, argv_json="[]"))
        for start in range(0, len(rows), 20_000):
            conn.execute(t.invocation.insert(), rows[start:start + 20_000])
    if store.engine.dialect.name == "postgresql":  # ids were given: move the sequences past them
        with store.engine.begin() as conn:
            for table in ("experiment", "cell"):
                conn.exec_driver_sql(f"SELECT setval('{table}_id_seq', (SELECT max(id) FROM {table}))")
    return steps


def measure(url: str, labels: int, cells: int, runs: int, folder: Path) -> dict[str, float]:
    store = SqlStore(url)
    t0 = time.perf_counter()
    steps = generate(store, labels, cells, runs)
    print(f"  generated {labels} labels x {cells} cells x {runs} runs in {time.perf_counter() - t0:.1f} s")
    out: dict[str, float] = {}
    t0, c0 = time.perf_counter(), time.process_time()
    history = load_history(store, SERIES)
    out["load + change points"] = time.perf_counter() - t0
    out["load + change points, CPU of this process"] = time.process_time() - c0
    t0 = time.perf_counter()
    render_text(history, io.StringIO().write)
    out["terminal text"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    json.dumps(history_json(history), default=str)
    out["json"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    page = write_history_html(history, folder / "history.html")
    out["html"] = time.perf_counter() - t0
    found = sum(1 for c in history.cells for s in steps[c.cell] if c.segmentation is not None
                and any(abs(ch.index - s) <= 1 for ch in c.segmentation.changes))
    extra = sum(1 for c in history.cells if c.segmentation is not None for ch in c.segmentation.changes
                if all(abs(ch.index - s) > 1 for s in steps[c.cell]))
    print(f"  steps found within one label: {found} of {sum(len(v) for v in steps.values())}; "
          f"other change points: {extra}; page {page.stat().st_size / 1e6:.1f} MB")
    store.close()
    return out


@contextmanager
def postgres(url: str | None) -> Iterator[str]:
    if url is not None:
        yield url
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from pg_server import fresh_database, running_server, why_unavailable

    why = why_unavailable()
    if why is not None:
        raise SystemExit(f"no PostgreSQL here: {why}; pass --pg-url or --backend sqlite")
    with running_server() as server:
        yield fresh_database(server)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=1000)
    parser.add_argument("--cells", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3, help="measured invocations per cell and label")
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--pg-url", help="an empty PostgreSQL database (default: start a throw-away server)")
    parser.add_argument("--keep", type=Path, help="folder to keep the SQLite store and the page in")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="jvmlab-history-"))
    folder.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict[str, float]] = {}
    if args.backend in ("sqlite", "both"):
        print("sqlite:")
        results["sqlite"] = measure(f"sqlite:///{folder / 'history.db'}", args.labels, args.cells, args.runs, folder)
    if args.backend in ("postgresql", "both"):
        print("postgresql:")
        with postgres(args.pg_url) as url:
            results["postgresql"] = measure(url, args.labels, args.cells, args.runs, folder)
    ok = True
    for backend, times in results.items():
        print(f"\n{backend}:")
        for step, seconds in times.items():
            print(f"  {step:<42} {seconds:6.2f} s")
        for what, total in (("load + text", times["load + change points"] + times["terminal text"]),
                            ("load + html", times["load + change points"] + times["html"])):
            print(f"  {what:<42} {total:6.2f} s   ratio to {TARGET_S:.0f} s: {total / TARGET_S:.2f}")
            ok &= total < TARGET_S
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
