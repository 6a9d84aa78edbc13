"""Multiple-choice questions as prompts: option labels in the question's language, one "ANSWER: X" marker,
and seeded option shuffling.

Options are labelled A, B, C, ... (AA, AB, ... past Z, for LEXam's 32 choices) or 1, 2, 3, ..., in the
question's language (English, German, French, Italian, Korean; others fall back to English). Every template
asks for one final line "ANSWER: X": one marker in every language makes extraction uniform
(`lexsym.answers.choices`). Options are permuted by a seed and the item's id, so the permutation of an item
does not depend on what else is in the file; the permutation is recorded (display position p shows original
option permutation[p]) and predictions are mapped back through it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from lexsym.exams.prompts import (
    PrecedentText,
    Prompt,
    precedents_block,
    prompt_language,
    question_block,
    templates_digest,
)

#: Bumped whenever the wording of an MCQ template changes: run logs key on it.
MCQ_TEMPLATE_VERSION = "exam-mcq-1"


# --- labels and prompts ------------------------------------------------------------------------------------


_MCQ_SYSTEM = {
    "en": (
        "You are an expert in law answering a multiple-choice exam question. Reason step by step, rule out "
        "the wrong options, and choose exactly one option.{jurisdiction} End your response with a final line "
        "of the form 'ANSWER: X', where X is the label of the option you choose ({labels})."
    ),
    "de": (
        "Sie sind Rechtsexpertin oder Rechtsexperte und beantworten eine Multiple-Choice-Prüfungsfrage. "
        "Denken Sie Schritt für Schritt, scheiden Sie die falschen Optionen aus und wählen Sie genau eine "
        "Option.{jurisdiction} Beenden Sie Ihre Antwort mit einer letzten Zeile der Form 'ANSWER: X', wobei "
        "X die Bezeichnung der gewählten Option ist ({labels})."
    ),
    "fr": (
        "Vous êtes juriste et répondez à une question d'examen à choix multiple. Raisonnez étape par étape, "
        "écartez les options fausses et choisissez une seule option.{jurisdiction} Terminez votre réponse "
        "par une dernière ligne de la forme 'ANSWER: X', où X est l'étiquette de l'option choisie ({labels})."
    ),
    "it": (
        "Lei è un esperto di diritto e risponde a una domanda d'esame a scelta multipla. Ragioni passo dopo "
        "passo, escluda le opzioni errate e scelga una sola opzione.{jurisdiction} Termini la risposta con "
        "un'ultima riga nella forma 'ANSWER: X', dove X è l'etichetta dell'opzione scelta ({labels})."
    ),
    "ko": (
        "당신은 법률 전문가로서 객관식 시험 문제에 답합니다. "
        "단계적으로 추론하고 틀린 선택지를 배제한 뒤 하나의 선택지만 고르십시오.{jurisdiction} "
        "답변의 마지막 줄은 'ANSWER: X' 형식으로 쓰십시오. "
        "X는 선택한 선택지의 기호입니다 ({labels})."
    ),
}
_OPTIONS_HEADER = {"en": "Options:", "de": "Optionen:", "fr": "Options :", "it": "Opzioni:", "ko": "선택지:"}
_REMINDER = {
    "en": "Give your final answer as 'ANSWER: X'.",
    "de": "Geben Sie Ihre endgültige Antwort als 'ANSWER: X' an.",
    "fr": "Donnez votre réponse finale sous la forme 'ANSWER: X'.",
    "it": "Dia la risposta finale nella forma 'ANSWER: X'.",
    "ko": "최종 답은 'ANSWER: X' 형식으로 쓰십시오.",
}
MCQ_TABLES = (_MCQ_SYSTEM, _OPTIONS_HEADER, _REMINDER)


def _label_range(labels: Sequence[str]) -> str:
    return ", ".join(labels) if len(labels) <= 6 else f"{labels[0]}–{labels[-1]}"


def render_mcq_prompt(
    question: str,
    options: Sequence[str],
    labels: Sequence[str],
    *,
    language: str | None,
    jurisdiction: str | None = None,
    precedents: Sequence[PrecedentText] | None = None,
) -> tuple[Prompt, str]:
    """The prompt of a multiple-choice question with its options in display order, and the template
    language used. Precedents, when given, come after the options and before the reminder, so the
    question and its options stay together at the top."""
    from lexsym.exams.prompts import jurisdiction_clause

    if len(options) != len(labels):
        raise ValueError(f"{len(options)} options but {len(labels)} labels")
    lang = prompt_language(language)
    system = _MCQ_SYSTEM[lang].format(
        jurisdiction=jurisdiction_clause(jurisdiction, lang), labels=_label_range(labels)
    )
    listing = "\n".join(f"{label}. {text.strip()}" for label, text in zip(labels, options, strict=True))
    sections = [question_block(question, lang), f"{_OPTIONS_HEADER[lang]}\n{listing}"]
    if precedents:
        sections.append(precedents_block(precedents, lang))
    sections.append(_REMINDER[lang])
    return Prompt(system=system, user="\n\n".join(sections)), lang


def mcq_templates_digest() -> str:
    return templates_digest(MCQ_TEMPLATE_VERSION, *MCQ_TABLES)


# --- shuffling ---------------------------------------------------------------------------------------------


def shuffle_permutation(n: int, seed: int, key: str) -> list[int]:
    """A seeded permutation of n options for the item `key`: display position p shows original option
    permutation[p]. Seeded through sha256 of (seed, key), so an item's order does not depend on the
    other items in the file or on their order."""
    digest = hashlib.sha256(f"{seed}\x1f{key}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:16], "big"))
    return [int(i) for i in rng.permutation(n)]


def apply_permutation(options: Sequence[Any], permutation: Sequence[int]) -> list[Any]:
    """Options in display order."""
    if sorted(permutation) != list(range(len(options))):
        raise ValueError(f"{list(permutation)} is not a permutation of {len(options)} options")
    return [options[i] for i in permutation]


def to_original(display_index: int, permutation: Sequence[int]) -> int:
    """The original index of the option shown at `display_index`."""
    return permutation[display_index]


def to_display(original_index: int, permutation: Sequence[int]) -> int:
    """Where the original option `original_index` is shown."""
    return list(permutation).index(original_index)
