"""A tiny OpenExempt checkout in OpenExempt's native file shapes, for tests that run without ../shared.

Everything here is invented for the tests: the statute figures are made up (not OpenExempt's), and so are
the cases, the prompt texts and the "published" solutions, some of them deliberately wrong the way
OpenExempt's own gold goes wrong (the fewest-days 180-day step, one item claim in a married EV, a
branch-and-bound that stops short). The layout is OpenExempt's: `data/statutes/*.json` and
`tasks/<suite>/<dataset>/{config.json, shared.json, test.jsonl, cases.jsonl, dev.jsonl, dev_cases.jsonl}`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PETITION = "2024-06-06T00:00:00"

STATUTES: dict[str, dict[str, Any]] = {
    "federal": {
        "jurisdiction": "FEDERAL",
        "has_opted_out": None,
        "statutes": [
            {"citation": "11 U.S.C. § 522(b)", "description": "a definition, not an exemption"},
            {
                "citation": "11 U.S.C. § 522(d)(1)",
                "description": "made-up residence exemption",
                "single_limit": 1000,
                "married_limit": 2000,
                "single_item_claim_count": 1,
                "married_item_claim_count": 2,
            },
            {
                "citation": "11 U.S.C. § 522(d)(2)",
                "description": "made-up motor vehicle exemption",
                "single_limit": 500,
                "married_limit": 1000,
                "single_item_claim_count": 1,
                "married_item_claim_count": 2,
            },
        ],
    },
    "arizona": {
        "jurisdiction": "ARIZONA",
        "has_opted_out": True,
        "statutes": [
            {
                "citation": "Ariz. Rev. Stat. § 33-1125(8)",
                "description": "made-up vehicle exemption",
                "single_limit": 600,
                "married_limit": 1200,
            }
        ],
    },
    "wisconsin": {
        "jurisdiction": "WISCONSIN",
        "has_opted_out": False,
        "statutes": [
            {
                "citation": "Wis. Stat. § 815.18(3)(g)",
                "description": "made-up vehicle exemption",
                "single_limit": 400,
                "married_limit": 800,
            }
        ],
    },
}

CAR = ["11 U.S.C. § 522(d)(2)", "Ariz. Rev. Stat. § 33-1125(8)", "Wis. Stat. § 815.18(3)(g)"]


def _party(first: str, last: str) -> dict[str, str]:
    return {"first_name": first, "last_name": last}


def _asset(description: str, value: int, citations: list[str]) -> dict[str, Any]:
    return {
        "description": description,
        "dollar_value": value,
        "applicable_exemptions": citations,
        "category_hints": ["personal_property"],
    }


def case(
    *, married: bool = False, domicile: dict[str, str] | None = None, assets: list | None = None, state: str
) -> dict[str, Any]:
    """A native case record (what OpenExempt's `Case.serialize()` writes)."""
    return {
        "debtor": _party("Ada", "Quill"),
        "joint_debtor": _party("Ben", "Quill") if married else None,
        "assets": assets if assets is not None else [_asset("grey hatchback", 1500, CAR)],
        "state_jurisdiction": state,
        "petition_date": PETITION,
        "domicile_dates": domicile or {"2019-03-02T00:00:00": "WISCONSIN"},
    }


# Arizona has the longer portion of the 180 days before the 730-day window (98 days to Wisconsin's 82);
# OpenExempt's fewest-days step picks Wisconsin.
LONGER_IN_ARIZONA = {
    "2020-01-01T00:00:00": "WISCONSIN",
    "2022-03-01T00:00:00": "ARIZONA",
    "2023-06-01T00:00:00": "WISCONSIN",
}


def _dataset(
    suite: Path, dataset_id: str, task: int, rows: list[tuple[dict, Any]], dev: list[tuple[dict, Any]]
):
    directory = suite / dataset_id
    directory.mkdir(parents=True)
    config = {
        "dataset_name": dataset_id.split("_", 1)[1],
        "dataset_id": dataset_id,
        "dataset_directory": f"tasks/{suite.name}/{dataset_id}",
        "statute_directory": "data/statutes",
        "suite_id": "bc",
        "suite_name": suite.name,
        "start_task_id": 1,
        "terminal_task_id": task,
        "dataset_size": len(rows),
    }
    (directory / "config.json").write_text(json.dumps(config, indent=4), encoding="utf-8")
    shared = {
        "start_task_id": 1,
        "terminal_task_id": task,
        "instruction": f"Instruction for task {task} (invented).",
        "meta_instruction": "Think it through (invented).",
        "response_format": "Response Format: FINAL ANSWER: then the answer (invented).",
        "statutes": "Statutes:\nOpenExempt-style statute text (invented).",
        "format_reminder": "Remember the format (invented).",
    }
    (directory / "shared.json").write_text(json.dumps(shared, indent=4), encoding="utf-8")
    for split, items, cases_name in (("test", rows, "cases.jsonl"), ("dev", dev, "dev_cases.jsonl")):
        tasks = [
            {
                "uid": f"{dataset_id}_{split}_task_{number}",
                "jurisdiction": record["state_jurisdiction"],
                "facts": f"Facts:\nInvented facts of case {number}.",
                "solved_steps": "",
                "solution": solution,
            }
            for number, (record, solution) in enumerate(items)
        ]
        (directory / f"{split}.jsonl").write_text(
            "".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8"
        )
        (directory / cases_name).write_text(
            "".join(json.dumps(record) + "\n" for record, _ in items), encoding="utf-8"
        )
    return directory


def write_checkout(root: Path) -> Path:
    """The invented checkout under `root`; returns its `tasks/` folder (a tree of one suite)."""
    statutes = root / "data" / "statutes"
    statutes.mkdir(parents=True)
    for name, data in STATUTES.items():
        (statutes / f"{name}.json").write_text(json.dumps(data, indent=4), encoding="utf-8")
    suite = root / "tasks" / "basic_competency"
    wisconsin = case(state="WISCONSIN")
    married = case(married=True, state="WISCONSIN")
    moved = case(domicile=LONGER_IN_ARIZONA, state="WISCONSIN")  # OpenExempt's (wrong) gold state
    _dataset(
        suite,
        "bc_allowable_exemptions_1",
        1,
        [(wisconsin, "Wisconsin, Federal"), (moved, "Wisconsin, Federal")],
        [(wisconsin, "Wisconsin, Federal")],
    )
    _dataset(
        suite,
        "bc_exemption_valuation_1",
        3,
        [
            (
                married,  # one item claim of the couple's two: 500 where the pool allows 1,000 on the car
                {
                    "grey hatchback": [
                        {"citation": "11 U.S.C. § 522(d)(2)", "claim_value": 500.0},
                        {"citation": "Wis. Stat. § 815.18(3)(g)", "claim_value": 800},
                    ]
                },
            ),
            (
                wisconsin,
                {
                    "grey hatchback": [
                        {"citation": "11 U.S.C. § 522(d)(2)", "claim_value": 500},
                        {"citation": "Wis. Stat. § 815.18(3)(g)", "claim_value": 400},
                    ]
                },
            ),
        ],
        [],
    )
    _dataset(
        suite,
        "bc_nonexempt_assets_1",
        4,
        [
            (wisconsin, {"Wisconsin": 1100.0, "Federal": 1000.0}),
            (wisconsin, {"Wisconsin": 1100.0, "Federal": 1200.0}),  # a branch-and-bound that stopped short
        ],
        [],
    )
    _dataset(
        suite,
        "bc_optimal_exemptions_1",
        5,
        [
            (wisconsin, {"grey hatchback": [{"citation": "11 U.S.C. § 522(d)(2)", "claim_value": 500}]}),
            (married, {"grey hatchback": [{"citation": "11 U.S.C. § 522(d)(2)", "claim_value": 1000}]}),
        ],
        [],
    )
    return root / "tasks"
