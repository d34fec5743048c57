"""Seeded mutations of real GC logs, shared by the suite's fuzz test and bench/gclog_fuzz.py."""

from __future__ import annotations

import gzip
import os
import random
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "gclogs"
SHARED = Path(os.environ.get("JVMLAB_GCLOGS", Path(__file__).resolve().parents[3] / "shared" / "gclogs"))
MAX_SOURCE_BYTES = 200_000


def source_logs() -> list[bytes]:
    """Heads of the project's logs and, when present, of the shared real logs."""
    paths = sorted(p for p in DATA.iterdir() if p.name.endswith((".log", ".log.gz")))
    if SHARED.is_dir():
        paths += sorted(p for p in SHARED.rglob("*") if p.is_file() and p.suffix in (".log", ".txt")
                        and p.stat().st_size < 3_000_000 and "licenses" not in p.parts)
    out = []
    for p in paths:
        data = gzip.decompress(p.read_bytes()) if p.name.endswith(".gz") else p.read_bytes()
        out.append(data[:MAX_SOURCE_BYTES])
    return out


def mutate(rng: random.Random, sources: list[bytes]) -> bytes:
    """One case: truncate, flip bytes, drop/duplicate/shuffle lines or concatenate logs."""
    data = rng.choice(sources)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(6)
        if op == 0 and data:  # truncate anywhere, even mid-line
            data = data[: rng.randrange(len(data))]
        elif op == 1 and data:  # flip random bytes
            buf = bytearray(data)
            for _ in range(rng.randint(1, 50)):
                buf[rng.randrange(len(buf))] = rng.randrange(256)
            data = bytes(buf)
        elif op == 2:  # concatenate another log (clock restarts, format mix)
            data = data + rng.choice(sources)
        else:
            lines = data.split(b"\n")
            if len(lines) > 2:
                i = rng.randrange(len(lines))
                j = min(len(lines), i + rng.randint(1, 40))
                if op == 3:
                    del lines[i:j]
                elif op == 4:
                    lines[i:i] = lines[i:j]
                else:
                    part = lines[i:j]
                    rng.shuffle(part)
                    lines[i:j] = part
            data = b"\n".join(lines)
    return data
