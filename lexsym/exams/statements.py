"""LEXam's multiple-choice construction: a k-choice question from n numbered true/false statements.

LEXam (Fan et al. 2025, §2.1.2) parses an exam item into a stem ("Please indicate whether the following
statements are correct") and numbered statements i, ii, iii, ..., each true or false. The options are sets
of statement numbers rendered as "i and iii" or "i, ii, and iv"; the right option is the set of true
statements, or, for a negated stem ("which statements are incorrect?"), the set of false ones. The empty
set reads "none of the statements". With one right option and 3, 7, 15 or 31 wrong ones, the same item
yields 4-, 8-, 16- and 32-choice versions; its robustness set holds stem and statement order fixed while k
grows, so the right option must be the same subset in every version.

Why build this ourselves: lexsym can then write its own exam items (true/false statements about §522
exemptions, checked by the logic program) and score them exactly as LEXam's are, with k as a controlled
difficulty knob. The construction here is seeded and checkable: every option is a distinct subset, the gold
subset is in every version, "none of the statements" appears exactly when the empty subset is offered, and
asking for more choices than 2^n subsets exist is an error, not a silent shortfall.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lexsym.exams.items import describe

#: The choice counts of LEXam's robustness set.
K_CHOICES = (4, 8, 16, 32)

#: Text of the empty subset, per language.
NONE_TEXT = {
    "en": "none of the statements",
    "de": "keine der Aussagen",
    "fr": "aucune des affirmations",
    "it": "nessuna delle affermazioni",
}
#: The conjunction before the last number, and whether a comma precedes it when there are three or more.
#: LEXam writes the serial comma in English and (following its English source) in German too.
_CONJUNCTION = {"en": ("and", True), "de": ("und", True), "fr": ("et", False), "it": ("e", False)}

#: Enumerate all 2^n subsets up to this many; beyond, distractors are drawn by rejection sampling.
_ENUMERATE_LIMIT = 1 << 12


class StatementsError(ValueError):
    """The statements cannot yield the question asked for (too few subsets for k choices, no statements)."""


def roman(number: int) -> str:
    """Lower-case roman numeral of a positive integer: 1 -> "i", 4 -> "iv", 14 -> "xiv"."""
    if number < 1:
        raise ValueError(f"roman numerals start at 1, not {number}")
    out = []
    for value, symbol in (
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ):
        while number >= value:
            out.append(symbol)
            number -= value
    return "".join(out)


def _language(language: str) -> str:
    code = (language or "en").strip().lower().split("-")[0]
    return code if code in NONE_TEXT else "en"


def subset_text(subset: Iterable[int], language: str = "en") -> str:
    """An option's text: statement indices (0-based) as roman numerals, "i", "i and iii", "i, ii, and iv"
    ("i, ii, und iv", "i, ii et iv", "i, ii e iv"), or "none of the statements" for the empty set."""
    lang = _language(language)
    names = [roman(i + 1) for i in sorted(set(subset))]
    if not names:
        return NONE_TEXT[lang]
    word, serial_comma = _CONJUNCTION[lang]
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} {word} {names[1]}"
    return ", ".join(names[:-1]) + ("," if serial_comma else "") + f" {word} {names[-1]}"


def gold_subset(truth: Sequence[bool], *, negated: bool = False) -> frozenset[int]:
    """The right option: indices of the true statements, or of the false ones under a negated stem."""
    return frozenset(i for i, value in enumerate(truth) if bool(value) != negated)


@dataclass(frozen=True)
class ChoiceSet:
    """The options of one k-choice version, in display order, and where the gold subset sits."""

    k: int
    subsets: tuple[frozenset[int], ...]
    texts: tuple[str, ...]
    gold_index: int

    @property
    def gold(self) -> frozenset[int]:
        return self.subsets[self.gold_index]

    @property
    def none_offered(self) -> bool:
        """Whether "none of the statements" (the empty subset) is among the options."""
        return frozenset() in self.subsets


def available_subsets(n: int, gold: frozenset[int], *, allow_none: bool = True) -> int:
    """How many distinct options n statements allow: 2^n, less the empty set when it may not be offered
    (it is always allowed when it is the gold)."""
    total = 1 << n
    return total if allow_none or not gold else total - 1


def _check(n: int, k: int, gold: frozenset[int], allow_none: bool) -> None:
    if n < 1:
        raise StatementsError("a statement question needs at least one statement")
    if k < 2:
        raise StatementsError(f"a multiple-choice question needs at least 2 choices, not {k}")
    available = available_subsets(n, gold, allow_none=allow_none)
    if available < k:
        without = "" if allow_none or not gold else " without 'none of the statements'"
        raise StatementsError(
            f"{n} statement(s) give only {available} distinct options{without}, fewer than the {k} choices "
            f"asked for (k choices need 2^n >= k, so n >= {max(1, (k - 1).bit_length())})"
        )


def _rng(*parts: object) -> np.random.Generator:
    """A generator seeded from `parts` through sha256, so seeds of different items never collide by
    arithmetic accident and the stream does not depend on Python's hash randomisation."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def _distractor_masks(
    n: int, gold_mask: int, count: int, rng: np.random.Generator, allow_none: bool
) -> list[int]:
    """`count` distinct subset bitmasks, none the gold, the empty one only when allowed: a uniform draw
    without replacement among the eligible subsets."""
    total = 1 << n
    if total <= _ENUMERATE_LIMIT:
        pool = [m for m in range(total) if m != gold_mask and (allow_none or m != 0)]
        picks = rng.choice(len(pool), size=count, replace=False)
        return [pool[int(i)] for i in picks]
    chosen: list[int] = []
    seen = {gold_mask} if allow_none else {gold_mask, 0}
    while len(chosen) < count:
        mask = int(rng.integers(0, total))
        if mask not in seen:
            seen.add(mask)
            chosen.append(mask)
    return chosen


