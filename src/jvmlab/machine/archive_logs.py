"""Reading what an archive's training and check runs wrote.

* the application's own class names (from its jars and class folders), so the check can
  ask whether *those* came from the archive: JDK classes come from the JDK's default CDS
  archive ("source: shared objects file") even when ours is not used at all;
* the class-load log of the check run, counted for those classes;
* the training run's warnings, grouped by kind: a JDK 17 AppCDS training run can print
  hundreds of "Skipping <class>: Not linked" lines, which say one thing.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable
from pathlib import Path

from jvmlab.plan.prepare import WarningGroup
from jvmlab.plan.workload import Launch

MAX_GROUPS = 8
MAX_JAR_ENTRIES = 200_000
_LOAD_LINE = re.compile(r"\]\s*(?P<cls>[\w$./]+) source: (?P<source>.*)$")
_DECORATIONS = re.compile(r"^(\[[^\]]*\])+\s*")
_WARNING = re.compile(r"\[(warning|error)\]|^(OpenJDK|Java HotSpot\(TM\)) .*VM warning:|^(Warning|Error):|"
                      r"^Skipping ", re.I)
_NAME = re.compile(r"(?<![\w$])[\w$]+(?:[./$][\w$]+)+(?:\[\])*")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def _jar_classes(jar: Path, manifest_jars: bool = True) -> set[str]:
    """The classes of a jar and (``manifest_jars``) of the jars its manifest's Class-Path names."""
    try:
        with zipfile.ZipFile(jar) as zf:
            names = zf.namelist()[:MAX_JAR_ENTRIES]
            manifest = zf.read("META-INF/MANIFEST.MF").decode("utf-8", "replace") if \
                manifest_jars and "META-INF/MANIFEST.MF" in names else ""
    except (OSError, zipfile.BadZipFile):
        return set()
    out = {n[:-6].replace("/", ".") for n in names
           if n.endswith(".class") and not n.startswith("META-INF/") and n != "module-info.class"}
    for entry in _manifest_class_path(manifest):
        target = (jar.parent / entry)
        if target.suffix == ".jar" and target.is_file() and target != jar:
            out |= _jar_classes(target, manifest_jars=False)
    return out


def _manifest_class_path(manifest: str) -> list[str]:
    """The Class-Path attribute (continuation lines start with one space)."""
    text = re.sub(r"\r?\n ", "", manifest)
    match = re.search(r"^Class-Path:\s*(.*)$", text, re.M)
    return match.group(1).split() if match else []


def app_class_names(launch: Launch, cwd: Path | None = None) -> set[str]:
    """Class names of the application: its jar (and the jars its manifest names), or its
    classpath's jars, class folders and ``dir/*`` wildcards."""
    base = cwd or Path.cwd()

    def resolve(entry: str) -> Path:
        p = Path(entry).expanduser()
        return p if p.is_absolute() else base / p

    out: set[str] = set()
    if launch.jar:
        out |= _jar_classes(resolve(launch.jar))
    for entry in launch.classpath:
        if entry.endswith("*"):
            for jar in sorted(resolve(entry[:-1] or ".").glob("*.jar")):
                out |= _jar_classes(jar, manifest_jars=False)
            continue
        path = resolve(entry)
        if path.is_dir():
            out |= {str(p.relative_to(path).with_suffix("")).replace("/", ".") for p in path.rglob("*.class")}
        elif path.is_file():
            out |= _jar_classes(path)
    if launch.main_class:
        out.add(launch.main_class)
    return out


def loaded_from_archive(class_log: str, app: set[str], main_class: str | None = None) -> tuple[int, int, str]:
    """(application classes loaded, how many from a shared archive, one evidence line),
    the evidence preferring the main class."""
    loaded = shared = 0
    evidence = ""
    for line in class_log.splitlines():
        match = _LOAD_LINE.search(line)
        if not match or match.group("cls") not in app:
            continue
        loaded += 1
        if match.group("source").startswith("shared objects file"):
            shared += 1
            text = _DECORATIONS.sub("", line.strip())
            if not evidence or match.group("cls") == main_class:
                evidence = text
    return loaded, shared, evidence


def normalize(line: str) -> str:
    """A warning with its class names and numbers replaced, so lines of one kind group."""
    text = _DECORATIONS.sub("", line.strip())
    text = _NAME.sub("...", text)
    return _NUMBER.sub("N", text)


def summarize_warnings(texts: Iterable[str]) -> tuple[list[WarningGroup], int]:
    """The warning lines of the given outputs grouped by kind, most frequent first (at
    most ``MAX_GROUPS``; the total counts every line)."""
    counts: dict[str, int] = {}
    examples: dict[str, str] = {}
    total = 0
    for text in texts:
        for line in text.splitlines():
            stripped = _DECORATIONS.sub("", line.strip())
            if not line.strip() or not (_WARNING.search(line) or _WARNING.search(stripped)):
                continue
            total += 1
            key = normalize(line)
            counts[key] = counts.get(key, 0) + 1
            examples.setdefault(key, line.strip())
    ranked = sorted(counts, key=lambda k: -counts[k])[:MAX_GROUPS]
    return [WarningGroup(k, counts[k], examples[k]) for k in ranked], total
