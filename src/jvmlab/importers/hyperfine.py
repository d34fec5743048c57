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
from jvmlab.files import MAX_JSON_BYTES, json_refusal, read_bounded
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
        data = json.loads(read_bounded(path, "hyperfine result", MAX_JSON_BYTES).decode("utf-8"))
    except UnicodeDecodeError as err:
        raise UserError(f"{path}: not UTF-8 text (byte {err.start}); is it a binary file? "
                        f"Give hyperfine's --export-json file") from None
    except json.JSONDecodeError as err:
        raise UserError(f"{path}: not JSON ({err.msg} at line {err.lineno}); write it with --export-json") from None
    except (RecursionError, ValueError) as err:  # nested too deep; an integer of over 4300 digits
        raise UserError(f"{path}: not hyperfine's JSON ({json_refusal(err)}); write it with --export-json") from None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or not all(isinstance(r, dict) and "command" in r for r in results):
        raise UserError(f"{path}: not a hyperfine --export-json file (expected {{\"results\": [...]}})")
    return results, data.get("exported_by") == JVMLAB_EXPORT


MAX_TIME_S = 604800.0  # a run of a week: beyond, the number is not a measured time
EXIT_CODES = (-(1 << 31), (1 << 31) - 1)  # hyperfine's exit codes are 32-bit
MAX_BYTES = (1 << 63) - 1  # what a store's integer column holds


def _finite(where: str, key: str, value: Any, what: str) -> float:
    """A finite number from 0 to a week (JSON's strings, null, booleans, NaN, negatives and
    absurd sizes such as 1e308 refused)."""
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0
            or value > MAX_TIME_S):
        raise UserError(f"{where}: {key} is {json.dumps(value)}, not {what} (a finite number from 0 to "
                        f"{MAX_TIME_S:g}); nothing was imported")
    return float(value)


def _whole(where: str, key: str, value: Any, what: str, bounds: tuple[int, int]) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not bounds[0] <= value <= bounds[1]:
        raise UserError(f"{where}: {key} is {json.dumps(value)[:40]}, not {what} (a whole number from {bounds[0]} "
                        f"to {bounds[1]}); nothing was imported")
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
            for key, values in (("exit_codes", codes), ("memory_usage_byte", memory)):
                if len(values) > len(walls):
                    raise UserError(f"{where}: {len(values)} {key} for {len(walls)} times: one per run; nothing "
                                    f"was imported")
            index = len(cells)
            cells.append(ImportedCell(cell_name, jvm, {}, levels=levels))
            for k, wall in enumerate(walls):
                code = codes[k] if k < len(codes) else 0
                rss = memory[k] if k < len(memory) else None
                runs.append(ImportedRun(
                    cell=index, wall_s=wall,
                    exit_code=None if code is None else _whole(where, f"exit_codes[{k}]", code, "an exit code",
                                                               EXIT_CODES),
                    max_rss_bytes=None if rss is None else _whole(where, f"memory_usage_byte[{k}]", rss,
                                                                   "a size in bytes", (0, MAX_BYTES))))
            means[cell_name] = {k: result.get(k) for k in ("mean", "stddev", "median", "user", "system", "min", "max")}
    digest = hashlib.sha256(b"".join(read_bounded(p, "import", MAX_JSON_BYTES) for p in paths)).hexdigest()
    started = min(p.stat().st_mtime for p in paths)
    return ImportedExperiment("hyperfine", name or f"hyperfine import: {', '.join(p.name for p in paths)}",
                              tuple(str(p.resolve()) for p in paths), digest, tuple(cells), tuple(runs), UNKNOWN,
                              {"hyperfine": means}, started)
