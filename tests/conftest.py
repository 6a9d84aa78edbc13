"""Shared fixtures: where third-party reference data lives, and hypothesis profiles.

CI runs the `ci` hypothesis profile (bounded examples); `-m slow` tests raise the budget themselves.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[1]

settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True, print_blob=True
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def shared_dir() -> Path | None:
    """`../shared` beside the checkout, or $LEXSYM_SHARED; None when neither exists."""
    candidate = Path(os.environ.get("LEXSYM_SHARED", REPO.parent / "shared"))
    return candidate if candidate.is_dir() else None


@pytest.fixture(scope="session")
def shared() -> Path:
    path = shared_dir()
    if path is None:
        pytest.skip("third-party reference data (../shared or $LEXSYM_SHARED) is not present")
    return path
