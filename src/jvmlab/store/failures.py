"""A store that fails mid-run, said in one line; experiments left open marked ``interrupted``.

A database that goes away (PostgreSQL stopped, a disk gone) makes SQLAlchemy raise an error
whose text holds the SQL, a dump of the row's parameters and a link: four lines and more.
:func:`guard` wraps each public method of a store so that any ``SQLAlchemyError`` becomes a
:class:`~jvmlab.errors.StoreError`: what failed and where in one line, the full text kept as
``detail`` for ``--debug``. The error boundary (``cli/main.py``) adds how to resume.

Every experiment this process set ``running`` is remembered until its status changes; when a
command stops for any reason other than finishing (bad input found late, a store fault, a bug,
Ctrl-C), :func:`mark_unfinished` marks them ``interrupted`` so none is left ``running``.
"""

from __future__ import annotations

import functools
import time
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from jvmlab.errors import StoreError

T = TypeVar("T")
INTERRUPTED = "interrupted"
RUNNING = "running"

# store -> {experiment id: when it was set running (time.monotonic())}
_open: weakref.WeakKeyDictionary[Any, dict[int, float]] = weakref.WeakKeyDictionary()


def shown_url(url: str) -> str:
    """The URL without its password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (SQLAlchemyError, ValueError):
        return url


def first_line(err: BaseException) -> str:
    """The driver's own first line (``server closed the connection unexpectedly``), without
    SQLAlchemy's SQL, parameters and background link."""
    orig = getattr(err, "orig", None)
    text = str(orig if orig is not None else err).strip()
    return (text.splitlines() or [type(err).__name__])[0].strip()


def guard(cls: type[T]) -> type[T]:
    """Wrap every public method of a store class (see the module docstring)."""
    for name, method in list(vars(cls).items()):
        if name.startswith("_") or not callable(method) or isinstance(method, (staticmethod, classmethod)):
            continue
        setattr(cls, name, _guarded(name, method))
    return cls


def _guarded(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    what = name.replace("_", " ")

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except SQLAlchemyError as err:
            raise StoreError(f"cannot {what} in store {shown_url(self.url)}: {first_line(err)}",
                             detail=str(err)) from err

    return wrapper


def opened(store: Any, experiment_id: int) -> None:
    _open.setdefault(store, {})[experiment_id] = time.monotonic()


def status_set(store: Any, experiment_id: int, status: str) -> None:
    if status == RUNNING:
        opened(store, experiment_id)
    else:
        _open.get(store, {}).pop(experiment_id, None)


def unfinished(since: float = 0.0) -> list[tuple[Any, int]]:
    """(store, experiment id) of every experiment this process set ``running`` at or after
    ``since`` (a ``time.monotonic()`` reading: the command's start) and left so."""
    return [(store, exp_id) for store, ids in list(_open.items())
            for exp_id, at in sorted(ids.items()) if at >= since]


def mark_unfinished(since: float = 0.0) -> list[str]:
    """Mark every experiment left ``running`` (since ``since``) as ``interrupted``; one phrase
    per experiment (``experiment 3 (12 invocations stored in sqlite:///lab.db)``), or why it
    could not be marked."""
    said = []
    for store, exp_id in unfinished(since):
        try:
            store.set_status(exp_id, INTERRUPTED)
        except StoreError:
            _open.get(store, {}).pop(exp_id, None)
            said.append(f"experiment {exp_id} stays marked running (the store is unreachable)")
            continue
        try:
            stored = f"{store.invocation_counts().get(exp_id, (0, 0))[0]} measured invocations"
        except StoreError:
            stored = "its invocations"
        said.append(f"experiment {exp_id} ({stored} stored in {shown_url(store.url)}) is marked interrupted")
    return said
