"""Benchmarks for other harnesses: lm-evaluation-harness task folders (`export_lm_eval`) and Hugging Face
dataset folders with a card (`export_hf`), from the task sets `lexsym generate` writes.

Both keep each shared prompt text (the system prompt, the statute sheet) once; `full_prompt` rebuilds a
row's exact prompt from them. Names are imported on first use, so the CLI starts fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lexsym.publish.compact_records import full_prompt, full_record
    from lexsym.publish.hf_export import export_hf
    from lexsym.publish.lm_eval_export import export_lm_eval
    from lexsym.publish.sample_scores import sample_scores

_EXPORTS = {
    "export_hf": "lexsym.publish.hf_export",
    "export_lm_eval": "lexsym.publish.lm_eval_export",
    "full_prompt": "lexsym.publish.compact_records",
    "full_record": "lexsym.publish.compact_records",
    "sample_scores": "lexsym.publish.sample_scores",
}

__all__ = ["export_hf", "export_lm_eval", "full_prompt", "full_record", "sample_scores"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'lexsym.publish' has no attribute {name!r}")
