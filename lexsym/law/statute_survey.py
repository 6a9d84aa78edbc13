"""What a rule file states, read from its syntax tree with line numbers: its facts, the vocabulary words
its rules test, and the predicates it defines.

Lint checks these without grounding, so each problem points at the line that states it, and the checks
that need no solving run in milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from clingo import SymbolType, ast

from lexsym._util.errors import LexsymError
from lexsym.law.clingo_runner import MessageLog, parsed_file
from lexsym.law.vocabulary import AmountKind, AssetKind, Owner, Person, RetirementPlan, Use, VehicleType

DOMAINS: dict[str, frozenset[str]] = {
    "kind": frozenset(k.value for k in AssetKind),
    "use": frozenset(u.value for u in Use),
    "person": frozenset(p.value for p in Person),
    "owner": frozenset(o.value for o in Owner),
    "plan": frozenset(p.value for p in RetirementPlan),
    "vehicle type": frozenset(v.value for v in VehicleType),
    "amount kind": frozenset(k.value for k in AmountKind),
}
"""The closed sets of words that vocabulary positions take."""

VOCABULARY_POSITIONS: dict[tuple[str, int], dict[int, str]] = {
    ("asset_kind", 2): {1: "kind"},
    ("asset_is", 2): {1: "kind"},
    ("kind_is", 2): {0: "kind", 1: "kind"},
    ("trade_goods_kind", 1): {0: "kind"},
    ("asset_use", 2): {1: "use"},
    ("asset_user", 2): {1: "person"},
    ("subject", 2): {1: "person"},
    ("asset_owner", 2): {1: "owner"},
    ("retirement_plan", 2): {1: "plan"},
    ("tax_exempt_plan", 1): {0: "plan"},
    ("vehicle_type", 2): {1: "vehicle type"},
    ("amount", 4): {1: "amount kind"},
    ("amount_as_of", 4): {1: "amount kind"},
    ("unconfirmed", 3): {1: "amount kind"},
    ("amount_stale_from", 3): {1: "amount kind"},
}
"""Which argument of which predicate holds a word of which domain (encodings/vocabulary.lp documents each)."""


@dataclass(frozen=True)
class Fact:
    name: str
    arguments: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Word:
    """A constant in a vocabulary position (directly, in a pool, or compared with a variable there)."""

    domain: str
    word: str
    line: int


@dataclass(frozen=True)
class Survey:
    facts: list[Fact]
    words: list[Word]
    heads: frozenset[str]
    conditional: list[Fact] = field(default_factory=list)  # heads of rules with a body (amounts a case sets)


def _children(node: ast.AST) -> Iterator[ast.AST]:
    for key in node.child_keys:
        value = getattr(node, key)
        if isinstance(value, ast.AST):
            yield value
        elif isinstance(value, (list, tuple, ast.ASTSequence)):
            yield from (v for v in value if isinstance(v, ast.AST))


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and every node below it, depth first."""
    yield node
    for child in _children(node):
        yield from walk(child)


def _constants(term: ast.AST) -> Iterator[str]:
    """The plain constants a term stands for: `a`, or each of `(a; b)`."""
    if term.ast_type == ast.ASTType.Pool:
        for argument in term.arguments:
            yield from _constants(argument)
    elif term.ast_type == ast.ASTType.SymbolicTerm:
        symbol = term.symbol
        if symbol.type == SymbolType.Function and not symbol.arguments and symbol.name:
            yield symbol.name
    elif term.ast_type == ast.ASTType.Function and not term.arguments and term.name:
        yield term.name


def _rule_words(rule: ast.AST) -> list[Word]:
    words: list[Word] = []
    bound: dict[str, str] = {}
    comparisons: list[ast.AST] = []
    for node in walk(rule):
        if node.ast_type == ast.ASTType.Function:
            positions = VOCABULARY_POSITIONS.get((node.name, len(node.arguments)), {})
            for index, domain in positions.items():
                argument = node.arguments[index]
                if argument.ast_type == ast.ASTType.Variable:
                    bound[argument.name] = domain
                for word in _constants(argument):
                    words.append(Word(domain, word, argument.location.begin.line))
        elif node.ast_type == ast.ASTType.Comparison:
            comparisons.append(node)
    for comparison in comparisons:
        terms = [comparison.term, *(guard.term for guard in comparison.guards)]
        domains = {bound[t.name] for t in terms if t.ast_type == ast.ASTType.Variable and t.name in bound}
        for domain in domains:
            for term in terms:
                for word in _constants(term):
                    words.append(Word(domain, word, term.location.begin.line))
    return words


def _fact(rule: ast.AST, *, conditional: bool = False) -> Fact | None:
    """The rule's head as a fact: a fact (no body), or with `conditional` the head of a rule with a body."""
    if bool(rule.body) != conditional or rule.head.ast_type != ast.ASTType.Literal or rule.head.sign:
        return None
    atom = rule.head.atom
    if atom.ast_type != ast.ASTType.SymbolicAtom or atom.symbol.ast_type != ast.ASTType.Function:
        return None
    function = atom.symbol
    return Fact(function.name, tuple(str(a) for a in function.arguments), rule.location.begin.line)


def _head_names(rule: ast.AST) -> Iterator[str]:
    for node in walk(rule.head):
        if node.ast_type == ast.ASTType.SymbolicAtom and node.symbol.ast_type == ast.ASTType.Function:
            yield node.symbol.name


_SURVEYS: dict[tuple[str, int, int], Survey | None] = {}


def survey(path: Path) -> Survey | None:
    """The file's facts, vocabulary words and head predicates; None when it does not parse (clingo's
    own message then says where). Kept per process until the file changes, as parsed files are."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _SURVEYS:
        _SURVEYS[key] = _survey(path)
    return _SURVEYS[key]


def _survey(path: Path) -> Survey | None:
    try:
        statements = parsed_file(path, MessageLog())
    except LexsymError:
        return None
    facts: list[Fact] = []
    conditional: list[Fact] = []
    words: list[Word] = []
    heads: set[str] = set()
    for statement in statements:
        if statement.ast_type == ast.ASTType.Rule:
            fact = _fact(statement)
            if fact is not None:
                facts.append(fact)
            head = _fact(statement, conditional=True)
            if head is not None:
                conditional.append(head)
            words.extend(_rule_words(statement))
            heads.update(_head_names(statement))
        elif statement.ast_type == ast.ASTType.Defined:
            heads.add(statement.name)
    return Survey(facts, words, frozenset(heads), conditional)
