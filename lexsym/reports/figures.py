"""`lexsym report --figures DIR`: the figures a paper shows, each as PNG, SVG and the CSV of its points.

Why these: the seed papers plot F1 against case size (assets, domiciles), against the steps given solved
and under obfuscation, MCQ accuracy against the number of choices and by course, language and area, and
the spread of judge grades. Each figure is drawn only when the runs have data for it (two or more x
values); its numbers come from `lexsym.reports.figure_data`, over the results table (`lexsym.analysis`).

Output is reproducible: a fixed style (matplotlib's defaults plus the settings below, whatever the user's
matplotlibrc says), an SVG with a fixed hash salt and no date, so a re-run writes the same bytes. Every
file is written atomically. matplotlib (the Agg renderer, with no pyplot state) is imported only here,
inside the functions, so `lexsym report` without figures never loads it.
"""

from __future__ import annotations

import io
import itertools
import math
import textwrap
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic, write_atomic_with
from lexsym.reports.figure_data import POINT_COLUMNS, FigureData, figure_data

STYLE: dict[str, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "figure.titlesize": 11.0,
    "legend.fontsize": 8.5,
    "xtick.labelsize": 8.5,
    "ytick.labelsize": 8.5,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "axes.axisbelow": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.fonttype": "path",
    "svg.hashsalt": "lexsym-figures",
    "figure.dpi": 100.0,
    "savefig.dpi": 150.0,
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
}
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
TASK_NAMES = {
    "AE": "AE: allowable exemptions",
    "EC": "EC: exemption classification",
    "EV": "EV: exemption valuation",
    "NA": "NA: non-exempt assets",
    "OE": "OE: optimal exemptions",
    "MCQ": "MCQ: multiple choice",
}
PANEL_COLUMNS = 3
MAX_WIDTH = 11.5  # inches: a figure wider than a landscape page puts fewer panels on a row
WRAPPED_CATEGORIES = 6
MAX_TICKS = 8


@contextmanager
def figure_style() -> Iterator[None]:
    """The fixed style of the report's figures (matplotlib's defaults and STYLE, whatever the user's
    matplotlibrc), for drawing and saving alike."""
    import matplotlib.style

    with matplotlib.style.context(["default", STYLE]):
        yield


