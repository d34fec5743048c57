"""Read a spec file and turn every problem into one clear line (UserError)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from jvmlab.errors import UserError, did_you_mean
from jvmlab.files import MAX_SPEC_BYTES, json_refusal, read_bounded
from jvmlab.spec.model import Spec
from jvmlab.spec.tune import PARAM_KINDS


def load_spec(path: Path) -> tuple[Spec, str]:
    """Return the validated spec and its exact text (stored with the experiment)."""
    if not path.exists():
        raise UserError(f"{path}: no such spec file")
    data = read_bounded(path, "spec", MAX_SPEC_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UserError(f"{path}: cannot read spec: not UTF-8 text (byte {err.start})") from None
    return parse_spec(text, str(path)), text


def parse_spec(text: str, origin: str = "spec") -> Spec:
    """Parse TOML text into a Spec; raise UserError with one line on any problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise UserError(f"{origin}: invalid TOML: {err}") from None
    except (RecursionError, ValueError) as err:  # nested too deep; an integer of over 4300 digits
        raise UserError(f"{origin}: invalid TOML: {json_refusal(err)}") from None
    where = _nul_at(data)
    if where is not None:
        head, _, rest = where.partition(".")
        shown = f"[{head}] {rest}" if rest else where
        raise UserError(f"{origin}: {shown} holds a NUL byte (\\u0000): no command, argument, flag or variable "
                        f"can carry one")
    try:
        return Spec.model_validate(data)
    except ValidationError as err:
        raise UserError(f"{origin}: {describe_error(err, Spec)}") from None


def _nul_at(value: Any, at: str = "") -> str | None:
    """Where the first NUL byte is in parsed TOML (``[workload] command[1]``), None if nowhere.
    The OS cannot pass one in an argument, a variable or a path: found late, it was an
    internal error after the experiment was opened."""
    if isinstance(value, str):
        return at if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            name = f"{at}.{key}" if at else str(key)
            if "\x00" in str(key):
                return name
            found = _nul_at(item, name)
            if found is not None:
                return found
    if isinstance(value, list):
        for k, item in enumerate(value):
            found = _nul_at(item, f"{at}[{k}]")
            if found is not None:
                return found
    return None


def describe_error(err: ValidationError, root: type[BaseModel], at: tuple[str, ...] = ()) -> str:
    """The first validation error as one line: where, what, and a suggestion. ``at``: where
    ``root`` sits in a spec (``("tune",)`` when the [tune] section is validated alone)."""
    errors = err.errors()
    # An unknown key usually explains a missing one ([wrkload] -> no [workload]): say it first.
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = [*at, *(str(part) for part in first["loc"])]
    where = _location(loc)
    if first["type"] == "extra_forbidden":
        key = loc[-1]
        known = _known_keys(root, loc[len(at):-1])
        parent = _location(loc[:-1]) or "the top level"
        return f"unknown key {key!r} in {parent}{did_you_mean(key, known)}"
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "missing":
        return f"missing required key {loc[-1]!r} in {_location(loc[:-1]) or 'the top level'}"
    value = first.get("input")
    shown = ""
    if value is not None and not isinstance(value, (dict, list)) and repr(value) not in message:
        shown = f" (got {value!r})"
    return f"{where}: {message}{shown}"


_TABLES = frozenset({"factors", "workload", "run", "collect", "environment", "matrix", "jvms", "server", "load"})


def _location(loc: list[str]) -> str:
    if not loc:
        return ""
    head, rest = loc[0], loc[1:]
    if head == "tune":
        return _tune_location(rest)
    if head in _TABLES and rest:
        if head == "factors" and len(rest) >= 1:
            return f"[factors.{rest[0]}]" + (f" {'.'.join(rest[1:])}" if rest[1:] else "")
        return f"[{head}] {'.'.join(rest)}"
    return f"[{head}]" if head in _TABLES - {"factors"} else ".".join(loc)


_TYPE_TAGS = {*PARAM_KINDS, "ChoiceTable"}


def _tune_location(rest: list[str]) -> str:
    """``[tune.params.heap] low`` (pydantic's type tags left out), ``[tune.budget] trials``."""
    if rest[:1] == ["params"] and len(rest) >= 2:
        tail = [p for p in rest[2:] if p not in _TYPE_TAGS and "[" not in p]
        return f"[tune.params.{rest[1]}]" + (f" {'.'.join(tail)}" if tail else "")
    if rest[:1] in (["params"], ["budget"]):
        return f"[tune.{rest[0]}]" + (f" {'.'.join(rest[1:])}" if rest[1:] else "")
    return "[tune]" + (f" {'.'.join(rest)}" if rest else "")


def _known_keys(root: type[BaseModel], loc: list[str]) -> list[str]:
    model: Any = root
    for part in loc:
        field = getattr(model, "model_fields", {}).get(part)
        if field is None:
            return []
        model = field.annotation
    return list(getattr(model, "model_fields", {}))
