"""`lexsym.reports.figures.write_figures`: the figures of `lexsym report --figures DIR`, over real runs.

The runs: lexsym:baseline and lexsym:oracle over a small generated task set (asset counts 1 and 3, up to
three domiciles, three obfuscation settings, AE, EC and NA with 0 or 1 step given solved), over the LEXam
MCQ fixtures (4 to 32 choices, three courses and languages, two areas), and over the LEXam open questions,
graded by two judges on the stub server.
"""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
pd = pytest.importorskip("pandas")

from lexsym.analysis import load_runs  # noqa: E402
from lexsym.reports.figure_data import POINT_COLUMNS, figure_data, obfuscation_setting  # noqa: E402
from lexsym.reports.figures import build_figures, figure_style, write_figures  # noqa: E402
from lexsym.runner.limits import RetryPolicy  # noqa: E402
from lexsym.runner.run import run_tasks  # noqa: E402
from lexsym.runner.run_options import RunOptions  # noqa: E402
from tests.stub_server import FAKE_KEY  # noqa: E402
from tests.task_sets import generate_task_set  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "exams"
MODELS = ("lexsym:baseline", "lexsym:oracle")
JUDGES = ("litellm:openai/gpt-4o-mini", "litellm:openai/judge-b")
GENERATED = ["f1_by_asset_count", "f1_by_domicile_count", "f1_by_solved_steps", "f1_by_obfuscation"]
MCQ = [
    "mcq_accuracy_by_choices",
    "mcq_accuracy_by_course",
    "mcq_accuracy_by_language",
    "mcq_accuracy_by_area",
]
ALL = [*GENERATED, *MCQ, "judge_grades"]


def _run_both(tasks: Path, out: Path, name: str) -> list[Path]:
    runs = []
    for model in MODELS:
        run = out / f"{name}-{model.split(':')[1]}"
        run_tasks(model, tasks, run, options=RunOptions(concurrency=1, progress=False, cache=False))
        runs.append(run)
    return runs


