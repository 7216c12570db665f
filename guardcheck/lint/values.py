"""What an expression holds, as far as a single file shows: the path of a .py file, or code text.

Names are followed one assignment at a time through libcst's scope analysis,
so `src = inspect.getsource(f)` then `src[:200]` is seen; anything flowing
through calls, attributes or containers is not (see docs/lint-tests.md).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import Assignment

from guardcheck.lint.parsed import TestFile

GETSOURCE = frozenset({"inspect.getsource", "inspect.getsourcelines"})
GETSOURCEFILE = frozenset({"inspect.getsourcefile"})
# Return the path of an object's source file without being a smell by themselves.
SOURCE_FILE_OF = frozenset({"inspect.getfile"}) | GETSOURCEFILE
LINECACHE = frozenset({"linecache.getline", "linecache.getlines", "linecache.updatecache"})
# Builtins whose result is (the class of) their argument, not something new.
SAME_OBJECT_OF = frozenset({"builtins.type", "builtins.getattr"})
PATH_TYPES = frozenset(
    {f"pathlib.{name}" for name in ("Path", "PurePath", "PosixPath", "WindowsPath")}
)
CWD = frozenset({"pathlib.Path.cwd", "os.getcwd"})
DIRNAME = frozenset({"os.path.dirname", "os.path.abspath", "os.path.realpath"})
OPEN = frozenset({"builtins.open", "io.open", "codecs.open", "tokenize.open"})
# Methods that keep a path naming the same file, and those that keep code text code text.
SAME_FILE_METHODS = frozenset({"resolve", "absolute", "expanduser"})
TEXT_METHODS = frozenset({"strip", "lstrip", "rstrip", "splitlines", "decode"})
READ_METHODS = frozenset({"read_text", "read_bytes"})


def _literal_py(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
        value = node.evaluated_value
        if isinstance(value, bytes):
            return value.endswith(b".py")
        return isinstance(value, str) and value.endswith(".py")
    return False


def names_in(node: cst.CSTNode) -> set[str]:
    """Every name used anywhere in `node`."""

    class _Names(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: set[str] = set()

        def visit_Name(self, node: cst.Name) -> None:
            self.found.add(node.value)

    collector = _Names()
    node.visit(collector)
    return collector.found


def _module_file(node: cst.Attribute) -> bool:
    """`mod.__file__` or `mod.__spec__.origin`."""
    spec_origin = (
        node.attr.value == "origin"
        and isinstance(node.value, cst.Attribute)
        and node.value.attr.value == "__spec__"
    )
    return node.attr.value == "__file__" or spec_origin


class Values:
    """Answers about expressions of one file; assignments are indexed as rules walk the tree."""

    def __init__(self, file: TestFile) -> None:
        self.file = file
        self._assigned: dict[cst.CSTNode, cst.BaseExpression] = {}

    def record_assign(self, node: cst.Assign | cst.AnnAssign) -> None:
        targets = (
            [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        )
        if node.value is not None:
            for target in targets:
                self._assigned[target] = node.value

    def only_values(self, name: cst.Name) -> list[cst.BaseExpression] | None:
        """Every value `name` is bound to in its scope, or None when one of its bindings
        is not a plain assignment seen so far (a parameter, a loop, an import, `+=`)."""
        scope = self.file.scope(name)
        bindings = list(scope[name.value]) if scope is not None else []
        if not bindings or any(
            not isinstance(b, Assignment) or b.node not in self._assigned for b in bindings
        ):
            return None
        return [self._assigned[b.node] for b in bindings if isinstance(b, Assignment)]

    def _bound_values(self, name: cst.Name, seen: set[cst.CSTNode]) -> list[cst.BaseExpression]:
        scope = self.file.scope(name)
        if scope is None or name in seen:
            return []
        seen.add(name)  # `src = src.strip()` must not recurse forever
        return [
            self._assigned[a.node]
            for a in scope[name.value]
            if isinstance(a, Assignment) and a.node in self._assigned
        ]

    def is_source_path(
        self, node: cst.BaseExpression, seen: set[cst.CSTNode] | None = None
    ) -> bool:
        """A .py file of the real tree: `__file__`, `mod.__file__`, "x.py", `ROOT / "x.py"`, ...

        A .py name joined onto anything else (`tmp_path / "app.py"`, a fixture's
        project folder) is a file the test wrote itself, and reading it back is fine.
        """
        seen = set() if seen is None else seen
        if isinstance(node, cst.Name):
            if node.value == "__file__":
                return True
            return any(self.is_source_path(v, seen) for v in self._bound_values(node, seen))
        if isinstance(node, cst.Attribute):
            return _module_file(node)
        if isinstance(node, cst.BinaryOperation):
            return isinstance(node.operator, cst.Divide) and self._joined(
                [node.left, node.right], seen
            )
        if isinstance(node, cst.Call):
            return self._call_gives_source_path(node, seen)
        return _literal_py(node)

    def is_anchor(self, node: cst.BaseExpression, seen: set[cst.CSTNode]) -> bool:
        """A place in the real tree: a literal, `__file__` and what is derived from it."""
        if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
            return True
        if isinstance(node, cst.Name):
            if node.value == "__file__":
                return True
            return any(self.is_anchor(v, seen) for v in self._bound_values(node, seen))
        if isinstance(node, cst.Attribute):
            return node.attr.value == "__file__" or (
                node.attr.value in ("parent", "parents") and self.is_anchor(node.value, seen)
            )
        if isinstance(node, cst.Subscript):  # Path(__file__).parents[2]
            return self.is_anchor(node.value, seen)
        if isinstance(node, cst.BinaryOperation):
            return isinstance(node.operator, cst.Divide) and all(
                self.is_anchor(part, seen) for part in (node.left, node.right)
            )
        if not isinstance(node, cst.Call):
            return False
        if self.file.refers_to(node.func, CWD):
            return True
        if self.file.refers_to(node.func, PATH_TYPES | DIRNAME | {"os.path.join"}):
            return bool(node.args) and all(self.is_anchor(a.value, seen) for a in node.args)
        return (
            isinstance(node.func, cst.Attribute)
            and node.func.attr.value in SAME_FILE_METHODS
            and self.is_anchor(node.func.value, seen)
        )

    def _joined(self, parts: list[cst.BaseExpression], seen: set[cst.CSTNode]) -> bool:
        """`a / b`, Path(a, b), os.path.join(a, b): the last part names the file, the
        others must be places in the real tree."""
        *base, final = parts
        if not base:
            return self.is_source_path(final, seen)
        return _literal_py(final) and all(self.is_anchor(part, seen) for part in base)

    def _call_gives_source_path(self, call: cst.Call, seen: set[cst.CSTNode]) -> bool:
        file = self.file
        if file.refers_to(call.func, SOURCE_FILE_OF):
            return True
        if file.refers_to(call.func, PATH_TYPES | {"os.path.join"}):
            return bool(call.args) and self._joined([a.value for a in call.args], seen)
        if isinstance(call.func, cst.Attribute):
            method = call.func.attr.value
            if method in SAME_FILE_METHODS:
                return self.is_source_path(call.func.value, seen)
            if method in ("with_suffix", "with_name"):
                return (
                    bool(call.args)
                    and _literal_py(call.args[0].value)
                    and self.is_anchor(call.func.value, seen)
                )
        return False

    def is_source_text(
        self, node: cst.BaseExpression, seen: set[cst.CSTNode] | None = None
    ) -> bool:
        """Code read from a module: getsource(...), a .py file's contents, or a name bound to it."""
        seen = set() if seen is None else seen
        if isinstance(node, cst.Name):
            return any(self.is_source_text(v, seen) for v in self._bound_values(node, seen))
        if isinstance(node, cst.Subscript):  # getsourcelines(f)[0]
            return not self.line_number_only(node) and self.is_source_text(node.value, seen)
        if not isinstance(node, cst.Call):
            return False
        if self.file.refers_to(node.func, GETSOURCE):
            return self.reads_code_under_test(node)
        if self.file.refers_to(node.func, {"textwrap.dedent"}):
            return bool(node.args) and self.is_source_text(node.args[0].value, seen)
        return self.reads_source_file(node, seen) or self._method_keeps_text(node, seen)

    def line_number_only(self, node: cst.Subscript) -> bool:
        """`getsourcelines(f)[1]`: where f starts, not its text."""
        if len(node.slice) != 1 or not isinstance(node.value, cst.Call):
            return False
        index = node.slice[0].slice
        return (
            isinstance(index, cst.Index)
            and isinstance(index.value, cst.Integer)
            and index.value.value == "1"
            and self.file.refers_to(node.value.func, {"inspect.getsourcelines"})
        )

    def reads_code_under_test(self, call: cst.Call) -> bool:
        """Whether getsource(X) reads code the test did not make itself.

        Code generated at run time (attrs' `__init__`, a class from `make_class`) and
        code defined in the test file are not the source of the code under test.
        """
        return not call.args or not self._made_here(call.args[0].value, set())

    def _made_here(self, node: cst.BaseExpression, seen: set[cst.CSTNode]) -> bool:
        while isinstance(node, cst.Attribute | cst.Subscript):
            node = node.value  # D.__init__, funcs[0]: made where D and funcs are
        if isinstance(node, cst.Lambda):
            return True
        if isinstance(node, cst.Call):
            if self.file.refers_to(node.func, SAME_OBJECT_OF):
                return bool(node.args) and self._made_here(node.args[0].value, seen)
            return True  # a factory's result: made at run time
        if not isinstance(node, cst.Name) or node in seen:
            return False
        seen.add(node)
        scope = self.file.scope(node)
        bindings = list(scope[node.value]) if scope is not None else []
        return bool(bindings) and all(
            isinstance(b, Assignment)
            and (
                isinstance(b.node, cst.FunctionDef | cst.ClassDef)
                or (b.node in self._assigned and self._made_here(self._assigned[b.node], seen))
            )
            for b in bindings
        )

    def reads_source_file(self, call: cst.Call, seen: set[cst.CSTNode] | None = None) -> bool:
        """open(SOURCE_PATH), SOURCE_PATH.read_text() / .read_bytes() / .open(),
        linecache.getline(s)(SOURCE_PATH)."""
        seen = set() if seen is None else seen
        if self.file.refers_to(call.func, OPEN | LINECACHE):
            return bool(call.args) and self.is_source_path(call.args[0].value, seen)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in {*READ_METHODS, "open"}:
            return self.is_source_path(call.func.value, seen)
        return False

    def _method_keeps_text(self, call: cst.Call, seen: set[cst.CSTNode]) -> bool:
        if not isinstance(call.func, cst.Attribute):
            return False
        method = call.func.attr.value
        receiver = call.func.value
        if method in ("read", "readlines") and isinstance(receiver, cst.Call):
            return self.reads_source_file(receiver, seen)  # open(__file__).read()
        return method in TEXT_METHODS and self.is_source_text(receiver, seen)
