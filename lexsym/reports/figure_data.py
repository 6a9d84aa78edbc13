"""The numbers behind each figure of `lexsym report --figures`: one tidy table of points per figure.

Why apart from the drawing: the CSV beside each figure is these points exactly (a reader re-plots or
quotes them without matplotlib), and the tests check them without looking at pixels.

Every point is a mean with its standard error, SE = sd/sqrt(n) (sample sd, ddof 1), over the samples of
one run (a series) at one x value in one panel. Repeats of a sample are averaged first, so a sample counts
once and n is the number of samples, not of calls. A point of one sample has no SE (left empty).
A series is a run: its label is the model, plus the run's name when two runs share the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lexsym.generate.suites import OBFUSCATION_PRESETS
from lexsym.law.tasks import Task

#: Columns of every figure's points (and CSV), in order.
POINT_COLUMNS = ("panel", "series", "model", "run", "x", "mean", "se", "n")
TASK_ORDER = ("AE", "EC", "EV", "NA", "OE", "MCQ", "OPEN")
SE_NOTE = "± SE (sd/√n)"
OBFUSCATION_PREFIX = "obfuscation."
_FLAG_NAMES = {
    "irrelevant_asset_facts": "asset distractors",
    "irrelevant_domicile_facts": "domicile distractors",
    "asset_opinions": "asset opinions",
    "domicile_opinions": "domicile opinions",
}
#: Categorical figures show at most this many categories (the most frequent), so labels stay legible.
MAX_CATEGORIES = 20
GRADE_BINS = 10


@dataclass
class FigureData:
    """One figure: what it shows (names, labels) and its points (a DataFrame with POINT_COLUMNS).

    kind: "curve" (numeric x, one line per series), "categories" (categorical x, one marker per series
    and category) or "histogram" (bars of shares over grade bins). `x_order` is the order of a categorical
    or binned x; `series` the legend order; `colors` each series' colour index, the same in every figure.
    """

    name: str
    title: str
    xlabel: str
    ylabel: str
    kind: str
    points: Any
    panels: list[str]
    series: list[str]
    colors: dict[str, int]
    x_order: list[Any] = field(default_factory=list)
    log_x: bool = False
    caption: str = ""


def series_labels(frame: Any) -> dict[str, str]:
    """Each run directory's legend label: its model, plus the run's name (or its path, when two runs have
    one name) when another run in `frame` has the same model."""
    runs = frame[["run_dir", "run", "model"]].drop_duplicates("run_dir")
    models = runs["model"].value_counts()
    names = runs["run"].value_counts()
    labels = {}
    for run_dir, run, model in runs.itertuples(index=False):
        if models[model] == 1:
            labels[run_dir] = str(model)
        else:
            labels[run_dir] = f"{model} ({run if names[run] == 1 else run_dir})"
    return labels


def _ordered_tasks(values: Any) -> list[str]:
    present = [str(value) for value in values]
    return sorted(set(present), key=lambda task: (TASK_ORDER.index(task) if task in TASK_ORDER else 99, task))


def summarise(frame: Any, *, panel: str | None, x: str, metric: str, labels: dict[str, str]) -> Any:
    """The points of `metric` by (panel, run, x): mean, SE and n over samples (repeats averaged first).
    `panel` None puts every row in one panel named after the task(s)."""
    import pandas as pd

    data = frame[frame[metric].notna() & frame[x].notna()].copy()
    if data.empty:
        return pd.DataFrame(columns=[*POINT_COLUMNS, "run_dir"])
    data["panel"] = data[panel].astype(str) if panel else " + ".join(_ordered_tasks(data["task"].unique()))
    data[metric] = data[metric].astype(float)
    keys = ["panel", "run_dir", "run", "model", x]
    per_sample = data.groupby([*keys, "task_id"], sort=False, dropna=False)[metric].mean().reset_index()
    grouped = per_sample.groupby(keys, sort=False, dropna=False)[metric]
    points = grouped.agg(mean="mean", sd="std", n="count").reset_index()
    points["se"] = points["sd"] / points["n"].pow(0.5)
    points["series"] = points["run_dir"].map(labels)
    points = points.rename(columns={x: "x"})
    return points[[*POINT_COLUMNS, "run_dir"]]


def obfuscation_setting(frame: Any) -> Any:
    """Per row, which obfuscation flags are on, named after the suites' presets: none, distractor,
    sycophancy, obfuscation (all four), or the presets and single flags that make it up ("distractor +
    asset opinions"); None where the row has no flags."""
    import pandas as pd

    columns = [c for c in frame.columns if c.startswith(OBFUSCATION_PREFIX)]
    flags = [c.removeprefix(OBFUSCATION_PREFIX) for c in columns]
    presets = sorted(
        (
            (name, frozenset(k for k, on in preset.items() if on))
            for name, preset in OBFUSCATION_PRESETS.items()
        ),
        key=lambda item: -len(item[1]),
    )
    known = list(_FLAG_NAMES)

    def name(values: tuple[Any, ...]) -> str | None:
        if all(pd.isna(value) for value in values):
            return None
        on = {flag for flag, value in zip(flags, values, strict=True) if not pd.isna(value) and value}
        exact = [preset for preset, members in presets if members == on]
        if exact:
            return exact[0]
        parts = []
        for preset, members in presets:
            if members and members <= on:
                parts.append(preset)
                on -= members
        ordered = sorted(on, key=lambda flag: (known.index(flag) if flag in known else len(known), flag))
        return " + ".join([*parts, *(_FLAG_NAMES.get(flag, flag) for flag in ordered)])

    names = [name(tuple(values)) for values in frame[columns].itertuples(index=False)]
    return pd.Series(names, index=frame.index, dtype=object)


def obfuscation_order(values: Any) -> list[str]:
    presets = list(OBFUSCATION_PRESETS)
    present = {str(value) for value in values}
    return sorted(present, key=lambda v: (presets.index(v) if v in presets else len(presets), v))


def _distinct(frame: Any, column: str) -> int:
    return int(frame[column].dropna().nunique()) if column in frame.columns else 0


def _run_order(frame: Any) -> dict[str, int]:
    return {run_dir: n for n, run_dir in enumerate(dict.fromkeys(frame["run_dir"]))}


def _finish(points: Any, order: dict[str, int], **fields: Any) -> FigureData:
    """The figure of `points`: its series in the order of the runs given (colours come later)."""
    runs = dict(zip(points["run_dir"], points["series"], strict=True))
    return FigureData(
        points=points,
        panels=_ordered_tasks(points["panel"].unique()),
        series=[runs[run_dir] for run_dir in order if run_dir in runs],
        colors={},
        **fields,
    )


#: F1 curves: (figure name, x column, x label, title). x labels carry their unit.
F1_CURVES = (
    ("f1_by_asset_count", "asset_count", "assets in the case (count)", "F1 by number of assets"),
    (
        "f1_by_domicile_count",
        "domicile_count",
        "domiciles in the debtor's history (count)",
        "F1 by number of domiciles",
    ),
    (
        "f1_by_solved_steps",
        "n_solved_steps",
        "earlier steps given solved in the prompt (count)",
        "F1 by steps given solved",
    ),
)


def _varying(points: Any) -> Any:
    """The panels of `points` with two x values or more: a task that never varies along x (AE is never
    given solved steps) has no curve to show."""
    spread = points.groupby("panel")["x"].transform("nunique")
    return points[spread >= 2]


def f1_figures(frame: Any, order: dict[str, int]) -> list[FigureData]:
    """F1 against asset count, domicile count, solved steps and obfuscation setting: a panel per
    generated task (AE..OE) that varies along x."""
    scored = frame[frame["f1"].notna() & frame["task"].isin([task.value for task in Task])]
    if scored.empty:
        return []
    if any(c.startswith(OBFUSCATION_PREFIX) for c in scored.columns):
        scored = scored.assign(obfuscation_setting=obfuscation_setting(scored))
    curves = [(name, column, xlabel, title, "curve") for name, column, xlabel, title in F1_CURVES]
    curves.append(
        (
            "f1_by_obfuscation",
            "obfuscation_setting",
            "obfuscation setting (flags on in the prompt)",
            "F1 by obfuscation setting",
            "categories",
        )
    )
    found = []
    for name, column, xlabel, title, kind in curves:
        if column not in scored.columns:
            continue
        rows = scored[scored[column].notna()]
        if rows.empty:
            continue
        points = _varying(summarise(rows, panel="task", x=column, metric="f1", labels=series_labels(rows)))
        if points.empty:
            continue
        found.append(
            _finish(
                points,
                order,
                name=name,
                title=f"{title}, per task and model",
                xlabel=xlabel,
                ylabel=f"mean F1 {SE_NOTE}",
                kind=kind,
                x_order=obfuscation_order(points["x"]) if kind == "categories" else [],
                caption="Points: mean F1 over samples; bars: standard error of the mean (sd/√n); "
                "one panel per task.",
            )
        )
    return found


#: MCQ accuracy by a categorical field: (metadata column, x label).
MCQ_GROUPS = (
    ("course", "course"),
    ("language", "language of the question (code)"),
    ("area", "area of law"),
)


def mcq_figures(frame: Any, order: dict[str, int]) -> list[FigureData]:
    """MCQ accuracy against the number of choices, and by course, language and area."""
    mcq = frame[(frame["task"] == "MCQ") & frame["accuracy"].notna()]
    if mcq.empty:
        return []
    labels = series_labels(mcq)
    found = []
    caption = "Points: accuracy (share of questions answered right); bars: SE of the mean (sd/√n)."
    if _distinct(mcq, "n_choices") >= 2:
        points = summarise(mcq, panel=None, x="n_choices", metric="accuracy", labels=labels)
        values = sorted(points["x"].unique())
        found.append(
            _finish(
                points,
                order,
                name="mcq_accuracy_by_choices",
                title="MCQ accuracy by number of choices, per model",
                xlabel="choices per question (count"
                + (", log scale)" if values[-1] / values[0] >= 4 else ")"),
                ylabel=f"accuracy {SE_NOTE}",
                kind="curve",
                log_x=values[-1] / values[0] >= 4,
                caption=caption,
            )
        )
    for column, xlabel in MCQ_GROUPS:
        if _distinct(mcq, column) < 2:
            continue
        common = mcq[column].dropna().astype(str).value_counts()
        kept = sorted(common.index[:MAX_CATEGORIES], key=lambda v: (-common[v], v))
        shown = mcq[mcq[column].astype(str).isin(kept) & mcq[column].notna()]
        points = summarise(shown, panel=None, x=column, metric="accuracy", labels=series_labels(shown))
        more = f" ({MAX_CATEGORIES} most frequent of {len(common)})" if len(common) > MAX_CATEGORIES else ""
        found.append(
            _finish(
                points,
                order,
                name=f"mcq_accuracy_by_{column}",
                title=f"MCQ accuracy by {column}{more}, per model",
                xlabel=xlabel,
                ylabel=f"accuracy {SE_NOTE}",
                kind="categories",
                x_order=kept,
                caption=caption,
            )
        )
    return found


def _grade_bin(grade: float) -> str:
    index = min(int(grade * GRADE_BINS), GRADE_BINS - 1)
    return f"{index / GRADE_BINS:.1f}-{(index + 1) / GRADE_BINS:.1f}"


def grade_figure(frame: Any, order: dict[str, int]) -> list[FigureData]:
    """The distribution of judge grades per model: a panel for the combined grade and, with several
    judges, one per judge. Each bar is the share of a run's graded answers in the bin, ± its SE."""
    import pandas as pd

    judges = [c for c in frame.columns if c.startswith("judge:")]
    columns = [("judge_grade", "combined grade")] if "judge_grade" in frame.columns else []
    if len(judges) > 1:
        columns += [(c, c) for c in judges]
    graded = frame[frame[[c for c, _ in columns]].notna().any(axis=1)] if columns else frame.iloc[:0]
    if graded.empty:
        return []
    labels = series_labels(graded)
    bins = [_grade_bin((n + 0.5) / GRADE_BINS) for n in range(GRADE_BINS)]
    parts = []
    for column, panel in columns:
        rows = graded[graded[column].notna()]
        if rows.empty:
            continue
        rows = rows.assign(panel=panel, bin=rows[column].astype(float).map(_grade_bin))
        for grade_bin in bins:
            indicator = rows.assign(share=(rows["bin"] == grade_bin).astype(float), x=grade_bin)
            parts.append(summarise(indicator, panel="panel", x="x", metric="share", labels=labels))
    points = pd.concat(parts, ignore_index=True)
    data = _finish(
        points,
        order,
        name="judge_grades",
        title="Judge grade distribution, per model",
        xlabel=f"judge grade (0-1, bins of {1 / GRADE_BINS:.1f})",
        ylabel=f"share of graded answers {SE_NOTE}",
        kind="histogram",
        x_order=bins,
        caption="Bars: share of a run's graded answers in each grade bin; whiskers: SE of that share.",
    )
    data.panels = [panel for _, panel in columns if panel in set(points["panel"])]
    return [data]


def figure_data(frame: Any) -> list[FigureData]:
    """Every figure the results table has data for, in a fixed order."""
    if frame.empty:
        return []
    order = _run_order(frame)
    figures = [*f1_figures(frame, order), *mcq_figures(frame, order), *grade_figure(frame, order)]
    colors: dict[str, int] = {}
    for figure in figures:  # a label keeps its colour in every figure (the model's, when it is alone)
        for series in figure.series:
            colors.setdefault(series, len(colors))
        figure.colors = {series: colors[series] for series in figure.series}
    return figures
