"""Scripted judge replies shared by the judge tests."""

from __future__ import annotations

import json

_KEYS = ("id", "satisfied", "reason")


def rubric_reply(*entries: tuple) -> str:
    """A rubric judge's JSON reply; each entry is (id, satisfied) or (id, satisfied, reason)."""
    return json.dumps({"items": [dict(zip(_KEYS[: len(entry)], entry, strict=True)) for entry in entries]})
