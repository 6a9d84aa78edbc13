"""The eval-set file: which models over which task sets, with which run and judge options (YAML).

    out: evals/2025-06                # the tree's root (relative paths: to this file's folder)
    tasks:                            # task directories; a list (named by their folder) or a mapping
      basic: out/basic
      exams: out/lexam-open
    models:
      - lexsym:baseline
      - id: litellm:anthropic/claude-sonnet-4-5
        max_tokens: 4096
        model_options: {reasoning_effort: low, timeout: 120}
      - id: vllm:Qwen/Qwen3-8B
        name: qwen3-8b                # the run folder (default: a slug of the id)
        model_options: {max_model_len: 16384}
        concurrency: 64
    temperature: 0                    # shared defaults; a model's own entry wins
    seed: 0
    limit: 200
    where: [asset_count>=2]
    max_failure_rate: 0.05
    judges:                           # optional: judge the runs whose tasks include open questions
      models:
        - litellm:openai/gpt-4o
        - {id: litellm:hosted_vllm/Qwen/Qwen3-32B, api_base: "http://gpu:8000/v1"}
      ensemble: min
      temperature: 0
      seed: 0

Keys are the options of `lexsym run` and `lexsym judge` (with `_` or `-`), checked with pydantic: a key
that is not one, or a value of the wrong kind, is one line naming the file and the field
(`evals.yaml: models[1].temprature: not a field of this section`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from lexsym._util.errors import InputError

SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
"""A safe folder name: what task set names and model `name`s must be."""

_BACKENDS = ("litellm:", "vllm:", "lexsym:")


def _model_id(value: str) -> str:
    if not value.startswith(_BACKENDS):
        raise ValueError(f"{value!r}: use litellm:<provider>/<model>, vllm:<model> or lexsym:<name>")
    return value


def _normal_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key).replace("-", "_"): item for key, item in value.items()}
    return value


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _dashes(cls, value: Any) -> Any:
        return _normal_keys(value)


class GenerationDefaults(_Section):
    """Generation settings: shared at the top of the file, and a model's own in its entry."""

    temperature: float | None = None
    max_tokens: int | None = Field(None, ge=1)
    seed: int | None = None
    top_p: float | None = Field(None, gt=0, le=1)
    repeats: int | None = Field(None, ge=1)
    concurrency: int | None = Field(None, ge=1)
    rpm: float | None = Field(None, ge=0)


class ModelEntry(GenerationDefaults):
    """One answering model: its id (as `lexsym run --model` takes it) and its own options."""

    id: str
    name: str | None = Field(None, description="The run folder's name (default: a slug of the id).")
    model_options: dict[str, Any] = Field(default_factory=dict, description="`-M key=value` as a mapping.")
    api_base: str | None = None

    @field_validator("id")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        return _model_id(value)

    @field_validator("name")
    @classmethod
    def _safe_name(cls, value: str | None) -> str | None:
        if value is not None and not SLUG.fullmatch(value):
            raise ValueError(f"{value!r}: a folder name of letters, digits, '.', '_' and '-'")
        return value

    @model_validator(mode="after")
    def _one_endpoint(self) -> ModelEntry:
        if self.api_base is not None and "api_base" in self.model_options:
            raise ValueError("api_base is given twice (api_base and model_options.api_base)")
        return self


class JudgeEntry(_Section):
    """One judge: its model id and its own backend options (those of `-J` and `--judge-api-base`)."""

    id: str
    api_base: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        return _model_id(value)


class JudgesSection(_Section):
    """`judges:` — the options of `lexsym judge`, applied to every run whose tasks include open ones."""

    models: list[JudgeEntry] = Field(min_length=1)
    judge_options: dict[str, Any] = Field(
        default_factory=dict, description="`-J key=value` for every judge that is not a local lexsym: one."
    )
    api_base: str | None = Field(None, description="The endpoint of every judge without its own.")
    ensemble: Literal["min", "mean", "median"] = "min"
    partial: bool = False
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int | None = Field(None, ge=1)
    retries: int = Field(2, ge=0)
    concurrency: int = Field(8, ge=1)
    rpm: float = Field(0.0, ge=0)
    fail_fast: int | None = Field(None, ge=1)
    max_failure_rate: float | None = Field(None, ge=0, lt=1)
    retry_errors: bool = False

    @model_validator(mode="before")
    @classmethod
    def _short_forms(cls, value: Any) -> Any:
        if isinstance(value, (list, str)):
            value = {"models": value}  # `judges: [m1, m2]`, or one judge
        value = _normal_keys(value)
        if isinstance(value, dict):
            models = value.get("models")
            models = [models] if isinstance(models, (str, dict)) else models
            if isinstance(models, list):
                value = {**value, "models": [{"id": m} if isinstance(m, str) else m for m in models]}
        return value

    @model_validator(mode="after")
    def _each_judge_once(self) -> JudgesSection:
        ids = [entry.id for entry in self.models]
        twice = next((i for n, i in enumerate(ids) if i in ids[:n]), None)
        if twice is not None:
            raise ValueError(f"judges.models: {twice} is given twice")
        return self