def _mask(subset: Iterable[int]) -> int:
    return sum(1 << i for i in set(subset))


def _subset(mask: int) -> frozenset[int]:
    return frozenset(i for i in range(mask.bit_length()) if mask >> i & 1)


def _assemble(
    gold_mask: int, distractors: Sequence[int], k: int, rng: np.random.Generator, language: str
) -> ChoiceSet:
    masks = [gold_mask, *distractors[: k - 1]]
    order = [int(i) for i in rng.permutation(k)]
    subsets = tuple(_subset(masks[i]) for i in order)
    return ChoiceSet(
        k=k,
        subsets=subsets,
        texts=tuple(subset_text(s, language) for s in subsets),
        gold_index=order.index(0),
    )


def build_choices(
    truth: Sequence[bool],
    k: int,
    *,
    negated: bool = False,
    seed: int | str = 0,
    language: str = "en",
    allow_none: bool = True,
) -> ChoiceSet:
    """A k-choice version: the gold subset and k - 1 distinct other subsets, in a seeded random order.

    `allow_none=False` keeps "none of the statements" out of the distractors (it still appears when it is
    the gold). Raises StatementsError when fewer than k distinct options exist.
    """
    return build_versions(truth, (k,), negated=negated, seed=seed, language=language, allow_none=allow_none)[
        k
    ]


def build_versions(
    truth: Sequence[bool],
    ks: Iterable[int] = K_CHOICES,
    *,
    negated: bool = False,
    seed: int | str = 0,
    language: str = "en",
    allow_none: bool = True,
    nested: bool = False,
) -> dict[int, ChoiceSet]:
    """The k-choice versions of one item for every k in `ks`, all with the same gold subset.

    Independent versions (the default, as in LEXam's robustness set) draw each k's distractors and order
    separately; `nested=True` makes each version's distractors a superset of the smaller versions' ones, so
    accuracy across k differs only by the added options. Deterministic in (seed, k, truth, negated).
    """
    truth = [bool(t) for t in truth]
    gold = gold_subset(truth, negated=negated)
    ks = sorted(set(ks))
    for k in ks:
        _check(len(truth), k, gold, allow_none)
    gold_mask = _mask(gold)
    key = ("".join("1" if t else "0" for t in truth), int(negated), int(allow_none))
    versions: dict[int, ChoiceSet] = {}
    if nested and ks:
        pool = _distractor_masks(len(truth), gold_mask, ks[-1] - 1, _rng(seed, "nested", *key), allow_none)
        for k in ks:
            versions[k] = _assemble(gold_mask, pool, k, _rng(seed, "order", k, *key), language)
        return versions
    for k in ks:
        rng = _rng(seed, k, *key)
        versions[k] = _assemble(
            gold_mask, _distractor_masks(len(truth), gold_mask, k - 1, rng, allow_none), k, rng, language
        )
    return versions