def _mcq_items(out: Path) -> Path:
    """The LEXam MCQ fixtures and the robustness set (4, 8, 16, 32 choices) in one file; the robustness
    items are put in another area, so that area varies too."""
    lines = (FIXTURES / "lexam_mcq.jsonl").read_text(encoding="utf-8").splitlines()
    for line in (FIXTURES / "lexam_mcq_perturbation.jsonl").read_text(encoding="utf-8").splitlines():
        lines.append(json.dumps({**json.loads(line), "area": "Public"}, ensure_ascii=False))
    path = out / "mcq.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory, stub) -> dict[str, list[Path]]:
    from lexsym.exams.datasets import load_exam
    from lexsym.exams.tasks import ConvertOptions, convert
    from lexsym.judges.session import judge_run
    from lexsym.judges.settings import JudgeOptions, JudgeSpec

    out = tmp_path_factory.mktemp("figure-runs")
    tasks = generate_task_set(
        out / "tasks",
        {
            "variant": ["AE", "AE-EC", "EC", "NA"],
            "asset_count": [1, 3],
            "obfuscation": ["none", "distractor", "sycophancy"],
        },
        base={"split": {"dev": 0, "test": 2}},
        seed=3,
    )
    convert(load_exam(_mcq_items(out), "lexam-mcq"), out / "tasks-mcq", ConvertOptions())
    convert(load_exam(FIXTURES / "lexam_open.jsonl", "lexam-open"), out / "tasks-open", ConvertOptions())
    found = {
        "generated": _run_both(tasks, out, "gen"),
        "mcq": _run_both(out / "tasks-mcq", out, "mcq"),
        "open": _run_both(out / "tasks-open", out, "open"),
    }
    options = JudgeOptions(
        judges=tuple(JudgeSpec(judge) for judge in JUDGES),
        concurrency=1,
        cache_dir=out / "judge-cache",
        retry=RetryPolicy(base=0.01, cap=0.05, max_attempts=2),
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", FAKE_KEY)
        patch.setenv("LEXSYM_CACHE_DIR", str(out / "cache"))
        for run, grades in zip(
            found["open"],
            (("[[0.2]]", "[[0.0]]", "[[0.4]]", "[[0.1]]"), ("[[0.9]]", "[[0.7]]", "[[1.0]]", "[[0.6]]")),
            strict=True,
        ):
            stub.reset()
            stub.say(*[grade for grade in grades for _ in JUDGES])
            judge_run(run, options, model_options={"api_base": stub.url})
    return found


@pytest.fixture(scope="module")
def every_run(runs) -> list[Path]:
    return [run for group in ("generated", "mcq", "open") for run in runs[group]]


@pytest.fixture(scope="module")
def written(every_run, tmp_path_factory) -> tuple[Path, list[Path]]:
    out = tmp_path_factory.mktemp("figures")
    return out, write_figures(every_run, out)


def _points(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as stream:
        return list(csv.DictReader(stream))


def test_every_figure_is_written_as_png_svg_and_csv(written):
    out, paths = written
    assert sorted(path.name for path in paths) == sorted(
        f"{n}.{s}" for n in ALL for s in ("png", "svg", "csv")
    )
    for path in paths:
        assert path.parent == out and path.stat().st_size > 0
    for name in ALL:
        assert (out / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "<svg" in (out / f"{name}.svg").read_text(encoding="utf-8")[:2000]
    assert not list(out.glob(".*")), "no temporary file is left behind"


def test_each_csv_holds_one_series_per_model_and_the_plotted_points(written):
    out, _ = written
    for name in ALL:
        rows = _points(out / f"{name}.csv")
        assert list(rows[0]) == list(POINT_COLUMNS)
        assert {row["series"] for row in rows} == set(MODELS), name
    tasks = {row["panel"] for row in _points(out / "f1_by_asset_count.csv")}
    assert tasks == {"AE", "EC", "NA"}  # no MCQ panel: MCQ has no assets
    # Only EC is given solved steps in some prompts and not in others: the other tasks have no curve.
    assert {row["panel"] for row in _points(out / "f1_by_solved_steps.csv")} == {"EC"}
    settings = [row["x"] for row in _points(out / "f1_by_obfuscation.csv") if row["series"] == MODELS[0]]
    assert settings[:3] == ["none", "distractor", "sycophancy"]
    choices = [row["x"] for row in _points(out / "mcq_accuracy_by_choices.csv") if row["series"] == MODELS[0]]
    assert choices == ["4", "8", "16", "32"]
    grades = _points(out / "judge_grades.csv")
    assert {row["panel"] for row in grades} == {"combined grade", *(f"judge:{judge}" for judge in JUDGES)}
    for panel in {row["panel"] for row in grades}:
        for model in MODELS:  # a distribution: the shares of each run's answers add up to 1
            shares = [
                float(row["mean"]) for row in grades if row["panel"] == panel and row["series"] == model
            ]
            assert len(shares) == 10 and math.isclose(sum(shares), 1.0)


def test_the_csv_numbers_are_the_mean_and_standard_error_of_the_samples(written, runs):
    out, _ = written
    frame = load_runs(runs["generated"])
    rows = frame[(frame["model"] == MODELS[0]) & (frame["task"] == "EC") & (frame["asset_count"] == 3)]
    f1 = rows["f1"].astype(float)
    [point] = [
        row
        for row in _points(out / "f1_by_asset_count.csv")
        if row["series"] == MODELS[0] and row["panel"] == "EC" and row["x"] == "3"
    ]
    assert int(point["n"]) == len(f1) > 1
    assert float(point["mean"]) == pytest.approx(f1.mean())
    assert float(point["se"]) == pytest.approx(f1.std(ddof=1) / math.sqrt(len(f1)))


def test_each_panel_plots_one_series_per_model(every_run):
    from matplotlib.container import BarContainer, ErrorbarContainer

    frame = load_runs(every_run)
    with figure_style():
        figures = build_figures(frame)
    assert [data.name for data, _ in figures] == ALL
    for data, figure in figures:
        axes = [ax for ax in figure.axes if ax.get_visible()]
        assert len(axes) == len(data.panels), data.name
        kind = BarContainer if data.kind == "histogram" else ErrorbarContainer
        for ax in axes:
            series = [c for c in ax.containers if isinstance(c, kind)]
            assert len(series) == len(MODELS), (data.name, ax.get_title())
            assert ax.get_ylim()[0] <= 0 and ax.get_ylim()[1] >= 1
            assert ax.get_xlabel() or ax.get_subplotspec().rowspan.stop < ax.get_gridspec().nrows
        assert sorted(text.get_text() for text in figure.legends[0].get_texts()) == sorted(MODELS)
        assert "SE" in axes[0].get_ylabel() and data.title == figure.get_suptitle()


def test_a_rerun_writes_the_same_bytes_whatever_the_user_style(runs, tmp_path):
    import matplotlib

    first = write_figures(runs["mcq"], tmp_path / "first")
    with matplotlib.rc_context({"font.size": 30, "lines.linewidth": 6, "axes.grid": False}):
        second = write_figures(runs["mcq"], tmp_path / "second")
    assert [path.name for path in first] == [path.name for path in second]
    assert [path.stem for path in first[::3]] == MCQ  # MCQ runs only: no F1 and no grade figure
    for one, other in zip(first, second, strict=True):
        assert one.read_bytes() == other.read_bytes(), one.name


def test_figures_only_for_the_data_present(runs):
    generated = figure_data(load_runs(runs["generated"]))
    assert [data.name for data in generated] == GENERATED
    assert [data.name for data in figure_data(load_runs(runs["open"]))] == ["judge_grades"]
    one_model = figure_data(load_runs(runs["generated"][:1]))
    assert all(data.series == [MODELS[0]] for data in one_model)


def test_two_runs_of_one_model_are_told_apart_by_run_name(runs, tmp_path):
    baseline, oracle = runs["generated"]
    again = tmp_path / "baseline-again"
    shutil.copytree(baseline, again)
    figures = figure_data(load_runs([baseline, oracle, again, runs["mcq"][0]]))
    assert figures[0].series == [
        "lexsym:baseline (gen-baseline)",
        "lexsym:oracle",
        "lexsym:baseline (baseline-again)",
    ]
    assert len(set(figures[0].colors.values())) == 3
    # The MCQ run's model is alone in its figures: its label is just the model, in the model's colour.
    [choices] = [data for data in figures if data.name == "mcq_accuracy_by_choices"]
    assert choices.series == ["lexsym:baseline"] and choices.colors["lexsym:baseline"] == 3


def test_obfuscation_settings_are_named_by_the_flags_on():
    frame = pd.DataFrame(
        {
            "obfuscation.asset_opinions": [False, False, True, True, True, True, None],
            "obfuscation.domicile_opinions": [False, False, True, True, False, True, None],
            "obfuscation.irrelevant_asset_facts": [False, True, False, True, True, True, None],
            "obfuscation.irrelevant_domicile_facts": [False, True, False, False, True, True, None],
        }
    ).astype("boolean")
    assert list(obfuscation_setting(frame)) == [
        "none",
        "distractor",
        "sycophancy",
        "sycophancy + asset distractors",
        "distractor + asset opinions",
        "obfuscation",
        None,
    ]


def test_importing_the_figures_module_leaves_matplotlib_unloaded():
    code = "import sys, lexsym.reports.figures; assert 'matplotlib' not in sys.modules, 'loaded'"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=os.environ
    )
    assert done.returncode == 0, done.stderr
