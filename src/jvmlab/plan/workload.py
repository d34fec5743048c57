"""Turning the spec's [workload] into an argv list for one cell (no shell unless asked)."""

from __future__ import annotations

import os
import shlex
import zipfile
from dataclasses import dataclass
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.jdk import discover
from jvmlab.model.jdk import JdkInfo
from jvmlab.server.recipe import DEFAULT_ARGS, RECIPES, build_recipe
from jvmlab.spec.model import Workload
from jvmlab.workloads.builtin import prepare_builtin
from jvmlab.workloads.jmh import HARNESS_FLAGS as JMH_HARNESS_FLAGS
from jvmlab.workloads.jmh import MAIN_CLASS as JMH_MAIN
from jvmlab.workloads.jmh import RESULT_FILE as JMH_RESULT
from jvmlab.workloads.jmh import JmhCommand, check_options

JAVA_PLACEHOLDER = "{java}"
JVM_ARGS_PLACEHOLDER = "{jvm_args}"


@dataclass(frozen=True)
class Launch:
    """How to start the workload on one JDK: everything but the JVM flags."""

    kind: str  # builtin, main, jar, command, jmh
    classpath: tuple[str, ...] = ()
    main_class: str | None = None
    jar: str | None = None
    command: tuple[str, ...] = ()
    shell: bool = False
    args: tuple[str, ...] = ()
    progress_regex: str | None = None
    default_args: tuple[str, ...] = ()  # a built-in's, used when neither the spec nor a level gives any
    jmh: JmhCommand | None = None  # kind "jmh": benchmarks, params, passed-through options

    def argv(self, jdk: JdkInfo, jvm_flags: list[str], extra_args: tuple[str, ...] = (),
             artifacts_dir: Path | None = None) -> list[str]:
        """The full command line: the JDK's java, the flags, then the program and its
        arguments (the workload's, then the cell's levels').

        A jmh workload is different: the JMH harness JVM gets none of the cell's flags (only
        ``-Djmh.ignoreLock=true``, workloads/jmh.py); the flags go to its
        one fork (``-jvmArgs``), whose JSON result lands in ``artifacts_dir``."""
        java = str(jdk.java)
        args = (*self.args, *extra_args) or self.default_args
        if self.kind == "jmh" and self.jmh is not None:
            # Absolute: JMH runs in the workload's cwd, jvmlab reads the file from its own.
            folder = str(artifacts_dir.absolute()) if artifacts_dir is not None else "{artifacts}"
            check_options(list(extra_args))  # a level's args are JMH options too
            options = JmhCommand(self.jmh.benchmarks, self.jmh.params, (*self.jmh.options, *extra_args))
            return [java, *JMH_HARNESS_FLAGS, "-cp", ":".join(self.classpath), JMH_MAIN,
                    *options.argv(f"{folder}/{JMH_RESULT}", jvm_flags)]
        if self.kind in ("builtin", "main"):
            return [java, *jvm_flags, "-cp", os.pathsep.join(self.classpath), str(self.main_class), *args]
        if self.kind == "jar":
            return [java, *jvm_flags, "-jar", str(self.jar), *args]
        return _expand_command(self.command, java, jvm_flags, args, self.shell)


def _expand_command(command: tuple[str, ...], java: str, flags: list[str], args: tuple[str, ...],
                    shell: bool) -> list[str]:
    if shell:
        text = " ".join(command).replace(JAVA_PLACEHOLDER, shlex.quote(java))
        text = text.replace(JVM_ARGS_PLACEHOLDER, shlex.join(flags))
        if args:
            text = f"{text} {shlex.join(args)}"
        return ["/bin/sh", "-c", text]
    out: list[str] = []
    for part in command:
        if part == JVM_ARGS_PLACEHOLDER:
            out.extend(flags)
        else:
            out.append(part.replace(JAVA_PLACEHOLDER, java))
    return out + list(args)


