"""A mutation sweep of the statute files: change one thing at a time (an amount, an effective date, a
comparison, a condition of a qualifies/3 rule), run the named cases of that statute file against the
mutated copy of the rules, and print the kill rate per operator.

    python tools/mutation_sweep.py [--sample 120] [--seed 18]

A mutant is killed when `lexsym test` on the file's named cases exits non-zero. Survivors are printed
with their file and line so that each can be read: some are equivalent (a figure no case can reach).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
AMOUNT = re.compile(r"^(amount(?:_as_of)?\(\w+,\s*\w+,\s*date\((\d+),(\d+),(\d+)\),\s*)(\d+)(\)\.)", re.M)
COMPARISON = re.compile(r"(?<![<>!=])(<=|>=|<|>)(?!=)")
RULE = re.compile(r"^qualifies\(.*?:-(.*?)\.\s*$", re.M | re.S)


def _statute_cases() -> dict[str, list[Path]]:
    import yaml

    cases: dict[str, list[Path]] = {}
    for path in sorted((REPO / "tests" / "statutes").rglob("*.yaml")):
        statute = yaml.safe_load(path.read_text(encoding="utf-8")).get("statute")
        cases.setdefault(statute, []).append(path)
    return cases


def _without_comments(text: str) -> str:
    """The program with every % comment blanked (not a % inside a string), so that mutants touch code only."""
    out, in_string, in_comment = [], False, False
    for char in text:
        if char == "\n":
            in_comment = False
        elif in_comment:
            char = " "
        elif char == '"':
            in_string = not in_string
        elif char == "%" and not in_string:
            in_comment, char = True, " "
        out.append(char)
    return "".join(out)


def _mutants(text: str):
    """(operator, line, mutated text) for one statute file."""

    def line_of(offset: int) -> int:
        return text.count("\n", 0, offset) + 1

    for match in AMOUNT.finditer(text):
        value = int(match.group(5))
        for delta in (1, -1):
            mutated = text[: match.start(5)] + str(value + delta) + text[match.end(5) :]
            yield "amount ±1", line_of(match.start()), mutated
        day = f"date({match.group(2)},{match.group(3)},{match.group(4)})"
        start = match.group(1).rfind(day) + match.start()
        shifted = f"date({match.group(2)},{match.group(3)},{int(match.group(4)) + 1})"
        if int(match.group(4)) < 28:
            yield "date +1 day", line_of(match.start()), text[:start] + shifted + text[start + len(day) :]
    for rule in RULE.finditer(text):
        body_start = rule.start(1)
        literals = [m for m in re.finditer(r"(?:not\s+)?\w+\([^()]*(?:\([^()]*\)[^()]*)*\)", rule.group(1))]
        if len(literals) > 1:
            for literal in literals[1:]:
                begin, end = body_start + literal.start(), body_start + literal.end()
                yield "drop a condition", line_of(begin), text[:begin] + "#true" + text[end:]
        for comparison in COMPARISON.finditer(rule.group(1)):
            flip = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}[comparison.group(1)]
            begin = body_start + comparison.start()
            yield "comparison", line_of(begin), text[:begin] + flip + text[begin + len(comparison.group(1)) :]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=120, help="mutants to run (0: all)")
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--only", default="", help="sweep only statute files whose path contains this")
    options = parser.parse_args()
    cases = _statute_cases()
    everything = []
    for path in sorted((REPO / "statutes").rglob("*.lp")):
        relative = path.relative_to(REPO).as_posix()
        if relative in cases and options.only in relative:
            text = _without_comments(path.read_text(encoding="utf-8"))
            everything.extend((relative, *mutant) for mutant in _mutants(text))
    random.Random(options.seed).shuffle(everything)
    chosen = everything if options.sample == 0 else everything[: options.sample]
    killed, total, survivors, invalid = Counter(), Counter(), [], 0
    with tempfile.TemporaryDirectory() as work:
        rules = Path(work) / "rules"
        shutil.copytree(REPO / "statutes", rules / "statutes")
        shutil.copytree(REPO / "encodings", rules / "encodings")
        for relative, operator, line, mutated in chosen:
            target = rules / relative
            original = target.read_text(encoding="utf-8")
            target.write_text(mutated, encoding="utf-8")
            done = subprocess.run(
                [sys.executable, "-m", "lexsym", "test", *map(str, cases[relative])],
                capture_output=True,
                text=True,
                env={**os.environ, "LEXSYM_RULES": str(rules)},
            )
            target.write_text(original, encoding="utf-8")
            if "unsafe" in done.stdout + done.stderr:
                invalid += 1  # dropping a condition left a variable unbound: not a program, not counted
                continue
            total[operator] += 1
            if done.returncode != 0:
                killed[operator] += 1
            else:
                survivors.append(f"{relative}:{line} {operator}")
    print(f"{len(everything)} mutants, {len(chosen)} drawn (seed {options.seed}), {invalid} unsafe left out")
    for operator in sorted(total):
        rate = killed[operator] / total[operator]
        print(f"  {operator:18} {killed[operator]:4}/{total[operator]:<4} killed ({rate:.0%})")
    print(f"  {'all':18} {sum(killed.values()):4}/{sum(total.values()):<4} killed")
    for survivor in survivors:
        print("  survived:", survivor)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
