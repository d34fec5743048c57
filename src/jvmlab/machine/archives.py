"""CDS and AOT-cache preparation per cell: a training run, a check that the archive is used.

A cell's typed preparation (``ArchivePrep``, from a level's or the spec's ``prepare = "cds-archive"``,
or the older ``@cds-archive`` pseudo-flag, parsed at plan time) makes a
dynamic AppCDS archive with ``-XX:ArchiveClassesAtExit`` from a run of the cell's own command
line; the measured runs get ``-XX:SharedArchiveFile``. ``aot-cache`` (JDK 24+) makes an
AOT cache (``-XX:AOTCacheOutput`` on 25+, the record/create pair on 24); measured runs get
``-XX:AOTCache``. Each archive is then checked by a run that fails when it cannot be used
(``-Xshare:on`` / ``-XX:AOTMode=on``) and whose class-load log must show classes from the
"shared objects file". That class must be one of the application's own (from its jars):
the JDK's default CDS archive puts JDK classes there even without ours. A failed archive is
a UserError naming the cell: never a silent fallback to no archive.

What happened is kept as an :class:`~jvmlab.plan.prepare.ArchiveRecord` (size, training
time, the training run's warnings counted by kind, the evidence of use), and each step is
announced on stderr, with a line every ``HEARTBEAT_S`` while a training run lasts.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import zipfile
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.machine import vendor_prepare
from jvmlab.machine.archive_logs import (
    app_class_names,
    loaded_from_archive,
    summarize_warnings,
)
from jvmlab.machine.archive_run import (
    Archive,
    RunContext,
    log_path,
    read_log,
    real_flags,
    run_jvm,
    tail,
    train,
)
from jvmlab.plan.prepare import ArchiveRecord, PreparedCell
from jvmlab.plan.template import AOT, CDS, split_prepare

MIN_FEATURE = {CDS: 13, AOT: 24}  # ArchiveClassesAtExit: JDK 13; AOT cache: JDK 24 (JEP 483)


def requested_kind(pc: PreparedCell, spec_prepare: str | None = None) -> str | None:
    """The preparation a cell asks for: its typed ``prepare`` (set at plan time); a cell built by
    hand with the older ``@kind`` pseudo-flag is parsed the same way, else ``spec_prepare``."""
    if pc.prepare is not None:
        return pc.prepare.kind
    _, prep = split_prepare(pc.cell.name, pc.flags, spec_prepare)
    return prep.kind if prep is not None else None


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
    ctx.notify(f"preparing the {kind} of cell {pc.cell.name!r} ({pc.jdk.describe()}): training run ...")
    started = time.monotonic()
    flags: tuple[str, ...] = (f"-XX:AOTCache={path}",)
    check = ["-XX:AOTMode=on"]
    if kind == CDS:
        steps = {"train": base + [f"-XX:ArchiveClassesAtExit={path}"]}
        flags, check = (f"-XX:SharedArchiveFile={path}",), ["-Xshare:on"]
    elif feature >= 25:
        steps = {"train": base + [f"-XX:AOTCacheOutput={path}"]}
    else:  # JDK 24: record a configuration, then create the cache from it
        conf = path.with_suffix(".aotconf")
        steps = {"record": base + ["-XX:AOTMode=record", f"-XX:AOTConfiguration={conf}"],
                 "create": base + ["-XX:AOTMode=create", f"-XX:AOTConfiguration={conf}", f"-XX:AOTCache={path}"]}
    for step, step_flags in steps.items():
        train(pc, step_flags, ctx, logs, step)
    train_s = time.monotonic() - started
    if not path.is_file() or path.stat().st_size == 0:
        raise UserError(f"cell {pc.cell.name!r}: the {kind} training run did not write {path}; "
                        f"see {log_path(logs, 'train')} (is the folder writable, is there disk space?)")
    started = time.monotonic()
    loaded, from_archive, evidence = _check_used(pc, base + list(flags) + check, path, ctx, kind, logs)
    groups, total = summarize_warnings(read_log(log_path(logs, step)) for step in steps)
    size = path.stat().st_size
    record = ArchiveRecord(
        cell=pc.cell.name, kind=kind, path=str(path.resolve()), size_bytes=size, train_s=round(train_s, 3),
        check_s=round(time.monotonic() - started, 3), steps=tuple(steps),
        logs=tuple(str(log_path(logs, s).resolve()) for s in (*steps, "check", "classes")), warning_lines=total,
        warnings=tuple(groups), app_classes_loaded=loaded, app_classes_from_archive=from_archive,
        evidence=evidence)
    ctx.notify(describe(record))
    return Archive(kind, path, flags, size, record)


def describe(record: ArchiveRecord) -> str:
    """One line for the terminal: size, time, warnings by kind, and the evidence of use."""
    size = f"{record.size_bytes / (1 << 20):.1f} MiB"
    warned = "no warnings" if not record.warning_lines else (
        f"{record.warning_lines} warning line(s): " + "; ".join(f"{g.count} x {g.text}" for g in record.warnings[:3])
        + ("; ..." if len(record.warnings) > 3 else ""))
    return (f"{record.kind} for cell {record.cell!r}: {size}, trained in {record.train_s:.1f} s, {warned}; "
            f"used: {record.app_classes_from_archive} of {record.app_classes_loaded} application classes "
            f"loaded from it")


def _check_used(pc: PreparedCell, flags: list[str], path: Path, ctx: RunContext, kind: str,
                logs: Path) -> tuple[int, int, str]:
    """Run once where an unusable archive is fatal, and look for the application's own
    classes loaded from it; returns (application classes loaded, of them from the
    archive, one class-load line as evidence)."""
    classes_log = log_path(logs, "classes")
    classes_log.unlink(missing_ok=True)
    log = log_path(logs, "check")
    code = run_jvm(pc, flags + [f'-Xlog:class+load=info:file="{classes_log}"'], ctx, log)
    if code != 0:
        raise UserError(f"cell {pc.cell.name!r}: the {kind} {path} cannot be used: {tail(log)} "
                        f"(full output: {log})")
    app = app_class_names(pc.launch, ctx.cwd)
    loaded, shared, evidence = loaded_from_archive(read_log(classes_log), app, pc.launch.main_class)
    if not shared:
        what = f"{len(app)} classes of {pc.launch.jar or ', '.join(pc.launch.classpath) or 'the application'}"
        raise UserError(f"cell {pc.cell.name!r}: the {kind} {path} was mapped but none of the application's "
                        f"classes came from it ({loaded} of the {what} were loaded, all from elsewhere; "
                        f"see {classes_log})")
    return loaded, shared, evidence


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