def _new_figure(data: FigureData) -> tuple[Any, list[Any], int]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    count = len(data.panels)
    width, height = 3.6, 2.9  # inches a panel
    if data.kind == "categories":
        slanted = len(data.x_order) > WRAPPED_CATEGORIES
        width = max(width, (0.45 if slanted else 1.0) * len(data.x_order) + 0.8)
        longest = max(len(str(value)) for value in data.x_order)
        height += 0.045 * min(longest, 40) if slanted else 0.15 * (math.ceil(longest / 16) - 1)
    columns = max(1, min(count, PANEL_COLUMNS, int(MAX_WIDTH // width)))
    rows = math.ceil(count / columns)
    figure = Figure(figsize=(columns * width + 0.6, rows * height + 1.3), layout="constrained")
    FigureCanvasAgg(figure)
    grid = figure.subplots(rows, columns, sharey=True, squeeze=False)
    axes = [ax for row in grid for ax in row]
    for ax in axes[count:]:
        ax.set_visible(False)
    return figure, axes[:count], columns


def _offsets(count: int, spread: float) -> list[float]:
    """Horizontal offsets that keep `count` series' error bars apart at one x (centred on 0)."""
    if count <= 1:
        return [0.0]
    return [spread * (n - (count - 1) / 2) / (count - 1) for n in range(count)]


def _curve(ax: Any, data: FigureData, panel: Any) -> None:
    values = sorted(float(v) for v in panel["x"].unique())
    scale = [math.log2(v) for v in values] if data.log_x else values
    gaps = [b - a for a, b in itertools.pairwise(scale)] or [1.0]
    # Series apart by a quarter of the closest two x values, or 4 % of the axis, whichever is less.
    spread = min(0.25 * min(gaps), 0.04 * max(scale[-1] - scale[0], 1.0)) * min(len(data.series) - 1, 4) / 2
    offsets = _offsets(len(data.series), spread)
    for n, series in enumerate(data.series):
        rows = panel[panel["series"] == series].sort_values("x", key=lambda x: x.astype(float))
        if rows.empty:
            continue
        x = rows["x"].astype(float)
        x = x * 2 ** offsets[n] if data.log_x else x + offsets[n]
        _errorbar(ax, data, series, x, rows, linestyle="-")
    if data.log_x:
        ax.set_xscale("log", base=2)
        ax.minorticks_off()
    if len(values) > MAX_TICKS:  # a tick per value would crowd the labels: every k-th value instead
        step = math.ceil(len(values) / MAX_TICKS)
        values = values[::step]
    ax.set_xticks(values, [f"{v:g}" for v in values])


def _categories(ax: Any, data: FigureData, panel: Any) -> None:
    positions = {value: n for n, value in enumerate(data.x_order)}
    offsets = _offsets(len(data.series), 0.36)
    for n, series in enumerate(data.series):
        rows = panel[panel["series"] == series].copy()
        if rows.empty:
            continue
        rows["position"] = rows["x"].map(positions)
        rows = rows.sort_values("position")
        _errorbar(ax, data, series, rows["position"] + offsets[n], rows, linestyle="none")
    if len(data.x_order) <= WRAPPED_CATEGORIES:  # few categories: labels level, wrapped onto lines
        labels = [textwrap.fill(str(value), 16, break_on_hyphens=False) for value in data.x_order]
        ax.set_xticks(range(len(labels)), labels)
    else:  # many: slanted on one line each (lines of slanted text never cross), shortened (the CSV has
        # them whole)
        labels = [textwrap.shorten(str(value), 40, placeholder=" …") for value in data.x_order]
        ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_xlim(-0.6, len(labels) - 0.4)


def _errors(rows: Any) -> list[float]:
    """The SE of each point; no whisker (NaN) where there is none (one sample) or it is 0."""
    return [v if v > 0 else math.nan for v in rows["se"].astype(float).fillna(0.0)]


def _errorbar(ax: Any, data: FigureData, series: str, x: Any, rows: Any, *, linestyle: str) -> None:
    color = data.colors[series]
    ax.errorbar(
        list(x),
        list(rows["mean"].astype(float)),
        yerr=_errors(rows),
        label=series,
        color=COLORS[color % len(COLORS)],
        marker=MARKERS[color % len(MARKERS)],
        markersize=5,
        linestyle=linestyle,
        linewidth=1.3,
        capsize=3,
        elinewidth=1.0,
    )


def _histogram(ax: Any, data: FigureData, panel: Any) -> None:
    width = 1.0 / len(data.x_order)
    count = len(data.series)
    for n, series in enumerate(data.series):
        rows = panel[panel["series"] == series].copy()
        if rows.empty:
            continue
        rows["position"] = rows["x"].map({value: i for i, value in enumerate(data.x_order)})
        rows = rows.sort_values("position")
        color = COLORS[data.colors[series] % len(COLORS)]
        ax.bar(
            [width * (i + (n + 0.5) / count) for i in rows["position"]],
            list(rows["mean"].astype(float)),
            width=0.9 * width / count,
            yerr=_errors(rows),
            label=series,
            color=color,
            alpha=0.85,
            error_kw={"elinewidth": 0.8, "capsize": 2, "ecolor": "#333333"},
        )
    ticks = [n / len(data.x_order) for n in range(len(data.x_order) + 1)]
    ax.set_xticks(ticks, [f"{t:.1f}" for t in ticks])
    ax.set_xlim(0, 1)


DRAW = {"curve": _curve, "categories": _categories, "histogram": _histogram}


def draw(data: FigureData) -> Any:
    """The figure of `data` (a matplotlib Figure on the Agg canvas): a panel per task or judge, shared y
    from 0 to 1, one series per run, the legend below the panels. Call inside `figure_style()`."""
    figure, axes, columns = _new_figure(data)
    for ax, panel in zip(axes, data.panels, strict=True):
        DRAW[data.kind](ax, data, data.points[data.points["panel"] == panel])
        if not (len(axes) == 1 and panel == "MCQ"):  # the figure's title says MCQ already
            ax.set_title(TASK_NAMES.get(panel, panel.replace("judge:", "judge ", 1)))
        ax.set_ylim(0 if data.kind == "histogram" else -0.04, 1.04)
        ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    for n, ax in enumerate(axes):
        if n + columns >= len(axes):  # the lowest panel of its column
            ax.set_xlabel(data.xlabel)
        if n % columns == 0:
            ax.set_ylabel(data.ylabel)
    figure.suptitle(data.title)
    handles: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    ordered = [series for series in data.series if series in handles]
    figure.legend(
        [handles[s] for s in ordered],
        ordered,
        loc="outside lower center",
        ncols=min(len(ordered), 3),
        frameon=False,
        title="model",
    )
    return figure


def _sorted_points(data: FigureData) -> Any:
    points = data.points.copy()
    panels = {panel: n for n, panel in enumerate(data.panels)}
    series = {label: n for n, label in enumerate(data.series)}
    points["_panel"] = points["panel"].map(panels)
    points["_series"] = points["series"].map(series)
    if data.x_order:
        points["_x"] = points["x"].map({value: n for n, value in enumerate(data.x_order)})
    else:
        points["_x"] = points["x"].astype(float)
    points = points.sort_values(["_panel", "_series", "_x"], kind="stable")
    return points[list(POINT_COLUMNS)]


def build_figures(frame: Any) -> list[tuple[FigureData, Any]]:
    """Every figure the results table `frame` (a DataFrame from `lexsym.analysis.load_runs`) has data
    for, drawn. Call inside `figure_style()` to keep the fixed style at saving time."""
    return [(data, draw(data)) for data in figure_data(frame)]


def _save(figure: Any, data: FigureData, out_dir: Path) -> list[Path]:
    png, svg, csv = (out_dir / f"{data.name}.{suffix}" for suffix in ("png", "svg", "csv"))
    write_atomic_with(
        png, lambda temporary: figure.savefig(temporary, format="png", metadata={"Description": data.caption})
    )
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Description": data.caption})
    write_atomic(svg, buffer.getvalue())
    write_atomic(csv, _sorted_points(data).to_csv(index=False, lineterminator="\n"))
    return [png, svg, csv]


def write_figures(run_dirs: Iterable[str | Path], out_dir: str | Path) -> list[Path]:
    """Write NAME.png, NAME.svg and NAME.csv (the points plotted: panel, series, model, run, x, mean, se,
    n) into `out_dir` for every figure the runs have data for; the paths written, three per figure.
    InputError for a directory that is not a run (as `lexsym.analysis.load_table`)."""
    from lexsym.analysis.table import load_table

    frame = load_table(run_dirs).to_pandas()
    out_dir = Path(out_dir)
    written: list[Path] = []
    with figure_style():
        for data, figure in build_figures(frame):
            written += _save(figure, data, out_dir)
    return written
