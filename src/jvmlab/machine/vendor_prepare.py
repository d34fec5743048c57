"""Per-cell preparation for non-HotSpot JVMs: OpenJ9's shared classes cache and Prime's ReadyNow.

They are the counterparts of the CDS archive and the AOT cache (:mod:`jvmlab.machine.archives`)
and use the same seam: a cell's typed preparation (a level's ``prepare = "shared-classes"`` /
``"readynow"``, its older ``@kind`` pseudo-flag, or the spec's ``prepare``) asks for a training run
of the cell's own command line, a check that what it made
is really used, and flags for the measured runs. A failed step is a UserError naming the cell,
never a silent fallback to an unprepared JVM.

- ``shared-classes`` (OpenJ9, ``-Xshareclasses:name=...,cacheDir=...``): the training run fills
  a cache of its own in the artifacts folder; then ``-Xshareclasses:...,printStats`` must report
  classes in it (``# ROMClasses`` > 0). Those statistics are the "took effect" evidence and are
  kept beside the cache (``*.evidence.json``).
- ``readynow`` (Azul Prime): the training run writes a profile log (``-XX:ProfileLogOut``);
  a check run reads it (``-XX:ProfileLogIn``) with ``-XX:+PrintFlagsFinal`` and must show the
  flag set from the command line and no warning about the profile. This shows that the profile
  was read without complaint; it does not count the compilations ReadyNow made from it (Azul
  documents no output for that).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.machine.archive_run import (
    Archive,
    RunContext,
    log_path,
    real_flags,
    run_jvm,
    tail,
    train,
)
from jvmlab.plan.prepare import PreparedCell

SHARED_CLASSES = "shared-classes"
READYNOW = "readynow"
KINDS = (SHARED_CLASSES, READYNOW)
NEEDS_VM = {SHARED_CLASSES: "OpenJ9", READYNOW: "Zing"}
VM_LABEL = {"OpenJ9": "an OpenJ9 (Semeru) JDK", "Zing": "an Azul Prime (Zing) JDK"}

_STAT = re.compile(r"^\s*(#\s*ROMClasses|#\s*AOT Methods|cache size|free bytes)\s*=\s*(-?\d+)\s*$", re.MULTILINE)
_FULL = re.compile(r"Cache is (\d+)% (?:soft )?full")
# JDK 11+ tables end in "{command line}"; JDK 8 (Zing 8) tables mark a changed value with ":=".
_PROFILE_ROW = re.compile(r"^\s*\S+\s+ProfileLogIn\s+(?:=\s*(\S+).*\{command line\}|:=\s*(\S+))", re.MULTILINE)


@dataclass(frozen=True)
class SharedCacheStats:
    """``-Xshareclasses:printStats`` figures; None where the output had no such line."""

    rom_classes: int | None
    aot_methods: int | None
    cache_size_bytes: int | None
    free_bytes: int | None
    full_percent: int | None

    @property
    def used_bytes(self) -> int | None:
        if self.cache_size_bytes is None or self.free_bytes is None:
            return None
        return self.cache_size_bytes - self.free_bytes


def parse_print_stats(text: str) -> SharedCacheStats:
    values: dict[str, int] = {}
    for match in _STAT.finditer(text):
        key = re.sub(r"\s+", " ", match.group(1))
        values.setdefault(key, int(match.group(2)))
    full = _FULL.search(text)
    return SharedCacheStats(
        rom_classes=values.get("# ROMClasses"), aot_methods=values.get("# AOT Methods"),
        cache_size_bytes=values.get("cache size"), free_bytes=values.get("free bytes"),
        full_percent=int(full.group(1)) if full else None,
    )


def shared_classes_option(cache_dir: Path, name: str, *extra: str) -> str:
    """One ``-Xshareclasses`` option; the cache lives in our artifacts, never in /tmp's default."""
    return ",".join([f"-Xshareclasses:name={name}", f"cacheDir={cache_dir}", *extra])


def cache_name(path: Path) -> str:
    """A cache name OpenJ9 accepts (letters, digits, - and _), unique per archive path."""
    return "jvmlab-" + hashlib.sha256(str(path).encode()).hexdigest()[:12]


def profile_was_read(output: str, profile: Path) -> str | None:
    """None when PrintFlagsFinal shows ProfileLogIn=<profile> from the command line; else why not."""
    row = _PROFILE_ROW.search(output)
    if row is None:
        return "the JVM's flag table has no ProfileLogIn set from the command line"
    value = row.group(1) or row.group(2)
    if value != str(profile):
        return f"ProfileLogIn is {value}, not {profile}"
    complaints = [line.strip() for line in output.splitlines()
                  if "profile" in line.lower() and ("warning" in line.lower() or "error" in line.lower())]
    return f"the JVM warned: {complaints[0][:200]}" if complaints else None


