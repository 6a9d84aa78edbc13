"""`lexsym lint --fix`: apply the mechanical edits lint problems carry, each file rewritten atomically.

An edit replaces a whole word (a citation string, an id, a misspelt vocabulary word) on one line or in
the whole file; nothing else in the file changes, comments and layout included.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from lexsym._util.atomic import write_atomic
from lexsym.law.lint import Edit, Problem
from lexsym.law.lint_codes import CODES


def fixable(problem: Problem, *, unsafe: bool) -> bool:
    kind = CODES[problem.code].fix
    return bool(problem.edits) and (kind == "safe" or (unsafe and kind == "unsafe"))


def _replace(text: str, edit: Edit) -> str:
    pattern = re.compile(rf"(?<![\w]){re.escape(edit.old)}(?![\w])")
    if edit.line is None:
        return pattern.sub(edit.new, text)
    lines = text.split("\n")
    if 0 < edit.line <= len(lines):
        lines[edit.line - 1] = pattern.sub(edit.new, lines[edit.line - 1])
    return "\n".join(lines)


def apply_fixes(problems: list[Problem], *, unsafe: bool = False) -> dict[Path, int]:
    """Apply every fixable problem's edits; return how many edits changed each file."""
    by_file: dict[Path, list[Edit]] = defaultdict(list)
    for problem in problems:
        if fixable(problem, unsafe=unsafe):
            for edit in problem.edits:
                by_file[edit.path].append(edit)
    changed: dict[Path, int] = {}
    for path, edits in sorted(by_file.items()):
        original = path.read_text(encoding="utf-8")
        text = original
        count = 0
        for edit in dict.fromkeys(edits):
            updated = _replace(text, edit)
            count += updated != text
            text = updated
        if text != original:
            write_atomic(path, text)
            changed[path] = count
    return changed
