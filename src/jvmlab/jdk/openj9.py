"""Eclipse OpenJ9 (IBM Semeru): identification details, GC policies and the flag check.

OpenJ9 has no ``-XX:+PrintFlagsFinal``, and by default it silently ignores ``-XX:`` options it
does not know (``-XX:+IgnoreUnrecognizedXXColonOptions`` is on), so a HotSpot-style check would
accept any typo. The check here therefore starts the JVM with
``-XX:-IgnoreUnrecognizedXXColonOptions`` (an unknown ``-XX:`` option then stops the JVM with
``JVMJ9VM007E Command-line option unrecognised: ...``, as unknown ``-X`` options always do) and
``-verbose:sizes`` (the memory sizes the VM settled on, OpenJ9's nearest thing to a final flag
table). A refusal becomes the same one-line error as on HotSpot (``flags.rejection_line``).

Everything here is written from OpenJ9's documentation and recorded outputs (see
``tests/data/jvms/SOURCES.md``); no OpenJ9 JVM was available where it was written.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from jvmlab.errors import UserError
from jvmlab.jdk.flagcheck import FlagCheck
from jvmlab.jdk.flagerrors import Rejection, jvm_message
from jvmlab.jdk.proc import JavaRun
from jvmlab.model.jdk import JdkInfo

KIND = "OpenJ9"
JIT = "Testarossa"  # OpenJ9's JIT (with AOT through the shared classes cache)
REPORT_UNKNOWN_XX = "-XX:-IgnoreUnrecognizedXXColonOptions"
VERBOSE_SIZES = "-verbose:sizes"
GC_POLICIES = ("gencon", "balanced", "optavgpause", "optthruput", "metronome", "nogc")
GC_FLAGS = {policy: f"-Xgcpolicy:{policy}" for policy in GC_POLICIES}  # documented in docs/jdks.md

_COMPONENT = re.compile(r"^\s*(OpenJ9|OMR|JCL|OpenJDK|IBM)\s+-\s+(\S+)(?:\s+based on\s+([^)\s]+))?")
_VM_BUILD = re.compile(r"\(build\s+([^,]+),")
_OPENJ9_VERSION = re.compile(r"openj9-(\d+\.\d+\.\d+)")
_UNRECOGNISED = re.compile(r"JVMJ9VM007E Command-line option unrecognised:\s*(\S+)")
_J9_MESSAGE = re.compile(r"\bJVM[A-Z0-9]{2,6}\d{3}([EWI])\b\s*(.*)")
_SIZE_LINE = re.compile(r"^\s*-X(?P<name>[a-z]+(?::[a-z]+)?)(?P<value>\d+[KMGT]?|:\S+)\s+(?P<what>\S.*)$")

# Options OpenJ9 documents, for "did you mean" on a refused option (the VM gives no table).
KNOWN_OPTIONS = (
    "-Xgcpolicy:gencon", "-Xgcpolicy:balanced", "-Xgcpolicy:optavgpause", "-Xgcpolicy:optthruput",
    "-Xgcpolicy:metronome", "-Xgcpolicy:nogc", "-Xshareclasses", "-Xshareclasses:none", "-Xscmx",
    "-Xquickstart", "-Xtune:virtualized", "-Xtune:throughput", "-Xverbosegclog", "-Xmx", "-Xms", "-Xmn",
    "-Xmns", "-Xmnx", "-Xmos", "-Xmox", "-Xss", "-Xint", "-Xjit", "-Xnojit", "-Xaot", "-Xnoaot",
    "-Xlp:objectheap:pagesize=", "-Xlp:codecache:pagesize=", "-Xgcthreads", "-Xcompressedrefs",
    "-Xnocompressedrefs", "-Xcheck:jni", "-Xcheck:memory", "-Xdump", "-Xtrace", "-Xsoftmx",
    "-XX:+IdleTuningGcOnIdle", "-XX:+IdleTuningCompactOnIdle", "-XX:+UseContainerSupport",
    "-XX:MaxRAMPercentage=", "-XX:InitialRAMPercentage=", "-XX:+ShareAnonymousClasses",
    "-XX:+ClassRelationshipVerifier", "-XX:+PortableSharedCache", "-XX:+TransparentHugePage",
    "-XX:-TransparentHugePage", "-XX:+JITServerLogConnections", "-XX:+UseJITServer",
    "-XX:+CompactStrings", "-XX:+AlwaysPreTouch", "-XX:ParallelGCThreads=", "-XX:+UseGCStartupHints",
    "-XX:+EnableCRIUSupport", "-XX:+ExitOnOutOfMemoryError", "-XX:+HeapDumpOnOutOfMemoryError",
    "-XX:+IgnoreUnrecognizedVMOptions", "-XX:-IgnoreUnrecognizedXXColonOptions",
)


@dataclass(frozen=True)
class OpenJ9Version:
    """What ``java -version`` says about the OpenJ9 parts; "" for a part it does not name."""

    openj9: str  # release, e.g. "0.41.0" ("" for builds that print a bare hash)
    openj9_commit: str
    omr_commit: str
    jcl_commit: str
    based_on: str  # the OpenJDK tag, e.g. "jdk-17.0.9+9"
    vm_build: str  # "openj9-0.41.0", or "25+36-openj9-0.55.0" from 0.55 on

    def components(self) -> tuple[tuple[str, str], ...]:
        pairs = (("OpenJ9", self.openj9 or self.openj9_commit), ("OpenJ9 commit", self.openj9_commit),
                 ("OMR", self.omr_commit), ("JCL", self.jcl_commit), ("based on", self.based_on))
        return tuple((name, value) for name, value in pairs if value)


def is_openj9(vm: str) -> bool:
    """``java.vm.name`` of OpenJ9 and of IBM's J9 ("Eclipse OpenJ9 VM", "IBM J9 VM")."""
    lower = vm.lower()
    return "openj9" in lower or "j9" in lower.split()


