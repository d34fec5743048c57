"""Identify a JDK by asking it: properties, VM kind, javac, and which collectors start.

Everything comes from the JDK itself (``java -XshowSettings:properties -version`` and one
``-version`` probe per collector) rather than from directory names, because vendors and
distributions name directories however they like. Results are cached (see cache.py).
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.jdk import azul, openj9
from jvmlab.jdk.cache import JdkCache
from jvmlab.jdk.flagerrors import JVM_BOILERPLATE
from jvmlab.jdk.proc import JavaRun, run_java
from jvmlab.model.jdk import JdkInfo, launcher_name

PROBE_TIMEOUT_S = 30.0
PROBE_WORKERS = 4  # ~6 probes of 50-100 ms each; more threads than that buys nothing on 2 cores

# (reported name, selecting flag). Experimental ones are unlocked for every probe, which is
# harmless on JDKs where they are already product flags.
HOTSPOT_GCS: tuple[tuple[str, str], ...] = (
    ("G1", "-XX:+UseG1GC"),
    ("Parallel", "-XX:+UseParallelGC"),
    ("Serial", "-XX:+UseSerialGC"),
    ("ZGC", "-XX:+UseZGC"),
    ("Shenandoah", "-XX:+UseShenandoahGC"),
    ("Epsilon", "-XX:+UseEpsilonGC"),
)
CMS_GC = ("CMS", "-XX:+UseConcMarkSweepGC")
CMS_LAST_FEATURE = 13  # JDK 14 removed CMS but only warns "Ignoring option" and starts anyway

_PROPERTY = re.compile(r"^ {4}(\S+) = (.*)$")
_RELEASE = re.compile(r'^([A-Z_][A-Z0-9_]*)="?(.*?)"?\s*$')


def java_home_of(path: Path | str) -> Path | None:
    """The real home directory of a JDK given as its home or its ``java`` launcher, else None."""
    candidate = Path(path).expanduser()
    if candidate.is_file() and candidate.name in ("java", "java.exe"):
        home = candidate.resolve().parent.parent
    else:
        mac_home = candidate / "Contents" / "Home"
        home = (mac_home if mac_home.is_dir() else candidate).resolve()
    java = home / "bin" / launcher_name("java")
    if java.is_file() and os.access(java, os.X_OK):
        return home
    return None


def identify(path: Path | str, *, cache: JdkCache | None = None, use_cache: bool = True) -> JdkInfo:
    """Identify the JDK at ``path`` (a home or a java binary); cached per home.

    Raises UserError when ``path`` is not a runnable JDK.
    """
    home = java_home_of(path)
    if home is None:
        raise UserError(
            f"{path} is not a JDK (no executable bin/java); give a JDK home directory or its bin/java"
        )
    cache = JdkCache() if cache is None else cache
    if use_cache:
        cached = cache.get(home, "info")
        if isinstance(cached, dict):
            try:
                return JdkInfo.from_json(cached)
            except (KeyError, TypeError, ValueError):
                pass  # an entry from an older layout: identify afresh
    info = _identify_uncached(home)
    cache.put(home, "info", info.to_json())
    return info


def _identify_uncached(home: Path) -> JdkInfo:
    java = home / "bin" / launcher_name("java")
    run = run_java(java, ["-XshowSettings:properties", "-version"], timeout_s=PROBE_TIMEOUT_S)
    props = parse_properties(run.stderr + "\n" + run.stdout)
    if not run.ok or "java.home" not in props:
        detail = first_message_line(run) or "no java.home reported"
        raise UserError(f"{java} did not start ({detail}); check that this JDK is complete and runnable")
    real_home = normalize_home(Path(props["java.home"]), fallback=home)
    release = read_release(real_home)
    version = props.get("java.runtime.version") or props.get("java.version", "")
    vendor = props.get("java.vendor", "")
    vm = props.get("java.vm.name", "")
    vendor_version = props.get("java.vendor.version", "")
    implementor = release.get("IMPLEMENTOR", "")
    feature = feature_of(props.get("java.specification.version", ""), version)
    kind = vm_kind_of(vm, vendor, vendor_version, implementor)
    if kind == "unknown" and openj9.is_openj9_release(release):
        kind = openj9.KIND
    vm_version = props.get("java.vm.version", "")
    jit, components = vendor_details(kind, run.stderr + "\n" + run.stdout, vm_version, release)
    return JdkInfo(
        home=real_home,
        version=version,
        feature=feature,
        vendor=vendor,
        vm=vm,
        vm_kind=kind,
        has_javac=has_javac(real_home),
        gcs=probe_gcs(real_home / "bin" / launcher_name("java"), feature, kind),
        implementor=implementor,
        vendor_version=vendor_version,
        vm_version=vm_version,
        jit=jit,
        components=components,
    )


def vendor_details(kind: str, version_text: str, vm_version: str,
                   release: dict[str, str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(JIT, named components) for non-HotSpot VMs, read from the ``-version`` banner and release."""
    if kind == openj9.KIND:
        parsed = openj9.parse_version(version_text, vm_version)
        return openj9.JIT, parsed.components() + openj9.release_components(release)
    if kind == azul.KIND:
        return azul.JIT, azul.parse_version(version_text, vm_version).components()
    return "", ()