class EvalSetConfig(GenerationDefaults):
    """The whole file."""

    out: Path
    tasks: dict[str, Path] = Field(min_length=1)
    models: list[ModelEntry] = Field(min_length=1)
    judges: JudgesSection | None = None
    limit: int | None = Field(None, ge=1)
    filters: list[str] = Field(default_factory=list)
    where: list[str] = Field(default_factory=list)
    sample_ids: list[str] = Field(default_factory=list)
    fail_fast: int | None = Field(None, ge=1)
    max_failure_rate: float | None = Field(None, ge=0, lt=1)
    no_cache: bool = False
    cache_dir: Path | None = None
    retry_base: float = Field(1.0, gt=0)
    retry_cap: float = Field(60.0, gt=0)
    max_attempts: int = Field(6, ge=1)
    retry_errors: bool = False
    score: bool = True

    @model_validator(mode="before")
    @classmethod
    def _short_forms(cls, value: Any) -> Any:
        value = _normal_keys(value)
        if not isinstance(value, dict):
            return value
        value = dict(value)
        for key in ("filters", "where", "sample_ids"):  # one condition needs no list
            if isinstance(value.get(key), str):
                value[key] = [value[key]]
        models = value.get("models")
        if isinstance(models, list):
            value["models"] = [{"id": m} if isinstance(m, str) else m for m in models]
        tasks = value.get("tasks")
        if isinstance(tasks, str):
            tasks = [tasks]
        if isinstance(tasks, list):
            named: dict[str, Any] = {}
            for index, item in enumerate(tasks):
                if not isinstance(item, str):
                    raise ValueError(f"tasks[{index}]: a task directory, not {type(item).__name__}")
                path = Path(item)
                name = (path.parent if path.name == "tasks.jsonl" else path).name
                if name in named:
                    raise ValueError(
                        f"tasks: two task sets named {name!r}: "
                        "give tasks as a mapping of names to directories"
                    )
                named[name] = item
            value["tasks"] = named
        return value

    @field_validator("tasks")
    @classmethod
    def _safe_task_names(cls, value: dict[str, Path]) -> dict[str, Path]:
        for name in value:
            if not SLUG.fullmatch(name):
                raise ValueError(
                    f"{name!r}: a task set name is a folder name (letters, digits, '.', '_', '-')"
                )
        return value

    @model_validator(mode="after")
    def _each_model_once(self) -> EvalSetConfig:
        seen: dict[str, int] = {}
        for index, entry in enumerate(self.models):
            key = entry.model_dump_json(exclude={"name"})
            if key in seen:
                raise ValueError(f"models[{index}]: the same model and options as models[{seen[key]}]")
            seen[key] = index
        names = [entry.name.lower() for entry in self.models if entry.name]
        twice = next((name for n, name in enumerate(names) if name in names[:n]), None)
        if twice is not None:
            raise ValueError(f"models: two entries named {twice!r}")
        return self

    def resolved(self, base: Path) -> EvalSetConfig:
        """The config with its relative paths (out, tasks, cache_dir) made relative to `base`."""

        def at(path: Path) -> Path:
            return path if path.expanduser().is_absolute() else base / path

        return self.model_copy(
            update={
                "out": at(self.out.expanduser()),
                "tasks": {name: at(path.expanduser()) for name, path in self.tasks.items()},
                "cache_dir": None if self.cache_dir is None else at(self.cache_dir.expanduser()),
            }
        )


def _where(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _message(error: dict[str, Any]) -> str:
    if error["type"] == "extra_forbidden":
        return "not a field of this section"
    if error["type"] == "missing":
        return "missing (required)"
    message = str(error["msg"]).removeprefix("Value error, ")
    given = error.get("input")
    if error["type"] not in ("value_error",) and not isinstance(given, (dict, list)):
        message += f" (given: {given!r})"
    return message


def parse_config(data: Any, path: Path) -> EvalSetConfig:
    """The config of a YAML document read from `path`, its paths resolved against the file's folder;
    InputError, one line naming the file and the first bad field."""
    if not isinstance(data, dict):
        raise InputError(f"{path}: an eval-set file is a mapping (out:, tasks:, models:, ...)")
    try:
        config = EvalSetConfig.model_validate(data)
    except ValidationError as error:
        errors = error.errors()
        # A misspelt key is the likeliest cause of a missing one beside it: name it first.
        first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        where = _where(first["loc"])
        message = _message(first)
        # A model_validator's ValueError has no location: its message starts with the field.
        raise InputError(f"{path}: {where}: {message}" if where else f"{path}: {message}") from None
    return config.resolved(path.resolve().parent)


def load_config(path: str | Path) -> tuple[EvalSetConfig, dict[str, Any]]:
    """The eval-set file at `path`, and the mapping as written (for the record in eval-set.json)."""
    from lexsym._util.json_file import read_yaml

    path = Path(path)
    data = read_yaml(path, "eval-set file")
    return parse_config(data, path), data
