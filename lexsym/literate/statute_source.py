"""A statute file read as the house layout writes it: the `%#` title, the header (Source, Input, Output,
Choices), then sections opened by `% ----- ... -----` lines, each a run of comment and rule blocks.

The page shows the header as prose and each section's law beside its code, so the parse keeps every line
of the file: nothing a legal engineer wrote is dropped from the view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lexsym._util.errors import InputError

SECTION_LINE = re.compile(r"^%\s*-{3,}\s*(?P<title>.*?)\s*-*\s*$")
EXEMPTION_FACT = re.compile(
    r"^(?:exemption\(\s*(?P<id>[a-z][A-Za-z0-9_]*)\s*,|group\(\s*(?P<group>[a-z][A-Za-z0-9_]*)\s*\)\.)"
)
READING_USE = re.compile(r"reading\(\s*(?P<name>[a-z][a-z0-9_]*)\s*,\s*(?P<option>[a-z][a-z0-9_]*)\s*\)")
HEADER_FIELD = re.compile(r"^(?P<name>Source|Input|Used|Output):\s*(?P<text>.*)$")


@dataclass(frozen=True)
class Block:
    """Consecutive lines of one kind: "comment" (the `%` stripped) or "code" (as written)."""

    kind: str
    line: int
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True)
class Section:
    """The lines between two section rules; `title` is None for what precedes the first one."""

    title: str | None
    line: int
    blocks: tuple[Block, ...]

    @property
    def exemption_ids(self) -> tuple[str, ...]:
        """The exemptions (`exemption(id, j).`) and group caps (`group(id).`) declared here, in order."""
        found = []
        for block in self.blocks:
            if block.kind == "code":
                found += [
                    m.group("id") or m.group("group")
                    for line in block.lines
                    if (m := EXEMPTION_FACT.match(line.strip()))
                ]
        return tuple(found)

    @property
    def readings(self) -> tuple[tuple[str, str], ...]:
        """Every `reading(name, option)` the section's rules test, in order, once each."""
        seen: dict[tuple[str, str], None] = {}
        for block in self.blocks:
            if block.kind == "code":
                for match in READING_USE.finditer(block.text):
                    seen[(match.group("name"), match.group("option"))] = None
        return tuple(seen)


@dataclass(frozen=True)
class StatuteSource:
    """One statute file: its title, header fields, choices and other header prose, and its sections."""

    path: Path
    title: str
    fields: dict[str, str]
    choices: tuple[str, ...]
    prose: tuple[str, ...]
    sections: tuple[Section, ...] = field(default=())

    @property
    def exemption_ids(self) -> tuple[str, ...]:
        return tuple(ident for section in self.sections for ident in section.exemption_ids)

    @property
    def readings(self) -> tuple[tuple[str, str], ...]:
        return tuple(dict.fromkeys(r for section in self.sections for r in section.readings))


def read_statute_source(path: Path) -> StatuteSource:
    """Parse `path`; a file that cannot be read as UTF-8 is an InputError naming it."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read as UTF-8 ({error.__class__.__name__})") from None
    lines = text.splitlines()
    header_end = 0
    while header_end < len(lines) and lines[header_end].startswith("%"):
        header_end += 1
    header = [_uncomment(line) for line in lines[:header_end]]
    title = header[0].lstrip("#").strip() if header and lines[0].startswith("%#") else path.stem
    fields, choices, prose = _read_header(header[1:] if lines[:1] and lines[0].startswith("%#") else header)
    return StatuteSource(path, title, fields, choices, prose, _sections(lines, header_end))


def _uncomment(line: str) -> str:
    """A comment line's text: the `%` and one space after it removed."""
    return line[2:] if line[1:2] == " " else line[1:]


def _read_header(lines: list[str]) -> tuple[dict[str, str], tuple[str, ...], tuple[str, ...]]:
    """Fields (with their indented continuation lines), the `- ` bullets (the Choices list), and every other
    paragraph, each joined into one line."""
    fields: dict[str, str] = {}
    bullets: list[str] = []
    paragraphs: list[str] = []
    target: tuple[str, str | int] | None = None  # what an indented or following line continues
    for line in lines:
        stripped = line.strip()
        match = HEADER_FIELD.match(stripped) if not line.startswith(" ") else None
        if not stripped or stripped.lower().startswith("choices"):
            target = None
        elif match:
            fields[match.group("name")] = match.group("text")
            target = ("field", match.group("name"))
        elif stripped.startswith("- "):
            bullets.append(stripped[2:])
            target = ("bullet", len(bullets) - 1)
        elif target is not None and (line.startswith(" ") or target[0] == "paragraph"):
            kind, key = target
            if kind == "field":
                fields[str(key)] += " " + stripped
            elif kind == "bullet":
                bullets[int(key)] += " " + stripped
            else:
                paragraphs[int(key)] += " " + stripped
        else:
            paragraphs.append(stripped)
            target = ("paragraph", len(paragraphs) - 1)
    return fields, tuple(bullets), tuple(paragraphs)


def _sections(lines: list[str], start: int) -> tuple[Section, ...]:
    sections: list[Section] = []
    title: str | None = None
    first = start + 1
    blocks: list[Block] = []
    run: list[str] = []
    run_kind = ""
    run_line = 0

    def close_run() -> None:
        nonlocal run, run_kind
        if run:
            blocks.append(Block(run_kind, run_line, tuple(run)))
        run, run_kind = [], ""

    in_block_comment = False
    for number, line in enumerate(lines[start:], start=start + 1):
        if in_block_comment or line.lstrip().startswith("%*"):  # a %* ... *% block comment
            stripped = line.strip()
            if in_block_comment:
                in_block_comment = "*%" not in stripped
            else:
                close_run()
                run_kind, run_line = "comment", number
                in_block_comment = "*%" not in stripped[2:]
            text = stripped.removeprefix("%*!").removeprefix("%*").removesuffix("*%").strip()
            if text:
                run.append(text)
            if not in_block_comment:
                close_run()
            continue
        heading = SECTION_LINE.match(line)
        if heading:
            close_run()
            if blocks or title is not None:
                sections.append(Section(title, first, tuple(blocks)))
            title, first, blocks = heading.group("title") or None, number, []
            continue
        if not line.strip():  # a blank line ends a block
            close_run()
            continue
        kind = "comment" if line.lstrip().startswith("%") else "code"
        if kind != run_kind:
            close_run()
            run_kind, run_line = kind, number
        run.append(_uncomment(line.lstrip()) if kind == "comment" else line)
    close_run()
    if blocks or title is not None:
        sections.append(Section(title, first, tuple(blocks)))
    return tuple(sections)
