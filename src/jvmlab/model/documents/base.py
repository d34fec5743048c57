"""What every stored document is: a frozen record of one ``KIND`` with a schema ``VERSION``.

``to_json()`` writes the body with ``"version"``; ``from_json(data)`` reads the current
version and every older layout (today's unversioned one is version 1), and refuses a newer
version or malformed content with one line (``DocumentError``, a ``UserError``), never a
KeyError traceback. A document is read as a record where it is used: nobody indexes its JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Self, TypeVar

from jvmlab.errors import UserError

JsonObject = dict[str, Any]  # a part kept as its owner's own JSON (e.g. a GC finding), read by that owner
T = TypeVar("T")


class DocumentError(UserError):
    """A stored document this jvmlab cannot read: newer than it, or malformed."""


class Document:
    """The base of every document record (frozen dataclasses with slots)."""

    __slots__ = ()
    KIND: ClassVar[str]
    VERSION: ClassVar[int] = 1  # a class whose layout changed says its own

    def body(self) -> JsonObject:
        """The document's content as JSON, without its version."""
        raise NotImplementedError

    @classmethod
    def decode(cls, data: Any, version: int) -> Self:
        """The record from stored JSON of ``version`` (<= VERSION): older layouts migrate here."""
        raise NotImplementedError

    def to_json(self) -> JsonObject:
        return {"version": self.VERSION, **self.body()}

    @classmethod
    def from_json(cls, data: Any) -> Self:
        version = data.get("version", 1) if isinstance(data, dict) else 1
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise DocumentError(f"the stored {cls.KIND!r} document has no valid version ({version!r})")
        if version > cls.VERSION:
            raise DocumentError(f"the stored {cls.KIND!r} document has version {version}, newer than this jvmlab "
                                f"reads ({cls.VERSION}); upgrade jvmlab to read it")
        try:
            return cls.decode(data, version)
        except DocumentError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
            raise DocumentError(f"the stored {cls.KIND!r} document is malformed ({_why(err)}); "
                                f"it was not written by this jvmlab's schema") from None


def _why(err: Exception) -> str:
    if isinstance(err, KeyError):
        return f"no {err.args[0]!r}" if err.args else "a part is missing"
    return f"{type(err).__name__}: {str(err)[:120]}"


def mapping(data: Any) -> Mapping[str, Any]:
    """``data`` as a JSON object, or a TypeError (malformed) saying what it was."""
    if not isinstance(data, Mapping):
        raise TypeError(f"expected an object, found {type(data).__name__}")
    return data


def strings(data: Any) -> tuple[str, ...]:
    if isinstance(data, str | bytes) or not isinstance(data, Iterable):
        raise TypeError(f"expected a list of strings, found {type(data).__name__}")
    return tuple(str(x) for x in data)


def opt(data: Any, convert: Callable[[Any], T]) -> T | None:
    return None if data is None else convert(data)


def pair(data: Any) -> tuple[float, float]:
    lo, hi = data
    return float(lo), float(hi)


def opt_float(data: Any) -> float | None:
    return None if data is None else float(data)


def opt_int(data: Any) -> int | None:
    return None if data is None else int(data)


def present(data: JsonObject) -> JsonObject:
    """``data`` without its None values: a part that was not measured is not written (its
    reader gets None back, as for a layout that never had it)."""
    return {k: v for k, v in data.items() if v is not None}


def floats(data: Any) -> dict[str, float]:
    """A JSON object of numbers as ``name -> float``."""
    return {str(k): float(v) for k, v in mapping(data).items()}


def texts(data: Any) -> dict[str, str]:
    """A JSON object of strings as ``name -> str``."""
    return {str(k): str(v) for k, v in mapping(data).items()}


def opt_str(data: Any) -> str | None:
    return None if data is None else str(data)
