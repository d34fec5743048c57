"""The spec's shared field types: JVM flags as a spec writes them (one string split as a shell
would, never run by one, or a list), durations, and the strict base of every table.

The one parser for `[factors]` levels, `[workload] jvm_args` and `[tune]` flags and baselines.
"""

from __future__ import annotations

import shlex
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from jvmlab.spec.durations import parse_duration_s


def split_flags(value: Any) -> list[str]:
    """Flags as a string ("-Xms1g -Xmx1g", split like a shell would, never run by one) or a list."""
    if isinstance(value, str):
        try:
            return shlex.split(value)
        except ValueError as err:
            raise ValueError(f"cannot split flags {value!r}: {err}") from err
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ValueError("flags must be a string or a list of strings")


Flags = Annotated[list[str], BeforeValidator(split_flags)]
Seconds = Annotated[float, BeforeValidator(parse_duration_s), Field(gt=0)]


class Strict(BaseModel):
    """A spec table: unknown keys refused, the record frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)
