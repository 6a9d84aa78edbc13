"""The config.json of an exported dataset: lexsym's generator settings under OpenExempt's keys and ranges.

OpenExempt validates a dataset's config when it loads the dataset, so every value is kept inside the
ranges it accepts (restated here: at least one state and no federal among them; one to five domiciles;
one to eight assets, min not above max; a married ratio in [0, 1]; a dataset size of at least one; start
task not after the terminal task; no asset distractors or asset opinions when the task is AE). A lexsym
setting outside them is written as the nearest accepted value and reported, and lexsym's own settings
travel under the extra key `lexsym` (OpenExempt keeps unknown keys as attributes).
"""

from __future__ import annotations

from typing import Any

from lexsym.interop.openexempt_statute_files import NATIVE_JURISDICTIONS

TASK_NAMES = {
    "AE": "allowable_exemptions",
    "EC": "exemption_classification",
    "EV": "exemption_valuation",
    "NA": "nonexempt_assets",
    "OE": "optimal_exemptions",
}
"""lexsym's task ids -> the stem OpenExempt names datasets by (`<task>_<n>`), in task-id order 1..5."""

SUITES = {
    "basic": ("basic_competency", "bc"),
    "intermediate": ("intermediate_competency", "ic"),
    "advanced": ("advanced_competency", "ac"),
    "temporal": ("temporal_reasoning", "tr"),
    "decomposition": ("reasoning_decomposition", "rd"),
    "distractor": ("distractor_robustness", "dr"),
    "sycophancy": ("sycophancy_robustness", "sr"),
    "obfuscation": ("obfuscation_robustness", "or"),
    "asset-scaling": ("asset_scaling", "as"),
}
"""lexsym's suites -> OpenExempt's suite folder (what TaskSuite.from_directory reads) and suite id."""

_RANGES = {
    "domicile_count_min": (1, 5),
    "domicile_count_max": (1, 5),
    "asset_count_min": (1, 8),
    "asset_count_max": (1, 8),
    "married_ratio": (0, 1),
}


def task_number(task: str) -> int:
    return list(TASK_NAMES).index(task) + 1


def _settings(group: Any) -> dict[str, Any]:
    """lexsym's settings of the dataset: its manifest config, or what its task records show."""
    if group.config:
        config = group.config
        return {
            "start_task": config.get("start_task"),
            "terminal_task": config.get("terminal_task"),
            **{key: config.get(key) for key in _RANGES},
            **{key: bool(config.get(key)) for key in _FLAGS},
            "state_jurisdictions": list(config.get("state_jurisdictions", [])),
        }
    records = group.records
    metadata = [record["metadata"] for record in records]
    first = records[0]
    variant = str(first.get("variant", first["task"]))
    assets = [
        m.get("asset_count", len(r["case"].get("assets", []))) for m, r in zip(metadata, records, strict=True)
    ]
    places = [
        m.get("domicile_count", len(r["case"].get("domicile", [])))
        for m, r in zip(metadata, records, strict=True)
    ]
    married = [
        bool(m.get("married", r["case"].get("filing") == "joint"))
        for m, r in zip(metadata, records, strict=True)
    ]
    flags = metadata[0].get("obfuscation", {})
    return {
        "start_task": variant.split("-")[0],
        "terminal_task": first["task"],
        "asset_count_min": min(assets),
        "asset_count_max": max(assets),
        "domicile_count_min": min(places),
        "domicile_count_max": max(places),
        "married_ratio": round(sum(married) / len(married), 4),
        **{key: bool(flags.get(key)) for key in _FLAGS},
        "state_jurisdictions": list(metadata[0].get("states_in_prompt", [])),
    }


_FLAGS = ("irrelevant_asset_facts", "irrelevant_domicile_facts", "asset_opinions", "domicile_opinions")


def dataset_config(
    group: Any,
    name: str,
    dataset_id: str,
    suite_folder: str,
    statute_dir: str,
    test_size: int,
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """(config.json, the settings written other than lexsym has them: {key: {lexsym, written, why}})."""
    settings = _settings(group)
    outside: dict[str, dict[str, Any]] = {}

    def write(key: str, value: Any, written: Any, why: str) -> Any:
        if written != value:
            outside[key] = {"lexsym": value, "written": written, "why": why}
        return written

    terminal = task_number(group.records[0]["task"])
    start_name = settings["start_task"] if settings["start_task"] in TASK_NAMES else group.records[0]["task"]
    config: dict[str, Any] = {
        "dataset_name": name,
        "dataset_id": dataset_id,
        "dataset_directory": f"{suite_folder}/{dataset_id}",
    }
    if group.suite in SUITES:
        config |= {
            "suite_name": suite_folder,
            "suite_id": SUITES[group.suite][1],
            "suite_directory": suite_folder,
        }
    config |= {
        "output_directory": suite_folder,
        "statute_directory": statute_dir,
        "start_task_id": min(task_number(start_name), terminal),
        "terminal_task_id": terminal,
        "dataset_size": write(
            "dataset_size",
            test_size,
            max(1, test_size),
            "OpenExempt needs at least one test task",
        ),
    }
    for key, (low, high) in _RANGES.items():
        value = settings[key]
        number = low if value is None else value
        config[key] = write(key, value, min(max(number, low), high), f"OpenExempt accepts {low} to {high}")
    for key in _FLAGS:
        value = settings[key]
        no_assets = terminal == 1 and key in ("irrelevant_asset_facts", "asset_opinions")
        config[key] = write(
            key,
            value,
            False if no_assets else value,
            "OpenExempt refuses asset distractors for AE, whose prompt has no asset facts",
        )
    states = [
        NATIVE_JURISDICTIONS[c]
        for c in settings["state_jurisdictions"]
        if c in NATIVE_JURISDICTIONS and c != "US"
    ]
    if not states:
        states = [value for code, value in NATIVE_JURISDICTIONS.items() if code != "US"]
    config["state_jurisdictions"] = write(
        "state_jurisdictions",
        [NATIVE_JURISDICTIONS.get(c, c) for c in settings["state_jurisdictions"]],
        states,
        "OpenExempt names only its five states, at least one",
    )
    config["lexsym"] = {
        "dataset": f"{group.suite}/{group.dataset}",
        "settings": settings,
        "config": group.config,
        "statutes_from": str(group.files.period_start),
        "outside_openexempt_ranges": outside,
    }
    return config, outside
