"""One lexsym task as OpenExempt's task pieces: the seven prompt fields, the solution and the native case.

OpenExempt builds a prompt by joining seven fields with blank lines, skipping empty ones, in a fixed order:
instruction, meta_instruction, response_format, facts, solved_steps, statutes, format_reminder. Five are
shared by a whole dataset (shared.json); only facts and solved_steps vary per task. lexsym's prompt is a
system message and a user message whose sections (facts, statutes, solved steps, task, response format)
are joined by blank lines too, so the fields can hold lexsym's text unchanged and in its own order: the
sections before the facts that every task shares become instruction and meta_instruction, the facts are
`facts`, the shared tail becomes statutes and format_reminder, and whatever varies after the facts
(solved steps, a task sentence that depends on the filing, statutes that differ by petition date) goes to
`solved_steps` together with everything before it, statutes included.

Two response-format sections are rewritten, since OpenExempt's evaluator reads other answer shapes than
lexsym asks for: AE wants names separated by commas (not a JSON list), OE a schedule object without the
jurisdiction key (the evaluator infers the jurisdiction from the citations).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from lexsym.interop.openexempt_dataset import SHARED_PARTS
from lexsym.interop.openexempt_statute_files import NATIVE_JURISDICTIONS
from lexsym.law.vocabulary import FOREIGN, JURISDICTION_NAMES

_HEADINGS = {
    "## Facts": "facts",
    "## Statutes": "statutes",
    "## Steps already solved": "solved",
    "## Task": "task",
    "## Response format": "format",
}

RESPONSE_FORMATS = {
    "AE": (
        'Finish your response with the line "FINAL ANSWER:" followed by the names of the jurisdictions, '
        "separated by commas, and write nothing after it. Give states by their full names and the federal "
        'exemptions as "Federal". For example (the names are only an illustration):\n'
        "FINAL ANSWER: Vermont, Federal"
    ),
    "OE": (
        'Finish your response with the line "FINAL ANSWER:" followed by a JSON object, and write nothing '
        "after it. Its keys are asset descriptions, exactly as written in the facts, and its values are "
        'lists of the claims under the chosen jurisdiction, each an object with the exemption\'s "citation" '
        '(written as in the statutes) and the "claim_value" claimed under it, a whole number of dollars '
        "without a dollar sign or commas. The chosen jurisdiction is read from the citations, so do not name "
        "it separately. An asset on which nothing is claimed may be left out. For example (the assets and "
        "amounts are only an illustration):\n"
        'FINAL ANSWER: {"a 2009 Mazda 3 hatchback the debtor commutes in": [{"citation": "11 U.S.C. '
        '§ 522(d)(2)", "claim_value": 2600}], "a set of antique maps the debtor holds as an investment": '
        '[{"citation": "11 U.S.C. § 522(d)(5)", "claim_value": 900}]}'
    ),
}
"""The response-format sections replacing lexsym's for AE and OE (lexsym's wording, OpenExempt's shapes)."""

RESPONSE_FORMAT_NOTE = (
    "the response-format section asks for OpenExempt's answer shape (AE: names separated by commas; OE: the "
    "schedule object alone), not lexsym's, since OpenExempt's evaluator parses only its own"
)


def prompt_segments(system: str, user: str, task: str) -> list[tuple[str, str]]:
    """The prompt as named segments whose blank-line join is the whole prompt (system, then user)."""
    segments = [("system", system)]
    for number, chunk in enumerate(user.split("\n\n## ")):
        text = chunk if number == 0 else "## " + chunk
        heading = text.split("\n", 1)[0].strip()
        name = _HEADINGS.get(heading, "intro" if number == 0 else "other")
        if name == "format" and task in RESPONSE_FORMATS:
            text = f"{heading}\n\n{RESPONSE_FORMATS[task]}"
        segments.append((name, text))
    return segments


def split_prompts(tasks: Sequence[list[tuple[str, str]]]) -> tuple[dict[str, str], list[dict[str, str]], str]:
    """The shared fields, each task's facts and solved_steps, and where the statutes went.

    `tasks` are the segment lists of one dataset's tasks. A segment goes to a shared field only if it is
    the same in every task; the join of the fields reproduces each task's segments exactly.
    """
    facts_at = [_index(segments, "facts") for segments in tasks]
    heads = {tuple(segments[:at]) for segments, at in zip(tasks, facts_at, strict=True)}
    shared = dict.fromkeys(SHARED_PARTS, "")
    head_shared = len(heads) == 1 and all(at >= 1 for at in facts_at)
    if head_shared:
        head = next(iter(heads))
        shared["instruction"] = head[0][1]
        shared["meta_instruction"] = "\n\n".join(text for _name, text in head[1:])
    tails = [segments[at + 1 :] for segments, at in zip(tasks, facts_at, strict=True)]
    common = _common_suffix(tails)
    suffix = tails[0][len(tails[0]) - common :] if common else []
    if suffix and suffix[0][0] == "statutes":
        shared["statutes"] = suffix[0][1]
        suffix = suffix[1:]
    shared["format_reminder"] = "\n\n".join(text for _name, text in suffix)
    dynamic = []
    for segments, at, tail in zip(tasks, facts_at, tails, strict=True):
        start = at if head_shared else 0
        varying = tail[: len(tail) - common]
        dynamic.append(
            {
                "facts": "\n\n".join(text for _name, text in segments[start : at + 1]),
                "solved_steps": "\n\n".join(text for _name, text in varying),
            }
        )
    names = {name for tail in tails for name, _text in tail[: len(tail) - common]}
    where = "statutes" if shared["statutes"] else "solved_steps" if "statutes" in names else "absent"
    return shared, dynamic, where