def parse_properties(text: str) -> dict[str, str]:
    """``key = value`` lines of -XshowSettings:properties (continuation lines are skipped)."""
    props: dict[str, str] = {}
    for line in text.splitlines():
        match = _PROPERTY.match(line)
        if match:
            props[match.group(1)] = match.group(2).strip()
    return props


def normalize_home(java_home: Path, *, fallback: Path) -> Path:
    """JDK 8 reports ``<jdk>/jre`` as java.home; the JDK is its parent (it has javac)."""
    home = java_home.resolve() if java_home.is_dir() else fallback
    if home.name == "jre" and (home.parent / "bin" / "java").is_file():
        return home.parent
    return home


def read_release(home: Path) -> dict[str, str]:
    """KEY="value" pairs of the JDK's ``release`` file; empty when it has none."""
    try:
        text = (home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    pairs: dict[str, str] = {}
    for line in text.splitlines():
        match = _RELEASE.match(line.strip())
        if match:
            pairs[match.group(1)] = match.group(2)
    return pairs


def feature_of(spec_version: str, runtime_version: str) -> int:
    """The feature release: "1.8" -> 8, "17" -> 17; falls back to the runtime version."""
    for text in (spec_version, runtime_version):
        numbers = re.findall(r"\d+", text)
        if not numbers:
            continue
        if numbers[0] == "1" and len(numbers) > 1:
            return int(numbers[1])
        return int(numbers[0])
    raise UserError(f"cannot tell the Java version from {runtime_version!r}; report this JDK to jvmlab")


def vm_kind_of(vm: str, vendor: str, vendor_version: str = "", implementor: str = "") -> str:
    """Classify the VM: "OpenJ9", "Zing" (Azul Prime), "GraalVM", "HotSpot" or "unknown"."""
    vm_lower = vm.lower()
    if openj9.is_openj9(vm):
        return openj9.KIND
    if azul.is_prime(vm, vendor_version):
        return azul.KIND
    if "graalvm" in " ".join((vm, vendor, vendor_version, implementor)).lower():
        return "GraalVM"
    if any(word in vm_lower for word in ("hotspot", "openjdk", "server vm", "client vm")):
        return "HotSpot"
    return "unknown"


def has_javac(home: Path) -> bool:
    javac = home / "bin" / launcher_name("javac")
    return javac.is_file() and os.access(javac, os.X_OK)


def probe_gcs(java: Path, feature: int, vm_kind: str) -> tuple[str, ...]:
    """Collectors that actually start, probed in parallel (one short JVM each)."""
    if vm_kind == azul.KIND:
        return (azul.COLLECTOR,)  # Prime has C4 only; HotSpot's -XX:+UseXGC probes would mislead
    if vm_kind == "OpenJ9":
        probes = [(name, [f"-Xgcpolicy:{name}", "-version"]) for name in openj9.GC_POLICIES]
    else:
        gcs = HOTSPOT_GCS + ((CMS_GC,) if feature <= CMS_LAST_FEATURE else ())
        probes = [(name, ["-XX:+UnlockExperimentalVMOptions", flag, "-version"]) for name, flag in gcs]
    with ThreadPoolExecutor(max_workers=PROBE_WORKERS) as pool:
        runs = list(pool.map(lambda probe: run_java(java, probe[1], timeout_s=PROBE_TIMEOUT_S), probes))
    return tuple(name for (name, args), run in zip(probes, runs, strict=True) if _gc_started(run, args[-2]))


def _gc_started(run: JavaRun, option: str) -> bool:
    """A probe counts only if the JVM started and did not say it ignored or cannot use the option."""
    word = option.split(":", 1)[-1].lstrip("+")  # "UseZGC", "gencon"
    for line in (run.stdout + run.stderr).splitlines():
        if word in line and ("Ignoring option" in line or "not supported" in line):
            return False
    return run.ok


def first_message_line(run: JavaRun) -> str:
    """The first informative line a failed JVM printed (for one-line error messages)."""
    if run.returncode is None:
        return "timed out"
    for line in (run.stderr + "\n" + run.stdout).splitlines():
        line = line.strip()
        if line and line not in JVM_BOILERPLATE:
            return line
    return f"exit code {run.returncode}"