def resolve_launch(workload: Workload, jdk: JdkInfo, base_dir: Path, workdir: Path | None = None) -> Launch:
    """Check that what the workload names exists, and compile built-ins for this JDK.

    ``base_dir`` (the spec's folder) resolves classpath entries and jars to absolute paths;
    a command's relative program (``./run.sh``) is looked up where it will start: ``workdir``."""
    args = tuple(workload.args)
    if workload.builtin is not None and workload.builtin in RECIPES:  # Jetty, Tomcat (docs/servers.md)
        return Launch("builtin", classpath=build_recipe(workload.builtin, jdk), main_class=RECIPES[workload.builtin],
                      args=args, default_args=DEFAULT_ARGS, progress_regex=workload.progress)
    if workload.builtin is not None:
        compilers = [j for j in discover() if j.has_javac] if not jdk.has_javac else []
        built = prepare_builtin(workload.builtin, jdk, compilers=compilers)
        return Launch("builtin", classpath=(str(built.classpath),), main_class=built.main_class,
                      args=args, default_args=tuple(built.default_args),
                      progress_regex=workload.progress or built.progress_regex)
    if workload.main is not None:
        entries = tuple(str(_existing(base_dir, e, "classpath entry")) for e in workload.classpath or [])
        _check_main_class(workload.main, [Path(e) for e in entries])
        return Launch("main", classpath=entries, main_class=workload.main, args=args,
                      progress_regex=workload.progress)
    if workload.jmh is not None:
        return _jmh_launch(workload, base_dir)
    if workload.jar is not None:
        return Launch("jar", jar=str(_existing(base_dir, workload.jar, "jar")), args=args,
                      progress_regex=workload.progress)
    command = tuple(workload.command or ())
    if not workload.shell and JAVA_PLACEHOLDER not in command[0]:
        first = Path(command[0])
        if not first.is_absolute() and "/" in command[0]:
            first = (workdir or base_dir) / first
        if first.is_absolute() and not first.exists():
            raise UserError(f"[workload] command: {command[0]} does not exist (looked at {first})")
    return Launch("command", command=command, shell=workload.shell, args=args,
                  progress_regex=workload.progress)


def _jmh_launch(workload: Workload, base_dir: Path) -> Launch:
    """The benchmarks jar (an uber jar, or with its libraries in ``classpath``) run by JMH's Main."""
    check_options(workload.args)
    jar = str(_existing(base_dir, workload.jmh or "", "jmh jar"))
    entries = (jar, *(str(_existing(base_dir, e, "classpath entry")) for e in workload.classpath or []))
    _check_main_class(JMH_MAIN, [Path(e) for e in entries])
    command = JmhCommand(tuple(workload.benchmarks), tuple((k, tuple(v)) for k, v in workload.params.items()),
                         tuple(workload.args))
    return Launch("jmh", classpath=entries, main_class=JMH_MAIN, args=(), jmh=command,
                  progress_regex=workload.progress)


def _check_main_class(main: str, entries: list[Path]) -> None:
    """Look for the main class in directories and jars of the classpath before any run."""
    relative = main.replace(".", "/") + ".class"
    jars: list[Path] = []
    for entry in entries:
        if entry.name == "*":
            jars.extend(sorted(entry.parent.glob("*.jar")) + sorted(entry.parent.glob("*.JAR")))
        elif entry.is_dir():
            if (entry / relative).is_file():
                return
        else:
            jars.append(entry)
    for jar in jars:
        try:
            with zipfile.ZipFile(jar) as archive:
                if relative in archive.namelist():
                    return
        except (OSError, zipfile.BadZipFile) as err:
            raise UserError(f"[workload] classpath entry {jar} is not a readable jar: {err}") from None
    raise UserError(f"[workload] main class {main} is not on the classpath "
                    f"({', '.join(str(e) for e in entries)}); check the name and the classpath")


def _existing(base_dir: Path, name: str, what: str) -> Path:
    path = Path(name).expanduser()
    if not path.is_absolute():
        path = base_dir / path
    if "*" in path.name:  # classpath wildcard, as java itself accepts
        if not path.parent.is_dir():
            raise UserError(f"[workload] {what} {name}: folder {path.parent} does not exist")
        return path
    if not path.exists():
        raise UserError(f"[workload] {what} {name} does not exist (looked at {path})")
    return path
