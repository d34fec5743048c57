"""A JDK home whose ``bin/java`` replays recorded outputs, for VMs this machine cannot install.

The launcher is a small Python script: it answers the first rule whose ``when`` arguments are
all on its command line with the recorded stdout/stderr and exit code. Identification and flag
checks then run their real code paths (subprocess, parsing, error lines) against what OpenJ9 or
Prime printed, as recorded in ``tests/data/jvms`` (sources in ``SOURCES.md`` there).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "jvms"

_STUB = '''#!{python}
import fnmatch, json, pathlib, sys
rules = json.loads(pathlib.Path(__file__).with_name("rules.json").read_text())
args = sys.argv[1:]
with open(pathlib.Path(__file__).with_name("calls.log"), "a") as log:
    log.write(json.dumps(args) + "\\n")
for rule in rules:
    if all(any(fnmatch.fnmatchcase(a, w) for a in args) for w in rule["when"]):
        value = next((a[len(rule["arg"]):] for a in args if rule["arg"] and a.startswith(rule["arg"])), "")
        if rule["write"] and value:
            pathlib.Path(value).write_text(rule["write"])
        sys.stdout.write(rule["stdout"].replace("@ARG@", value))
        sys.stderr.write(rule["stderr"].replace("@ARG@", value))
        sys.exit(rule["code"])
sys.exit(0)
'''


@dataclass
class Rule:
    when: list[str]
    stdout: str = ""
    stderr: str = ""
    code: int = 0
    arg: str = ""  # an option prefix whose value replaces @ARG@ in the outputs ...
    write: str = ""  # ... and, if given, is a file the stub writes this text to


def recorded(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def make_home(root: Path, rules: list[Rule], release: str | None = None) -> Path:
    """A JDK home under ``root`` replaying ``rules`` ("@HOME@" in outputs becomes the home)."""
    home = root / "jdk"
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text(_STUB.format(python=sys.executable), encoding="utf-8")
    java.chmod(0o755)
    body = [{"when": r.when, "stdout": r.stdout.replace("@HOME@", str(home)),
             "stderr": r.stderr.replace("@HOME@", str(home)), "code": r.code,
             "arg": r.arg, "write": r.write} for r in rules]
    (home / "bin" / "rules.json").write_text(json.dumps(body), encoding="utf-8")
    if release is not None:
        (home / "release").write_text(release, encoding="utf-8")
    return home


def calls(home: Path) -> list[list[str]]:
    log = home / "bin" / "calls.log"
    if not log.is_file():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def identify_rule(folder: str) -> Rule:
    """``-XshowSettings:properties -version``: properties then the version banner, on stderr."""
    return Rule(["-XshowSettings:properties", "-version"],
                stderr=recorded(f"{folder}/properties.txt") + recorded(f"{folder}/version.txt"))
