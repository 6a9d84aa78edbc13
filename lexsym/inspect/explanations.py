"""Why an answer scored what it did, in words a reader of the inspect log can act on.

For OE the words are the checker's: each broken rule by name, in a plain sentence, with the citation the
rule carries as data (`lexsym.check.checker`), or how far a valid schedule falls short of the optimum.
For AE..NA they are `lexsym check`'s differences from the gold; for MCQ the option read and the gold. All
come from `lexsym.check.answer_file.check_answer_file`, the code behind `lexsym check`, so the log says
what `lexsym check` would say of the same answer. A task set whose gold rests on a what-if table (an
OpenExempt import) is explained by the names of the rules the score's check found broken: `lexsym check`
knows only lexsym's own statutes. An explanation is never a score: if the checker cannot
explain an answer, the explanation says so and the score (computed apart) stands.
"""

from __future__ import annotations

from typing import Any

from lexsym.inspect.answer_scoring import AnswerScore

#: Metrics shown on an explanation's first line, by task (the rest are in the score's value).
HEADLINE = {
    "AE": ("precision", "recall", "f1"),
    "EC": ("precision", "recall", "f1"),
    "EV": ("precision", "recall", "f1", "mare"),
    "NA": ("precision", "recall", "f1", "mare"),
    "OE": ("valid", "optimal", "gap_percent"),
    "MCQ": ("accuracy",),
}


def headline(outcome: AnswerScore) -> str:
    shown = []
    for name in HEADLINE.get(outcome.task, ()):
        value = outcome.scores.get(name)
        shown.append(f"{name} {'n/a' if value is None else format(value, '.3g')}")
    return f"{outcome.task}: " + ", ".join(shown)


def explain(record: dict[str, Any], text: str, outcome: AnswerScore) -> str:
    """The explanation of one scored answer (markdown: the inspect viewer renders it)."""
    if outcome.problem:
        return f"Not scored: {outcome.problem}"
    if not outcome.parsed:
        return f"{headline(outcome)}\n\nThe answer could not be read: {outcome.error or 'no answer'}"
    if outcome.task == "MCQ":
        return _mcq(record, outcome)
    lines = [headline(outcome)]
    if outcome.error:
        lines += ["", f"Scoring note: {outcome.error}"]
    if outcome.table:  # `lexsym check` knows lexsym's statutes only, not the table this gold rests on
        broken = ", ".join(f"`{name}`" for name in dict.fromkeys(outcome.violations))
        lines += ["", f"Rules broken (under the task set's what-if table): {broken}" if broken else ""]
        return "\n".join(lines).rstrip()
    try:
        verdict = _check(record, text)
    except Exception as error:  # the score stands; only the words are missing
        lines += ["", f"(the checker could not explain this answer: {error.__class__.__name__}: {error})"]
        return "\n".join(lines)
    if verdict.violations:
        lines += ["", "Rules broken:"]
        lines += [_violation(v) for v in verdict.violations]
    if verdict.differences:
        lines += ["", "Differences from the gold:" if outcome.task != "OE" else "Against the optimum:"]
        lines += [f"- {difference}" for difference in verdict.differences]
    if verdict.correct:
        lines += ["", "Matches the gold." if outcome.task != "OE" else "Valid and optimal."]
    return "\n".join(lines)


def _violation(violation: dict[str, Any]) -> str:
    cited = f" ({violation['citation']})" if violation.get("citation") else ""
    return f"- `{violation['name']}`{cited}: {violation['message']}"


def _check(record: dict[str, Any], text: str) -> Any:
    """`lexsym check`'s verdict on this answer to this record's task."""
    from lexsym.check.answer_file import AnswerFile, check_answer_file
    from lexsym.law.case import Case
    from lexsym.law.tasks import Task

    case = Case.model_validate(record["case"])
    answer = AnswerFile(case=case, answers={Task(record["task"]): text})
    (verdict,) = check_answer_file(answer, case).verdicts
    return verdict


def _mcq(record: dict[str, Any], outcome: AnswerScore) -> str:
    reference = record.get("reference") or {}
    labels, options = reference.get("labels") or [], reference.get("options") or []
    texts = dict(zip(labels, options, strict=False))

    def shown(label: Any) -> str:
        return f"{label}" + (f" ({texts[label]})" if label in texts else "")

    verdict = "right" if outcome.value == record.get("gold") else "wrong"
    gold = shown(record.get("gold"))
    return f"{headline(outcome)}\n\nAnswered {shown(outcome.value)}: {verdict}; the gold is {gold}."
