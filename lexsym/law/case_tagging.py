"""Many cases in one grounding: every atom that depends on a case carries the case's number.

Why: clingo pays a fixed price per rule for every grounding, whatever the case, and for the small cases
most benchmarks hold that price was most of the first pass. Grounding a batch of cases together pays it
once. The rewriting is the textbook one for a stratified program: a predicate depends on the case when
only a case can give its facts (no rule defines it) or a rule that mentions such a predicate derives it;
each of its atoms gets the case number as a new first argument (a variable bound by `lexsym_case/1` in
rules, the number itself in the case's facts), and every other atom, the statutes' own facts, is shared.
The answer set of the batch is then the union of each case's answer set, tagged, with the shared atoms
once, so splitting it by the first argument gives back exactly what each case alone would have given.

Which predicates depend on a case is decided once over every rule file of the rules directory, so each
file is rewritten once per process whatever set of files a batch loads. Statements this module does not
know how to rewrite (theory atoms, `#external`, program parts) make it decline, and the caller solves the
cases one by one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import clingo
from clingo import ast

CASE_PREDICATE = "lexsym_case"
SHOWN_WRAPPER = "lexsym_shown"
SHARED_WRAPPER = "lexsym_shown_all"
_VARIABLE = "LexsymCase"
_T = ast.ASTType


class NotTaggable(Exception):
    """The program has a statement this rewriting does not cover."""


def _term_names(term: ast.AST) -> set[str]:
    kind = term.ast_type
    if kind == _T.Function:
        return {term.name}
    if kind == _T.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function:
        return {term.symbol.name}
    if kind == _T.UnaryOperation:
        return _term_names(term.argument)
    if kind == _T.Pool:
        return {name for alternative in term.arguments for name in _term_names(alternative)}
    raise NotTaggable(f"atom {term}")


def _names(node: ast.AST, found: set[str]) -> None:
    """Add the predicate names of every symbolic atom inside `node` (a statement or part of one)."""
    kind = node.ast_type
    if kind == _T.SymbolicAtom:
        found.update(_term_names(node.symbol))
    elif kind == _T.Literal:
        _names(node.atom, found)
    elif kind == _T.ConditionalLiteral:
        _names(node.literal, found)
        for literal in node.condition:
            _names(literal, found)
    elif kind in (_T.Aggregate, _T.Disjunction, _T.BodyAggregate, _T.HeadAggregate):
        for element in node.elements:
            _names(element, found)
    elif kind == _T.BodyAggregateElement:
        for literal in node.condition:
            _names(literal, found)
    elif kind == _T.HeadAggregateElement:
        _names(node.condition, found)
    elif kind in (_T.Rule, _T.ShowTerm):
        if kind == _T.Rule:
            _names(node.head, found)
        for literal in node.body:
            _names(literal, found)
    elif kind not in (_T.Comparison, _T.BooleanConstant):
        raise NotTaggable(str(kind))


def _mapped(node: ast.AST, change: Callable[[ast.AST], ast.AST]) -> ast.AST:
    """`node` with `change` applied to every symbolic atom inside it."""
    kind = node.ast_type
    if kind == _T.SymbolicAtom:
        return change(node)
    if kind == _T.Literal:
        return node.update(atom=_mapped(node.atom, change))
    if kind == _T.ConditionalLiteral:
        return node.update(
            literal=_mapped(node.literal, change), condition=[_mapped(c, change) for c in node.condition]
        )
    if kind in (_T.Aggregate, _T.Disjunction, _T.BodyAggregate, _T.HeadAggregate):
        return node.update(elements=[_mapped(e, change) for e in node.elements])
    if kind == _T.BodyAggregateElement:
        return node.update(condition=[_mapped(c, change) for c in node.condition])
    if kind == _T.HeadAggregateElement:
        return node.update(condition=_mapped(node.condition, change))
    if kind in (_T.Comparison, _T.BooleanConstant):
        return node
    raise NotTaggable(str(kind))


def _tag_term(term: ast.AST, tag: ast.AST, dependent: frozenset[str]) -> ast.AST:
    kind = term.ast_type
    if kind == _T.Function:
        return term.update(arguments=[tag, *term.arguments]) if term.name in dependent else term
    if kind == _T.SymbolicTerm:
        symbol = term.symbol
        if symbol.type == clingo.SymbolType.Function and symbol.name in dependent:
            return ast.Function(term.location, symbol.name, [tag], 0)
        return term
    if kind == _T.UnaryOperation:
        return term.update(argument=_tag_term(term.argument, tag, dependent))
    if kind == _T.Pool:
        return term.update(arguments=[_tag_term(a, tag, dependent) for a in term.arguments])
    raise NotTaggable(f"atom {term}")


class Tagging:
    """How the statements of one rules directory (`universe`: every statement of its stratified files)
    are rewritten for batches: the predicates that depend on a case, and each file's rewritten
    statements. `inputs` names more predicates that cases give facts of (besides those no rule defines);
    `shared` names predicates whose facts are the same for every case of a batch (a what-if table's),
    given once and untagged."""

    def __init__(
        self, universe: Iterable[ast.AST], inputs: Iterable[str] = (), shared: Iterable[str] = ()
    ) -> None:
        rules: list[tuple[set[str], set[str]]] = []
        self.mentioned: set[str] = set()
        defined: set[str] = set()
        for statement in universe:
            kind = statement.ast_type
            if kind in (_T.Rule, _T.ShowTerm):
                heads: set[str] = set()
                if kind == _T.Rule:
                    _names(statement.head, heads)
                mentioned: set[str] = set(heads)
                _names(statement, mentioned)
                rules.append((heads, mentioned))
                defined |= heads
                self.mentioned |= mentioned
            elif kind in (_T.ShowSignature, _T.Defined):
                self.mentioned.add(statement.name)
            elif kind not in (_T.Program, _T.Comment):
                raise NotTaggable(str(kind))
        self.shared = frozenset(shared)
        seeds = (self.mentioned - defined - self.shared) | set(inputs) | {CASE_PREDICATE}
        self.dependent = frozenset(_closure(rules, seeds))
        location = ast.Location(ast.Position("<batch>", 1, 1), ast.Position("<batch>", 1, 1))
        self._variable = ast.Variable(location, _VARIABLE)
        self._bound = ast.Literal(
            location,
            ast.Sign.NoSign,
            ast.SymbolicAtom(ast.Function(location, CASE_PREDICATE, [self._variable], 0)),
        )
        self._files: dict[object, list[ast.AST]] = {}

    def unserved(self, names: Iterable[str]) -> set[str]:
        """Which of the predicates that case facts define this rewriting does not tag, though statements
        use them (a batch with such facts needs a rewriting that takes them as `inputs`)."""
        return {name for name in names if name not in self.dependent and name in self.mentioned}

    def rewritten(self, key: object, statements: Sequence[ast.AST]) -> list[ast.AST]:
        """The statements of one file (`key` names the file and its version), rewritten once."""
        if key not in self._files:
            self._files[key] = [self._rewrite(statement) for statement in statements]
        return self._files[key]

    def _rewrite(self, statement: ast.AST) -> ast.AST:
        kind = statement.ast_type
        if kind in (_T.ShowSignature, _T.Defined):
            if statement.name in self.dependent:
                return statement.update(arity=statement.arity + 1)
            return statement
        if kind in (_T.Program, _T.Comment):
            if kind == _T.Program and (statement.name != "base" or statement.parameters):
                raise NotTaggable(f"program part {statement.name}")
            return statement
        if kind not in (_T.Rule, _T.ShowTerm):
            raise NotTaggable(str(kind))
        names: set[str] = set()
        _names(statement, names)
        if not names & self.dependent:
            if kind == _T.ShowTerm:  # shown for every case
                shared = ast.Function(statement.location, SHARED_WRAPPER, [statement.term], 0)
                return statement.update(term=shared)
            return statement

        def tag(atom: ast.AST) -> ast.AST:
            return atom.update(symbol=_tag_term(atom.symbol, self._variable, self.dependent))

        body = [self._bound, *(_mapped(literal, tag) for literal in statement.body)]
        if kind == _T.ShowTerm:
            shown = ast.Function(statement.location, SHOWN_WRAPPER, [self._variable, statement.term], 0)
            return statement.update(term=shown, body=body)
        return statement.update(head=_mapped(statement.head, tag), body=body)

    def case_facts(self, facts: Sequence[tuple[str, str]], number: int) -> str:
        """A case's facts (`parse_case_facts`) as program text, each atom tagged with the case's number, and
        the case's `lexsym_case` fact."""
        lines = [f"{CASE_PREDICATE}({number})."]
        for name, rest in facts:
            if name not in self.dependent and name in self.mentioned:  # a fact the statutes also state
                lines.append(name + rest)
            elif rest == ".":
                lines.append(f"{name}({number}).")
            else:
                lines.append(f"{name}({number},{rest[1:]}")
        return "\n".join(lines) + "\n"

    def split(self, symbols: Iterable[clingo.Symbol], cases: int) -> list[list[clingo.Symbol]]:
        """The batch's shown atoms as each case's own: tagged atoms go to their case, untagged ones to all;
        each case's list keeps the batch's order, without repeats."""
        own: list[list[clingo.Symbol]] = [[] for _ in range(cases)]
        shared: list[clingo.Symbol] = []
        for symbol in symbols:
            name = symbol.name
            if name == SHOWN_WRAPPER:
                number, shown = symbol.arguments
                own[number.number].append(shown)
            elif name == SHARED_WRAPPER:
                shared.append(symbol.arguments[0])
            elif name in self.dependent and symbol.arguments:
                number, *rest = symbol.arguments
                own[number.number].append(clingo.Function(name, rest, symbol.positive))
            else:
                shared.append(symbol)
        result = []
        for atoms in own:
            seen: set[clingo.Symbol] = set()
            result.append([s for s in [*atoms, *shared] if not (s in seen or seen.add(s))])
        return result


def _closure(rules: list[tuple[set[str], set[str]]], inputs: set[str]) -> set[str]:
    """The inputs, and the heads of any rule that mentions one, to a fixpoint."""
    dependent = set(inputs)
    changed = True
    while changed:
        changed = False
        for heads, mentioned in rules:
            if not heads <= dependent and mentioned & dependent:
                dependent |= heads
                changed = True
    return dependent


_NAME = re.compile(r"-?[a-z_][A-Za-z0-9_']*")


def parse_case_facts(program: str) -> list[tuple[str, str]]:
    """A case's program, which must hold only facts, one per line: (predicate name, the rest of the line).
    Read as text rather than parsed, since for a batch's few hundred facts clingo's AST in Python costs
    more than the grounding it saves; anything but one plain fact on a line makes the batch decline."""
    facts = []
    for line in program.split("\n"):
        text = line.strip()
        if not text:
            continue
        name = _NAME.match(text)
        if name is None or not _one_fact(text[name.end() :]):
            raise NotTaggable(f"case program: not a fact: {text[:60]}")
        facts.append((name[0], text[name.end() :]))
    return facts


def _one_fact(rest: str) -> bool:
    """Whether `rest` is "." or "(arguments)." closing exactly once, strings and nesting considered."""
    if rest == ".":
        return True
    if not rest.startswith("("):
        return False
    depth, in_string, escaped = 0, False, False
    for position, char in enumerate(rest):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return rest[position + 1 :] == "."
        elif char == ";" or (char in ".:%#" and depth == 0):  # a pool would not keep the tag
            return False
    return False
