"""Ranges whose grounding would exhaust memory, found before clingo grounds them.

A statute file with `big(1..1000000000).` made `solve` and `lint` run until the machine ran out of memory
(issue 19, item 13): clingo has no grounding limit of its own. Every range with constant ends is checked
when a rule file is parsed, so the file is refused at its line instead. No rule of ours needs more than a few
hundred values; ranges over variables (a day window, an item count) are bounded by the case's own facts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from clingo import SymbolType, ast

from lexsym._util.errors import RuleError

MAX_RANGE = 100_000
"""Values one constant range may have."""


class GroundingLimit(RuleError):
    """A rule file with a range of more than MAX_RANGE values, located at its line."""


@dataclass(frozen=True)
class LargeRange:
    line: int
    low: int
    high: int

    @property
    def size(self) -> int:
        return self.high - self.low + 1


def large_ranges(statements: Iterable[ast.AST]) -> list[LargeRange]:
    """Every range `a..b` with integer ends and more than MAX_RANGE values, in the order met."""
    found: list[LargeRange] = []
    pending = list(statements)
    while pending:
        node = pending.pop()
        if node.ast_type == ast.ASTType.Interval:
            low, high = _integer(node.left), _integer(node.right)
            if low is not None and high is not None and high - low + 1 > MAX_RANGE:
                found.append(LargeRange(node.location.begin.line, low, high))
        for key in node.child_keys:
            value = getattr(node, key)
            if isinstance(value, ast.AST):
                pending.append(value)
            elif isinstance(value, (list, tuple, ast.ASTSequence)):
                pending.extend(v for v in value if isinstance(v, ast.AST))
    return sorted(found, key=lambda r: r.line)


def _integer(term: ast.AST) -> int | None:
    if term.ast_type == ast.ASTType.SymbolicTerm and term.symbol.type == SymbolType.Number:
        return term.symbol.number
    if term.ast_type == ast.ASTType.UnaryOperation and term.operator_type == ast.UnaryOperator.Minus:
        inner = _integer(term.argument)
        return None if inner is None else -inner
    return None


def grounding_limit_error(path: str, found: LargeRange) -> GroundingLimit:
    return GroundingLimit(
        f"{path}:{found.line}: the range {found.low}..{found.high} has {found.size:,} values, more than "
        f"{MAX_RANGE:,}: grounding it could exhaust memory",
        file=path,
        line=found.line,
    )
