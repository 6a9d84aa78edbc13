"""Suites: named sets of datasets, each a GeneratorConfig, read from short YAML files in data/suites/.

A suite file gives a `base` configuration and a `vary` block; every combination of the varied values is
one dataset. Shorthands in `vary`:
- `task: [AE, EC]` asks for one task in its vanilla form: nothing solved, the model works from AE to it
  (OpenExempt's start_task_id 1);
- `variant: all` (or a list like `[AE-OE, EC]`) sets the contiguous interval of the pipeline;
- `asset_count: [2, 4]` and `domicile_count: [1, 5]` fix a count;
- `obfuscation: [none, distractor, sycophancy, obfuscation]` switches the four obfuscation flags.
Any other key is a GeneratorConfig field, varied as given.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexsym._util.datafiles import data_dir
from lexsym._util.errors import InputError
from lexsym.generate.config import GeneratorConfig, parse_config, read_yaml_or_json
from lexsym.law.tasks import Task

OBFUSCATION_PRESETS: dict[str, dict[str, bool]] = {
    "none": {},
    "distractor": {"irrelevant_asset_facts": True, "irrelevant_domicile_facts": True},
    "sycophancy": {"asset_opinions": True, "domicile_opinions": True},
    "obfuscation": {
        "irrelevant_asset_facts": True,
        "irrelevant_domicile_facts": True,
        "asset_opinions": True,
        "domicile_opinions": True,
    },
}
SUITE_NAMES = (
    "basic",
    "intermediate",
    "advanced",
    "temporal",
    "decomposition",
    "distractor",
    "sycophancy",
    "obfuscation",
    "asset-scaling",
)


@dataclass(frozen=True)
class Dataset:
    suite: str
    name: str  # unique within the suite, e.g. "task=EC,obfuscation=none"
    config: GeneratorConfig

    @property
    def key(self) -> str:
        return f"{self.suite}/{self.name}"


def all_variants() -> list[str]:
    """The 15 task variants: every contiguous interval of AE..OE, by terminal task then start."""
    tasks = list(Task)
    return [
        (start.value if start is end else f"{start.value}-{end.value}")
        for end_index, end in enumerate(tasks)
        for start in tasks[: end_index + 1]
    ]


def _expand(key: str, value: Any, source: str) -> dict[str, Any]:
    if key == "task":
        return {"start_task": "AE", "terminal_task": value}
    if key == "variant":
        start, _, end = str(value).partition("-")
        return {"start_task": start, "terminal_task": end or start}
    if key in ("asset_count", "domicile_count"):
        return {f"{key}_min": value, f"{key}_max": value}
    if key == "obfuscation":
        if not isinstance(value, str) or value not in OBFUSCATION_PRESETS:
            raise InputError(
                f"{source}: vary.obfuscation: unknown obfuscation preset {str(value)[:60]!r} "
                f"(known: {', '.join(OBFUSCATION_PRESETS)})"
            )
        return dict(OBFUSCATION_PRESETS[value])
    return {key: value}


def suite_datasets(data: dict[str, Any], *, source: str, seed: int | None = None) -> list[Dataset]:
    """Expand a suite document into its datasets."""
    if not isinstance(data, dict) or "name" not in data:
        raise InputError(f"{source}: a suite needs a name")
    suite = str(data["name"])
    for key in ("base", "vary"):
        if not isinstance(data.get(key) or {}, dict):
            raise InputError(f"{source}: {key} must be a mapping of option: value")
    base = dict(data.get("base") or {})
    vary = dict(data.get("vary") or {})
    unknown = set(data) - {"name", "description", "base", "vary"}
    if unknown:
        raise InputError(f"{source}: unknown keys {sorted(unknown)}")
    axes = []
    for key, values in vary.items():
        if key == "variant" and values == "all":
            values = all_variants()
        if not isinstance(values, list) or not values:
            raise InputError(f"{source}: vary.{key} must be a non-empty list")
        # A dataset is named by its values' text: one name twice gives duplicate task ids, refused by `run`.
        repeated = [v for i, v in enumerate(values) if str(v) in {str(w) for w in values[:i]}]
        if repeated:
            raise InputError(f"{source}: vary.{key} repeats {str(repeated[0])[:60]!r}")
        axes.append([(key, value) for value in values])
    datasets = []
    for combination in itertools.product(*axes) if axes else [()]:
        fields = dict(base)
        for key, value in combination:
            fields.update(_expand(key, value, source))
        name = ",".join(f"{key}={value}" for key, value in combination) or "all"
        if seed is not None:
            fields["seed"] = seed
        fields["name"] = f"{suite}/{name}"
        label = name if len(name) <= 120 else f"{name[:120]}…"
        config = parse_config(fields, source=f"{source} ({label})")
        datasets.append(Dataset(suite=suite, name=name, config=config))
    return datasets


def suite_path(name: str) -> Path:
    path = data_dir("suites") / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in data_dir("suites").glob("*.yaml")))
        raise InputError(f"unknown suite {name!r} (known: {known})")
    return path


def load_suite(name_or_path: str, *, seed: int | None = None) -> list[Dataset]:
    """Datasets of a named suite (data/suites/NAME.yaml) or of a suite file."""
    path = Path(name_or_path)
    if not (path.suffix in (".yaml", ".yml", ".json") and path.is_file()):
        path = suite_path(name_or_path)
    return suite_datasets(read_yaml_or_json(path), source=str(path), seed=seed)
