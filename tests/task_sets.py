"""Small generated task sets for tests that need real tasks with gold answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lexsym.generate.pipeline import generate
from lexsym.generate.suites import suite_datasets

TINY_BASE: dict[str, Any] = {
    "asset_count_min": 2,
    "asset_count_max": 3,
    "married_ratio": 0.5,
    "domicile_count_min": 1,
    "domicile_count_max": 3,
    "state_jurisdictions": ["WI", "IL"],
    "split": {"dev": 1, "test": 3},
    "catalogue_edition": 1,  # the four cases the tests using this set were written against stay fixed
}


def generate_task_set(
    out: Path, vary: dict[str, list[str]], *, base: dict[str, Any] | None = None, seed: int | None = None
) -> Path:
    """Generate a one-suite task set into `out` (tasks.jsonl and manifest.json): `TINY_BASE` (four cases of
    two or three assets, some married, WI and IL) updated by `base`, one dataset per `vary` combination."""
    suite = {"name": "tiny", "base": {**TINY_BASE, **(base or {})}, "vary": vary}
    generate(suite_datasets(suite, source="test", seed=seed), out, workers=1)
    return out


def ae_task_set(out: Path, count: int, *, seed: int) -> Path:
    """`count` AE tasks on small Wisconsin cases (one or two assets): the cheapest real tasks, for tests of
    the runner and the backends, where the answers matter less than the calls."""
    base = {
        "asset_count_min": 1,
        "asset_count_max": 2,
        "state_jurisdictions": ["WI"],
        "split": {"dev": 0, "test": count},
    }
    return generate_task_set(out, {"task": ["AE"]}, base=base, seed=seed)
