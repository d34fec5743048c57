"""CDS and AOT-cache preparation per cell: a training run, a check that the archive is used.

``prepare = "cds-archive"`` (or a factor level's ``@cds-archive`` pseudo-flag) makes a
dynamic AppCDS archive with ``-XX:ArchiveClassesAtExit`` from a run of the cell's own command
line; the measured runs get ``-XX:SharedArchiveFile``. ``aot-cache`` (JDK 24+) makes an
AOT cache (``-XX:AOTCacheOutput`` on 25+, the record/create pair on 24); measured runs get
``-XX:AOTCache``. Each archive is then checked by a run that fails when it cannot be used
(``-Xshare:on`` / ``-XX:AOTMode=on``) and whose class-load log must show classes from the
"shared objects file". A failed archive is a UserError naming the cell: never a silent
fallback to no archive.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.machine import vendor_prepare
from jvmlab.plan.prepare import PREPARE_MARK, PreparedCell

CDS = "cds-archive"
AOT = "aot-cache"
KINDS = (CDS, AOT, *vendor_prepare.KINDS)  # + OpenJ9 shared classes, Prime ReadyNow
MIN_FEATURE = {CDS: 13, AOT: 24}  # ArchiveClassesAtExit: JDK 13; AOT cache: JDK 24 (JEP 483)
SHARED_SOURCE = "source: shared objects file"
TAIL_CHARS = 600


@dataclass(frozen=True)
class RunContext:
    """How the training and check runs start: like the measured runs."""

    cwd: Path
    env: dict[str, str]
    timeout_s: float


@dataclass(frozen=True)
class Archive:
    """A made and checked archive; ``flags`` replace the cell's marker in measured runs."""

    kind: str
    path: Path
    flags: tuple[str, ...]
    size_bytes: int


def requested_kind(pc: PreparedCell, spec_prepare: str | None) -> str | None:
    """The preparation a cell asks for: its ``@`` pseudo-flag, else the spec-wide ``prepare``."""
    marks = {f.removeprefix(PREPARE_MARK) for f in pc.flags if f.startswith(PREPARE_MARK)}
    unknown = marks - set(KINDS)
    if unknown:
        raise UserError(f"cell {pc.cell.name!r}: unknown preparation @{sorted(unknown)[0]}; "
                        f"use {' or '.join('@' + k for k in KINDS)}")
    if len(marks) > 1:
        raise UserError(f"cell {pc.cell.name!r} asks for {' and '.join('@' + m for m in sorted(marks))}; "
                        f"pick one per cell")
    if marks:
        return marks.pop()
    return spec_prepare


def real_flags(pc: PreparedCell) -> list[str]:
    return [f for f in pc.flags if not f.startswith(PREPARE_MARK)]


