"""Judge bias: model families from ids, and a judged run that flags a judge grading its own family's (or
its own) answers, in judged.json and in the rendered table, with each judge's grade beside the ensemble's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from lexsym.judges.families import judge_bias, model_family, model_name
from lexsym.judges.report import render_judged
from lexsym.judges.scores import JudgedReport, read_judged, rescore_run
from lexsym.judges.session import judge_run
from lexsym.judges.settings import JudgeOptions, JudgeSpec
from lexsym.models.base import Completion, GenerationParams
from lexsym.runner.limits import RetryPolicy
from lexsym.runner.run import run_tasks
from lexsym.runner.run_options import RunOptions

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "exams"


@pytest.mark.parametrize(
    ("model_id", "family"),
    [
        ("litellm:openai/gpt-4o", "openai"),
        ("litellm:gpt-4o-mini", "openai"),
        ("litellm:openai/o1", "openai"),
        ("litellm:o3-mini", "openai"),
        ("litellm:openai/o4-mini", "openai"),
        ("litellm:azure/gpt-4o", "openai"),
        ("litellm:anthropic/claude-sonnet-4-5", "anthropic"),
        ("litellm:claude-3-5-haiku-20241022", "anthropic"),
        ("litellm:openrouter/anthropic/claude-3.5-sonnet", "anthropic"),
        ("litellm:bedrock/anthropic.claude-3-sonnet-20240229-v1:0", "anthropic"),
        ("litellm:gemini/gemini-1.5-pro", "google"),
        ("litellm:openrouter/google/gemma-2-9b-it", "google"),
        ("vllm:google/gemma-3-27b-it", "google"),
        ("vllm:meta-llama/Llama-3.1-8B-Instruct", "meta"),
        ("litellm:together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo", "meta"),
        ("vllm:Qwen/Qwen3-8B", "qwen"),
        ("litellm:hosted_vllm/Qwen/Qwen3-32B", "qwen"),
        ("litellm:openrouter/qwen/qwq-32b", "qwen"),
        ("litellm:deepseek/deepseek-chat", "deepseek"),
        ("vllm:deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "deepseek"),  # the distiller, not its base
        ("litellm:mistral/mistral-large-latest", "mistral"),
        ("litellm:groq/mixtral-8x7b-32768", "mistral"),
        ("litellm:xai/grok-2", "xai"),
        ("litellm:openrouter/x-ai/grok-3", "xai"),
        ("litellm:cohere/command-r", "cohere"),  # no known name: the vendor the id names
        ("vllm:allenai/OLMo-2-1124-7B-Instruct", "allenai"),
        ("litellm:hosted_vllm/my-finetune", "hosted_vllm"),  # only the route names it
        ("lexsym:oracle", "lexsym"),
        ("lexsym:baseline", "lexsym"),
        ("lexsym:slow-oracle:0.2", "lexsym"),
    ],
)
def test_model_family(model_id: str, family: str) -> None:
    assert model_family(model_id) == family


def test_no_openai_family_hidden_inside_another_name() -> None:
    assert model_family("vllm:acme/foo3-o1x") == "acme"
    assert model_family("litellm:openrouter/acme/solo1") == "acme"


def test_self_is_the_same_model_however_it_is_served() -> None:
    assert (
        model_name("vllm:Qwen/Qwen3-8B") == model_name("litellm:hosted_vllm/Qwen/Qwen3-8B") == "qwen/qwen3-8b"
    )
    bias = judge_bias(
        ["litellm:hosted_vllm/Qwen/Qwen3-8B", "vllm:Qwen/Qwen3-32B", "litellm:gpt-4o"], "vllm:Qwen/Qwen3-8B"
    )
    assert [(b.family, b.same_family_as_answering, b.self, b.flag) for b in bias.values()] == [
        ("qwen", True, True, "self"),
        ("qwen", True, False, "same family"),
        ("openai", False, False, ""),
    ]
    assert judge_bias(["litellm:gpt-4o"], None) == {}


ANSWERING = "litellm:anthropic/claude-sonnet-4-5"
SAME_FAMILY = "litellm:openrouter/anthropic/claude-3.5-sonnet"
OTHER = "litellm:openai/gpt-4o-mini"


class Answers:
    """An answering model with a real model's id, answering without a call."""

    id = ANSWERING
    cacheable = False

    async def generate(self, messages, params: GenerationParams, *, task=None) -> Completion:
        return Completion(text="The debtor may keep the homestead.", finish_reason="stop")


