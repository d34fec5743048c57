"""The self-contained HTML report: one file, plotly.js inline, works offline.

Safety: the page is rendered by Jinja2 with autoescape on, so every string from a spec,
a JVM name, a flag or a workload's output is text, never markup. Figure data travels in
``<script type="application/json">`` blocks whose JSON has ``<``, ``>`` and ``&`` written
as ``\\u003c`` etc., so no value can close the block; labels inside figures are escaped
again for plotly's own HTML subset (see :mod:`jvmlab.report.plots`).
"""

from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from jvmlab.errors import UserError

if TYPE_CHECKING:
    from jvmlab.gclog import LogSummary
    from jvmlab.report.summary import Summary
    from jvmlab.store.sql import SqlStore

TEMPLATES = Path(__file__).with_name("templates")
_JSON_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026",
                 0x2028: "\\u2028", 0x2029: "\\u2029"}


def json_safe(obj: Any) -> Any:
    """NaN and infinities are not JSON: they become null (not measured)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_safe(v) for v in obj]
    return obj


def script_json(obj: Any) -> str:
    """JSON that is safe inside a ``<script>`` element whatever its strings contain."""
    text = json.dumps(json_safe(obj), separators=(",", ":"), allow_nan=False, default=str)
    return text.translate(_JSON_ESCAPES)


@lru_cache(maxsize=1)
def plotly_js() -> str:
    """plotly.min.js from the installed plotly package (inlined once per file)."""
    from plotly.offline import get_plotlyjs

    return get_plotlyjs().replace("</script", "<\\/script")


@lru_cache(maxsize=1)
def environment() -> Environment:
    return Environment(loader=FileSystemLoader(str(TEMPLATES)),
                       autoescape=select_autoescape(enabled_extensions=("html", "j2"), default=True),
                       trim_blocks=True, lstrip_blocks=True)


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("jvmlab")
    except Exception:  # noqa: BLE001 - not installed as a distribution (running from a checkout)
        return "dev"


def figure_entries(figures: Sequence[dict[str, Any] | None], prefix: str) -> list[dict[str, str]]:
    """Template entries (id, title, safe JSON) for the figures that exist.

    The title is shown as page text above the figure (the page script drops it from the
    plotly layout): plotly draws its toolbar over the top of the figure, where it covered
    long titles."""
    out = []
    for i, fig in enumerate(figures):
        if not fig:
            continue
        title = fig.get("layout", {}).get("title")
        text = title.get("text", "") if isinstance(title, dict) else (title or "")
        out.append({"id": f"{prefix}-{i}", "title": html.unescape(str(text)), "json": script_json(fig)})
    return out


def render_page(template: str, context: dict[str, Any]) -> str:
    return environment().get_template(template).render(
        plotly_js=plotly_js(), version=_version(), **context)


def render_html(summary: Summary, store: SqlStore) -> str:
    """The experiment report as one HTML document."""
    from jvmlab.report.sections import report_context

    return render_page("report.html.j2", report_context(summary, store))


def write_text(path: Path, text: str) -> Path:
    """Write a report file, or raise a UserError that says what to do."""
    path = Path(path).expanduser()
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise UserError(f"{path} is a folder; give a file name such as {path / 'report.html'}")
    if not folder.is_dir():
        raise UserError(f"cannot write {path}: folder {folder} does not exist; create it or choose another path")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(f"cannot write {path}: permission denied; choose another path")
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise UserError(f"cannot write {path}: {err.strerror or err}; choose another path") from None
    return path


def write_html(summary: Summary, store: SqlStore, path: Path) -> Path:
    """Render the experiment report and write it to ``path``."""
    return write_text(path, render_html(summary, store))


def write_gc_html(summaries: list[LogSummary], path: Path) -> Path:
    """The `jvmlab gc analyze --html` page: per-log table, pause timeline and histogram."""
    from jvmlab.report.gcpage import gc_context

    return write_text(path, render_page("gc.html.j2", gc_context(summaries)))