def archive_path(root: Path, pc: PreparedCell, kind: str, key: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", pc.cell.name).strip("_")[:80]
    folder = "cds" if kind == CDS else "aot"
    return root / folder / f"{key}-{pc.cell.index}-{safe}.{'jsa' if kind == CDS else 'aot'}"


def make_archive(pc: PreparedCell, kind: str, path: Path, ctx: RunContext, log_dir: Path | None = None) -> Archive:
    """Train, then check; raises UserError naming the cell when either fails.

    Logs of each step go beside the archive (or to ``log_dir``) and are kept as artifacts."""
    if kind in vendor_prepare.KINDS:
        return vendor_prepare.make(pc, kind, path, ctx, log_dir)
    logs = (log_dir or path.parent) / path.name
    feature = pc.jdk.feature
    if pc.jdk.vm_kind != "HotSpot" or feature < MIN_FEATURE[kind]:
        raise UserError(f"cell {pc.cell.name!r}: {kind} needs a HotSpot JDK {MIN_FEATURE[kind]}+, "
                        f"but this cell runs {pc.jdk.describe()}; exclude it in [matrix] or drop @{kind}")
    path.unlink(missing_ok=True)
    base = real_flags(pc)
    if kind == CDS:
        _train(pc, base + [f"-XX:ArchiveClassesAtExit={path}"], ctx, logs, "train")
        flags = (f"-XX:SharedArchiveFile={path}",)
        check = ["-Xshare:on"]
    elif feature >= 25:
        _train(pc, base + [f"-XX:AOTCacheOutput={path}"], ctx, logs, "train")
        flags = (f"-XX:AOTCache={path}",)
        check = ["-XX:AOTMode=on"]
    else:  # JDK 24: record a configuration, then create the cache from it
        conf = path.with_suffix(".aotconf")
        _train(pc, base + ["-XX:AOTMode=record", f"-XX:AOTConfiguration={conf}"], ctx, logs, "record")
        _train(pc, base + ["-XX:AOTMode=create", f"-XX:AOTConfiguration={conf}", f"-XX:AOTCache={path}"],
               ctx, logs, "create")
        flags = (f"-XX:AOTCache={path}",)
        check = ["-XX:AOTMode=on"]
    if not path.is_file() or path.stat().st_size == 0:
        raise UserError(f"cell {pc.cell.name!r}: the {kind} training run did not write {path}; "
                        f"see {_log(logs, 'train')} (is the folder writable, is there disk space?)")
    _check_used(pc, base + list(flags) + check, path, ctx, kind, logs)
    return Archive(kind, path, flags, path.stat().st_size)


def _log(path: Path, step: str) -> Path:
    return path.with_name(f"{path.name}.{step}.log")


def _run(pc: PreparedCell, flags: list[str], ctx: RunContext, log: Path) -> int:
    argv = pc.launch.argv(pc.jdk, flags)
    try:
        with open(log, "wb") as out:
            return subprocess.run(argv, cwd=ctx.cwd, env=ctx.env, stdout=out, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=ctx.timeout_s, check=False).returncode
    except subprocess.TimeoutExpired:
        raise UserError(f"cell {pc.cell.name!r}: the archive run took longer than {ctx.timeout_s:.0f} s; "
                        f"raise [run] timeout") from None
    except OSError as err:
        raise UserError(f"cell {pc.cell.name!r}: cannot run the archive training ({err}); "
                        f"is the artifacts folder writable?") from None


def _train(pc: PreparedCell, flags: list[str], ctx: RunContext, path: Path, step: str) -> None:
    log = _log(path, step)
    code = _run(pc, flags, ctx, log)
    if code != 0:
        raise UserError(f"cell {pc.cell.name!r}: archive {step} run exited with {code}: {_tail(log)} "
                        f"(full output: {log})")


def _check_used(pc: PreparedCell, flags: list[str], path: Path, ctx: RunContext, kind: str,
                logs: Path) -> None:
    """Run once where an unusable archive is fatal, and look for classes loaded from it."""
    classes_log = _log(logs, "classes")
    classes_log.unlink(missing_ok=True)
    log = _log(logs, "check")
    code = _run(pc, flags + [f'-Xlog:class+load=info:file="{classes_log}"'], ctx, log)
    if code != 0:
        raise UserError(f"cell {pc.cell.name!r}: the {kind} {path} cannot be used: {_tail(log)} "
                        f"(full output: {log})")
    loaded = classes_log.read_text(encoding="utf-8", errors="replace") if classes_log.is_file() else ""
    want = f"{pc.launch.main_class} {SHARED_SOURCE}" if pc.launch.main_class else SHARED_SOURCE
    if kind == CDS and not pc.launch.main_class:
        want = f"{SHARED_SOURCE} (top)"  # the dynamic archive's own layer
    if want not in loaded:
        raise UserError(f"cell {pc.cell.name!r}: the {kind} {path} was mapped but no class came from it "
                        f"(looked for {want!r} in {classes_log})")


def _tail(log: Path) -> str:
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no output)"
    text = " | ".join(line.strip() for line in text.strip().splitlines()[-6:])
    return text[-TAIL_CHARS:] or "(no output)"


def jar_of_folder(folder: Path, jars_dir: Path) -> Path:
    """A jar of a classes folder: CDS archives classes from jars only, never from folders.

    Named by a hash of the folder's files (names, sizes, mtimes) so it is built once.
    """
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    digest = hashlib.sha256(str(folder.resolve()).encode())
    for p in files:
        st = p.stat()
        digest.update(f"{p.relative_to(folder)}:{st.st_size}:{st.st_mtime_ns}".encode())
    jar = jars_dir / f"{folder.name}-{digest.hexdigest()[:12]}.jar"
    if jar.is_file():
        return jar
    jars_dir.mkdir(parents=True, exist_ok=True)
    partial = jar.with_name(f"{jar.name}.partial-{os.getpid()}")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nCreated-By: jvmlab\r\n\r\n")
        for p in files:
            zf.write(p, p.relative_to(folder).as_posix())
    partial.rename(jar)
    return jar