@pytest.fixture
def judged_run(tmp_path: Path, stub, offline) -> Path:
    from lexsym.exams.datasets import load_exam
    from lexsym.exams.tasks import ConvertOptions, convert

    tasks = tmp_path / "tasks"
    convert(load_exam(FIXTURES / "lexam_open.jsonl", "lexam-open"), tasks, ConvertOptions())
    run = tmp_path / "run"
    run_tasks(Answers(), tasks, run, options=RunOptions(concurrency=1, progress=False, cache=False))
    # Per sample: the same-family judge, then the other one (concurrency 1); the same-family judge is kinder.
    stub.say("[[0.9]]", "[[0.5]]", "[[1.0]]", "[[0.6]]", "[[0.8]]", "[[0.4]]", "[[0.9]]", "[[0.3]]")
    options = JudgeOptions(
        judges=(JudgeSpec(SAME_FAMILY), JudgeSpec(OTHER)),
        concurrency=1,
        cache_dir=tmp_path / "cache",
        retry=RetryPolicy(base=0.01, cap=0.05, max_attempts=2),
    )
    judge_run(run, options, model_options={"api_base": stub.url})
    return run


def test_a_judge_of_the_answering_models_family_is_flagged_in_judged_json(judged_run: Path) -> None:
    judged = json.loads((judged_run / "judged.json").read_text())
    assert judged["answering_model"] == ANSWERING and judged["answering_family"] == "anthropic"
    assert judged["judge_bias"] == {
        SAME_FAMILY: {"family": "anthropic", "same_family_as_answering": True, "self": False},
        OTHER: {"family": "openai", "same_family_as_answering": False, "self": False},
    }
    assert judged["reference_by_judge"][SAME_FAMILY]["mean"] == pytest.approx(0.9)
    assert judged["reference_by_judge"][OTHER]["mean"] == pytest.approx(0.45)
    assert judged["reference"]["mean"] == pytest.approx(0.45)  # min of the two
    # A rescore (no judge call) keeps the flags; a judged.json from before them still reads.
    assert rescore_run(judged_run).judge_bias[SAME_FAMILY].same_family_as_answering
    old = {k: v for k, v in judged.items() if k not in ("answering_model", "answering_family", "judge_bias")}
    assert JudgedReport.model_validate(old).judge_bias == {}


def test_the_table_shows_each_judges_grade_beside_the_ensembles_and_flags_the_family(
    judged_run: Path,
) -> None:
    report = read_judged(judged_run)
    console = Console(record=True, width=200)
    render_judged(report, console)
    text = console.export_text()
    rows = {line.split("│")[1].strip(): line for line in text.splitlines() if line.count("│") > 3}
    same, other, ensemble = rows[f"judge {SAME_FAMILY}"], rows[f"judge {OTHER}"], rows["ensemble (min)"]
    assert "0.900" in same and "+0.450" in same and "anthropic" in same and "same family" in same
    assert "0.450" in other and "+0.000" in other and "openai" in other and "same family" not in other
    assert "0.450" in ensemble and "answering: anthropic" in ensemble and "same family" not in ensemble
    warning = [line for line in text.splitlines() if line.startswith("Judge bias:")]
    assert len(warning) == 1 and SAME_FAMILY in warning[0] and "(anthropic)" in warning[0]
    assert OTHER not in warning[0]


def test_no_flag_and_no_warning_when_no_judge_shares_the_family(judged_run: Path) -> None:
    report = read_judged(judged_run)
    report.judge_bias = judge_bias(report.judges, "lexsym:oracle")
    console = Console(record=True, width=200)
    render_judged(report, console)
    text = console.export_text()
    assert "Judge bias:" not in text and "same family" not in text
