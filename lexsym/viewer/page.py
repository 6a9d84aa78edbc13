"""The viewer's page: one self-contained HTML file, its data embedded as JSON and its script and style
inline, so it opens from disk, is mailed as one file, and never reaches the network.

Model output is untrusted text, so the data goes in a `<script type="application/json">` element with
every `<`, `>` and `&` written as a JSON escape (a `</script>` in a completion cannot close the element),
the script only ever sets text (`textContent`, never `innerHTML`), and a Content-Security-Policy allows
no network at all and no script but the page's own, by its hash (an injected `onerror=` would not run).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic
from lexsym._util.finite import finite

_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
SCRIPTS = ("viewer.js", "detail.js")
STYLE = "viewer.css"

_BODY = """<header>
<h1>lexsym view <span class="sub">{summary}</span></h1>
<div class="toolbar">
  <div class="group">
    <select id="quick-run" aria-label="run"></select>
    <select id="quick-task" aria-label="task"></select>
    <select id="quick-outcome" aria-label="outcome"></select>
    <button type="button" id="failing-only" title="show only failing samples">Failing only</button>
    <input id="search" type="search" placeholder="sample id contains" aria-label="sample id contains">
  </div>
  <form id="filter-form" class="group">
    <label for="filter-column">Filter</label>
    <select id="filter-column"></select>
    <select id="filter-op" aria-label="comparison"></select>
    <input id="filter-value" aria-label="value" placeholder="value">
    <button type="submit" id="filter-add">Add</button>
  </form>
  <div class="group">
    <label for="sort-column">Sort</label>
    <select id="sort-column"></select>
    <button type="button" id="sort-direction"></button>
  </div>
  <details class="columns-menu"><summary>Columns</summary><div id="column-picker"></div></details>
  <span id="count"></span>
</div>
<div class="chips" id="filters"></div>
</header>
<main>
  <div id="list"><table id="samples"></table></div>
  <div id="detail"></div>
</main>
<noscript><p>This page needs JavaScript to show the samples.</p></noscript>"""


def embed_json(data: Any) -> str:
    """`data` as JSON that is safe inside a `<script>` element: no `<`, `>` or `&` left as such."""
    text = json.dumps(finite(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return "".join(_ESCAPES.get(char, char) for char in text)


def _asset(name: str) -> str:
    return resources.files("lexsym.viewer").joinpath("assets", name).read_text(encoding="utf-8")


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(script: str, style: str) -> str:
    """No network, no forms; only this script and this style, by their hashes. (The server adds
    frame-ancestors, which a browser ignores in a page's own meta element.)"""
    return (
        f"default-src 'none'; script-src {_digest(script)}; style-src {_digest(style)}; "
        "img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'"
    )


def page_parts() -> tuple[str, str]:
    """The page's script (the assets in order) and style."""
    script = "\n".join(_asset(name) for name in SCRIPTS)
    return script, _asset(STYLE)


def render_page(data: dict[str, Any]) -> str:
    """The whole page for `viewer_data(...)`'s data."""
    script, style = page_parts()
    runs = len(data["runs"])
    summary = f"{len(data['rows']):,} samples from {runs} run{'s' if runs != 1 else ''}"
    names = ", ".join(run["name"] for run in data["runs"])
    policy = html.escape(content_security_policy(script, style))
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>lexsym view: {html.escape(names)}</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n"
        + _BODY.format(summary=html.escape(summary))
        + f'\n<script type="application/json" id="lexsym-data">{embed_json(data)}</script>\n'
        f"<script>{script}</script>\n</body>\n</html>\n"
    )


def write_page(data: dict[str, Any], out: str | Path) -> Path:
    """Write the page to `out` atomically; the path written."""
    path = Path(out)
    write_atomic(path, render_page(data))
    return path
