"""``jvmlab import hyperfine RESULTS.json...``: hyperfine's ``--export-json`` as an experiment.

One cell per command (its ``--command-name`` when given; parameters of ``--parameter-scan`` /
``-L`` become the cell's levels; a file written by ``jvmlab export --format hyperfine`` keeps its
cells' names and JVMs, so export and import round-trip), one invocation per run with its wall time (``times``) and
exit code. Per-run user/system CPU is not in the file (only means), so it is stored as unknown.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

from jvmlab.errors import UserError
from jvmlab.importers.model import ImportedCell, ImportedExperiment, ImportedRun

UNKNOWN = (
    "block order: hyperfine runs each command's runs one after another, so runs of different commands "
    "were not interleaved in randomized blocks; comparisons are unpaired and drift cannot be told apart",
    "user and system CPU time of each run: hyperfine's JSON keeps only their means (kept in the import "
    "document)",
)


JVMLAB_EXPORT = "jvmlab"  # `exported_by` of `jvmlab export --format hyperfine` (report/export.py)


def _load(path: Path) -> tuple[list[dict[str, Any]], bool]:
    """The file's results, and whether jvmlab wrote it (its cells then keep their names)."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as err:
        raise UserError(f"cannot read {path}: {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise UserError(f"{path}: not UTF-8 text (byte {err.start}); is it a binary file? "
                        f"Give hyperfine's --export-json file") from None
    except json.JSONDecodeError as err:
        raise UserError(f"{path}: not JSON ({err.msg} at line {err.lineno}); write it with --export-json") from None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or not all(isinstance(r, dict) and "command" in r for r in results):
        raise UserError(f"{path}: not a hyperfine --export-json file (expected {{\"results\": [...]}})")
    return results, data.get("exported_by") == JVMLAB_EXPORT


def _finite(where: str, key: str, value: Any, what: str) -> float:
    """A finite number >= 0 (JSON's strings, null, booleans, NaN and negatives refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise UserError(f"{where}: {key} is {json.dumps(value)}, not {what} (a finite number >= 0); "
                        f"nothing was imported")
    return float(value)


def _whole(where: str, key: str, value: Any, what: str, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or (minimum is not None and value < minimum):
        bound = f" >= {minimum}" if minimum is not None else ""
        raise UserError(f"{where}: {key} is {json.dumps(value)}, not {what} (a whole number{bound}); "
                        f"nothing was imported")
    return value


def _optional_list(where: str, key: str, value: Any) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise UserError(f"{where}: {key} is {json.dumps(value)}, not a list; nothing was imported")
    return value


def import_hyperfine(paths: list[Path], name: str | None = None) -> ImportedExperiment:
    if not paths:
        raise UserError("give at least one hyperfine JSON file")
    cells: list[ImportedCell] = []
    runs: list[ImportedRun] = []
    means: dict[str, dict[str, Any]] = {}
    for path in paths:
        results, ours = _load(path)
        for result in results:
            parameters = result.get("parameters") or {}
            if not isinstance(parameters, dict):
                raise UserError(f"{path}: command {result['command']!r}: parameters is {parameters!r}, "
                                f"not a table of name: value")
            levels = {str(k): str(v) for k, v in parameters.items()}
            # jvmlab's own export names the cell and its JVM in `parameters`; `command` is its argv
            cell_name, jvm = str(result["command"]), "unknown"
            own = result.get("jvmlab") if ours else None  # jvmlab's export: the cell, its JVM and levels
            if isinstance(own, dict) and own.get("cell"):
                cell_name, jvm = str(own["cell"]), str(own.get("jvm") or "unknown")
                levels = {str(k): str(v) for k, v in (own.get("levels") or {}).items()} \
                    if isinstance(own.get("levels"), dict) else levels
            elif ours and levels.get("cell"):  # an export older than issue 45 kept them in `parameters`
                cell_name, jvm = levels.pop("cell"), levels.pop("jvm", "unknown")
            if any(c.name == cell_name for c in cells):
                cell_name = f"{cell_name} [{path.stem}]"
            where = f"{path}: command {result['command']!r}"
            times = result.get("times")
            if not isinstance(times, list) or not times:
                raise UserError(f"{where} has no per-run times")
            walls = [_finite(where, f"times[{k}]", t, "a wall time in seconds") for k, t in enumerate(times)]
            codes = _optional_list(where, "exit_codes", result.get("exit_codes"))
            memory = _optional_list(where, "memory_usage_byte", result.get("memory_usage_byte"))
            index = len(cells)
            cells.append(ImportedCell(cell_name, jvm, {}, levels=levels))
            for k, wall in enumerate(walls):
                code = codes[k] if k < len(codes) else 0
                rss = memory[k] if k < len(memory) else None
                runs.append(ImportedRun(
                    cell=index, wall_s=wall,
                    exit_code=None if code is None else _whole(where, f"exit_codes[{k}]", code, "an exit code"),
                    max_rss_bytes=None if rss is None else _whole(where, f"memory_usage_byte[{k}]", rss,
                                                                   "a size in bytes", minimum=0)))
            means[cell_name] = {k: result.get(k) for k in ("mean", "stddev", "median", "user", "system", "min", "max")}
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in paths)).hexdigest()
    started = min(p.stat().st_mtime for p in paths)
    return ImportedExperiment("hyperfine", name or f"hyperfine import: {', '.join(p.name for p in paths)}",
                              tuple(str(p.resolve()) for p in paths), digest, tuple(cells), tuple(runs), UNKNOWN,
                              {"hyperfine": means}, started)
