"""Which functions changed between the base and today, and what the tests call them with.

Read statically with `ast` (nothing of the user's code is imported here). A
function is every module-level `def` and every `def` directly in a module-level
class. It changed when its `ast.dump` (body, signature, decorators; not comments
or formatting) differs. A function whose `def` is gone from its module is still
compared when today's module binds the same name (an alias `_old = new`, a
re-export `from pkg.b import f`) or when the moves file names its new home.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from guardcheck.refactor.layout import display, is_test_file, module_name, python_files

_Def = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Function:
    module: str  # relay.runner
    qualname: str  # Relay.record_failure
    path: str  # posix, relative to its root
    line: int
    dump: str  # ast.dump: what "changed" compares
    is_async: bool
    in_class: str | None  # the enclosing class's name
    decorators: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def target(self) -> str:
        return f"{self.module}:{self.qualname}"


@dataclass(frozen=True)
class Pair:
    """A function at the base and what it is called today."""

    old: Function
    new_module: str
    new_qualname: str
    new: Function | None  # today's def (an alias's or re-export's target), when found
    how: str  # "changed", "alias or re-export", "moved (moves file)"

    @property
    def new_target(self) -> str:
        return f"{self.new_module}:{self.new_qualname}"


@dataclass
class Module:
    functions: dict[str, Function] = field(default_factory=dict)
    bound: set[str] = field(default_factory=set)  # top-level names it binds
    # `_old = new` and `from pkg.b import f as g`: name -> (module, name) it stands for
    aliases: dict[str, tuple[str, str]] = field(default_factory=dict)


def _decorator_names(node: _Def) -> tuple[str, ...]:
    return tuple(ast.unparse(d) for d in node.decorator_list)


def _function(module: str, path: str, node: _Def, owner: str | None) -> Function:
    qualname = f"{owner}.{node.name}" if owner else node.name
    return Function(
        module,
        qualname,
        path,
        node.lineno,
        ast.dump(node),
        isinstance(node, ast.AsyncFunctionDef),
        owner,
        _decorator_names(node),
    )


def _bound_names(statement: ast.stmt) -> Iterator[str]:
    if isinstance(statement, ast.Import | ast.ImportFrom):
        for alias in statement.names:
            yield (alias.asname or alias.name).split(".", 1)[0]
    elif isinstance(statement, ast.Assign):
        for target in statement.targets:
            if isinstance(target, ast.Name):
                yield target.id
    elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        yield statement.target.id
    elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield statement.name


def _aliases(statement: ast.stmt, module: str, package: str) -> Iterator[tuple[str, str, str]]:
    """(name, module, name it stands for) for `a = b` and `from m import b as a`."""
    if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Name):
        for target in statement.targets:
            if isinstance(target, ast.Name):
                yield target.id, module, statement.value.id
    elif isinstance(statement, ast.ImportFrom) and statement.module is not None:
        source = statement.module
        if statement.level:
            parts = package.split(".")
            anchor = parts[: len(parts) - statement.level + 1] if package else []
            source = ".".join([*anchor, source])
        for alias in statement.names:
            yield alias.asname or alias.name, source, alias.name


def read_module(root: Path, file: Path, imports_from: Path | None = None) -> Module | None:
    """One file's functions; `imports_from` is the folder its package is imported from
    (the root, or `src/` for `source = ["src/pkg"]`)."""
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return None
    found = Module()
    name, shown = module_name(imports_from or root, file), display(root, file)
    package = name if file.name == "__init__.py" else name.rpartition(".")[0]
    for statement in tree.body:
        found.bound.update(_bound_names(statement))
        for alias, module, target in _aliases(statement, name, package):
            found.aliases[alias] = (module, target)
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            function = _function(name, shown, statement, None)
            found.functions[function.qualname] = function
        elif isinstance(statement, ast.ClassDef):
            for member in statement.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    function = _function(name, shown, member, statement.name)
                    found.functions[function.qualname] = function
    return found


def read_modules(root: Path, sources: Sequence[str]) -> dict[str, Module]:
    modules = {}
    for source in sources:
        imports_from = (root / source).parent
        for file in python_files(root, [source]):
            if is_test_file(file):
                continue
            read = read_module(root, file, imports_from)
            if read is not None:
                modules[module_name(imports_from, file)] = read
    return modules


def _moved_to(old: Function, moves: Iterable[tuple[str, str]]) -> str | None:
    """The moves file's `new` for this function (`old` names it by a dotted suffix)."""
    dotted = f"{old.module}.{old.qualname}"
    for before, after in moves:
        if dotted == before or dotted.endswith("." + before):
            return after
    return None


