"""Converting exam items into lexsym task records: `tasks.jsonl` and `manifest.json`, as `lexsym generate`
writes them, so the runner, `lexsym score` and the judges read exam tasks and generated tasks alike.

A record has the generator's fields (id, task, variant, split, prompt {system, user}, gold, solved_steps,
reference, metadata, case). Exam records differ in three ways:

- "task" is "MCQ" for multiple choice and "OPEN" for open questions and essays;
- "gold" is the gold option's label ("B", or "2" with numeric labels) for MCQ; for OPEN it is
  {"reference": answer} (LEXam) or {"rubrics": [...], "points": [...], "total_points": x} (KCL);
- "case" is null: there is no bankruptcy case behind an exam question.

"reference" holds what a scorer or judge needs beyond the gold: for MCQ the labels and option texts in
display order (`lexsym score` extracts answers with them); for OPEN the question text as the dataset gives
it, the reference answer or rubrics, and the precedent names. "metadata" holds the item's course, language,
area, jurisdiction and year, the number of choices, the original gold position and the shuffle permutation,
the source's fingerprint, and the context setting with the truncation actually applied.

With --context precedents a KCL item's precedents go into the prompt as `precedents` prepares them: KCL's
own cut of its long precedents (essays; on by default, as in KCL's evaluation), then the fair share of a
character budget. What was cut is recorded per task.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError
from lexsym._version import __version__
from lexsym.answers.choices import LABEL_STYLES, option_labels
from lexsym.exams.datasets import LoadedExam
from lexsym.exams.items import ExamFormat, KclEssay, KclMCQA, LexamMCQ, LexamOpen
from lexsym.exams.mcq_prompts import (
    MCQ_TEMPLATE_VERSION,
    apply_permutation,
    mcq_templates_digest,
    render_mcq_prompt,
    shuffle_permutation,
)
from lexsym.exams.precedents import KCL_CUT_POLICY, TRUNCATION_POLICY, fit_precedents, kcl_cut
from lexsym.exams.prompts import (
    OPEN_TABLES,
    OPEN_TEMPLATE_VERSION,
    PrecedentText,
    render_open_prompt,
    templates_digest,
)

MANIFEST_VERSION = 1
CONTEXT_SETTINGS = ("none", "precedents")
#: KCL is the Korean bar exam: its items carry no language or jurisdiction field (KCL-shaped items of
#: our own may give them).
_KCL_LANGUAGE = "ko"
_KCL_JURISDICTION = "Korean"
_MCQ_FORMATS = (ExamFormat.lexam_mcq, ExamFormat.kcl_mcqa)


@dataclass(frozen=True)
class ConvertOptions:
    """How exam items become task records (every field is recorded in the manifest)."""

    name: str | None = None
    split: str = "test"
    shuffle_seed: int | None = None
    labels: str = "letters"
    context: str = "none"
    max_context_chars: int | None = None
    kcl_cut: bool = True  # KCL essays with precedents: KCL's own cut of its long precedents

    def check(self, fmt: ExamFormat) -> None:
        """Refuse settings that cannot apply, rather than ignore them silently."""
        if self.labels not in LABEL_STYLES:
            raise InputError(f"--labels must be one of {', '.join(LABEL_STYLES)}, not {self.labels!r}")
        if self.context not in CONTEXT_SETTINGS:
            raise InputError(f"--context must be one of {', '.join(CONTEXT_SETTINGS)}, not {self.context!r}")
        if self.context == "precedents" and fmt in (ExamFormat.lexam_mcq, ExamFormat.lexam_open):
            raise InputError(f"{fmt.value} items have no supporting precedents: use --context none")
        if self.max_context_chars is not None:
            if self.context != "precedents":
                raise InputError("--max-context-chars applies only with --context precedents")
            if self.max_context_chars < 0:
                raise InputError("--max-context-chars must be 0 or more")


def _common_metadata(loaded: LoadedExam, name: str, where: str, item_id: str) -> dict[str, Any]:
    return {
        "suite": "exams",
        "dataset": name,
        "format": loaded.format.value,
        "source": loaded.fingerprint,
        "source_id": item_id,
        "source_where": where,
    }


def _context(
    item: KclEssay | KclMCQA | LexamMCQ | LexamOpen, options: ConvertOptions
) -> tuple[list[PrecedentText] | None, dict[str, Any]]:
    if options.context != "precedents":
        return None, {"setting": "none"}
    assert isinstance(item, (KclEssay, KclMCQA))
    precedents, cuts = list(item.supporting_precedents), None
    if options.kcl_cut and isinstance(item, KclEssay):  # KCL cuts essay precedents only, never MCQA ones
        precedents, cuts = kcl_cut(item.meta, precedents)
    return fit_precedents(precedents, options.max_context_chars, kcl_cuts=cuts)


def _variant(base: str, options: ConvertOptions) -> str:
    return f"{base}+precedents" if options.context == "precedents" else base


def _mcq_record(
    loaded: LoadedExam, where: str, item: LexamMCQ | KclMCQA, name: str, options: ConvertOptions
) -> dict[str, Any]:
    if isinstance(item, KclMCQA):
        language = item.language or _KCL_LANGUAGE
        jurisdiction = item.jurisdiction or _KCL_JURISDICTION
        course, area, year = None, None, None
        extra = {"meta": item.meta}
    else:
        language, jurisdiction, course, area, year = (
            item.language,
            item.jurisdiction,
            item.course,
            item.area,
            item.year,
        )
        extra = {
            "n_statements": item.n_statements,
            "none_as_an_option": item.none_as_an_option,
            "negative_question": item.negative_question,
            "choice_set": item.choice_set,
        }
    choices = list(item.choices)
    k = len(choices)
    if options.shuffle_seed is None:
        permutation = list(range(k))
    else:
        permutation = shuffle_permutation(k, options.shuffle_seed, item.id)
    shown = apply_permutation(choices, permutation)
    labels = option_labels(k, options.labels)
    gold_index = permutation.index(item.gold)
    precedents, context = _context(item, options)
    prompt, prompt_language = render_mcq_prompt(
        item.question, shown, labels, language=language, jurisdiction=jurisdiction, precedents=precedents
    )
    metadata = {
        **_common_metadata(loaded, name, where, item.id),
        "course": course,
        "language": language,
        "area": area,
        "jurisdiction": jurisdiction,
        "year": year,
        "prompt_language": prompt_language,
        "template": MCQ_TEMPLATE_VERSION,
        "n_choices": k,
        "label_style": options.labels,
        "original_gold_index": item.gold,
        "gold_index": gold_index,
        "permutation": permutation,
        "shuffle_seed": options.shuffle_seed,
        "context": context,
        **extra,
    }
    return {
        "id": f"{name}/{item.id}",
        "task": "MCQ",
        "variant": _variant(f"{loaded.format.value}-k{k}", options),
        "split": options.split,
        "prompt": {"system": prompt.system, "user": prompt.user},
        "gold": labels[gold_index],
        "solved_steps": {},
        "reference": {
            "question": item.question,
            "labels": labels,
            "options": shown,
            "gold_label": labels[gold_index],
            "gold_text": shown[gold_index],
        },
        "metadata": metadata,
        "case": None,
    }


def _open_record(
    loaded: LoadedExam, where: str, item: LexamOpen | KclEssay, name: str, options: ConvertOptions
) -> dict[str, Any]:
    precedents, context = _context(item, options)
    if isinstance(item, KclEssay):
        points, total = item.rubric_points()
        gold: dict[str, Any] = {
            "rubrics": [r.text for r in item.rubrics],
            "points": points,
            "total_points": total,
        }
        reference = {
            "question": item.question,
            **gold,
            "precedents": [p.name for p in item.supporting_precedents],
        }
        language = item.language or _KCL_LANGUAGE
        jurisdiction = item.jurisdiction or _KCL_JURISDICTION
        described = {"course": None, "area": None, "year": None, "meta": item.meta}
        extra = {"rubric_count": len(item.rubrics), "total_points": total}
    else:
        gold = {"reference": item.answer}
        reference = {"question": item.question, "answer": item.answer}
        language, jurisdiction = item.language, item.jurisdiction
        described = {"course": item.course, "area": item.area, "year": item.year}
        extra = {}
    prompt, prompt_language = render_open_prompt(
        item.question, language=language, jurisdiction=jurisdiction, precedents=precedents
    )
    metadata = {
        **_common_metadata(loaded, name, where, item.id),
        **described,
        "language": language,
        "jurisdiction": jurisdiction,
        "prompt_language": prompt_language,
        "template": OPEN_TEMPLATE_VERSION,
        "context": context,
        **extra,
    }
    return {
        "id": f"{name}/{item.id}",
        "task": "OPEN",
        "variant": _variant(loaded.format.value, options),
        "split": options.split,
        "prompt": {"system": prompt.system, "user": prompt.user},
        "gold": gold,
        "solved_steps": {},
        "reference": reference,
        "metadata": metadata,
        "case": None,
    }


def exam_records(loaded: LoadedExam, options: ConvertOptions | None = None) -> list[dict[str, Any]]:
    """Task records for every item of `loaded`, in source order."""
    options = options or ConvertOptions()
    options.check(loaded.format)
    name = options.name or loaded.format.value
    records = []
    for entry in loaded.items:
        item = entry.item
        if isinstance(item, (LexamMCQ, KclMCQA)):
            records.append(_mcq_record(loaded, entry.where, item, name, options))
        else:
            records.append(_open_record(loaded, entry.where, item, name, options))
    return records


def templates_version() -> dict[str, str]:
    """Template versions and a digest of their wording, for manifests and run headers."""
    return {
        "mcq": MCQ_TEMPLATE_VERSION,
        "mcq_digest": mcq_templates_digest(),
        "open": OPEN_TEMPLATE_VERSION,
        "open_digest": templates_digest(OPEN_TEMPLATE_VERSION, *OPEN_TABLES),
    }


def _kcl_cut_applies(fmt: ExamFormat, options: ConvertOptions) -> bool:
    return fmt is ExamFormat.kcl_essay and options.context == "precedents" and options.kcl_cut


def _pin(fingerprint: dict[str, Any]) -> str:
    return str(fingerprint.get("sha256") or fingerprint.get("revision") or "unpinned")


def convert(loaded: LoadedExam, out: str | Path, options: ConvertOptions | None = None) -> dict[str, Any]:
    """Write `out/tasks.jsonl` and `out/manifest.json` for the items of `loaded`; return the manifest."""
    options = options or ConvertOptions()
    records = exam_records(loaded, options)
    out = Path(out)
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
    write_atomic(out / "tasks.jsonl", text)
    name = options.name or loaded.format.value
    variants = sorted({r["variant"] for r in records})
    templates = templates_version()
    manifest = {
        "manifest_version": MANIFEST_VERSION,
        "lexsym_version": __version__,
        "inputs": {
            "source": _pin(loaded.fingerprint)[:16],
            "templates": templates["mcq_digest" if loaded.format in _MCQ_FORMATS else "open_digest"],
        },
        "tasks": len(records),
        "splits": {
            "dev": sum(r["split"] == "dev" for r in records),
            "test": sum(r["split"] == "test" for r in records),
        },
        "datasets": [
            {
                "key": name,
                "suite": "exams",
                "name": name,
                "variant": variants[0] if len(variants) == 1 else None,
                "variants": variants,
                "format": loaded.format.value,
                "dev": sum(r["split"] == "dev" for r in records),
                "test": sum(r["split"] == "test" for r in records),
                "config": {"source": loaded.source, **asdict(options)},
            }
        ],
        "source": loaded.fingerprint,
        "skipped": loaded.errors,
        "warnings": loaded.warnings,
        "templates": templates,
        "truncation_policy": TRUNCATION_POLICY if options.max_context_chars is not None else None,
        "precedent_cut": KCL_CUT_POLICY if _kcl_cut_applies(loaded.format, options) else None,
        "tasks_sha256": hashlib.sha256(text.encode()).hexdigest(),
    }
    write_atomic(
        out / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    )
    return manifest
