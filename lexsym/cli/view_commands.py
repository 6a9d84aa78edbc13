"""`lexsym view`: the samples of one or more runs in a web page, to filter, sort, open and compare."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Annotated

import typer


def view(
    runs: Annotated[list[Path], typer.Argument(help="Run directories written by `lexsym run`.")],
    out: Annotated[
        Path | None, typer.Option(help="Write the page to this HTML file (self-contained) and exit.")
    ] = None,
    port: Annotated[int, typer.Option(help="Serve on this port of 127.0.0.1 (0: any free port).")] = 0,
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Do not open a browser.")] = False,
) -> None:
    """Look at samples: filter and sort them, open one (prompt, completion, answer, gold, differences,
    violations, judge replies), compare runs. Serves on 127.0.0.1 until Ctrl-C, or writes --out."""
    from lexsym.viewer import ViewerServer, content_security_policy, page_parts, render_page, viewer_data

    data = viewer_data(list(runs))
    page = render_page(data)
    summary = f"{len(data['rows']):,} samples from {len(data['runs'])} run(s)"
    if out is not None:
        from lexsym._util.atomic import write_atomic

        write_atomic(out, page)
        sys.stderr.write(f"lexsym view: {summary} written to {out}\n")
        return
    server = ViewerServer(page, port=port, policy=content_security_policy(*page_parts()))
    sys.stderr.write(f"lexsym view: {summary} at {server.url} (Ctrl-C to stop)\n")
    sys.stderr.flush()
    if not no_browser:
        import webbrowser

        webbrowser.open(server.url)
    # Solving left clingo's own SIGINT handler installed, and it crashes the process when no solve is
    # running: Ctrl-C must come back to Python, as KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.stderr.write("lexsym view: stopped\n")