def _alias_target(today: dict[str, Module], module: str, name: str) -> Function | None:
    """The def an alias or re-export stands for today (through a few hops), if it has one."""
    for _ in range(5):
        here = today.get(module)
        if here is None:
            return None
        if name in here.functions:
            return here.functions[name]
        if name not in here.aliases:
            return None
        module, name = here.aliases[name]
    return None


def _split_target(dotted: str, today: dict[str, Module]) -> tuple[str, str] | None:
    """`pkg.mod.Class.func` to (`pkg.mod`, `Class.func`) by the longest module today."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        if module in today:
            return module, ".".join(parts[cut:])
    return None


def changed_pairs(
    then: dict[str, Module],
    today: dict[str, Module],
    moves: Iterable[tuple[str, str]] = (),
) -> tuple[list[Pair], list[Function]]:
    """The base functions to compare with today's, and those gone with no new name."""
    pairs, gone = [], []
    moves = list(moves)
    for module_name_, module in sorted(then.items()):
        now = today.get(module_name_)
        for qualname, old in module.functions.items():
            new = now.functions.get(qualname) if now else None
            if new is not None:
                if new.dump != old.dump:
                    pairs.append(Pair(old, module_name_, qualname, new, "changed"))
                continue
            top = qualname.split(".", 1)[0]
            if now is not None and old.in_class is None and top in now.bound:
                target = _alias_target(today, module_name_, qualname)
                pairs.append(Pair(old, module_name_, qualname, target, "alias or re-export"))
                continue
            moved = _moved_to(old, moves)
            split = _split_target(moved, today) if moved else None
            if split is not None:
                new = today[split[0]].functions.get(split[1])
                pairs.append(Pair(old, split[0], split[1], new, "moved (moves file)"))
            else:
                gone.append(old)
    return pairs, gone


@dataclass(frozen=True)
class LiteralCall:
    """A call in a test whose arguments are all literals, as source text."""

    args: tuple[str, ...]
    kwargs: tuple[tuple[str, str], ...]


def _literal(node: ast.expr) -> str | None:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return ast.unparse(node)


def _as_literal_call(call: ast.Call) -> LiteralCall | None:
    args = []
    for arg in call.args:
        text = None if isinstance(arg, ast.Starred) else _literal(arg)
        if text is None:
            return None
        args.append(text)
    kwargs = []
    for keyword in call.keywords:
        text = _literal(keyword.value) if keyword.arg else None
        if text is None or keyword.arg is None:
            return None
        kwargs.append((keyword.arg, text))
    return LiteralCall(tuple(args), tuple(kwargs))


def _called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def literal_calls(roots: Iterable[tuple[Path, Sequence[str]]]) -> dict[str, set[LiteralCall]]:
    """Per called name, every all-literal call to it in the test files of `roots`."""
    calls: dict[str, set[LiteralCall]] = {}
    for root, paths in roots:
        for file in python_files(root, paths):
            try:
                tree = ast.parse(file.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError, OSError):
                continue
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                name = _called_name(node)
                literal = _as_literal_call(node) if name else None
                if name and literal is not None and (literal.args or literal.kwargs):
                    calls.setdefault(name, set()).add(literal)
    return calls
