"""The HTML page machinery every report page shares: templates, safe JSON, figures, writing.

Apart from ``html.py`` (which builds the experiment and GC pages from ``sections`` and
``gcpage``) so that those modules use these helpers without importing ``html`` back.
"""

from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from jvmlab.errors import UserError

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

    js: str = get_plotlyjs()
    return js.replace("</script", "<\\/script")


@lru_cache(maxsize=1)
def environment() -> Environment:
    return Environment(loader=FileSystemLoader(str(TEMPLATES)),
                       autoescape=select_autoescape(enabled_extensions=("html", "j2"), default=True),
                       trim_blocks=True, lstrip_blocks=True)


def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version

        return version("jvmlab")
    except PackageNotFoundError:  # not installed as a distribution (running from a checkout)
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
