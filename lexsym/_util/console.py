"""The console that tables are printed on."""

from __future__ import annotations

from typing import Any

PIPED_WIDTH = 110


def table_console() -> Any:
    """A rich Console; when output is piped (no terminal to measure) it is at least 110 columns wide, so a
    table written to a file or a CI log keeps every column readable instead of folding at 80."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console.width = max(console.width, PIPED_WIDTH)
    return console
