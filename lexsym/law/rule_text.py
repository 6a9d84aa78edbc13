"""A rule file checked before clingo reads it: UTF-8, no byte-order mark, nothing cut mid-character.

clingo decodes its own messages as UTF-8 and aborts the whole process ("PANIC: exception in nothrow scope")
when one ends inside a multi-byte character: a byte-order mark does it, and so does a lexer error at an
unterminated string that holds a "§" (issue 19, item 1). A process pool then waits forever for the dead
worker. So every rule file is read here first, and refused with its file and line where clingo would choke;
a byte-order mark is only stripped.
"""

from __future__ import annotations

import re
from pathlib import Path

from lexsym._util.errors import RuleError

BOM = "\ufeff"

# A string (no raw newline inside), a block comment, or a line comment: what may hold non-ASCII text.
_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"|%\*.*?\*%|%[^\n]*', re.S)
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def rule_text(path: Path) -> tuple[str, bool]:
    """The file's text, and whether it had a byte-order mark (stripped). Raises a located RuleError for bytes
    that are not UTF-8, an unterminated string or block comment, and non-ASCII text outside strings and
    comments: each would reach clingo's lexer and could abort the process."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise RuleError(f"{path}: cannot read: {error.strerror or error}", file=str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        byte = raw[error.start : error.start + 1].hex()
        raise RuleError(
            f"{path}:{line}: not UTF-8 (byte 0x{byte}); save the file as UTF-8", file=str(path), line=line
        ) from None
    bom = text.startswith(BOM)
    text = text.removeprefix(BOM)
    _check_tokens(path, text)
    return text, bom


def _check_tokens(path: Path, text: str) -> None:
    def line_of(offset: int) -> int:
        return text.count("\n", 0, offset) + 1

    for match in _QUOTED.finditer(text):
        if match.group().startswith("%*") and not match.group().endswith("*%"):
            line = line_of(match.start())
            raise RuleError(
                f"{path}:{line}: a block comment %* is never closed by *%", file=str(path), line=line
            )
    rest = _QUOTED.sub(lambda m: "\n" * m.group().count("\n"), text)
    stray = re.search(r'"', rest)
    if stray is not None:
        # Map the offset in `rest` back to a line: count newlines before it (kept by the substitution).
        line = rest.count("\n", 0, stray.start()) + 1
        raise RuleError(f"{path}:{line}: a string is not closed on its line", file=str(path), line=line)
    odd = _NON_ASCII.search(rest)
    if odd is not None:
        line = rest.count("\n", 0, odd.start()) + 1
        raise RuleError(
            f"{path}:{line}: {odd.group()!r} outside a string or comment (only ASCII there)",
            file=str(path),
            line=line,
        )