def parse_version(text: str, vm_version: str = "") -> OpenJ9Version:
    """The component lines of ``java -version`` (``OpenJ9   - 461bf3c70`` ...) and the VM build.

    ``vm_version`` (``java.vm.version``) is used when the banner is missing.
    """
    parts: dict[str, str] = {}
    based_on = ""
    build = ""
    for line in text.splitlines():
        match = _COMPONENT.match(line)
        if match:
            parts.setdefault(match.group(1), match.group(2))
            based_on = match.group(3) or based_on
        elif "OpenJ9 VM" in line or "J9 VM" in line:
            found = _VM_BUILD.search(line)
            build = found.group(1).strip() if found else build
    build = build or vm_version
    release = _OPENJ9_VERSION.search(build) or _OPENJ9_VERSION.search(vm_version)
    return OpenJ9Version(
        openj9=release.group(1) if release else "", openj9_commit=parts.get("OpenJ9", ""),
        omr_commit=parts.get("OMR", ""), jcl_commit=parts.get("JCL", parts.get("OpenJDK", "")),
        based_on=based_on, vm_build=build,
    )


def release_components(release: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """OpenJ9 facts in a Semeru ``release`` file: JVM_VARIANT, JVM_VERSION and the SOURCE hashes."""
    out = []
    if release.get("JVM_VARIANT"):
        out.append(("JVM_VARIANT", release["JVM_VARIANT"]))
    if release.get("JVM_VERSION"):
        out.append(("JVM_VERSION", release["JVM_VERSION"]))
    for item in release.get("SOURCE", "").split():
        name, _, value = item.partition(":")
        if name in ("OpenJ9", "OMR") and value:
            out.append((f"{name} source", value))
    return tuple(out)


def is_openj9_release(release: dict[str, str]) -> bool:
    return release.get("JVM_VARIANT", "").lower() == "openj9"


# -- the flag check ---------------------------------------------------------------------------

RunJava = Callable[[JdkInfo, list[str]], JavaRun]


def read_rejection(run: JavaRun, flags: Sequence[str]) -> Rejection:
    """OpenJ9's refusal: the JVMJ9... message, the culprit and a close documented option."""
    text = run.stderr + "\n" + run.stdout
    if run.returncode is None:
        return Rejection("the JVM did not finish starting in time", None, None, None)
    messages = [m.group(2).strip() for m in _J9_MESSAGE.finditer(text) if m.group(1) == "E"]
    message = "; ".join(dict.fromkeys(messages)) or jvm_message(text)
    unrecognised = _UNRECOGNISED.search(text)
    flag = None
    if unrecognised:
        flag = next((f for f in flags if f == unrecognised.group(1)), unrecognised.group(1))
    else:
        verbatim = [f for f in flags if len(f) > 2 and f in text]
        flag = max(verbatim, key=len) if verbatim else None
    suggestion = None
    if flag is not None and unrecognised:
        close = difflib.get_close_matches(flag, KNOWN_OPTIONS, n=1, cutoff=0.6)
        suggestion = close[0] if close and close[0] != flag else None
    return Rejection(message, flag, suggestion, None)


def final_sizes(text: str) -> dict[str, str]:
    """``-verbose:sizes`` lines (``  -Xmx512M        memory maximum``) as {"Xmx": "512M", ...}."""
    sizes: dict[str, str] = {}
    for line in text.splitlines():
        match = _SIZE_LINE.match(line)
        if match:
            sizes.setdefault(match.group("name"), match.group("value").lstrip(":"))
    return sizes


def warnings(run: JavaRun) -> tuple[str, ...]:
    """OpenJ9's warning messages (``JVMJ9VM...W``): accepted options that may not take effect."""
    found = [m.group(2).strip() for m in _J9_MESSAGE.finditer(run.stderr + "\n" + run.stdout) if m.group(1) == "W"]
    return tuple(dict.fromkeys(found))


def check_flags(jdk: JdkInfo, flags: Sequence[str], run_java: RunJava, line: Callable[..., str]) -> FlagCheck:
    """Validate ``flags`` on an OpenJ9 JDK with one JVM start; UserError with one line if refused.

    ``line`` is :func:`jvmlab.jdk.flags.rejection_line`, so the message reads as on HotSpot.
    """
    given = list(flags)
    run = run_java(jdk, [REPORT_UNKNOWN_XX, *given, VERBOSE_SIZES, "-version"])  # unknown -XX refused, sizes shown
    if not run.ok:
        raise UserError(line(jdk, given, read_rejection(run, given)))
    sizes = final_sizes(run.stdout + "\n" + run.stderr)
    return FlagCheck(flags=tuple(given), added_unlocks=(), final_values=sizes,
                     origins={name: "final (-verbose:sizes)" for name in sizes}, warnings=warnings(run))