#: A statement's number as LEXam writes it: "i." or "ii)" opening a line, or "(iii)" anywhere.
_NUMBER = re.compile(r"(?m)^[ \t]*\(?([ivxlcdm]+)[.)](?=\s)|\(([ivxlcdm]+)\)(?=\s)")


def shown_statements(question: str) -> int:
    """How many numbered statements a question's text shows: the length of the run i, ii, iii, ... found
    in order (a number out of sequence, such as a person called "X.", is not a statement)."""
    count = 0
    for match in _NUMBER.finditer(question):
        if (match.group(1) or match.group(2)) == roman(count + 1):
            count += 1
    return count


def statement_question(stem: str, statements: Sequence[str]) -> str:
    """The question text: the stem, then each statement on its own line numbered "i.", "ii.", ..."""
    lines = [stem.rstrip()]
    lines.extend(f"{roman(i + 1)}. {text.strip()}" for i, text in enumerate(statements))
    return "\n".join(lines)


def lexam_item(
    identifier: str,
    stem: str,
    statements: Sequence[tuple[str, bool]],
    *,
    negated: bool = False,
    ks: Iterable[int] = K_CHOICES,
    seed: int | str = 0,
    language: str = "en",
    allow_none: bool = True,
    nested: bool = False,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A LEXam robustness-set row (question, "{k}_choices", "{k}_choices_gold", n_statements,
    negative_question, id, ...) built from (text, is_true) statements; `extra` adds fields such as course,
    area, jurisdiction and year. Seeded by (seed, identifier), so items are independent of one another."""
    truth = [bool(value) for _, value in statements]
    versions = build_versions(
        truth,
        ks,
        negated=negated,
        seed=f"{seed}\x1f{identifier}",
        language=language,
        allow_none=allow_none,
        nested=nested,
    )
    row: dict[str, Any] = {
        "id": identifier,
        "question": statement_question(stem, [text for text, _ in statements]),
        "language": language,
        "n_statements": len(statements),
        "negative_question": int(negated),
    }
    for k, version in versions.items():
        row[f"{k}_choices"] = list(version.texts)
        row[f"{k}_choices_gold"] = version.gold_index
    row.update(extra or {})
    return row


class _Statement(BaseModel):
    text: str = Field(min_length=1)
    correct: bool


class StatementItem(BaseModel):
    """An input row of `lexsym exam build`: a stem and its numbered true/false statements. Other fields
    (course, area, jurisdiction, year, ...) are carried into the output row."""

    model_config = ConfigDict(extra="allow", coerce_numbers_to_str=True)

    id: str = Field(min_length=1)
    stem: str = Field(min_length=1)
    statements: list[_Statement] = Field(min_length=1)
    negated: bool = False
    language: str = "en"
    allow_none: bool = True


def build_statement_file(
    path: str | Path, out: str | Path, *, ks: Iterable[int] = K_CHOICES, seed: int = 0, nested: bool = False
) -> int:
    """Read StatementItem rows (JSONL) from `path` and write LEXam robustness-set rows to `out`; return
    how many. Every row is checked before anything is written; the first problem raises InputError naming
    file:line."""
    from lexsym._util.atomic import write_atomic
    from lexsym._util.errors import InputError
    from lexsym._util.jsonl import jsonl_lines

    path = Path(path)
    try:
        lines = jsonl_lines(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read ({error.__class__.__name__})") from None
    rows = []
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = StatementItem.model_validate_json(line)
        except ValidationError as error:
            raise InputError(f"{path}:{number}: {describe(error)}") from None
        if item.id in seen:
            raise InputError(f"{path}:{number}: id {item.id!r} repeats")
        seen.add(item.id)
        try:
            row = lexam_item(
                item.id,
                item.stem,
                [(s.text, s.correct) for s in item.statements],
                negated=item.negated,
                ks=ks,
                seed=seed,
                language=item.language,
                allow_none=item.allow_none,
                nested=nested,
                extra=item.model_extra,
            )
        except StatementsError as error:
            raise InputError(f"{path}:{number}: {error}") from None
        rows.append(json.dumps(row, ensure_ascii=False))
    if not rows:
        raise InputError(f"{path}: no statement items")
    write_atomic(out, "".join(row + "\n" for row in rows))
    return len(rows)