def make(pc: PreparedCell, kind: str, path: Path, ctx: RunContext, log_dir: Path | None = None) -> Archive:
    """Train and check one cell's shared classes cache or ReadyNow profile (UserError if unusable)."""
    vm = NEEDS_VM[kind]
    if pc.jdk.vm_kind != vm:
        raise UserError(f"cell {pc.cell.name!r}: {kind} needs {VM_LABEL[vm]}, but this cell runs "
                        f"{pc.jdk.describe()} ({pc.jdk.vm_kind}); exclude it in [matrix] or drop @{kind}")
    logs = (log_dir or path.parent) / path.name
    if kind == SHARED_CLASSES:
        return _shared_classes(pc, path, ctx, logs)
    return _readynow(pc, path, ctx, logs)


def _shared_classes(pc: PreparedCell, path: Path, ctx: RunContext, logs: Path) -> Archive:
    cache_dir = path.with_suffix(".scc")
    shutil.rmtree(cache_dir, ignore_errors=True)  # a cache from an earlier run would hide a failed training
    cache_dir.mkdir(parents=True, exist_ok=True)
    name = cache_name(path)
    option = shared_classes_option(cache_dir, name)
    base = real_flags(pc)
    train(pc, base + [option], ctx, logs, "train")
    stats_log = log_path(logs, "printStats")
    argv = [str(pc.jdk.java), shared_classes_option(cache_dir, name, "printStats")]
    _run_argv(argv, ctx, stats_log, pc)  # a cache utility: it prints and exits, its exit code says nothing
    text = stats_log.read_text(encoding="utf-8", errors="replace")
    stats = parse_print_stats(text)
    if not stats.rom_classes:
        raise UserError(f"cell {pc.cell.name!r}: after the training run the shared classes cache {name} holds "
                        f"no classes (printStats: {tail(stats_log)}); see {stats_log}")
    _write_evidence(path, {"kind": SHARED_CLASSES, "cache_dir": str(cache_dir), "name": name,
                           "print_stats": asdict(stats)})
    return Archive(SHARED_CLASSES, cache_dir, (option,), stats.used_bytes or 0)


def _readynow(pc: PreparedCell, path: Path, ctx: RunContext, logs: Path) -> Archive:
    profile = path.with_suffix(".profile")
    profile.unlink(missing_ok=True)
    base = real_flags(pc)
    train(pc, base + [f"-XX:ProfileLogOut={profile}"], ctx, logs, "train")
    if not profile.is_file() or profile.stat().st_size == 0:
        raise UserError(f"cell {pc.cell.name!r}: the ReadyNow training run wrote no profile log {profile}; "
                        f"see {log_path(logs, 'train')} (did the workload run long enough to compile?)")
    flag = f"-XX:ProfileLogIn={profile}"
    check_log = log_path(logs, "check")
    code = run_jvm(pc, base + [flag, "-XX:+PrintFlagsFinal"], ctx, check_log)
    output = check_log.read_text(encoding="utf-8", errors="replace")
    why_not = f"exit code {code}" if code != 0 else profile_was_read(output, profile)
    if why_not is not None:
        raise UserError(f"cell {pc.cell.name!r}: the ReadyNow profile {profile} was not taken up ({why_not}); "
                        f"see {check_log}")
    _write_evidence(path, {"kind": READYNOW, "profile": str(profile), "profile_bytes": profile.stat().st_size,
                           "check": "ProfileLogIn {command line} in PrintFlagsFinal, no profile warning"})
    return Archive(READYNOW, profile, (flag,), profile.stat().st_size)


def _run_argv(argv: list[str], ctx: RunContext, log: Path, pc: PreparedCell) -> int:
    try:
        with open(log, "wb") as out:
            return subprocess.run(argv, cwd=ctx.cwd, env=ctx.env, stdout=out, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=ctx.timeout_s, check=False).returncode
    except subprocess.TimeoutExpired:
        raise UserError(f"cell {pc.cell.name!r}: printStats took longer than {ctx.timeout_s:.0f} s") from None
    except OSError as err:
        raise UserError(f"cell {pc.cell.name!r}: cannot run {argv[0]} ({err})") from None


def _write_evidence(path: Path, body: dict[str, object]) -> None:
    path.with_suffix(".evidence.json").write_text(json.dumps(body, indent=2), encoding="utf-8")