def _index(segments: list[tuple[str, str]], name: str) -> int:
    for number, (segment, _text) in enumerate(segments):
        if segment == name:
            return number
    return len(segments) - 1  # no facts section: the whole prompt is the task's own text


def _common_suffix(tails: Sequence[list[tuple[str, str]]]) -> int:
    """How many trailing segments every tail shares (same name and text)."""
    count = 0
    while all(len(tail) > count for tail in tails) and len({tail[-1 - count] for tail in tails}) == 1:
        count += 1
    return count


def solution(task: str, gold: Any) -> Any:
    """lexsym's gold answer in the shape OpenExempt's evaluator compares against.

    EC and EV leave out assets that nothing applies to: the evaluator scores an empty target list 0 for
    every answer. (An EC case with no applicable exemption at all keeps its empty lists; the export leaves
    such a task out, since an empty target would make the EC average NaN.) OE keeps only the schedule.
    """
    if task == "AE":
        return ", ".join(gold)
    if task == "EC":
        kept = {asset: citations for asset, citations in gold.items() if citations}
        return kept or dict(gold)
    if task == "EV":
        return {asset: claims for asset, claims in gold.items() if claims}
    if task == "OE":
        return {asset: list(claims) for asset, claims in gold["schedule"].items()}
    return dict(gold)


def state_jurisdiction(allowable: Sequence[str]) -> str | None:
    """The case's `state_jurisdiction` from lexsym's AE answer (names): its state, FEDERAL when only the
    federal exemptions apply (the hanging paragraph), None when OpenExempt cannot name it."""
    codes = {name: code for code, name in JURISDICTION_NAMES.items()}
    states = [name for name in allowable if name != "Federal"]
    if not states:
        return NATIVE_JURISDICTIONS["US"]
    if len(states) > 1 or codes.get(states[0]) not in NATIVE_JURISDICTIONS:
        return None
    return NATIVE_JURISDICTIONS[codes[states[0]]]


def native_case(
    case: dict[str, Any], state: str, applicable: dict[str, list[str]], losses: list[str]
) -> dict[str, Any]:
    """A lexsym case (its JSON form) as OpenExempt's native case record, appending what it cannot hold.

    `applicable`: each asset id's citations under every OpenExempt jurisdiction. Domicile periods in places
    OpenExempt cannot name (other states, abroad) are left out, and so is a spouse's own history.
    """
    names = [_party(name) for name in case.get("debtors", [])]
    joint = case.get("filing") == "joint"
    if len(names) < (2 if joint else 1):
        losses.append("debtor names: missing, placeholders written")
        names += [{"first_name": "Debtor", "last_name": str(n)} for n in range(len(names) + 1, 3)]
    domicile: dict[str, str] = {}
    codes = {code: value for code, value in NATIVE_JURISDICTIONS.items() if code != "US"}
    for period in sorted(case["domicile"], key=lambda p: p["start"]):
        place = period["state"]
        if place in codes:
            domicile[f"{dt.date.fromisoformat(period['start']).isoformat()}T00:00:00"] = codes[place]
        else:
            where = "abroad" if place == FOREIGN else JURISDICTION_NAMES.get(place, place)
            losses.append(
                f"domicile outside OpenExempt's jurisdictions left out: {where} from {period['start']}"
            )
    if case.get("spouse_domicile"):
        losses.append("spouse's own domicile history left out: OpenExempt has one history per case")
    return {
        "debtor": names[0],
        "joint_debtor": names[1] if joint else None,
        "assets": [
            {
                "description": asset["description"],
                "dollar_value": asset["value"],
                "applicable_exemptions": list(applicable.get(asset["id"], [])),
                "category_hints": [asset.get("kind", "other")],
            }
            for asset in case["assets"]
        ],
        "state_jurisdiction": state,
        "petition_date": f"{case['petition_date']}T00:00:00",
        "domicile_dates": domicile,
    }


def _party(name: str) -> dict[str, str]:
    first, _space, last = name.strip().rpartition(" ")
    return {"first_name": first, "last_name": last} if first else {"first_name": last, "last_name": ""}
