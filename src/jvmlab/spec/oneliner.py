"""One-liners as hyperfine takes them: command strings (and scan and matrix options) -> the
equivalent spec, as TOML text. A pure function: nothing is run, nothing is looked up.

``jvmlab run 'java -XX:+UseG1GC -jar app.jar' 'java -XX:+UseParallelGC -jar app.jar'`` becomes a
spec whose workload is ``jar = "app.jar"`` and whose one factor ``cmd`` has a level per command
(its JVM flags and program arguments), so every check, statistic, store and report of a spec
run applies. The rules:

* each command is split as a shell would (``shlex``), never run by one;
* a ``java`` command (``java``, a path ending in ``bin/java``, or ``{java}``) is read as
  ``java [JVM options] (-jar JAR | [-cp CP] MAIN | -m MODULE) [args]``: the java gives the JDK,
  the options the cell's flags; commands that run different programs become a ``command``
  workload (``{java} {jvm_args}``) whose levels carry the program and its arguments;
* ``-L NAME a,b`` / ``-P NAME MIN MAX`` expand ``{NAME}`` in the commands (every combination);
* ``--jvm NAME=SELECTOR`` / ``--flags NAME="..."`` form a JDK x flags matrix around the
  command(s): the command's own java is replaced by each JDK's, its own flags are common to
  every cell (``jvm_args``);
* cells are named by ``-n/--name`` (``{NAME}`` filled in) or by what differs between commands.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.spec.model import FACTOR_NAME, LEVEL_NAME, check_cells

JAVA_NAMES = ("java", "java.exe")
CMD_FACTOR = "cmd"
FLAGS_FACTOR = "flags"
# Launcher options that take their value as the next word (the JVM's own -XX/-X/-D take none).
VALUE_OPTIONS = frozenset({"--add-opens", "--add-exports", "--add-reads", "--add-modules", "--module-path", "-p",
                           "--patch-module", "--limit-modules", "--upgrade-module-path", "--enable-native-access"})
CLASSPATH_OPTIONS = ("-cp", "-classpath", "--class-path")
SHELL_WORDS = frozenset({"&&", "||", "|", ";", "&", ">", ">>", "<", "2>", "2>&1"})  # meant for a shell
MODULE_OPTIONS = ("-m", "--module")


@dataclass(frozen=True)
class OneLiner:
    """What the command line gave: commands and the options that shape their matrix."""

    commands: tuple[str, ...]
    names: tuple[str, ...] = ()  # -n/--name, one per command (``{NAME}`` filled per scan value)
    lists: tuple[tuple[str, tuple[str, ...]], ...] = ()  # -L NAME a,b,c
    ranges: tuple[tuple[str, int, int, int], ...] = ()  # -P NAME MIN MAX (and its step)
    jvms: tuple[tuple[str, str], ...] = ()  # --jvm NAME=SELECTOR
    flags: tuple[tuple[str, str], ...] = ()  # --flags NAME="..."
    invocations: int | None = None
    warmup: int | None = None
    hooks: tuple[tuple[str, str], ...] = ()  # (kind, command): --setup, --before-each, ...
    revisions: tuple[str, ...] = ()  # --revisions main,HEAD: a [revisions] factor (docs/bisect.md)
    build: str | None = None  # --build: how each revision is built (split as a shell would)


@dataclass(frozen=True)
class _Parsed:
    """One command taken apart: its java (None: not a java command), flags, program, args."""

    text: str
    java: str | None
    flags: tuple[str, ...]
    program: tuple[str, ...]
    args: tuple[str, ...]
    values: tuple[str, ...] = ()  # the scan values it was made with
    template: int = 0  # which given command it came from

    @property
    def words(self) -> tuple[str, ...]:
        return (*self.flags, *self.program, *self.args)


@dataclass
class _Toml:
    """A small TOML writer for what a spec needs: tables of strings, lists and inline tables."""

    lines: list[str] = field(default_factory=list)

    def table(self, name: str) -> None:
        self.lines.extend(["", f"[{name}]"])

    def key(self, key: str, value: object) -> None:
        self.lines.append(f"{_key(key)} = {_value(value)}")

    def text(self) -> str:
        return "\n".join(self.lines).lstrip("\n") + "\n"


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {value!r}")


def is_command(argument: str) -> bool:
    """An argument of ``jvmlab run`` that is not a ``.toml`` file name is a command."""
    return not argument.strip().lower().endswith(".toml")


def parse_assignment(text: str, option: str) -> tuple[str, str]:
    """``NAME=VALUE`` of ``--jvm`` and ``--flags``; NAME a valid factor or JVM name."""
    name, sep, value = text.partition("=")
    if not sep or not FACTOR_NAME.match(name.strip()):
        raise UserError(f"{option} {text!r}: write NAME=VALUE, NAME made of letters, digits, _ . -")
    return name.strip(), value


def oneliner_toml(one: OneLiner, base_dir: Path, spec_dir: Path | None = None, absolute: bool = False) -> str:
    """The spec of a one-liner as TOML text. ``base_dir``: where the commands were typed (their
    relative paths mean that folder); ``spec_dir``: where the TOML will live (``--save-spec``),
    so its relative paths are rewritten to mean the same files from there (``absolute``: as
    absolute paths, for a spec kept among jvmlab's own files)."""
    if not one.commands:
        raise UserError("give a spec file (.toml) or at least one command")
    _check_text(one)
    spec_dir = spec_dir or base_dir
    for option, pairs in (("--jvm", one.jvms), ("--flags", one.flags)):
        names = [name for name, _ in pairs]
        twice = next((n for n in names if names.count(n) > 1), None)
        if twice is not None:
            raise UserError(f"{option} {twice}=... is given twice: give each name once")
    if one.revisions:  # the paths mean the folder typed in, inside each revision's worktree
        spec_dir, absolute = base_dir, False
    elif one.build is not None:
        raise UserError("--build goes with --revisions: it builds each revision")
    parsed = _expand(one)
    kinds = {p.java is None for p in parsed}
    if len(kinds) > 1:
        java = next(p.text for p in parsed if p.java is not None)
        other = next(p.text for p in parsed if p.java is None)
        raise UserError(f"{java!r} is a java command and {other!r} is not: a one-liner compares one program's "
                        f"JDKs, flags or arguments; write a spec for more")
    if (one.jvms or one.flags) and any(p.java is None and "{java}" not in p.text for p in parsed):
        raise UserError("--jvm and --flags go with a java command (`java ... -jar app.jar`), or one with "
                        "{java} and {jvm_args} in it")
    jvms = dict(one.jvms) if one.jvms else _jvms_of(parsed, base_dir)
    out = _Toml()
    title = " vs ".join(one.commands)
    out.key("name", title if len(title) <= 160 else title[:157] + "...")
    _workload(out, parsed, one, base_dir, spec_dir, absolute)
    out.table("jvms")
    for name, selector in jvms.items():
        out.key(name, selector)
    cmd_levels = _cmd_levels(parsed, one)
    factor = _cmd_factor(one)
    if one.flags:
        out.table(f"factors.{FLAGS_FACTOR}")
        for name, flags in one.flags:
            out.key(name, flags)
    if cmd_levels:
        out.table(f"factors.{factor}")
        for name, level in cmd_levels.items():
            out.key(name, level)
    if not one.jvms and len(jvms) > 1 and cmd_levels:  # each command on its own java only
        java_name = {p.java: name for p, name in zip(parsed, _java_names(parsed), strict=True)}
        out.table("matrix")
        out.key("exclude", [{"jvm": jvm, factor: level} for jvm in jvms for level, p in zip(cmd_levels, parsed,
                            strict=True) if java_name[p.java] != jvm])
    if one.revisions:
        out.table("revisions")
        out.key("repo", str(base_dir))
        out.key("paths_from", str(base_dir))
        if one.build is not None:
            out.key("build", one.build)
        out.key("levels", list(one.revisions))
    if one.invocations is not None or one.warmup is not None:
        out.table("run")
        if one.invocations is not None:
            out.key("invocations", one.invocations)
        if one.warmup is not None:
            out.key("warmup", one.warmup)
    return out.text()


def _check_text(one: OneLiner) -> None:
    """Every word given is text a spec can hold: UTF-8 (a word of other bytes reaches Python
    as surrogates, which no file can store) and without a NUL byte."""
    words = [*one.commands, *one.names, *(v for pair in (*one.jvms, *one.flags, *one.hooks) for v in pair),
             *(n for n, _ in one.lists), *(v for _, values in one.lists for v in values)]
    for word in words:
        try:
            word.encode("utf-8")
        except UnicodeEncodeError as err:
            shown = word.encode("utf-8", "surrogateescape")[:60].decode("ascii", "backslashreplace")
            byte = word[err.start].encode("utf-8", "surrogateescape")[0]
            raise UserError(f"'{shown}' is not UTF-8 text (byte 0x{byte:02x}); give commands as UTF-8") from None
        if "\x00" in word:
            raise UserError(f"{word[:60]!r} holds a NUL byte: no command or argument can carry one")


def _expand(one: OneLiner) -> list[_Parsed]:
    """Every command with every combination of the scan values, taken apart."""
    params: list[tuple[str, tuple[str, ...]]] = list(one.lists)
    counts = {"commands": len(one.commands), **{f"-L {name}": len(values) for name, values in one.lists}}
    for name, low, high, step in one.ranges:
        if step <= 0 or high < low:
            raise UserError(f"-P {name} {low} {high}: give MIN <= MAX (and a step above 0)")
        counts[f"-P {name}"] = len(range(low, high + 1, step))  # counted, not made
    check_cells({**counts, "--jvm": max(len(one.jvms), 1), "--flags": max(len(one.flags), 1)}, "the one-liner")
    for name, low, high, step in one.ranges:
        params.append((name, tuple(str(v) for v in range(low, high + 1, step))))
    names = [name for name, _ in params]
    if len(set(names)) != len(names):
        raise UserError(f"a scan parameter is given twice: {', '.join(names)}")
    for name, values in params:
        if not FACTOR_NAME.match(name) or not values or not all(values):
            raise UserError(f"-L/-P {name}: give a name (letters, digits, _ . -) and at least one value")
        if not any("{" + name + "}" in c for c in one.commands):
            raise UserError(f"scan parameter {name} is not used: write {{{name}}} in a command")
    if one.names and len(one.names) != len(one.commands):
        raise UserError(f"{len(one.names)} --name for {len(one.commands)} commands: give one per command")
    out = []
    for i, command in enumerate(one.commands):
        for values in itertools.product(*(v for _, v in params)) if params else [()]:
            text = command
            for name, value in zip(names, values, strict=True):
                text = text.replace("{" + name + "}", value)
            out.append(_parse(text, values, i))
    return out


def _parse(text: str, values: tuple[str, ...], template: int) -> _Parsed:
    try:
        words = shlex.split(text)
    except ValueError as err:
        raise UserError(f"cannot split the command {text!r}: {err}") from None
    if not words:
        raise UserError("an empty command: give a command such as 'java -jar app.jar'")
    shell = next((w for w in words if w in SHELL_WORDS), None)
    if shell is not None:
        raise UserError(f"{text!r} has {shell!r}, which needs a shell: jvmlab runs a command without one; put "
                        f"set-up in --hook KIND=COMMAND, or write a spec with shell = true")
    if words[0] != "{java}" and Path(words[0]).name not in JAVA_NAMES:
        return _Parsed(text, None, (), (words[0],), tuple(words[1:]), values, template)
    flags: list[str] = []
    classpath: tuple[str, ...] = ()
    i = 1
    while i < len(words):
        word = words[i]
        if word == "-jar" or word in MODULE_OPTIONS:
            if i + 1 >= len(words):
                raise UserError(f"{text!r}: {word} needs a value")
            return _Parsed(text, words[0], tuple(flags), (*classpath, word, words[i + 1]), tuple(words[i + 2:]),
                           values, template)
        if word in CLASSPATH_OPTIONS or word in VALUE_OPTIONS:
            if i + 1 >= len(words):
                raise UserError(f"{text!r}: {word} needs a value")
            if word in CLASSPATH_OPTIONS:
                classpath = ("-cp", words[i + 1])
            else:
                flags.extend(words[i:i + 2])
            i += 2
            continue
        if word.startswith("--class-path="):
            classpath = ("-cp", word.partition("=")[2])
        elif word.startswith("-"):
            flags.append(word)
        else:
            return _Parsed(text, words[0], tuple(flags), (*classpath, word), tuple(words[i + 1:]), values, template)
        i += 1
    raise UserError(f"{text!r} runs no program: give a main class, -jar JAR or -m MODULE")


def _java_names(parsed: list[_Parsed]) -> list[str]:
    """A [jvms] name per command: ``default`` for a plain ``java``, else the JDK folder's name."""
    distinct = list(dict.fromkeys(p.java for p in parsed))
    names: dict[str | None, str] = {}
    for java in distinct:
        if java in (None, "java", "java.exe", "{java}"):
            base = "default"
        else:
            path = Path(java)
            base = _sanitize(path.parent.parent.name if path.parent.name == "bin" else path.name) or "jdk"
        name, n = base, 2
        while name in names.values():
            name, n = f"{base}-{n}", n + 1
        names[java] = name
    return [names[p.java] for p in parsed]


def _jvms_of(parsed: list[_Parsed], base_dir: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for p, name in zip(parsed, _java_names(parsed), strict=True):
        if p.java in (None, "java", "java.exe", "{java}"):
            out[name] = "default"
        else:
            assert p.java is not None
            path = Path(p.java).expanduser()
            out[name] = str(path if path.is_absolute() else (base_dir / path).absolute())
    return out


def _workload(out: _Toml, parsed: list[_Parsed], one: OneLiner, base_dir: Path, spec_dir: Path,
              absolute: bool) -> None:
    """The [workload]: a typed jar/main when every command runs the same program, else a command."""
    out.table("workload")
    programs = {p.program for p in parsed}
    same_args = len({p.args for p in parsed}) == 1
    flags = {p.flags for p in parsed}
    first = parsed[0]
    if len(programs) > 1 and first.java is None:
        raise UserError("the commands run different programs: a one-liner compares one program's JDKs, flags "
                        "or arguments; write a spec for more")
    program = first.program if len(programs) == 1 else ()
    if first.java is None:  # all of it: {java} and {jvm_args} are filled in the command, not in args
        out.key("command", [*program, *(first.args if same_args else ())])
    elif program[-2:-1] == ("-jar",) and len(program) in (2, 4):
        out.key("jar", _moved(program[-1], base_dir, spec_dir, absolute))
    elif len(program) == 3 and program[0] == "-cp":
        out.key("main", program[2])
        out.key("classpath", [_moved(e, base_dir, spec_dir, absolute) for e in program[1].split(os.pathsep)])
    else:  # -m MODULE, a main class on the default classpath, or different programs
        out.key("command", ["{java}", "{jvm_args}", *program])
    if same_args and first.args and first.java is not None:
        out.key("args", list(first.args))
    if len(flags) == 1 and first.flags:
        out.key("jvm_args", list(first.flags))  # common to every cell: not in its name
    if spec_dir != base_dir:
        out.key("cwd", str(base_dir) if absolute else os.path.relpath(base_dir, spec_dir))
    for kind, command in one.hooks:
        try:
            words = shlex.split(command)
        except ValueError as err:
            raise UserError(f"cannot split the {kind} command {command!r}: {err}") from None
        shell = next((w for w in words if w in SHELL_WORDS), None)
        if shell is not None:
            raise UserError(f"--hook {kind}={command!r} has {shell!r}, which needs a shell: jvmlab runs a hook "
                            f"without one; give one command per hook, or write a spec with a shell hook "
                            f"({kind} = {{ command = \"...\", shell = true }})")
        if not words:
            raise UserError(f"--hook {kind}= is empty: give a command")
        out.key(kind, words)


def _moved(path: str, base_dir: Path, spec_dir: Path, absolute: bool) -> str:
    """A relative path typed in ``base_dir``, as the spec in ``spec_dir`` must write it."""
    if spec_dir == base_dir or Path(path).expanduser().is_absolute():
        return path
    return str(base_dir / path) if absolute else os.path.relpath(base_dir / path, spec_dir)


def _cmd_levels(parsed: list[_Parsed], one: OneLiner) -> dict[str, dict[str, list[str]]]:
    """The ``cmd`` factor: one level per command, with what it does not share with the others."""
    if len(parsed) == 1:
        return {}
    programs = {p.program for p in parsed}
    same_args = len({p.args for p in parsed}) == 1
    same_flags = len({p.flags for p in parsed}) == 1
    if len(programs) == 1 and same_args and same_flags and len({p.java for p in parsed}) > 1 and not one.jvms:
        return {}  # only the java differs: the jvm factor says it all
    names = _names(parsed, one)
    levels: dict[str, dict[str, list[str]]] = {}
    for p, name in zip(parsed, names, strict=True):
        level: dict[str, list[str]] = {}
        if not same_flags:
            level["flags"] = list(p.flags)
        args = [*(p.program if len(programs) > 1 else ()), *(p.args if not same_args else ())]
        if args:
            level["args"] = args
        levels[name] = level if level else {"flags": []}
    return levels


def _cmd_factor(one: OneLiner) -> str:
    """The factor of the commands: a scan's own name when one command is scanned over one
    parameter (``-L gc G1,Parallel``: cells ``gc=G1``, ``gc=Parallel``, as hyperfine's
    ``parameters``), else ``cmd``."""
    scans = [*(n for n, _ in one.lists), *(n for n, *_ in one.ranges)]
    if len(scans) == 1 and len(one.commands) == 1 and not one.names and FACTOR_NAME.match(scans[0]) \
            and scans[0] not in ("jvm", FLAGS_FACTOR):
        return scans[0]
    return CMD_FACTOR


def _names(parsed: list[_Parsed], one: OneLiner) -> list[str]:
    """-n names (``{NAME}`` filled in), else a single scan's values (its factor is named after
    it: ``gc=G1``), else what differs between the commands (``TieredStopAtLevel=1``; a command
    with nothing of its own is ``defaults``), else cmd1, cmd2..."""
    if not one.names and _cmd_factor(one) != CMD_FACTOR:
        names = [_level(p.values[0]) for p in parsed]
        if len(set(names)) == len(names) and all(names):
            return names
    if one.names:
        scan = [*(n for n, _ in one.lists), *(n for n, *_ in one.ranges)]
        names = []
        for p in parsed:
            name = one.names[p.template]
            for key, value in zip(scan, p.values, strict=True):
                name = name.replace("{" + key + "}", value)
            names.append(_level(name))
    else:
        common = set.intersection(*(set(p.words) for p in parsed))
        names = [_level("_".join(_differs(p.words, common))) for p in parsed]
        if names.count("") == 1:  # the one command without anything of its own: the JVM's defaults
            names = [name or "defaults" for name in names]
    if len(set(names)) != len(names) or not all(names):
        if one.names:
            raise UserError(f"the names {', '.join(names)} do not tell every command apart")
        names = [f"cmd{i + 1}" for i in range(len(parsed))]
    return names


def _differs(words: tuple[str, ...], common: set[str]) -> list[str]:
    """The words of one command the others lack, an option's value with its option (``size-2``)."""
    out = []
    for i, word in enumerate(words):
        if word not in common:
            before = words[i - 1] if i > 0 else ""
            option = (before if before.startswith("-") and before in common and not word.startswith("-")
                      and before not in ("-jar", *CLASSPATH_OPTIONS, *MODULE_OPTIONS) else None)
            out.append(f"{_word_name(option)}-{_word_name(word)}" if option else _word_name(word))
    return out


def _word_name(word: str) -> str:
    """``-XX:+UseG1GC`` -> ``UseG1GC``, ``-XX:-AlwaysPreTouch`` -> ``noAlwaysPreTouch``, ``-Xmx1g`` -> ``Xmx1g``."""
    word = word.lstrip("-")
    word = word.removeprefix("XX:")
    if word.startswith("+"):
        return word[1:]
    if word.startswith("-"):
        return "no" + word[1:]
    return Path(word).name if "/" in word else word


def _level(text: str) -> str:
    """A valid level name: letters, digits, _ . - and = (``TieredStopAtLevel=1``, ``256``)."""
    name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", text).strip("_.=-")[:60]
    return name if not name or LEVEL_NAME.match(name) else f"_{name}"


def _sanitize(text: str) -> str:
    """A valid level name (letters, digits, _ . -, not starting with a digit or a dash)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_.-")[:60]
    return name if not name or FACTOR_NAME.match(name) else f"_{name}"
