"""The built-in workloads: what they are, and how to get runnable classes for a runtime.

``prepare_builtin("chunkgen", jdk)`` returns a classpath and main class the runner can start
with ``jdk``. Classes are compiled once per (source hash, target release) and cached (see
:mod:`jvmlab.workloads.cache`); a runtime without javac gets classes built by another JDK's
javac at a release it can load.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from jvmlab.errors import UserError, did_you_mean
from jvmlab.model.jdk import JdkInfo
from jvmlab.workloads import cache, javac
from jvmlab.workloads.javac import LOWEST_RELEASE, Compiler, ReleaseUnsupported

# Bump when the way classes are built changes (flags, layout) so old caches are not reused.
_BUILD_FORMAT = "1"


@dataclass(frozen=True)
class BuiltinSpec:
    """One built-in workload as listed by ``jvmlab workloads``."""

    name: str
    main_class: str
    description: str
    default_args: tuple[str, ...] = ()
    progress_regex: str | None = None  # named group ``units``: cumulative count


@dataclass(frozen=True)
class BuiltinWorkload:
    """A built-in workload ready to start: ``java -cp classpath main_class *args``."""

    name: str
    classpath: Path
    main_class: str
    default_args: tuple[str, ...]
    progress_regex: str | None
    description: str
    release: int | None = None  # class-file target release (8 -> major version 52)
    source_hash: str = ""  # identifies the exact sources, for provenance


_SPECS: tuple[BuiltinSpec, ...] = (
    BuiltinSpec("hello", "JvmlabHello", "prints 'Hello, jvmlab' and exits: JVM startup/shutdown cost"),
    BuiltinSpec("hellostream", "JvmlabHelloStream",
                "a few stream pipelines and lambdas, then exits: startup cost of lambda/stream machinery"),
    BuiltinSpec("pretouch", "JvmlabPretouch",
                "prints free/total physical memory and heap committed/max/free, then exits: heap "
                "commit and pre-touch effects", ()),
    BuiltinSpec("tlbsort", "JvmlabTlbSort",
                "fills an int[] of --mb MiB, walks it with --walk-m million dependent random reads, heap-sorts "
                "a copy (poor locality) and Arrays.sorts it (good locality): page size / TLB effects; metrics "
                "fill_ms, walk_ns, heapsort_ms, arrayssort_ms",
                ("--mb", "64", "--seed", "42")),
    BuiltinSpec("chunkgen", "JvmlabChunkGen",
                "multi-threaded, allocation-heavy Minecraft-like chunk generator with a capped retained "
                "set: GC throughput and pauses; prints progress every second, metrics chunks, chunks_per_s",
                ("--threads", "2", "--seconds", "10", "--retain-mb", "64", "--chunk-kb", "64"),
                r"progress (?P<units>\d+) chunks"),
    BuiltinSpec("integral", "JvmlabIntegral",
                "Simpson's rule for the integral of e^x on [0, 1]: a tight JIT-bound loop; metric integral_ms",
                ("--steps", "50000000")),
    BuiltinSpec("hold", "JvmlabHold",
                "holds a known live set (--live-mb, default 64) and allocates --alloc-mb of short-lived "
                "garbage around it: minimum heap and heap sweeps; metric hold_ms",
                ("--live-mb", "64", "--alloc-mb", "2048")),
    BuiltinSpec("httpserver", "JvmlabHttpServer",
                "HTTP server on 127.0.0.1 (com.sun.net.httpserver): GET /work allocates --alloc-kb and keeps a "
                "capped retained set, /health answers ok; a server workload for [load] (docs/servers.md)",
                ("--port", "{port}")),
    BuiltinSpec("loadgen", "JvmlabLoad",
                "jvmlab's HTTP/1.1 load generator (keep-alive, closed-loop or fixed-rate with coordinated-"
                "omission correction, log-bucketed histograms); the default client of [load] phases",
                ("--url", "http://127.0.0.1:{port}/work", "--duration-s", "5")),
    BuiltinSpec("gctrouble", "JvmlabGcTrouble",
                "makes one GC problem on purpose (--mode explicit, humongous, fill, metaspace, churn) so "
                "that `jvmlab gc analyze` shows its finding; metric trouble_ms (docs/gclog.md, Findings)",
                ("--mode", "explicit")),
    BuiltinSpec("busy", "JvmlabBusy",
                "test helper: sleeps/spins --ms, optional --ready-after-ms, --exit CODE, --hang, --oom; "
                "metric busy_ms", ("--ms", "100")),
)


def list_builtins() -> list[BuiltinSpec]:
    """All built-in workloads, in a stable order."""
    return list(_SPECS)


def get_spec(name: str) -> BuiltinSpec:
    """The spec for ``name``; UserError with a suggestion when there is no such built-in."""
    for spec in _SPECS:
        if spec.name == name:
            return spec
    names = [s.name for s in _SPECS]
    raise UserError(f"unknown built-in workload {name!r}{did_you_mean(name, names)}; "
                    f"built-ins are: {', '.join(names)}")


def prepare_builtin(name: str, jdk: JdkInfo, cache_dir: Path | None = None,
                    compilers: Sequence[JdkInfo] = ()) -> BuiltinWorkload:
    """Return the built-in workload ``name`` compiled for running on ``jdk``.

    ``cache_dir`` is the jvmlab cache root (default: see ``jvmlab.paths.cache_root``).
    ``compilers`` are other JDKs whose javac may build the classes when ``jdk`` has none;
    ``javac`` on PATH is the last resort. Safe to call from several threads and processes.
    """
    spec = get_spec(name)
    if jdk.feature < LOWEST_RELEASE:
        raise UserError(f"{jdk.home} is Java {jdk.feature}; the built-in workloads need Java "
                        f"{LOWEST_RELEASE} or newer: pick a newer JDK")
    sources = _read_sources()
    digest = source_hash(sources)
    workloads = cache.workloads_dir(cache_dir)
    build = _find_build(workloads, digest, jdk.feature)
    if build is None:
        with cache.locked(workloads, digest):
            build = _find_build(workloads, digest, jdk.feature) or _compile(
                workloads, digest, sources, jdk, compilers)
    release = int(build.name.rsplit("-r", 1)[1])
    return BuiltinWorkload(spec.name, build / "classes", spec.main_class, spec.default_args,
                           spec.progress_regex, spec.description, release, digest)


def source_hash(sources: dict[str, bytes]) -> str:
    """A short hash of all sources (and the build format): the cache key with the release."""
    h = hashlib.sha256(_BUILD_FORMAT.encode())
    for file_name in sorted(sources):
        h.update(b"\0" + file_name.encode() + b"\0" + sources[file_name])
    return h.hexdigest()[:16]


def _read_sources() -> dict[str, bytes]:
    """The shipped Java sources by file name (works from a wheel or a source checkout)."""
    folder = resources.files("jvmlab.workloads") / "java"
    found = {item.name: item.read_bytes() for item in folder.iterdir() if item.name.endswith(".java")}
    missing = [s.main_class for s in _SPECS if f"{s.main_class}.java" not in found]
    if missing:
        raise UserError(f"jvmlab is installed without its workload sources ({', '.join(missing)}); "
                        f"reinstall jvmlab")
    return found


def _find_build(workloads: Path, digest: str, runtime_feature: int) -> Path | None:
    """An already published build this runtime can load (lowest release first)."""
    for release in range(LOWEST_RELEASE, runtime_feature + 1):
        build = cache.build_dir(workloads, digest, release)
        if cache.is_complete(build, [s.main_class for s in _SPECS]):
            return build
        if build.exists():  # left broken by hand or a crash of an old version
            cache.discard(build)
    return None


def _compile(workloads: Path, digest: str, sources: dict[str, bytes], runtime: JdkInfo,
             compilers: Sequence[JdkInfo]) -> Path:
    """Compile with the first javac that can target a release ``runtime`` loads; publish it."""
    found = javac.find_compilers(runtime, compilers)
    if not found:
        raise UserError(f"no javac found to build the built-in workloads for {runtime.home}: "
                        f"install a JDK with javac (not just a JRE) or put its javac on PATH")
    for compiler in found:
        for release in javac.candidate_releases(compiler, runtime.feature):
            built = _try_compile(workloads, digest, sources, compiler, release)
            if built is not None:
                return built
    tried = ", ".join(f"{c.javac} (Java {c.feature})" for c in found)
    raise UserError(f"no javac can build classes that Java {runtime.feature} runs (tried {tried}); "
                    f"install a JDK whose javac supports --release {runtime.feature} or lower")


def _try_compile(workloads: Path, digest: str, sources: dict[str, bytes], compiler: Compiler,
                 release: int) -> Path | None:
    """One compile attempt in a temporary directory; None when javac rejects the release."""
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{digest}-", dir=workloads))
    try:
        src = tmp / "src"
        src.mkdir()
        paths = []
        for file_name, content in sorted(sources.items()):
            (src / file_name).write_bytes(content)
            paths.append(Path("src") / file_name)
        try:  # relative paths keep build.json true after the rename
            argv = javac.compile_sources(compiler, release, paths, Path("classes"), cwd=tmp)
        except ReleaseUnsupported:
            cache.discard(tmp)
            return None
        record = {"javac": str(compiler.javac), "javac_feature": compiler.feature,
                  "origin": compiler.origin, "release": release, "source_hash": digest, "argv": argv}
        (tmp / "build.json").write_text(json.dumps(record, indent=2) + "\n")
        tmp.chmod(0o755)  # mkdtemp makes it private; the cache may be shared read-only
    except BaseException:
        cache.discard(tmp)
        raise
    return cache.publish(tmp, cache.build_dir(workloads, digest, release))
